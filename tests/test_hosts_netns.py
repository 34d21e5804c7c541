"""The deployment as shipped (deploy/): two hosts, one PostgreSQL, nginx in front.

``bench/hosts.py`` builds the hosts out of network namespaces (root only), runs
the systemd unit's ``ExecStart`` and ``ExecReload`` on each and nginx with the
shipped site configuration, then kills one host mid-play and restarts every
worker of both one at a time: no acknowledged move may be lost or applied twice,
no player may see an error, every player must be back within 10 s.  The unit
files are checked by ``systemd-analyze verify`` and the proxy's configuration by
``nginx -t`` where those programs exist.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import hosts  # bench/hosts.py

pytestmark = pytest.mark.timeout(240)

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_the_unit_runs_serve_with_every_setting_of_the_environment_file() -> None:
    env = hosts.env_file(hosts.ENV_EXAMPLE)
    cmd = hosts.unit_command(hosts.UNIT, "ExecStart", env)
    assert Path(cmd[0]).name == "svoi-kozyri"
    assert cmd[1] == "serve"
    assert cmd[cmd.index("--workers") + 1] == env["SVOI_KOZYRI_WORKERS"]
    assert cmd[cmd.index("--database") + 1] == env["SVOI_KOZYRI_DATABASE"]
    assert cmd[cmd.index("--trusted-proxy") + 1] == env["SVOI_KOZYRI_PROXY"]
    reload = hosts.unit_command(hosts.UNIT, "ExecReload", {"MAINPID": "42"})
    assert reload == ["/bin/kill", "-HUP", "42"]
    migrate = hosts.unit_command(hosts.MIGRATE_UNIT, "ExecStart", env)
    assert migrate[1:] == ["migrate", "--database", env["SVOI_KOZYRI_DATABASE"]]
    unset = {k: v for k, v in env.items() if k != "SVOI_KOZYRI_PORT"}
    with pytest.raises(ValueError, match="SVOI_KOZYRI_PORT"):
        hosts.unit_command(hosts.UNIT, "ExecStart", unset)


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed")
    local = Path(sys.executable).parent / "svoi-kozyri"
    units = []
    for unit in sorted((DEPLOY / "systemd").glob("svoi-kozyri*.[st]*")):
        if unit.suffix not in (".service", ".timer"):
            continue
        text = unit.read_text()
        # the installed paths, pointed at this checkout (verify checks the programs exist)
        text = text.replace("/opt/svoi-kozyri/venv/bin/svoi-kozyri", str(local))
        text = text.replace("/opt/svoi-kozyri/deploy/", f"{DEPLOY}/")
        (tmp_path / unit.name).write_text(text)
        units.append(str(tmp_path / unit.name))
    assert len(units) == 4
    done = subprocess.run([tool, "verify", *units], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr  # no unknown key, no bad value


def test_nginx_accepts_the_site_configuration(tmp_path: Path) -> None:
    if shutil.which("nginx") is None or shutil.which("openssl") is None:
        pytest.skip("nginx or openssl is not installed")
    hosts.make_certificate(tmp_path, "127.0.0.1")
    conf = hosts.nginx_config(tmp_path, ["127.0.0.1:8000", "127.0.0.2:8000"])
    done = subprocess.run(
        ["nginx", "-t", "-c", str(conf)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr


def test_a_host_killed_and_a_rolling_restart_lose_and_double_nothing() -> None:
    why = hosts.missing()
    if why is not None:
        pytest.skip(f"two-host namespace test: {why}")
    out = hosts.run(tables=3, play_s=6.0)
    print(out.report())
    assert out.split == out.tables == 3, "each table's players are on both hosts"
    assert out.acked > 50
    assert out.lost == 0
    assert out.doubled == 0
    assert out.errors == []
    kill, rolling = out.windows
    assert kill.closes, "host A's players lost their sockets"
    assert set(rolling.closes) == {"1012"}, "a draining worker closes with 1012 only"
    for w in out.windows:
        assert w.reconnects and max(w.reconnects) <= hosts.RECONNECT_LIMIT_S, w
        assert max(w.stalls) <= hosts.RECONNECT_LIMIT_S, w
    assert max(rolling.reconnects) < 2.0, "a 1012 reconnects at once"
    before, restored, after = out.backup_events  # play goes on during the dump
    assert 0 < before <= restored <= after
    assert out.ok()
