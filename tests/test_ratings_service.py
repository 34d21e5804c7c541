"""Results and OpenSkill ratings of finished tables; profiles and leaderboards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accounts_support import FAST, create_table, make_client, play_out, register
from svoi_kozyri.server.platform.ratings_service import MU0, SIGMA0, places, rate_match

pytestmark = pytest.mark.timeout(120)

ONE_HAND = {"rules": {"loss_limit": 1}, **FAST}


def test_places_share_ties() -> None:
    assert places([0, 1, 0, 2], lower_is_better=True) == [1, 3, 1, 4]
    assert places([3, 1, 3], lower_is_better=False) == [1, 3, 1]


def test_rate_match_is_zero_sum_and_sums_a_bots_copies() -> None:
    upset = rate_match([1, 2], {1: (MU0, SIGMA0), 2: (30.0, 4.0)}, [1, 2])
    assert upset[1][0] > MU0 and upset[2][0] < 30.0
    assert upset[1][1] < SIGMA0 and upset[2][1] < 4.0  # both are surer now
    even = rate_match([1, 2], {1: (MU0, SIGMA0), 2: (MU0, SIGMA0)}, [1, 1])
    assert even[1] == pytest.approx(even[2])  # a shared place moves nobody apart
    # a bot (2) in two seats that lost once and won once, against one person
    three = rate_match([1, 2, 2], {1: (MU0, SIGMA0), 2: (MU0, SIGMA0)}, [2, 1, 3])
    assert set(three) == {1, 2}
    total = (three[1][0] - MU0) + (three[2][0] - MU0)
    assert abs(total) < 1e-6


def _finish(c: Any) -> int:
    n: int = c.app.state.players.ratings.process_finished()
    return n


def test_rated_game_updates_ratings_history_profile_and_bot_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(
            c, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], rated=True, **ONE_HAND
        )
        last = play_out(c, g["table_id"], g["token"])
        assert last["status"] == "finished"
        alice_lost = last["session"]["durak"] == 0
        assert _finish(c) == 1
        assert _finish(c) == 0  # exactly once

        prof = c.get("/api/users/Alice").json()
        assert prof["bot"] is False and prof["me"] is True and prof["games"] == 1
        (r2,) = prof["ratings"]
        assert r2["players"] == 2 and r2["games"] == 1
        assert (r2["mu"] < MU0) == alice_lost
        assert r2["rating"] == pytest.approx(r2["mu"] - 3 * r2["sigma"], abs=0.05)
        assert [p["table_id"] for p in prof["history"]["2"]] == [g["table_id"]]

        bot = c.get("/api/users/random").json()
        assert bot["bot"] is True and bot["ratings"][0]["games"] == 1
        assert (bot["ratings"][0]["mu"] > MU0) == alice_lost

        games = c.get("/api/users/Alice/games").json()
        (game,) = games["games"]
        assert game["rated"] is True and game["status"] == "finished"
        assert game["place"] == (2 if alice_lost else 1)
        assert game["replay"] == f"#/r/{g['table_id']}"
        assert (game["rating_change"] < 0) == alice_lost

        board = c.get("/api/ratings", params={"players": 2, "bots": "true"}).json()
        assert [e["username"] for e in board["ratings"]] == ["random"]
        assert board["ratings"][0]["bot"] is True
        people = c.get("/api/ratings", params={"players": 2, "bots": "false"}).json()
        assert [e["username"] for e in people["ratings"]] == ["Alice"]


def test_unrated_game_records_results_but_no_rating(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(c, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], **ONE_HAND)
        play_out(c, g["table_id"], g["token"])
        assert _finish(c) == 1
        prof = c.get("/api/users/Alice").json()
        assert prof["ratings"] == [] and prof["history"] == {} and prof["games"] == 1
        (game,) = c.get("/api/users/Alice/games").json()["games"]
        assert game["rated"] is False and game["place"] in (1, 2) and game["rating_change"] is None
        assert c.get("/api/users/greedy").json()["ratings"] == []


def test_ratings_are_per_player_count(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        two = create_table(
            c, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], rated=True, **ONE_HAND
        )
        play_out(c, two["table_id"], two["token"])
        three = create_table(
            c,
            [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
            rated=True,
            **ONE_HAND,
        )
        play_out(c, three["table_id"], three["token"])
        assert _finish(c) == 2
        prof = c.get("/api/users/Alice").json()
        assert [r["players"] for r in prof["ratings"]] == [2, 3]
        assert all(r["games"] == 1 for r in prof["ratings"])
        bot = c.get("/api/users/random").json()
        counts = {r["players"]: r["games"] for r in bot["ratings"]}
        assert counts == {2: 1, 3: 2}  # two seats at the 3-player table
        assert len(bot["history"]["3"]) == 1  # one point per game, not per seat
        games = c.get("/api/users/random/games").json()
        assert games["total"] == 2
        assert sorted(len(x["seats"]) for x in games["games"]) == [1, 2]


def test_games_list_pages_and_hides_unlisted_tables_from_others(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        ids = []
        for i in range(5):
            g = create_table(
                c, [{"kind": "human"}, {"kind": "human"}], title=f"t{i}", listed=(i != 2)
            )
            ids.append(g["table_id"])
        mine = c.get("/api/users/Alice/games", params={"limit": 2}).json()
        assert mine["total"] == 5 and len(mine["games"]) == 2
        seen = [x["table_id"] for x in mine["games"]]
        seen += [
            x["table_id"]
            for x in c.get("/api/users/Alice/games", params={"limit": 2, "offset": 2}).json()[
                "games"
            ]
        ]
        seen += [
            x["table_id"]
            for x in c.get("/api/users/Alice/games", params={"offset": 4}).json()["games"]
        ]
        assert sorted(seen) == sorted(ids)
        assert {x["rated"] for x in mine["games"]} == {None}  # still running
        guest = c.__class__(c.app)
        with guest:
            theirs = guest.get("/api/users/alice/games").json()
            assert theirs["total"] == 4 and ids[2] not in [x["table_id"] for x in theirs["games"]]
            assert guest.get("/api/users/Alice").json()["me"] is False
        assert c.get("/api/users/nobody").status_code == 404
        assert c.get("/api/users/Alice/games", params={"limit": 51}).status_code == 422


def test_calibration_rates_bot_accounts_from_an_arena_round_robin(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app as cli

    db = tmp_path / "cal.db"
    args = ["calibrate-bots", "--database", f"sqlite:///{db}", "--bots", "random,heuristic"]
    out = CliRunner().invoke(cli, [*args, "--players", "2", "--hands", "60", "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert out.output.index("heuristic") < out.output.index("random")  # the stronger first
    for bad in (["--players", "5"], ["--bots", "random"], ["--bots", "random,nosuchbot"]):
        wrong = CliRunner().invoke(cli, [*args, *bad])
        assert wrong.exit_code == 1 and "error: " in wrong.output
    with make_client(tmp_path, db="cal.db") as c:
        board = c.get("/api/ratings", params={"players": 2, "bots": "true"}).json()["ratings"]
        assert [e["username"] for e in board] == ["heuristic", "random"]  # the stronger first
        assert all(e["arena_hands"] >= 60 and e["games"] == 0 for e in board)
        prof = c.get("/api/users/heuristic").json()
        assert prof["bot"] and prof["ratings"][0]["arena_hands"] >= 60
        # a rated web game moves the calibrated rating on from there
        register(c, "Alice")
        before = prof["ratings"][0]["mu"]
        g = create_table(
            c, [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}], rated=True, **ONE_HAND
        )
        last = play_out(c, g["table_id"], g["token"])
        assert _finish(c) == 1
        after = c.get("/api/users/heuristic").json()["ratings"][0]
        assert after["games"] == 1 and after["mu"] != before
        assert (after["mu"] > before) == (last["session"]["durak"] == 0)
