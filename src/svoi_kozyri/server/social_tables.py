"""The tables of "same deal, compared" and of rematches, on the server's one
SQLAlchemy ``metadata`` (imported at the end of :mod:`.db`, like the account
tables), so that ``db.metadata`` is the whole schema the Alembic revisions build
(revisions 0005 and 0006).
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, String, Table, Text

from .db import metadata

deals_t = Table(
    "sk_deals",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("seed", String(24), nullable=False),  # text: a 62-bit seed in any database
    Column("offset", Integer, nullable=False),
    Column("dealer", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("rules", Text, nullable=False),
    Column("origin", String(32)),
    Column("daily", String(10)),
    Column("created", Float, nullable=False),
)

plays_t = Table(
    "sk_deal_plays",
    metadata,
    Column("deal_id", String(24), primary_key=True),
    Column("table_id", String(32), primary_key=True),
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
