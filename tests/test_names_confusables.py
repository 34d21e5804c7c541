"""Look-alike names (issue 20, item 12): a guest cannot sit as ``аlice_s``
(Cyrillic ``а``) beside the account ``alice_s``, no account can be registered
under a name that looks like another's, two seats of one table never have names
that look alike, and a name carries no bidi override, zero-width character or pile
of combining marks."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from accounts_support import create_table, csrf, make_client, register
from svoi_kozyri.server.wire.names import limit_marks, looks_alike, skeletons, too_many_marks
from svoi_kozyri.server.wire.schemas import check_name
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.timeout(120)

H = {"kind": "human"}
BOT = {"kind": "bot", "bot": "random"}


def _create(client: TestClient, name: str) -> object:
    return client.post(
        "/api/tables", json={"name": name, "config": {"seats": [H, H, H]}}, headers=csrf(client)
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("alice_s", "\u0430lice_s"),  # Cyrillic a
        ("alice-s", "alice\u2010s"),  # U+2010 HYPHEN
        ("alice_s", "alice\u2010s"),  # the pair: a hyphen for the underscore
        ("alice_s", "alice-s"),
        ("alice_s", "alice.s"),
        ("alice_s", "alice s"),
        ("alice_s", "ALICE_S"),
        ("alice_s", "AIice_s"),  # capital I for l
        ("Bob", "B0b"),
        ("Bob", "\uff22\uff4f\uff42"),  # fullwidth
        ("sam", "sarn"),
        ("Вася", "ВАСЯ"),
        ("Вася", "Bac\u044f"),  # Latin B, a, c
        ("alice_s", "alice_s\ufe0f"),  # a variation selector draws nothing after a letter
        ("alice_s", "alice_s\u3164"),  # the Hangul filler neither
    ],
)
def test_look_alike_names_share_a_skeleton(a: str, b: str) -> None:
    assert looks_alike(a, b) and looks_alike(b, a)


@pytest.mark.parametrize(("a", "b"), [("alice_s", "alice_t"), ("Bob", "Rob"), ("ann", "anna")])
def test_different_names_do_not(a: str, b: str) -> None:
    assert not looks_alike(a, b)
    assert skeletons(a) != skeletons(b)


def test_guest_cannot_sit_under_a_look_alike_of_an_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as owner:
        assert register(owner, "alice_s").status_code == 201
        # the same name with another separator is that account's name too
        assert register(owner.__class__(owner.app), "alice-s").status_code == 409
        guest = TestClient(owner.app)
        with guest:
            for fake in (
                "\u0430lice_s",
                "AIice_s",
                "ALICE_S",
                "alice\u2010s",
                "\u0430lice-s",
                "alice-s",
                "alice.s",
                "alice_s\ufe0f",
            ):
                r = _create(guest, fake)
                assert r.status_code == 409, (fake, r.text)
                assert r.json()["code"] == "name_reserved"
            assert _create(guest, "alice").status_code == 200  # not a look-alike
            # the account's owner still sits under the name
            assert _create(owner, "whatever").json()["seat"] == 0


def test_account_name_cannot_look_like_another_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        assert register(c, "alice_s").status_code == 201
        for fake in ("aIice_s", "ALICE_S", "a1ice_s_x"):
            other = TestClient(c.app)
            with other:
                r = register(other, fake)
                if fake == "a1ice_s_x":  # '1' looks like 'l', not 'i', and _x differs
                    assert r.status_code == 201, r.text
                else:
                    assert r.status_code == 409 and r.json()["code"] == "name_taken", fake
        with TestClient(c.app) as other:  # a look-alike of a bot's name is reserved too
            r = register(other, "rand0m")
            assert r.status_code == 400 and r.json()["code"] == "bad_username"


def test_two_seats_of_a_table_never_look_alike(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g = create_table(c, [H, H, H], name="Вася")
        tid = g["table_id"]
        for fake in ("ВАСЯ", "Bac\u044f", "вася"):
            with TestClient(c.app) as other:
                r = other.post(f"/api/tables/{tid}/join", json={"name": fake})
                assert r.status_code == 409 and r.json()["code"] == "name_in_use", fake
        with TestClient(c.app) as other:
            r = other.post(f"/api/tables/{tid}/join", json={"name": "Петя"})
            assert r.status_code == 200, r.text
            r = other.post(f"/api/tables/{tid}/join", json={"name": "\u041fe\u0442\u044f"})
            assert r.status_code == 409  # a Latin e: looks like Петя
        seats = c.get(f"/api/tables/{tid}").json()["seats"]
        assert [s["taken"] for s in seats] == [True, True, False]


@pytest.mark.parametrize(
    "name",
    [
        "A\u202eB",
        "ali\u200bce",
        "bob\u2066",
        "x\u0301\u0302\u0303y",
        "\u0435" + "\u0301" * 20,
        "alice_s\u3164",  # Hangul filler: a letter that draws nothing
        "\u3164",
        "bob\u2800",  # braille blank
        "a\u034fb",  # combining grapheme joiner
    ],
)
def test_invisible_and_stacked_characters_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError):
        check_name(name)
    with make_client(tmp_path) as c:
        r = _create(c, name)
        assert r.status_code == 422 and r.json()["code"] == "invalid"
        assert c.get("/api/tables").json() == []


def test_combining_marks_are_bounded_per_character() -> None:
    assert not too_many_marks("Việt Nam")  # two marks on e
    assert check_name("Việt") == "Việt"
    assert too_many_marks("e\u0301\u0301\u0301")  # three on one letter
    assert limit_marks("x" + "\u0301" * 200 + "y") == "x\u0301\u0301y"


def test_look_alike_accounts_refused_across_processes_on_postgres(
    postgres_url: str,  # noqa: F811
) -> None:
    """Two apps on one PostgreSQL database (two workers): the second learns the
    first's accounts from the database, under the registration lock."""
    from svoi_kozyri.server.platform.accounts import AccountSettings
    from svoi_kozyri.server.web.app import create_app

    one = create_app(postgres_url, seed=1, accounts=AccountSettings.fast(), migrate=True)
    two = create_app(postgres_url, seed=2, accounts=AccountSettings.fast())
    with TestClient(one) as a, TestClient(two) as b:
        assert register(a, "zoe_lookalike").status_code == 201
        r = register(b, "ZOE_L00KALIKE")  # zeros for o, at the other process
        assert r.status_code == 409 and r.json()["code"] == "name_taken"
        with TestClient(two) as guest:
            r = _create(guest, "zoe_l\u043eokalike")  # a Cyrillic o
            assert r.status_code == 409 and r.json()["code"] == "name_reserved"
