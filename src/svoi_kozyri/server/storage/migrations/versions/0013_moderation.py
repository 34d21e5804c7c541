"""Moderation (issue 26, item 5): roles, sanctions, reports and the audit log.

``sk_roles`` names the accounts that may moderate (``admin`` or ``moderator``);
``sk_sanctions`` holds bans and mutes with their reason, author and expiry (a
row is in force while it is neither lifted nor expired, so every server process
enforces what any of them decided); ``sk_reports`` the players' reports of a
player or a chat line (the line's text kept, since a moderator may remove it);
``sk_audit`` one row per moderator action.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_roles",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("sk_users.id"), primary_key=True),
        sa.Column("role", sa.String(12), nullable=False),
        sa.Column("granted", sa.Float, nullable=False),
        sa.Column("granted_by", sa.Integer, nullable=True),
    )
    op.create_table(
        "sk_sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("sk_users.id"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("reason", sa.String(300), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=True),
        sa.Column("by_id", sa.Integer, nullable=True),
        sa.Column("lifted", sa.Float, nullable=True),
        sa.Column("lifted_by", sa.Integer, nullable=True),
    )
    op.create_index("ix_sk_sanctions_user_id", "sk_sanctions", ["user_id"])
    op.create_table(
        "sk_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey("sk_users.id"), nullable=False),
        sa.Column("target_id", sa.Integer, nullable=True),
        sa.Column("target_name", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("chat_id", sa.Integer, nullable=True),
        sa.Column("chat_text", sa.Text, nullable=True),
        sa.Column("reason", sa.String(300), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("resolved", sa.Float, nullable=True),
        sa.Column("resolver_id", sa.Integer, nullable=True),
        sa.Column("resolution", sa.String(16), nullable=True),
    )
    op.create_index("ix_sk_reports_state", "sk_reports", ["state"])
    op.create_table(
        "sk_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("actor_id", sa.Integer, nullable=True),
        sa.Column("actor_name", sa.String(64), nullable=False),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("target", sa.String(80), nullable=False),
        sa.Column("details", sa.String(400), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_audit_at", "sk_audit", ["at"])


def downgrade() -> None:
    op.drop_index("ix_sk_audit_at", "sk_audit")
    op.drop_table("sk_audit")
    op.drop_index("ix_sk_reports_state", "sk_reports")
    op.drop_table("sk_reports")
    op.drop_index("ix_sk_sanctions_user_id", "sk_sanctions")
    op.drop_table("sk_sanctions")
    op.drop_table("sk_roles")
