"""The archive's first schema: games and seats (issue 22).

Revision ID: 0001
Revises:
Create Date: 2026-05-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``games`` (one row a game, its log a zstd blob) and ``seats``
    (one row a seat) with the indexes of the history queries."""
    op.create_table(
        "games",
        sa.Column("table_id", sa.Text, primary_key=True),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
        sa.Column("events", sa.Integer, nullable=False),
        sa.Column("winners", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("meta", sa.Text, nullable=False),
        sa.Column("digest", sa.Text, nullable=False),
        sa.Column("log", sa.LargeBinary, nullable=False),
        sa.Column("archived_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_games_ended", "games", ["ended_ms", "table_id"])
    op.create_index("ix_games_game_ended", "games", ["game", "ended_ms", "table_id"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Text, sa.ForeignKey("games.table_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("strategy", sa.Text, nullable=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("score", sa.Double, nullable=True),
    )
    op.create_index("ix_seats_name", "seats", ["name", "ended_ms", "table_id"])
    op.create_index("ix_seats_strategy", "seats", ["strategy", "ended_ms", "table_id"])


def downgrade() -> None:
    """Drop both tables (and every archived game)."""
    op.drop_table("seats")
    op.drop_table("games")
