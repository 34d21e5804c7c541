"""Same deal, compared, and rematches: ``sk_deals`` (a shared deal: seed, hand
offset, dealer, players, rules), ``sk_deal_plays`` (the tables that played it)
and ``sk_rematches`` (a finished table's rematch); see
:mod:`svoi_kozyri.server.features.deals` and :mod:`svoi_kozyri.server.features.session_end`.

Those modules also create their tables if missing (``create_all`` with
``checkfirst``), so a database migrated before this revision keeps working; this
revision makes them part of the migrated schema that ``serve`` checks.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    have = set(sa.inspect(bind).get_table_names())
    if "sk_deals" not in have:
        op.create_table(
            "sk_deals",
            sa.Column("id", sa.String(24), primary_key=True),
            sa.Column("seed", sa.String(24), nullable=False),
            sa.Column("offset", sa.Integer, nullable=False),
            sa.Column("dealer", sa.Integer, nullable=False),
            sa.Column("players", sa.Integer, nullable=False),
            sa.Column("rules", sa.Text, nullable=False),
            sa.Column("origin", sa.String(32)),
            sa.Column("daily", sa.String(10)),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "sk_deal_plays" not in have:
        op.create_table(
            "sk_deal_plays",
            sa.Column("deal_id", sa.String(24), primary_key=True),
            sa.Column("table_id", sa.String(32), primary_key=True),
            sa.Column("hand", sa.Integer, nullable=False),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "sk_rematches" not in have:
        op.create_table(
            "sk_rematches",
            sa.Column("old_id", sa.String(32), primary_key=True),
            sa.Column("new_id", sa.String(32), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("sk_rematches")
    op.drop_table("sk_deal_plays")
    op.drop_table("sk_deals")
