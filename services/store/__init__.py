"""Redis-streams event store: key names, the append script, snapshots,
and the table projection cache."""

from services.store.store import AppendResult, EventStore, Outcome, TableExists
from services.store.tables import Table, Tables

__all__ = ["AppendResult", "EventStore", "Outcome", "TableExists", "Table", "Tables"]
