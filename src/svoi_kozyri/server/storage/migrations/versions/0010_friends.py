"""Friends: follows, blocks and direct challenges (issue 22, item 2).

``sk_follows`` holds who follows whom, ``sk_blocks`` who blocks whom, and
``sk_challenges`` one row per direct challenge: who challenged whom, the table
asked for, the hash of the challenger's secret (their seat at the new table is
claimed with it), its state and, once accepted, the table.  Every server
process reads and claims these rows, so a challenge made at one worker is
accepted at another.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_follows",
        sa.Column("follower", sa.Integer, primary_key=True),
        sa.Column("followee", sa.Integer, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_follows_followee", "sk_follows", ["followee"])
    op.create_table(
        "sk_blocks",
        sa.Column("blocker", sa.Integer, primary_key=True),
        sa.Column("blocked", sa.Integer, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_blocks_blocked", "sk_blocks", ["blocked"])
    op.create_table(
        "sk_challenges",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("from_user", sa.Integer, nullable=False),
        sa.Column("to_user", sa.Integer, nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("decided", sa.Float, nullable=True),
    )
    op.create_index("ix_sk_challenges_from_user", "sk_challenges", ["from_user"])
    op.create_index("ix_sk_challenges_to_user", "sk_challenges", ["to_user"])
    op.create_index("ix_sk_challenges_state", "sk_challenges", ["state"])


def downgrade() -> None:
    op.drop_index("ix_sk_challenges_state", "sk_challenges")
    op.drop_index("ix_sk_challenges_to_user", "sk_challenges")
    op.drop_index("ix_sk_challenges_from_user", "sk_challenges")
    op.drop_table("sk_challenges")
    op.drop_index("ix_sk_blocks_blocked", "sk_blocks")
    op.drop_table("sk_blocks")
    op.drop_index("ix_sk_follows_followee", "sk_follows")
    op.drop_table("sk_follows")
