"""Quick pairing: the seek pool (issue 22, item 1).

``sk_seeks`` holds one row per player waiting to be paired: the options they
asked for (players, rated, rules preset), the rating they were paired by, how
long they accept to wait before bots fill the empty seats, and the hash of the
secret their browser holds (the seat at the table they are paired into is
claimed by that same hash).  Every server process pairs from this table, so
seekers connected to different workers meet.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_seeks",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("preset", sa.String(24), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("wait_s", sa.Float, nullable=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("claimed", sa.Float, nullable=True),
    )
    op.create_index("ix_sk_seeks_state", "sk_seeks", ["state"])
    op.create_index("ix_sk_seeks_user_id", "sk_seeks", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_sk_seeks_user_id", "sk_seeks")
    op.drop_index("ix_sk_seeks_state", "sk_seeks")
    op.drop_table("sk_seeks")
