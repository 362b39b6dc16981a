"""Saving and loading deal sets: the store's small repository API.

>>> from dealer.generate import random_dealset
>>> with Store.open("sqlite://") as store:
...     ds = random_dealset(range(1, 4), event="Monday pairs")
...     set_id = store.save(ds)
...     store.load(set_id).deals == ds.deals, [s.boards for s in store.list()]
(True, [3])

Modules with tables of their own work through the store's units of work,
:meth:`Store.read` and :meth:`Store.write` (never its private attributes):

>>> with Store.open("sqlite://") as store:
...     with store.write() as s:  # commits on leaving, rolls back on an error
...         s.add(Event(name="Club night", date="2026-11-23", site=""))
...     with store.read() as s:
...         s.scalars(select(Event.name)).all()
['Club night']
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from types import TracebackType

from sqlalchemy import Engine, func, insert, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from dealer.board import Board, DealSet
from dealer.config import Settings
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.formats.sealing import is_sealed
from dealer.seats import Seat, Vulnerability
from dealer.store import migrate
from dealer.store.engine import StoreError, make_engine, writer_turn
from dealer.store.models import DEAL_BYTES, BoardRow, DealSetRow, Event

ID_MAX = 2**31 - 1  # the largest id PostgreSQL's INTEGER holds (SQLite's is larger)


def possible_id(n: int) -> bool:
    """Whether ``n`` can be a row id at all: a 25-digit number typed by hand is not.

    Checked before the number reaches the database driver, where it would
    overflow (SQLite: ``OverflowError``) instead of simply not being found.

    >>> possible_id(12), possible_id(0), possible_id(10**25)
    (True, False, False)
    """
    return 1 <= n <= ID_MAX


@dataclass(frozen=True)
class SetSummary:
    """One line of :meth:`Store.list`."""

    id: int
    name: str
    event: str
    date: str
    boards: int
    first: int | None
    last: int | None
    sealed: bool
    source: str
    created_at: datetime


def deal_to_blob(deal: Deal) -> bytes:
    """The 26-byte form of a deal (big-endian :attr:`Deal.bits`)."""
    return deal.bits.to_bytes(DEAL_BYTES, "big")


def deal_from_blob(blob: bytes, *, partial: bool) -> Deal:
    if len(blob) != DEAL_BYTES:
        raise StoreError(f"a stored deal has {len(blob)} bytes, not {DEAL_BYTES}")
    return Deal.from_bits(int.from_bytes(blob, "big"), partial=partial)


class Store:
    """The database of one installation. Open it with :meth:`open`; it migrates on open."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str | None = None, *, settings: Settings | None = None,
             migrate_schema: bool = True) -> Store:
        """Open (and migrate) the database at ``url``, else the one the settings name."""
        if url is None:
            url = (settings or Settings.load()).database_url
        engine = make_engine(url)
        try:
            if migrate_schema:
                migrate.upgrade(engine)
        except SQLAlchemyError as exc:
            engine.dispose()
            raise StoreError(f"cannot open the database {_safe(url)}: {_first_line(exc)}") from None
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- units of work ---------------------------------------------------------------

    def read(self) -> _Guarded:
        """A unit of work that reads: a session, rolled back and closed on leaving.

        A database failure inside it becomes one :class:`StoreError` line.
        Objects read stay attached; ``expunge`` them to use them afterwards.
        """
        return _Guarded(self._sessions(), commit=False)

    def write(self) -> _Guarded:
        """A unit of work that writes: a session committed on leaving (rolled back if
        the block raises); a database failure or refusal becomes one :class:`StoreError`.

        It does not take the writer's turn (:meth:`turn`): on SQLite it waits for
        another writer in SQLite's busy handler, as the director's changes always did.
        """
        return _Guarded(self._sessions(), commit=True)

    def session(self) -> Session:
        """A new ORM session with no guard: the caller begins, commits and handles
        database errors itself (for a write that retries on a particular error)."""
        return self._sessions()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Take the one writer's turn on a SQLite file (see :func:`writer_turn`) for a
        busy write path; PostgreSQL and in-memory databases need none.

        >>> with Store.open("sqlite://") as store:
        ...     with store.turn(), store.session() as s, s.begin():
        ...         s.add(Event(name="Busy night", date="", site=""))
        """
        with writer_turn(self.engine):
            yield

    @cached_property
    def reads(self) -> Engine:
        """The engine for one-statement reads (the same pool as :attr:`engine`).

        On PostgreSQL they run in autocommit: a read in a transaction of its
        own costs a BEGIN and a ROLLBACK round trip besides the SELECT.
        SQLite's driver begins no transaction for a SELECT anyway.
        """
        if self.engine.dialect.name != "postgresql":
            return self.engine
        return self.engine.execution_options(isolation_level="AUTOCOMMIT")

    # -- deal sets -------------------------------------------------------------------

    def save(self, dealset: DealSet, *, event: str | None = None, name: str | None = None,
             source: str = "") -> int:
        """Save ``dealset`` in one transaction; returns its id.

        The event is found by name and date (``meta['Date']``) or created; its
        name defaults to ``meta['Event']``.
        """
        meta = dealset.meta
        event_name = event or meta.get("Event") or "(no event)"
        date = meta.get("Date", "")
        rows = [_board_values(i, b) for i, b in enumerate(dealset.boards)]
        with self.write() as s:
            ev = s.scalars(select(Event).where(Event.name == event_name, Event.date == date)
                           .order_by(Event.id).limit(1)).first()
            if ev is None:
                ev = Event(name=event_name, date=date, site=meta.get("Site", ""))
                s.add(ev)
            row = DealSetRow(event=ev, name=name or source or event_name, source=source,
                             meta=[[k, v] for k, v in meta.items()],
                             sealed=is_sealed(dealset))
            s.add(row)
            s.flush()
            if rows:
                # One multi-row INSERT rather than an ORM object per board: 5x faster
                # for a 3,816-board file, and boards need no identity-map bookkeeping.
                s.execute(insert(BoardRow), [r | {"deal_set_id": row.id} for r in rows])
            return row.id

    def load(self, set_id: int) -> DealSet:
        """The deal set saved as ``set_id``, identical to what was saved."""
        if not possible_id(set_id):
            raise StoreError(f"there is no deal set {set_id} in the store")
        with self.read() as s:
            row = s.get(DealSetRow, set_id)
            if row is None:
                raise StoreError(f"there is no deal set {set_id} in the store")
            cols = (BoardRow.number, BoardRow.deal, BoardRow.partial, BoardRow.dealer,
                    BoardRow.vulnerability, BoardRow.tags, BoardRow.sections)
            boards = s.execute(select(*cols).where(BoardRow.deal_set_id == set_id)
                               .order_by(BoardRow.position)).all()
            try:
                out = [_board(*b) for b in boards]
            except BoardwrightError as exc:
                raise StoreError(f"deal set {set_id} is damaged: {exc}") from None
            return DealSet(boards=out, meta={k: v for k, v in row.meta}, sealed=row.sealed)

    def list(self) -> list[SetSummary]:
        """Every stored deal set, oldest first."""
        counts = (select(BoardRow.deal_set_id, func.count().label("n"),
                         func.min(BoardRow.number).label("lo"),
                         func.max(BoardRow.number).label("hi"))
                  .group_by(BoardRow.deal_set_id).subquery())
        q = (select(DealSetRow, Event, counts.c.n, counts.c.lo, counts.c.hi)
             .join(Event, DealSetRow.event_id == Event.id)
             .outerjoin(counts, counts.c.deal_set_id == DealSetRow.id)
             .order_by(DealSetRow.id))
        with self.read() as s:
            return [SetSummary(id=ds.id, name=ds.name, event=ev.name, date=ev.date,
                               boards=n or 0, first=lo, last=hi, sealed=ds.sealed,
                               source=ds.source, created_at=ds.created_at)
                    for ds, ev, n, lo, hi in s.execute(q).all()]

    def delete(self, set_id: int) -> None:
        """Delete a deal set and its boards (the database cascades to the boards)."""
        if not possible_id(set_id):
            raise StoreError(f"there is no deal set {set_id} in the store")
        with self.write() as s:
            row = s.get(DealSetRow, set_id)
            if row is None:
                raise StoreError(f"there is no deal set {set_id} in the store")
            s.delete(row)


class _Guarded:
    """A session scope that commits (or rolls back) and reports database errors plainly."""

    def __init__(self, session: Session, *, commit: bool) -> None:
        self.session = session
        self.commit = commit

    def __enter__(self) -> Session:
        return self.session

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if et is None and self.commit:
                self.session.commit()
            else:
                self.session.rollback()
        except SQLAlchemyError as exc:
            self.session.rollback()
            raise StoreError(f"the database refused the change: {_first_line(exc)}") from None
        finally:
            self.session.close()
        if isinstance(ev, SQLAlchemyError):
            raise StoreError(f"database error: {_first_line(ev)}") from None


def _board_values(position: int, b: Board) -> dict[str, object]:
    assert b.dealer is not None and b.vulnerability is not None  # Board fills them in
    return {
        "position": position, "number": b.number,
        "deal": None if b.deal is None else deal_to_blob(b.deal),
        "partial": False if b.deal is None else b.deal.partial,
        "pbn": None if b.deal is None else b.deal.to_pbn(),
        "dealer": int(b.dealer), "vulnerability": b.vulnerability.value,
        "tags": [[k, v] for k, v in b.tags.items()],
        "sections": [[k, v] for k, v in b.sections.items()],
    }


def _board(number: int, blob: bytes | None, partial: bool, dealer: int, vulnerability: str,
           tags: list[list[str]], sections: list[list[str]]) -> Board:
    deal = None if blob is None else deal_from_blob(blob, partial=partial)
    return Board(number, deal, dealer=Seat(dealer), vulnerability=Vulnerability(vulnerability),
                 tags={k: v for k, v in tags}, sections={k: v for k, v in sections})


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<database>"
