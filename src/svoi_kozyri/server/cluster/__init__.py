"""Many server processes on one PostgreSQL database: LISTEN/NOTIFY, table leases
and presence, as the :class:`~svoi_kozyri.server.table.peer.TablePeer` of each
process (:class:`.postgres.Cluster`).  :func:`peer_for` picks the peer a store
needs: the cluster on PostgreSQL, the no-op local peer on SQLite.
"""

from __future__ import annotations

from ..storage.store import AsyncAppender, Store
from ..table.peer import LocalPeer, TablePeer
from .postgres import Cluster

__all__ = ["Cluster", "peer_for"]


def peer_for(store: Store, appender: AsyncAppender | None) -> TablePeer:
    """The peer of a process on ``store``: PostgreSQL shares its tables with any
    number of processes; SQLite serves one process, which shares with nobody."""
    if store.backend == "postgresql" and appender is not None:
        return Cluster(store, appender)
    return LocalPeer()
