"""Alembic environment: runs the migrations on the connection the caller passes
(``config.attributes["connection"]``) or on ``sqlalchemy.url``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from svoi_kozyri.server.storage.schema import metadata

config = context.config
target_metadata = metadata


def run() -> None:
    """Run the migrations online (the server always has a database to talk to)."""
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
