"""External engines on every surface: the terminal game, the web server (only
engines the operator configured, chosen by name) and the CLI checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from svoi_kozyri.cli.main import app
from svoi_kozyri.cli.serve_cmds import parse_engines
from svoi_kozyri.core import NUM_CARDS, Rules, format_card
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.tui.play import TableSetup, TerminalGame, make_seats
from svoi_kozyri.tui.prompter import StreamPrompter
from svoi_kozyri.tui.render import make_console

ROOT = Path(__file__).resolve().parent.parent
AWK_ENGINE = str(ROOT / "examples" / "engines" / "lowcard.sh")


def test_terminal_game_with_an_engine_seat() -> None:
    cards = [format_card(c) for c in range(NUM_CARDS)]
    infile = io.StringIO(("p\n" + "\n".join(cards) + "\n") * 3000)
    out = io.StringIO()
    setup = TableSetup(
        Rules(num_players=3, loss_limit=1),
        make_seats(["human", f"engine:{AWK_ENGINE}", "random"]),
        seed=4,
    )
    console = make_console(file=out, width=80, color=False)
    game = TerminalGame(setup, console, StreamPrompter(infile, out), sleep=lambda s: None)
    assert game.run() == 0
    text = out.getvalue()
    assert "Session over" in text
    assert "B engine:" in text  # the engine's turns are shown like any bot's


def test_play_refuses_a_missing_engine_with_one_line() -> None:
    res = CliRunner().invoke(app, ["play", "--seats", "human,engine:/no/such/engine"])
    assert res.exit_code == 2
    assert "not found" in res.output and "Traceback" not in res.output


def test_serve_engine_option_is_checked() -> None:
    assert parse_engines([f"awk={AWK_ENGINE}"]) == {"awk": AWK_ENGINE}
    for bad in ("awk", "Awk=ls", "medium=ls", "x=/no/such/cmd", "x="):
        with pytest.raises(ValueError):
            parse_engines([bad])
    res = CliRunner().invoke(app, ["serve", "--engine", "x=/no/such/cmd"])
    assert res.exit_code == 2 and "command not found" in res.output


def test_web_table_with_an_operator_engine(tmp_path: Path) -> None:
    web = create_app(f"sqlite:///{tmp_path / 'web.db'}", seed=3, engines={"awk": AWK_ENGINE})
    with TestClient(web) as client:
        offered = client.get("/api/bots").json()["bots"]
        assert "awk" in offered and "engine" not in offered
        # a client can never name a command
        for bot in (f"engine:{AWK_ENGINE}", "engine:ls"):
            seats = [{"kind": "human"}, {"kind": "bot", "bot": bot}]
            r = client.post("/api/tables", json={"name": "Ann", "config": {"seats": seats}})
            assert r.status_code in (400, 422)  # refused by the schema or the hub
        seats = [{"kind": "human"}, {"kind": "bot", "bot": "awk"}]
        cfg = {"seats": seats, "bot_delay_s": 0, "hand_pause_s": 0, "rules": {"loss_limit": 1}}
        r = client.post("/api/tables", json={"name": "Ann", "config": cfg})
        assert r.status_code == 200, r.text
        g = r.json()
        with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            bot_turns = 0
            for _ in range(20000):
                m = ws.receive_json()
                if m["type"] != "state":
                    continue
                v = m["view"]
                if v["session"]["over"]:
                    break
                h = v["hand"]
                if h:
                    bot_turns = max(bot_turns, sum(1 for e in h["log"] if e["by"] == "bot"))
                if h and h["to_act"] == 0 and not h["result"]:
                    ws.send_text(json.dumps({"type": "move", "move": h["legal"][0]}))
            assert v["session"]["over"]
            assert bot_turns > 0
        agent = web.state.hub.engines._agents["awk"]
        assert not agent.failures  # the engine itself made every move
