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

import os
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from dealer.errors import BoardwrightError

#: Seconds to wait for a PostgreSQL server to answer. libpq's default is to wait for ever: a
#: host that accepts the connection and says nothing (a wrong port, a firewall) hung every
#: command. ``?connect_timeout=N`` in the URL still chooses another.
PG_CONNECT_TIMEOUT = 10
_LIBPQ_DRIVERS = ("postgresql", "postgresql+psycopg", "postgresql+psycopg2")


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


def _hidden(url: object) -> str:
    """``url`` quoted for a message, its password (if any) starred: it did not parse, so
    SQLAlchemy cannot hide it.

    >>> _hidden("postgresql://ann:s3cret@db:port/bw")
    "'postgresql://ann:***@db:port/bw'"
    """
    if not isinstance(url, str):
        return repr(url)
    return repr(re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url))


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite folders are created and pragmas set on each connection."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"bad database URL {_hidden(url)}: {exc}") from None
    except ValueError:  # SQLAlchemy's int() of the port
        raise StoreError(f"bad database URL {_hidden(url)}: its port is not a number") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite" and parsed.database and parsed.database != ":memory:":
        path = parsed.database
        if path.startswith("file:") and str(parsed.query.get("uri", "")).lower() in ("true", "1"):
            # An SQLite URI filename (file:PATH?mode=ro): the folder is PATH's, not "file:".
            path = path.removeprefix("file:")
        folder = Path(path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {folder}: {exc.strerror}") from None
    if parsed.drivername in _LIBPQ_DRIVERS and "connect_timeout" not in parsed.query:
        kwargs["connect_args"] = {"connect_timeout": PG_CONNECT_TIMEOUT,
                                  **kwargs.get("connect_args", {})}
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


try:  # POSIX: a kernel lock wakes the next writer at once; elsewhere SQLite's own lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_LOCK_FILES: dict[str, Any] = {}
_GUARD = threading.Lock()


@contextmanager
def writer_turn(engine: Engine) -> Iterator[None]:
    """Take the one writer's turn on a SQLite file before a write transaction.

    SQLite lets one connection write at a time. A writer that finds the
    database busy waits in SQLite's busy handler, which sleeps in steps of up
    to 100 ms: under load (a panel with a hundred tables, several gunicorn
    workers) the slowest entries waited seconds. Taking turns here instead
    (a thread lock within the process, an ``flock`` on ``<database>-writer.lock``
    between processes) wakes the next writer the moment the last one commits.
    PostgreSQL and in-memory databases need no turn.

    >>> e = make_engine("sqlite://")
    >>> with writer_turn(e):
    ...     pass
    """
    db = engine.url.database if engine.dialect.name == "sqlite" else None
    if not db or db == ":memory:" or db.startswith("file:"):
        yield
        return
    with _GUARD:
        lock = _THREAD_LOCKS.setdefault(db, threading.Lock())
    with lock:
        if fcntl is None:
            yield
            return
        # Opened once per process and kept: an flock belongs to the open file, so a
        # file inherited through fork() would be shared with the parent (keyed by pid).
        key = f"{os.getpid()}:{db}"
        f = _LOCK_FILES.get(key)
        if f is None:
            f = _LOCK_FILES[key] = open(f"{db}-writer.lock", "a+b")  # noqa: SIM115
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def checkpoint_in_background(engine: Engine, every: float = 0.5) -> bool:
    """SQLite file: copy the write-ahead log into the database from a thread of its own.

    By default the commit that fills the log past 1,000 pages copies it back, with
    an ``fsync`` of the database file, while that writer still holds the writer's
    turn (:func:`writer_turn`): on a club laptop's disk the copy took 60-220 ms,
    and every table's entry waited behind it (measured with 100 tables: seven
    such waits in 30 s, the p99 of the whole run). A long-running process (the
    panel) turns the automatic copy off on its connections and copies every
    ``every`` seconds from its own connection, in SQLite's PASSIVE mode, which
    never waits for readers or writers. The thread ends when ``engine`` is gone.
    A one-off process needs none: SQLite copies the log when it closes the
    database. Returns whether a thread was started (not for PostgreSQL, memory).

    >>> checkpoint_in_background(make_engine("sqlite://"))
    False
    """
    db = engine.url.database if engine.dialect.name == "sqlite" else None
    if not db or db == ":memory:" or db.startswith("file:"):
        return False

    def _manual(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    event.listen(engine, "connect", _manual)
    engine.dispose()  # connections already made keep the automatic copy: make them again
    alive = weakref.ref(engine)

    def run() -> None:
        conn = sqlite3.connect(db, timeout=10, check_same_thread=False)
        try:
            conn.execute("PRAGMA wal_autocheckpoint=0")
            while alive() is not None:
                time.sleep(every)
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass  # busy or gone: the next turn tries again
        finally:
            conn.close()

    threading.Thread(target=run, name=f"checkpoint {Path(db).name}", daemon=True).start()
    return True
