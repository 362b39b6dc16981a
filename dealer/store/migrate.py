"""Alembic migrations, run from code: no ``alembic.ini`` is needed.

The scripts live in the ``dealer.migrations`` package so they ship with the
wheel. :func:`upgrade` brings a database to the newest revision; opening a
:class:`~dealer.store.Store` calls it.

>>> len(heads())
1
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

SCRIPT_LOCATION = "dealer:migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the packaged scripts, bound to ``connection``."""
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    if connection is not None:
        # env.py takes the open connection from here instead of building an engine.
        cfg.attributes["connection"] = connection
    return cfg


def heads() -> tuple[str, ...]:
    """The head revisions of the migration scripts (there must be exactly one)."""
    return tuple(ScriptDirectory.from_config(alembic_config()).get_heads())


def current(engine: Engine) -> str | None:
    """The database's current revision (``None`` for an empty database)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database to ``revision``; a no-op when it is already there."""
    if revision == "head" and current(engine) in heads():
        return  # the common case: no transaction, no write, so many readers can open at once
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Migrate the database down to ``revision`` (``"base"`` empties it)."""
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), revision)
