"""Persistence: the one schema (:mod:`.schema`, every table), the store
(:mod:`.store`, SQLAlchemy Core) and the Alembic migrations (:mod:`.migrate`).
"""
