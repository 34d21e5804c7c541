"""The persistence tests against a real, throwaway PostgreSQL server.

The server is created with ``initdb`` in a temporary directory and started with
``pg_ctl`` on a free loopback port (as the ``postgres`` user when the tests run
as root, since PostgreSQL refuses to run as root).  Skipped with the reason when
PostgreSQL or psycopg is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from svoi_kozyri.server.runtime.process import PostgresUnavailableError, throwaway_postgres
from test_server_restart import crash_and_resume

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        with throwaway_postgres() as url:
            yield url
    except PostgresUnavailableError as e:
        pytest.skip(str(e))


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
    assert done.exit_code == 0 and "-> revision 0013" in done.output
    from svoi_kozyri.server.storage.store import Store

    Store(fresh, migrate=False).close()  # now accepted
