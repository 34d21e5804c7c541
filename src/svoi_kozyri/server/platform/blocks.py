"""Blocks between accounts: who may never meet whom.

A block is one row of ``sk_blocks`` (blocker, blocked).  It works both ways
wherever two people would meet: neither challenges nor follows the other
(:mod:`.friends`), neither joins a table where the other sits
(:meth:`.players.Players.seat_name`), pairing never seats them together (it asks
:meth:`Blocks.any_between`), and at a table where both sit anyway (a guest seat
claimed later) neither sees the other's chat (:mod:`..features.chat`).  Only the
blocker can lift it.

Why a class of its own, apart from the friends' endpoints: pairing, joins and the
chat need the one question "is there a block among these accounts?", and none of
them should depend on the friends feature to ask it.  Every answer is read from
the database, so every server process gives the same one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import Engine, delete, insert, or_, select
from sqlalchemy.exc import IntegrityError

from ..storage.schema import blocks_t, seat_accounts_t

__all__ = ["Blocks"]


class Blocks:
    """Reads and writes ``sk_blocks`` (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def any_between(self, user_ids: Sequence[int]) -> bool:
        """Whether any one of ``user_ids`` blocks another of them (the pairing
        code never seats such a group together)."""
        ids = sorted(set(user_ids))
        if len(ids) < 2:
            return False
        with self.engine.connect() as conn:
            row = conn.execute(
                select(blocks_t.c.blocker)
                .where(blocks_t.c.blocker.in_(ids), blocks_t.c.blocked.in_(ids))
                .limit(1)
            ).first()
        return row is not None

    def pairs_among(self, user_ids: Sequence[int]) -> set[frozenset[int]]:
        """Every pair of ``user_ids`` with a block between them, either way, in one
        query (the pairing step reads its whole pool's blocks at once)."""
        ids = sorted(set(user_ids))
        if len(ids) < 2:
            return set()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(blocks_t.c.blocker, blocks_t.c.blocked).where(
                    blocks_t.c.blocker.in_(ids), blocks_t.c.blocked.in_(ids)
                )
            ).all()
        return {frozenset((int(r.blocker), int(r.blocked))) for r in rows}

    def blocks(self, blocker: int, blocked: int) -> bool:
        """Whether ``blocker`` blocks ``blocked`` (one direction)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(blocks_t.c.blocker).where(
                    blocks_t.c.blocker == blocker, blocks_t.c.blocked == blocked
                )
            ).first()
        return row is not None

    def related(self, user_id: int) -> set[int]:
        """Every account that blocks ``user_id`` or that ``user_id`` blocks: the
        people the friends lists never show them."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(blocks_t.c.blocker, blocks_t.c.blocked).where(
                    or_(blocks_t.c.blocker == user_id, blocks_t.c.blocked == user_id)
                )
            ).all()
        return {int(r.blocked) if int(r.blocker) == user_id else int(r.blocker) for r in rows}

    def blocked_by(self, blocker: int) -> list[int]:
        """The accounts ``blocker`` blocks, oldest block first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(blocks_t.c.blocked)
                .where(blocks_t.c.blocker == blocker)
                .order_by(blocks_t.c.created, blocks_t.c.blocked)
            ).all()
        return [int(r.blocked) for r in rows]

    def add(self, blocker: int, blocked: int) -> bool:
        """Block; False when the block was there already."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(blocks_t).values(blocker=blocker, blocked=blocked, created=time.time())
                )
        except IntegrityError:
            return False
        return True

    def remove(self, blocker: int, blocked: int) -> bool:
        """Lift a block; False when there was none."""
        with self.engine.begin() as conn:
            res = conn.execute(
                delete(blocks_t).where(blocks_t.c.blocker == blocker, blocks_t.c.blocked == blocked)
            )
        return bool(res.rowcount)

    def at_table(self, user_id: int, table_id: str) -> bool:
        """Whether ``user_id`` and an account seated at ``table_id`` block each
        other (either way): then ``user_id`` may not sit there."""
        seated = select(seat_accounts_t.c.user_id).where(seat_accounts_t.c.table_id == table_id)
        with self.engine.connect() as conn:
            row = conn.execute(
                select(blocks_t.c.blocker)
                .where(
                    or_(
                        (blocks_t.c.blocker == user_id) & blocks_t.c.blocked.in_(seated),
                        (blocks_t.c.blocked == user_id) & blocks_t.c.blocker.in_(seated),
                    )
                )
                .limit(1)
            ).first()
        return row is not None

    def hidden_seats(self, table_id: str) -> dict[int, set[int]]:
        """seat -> the seats of ``table_id`` whose chat that seat's player does
        not see because one of the two blocks the other (both ways: the blocked
        neither reads nor reaches the blocker)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seat_accounts_t.c.seat, seat_accounts_t.c.user_id).where(
                    seat_accounts_t.c.table_id == table_id
                )
            ).all()
            seat_of: dict[int, list[int]] = {}
            for r in rows:
                seat_of.setdefault(int(r.user_id), []).append(int(r.seat))
            if len(seat_of) < 2:
                return {}
            ids = sorted(seat_of)
            pairs = conn.execute(
                select(blocks_t.c.blocker, blocks_t.c.blocked).where(
                    blocks_t.c.blocker.in_(ids), blocks_t.c.blocked.in_(ids)
                )
            ).all()
        out: dict[int, set[int]] = {}
        for p in pairs:
            for a in seat_of[int(p.blocker)]:
                for b in seat_of[int(p.blocked)]:
                    out.setdefault(a, set()).add(b)
                    out.setdefault(b, set()).add(a)
        return out
