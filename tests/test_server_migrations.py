"""Schema migrations (Alembic): fresh and old databases, the refusal, the command."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from svoi_kozyri.cli.main import app as cli
from svoi_kozyri.server.storage.migrate import (
    UnmigratedDatabaseError,
    alembic_config,
    current_revision,
    head_revision,
)
from svoi_kozyri.server.storage.schema import metadata, tables_t
from svoi_kozyri.server.storage.store import Store


def test_fresh_sqlite_is_migrated_on_first_use(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        assert current_revision(store.engine) == head_revision() == "0013"
        with store.engine.connect() as conn:  # the models are exactly the migrated schema
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    finally:
        store.close()


def test_unmigrated_database_is_refused_with_the_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    with pytest.raises(UnmigratedDatabaseError, match=r"Run: svoi-kozyri migrate --database "):
        Store(url, migrate=False)
    out = CliRunner().invoke(cli, ["migrate", "--database", url])
    assert out.exit_code == 0 and "an empty database -> revision 0013" in out.output
    Store(url, migrate=False).close()  # now accepted
    again = CliRunner().invoke(cli, ["migrate", "--database", url])
    assert again.exit_code == 0 and "revision 0013 -> revision 0013" in again.output


def test_a_database_from_before_migrations_keeps_its_tables(tmp_path: Path) -> None:
    """The schema the first server created with ``create_all``: stamped as 0001,
    upgraded, every row kept."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    cfg_a = alembic_config()
    with engine.begin() as conn:  # revision 0001's tables, without Alembic's bookkeeping
        cfg_a.attributes["connection"] = conn
        command.upgrade(cfg_a, "0001")
        conn.execute(text("DROP TABLE alembic_version"))
    cfg = {"seats": [{"kind": "human"}, {"kind": "bot"}]}
    with engine.begin() as conn:
        conn.execute(
            tables_t.insert().values(
                id="t1",
                config=json.dumps(cfg),
                seed=1,
                status="waiting",
                version=0,
                listed=1,
                created=time.time(),
                updated=time.time(),
            )
        )
    engine.dispose()
    with pytest.raises(UnmigratedDatabaseError, match="revision 0001"):
        Store(url, migrate=False)
    store = Store(url)
    try:
        assert current_revision(store.engine) == head_revision()
        stored = store.load("t1")
        assert stored is not None and stored.config == cfg
    finally:
        store.close()


def test_migrations_ship_inside_the_package() -> None:
    from importlib import resources

    root = resources.files("svoi_kozyri.server.storage") / "migrations"
    assert (root / "env.py").is_file() and (root / "script.py.mako").is_file()
    names = [p.name for p in (root / "versions").iterdir()]
    assert "0001_initial.py" in names and "0002_meta_and_leases.py" in names
    assert "0003_processes_and_presence.py" in names
