"""How a profile shows ratings and games (issue 21 item 14): a rating on the
Elo-like display scale (1500 for a new account, provisional at first, never the raw
ordinal's small negative numbers), and each game with its players, the account's
result and its date."""

from __future__ import annotations

from pathlib import Path

import pytest

from accounts_support import FAST, create_table, make_client, play_out, register
from svoi_kozyri.server.platform.profiles import outcome
from svoi_kozyri.server.platform.ratings_service import (
    DISPLAY_BASE,
    MU0,
    PROVISIONAL_GAMES,
    SIGMA0,
    display_rating,
    is_provisional,
    ordinal,
)

pytestmark = pytest.mark.timeout(120)

ONE_HAND = {"rules": {"loss_limit": 1}, **FAST}


def test_display_scale_starts_at_1500_and_follows_the_ordinal() -> None:
    assert display_rating(MU0, SIGMA0) == DISPLAY_BASE == 1500
    # the ordinal of a new account after one loss is negative; the display is not
    assert ordinal(20.96, 8.08) < 0 < display_rating(20.96, 8.08) < 1500
    # monotone in the ordinal: a surer (smaller sigma) or better (larger mu) player is higher
    assert display_rating(25.0, 4.0) > display_rating(25.0, 8.0)
    assert display_rating(28.0, 2.0) > display_rating(19.4, 2.1)
    # one beta (25/6) of mu between settled players is about 200 points, as in Elo
    assert display_rating(25.0 + 25 / 6, 2.0) - display_rating(25.0, 2.0) == 200


def test_provisional_until_enough_games_or_an_arena_calibration() -> None:
    assert is_provisional(0) and is_provisional(PROVISIONAL_GAMES - 1)
    assert not is_provisional(PROVISIONAL_GAMES)
    assert not is_provisional(0, arena_hands=2400)  # a calibrated bot


def test_outcome_words() -> None:
    assert outcome(None, [None, None]) is None
    assert outcome(1, [1, 2]) == "won"
    assert outcome(2, [1, 2]) == "lost"
    assert outcome(1, [1, 1, 1]) == "draw"
    assert outcome(2, [1, 2, 3]) == "place"
    assert outcome(3, [1, 2, 3]) == "lost"


def test_new_account_profile_reads_near_1500_provisional_with_players_and_result(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(
            c, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], rated=True, **ONE_HAND
        )
        last = play_out(c, g["table_id"], g["token"])
        alice_lost = last["session"]["durak"] == 0
        assert c.app.state.players.ratings.process_finished() == 1

        prof = c.get("/api/users/Alice").json()
        (r,) = prof["ratings"]
        # mu and sigma are sent rounded to 0.01: the display may differ by a point
        assert abs(r["display"] - display_rating(r["mu"], r["sigma"])) <= 1
        assert 1200 < r["display"] < 1800 and r["provisional"] is True
        assert (r["display"] < 1500) == alice_lost  # the ordinal's sign, on the new scale
        assert prof["provisional_games"] == PROVISIONAL_GAMES
        (point,) = prof["history"]["2"]
        assert point["display"] == r["display"]

        (game,) = c.get("/api/users/Alice/games").json()["games"]
        assert game["outcome"] == ("lost" if alice_lost else "won")
        assert game["finished"] is not None and game["finished"] >= game["created"]
        assert isinstance(game["display_change"], int)
        assert (game["display_change"] < 0) == alice_lost
        a, b = game["lineup"]
        assert (a["seat"], a["kind"], a["name"], a["account"], a["you"]) == (
            "A",
            "human",
            "Alice",
            "Alice",
            True,
        )
        assert (b["seat"], b["kind"], b["bot"], b["name"], b["you"]) == (
            "B",
            "bot",
            "random",
            None,
            False,
        )
        assert {a["place"], b["place"]} == {1, 2}

        # the bot's own list marks its seat as its own
        (bot_game,) = c.get("/api/users/random/games").json()["games"]
        assert [p["you"] for p in bot_game["lineup"]] == [False, True]

        board = c.get("/api/ratings", params={"players": 2}).json()["ratings"]
        mine = next(e for e in board if e["username"] == "Alice")
        assert mine["display"] == r["display"] and mine["provisional"] is True


def test_running_game_has_players_but_no_outcome(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        create_table(c, [{"kind": "human"}, {"kind": "human"}], title="open")
        (game,) = c.get("/api/users/Alice/games").json()["games"]
        assert game["outcome"] is None and game["display_change"] is None
        assert [(p["seat"], p["name"], p["you"]) for p in game["lineup"]] == [
            ("A", "Alice", True),
            ("B", None, False),
        ]
