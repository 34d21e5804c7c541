"""Run the server in a child process (tests, crash tests and the load benchmark).

A real ``uvicorn`` process on a free loopback port: the tests talk to it over
real HTTP and WebSocket connections and can kill it with SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType


def free_port() -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``with ServerProcess(url) as srv:`` starts the server and waits until it answers."""

    def __init__(
        self,
        database_url: str,
        *,
        port: int | None = None,
        seed: int | None = None,
        log_path: Path | None = None,
        rate_limits: bool = True,
        migrate: bool = True,
        workers: int = 1,
        extra_args: list[str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.port = port or free_port()
        self.seed = seed
        self.log_path = log_path
        self.rate_limits = rate_limits
        self.migrate = migrate
        self.workers = workers
        self.extra_args = list(extra_args or [])
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        """``ws://127.0.0.1:PORT``."""
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        """Start the process and wait for ``/healthz``."""
        cmd = [
            sys.executable,
            "-m",
            "svoi_kozyri.server",
            "--database",
            self.database_url,
            "--port",
            str(self.port),
        ]
        if self.seed is not None:
            cmd += ["--seed", str(self.seed)]
        if not self.rate_limits:
            cmd.append("--no-rate-limits")
        if self.migrate:
            cmd.append("--migrate")
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        cmd += self.extra_args
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with code {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("server did not start in time")

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing (the crash test)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """Terminate gracefully (SIGTERM), killing after a few seconds."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class PostgresUnavailableError(RuntimeError):
    """No PostgreSQL server binaries (or no way to run them) on this machine."""


def pg_bin(name: str) -> str | None:
    """A PostgreSQL server program (``initdb``, ``pg_ctl``) on PATH or in Debian's place."""
    found = shutil.which(name)
    if found:
        return found
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).exists():
            return str(base / name)
    return None


@contextlib.contextmanager
def throwaway_postgres(settings: dict[str, str] | None = None) -> Iterator[str]:
    """A PostgreSQL server in a temporary directory on a free loopback port, for
    the tests and the load benchmark; yields its SQLAlchemy URL.

    Created with ``initdb`` and run with ``pg_ctl`` (as the ``postgres`` user when
    run as root, since PostgreSQL refuses to run as root), fsync off; removed on
    exit.  Raises :class:`PostgresUnavailableError` saying what is missing.
    """
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise PostgresUnavailableError("PostgreSQL (initdb, pg_ctl) is not installed")
    prefix: list[str] = []
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise PostgresUnavailableError(
                "running as root and there is no 'postgres' user to run PostgreSQL"
            ) from None
        runuser = shutil.which("runuser")
        if not runuser:
            raise PostgresUnavailableError("running as root without runuser to run PostgreSQL")
        prefix = [runuser, "-u", "postgres", "--"]
        user = "postgres"
    tmp = Path(tempfile.mkdtemp(prefix="sk-pg-"))
    data = tmp / "data"
    if prefix:
        shutil.chown(tmp, user="postgres")
    port = free_port()
    subprocess.run(
        [*prefix, initdb, "-D", str(data), "-A", "trust", "-U", user, "--no-sync"],
        check=True,
        capture_output=True,
    )
    opts = f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off"
    for key, value in (settings or {}).items():
        opts += f" -c {key}={value}"
    subprocess.run(
        [*prefix, pg_ctl, "-D", str(data), "-l", str(tmp / "pg.log"), "-o", opts, "-w", "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://{user}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(tmp, ignore_errors=True)
