"""Many hosts, one PostgreSQL: kill a host mid-play, then restart every worker.

Builds what a small deployment is, out of Linux network namespaces on one
machine (run as root): a bridge, PostgreSQL in one namespace, two "hosts" each
running ``deploy/systemd/svoi-kozyri.service``'s ``ExecStart`` (``serve --workers
2``, parsed from the unit file, so the unit is what is tested) under its own host
name, and nginx with ``deploy/nginx/svoi-kozyri.conf`` (TLS with a certificate
made here, WebSockets) in a fourth.  Players connect through the proxy only, as
browsers would, and reconnect by themselves as ``static/api.js``'s
``TableSocket`` does (at once after a 1012 close, else with a backoff); the two
human players of each table are on different hosts (checked in the database's
presence rows, whose owners carry the host name).  Then:

* **kill**: every process of host A's namespace gets SIGKILL (no drain, no
  goodbye), and a second later its link goes down; its players reconnect through
  the proxy to host B and its tables go on there.
* **rolling**: host A comes back; each host's workers are restarted one at a
  time with the unit's ``ExecReload`` (SIGHUP: a new worker is ready before the
  old one is sent SIGTERM and drains).

Each player records every move it sent (table version and move) and which were
acknowledged (a state past that version came back).  At the end the event log
is read from PostgreSQL: an acknowledged move missing from it is *lost*; a
player's move in it that the player did not send at that version is *doubled*.
Also counted: the error messages players received, failed connection attempts,
and how long each player took from a closed socket to a fresh state (and each
table from the disruption to its next move).  Then ``deploy/backup.sh`` dumps the
database and ``deploy/restore.sh`` restores it into a second one (the event
counts must agree).  Exits 1 on any loss, double, error or a reconnection over
:data:`RECONNECT_LIMIT_S`.  Everything it made is removed at the end, also on
failure.

    sudo .venv/bin/python bench/hosts.py --tables 8 --play 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "systemd" / "svoi-kozyri.service"
MIGRATE_UNIT = DEPLOY / "systemd" / "svoi-kozyri-migrate.service"
ENV_EXAMPLE = DEPLOY / "systemd" / "svoi-kozyri.env.example"
NGINX_SITE = DEPLOY / "nginx" / "svoi-kozyri.conf"
NGINX_DIR = "/etc/nginx/svoi-kozyri/"
"""The folder the site configuration names (moved to a temporary one here)."""
RECONNECT_LIMIT_S = 10.0
"""The longest a player may take from a closed socket to a fresh state."""
PORT = 8000
HOSTS = ("a", "b")
CLOSE_QUIET = (1001, 1012)
"""Close codes after which the browser reconnects at once and says nothing."""


class Unavailable(RuntimeError):
    """This machine cannot run the probe (not root, no ``ip``, no nginx, ...)."""


def missing() -> str | None:
    """Why the probe cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "nginx", "openssl", "runuser", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    from svoi_kozyri.server.runtime.process import pg_bin

    if not pg_bin("initdb") or not pg_bin("pg_ctl") or not pg_bin("pg_dump"):
        return "PostgreSQL (initdb, pg_ctl, pg_dump) is not installed"
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        return "no 'postgres' user to run PostgreSQL as"
    probe = f"skprobe{os.getpid() % 100000}"
    if _run(["ip", "netns", "add", probe], check=False).returncode != 0:
        return "cannot create network namespaces (ip netns add failed)"
    _run(["ip", "netns", "del", probe], check=False)
    if _run(["unshare", "--uts", "true"], check=False).returncode != 0:
        return "cannot give a process its own host name (unshare --uts failed)"
    return None


def _run(cmd: list[str], *, check: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


# -- the unit and the proxy configuration, as shipped ----------------------------------


def unit_command(unit: Path, key: str, env: dict[str, str]) -> list[str]:
    """A command line of a systemd unit (``ExecStart``, ``ExecReload``) as systemd
    would run it: ``${NAME}`` replaced by one word, ``$NAME`` too (the unit only
    uses values without spaces), the program looked up beside this Python when
    the unit names the installed one (``/opt/.../venv/bin/svoi-kozyri``)."""
    lines = [ln for ln in unit.read_text().splitlines() if ln.startswith(key + "=")]
    if len(lines) != 1:
        raise ValueError(f"{unit.name}: expected one {key}= line, found {len(lines)}")
    words = shlex.split(lines[0].split("=", 1)[1])

    def expand(word: str) -> str:
        def value(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name not in env:
                raise ValueError(f"{unit.name}: {key} uses ${name}, which is not set")
            return env[name]

        return re.sub(r"\$\{(\w+)\}|\$(\w+)", value, word)

    out = [expand(w) for w in words]
    local = Path(sys.executable).parent / Path(out[0]).name
    if out[0].startswith("/opt/") and local.exists():
        out[0] = str(local)
    return out


def env_file(path: Path) -> dict[str, str]:
    """``NAME=value`` lines of an environment file (comments and blanks skipped)."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            out[name.strip()] = value.strip()
    return out


def nginx_config(folder: Path, upstreams: list[str]) -> Path:
    """The shipped site configuration with its folder moved to ``folder`` (the host
    list and certificate there), inside a minimal main configuration; its path."""
    site = NGINX_SITE.read_text()
    if NGINX_DIR not in site:
        raise ValueError(f"{NGINX_SITE.name} no longer names {NGINX_DIR}")
    (folder / "svoi-kozyri.conf").write_text(site.replace(NGINX_DIR, f"{folder}/"))
    (folder / "upstream.conf").write_text(
        "".join(f"server {u} max_fails=1 fail_timeout=10s;\n" for u in upstreams)
    )
    main = folder / "nginx.conf"
    main.write_text(
        f"""worker_processes 2;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/tmp-body;
    proxy_temp_path {folder}/tmp-proxy;
    fastcgi_temp_path {folder}/tmp-fcgi;
    uwsgi_temp_path {folder}/tmp-uwsgi;
    scgi_temp_path {folder}/tmp-scgi;
    include {folder}/svoi-kozyri.conf;
}}
"""
    )
    return main


# -- the network -------------------------------------------------------------------------


@dataclass
class Net:
    """A bridge and one namespace per machine, with an address each; the probe's
    own players use the bridge's address in the root namespace."""

    tag: str
    subnet: str
    names: dict[str, str] = field(default_factory=dict)
    """machine -> namespace name"""
    addrs: dict[str, str] = field(default_factory=dict)
    """machine -> its address (``root``: the bridge's)"""
    made: list[str] = field(default_factory=list)

    @property
    def bridge(self) -> str:
        return f"{self.tag}br"

    def build(self, machines: dict[str, int]) -> None:
        """One namespace per machine (``name -> last byte of its address``)."""
        base = self.subnet.rsplit(".", 1)[0]
        _run(["ip", "link", "add", self.bridge, "type", "bridge"])
        self.made.append("bridge")
        _run(["ip", "addr", "add", f"{base}.1/24", "dev", self.bridge])
        _run(["ip", "link", "set", self.bridge, "up"])
        self.addrs["root"] = f"{base}.1"
        for machine, last in machines.items():
            ns = f"{self.tag}-{machine}"
            _run(["ip", "netns", "add", ns])
            self.names[machine] = ns
            self.made.append(ns)
            outside, inside = f"{self.tag}{machine}", f"{self.tag}{machine}i"
            _run(["ip", "link", "add", outside, "type", "veth", "peer", "name", inside])
            _run(["ip", "link", "set", outside, "master", self.bridge, "up"])
            _run(["ip", "link", "set", inside, "netns", ns])
            addr = f"{base}.{last}"
            for cmd in (
                ["ip", "link", "set", "lo", "up"],
                ["ip", "link", "set", inside, "name", "eth0"],
                ["ip", "addr", "add", f"{addr}/24", "dev", "eth0"],
                ["ip", "link", "set", "eth0", "up"],
            ):
                _run(["ip", "netns", "exec", ns, *cmd])
            self.addrs[machine] = addr

    def pids(self, machine: str) -> list[int]:
        """The processes in a machine's namespace."""
        out = _run(["ip", "netns", "pids", self.names[machine]], check=False).stdout
        return [int(p) for p in out.split()]

    def kill_all(self, machine: str) -> int:
        """SIGKILL every process of a machine until none is left; how many."""
        killed = 0
        deadline = time.monotonic() + 10
        while (pids := self.pids(machine)) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
            time.sleep(0.05)
        return killed

    def link(self, machine: str, up: bool) -> None:
        """Plug or unplug a machine's cable (its end on the bridge)."""
        _run(["ip", "link", "set", f"{self.tag}{machine}", "up" if up else "down"])

    def remove(self) -> None:
        """Kill everything in the namespaces and remove them and the bridge."""
        for machine in list(self.names):
            with contextlib.suppress(Exception):
                self.kill_all(machine)
        for machine, ns in self.names.items():
            _run(["ip", "netns", "del", ns], check=False)
            _run(["ip", "link", "del", f"{self.tag}{machine}"], check=False)
        _run(["ip", "link", "del", self.bridge], check=False)


def free_subnet() -> str:
    """A 10.213.x.0/24 no interface of this machine uses."""
    used = _run(["ip", "-o", "addr"]).stdout
    start = os.getpid() % 200
    for i in range(200):
        x = 20 + (start + i) % 200
        if f" 10.213.{x}." not in used:
            return f"10.213.{x}.0"
    raise Unavailable("no free 10.213.x.0/24 subnet")


# -- the machines ------------------------------------------------------------------------


def netns_popen(
    net: Net, machine: str, cmd: list[str], log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a machine's namespace under its own host name (a UTS
    namespace), logging to ``log``; the process id is the command's own (each
    wrapper execs the next)."""
    wrapped = [
        "ip",
        "netns",
        "exec",
        net.names[machine],
        "unshare",
        "--uts",
        "--",
        "sh",
        "-c",
        'hostname "$0" && exec "$@"',
        f"host-{machine}",
        *cmd,
    ]
    with open(log, "ab") as out:
        return subprocess.Popen(
            wrapped,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )


def start_postgres(net: Net, folder: Path) -> str:
    """PostgreSQL in the ``pg`` namespace, reachable from the bridge; its URL."""
    from svoi_kozyri.server.runtime.process import pg_bin

    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    assert initdb and pg_ctl
    data = folder / "pgdata"
    shutil.chown(folder, user="postgres")
    as_pg = ["runuser", "-u", "postgres", "--"]
    _run([*as_pg, initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"])
    with open(data / "pg_hba.conf", "a") as f:
        f.write(f"host all all {net.subnet}/24 trust\n")
    addr = net.addrs["pg"]
    opts = f"-c listen_addresses={addr} -p 5432 -k {folder} -c fsync=off -c max_connections=200"
    _run(
        [
            "ip",
            "netns",
            "exec",
            net.names["pg"],
            *as_pg,
            pg_ctl,
            "-D",
            str(data),
            "-l",
            str(folder / "pg.log"),
            "-o",
            opts,
            "-w",
            "start",
        ]
    )
    return f"postgresql+psycopg://postgres@{addr}:5432/postgres"


@dataclass
class Host:
    """One host: the unit's ``ExecStart`` running in its namespace."""

    machine: str
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self, net: Net) -> None:
        """Run the unit's ExecStart (as systemd would, with its environment file)."""
        cmd = unit_command(UNIT, "ExecStart", self.env)
        self.proc = netns_popen(net, self.machine, cmd, self.log, self.env)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def workers(self) -> list[int]:
        """The supervisor's worker processes."""
        return [p for p in children(self.pid) if b"spawn_main" in _cmdline(p)]

    def reload(self) -> None:
        """The unit's ExecReload (``kill -HUP $MAINPID``): a rolling restart."""
        _run(unit_command(UNIT, "ExecReload", {**self.env, "MAINPID": str(self.pid)}))


def _not_logs(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".log") and not (Path(folder) / n).is_dir()]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def children(pid: int) -> list[int]:
    """The living child processes of ``pid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def wait_until(what: str, check: Any, timeout: float, step: float = 0.1) -> Any:
    """Poll ``check`` until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(step)
    return got


def http_ok(url: str, context: ssl.SSLContext | None = None) -> bool:
    """Whether ``url`` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2, context=context) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def make_certificate(folder: Path, addr: str) -> Path:
    """A self-signed certificate for the proxy's address; the file clients trust."""
    tls = folder / "tls"
    tls.mkdir()
    _run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=svoi-kozyri.test",
            "-addext",
            f"subjectAltName=IP:{addr},DNS:svoi-kozyri.test",
            "-keyout",
            str(tls / "privkey.pem"),
            "-out",
            str(tls / "fullchain.pem"),
        ]
    )
    return tls / "fullchain.pem"


# -- the players -------------------------------------------------------------------------


@dataclass
class Sent:
    version: int
    move: str
    acked: bool = False


@dataclass
class Player:
    """A browser's table socket, scripted: connects through the proxy, reconnects
    by itself (at once after a quiet close, else backing off), plays the view's
    lowest legal move when it is its turn."""

    base: str
    table_id: str
    token: str
    seat: int
    ssl: ssl.SSLContext
    seed: int
    sent: list[Sent] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    closes: list[tuple[float, int | None]] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)
    """Seconds from each closed socket to the next fresh state."""
    failed: int = 0
    """Connection attempts that did not open."""
    version: int = -1
    updated: float = 0.0
    progress: list[float] = field(default_factory=list)
    """When each newer version of the table reached this player."""
    over: bool = False
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    closed_at: float | None = None
    """When the last socket closed, until a fresh state arrives."""

    async def run(self, stop: asyncio.Event) -> None:
        """Play until ``stop`` is set or the session is over."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        rng = random.Random(self.seed)
        retry = 0
        while not stop.is_set() and not self.over:
            code: int | None = None
            try:
                async with connect(
                    f"{self.base}/ws/{self.table_id}", ssl=self.ssl, open_timeout=5
                ) as ws:
                    retry = 0  # as the browser's onopen
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    with contextlib.suppress(ConnectionClosed):
                        await self._socket(ws, rng, stop)
                    code = ws.close_code
            except (OSError, TimeoutError, InvalidHandshake):  # did not open (refused, 502)
                self.failed += 1
            if stop.is_set() or self.over:
                return
            now = time.monotonic()
            self.closes.append((now, code))
            if self.closed_at is None:
                self.closed_at = now
            quiet = code in CLOSE_QUIET and retry == 0
            delay = 0.25 * rng.random() if quiet else min(5.0, 0.5 * 2**retry)
            retry += 1
            await asyncio.sleep(delay)

    async def _socket(self, ws: Any, rng: random.Random, stop: asyncio.Event) -> None:
        """Read one socket until it closes, answering each state of its turn once
        (a move lost with a socket is sent again on the next: the version check
        refuses it if it was applied after all)."""
        sent_here = -1
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "error":
                self.errors.append(f"{msg['code']}: {msg['message']}")
                continue
            if msg["type"] != "state":
                continue
            view = msg["view"]
            if self.closed_at is not None:
                self.reconnects.append(time.monotonic() - self.closed_at)
                self.closed_at = None
            self.connected.set()
            self._saw(view["version"])
            if view["session"]["over"]:
                self.over = True
                return
            hand = view["hand"]
            if (
                stop.is_set()
                or hand is None
                or hand["to_act"] != self.seat
                or not hand["legal"]
                or view["version"] == sent_here
            ):
                continue
            await asyncio.sleep(0.02 + 0.1 * rng.random())  # a (fast) human thinks
            move = _lowest(hand["legal"])
            sent_here = view["version"]
            self.sent.append(Sent(sent_here, move))
            await ws.send(json.dumps({"type": "move", "move": move, "version": sent_here}))

    def _saw(self, version: int) -> None:
        if version > self.version:
            self.version, self.updated = version, time.monotonic()
            self.progress.append(self.updated)
        for s in self.sent:
            if s.version < version:
                s.acked = True


def _lowest(legal: list[str]) -> str:
    """The lowest card to play or beat with; pick up only when nothing else."""
    plays = [m for m in legal if m != "pickup"]
    if not plays:
        return legal[0]
    from svoi_kozyri.core import parse_card, rank_of

    return min(plays, key=lambda m: [rank_of(parse_card(w)) for w in m.split()[1::2]])


# -- the run -----------------------------------------------------------------------------


@dataclass
class Window:
    """What happened to the players in one scenario."""

    name: str
    start: float
    end: float = 0.0
    reconnects: list[float] = field(default_factory=list)
    stalls: list[float] = field(default_factory=list)
    """Per table: the longest time without a new version from the start on."""
    closes: dict[str, int] = field(default_factory=dict)


@dataclass
class Counts:
    """The probe's counts."""

    tables: int = 0
    split: int = 0
    moves: int = 0
    acked: int = 0
    lost: int = 0
    doubled: int = 0
    errors: list[str] = field(default_factory=list)
    failed_attempts: int = 0
    windows: list[Window] = field(default_factory=list)
    # events in the database just before the dump, restored from it, just after it
    backup_events: tuple[int, int, int] = (0, 0, 0)

    def ok(self) -> bool:
        """No loss, no double, no error, every reconnection in time."""
        slow = [r for w in self.windows for r in w.reconnects + w.stalls]
        return (
            self.lost == 0
            and self.doubled == 0
            and not self.errors
            and all(r <= RECONNECT_LIMIT_S for r in slow)
            and self.split == self.tables
            and 0 < self.backup_events[0] <= self.backup_events[1] <= self.backup_events[2]
        )

    def report(self) -> str:
        """The table printed at the end (docs/deploy.md quotes it)."""
        lines = [
            f"tables {self.tables} (players on both hosts: {self.split}), "
            f"moves sent {self.moves}, acknowledged {self.acked}",
            f"lost {self.lost}, doubled {self.doubled}, errors seen by players "
            f"{len(self.errors)}, failed connection attempts {self.failed_attempts}",
            f"backup: {self.backup_events[1]} events restored (the database held "
            f"{self.backup_events[0]} before the dump, {self.backup_events[2]} after it)",
            "scenario   closed sockets (codes)        reconnect max/median s   "
            "longest table stall s",
        ]
        for w in self.windows:
            rec = sorted(w.reconnects)
            codes = ", ".join(f"{k}: {v}" for k, v in sorted(w.closes.items())) or "-"
            mx = f"{rec[-1]:.2f}" if rec else "-"
            med = f"{rec[len(rec) // 2]:.2f}" if rec else "-"
            res = f"{max(w.stalls):.2f}" if w.stalls else "-"
            lines.append(f"{w.name:<10} {len(rec):>3} ({codes:<22}) {mx:>10} / {med:<10} {res:>12}")
        lines += [f"  error: {e}" for e in self.errors[:10]]
        lines.append("PASS" if self.ok() else "FAIL")
        return "\n".join(lines)


class Probe:
    """The whole run; :meth:`close` removes everything it made."""

    def __init__(self, tables: int, play_s: float, verbose: bool = False) -> None:
        self.n_tables = tables
        self.play_s = play_s
        self.verbose = verbose
        self.tmp = Path(tempfile.mkdtemp(prefix="sk-hosts-"))
        self.tmp.chmod(0o755)
        self.net = Net(f"skh{os.getpid() % 10000}", free_subnet())
        self.hosts: dict[str, Host] = {}
        self.nginx: subprocess.Popen[bytes] | None = None
        self.players: list[Player] = []
        self.url = ""
        self.out = Counts()

    def say(self, text: str) -> None:
        if self.verbose:
            print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    # -- setting up ------------------------------------------------------------------

    def setup(self) -> None:
        """The network, PostgreSQL (migrated by the migrate unit), the hosts, nginx."""
        self.net.build({"pg": 2, "px": 10, "a": 11, "b": 12})
        pg = self.tmp / "pg"
        pg.mkdir()
        self.url = start_postgres(self.net, pg)
        self.say(f"PostgreSQL at {self.net.addrs['pg']}")
        env = {
            **env_file(ENV_EXAMPLE),
            "SVOI_KOZYRI_DATABASE": self.url,
            "SVOI_KOZYRI_PORT": str(PORT),
            "SVOI_KOZYRI_WORKERS": "2",
            "SVOI_KOZYRI_PROXY": self.net.addrs["px"],
            "SVOI_KOZYRI_ORIGIN": f"https://{self.net.addrs['px']}",
            "SVOI_KOZYRI_METRICS_TOKEN": "probe-metrics-token",
        }
        migrate = unit_command(MIGRATE_UNIT, "ExecStart", env)
        _run(["ip", "netns", "exec", self.net.names["a"], *migrate])
        for m in HOSTS:
            host_env = {**env, "SVOI_KOZYRI_LISTEN": self.net.addrs[m]}
            self.hosts[m] = Host(m, host_env, self.tmp / f"host-{m}.log")
            self.hosts[m].start(self.net)
        cert = make_certificate(self.tmp, self.net.addrs["px"])
        self.ssl = ssl.create_default_context(cafile=str(cert))
        conf = nginx_config(self.tmp, [f"{self.net.addrs[m]}:{PORT}" for m in HOSTS])
        check = _run(["nginx", "-t", "-c", str(conf)], check=False)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused the deploy configuration:\n{check.stderr}")
        self.nginx = netns_popen(
            self.net, "px", ["nginx", "-c", str(conf), "-g", "daemon off;"], self.tmp / "nx.log"
        )
        for m in HOSTS:
            self.wait_ready(m)
        self.base = f"https://{self.net.addrs['px']}"
        wait_until("the proxy", lambda: http_ok(self.base + "/readyz", self.ssl), 20)
        self.say("hosts and proxy ready")

    def wait_ready(self, m: str, timeout: float = 60) -> None:
        """A host's workers all run and it answers /readyz."""
        host = self.hosts[m]
        url = f"http://{self.net.addrs[m]}:{PORT}/readyz"
        wait_until(f"host {m}", lambda: len(host.workers()) == 2 and http_ok(url), timeout)

    async def tables(self) -> None:
        """Create the tables through the proxy: two human players and a bot each."""
        import httpx

        cfg = {
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
            "bot_delay_s": 0.05,
            "hand_pause_s": 0.2,
            "grace_s": 60,
            "rules": {"loss_limit": 50},
        }
        async with httpx.AsyncClient(base_url=self.base, verify=self.ssl, timeout=20) as http:
            for i in range(self.n_tables):
                r = await http.post("/api/tables", json={"name": f"P{i}", "config": cfg})
                r.raise_for_status()
                g = r.json()
                j = await http.post(f"/api/tables/{g['table_id']}/join", json={"name": f"Q{i}"})
                j.raise_for_status()
                for k, grant in enumerate((g, j.json())):
                    self.players.append(
                        Player(
                            f"wss://{self.net.addrs['px']}",
                            g["table_id"],
                            grant["token"],
                            grant["seat"],
                            self.ssl,
                            seed=2 * i + k,
                        )
                    )
        self.out.tables = self.n_tables

    def hosts_of_seats(self) -> dict[str, set[str]]:
        """Per table, the hosts its human players' sockets are open at (from the
        presence rows: their owners begin with the host name)."""
        import psycopg

        with psycopg.connect(self.url.replace("+psycopg", ""), autocommit=True) as conn:
            rows = conn.execute(
                "SELECT table_id, owner FROM sk_presence WHERE seats <> ''"
            ).fetchall()
        out: dict[str, set[str]] = {}
        for table_id, owner in rows:
            out.setdefault(table_id, set()).add(str(owner).split(":", 1)[0])
        return out

    # -- playing ---------------------------------------------------------------------

    async def play(self) -> None:
        """Connect the players one by one (the proxy's least-connections choice then
        alternates the hosts), and run both scenarios while they play."""
        stop = asyncio.Event()
        tasks = []
        for p in self.players:
            tasks.append(asyncio.create_task(p.run(stop)))
            await asyncio.wait_for(p.connected.wait(), 20)
        await asyncio.sleep(1.0)  # presence rows are written in batches
        split = await asyncio.to_thread(self.hosts_of_seats)
        self.out.split = sum(1 for hs in split.values() if len(hs) == 2)
        self.say(f"tables with players on both hosts: {self.out.split}/{self.out.tables}")
        await asyncio.sleep(self.play_s / 2)
        await self.scenario("kill", self.kill_host)
        await self.scenario("rolling", self.rolling_restart)
        stop.set()  # no more moves; the answers to those under way arrive meanwhile
        await asyncio.sleep(1.0)
        for t in tasks:
            t.cancel()  # a player waits on a table that waits on it
        await asyncio.gather(*tasks, return_exceptions=True)

    async def scenario(self, name: str, action: Any) -> None:
        """Run ``action`` while playing, then play on; note what the players saw."""
        w = Window(name, time.monotonic())
        marks = {id(p): (len(p.reconnects), len(p.closes)) for p in self.players}
        await action()
        await asyncio.sleep(self.play_s / 2)
        await self._settle(w.start)
        w.end = time.monotonic()
        for p in self.players:
            r0, c0 = marks[id(p)]
            w.reconnects += p.reconnects[r0:]
            for _t, code in p.closes[c0:]:
                key = str(code) if code is not None else "dropped"
                w.closes[key] = w.closes.get(key, 0) + 1
        for table_id in {p.table_id for p in self.players}:
            ps = [p for p in self.players if p.table_id == table_id]
            if any(p.over for p in ps):
                continue
            times = sorted({t for p in ps for t in p.progress if w.start < t <= w.end})
            edges = [w.start, *times, w.end]
            w.stalls.append(max(b - a for a, b in itertools.pairwise(edges)))
        self.out.windows.append(w)
        self.say(f"{name}: {len(w.reconnects)} reconnections, closes {w.closes}")

    async def _settle(self, since: float, timeout: float = 15) -> None:
        """Wait (bounded) until every player that lost its socket since ``since``
        has a fresh state again."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            waiting = [
                p
                for p in self.players
                if not p.over
                and p.closes
                and p.closes[-1][0] > since
                and p.updated < p.closes[-1][0]
            ]
            if not waiting:
                return
            await asyncio.sleep(0.1)

    async def kill_host(self) -> None:
        """Host A dies: every process of its namespace SIGKILLed (its kernel closes
        their connections), then its cable pulled, so that the proxy's attempts
        to reach it time out rather than being refused.  (Pulled at once, the
        closing packets were lost: the proxy's sockets to it then hung until
        ``proxy_read_timeout``, a host losing power; docs/deploy.md.)"""
        killed = await asyncio.to_thread(self.net.kill_all, "a")
        self.say(f"host a killed ({killed} processes)")
        await asyncio.sleep(1.0)
        self.net.link("a", up=False)

    async def rolling_restart(self) -> None:
        """Host A back (a fresh start, as systemd's Restart= would), then every
        worker of both hosts restarted one at a time (the unit's ExecReload)."""
        self.net.link("a", up=True)
        dead = self.hosts["a"].proc
        if dead is not None:
            dead.wait()
        await asyncio.to_thread(self.hosts["a"].start, self.net)
        await asyncio.to_thread(self.wait_ready, "a")
        await asyncio.sleep(1.0)
        # host B first: its players move, many to host A (fewest sockets), whose
        # own restart then moves them again
        for m in reversed(HOSTS):
            host = self.hosts[m]
            old = set(host.workers())
            host.reload()
            await asyncio.to_thread(
                wait_until,
                f"host {m}'s workers replaced",
                lambda h=host, o=old: not (set(h.workers()) & o) and len(h.workers()) == 2,
                90,
            )
            await asyncio.to_thread(self.wait_ready, m)
            self.say(f"host {m}: workers {sorted(old)} -> {sorted(host.workers())}")

    # -- the counts ------------------------------------------------------------------

    def verify(self) -> None:
        """Compare what the players sent and saw with the event log."""
        import psycopg

        with psycopg.connect(self.url.replace("+psycopg", ""), autocommit=True) as conn:
            rows = conn.execute(
                "SELECT table_id, seq, data FROM sk_events ORDER BY table_id, seq"
            ).fetchall()
        log: dict[tuple[str, int], dict[str, Any]] = {}
        for table_id, seq, data in rows:
            log[(table_id, int(seq))] = data if isinstance(data, dict) else json.loads(data)
        out = self.out
        for p in self.players:
            mine = {(s.version, s.move) for s in p.sent}
            out.moves += len(p.sent)
            for s in p.sent:
                if not s.acked:
                    continue
                out.acked += 1
                ev = log.get((p.table_id, s.version))
                if ev is None or ev.get("seat") != p.seat or ev.get("move") != s.move:
                    out.lost += 1
            for (table_id, seq), ev in log.items():
                if table_id != p.table_id or ev.get("kind") != "move":
                    continue
                theirs = ev.get("seat") == p.seat and ev.get("by") == "player"
                if theirs and (seq, ev.get("move")) not in mine:
                    out.doubled += 1
            out.errors += [f"{p.table_id}/{p.seat}: {e}" for e in p.errors]
            out.failed_attempts += p.failed

    def backup_restore(self) -> None:
        """deploy/backup.sh, then deploy/restore.sh into a second database."""
        import psycopg

        from svoi_kozyri.server.runtime.process import pg_bin

        plain = self.url.replace("+psycopg", "")
        bindir = str(Path(pg_bin("pg_dump") or "pg_dump").parent)
        env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}
        folder = self.tmp / "backups"
        # play goes on during the dump (as in production): the dump is one snapshot
        # taken between the counts before and after it
        with psycopg.connect(plain, autocommit=True) as conn:
            before = conn.execute("SELECT count(*) FROM sk_events").fetchone()
        _run(
            [str(DEPLOY / "backup.sh"), str(folder)], env={**env, "SVOI_KOZYRI_DATABASE": self.url}
        )
        dumps = sorted(folder.glob("svoi-kozyri-*.dump"))
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS restored")
            conn.execute("CREATE DATABASE restored")
            dumped = conn.execute("SELECT count(*) FROM sk_events").fetchone()
        restored_url = plain.rsplit("/", 1)[0] + "/restored"
        _run([str(DEPLOY / "restore.sh"), str(dumps[-1]), restored_url], env=env)
        with psycopg.connect(restored_url, autocommit=True) as conn:
            restored = conn.execute("SELECT count(*) FROM sk_events").fetchone()
        self.out.backup_events = (
            int(before[0]) if before else 0,
            int(restored[0]) if restored else 0,
            int(dumped[0]) if dumped else 0,
        )

    def close(self) -> None:
        """Remove everything: processes, namespaces, bridge, files (also on failure)."""
        for h in self.hosts.values():
            if h.proc is not None and h.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(h.proc.pid, signal.SIGKILL)
        if self.nginx is not None and self.nginx.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.nginx.pid, signal.SIGKILL)
        self.net.remove()
        for p in [*(h.proc for h in self.hosts.values()), self.nginx]:
            if p is not None:
                with contextlib.suppress(Exception):
                    p.wait(timeout=5)
        keep = os.environ.get("SK_HOSTS_KEEP_LOGS")
        if keep:  # the logs of a run, for a closer look
            shutil.copytree(self.tmp, keep, dirs_exist_ok=True, ignore=_not_logs)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def logs(self, lines: int = 40) -> str:
        """The tail of each host's and the proxy's log (shown on failure)."""
        out = []
        for name in ("host-a.log", "host-b.log", "error.log", "pg/pg.log"):
            path = self.tmp / name
            if path.exists():
                tail = path.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {name}\n" + "\n".join(tail))
        return "\n".join(out)


@contextlib.contextmanager
def probe(tables: int, play_s: float, verbose: bool = False) -> Iterator[Probe]:
    """A set-up probe, removed afterwards whatever happens (SIGTERM included)."""
    why = missing()
    if why is not None:
        raise Unavailable(why)
    p = Probe(tables, play_s, verbose)

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        p.setup()
        yield p
    finally:
        signal.signal(signal.SIGTERM, previous)
        p.close()


def run(tables: int, play_s: float, verbose: bool = False) -> Counts:
    """Set up, play both scenarios, count; everything removed at the end."""
    with probe(tables, play_s, verbose) as p:
        try:
            asyncio.run(_play(p))
            p.verify()
            p.backup_restore()
        except BaseException:
            print(p.logs(), file=sys.stderr)
            raise
        if not p.out.ok():
            print(p.logs(), file=sys.stderr)
        return p.out


async def _play(p: Probe) -> None:
    await p.tables()
    await p.play()


def main() -> None:
    """Command line: ``--tables N --play SECONDS``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=8, help="tables, two human players each (<= 10)")
    ap.add_argument("--play", type=float, default=16.0, help="seconds of play per scenario")
    ap.add_argument("--quiet", action="store_true", help="only the final table")
    args = ap.parse_args()
    if not 1 <= args.tables <= 10:
        ap.error("--tables: 1 to 10 (one client address creates at most 10 tables at once)")
    try:
        out = run(args.tables, args.play, verbose=not args.quiet)
    except Unavailable as e:
        print(f"hosts probe: cannot run here: {e}", file=sys.stderr)
        sys.exit(2)
    print(out.report())
    sys.exit(0 if out.ok() else 1)


if __name__ == "__main__":
    main()
