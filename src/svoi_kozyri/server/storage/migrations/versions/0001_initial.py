"""The schema of the first web server: tables, seats, the event log.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("listed", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "sk_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("sk_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(40)),
        sa.Column("name", sa.String(64)),
        sa.Column("token_hash", sa.String(64)),
    )
    op.create_table(
        "sk_events",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("sk_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sk_events")
    op.drop_table("sk_seats")
    op.drop_table("sk_tables")
