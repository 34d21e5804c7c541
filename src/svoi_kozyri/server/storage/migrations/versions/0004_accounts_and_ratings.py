"""Accounts, sessions, seat links, log-in throttling, results and ratings.

``sk_users`` (accounts, bots included), ``sk_sessions`` (SHA-256 of session
ids), ``sk_seat_accounts`` (which account holds which seat), ``sk_login_events``
(failed log-ins and registrations, hashed keys), ``sk_table_meta`` (rated or
not, results recorded), ``sk_ratings`` (OpenSkill per player count) and
``sk_game_results`` (each account's place and rating change per table); see
:mod:`svoi_kozyri.server.storage.schema`.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("is_bot", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
    )
    op.create_table(
        "sk_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("sk_users.id"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_sessions_user_id", "sk_sessions", ["user_id"])
    op.create_table(
        "sk_seat_accounts",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("sk_users.id"), nullable=False),
        sa.Column("linked", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_seat_accounts_user_id", "sk_seat_accounts", ["user_id"])
    op.create_table(
        "sk_login_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("t", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_login_events_kind_key_t", "sk_login_events", ["kind", "key", "t"])
    op.create_table(
        "sk_table_meta",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float),
    )
    op.create_table(
        "sk_ratings",
        sa.Column("user_id", sa.Integer, primary_key=True),
        sa.Column("players", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("arena_hands", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "sk_game_results",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float),
        sa.Column("sigma_before", sa.Float),
        sa.Column("mu_after", sa.Float),
        sa.Column("sigma_after", sa.Float),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_game_results_user_id", "sk_game_results", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_sk_game_results_user_id", "sk_game_results")
    op.drop_table("sk_game_results")
    op.drop_table("sk_ratings")
    op.drop_table("sk_table_meta")
    op.drop_index("ix_sk_login_events_kind_key_t", "sk_login_events")
    op.drop_table("sk_login_events")
    op.drop_index("ix_sk_seat_accounts_user_id", "sk_seat_accounts")
    op.drop_table("sk_seat_accounts")
    op.drop_index("ix_sk_sessions_user_id", "sk_sessions")
    op.drop_table("sk_sessions")
    op.drop_table("sk_users")
