"""The server's hot path on PostgreSQL (issue 13, the load target): the one-statement
append, batched lease renewals, and "committed before announced" now that a
commit awaits the database instead of blocking the event loop.

Against a real, throwaway PostgreSQL server (skipped with the reason when it is
not installed; with ``CI`` set a skip fails, see conftest.py).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest

from svoi_kozyri.server.cluster import Cluster
from svoi_kozyri.server.storage.store import AsyncAppender, StaleVersionError, Store
from svoi_kozyri.server.table.live import LiveTable
from svoi_kozyri.server.web.hub import Hub
from svoi_kozyri.server.wire.events import MoveEvent, event_data
from svoi_kozyri.server.wire.schemas import CreateTableRequest, JoinRequest, TableConfig
from svoi_kozyri.server.wire.transport import Conn
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.timeout(120)

_names = itertools.count()


def _move(n: int) -> MoveEvent:
    """A distinct event to store (the store checks versions, not moves)."""
    return MoveEvent(seat=n % 2, move=f"lead {6 + n}S")


@pytest.fixture
def store(postgres_url: str) -> Iterator[Store]:  # noqa: F811
    """A fresh, migrated database of its own for each test."""
    import psycopg

    name = f"sk_hot{next(_names)}"
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    s = Store(postgres_url.rsplit("/", 1)[0] + "/" + name, migrate=True)
    yield s
    s.close()


def _plain_table(store: Store, table_id: str) -> None:
    store.create_table(table_id, {"seats": []}, 1, [])


def _dsn(store: Store) -> str:
    return store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def test_append_checks_the_version_and_notifies_only_what_it_stored(store: Store) -> None:
    import psycopg

    from svoi_kozyri.server.storage.store import CHANNEL

    _plain_table(store, "t1")
    listener = psycopg.connect(_dsn(store), autocommit=True)
    listener.execute(f"LISTEN {CHANNEL}")

    async def go() -> None:
        app = store.appender()
        assert isinstance(app, AsyncAppender)
        await app.append("t1", 0, _move(0), "playing", "first")
        with pytest.raises(StaleVersionError):  # a second writer of version 0
            await app.append("t1", 0, _move(1), "playing", "second")
        await app.append("t1", 1, _move(2), "finished", "third")
        with pytest.raises(StaleVersionError):  # a version from the future
            await app.append("t1", 5, _move(3), "playing", "fourth")
        await app.close()

    asyncio.run(go())
    assert store.versions(["t1"]) == {"t1": 2}
    assert store.events_since("t1", 0) == [_move(0), _move(2)]
    heard = [n.payload for n in listener.notifies(timeout=1.0, stop_after=3)]
    listener.close()
    assert heard == ["first", "third"]
    # the synchronous path (same statement through SQLAlchemy) agrees
    store.append_event("t1", 2, _move(4), "finished", notify="")
    with pytest.raises(StaleVersionError):
        store.append_event("t1", 2, _move(5), "finished", notify="")
    assert store.versions(["t1"]) == {"t1": 3}


def test_renew_leases_renews_only_the_owners_leases(store: Store) -> None:
    for t in ("a", "b", "c"):
        _plain_table(store, t)
    assert store.acquire_lease("a", "me", 5.0)[0]
    assert store.acquire_lease("b", "other", 5.0)[0]
    assert store.renew_leases("me", ["a", "b", "c"], 5.0) == {"a"}
    assert store.renew_leases("me", [], 5.0) == set()
    held, left = store.acquire_lease("b", "me", 5.0)  # still the other's
    assert not held and left > 4.0


class GatedAppender:
    """The real appender, holding each append until the test opens the gate."""

    def __init__(self, real: AsyncAppender) -> None:
        self.real = real
        self.gate = asyncio.Event()
        self.started = 0

    async def append(self, *args: Any) -> None:
        self.started += 1
        await self.gate.wait()
        await self.real.append(*args)

    async def close(self) -> None:
        await self.real.close()


async def _two_player_table(hub: Hub) -> LiveTable:
    cfg = TableConfig.model_validate(
        {"seats": [{"kind": "human"}, {"kind": "human"}], "hand_pause_s": 0, "listed": False}
    )
    grant = hub.create_table(CreateTableRequest(name="ann", config=cfg), "http://x")
    hub.join(grant.table_id, JoinRequest(name="bob"), "http://x")
    live = hub.tables[grant.table_id]
    for _ in range(200):  # the first deal is the scheduler's (a task)
        if live.game.state is not None and live.game.version == 1 and not live.pending:
            break
        await asyncio.sleep(0.01)
    assert live.game.state is not None and hub.store.versions([grant.table_id]) == {
        grant.table_id: 1
    }
    return live


def _states(conn: Conn) -> list[dict[str, Any]]:
    out = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        assert text is not None
        msg = json.loads(text)
        if msg["type"] == "state":
            out.append(msg["view"])
    return out


def test_nothing_is_announced_before_its_event_is_committed(store: Store) -> None:
    async def go() -> None:
        hub = Hub(store, seed=3)  # not started: no other process, no leases needed
        live = await _two_player_table(hub)
        game = live.game
        table_id = game.table_id
        assert game.state is not None
        seat = game.state.to_act
        assert seat is not None
        conn = Conn(None, seat)  # type: ignore[arg-type]  # its queue is all we read
        live.conns.add(conn)
        real = hub.master.appender
        assert isinstance(real, AsyncAppender)
        gated = GatedAppender(real)
        hub.master.appender = gated  # type: ignore[assignment]

        done_before = hub.actions  # the deal
        move = str(game.state.legal_moves()[0])
        first = game.prepare_move(seat, move)
        task = asyncio.create_task(hub.master.commit(live, first.event, first))
        await asyncio.sleep(0.05)
        assert gated.started == 1 and live.pending == 1
        assert game.version == 2  # applied in memory: the next message sees it
        assert store.versions([table_id]) == {table_id: 1}
        hub.master.changed(live)  # e.g. a join or presence change meanwhile
        assert _states(conn) == []  # not announced: not committed yet
        view = asyncio.create_task(live.settled())
        await asyncio.sleep(0.02)
        assert not view.done()  # the HTTP view waits for the commit too

        gated.gate.set()
        assert await task is True
        await view
        assert live.pending == 0
        assert store.versions([table_id]) == {table_id: 2}
        states = _states(conn)
        assert [v["version"] for v in states] == [2]
        assert hub.actions == done_before + 1
        await hub.stop()

    asyncio.run(go())


def test_a_refused_commit_refuses_the_ones_behind_it_and_reloads(store: Store) -> None:
    async def go() -> None:
        hub = Hub(store, seed=4)
        live = await _two_player_table(hub)
        game = live.game
        table_id = game.table_id
        assert game.state is not None
        real = hub.master.appender
        assert isinstance(real, AsyncAppender)
        gated = GatedAppender(real)
        hub.master.appender = gated  # type: ignore[assignment]
        conn = Conn(None, None)  # type: ignore[arg-type]  # a spectator
        live.conns.add(conn)

        done_before = hub.actions  # the deal
        # another process commits version 1 first
        seat = game.state.to_act
        assert seat is not None
        other_move = str(game.state.legal_moves()[-1])
        store.append_event(table_id, 1, MoveEvent(seat=seat, move=other_move), "x")
        mine = game.prepare_move(seat, str(game.state.legal_moves()[0]))
        t1 = asyncio.create_task(hub.master.commit(live, mine.event, mine))
        await asyncio.sleep(0.02)
        st = game.state
        nxt = st.to_act
        assert nxt is not None
        follow = game.prepare_move(nxt, str(st.legal_moves()[0]))  # on top of mine
        t2 = asyncio.create_task(hub.master.commit(live, follow.event, follow))
        await asyncio.sleep(0.02)
        assert _states(conn) == []
        gated.gate.set()
        assert await t1 is False
        assert await t2 is False  # built on a refused event: refused, never stored
        assert live.game is not game  # rebuilt from the database, which holds the truth
        assert live.game.version == 2 and store.versions([table_id]) == {table_id: 2}
        assert event_data(live.game.events[1])["move"] == other_move
        assert [v["version"] for v in _states(conn)] == [2]
        assert hub.actions == done_before
        await hub.stop()

    asyncio.run(go())


def test_the_async_heartbeat_drops_dead_processes_and_their_presence(store: Store) -> None:
    """The once-a-second heartbeat is one statement on the async pool now; it keeps
    the synchronous one's meaning: renew this process, drop the dead and their
    presence rows, answer the living."""
    import psycopg

    _plain_table(store, "t1")
    with psycopg.connect(_dsn(store), autocommit=True) as c:
        c.execute(
            "INSERT INTO sk_processes (owner, expires) VALUES "
            "('dead', extract(epoch from clock_timestamp()) - 10), "
            "('alive', extract(epoch from clock_timestamp()) + 60), "
            "('me', extract(epoch from clock_timestamp()) - 10)"  # my own lapsed row
        )
        c.execute(
            "INSERT INTO sk_presence (table_id, owner, seats, spectators) VALUES "
            "('t1', 'dead', '0', 0), ('t1', 'alive', '1', 2)"
        )

    async def go() -> set[str]:
        app = store.appender()
        assert app is not None
        try:
            return await app.heartbeat("me", 4.0)
        finally:
            await app.close()

    assert asyncio.run(go()) == {"me", "alive"}
    assert store.presence("t1") == {"alive": ("1", 2)}  # the dead one's row is gone
    assert store.heartbeat("me", 4.0) == {"me", "alive"}  # the sync path agrees


def test_a_catch_up_runs_off_the_loop_once_per_table_and_applies_each_event_once(
    store: Store,
) -> None:
    async def go() -> None:
        hub = Hub(store, seed=5)  # a cluster (PostgreSQL), not started
        cluster = hub.peer
        assert isinstance(cluster, Cluster)
        live = await _two_player_table(hub)
        table_id = live.game.table_id
        conn = Conn(None, None)  # type: ignore[arg-type]  # a spectator here
        live.conns.add(conn)

        pool = hub.master.appender
        assert isinstance(pool, AsyncAppender)
        gate = asyncio.Event()
        reads = 0
        real_read = pool.events_since

        async def gated_read(t: str, seq: int) -> list[tuple[int, dict[str, Any]]]:
            nonlocal reads
            reads += 1
            await gate.wait()
            return await real_read(t, seq)

        pool.events_since = gated_read  # type: ignore[method-assign]

        # another process commits two moves (read back with a second game)
        other = hub.store.load(table_id)
        assert other is not None
        from svoi_kozyri.server.table.master import game_from_stored

        g2 = game_from_stored(other)
        for v in (1, 2):
            st = g2.state
            assert st is not None and st.to_act is not None
            p = g2.prepare_move(st.to_act, str(st.legal_moves()[0]))
            store.append_event(table_id, v, p.event, g2.status)
            g2.apply(p.event, p)
        cluster.on_notify(json.dumps({"k": "ev", "t": table_id, "o": "other", "v": 2}))
        cluster.on_notify(json.dumps({"k": "ev", "t": table_id, "o": "other", "v": 3}))
        task = live.catching
        assert task is not None and live.stale
        await asyncio.sleep(0.05)  # the loop runs meanwhile: the read is awaited
        assert reads == 1 and live.game.version == 1  # one read for both notifications
        hub.scheduler.schedule(live)
        assert live.handle is None  # nothing automatic fires on a stale table
        gate.set()
        await task
        assert not live.stale and live.catching is None
        assert live.game.version == 3 == store.versions([table_id])[table_id]
        assert live.game.events[1:] == g2.events[1:]
        assert [v["version"] for v in _states(conn)] == [3]  # announced once, caught up
        await hub.stop()

    asyncio.run(go())


def test_the_loop_watch_names_the_blocking_call(caplog: pytest.LogCaptureFixture) -> None:
    import time

    from svoi_kozyri.server.runtime.loopwatch import LoopWatch

    def blocking_statement() -> None:
        time.sleep(0.15)  # stands for a synchronous database round trip

    async def go() -> int:
        watch = LoopWatch(0.03)
        watch.start()
        await asyncio.sleep(0.05)
        blocking_statement()
        await asyncio.sleep(0.05)
        await watch.stop()
        return watch.blocked

    with caplog.at_level("WARNING", logger="svoi_kozyri.server.runtime.loopwatch"):
        assert asyncio.run(go()) == 1
    (record,) = [r for r in caplog.records if r.name.endswith("loopwatch")]
    assert "blocking_statement" in record.getMessage()
