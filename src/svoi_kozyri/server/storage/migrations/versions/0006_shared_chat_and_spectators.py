"""Chat and spectators shared by every server process on the database.

``sk_chat`` holds each table's chat messages and ``sk_chat_mutes`` each
player's muted seats (see :mod:`svoi_kozyri.server.features.chat`), so the history, the
rate limit and the mutes are the same at every process and survive a restart;
``sk_presence.spectators`` counts the spectators a process has at a table, so
the lobby's spectator counts are the same at every process.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_chat_table_id", "sk_chat", ["table_id"])
    op.create_table(
        "sk_chat_mutes",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("other", sa.Integer, primary_key=True),
    )
    with op.batch_alter_table("sk_presence") as batch:
        batch.add_column(sa.Column("spectators", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("sk_presence") as batch:
        batch.drop_column("spectators")
    op.drop_table("sk_chat_mutes")
    op.drop_index("ix_sk_chat_table_id", "sk_chat")
    op.drop_table("sk_chat")
