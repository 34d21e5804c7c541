"""The tables of "same deal, compared" and of rematches, on the server's one
SQLAlchemy ``metadata`` (imported at the end of :mod:`.db`, like the account
tables), so that ``db.metadata`` is the whole schema the Alembic revisions build
(revision 0005).
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
