"""Shared deals without seeds (issue 20, item 1).

A deal used to store its table's seed and a hand offset, and a table playing it
dealt from that seed: its hand 2, after a drawn hand 1, was the source table's
hand 2, and so on, so a shared deal revealed the hands being played at the
source table.  A deal now stores the one hand's deal event (dealer, deck order,
suit owners), the origin's hand number and seats (which bots sat where), and a
table playing it has a fresh seed of its own.

Upgrade:

* ``sk_deals`` gains ``deal``, ``hand`` and ``seats``, filled from the origin
  table's event log (the hand's number is in the origin's ``sk_deal_plays``
  row); ``seed`` and ``offset`` are dropped.  A deal whose hand cannot be found
  (the old daily deals, whose seed anyone could compute from the date) keeps its
  results but can no longer be played (``deal`` is NULL).
* every unfinished table that was playing a deal with its source's seed (its
  configuration has ``first_dealer``) gets a fresh random seed: its stored
  events replay unchanged (they hold explicit decks) and its next hands no
  longer follow the source table's.
* ``deal_offset`` and ``first_dealer`` leave every stored table configuration
  (the fields are gone from ``TableConfig``).
* ``sk_deal_plays.table_id`` is indexed (a table's deals are looked up by table).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_deals = sa.table(
    "sk_deals",
    sa.column("id", sa.String),
    sa.column("origin", sa.String),
    sa.column("deal", sa.Text),
    sa.column("hand", sa.Integer),
    sa.column("seats", sa.Text),
)
_plays = sa.table(
    "sk_deal_plays",
    sa.column("deal_id", sa.String),
    sa.column("table_id", sa.String),
    sa.column("hand", sa.Integer),
)
_events = sa.table(
    "sk_events",
    sa.column("table_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("data", sa.JSON),
)
_seats = sa.table(
    "sk_seats",
    sa.column("table_id", sa.String),
    sa.column("seat", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("bot", sa.String),
)
_tables = sa.table(
    "sk_tables",
    sa.column("id", sa.String),
    sa.column("config", sa.Text),
    sa.column("seed", sa.BigInteger),
    sa.column("status", sa.String),
)

_LEGACY_CONFIG = ("deal_offset", "first_dealer")


def _hand_deal(bind: Any, table_id: str, hand: int) -> dict[str, Any] | None:
    """The deal event of hand ``hand`` (1-based) of a table, without its kind."""
    rows = bind.execute(
        sa.select(_events.c.data).where(_events.c.table_id == table_id).order_by(_events.c.seq)
    ).all()
    deals = [r.data for r in rows if isinstance(r.data, dict) and r.data.get("kind") == "deal"]
    if not 1 <= hand <= len(deals):
        return None
    ev = deals[hand - 1]
    return {k: ev.get(k) for k in ("dealer", "deck", "owners", "pairs")}


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("sk_deals") as batch:
        batch.add_column(sa.Column("deal", sa.Text))
        batch.add_column(sa.Column("seats", sa.Text))
        batch.add_column(sa.Column("hand", sa.Integer))
    for row in bind.execute(sa.select(_deals.c.id, _deals.c.origin)).all():
        if row.origin is None:
            continue
        found = bind.execute(
            sa.select(_plays.c.hand).where(
                _plays.c.deal_id == row.id, _plays.c.table_id == row.origin
            )
        ).scalar()
        if found is None:
            continue
        hand = int(found)
        deal = _hand_deal(bind, row.origin, hand)
        if deal is None:
            continue
        seats = [
            {"kind": s.kind, "bot": s.bot}
            for s in bind.execute(
                sa.select(_seats.c.kind, _seats.c.bot)
                .where(_seats.c.table_id == row.origin)
                .order_by(_seats.c.seat)
            ).all()
        ]
        bind.execute(
            sa.update(_deals)
            .where(_deals.c.id == row.id)
            .values(deal=json.dumps(deal), hand=hand, seats=json.dumps(seats))
        )
    with op.batch_alter_table("sk_deals") as batch:
        batch.drop_column("seed")
        batch.drop_column("offset")
    op.create_index("ix_sk_deal_plays_table_id", "sk_deal_plays", ["table_id"])
    for t in bind.execute(sa.select(_tables.c.id, _tables.c.config, _tables.c.status)).all():
        config = json.loads(t.config)
        if not isinstance(config, dict) or not any(k in config for k in _LEGACY_CONFIG):
            continue
        values: dict[str, Any] = {}
        if config.get("first_dealer") is not None and t.status != "finished":
            values["seed"] = secrets.randbits(62)  # played a deal with its source's seed
        for k in _LEGACY_CONFIG:
            config.pop(k, None)
        values["config"] = json.dumps(config)
        bind.execute(sa.update(_tables).where(_tables.c.id == t.id).values(**values))


def downgrade() -> None:
    op.drop_index("ix_sk_deal_plays_table_id", "sk_deal_plays")
    with op.batch_alter_table("sk_deals") as batch:
        batch.add_column(sa.Column("seed", sa.String(24), nullable=False, server_default="0"))
        batch.add_column(sa.Column("offset", sa.Integer, nullable=False, server_default="0"))
        batch.drop_column("hand")
        batch.drop_column("seats")
        batch.drop_column("deal")
