"""The seat gate answers from memory (platform/moderation.py ``BanGate``, issue 26
item 6): a move reads nothing from the database while the bans are unchanged, a
ban or its lifting is seen at the next move (at this process at once, at another
through the notification), a guest's seat claimed by a banned account later is
refused once the copy is refreshed, an expired ban stops counting by itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, insert, update

from svoi_kozyri.server.platform.moderation import BanGate
from svoi_kozyri.server.storage.schema import metadata, sanctions_t, seat_accounts_t, users_t

pytestmark = pytest.mark.timeout(60)


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[tuple[Any, list[str]]]:
    engine = create_engine(f"sqlite:///{tmp_path / 'gate.db'}")
    metadata.create_all(engine)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    with engine.begin() as conn:
        for uid, name in ((1, "Ann"), (2, "Bob")):
            conn.execute(
                insert(users_t).values(
                    id=uid, username=name, username_key=name.lower(), created=0.0, is_bot=0
                )
            )
        conn.execute(insert(seat_accounts_t).values(table_id="t1", seat=0, user_id=1, linked=0))
        conn.execute(insert(seat_accounts_t).values(table_id="t1", seat=1, user_id=2, linked=0))
    yield engine, statements
    engine.dispose()


def ask(gate: BanGate, table_id: str, seat: int) -> tuple[str, str] | None:
    """As the hub asks: memory first, the database when memory cannot say."""
    known, refusal = gate.known(table_id, seat)
    return refusal if known else gate.lookup(table_id, seat)


def ban(engine: Any, uid: int, expires: float | None = None) -> int:
    with engine.begin() as conn:
        res = conn.execute(
            insert(sanctions_t).values(
                user_id=uid, kind="ban", reason="r", created=time.time(), expires=expires
            )
        )
        return int(res.inserted_primary_key[0])


def test_no_query_per_move_while_nothing_changes(db: tuple[Any, list[str]]) -> None:
    engine, statements = db
    gate = BanGate(engine, refresh_s=60)
    before = len(statements)
    assert ask(gate, "t1", 1) is None
    first = len(statements)
    assert first == before + 1  # the bans in force, once (none: no seat is looked up)
    for _ in range(100):
        assert gate.known("t1", 1) == (True, None)
    assert len(statements) == first

    ban(engine, 2)
    assert ask(gate, "t1", 1) is None  # not told yet: the copy still answers
    gate.invalidate()  # as Moderation.sanction does, and a notification at the others
    refusal = ask(gate, "t1", 1)
    assert refusal is not None and refusal[0] == "banned"
    assert ask(gate, "t1", 0) is None
    n = len(statements)
    for _ in range(100):  # both seats' accounts are remembered now
        assert gate.known("t1", 1)[0] and gate.known("t1", 0) == (True, None)
    assert len(statements) == n


def test_refresh_bounds_a_missed_notification_and_guests(db: tuple[Any, list[str]]) -> None:
    engine, _ = db
    gate = BanGate(engine, refresh_s=0.2)
    sid = ban(engine, 2)
    assert ask(gate, "t1", 2) is None  # a guest's seat (no account)
    with engine.begin() as conn:  # Bob claims the guest seat later
        conn.execute(insert(seat_accounts_t).values(table_id="t1", seat=2, user_id=2, linked=0))
    time.sleep(0.25)
    assert ask(gate, "t1", 2) is not None
    with engine.begin() as conn:  # lifted at another process, its notification lost
        conn.execute(update(sanctions_t).where(sanctions_t.c.id == sid).values(lifted=1.0))
    time.sleep(0.25)
    assert ask(gate, "t1", 1) is None and ask(gate, "t1", 2) is None


def test_an_expired_ban_stops_counting_without_a_read(db: tuple[Any, list[str]]) -> None:
    engine, statements = db
    gate = BanGate(engine, refresh_s=60)
    ban(engine, 2, expires=time.time() + 0.3)
    assert ask(gate, "t1", 1) is not None
    n = len(statements)
    time.sleep(0.35)
    assert gate.known("t1", 1) == (True, None)
    assert len(statements) == n
