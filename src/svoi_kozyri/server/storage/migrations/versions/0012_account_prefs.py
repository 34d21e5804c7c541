"""Per-account preferences (issue 22, item 6): the look of the game follows the player.

``sk_account_prefs`` holds one row per account that has saved a choice: the
card deck, the corner letters, the table's colour, "notify me on my turn" and
the language of the pages.  Each is a column of its own, NULL while the account
has not chosen it (the browser's own choice stands), so a change of one
preference is one conditional UPDATE of its column and two devices changing
different preferences at once never overwrite each other.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_account_prefs",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("sk_users.id"), primary_key=True),
        sa.Column("deck", sa.String(12), nullable=True),
        sa.Column("letters", sa.String(8), nullable=True),
        sa.Column("table_colour", sa.String(8), nullable=True),
        sa.Column("notify", sa.Integer, nullable=True),
        sa.Column("lang", sa.String(8), nullable=True),
        sa.Column("updated", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sk_account_prefs")
