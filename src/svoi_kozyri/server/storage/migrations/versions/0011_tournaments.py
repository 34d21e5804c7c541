"""Tournaments (issue 22, item 3): arenas and Swiss tournaments.

``sk_tournaments`` holds one row per tournament with the lease (``owner``,
``expires``) of the server process directing it; ``sk_tournament_entries`` the
entrants (the hash of each entry's secret seats them at their tables) and their
running standings; ``sk_tournament_games`` and ``sk_tournament_seats`` each
tournament game, its table and who sat where, so the standings can be
recomputed from the stored games.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sk_tournaments",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("preset", sa.String(24), nullable=False),
        sa.Column("starts", sa.Float, nullable=False),
        sa.Column("ends", sa.Float, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("max_entries", sa.Integer, nullable=False),
        sa.Column("creator_id", sa.Integer, nullable=True),
        sa.Column("schedule", sa.String(60), nullable=True, unique=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sk_tournaments_starts", "sk_tournaments", ["starts"])
    op.create_index("ix_sk_tournaments_state", "sk_tournaments", ["state"])
    op.create_table(
        "sk_tournament_entries",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("tournament_id", sa.String(24), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("bot", sa.String(40), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("game_id", sa.String(24), nullable=True),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("free_since", sa.Float, nullable=False),
    )
    op.create_index(
        "ix_sk_tournament_entries_tournament_id", "sk_tournament_entries", ["tournament_id"]
    )
    op.create_index(
        "ux_sk_tournament_entries_user",
        "sk_tournament_entries",
        ["tournament_id", "user_id"],
        unique=True,
    )
    op.create_table(
        "sk_tournament_games",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("tournament_id", sa.String(24), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
    )
    op.create_index(
        "ix_sk_tournament_games_tournament_id", "sk_tournament_games", ["tournament_id"]
    )
    op.create_index("ix_sk_tournament_games_table_id", "sk_tournament_games", ["table_id"])
    op.create_table(
        "sk_tournament_seats",
        sa.Column("game_id", sa.String(24), primary_key=True),
        sa.Column("entry_id", sa.String(24), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("points", sa.Integer, nullable=True),
    )
    op.create_index("ix_sk_tournament_seats_entry_id", "sk_tournament_seats", ["entry_id"])


def downgrade() -> None:
    op.drop_index("ix_sk_tournament_seats_entry_id", "sk_tournament_seats")
    op.drop_table("sk_tournament_seats")
    op.drop_index("ix_sk_tournament_games_table_id", "sk_tournament_games")
    op.drop_index("ix_sk_tournament_games_tournament_id", "sk_tournament_games")
    op.drop_table("sk_tournament_games")
    op.drop_index("ux_sk_tournament_entries_user", "sk_tournament_entries")
    op.drop_index("ix_sk_tournament_entries_tournament_id", "sk_tournament_entries")
    op.drop_table("sk_tournament_entries")
    op.drop_index("ix_sk_tournaments_state", "sk_tournaments")
    op.drop_index("ix_sk_tournaments_starts", "sk_tournaments")
    op.drop_table("sk_tournaments")
