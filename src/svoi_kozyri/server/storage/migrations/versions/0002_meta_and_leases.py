"""Server secrets (signed links) and table leases (many server processes).

``sk_meta`` holds the secret every process signs short-lived links with;
``sk_leases`` says which process fires a table's timers, stand-ins and bot moves
until when; the status index serves start-up and the lobby.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_meta",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "sk_leases",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("sk_tables.id"), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_tables_status", "sk_tables", ["status"])


def downgrade() -> None:
    op.drop_index("ix_sk_tables_status", "sk_tables")
    op.drop_table("sk_leases")
    op.drop_table("sk_meta")
