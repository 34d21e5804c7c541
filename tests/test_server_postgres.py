"""The persistence tests against a real, throwaway PostgreSQL server.

The server is created with ``initdb`` in a temporary directory and started with
``pg_ctl`` on a free loopback port (as the ``postgres`` user when the tests run
as root, since PostgreSQL refuses to run as root).  Skipped with the reason when
PostgreSQL or psycopg is not installed.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from svoi_kozyri.server.process import free_port
from test_server_restart import crash_and_resume

pytestmark = pytest.mark.timeout(300)


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).exists():
            return str(base / name)
    return None


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL (initdb, pg_ctl) is not installed")
    prefix: list[str] = []
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL")
        runuser = shutil.which("runuser")
        if not runuser:
            pytest.skip("running as root without runuser to drop to the 'postgres' user")
        prefix = [runuser, "-u", "postgres", "--"]
        user = "postgres"
    tmp = Path(tempfile.mkdtemp(prefix="sk-pg-"))
    data = tmp / "data"
    if prefix:
        shutil.chown(tmp, user="postgres")
    port = free_port()
    log = tmp / "pg.log"
    subprocess.run(
        [*prefix, initdb, "-D", str(data), "-A", "trust", "-U", user, "--no-sync"],
        check=True,
        capture_output=True,
    )
    opts = f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [*prefix, pg_ctl, "-D", str(data), "-l", str(log), "-o", opts, "-w", "start"],
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


def test_sigkill_and_restart_postgres(postgres_url: str, tmp_path: Path) -> None:
    crash_and_resume(postgres_url, tmp_path)


def test_serve_refuses_an_unmigrated_postgres_database(postgres_url: str) -> None:
    import psycopg
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app as cli

    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS sk_fresh")
        conn.execute("CREATE DATABASE sk_fresh")
    fresh = postgres_url.rsplit("/", 1)[0] + "/sk_fresh"
    out = CliRunner().invoke(cli, ["serve", "--database", fresh, "--port", "1"])
    assert out.exit_code == 1
    assert f"Run: svoi-kozyri migrate --database {fresh}" in out.output
    done = CliRunner().invoke(cli, ["migrate", "--database", fresh])
    assert done.exit_code == 0 and "-> revision 0003" in done.output
    from svoi_kozyri.server.db import Store

    Store(fresh, migrate=False).close()  # now accepted
