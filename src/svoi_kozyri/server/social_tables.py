"""The tables of "same deal, compared" and of rematches, on the server's one
SQLAlchemy ``metadata`` (imported at the end of :mod:`.db`, like the account
tables), so that ``db.metadata`` is the whole schema the Alembic revisions build
(revisions 0005, 0006 and 0007).
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, String, Table, Text

from .db import metadata

deals_t = Table(
    "sk_deals",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("deal", Text),  # the hand's deal event (JSON); NULL: an old deal that cannot be played
    Column("dealer", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("rules", Text, nullable=False),
    Column("seats", Text),  # the origin's seats (JSON: kind and bot of each)
    Column("origin", String(32)),
    Column("hand", Integer),  # the origin's hand number
    Column("daily", String(10)),
    Column("created", Float, nullable=False),
)
"""Shared deals (revision 0007): one hand's explicit deal event (dealer, deck
order, suit owners), never a table's seed, which would derive the table's other
hands, the one being played included (issue 20 item 1)."""

plays_t = Table(
    "sk_deal_plays",
    metadata,
    Column("deal_id", String(24), primary_key=True),
    Column("table_id", String(32), primary_key=True, index=True),
    Column("hand", Integer, nullable=False),
    Column("created", Float, nullable=False),
)

rematches_t = Table(
    "sk_rematches",
    metadata,
    Column("old_id", String(32), primary_key=True),
    Column("new_id", String(32), nullable=False),
    Column("created", Float, nullable=False),
)

chat_t = Table(
    "sk_chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
)
"""Table chat (revision 0006): in the database, so every server process on it
shows the same history, counts the same rate limit and survives a restart."""

chat_mutes_t = Table(
    "sk_chat_mutes",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("other", Integer, primary_key=True),
)
"""Which seats each player of a table has muted (revision 0006)."""
