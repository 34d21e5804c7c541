"""Alembic migrations of the server's database (see :mod:`svoi_kozyri.server.storage.migrate`)."""
