"""Rate limits shared by every server process on the database.

``sk_limits`` holds one token bucket per row (purpose and client address,
network or everyone; see :class:`svoi_kozyri.server.edge.guard.SharedLimiter`), so
two workers no longer let twice the limit through (issue 20, item 5).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_limits",
        sa.Column("bucket", sa.String(120), primary_key=True),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sk_limits")
