"""Alembic environment of the archive (run by ``Archive.migrate``, ``tapis archive migrate``).

The migration runs on the connection ``Archive.migrate`` hands over in
``config.attributes["connection"]``, inside its transaction (on
PostgreSQL under its advisory lock); there is no ``alembic.ini`` and no
offline (``--sql``) mode.  A new revision: ``versions/NNNN_<what>.py``
written by hand with ``op.*`` calls (``script.py.mako`` is the template),
its ``down_revision`` the previous one; ``tests/test_archive.py`` checks
that the revisions build the schema of ``services.archive.db.metadata``.
"""

from alembic import context

from services.archive.db import VERSION_TABLE, metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the archive migrates through services.archive.db.Archive.migrate (tapis archive migrate)")
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    transactional_ddl=True,  # SQLite too: Archive's engine begins its transactions itself
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
