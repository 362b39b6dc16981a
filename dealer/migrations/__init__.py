"""Alembic migration scripts of the store (run by :mod:`dealer.store.migrate`)."""
