"""Schema migrations with Alembic (the revisions ship inside the package).

``svoi-kozyri migrate --database URL`` brings a database to the newest schema.
``serve`` refuses a PostgreSQL database that is not at the newest revision and
prints that command: several processes, and perhaps several versions of the
program, may share such a database, so changing its schema is an explicit step.
A SQLite file (the default of ``make run``) belongs to the one process that
serves it, so it is migrated automatically on first use.

A database made before migrations existed (the tables but no
``alembic_version``) is recognised as revision ``0001`` and upgraded from there.
"""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

MIGRATE_COMMAND = "svoi-kozyri migrate --database {url}"


class UnmigratedDatabaseError(RuntimeError):
    """The database's schema is not the one this program needs."""


def alembic_config(url: str = "") -> Config:
    """An Alembic configuration pointing at the packaged revisions."""
    cfg = Config()
    cfg.set_main_option(
        "script_location", str(resources.files("svoi_kozyri.server.storage") / "migrations")
    )
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    """The newest revision shipped with this program."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The database's revision (``0001`` for a database made before migrations
    existed, None for an empty one)."""
    with engine.connect() as conn:
        rev = MigrationContext.configure(conn).get_current_revision()
        if rev is None and inspect(conn).has_table("sk_tables"):
            return "0001"
        return rev


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the database to the newest revision; (revision before, after)."""
    before = current_revision(engine)
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        if before == "0001" and MigrationContext.configure(conn).get_current_revision() is None:
            command.stamp(cfg, "0001")  # tables from before migrations existed
        command.upgrade(cfg, "head")
    return before, head_revision()


def check(engine: Engine, url: str) -> None:
    """Raise :class:`UnmigratedDatabaseError` (naming the command to run) unless
    the database is at the newest revision."""
    rev, head = current_revision(engine), head_revision()
    if rev != head:
        state = "has no tables yet" if rev is None else f"is at schema revision {rev}"
        shown = engine.url.render_as_string(hide_password=True)
        raise UnmigratedDatabaseError(
            f"the database {shown} {state}; this program needs revision {head}. "
            f"Run: {MIGRATE_COMMAND.format(url=_quote(url))}"
        )


def _quote(url: str) -> str:
    return f"'{url}'" if any(c in url for c in " &?;$") else url
