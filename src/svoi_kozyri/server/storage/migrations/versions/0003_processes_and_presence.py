"""Server processes and who is connected where (many processes on one database).

``sk_processes``: each serving process and until when its heartbeat is valid;
``sk_presence``: which human seats of a table have a socket open at which
process, so every process knows whether a player is present (stand-ins, pausing).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_processes",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "sk_presence",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("seats", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sk_presence")
    op.drop_table("sk_processes")
