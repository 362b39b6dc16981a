"""The per-card dealing journal: one durable row per decision and per drop.

A dealing *run* is one job (a stored deal set and the plan options). Every
route the session decides and every drop the machine confirms is appended to
``dealing_journal`` in its own transaction, so after a crash the session is
rebuilt from it (:meth:`DealingSession.restore`) and compared with the
machine's pocket counts. SQLite runs in WAL mode with ``synchronous=NORMAL``
(``engine.py``): a commit is an append to the WAL, well under a millisecond,
and survives a crash of the program (an operating-system crash may lose the
last commits, which the pocket-count reconciliation then catches).

A commit that fails (disk full, read-only file, database locked by another
program for longer than :data:`LOCK_WAIT` seconds) raises
:class:`~dealer.session.JournalError`, which stops the session.

>>> from dealer.store import Store
>>> from dealer.generate import random_dealset
>>> from dealer.session import Entry
>>> with Store.open("sqlite://") as store:
...     runs = JournalStore(store.engine)
...     run = runs.create_run(store.save(random_dealset([1])), "deal", {"copies": 1})
...     runs.journal(run).append(Entry("board", 0))
...     [e.kind for e in runs.entries(run)], runs.open_run(1)
(['board'], 1)
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    SmallInteger,
    String,
    Table,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Mapped, mapped_column

from dealer.session import Entry, JournalError
from dealer.store.engine import StoreError
from dealer.store.models import Base

#: Seconds a journal write waits for a database locked by another program before
#: it gives up and stops the machine (the store's default, 10 s, is too long to
#: leave a card waiting at the gate).
LOCK_WAIT = 1.0


def _now() -> datetime:
    return datetime.now(UTC)


class DealingRun(Base):
    """One dealing job: which set, which mode and options, and how far it got."""

    __tablename__ = "dealing_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal_set_id: Mapped[int] = mapped_column(ForeignKey("deal_sets.id", ondelete="CASCADE"),
                                             index=True)
    mode: Mapped[str] = mapped_column(String(12))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    state: Mapped[str] = mapped_column(String(12), default="open")  # open | finished | abandoned
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class JournalRow(Base):
    """One :class:`~dealer.session.Entry` of a run, in order of ``id``."""

    __tablename__ = "dealing_journal"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("dealing_runs.id", ondelete="CASCADE"),
                                        index=True)
    kind: Mapped[str] = mapped_column(String(8))
    slot: Mapped[int] = mapped_column(Integer)
    boot_id: Mapped[int] = mapped_column(BigInteger, default=0)  # u32 on the wire
    gate_id: Mapped[int] = mapped_column(BigInteger, default=0)
    card: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    pocket: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)  # None: reject tray
    code: Mapped[str] = mapped_column(String(40), default="")
    deck: Mapped[str | None] = mapped_column(String(40), nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


_T = cast(Table, JournalRow.__table__)  # a Table (mypy sees a FromClause)


def _why(exc: SQLAlchemyError) -> str:
    text = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    return text[:160]


class SqlJournal:
    """The :class:`~dealer.session.Journal` of one run: each append is one commit."""

    def __init__(self, engine: Engine, run_id: int) -> None:
        self.engine = engine
        self.run_id = run_id
        self.appended = 0

    def append(self, entry: Entry) -> None:
        row = {"run_id": self.run_id, "kind": entry.kind, "slot": entry.slot,
               "boot_id": entry.boot_id, "gate_id": entry.gate_id, "card": entry.card,
               "pocket": entry.pocket, "code": entry.code, "deck": entry.deck, "at": _now()}
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(_T), row)
        except SQLAlchemyError as exc:
            raise JournalError(f"{self.engine.url.database or 'database'}: {_why(exc)}") from None
        self.appended += 1


class JournalStore:
    """Runs and their journals in the store (tables ``dealing_runs``, ``dealing_journal``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        if engine.dialect.name == "sqlite":
            # New connections wait less for a lock; give the journal its own engine
            # (as the rig does) so that every connection it uses is a new one.
            event.listen(engine, "connect", _short_lock_wait)

    def create_run(self, deal_set_id: int, mode: str, options: dict[str, Any]) -> int:
        try:
            with self.engine.begin() as conn:
                res = conn.execute(insert(cast(Table, DealingRun.__table__)).values(
                    deal_set_id=deal_set_id, mode=mode, options=options, state="open",
                    created_at=_now()))
                return int(res.inserted_primary_key[0])  # type: ignore[index]
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot start a dealing run: {_why(exc)}") from None

    def open_run(self, deal_set_id: int, mode: str = "deal") -> int | None:
        """The newest unfinished run of this set, to resume; ``None`` if there is none."""
        q = (select(DealingRun.id).where(DealingRun.deal_set_id == deal_set_id,
                                         DealingRun.mode == mode, DealingRun.state == "open")
             .order_by(DealingRun.id.desc()).limit(1))
        try:
            with self.engine.connect() as conn:
                return conn.execute(q).scalar()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read the dealing runs: {_why(exc)}") from None

    def run_options(self, run_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            opts = conn.execute(select(DealingRun.options).where(DealingRun.id == run_id)).scalar()
        if opts is None:
            raise StoreError(f"there is no dealing run {run_id}")
        return dict(opts)

    def set_state(self, run_id: int, state: str) -> None:
        try:
            with self.engine.begin() as conn:
                conn.execute(update(cast(Table, DealingRun.__table__)).where(DealingRun.id == run_id)
                             .values(state=state))
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot update dealing run {run_id}: {_why(exc)}") from None

    def entries(self, run_id: int) -> list[Entry]:
        q = select(_T).where(_T.c.run_id == run_id).order_by(_T.c.id)
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(q).all()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read the journal of run {run_id}: {_why(exc)}") from None
        return [Entry(r.kind, r.slot, r.boot_id, r.gate_id, r.card, r.pocket, r.code, r.deck)
                for r in rows]

    def journal(self, run_id: int) -> SqlJournal:
        return SqlJournal(self.engine, run_id)


def _short_lock_wait(dbapi_connection: Any, _record: Any) -> None:
    cur = dbapi_connection.cursor()
    try:
        cur.execute(f"PRAGMA busy_timeout={int(LOCK_WAIT * 1000)}")
    finally:
        cur.close()
