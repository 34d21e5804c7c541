"""The server's garbage-collector policy (server/runtime/gcpolicy.py): long-lived objects are
frozen out of the collector's walks, and the frozen cycles are still reclaimed by
the periodic full collection (nothing leaks for good)."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from svoi_kozyri.server.runtime import gcpolicy
from svoi_kozyri.server.runtime.gcpolicy import GcPolicy


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_frozen_cycles_are_reclaimed_by_the_full_collection() -> None:
    policy = GcPolicy(freeze_s=3600, full_s=3600)
    gc.collect()
    try:
        alive = _cycle()  # garbage, but only the cyclic collector can free it
        policy.tick()  # not due: freeze only
        assert gc.get_freeze_count() > 0
        gc.collect()
        assert alive() is not None  # frozen: the collector no longer walks it
        policy.full_s = 0.0  # due now
        policy.tick()
        assert alive() is None and policy.full_collections == 1
        assert gc.get_freeze_count() > 0  # frozen again after the full collection
    finally:
        gc.unfreeze()


def test_the_policy_runs_on_the_loop_and_gives_everything_back_when_stopped() -> None:
    async def go() -> int:
        policy = GcPolicy(freeze_s=0.01, full_s=3600)
        policy.start()
        await asyncio.sleep(0.05)
        frozen = gc.get_freeze_count()
        await policy.stop()
        assert gc.get_freeze_count() == 0
        return frozen

    assert asyncio.run(go()) > 0


def test_the_environment_turns_it_off_or_sets_the_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(gcpolicy.ENV, "0")
    assert gcpolicy.from_env() is None
    monkeypatch.setenv(gcpolicy.ENV, "2.5")
    p = gcpolicy.from_env()
    assert p is not None and p.freeze_s == 2.5
    monkeypatch.setenv(gcpolicy.ENV, "soon")
    p = gcpolicy.from_env()
    assert p is not None and p.freeze_s == gcpolicy.FREEZE_S
