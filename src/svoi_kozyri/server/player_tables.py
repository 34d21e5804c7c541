"""The tables of accounts, sessions, seat links, log-in throttling, results and
ratings, on the server's one SQLAlchemy ``metadata``.

They live in their own module, imported at the end of :mod:`.db`, so that
``db.metadata`` always describes the whole schema that the Alembic revisions
create (revision ``0004`` creates these); :mod:`.accounts` and
:mod:`.ratings_service` use them.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table

from .db import metadata

users_t = Table(
    "sk_users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(32), nullable=False),
    Column("username_key", String(32), nullable=False, unique=True),
    Column("password_hash", String(200)),  # None for bot accounts: they never log in
    Column("is_bot", Integer, nullable=False, default=0),
    Column("created", Float, nullable=False),
    Column("last_seen", Float, nullable=False, default=0.0),
)

sessions_t = Table(
    "sk_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("sk_users.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

seat_accounts_t = Table(
    "sk_seat_accounts",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("sk_users.id"), nullable=False, index=True),
    Column("linked", Float, nullable=False),
)

login_events_t = Table(
    "sk_login_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),
    Column("key", String(64), nullable=False),
    Column("t", Float, nullable=False),
    Index("ix_sk_login_events_kind_key_t", "kind", "key", "t"),
)

table_meta_t = Table(
    "sk_table_meta",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("rated", Integer, nullable=False, default=0),
    Column("players", Integer, nullable=False),
    Column("state", String(8), nullable=False, default="open"),  # open, done
    Column("created", Float, nullable=False),
    Column("finished", Float),
)

ratings_t = Table(
    "sk_ratings",
    metadata,
    Column("user_id", Integer, primary_key=True),
    Column("players", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False, default=0),
    Column("arena_hands", Integer, nullable=False, default=0),  # bots: calibration hands
    Column("updated", Float, nullable=False),
)

results_t = Table(
    "sk_game_results",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, nullable=False, index=True),
    Column("players", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("mu_before", Float),
    Column("sigma_before", Float),
    Column("mu_after", Float),
    Column("sigma_after", Float),
    Column("finished", Float, nullable=False),
)
