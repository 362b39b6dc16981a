"""Creating the database engine: SQLite tuned for a club laptop, or PostgreSQL.

Every SQLite connection gets ``journal_mode=WAL`` (readers never block the
writer, so the panel stays responsive while a set is saved) and
``foreign_keys=ON`` (SQLite leaves foreign keys off per connection unless told,
and the store relies on them to cascade deletes and reject orphans).

>>> e = make_engine("sqlite://")
>>> with e.connect() as c:
...     c.exec_driver_sql("PRAGMA foreign_keys").scalar()
1
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from dealer.errors import BoardwrightError


class StoreError(BoardwrightError):
    """The database could not be opened, read or written."""


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cur = dbapi_connection.cursor()
    try:
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=10000")  # wait for another writer rather than fail
        # WAL needs a file; an in-memory database answers "memory" and that is fine.
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")  # durable enough in WAL mode, much faster
    finally:
        cur.close()


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite folders are created and pragmas set on each connection."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"bad database URL {url!r}: {exc}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite" and parsed.database and parsed.database != ":memory:":
        folder = Path(parsed.database).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {folder}: {exc.strerror}") from None
    try:
        engine = create_engine(parsed, **kwargs)
    except NoSuchModuleError as exc:
        raise StoreError(f"unsupported database URL {parsed.render_as_string()!r}: {exc}") from None
    except ModuleNotFoundError as exc:
        hint = " (install boardwright[postgres])" if backend == "postgresql" else ""
        raise StoreError(
            f"the database driver {exc.name!r} is not installed{hint}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine
