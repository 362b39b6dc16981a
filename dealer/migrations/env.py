"""Alembic environment: runs on the connection :mod:`dealer.store.migrate` hands over.

There is no ``alembic.ini`` and no logging set-up here on purpose: the store
runs migrations from code and the application owns logging.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from dealer.store.models import all_metadata

config = context.config
target_metadata = all_metadata()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        # Only for the `alembic` command line with -x url=...; the store always passes a connection.
        url = context.get_x_argument(as_dictionary=True).get("url")
        if not url:
            raise RuntimeError("run migrations through dealer.store.migrate, or pass -x url=...")
        with create_engine(url).begin() as conn:
            _run(conn)
    else:
        _run(connection)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
