"""What the modules of :mod:`dealer.store.results` share: the error, the outcome,
the tables behind the models, and the units of work of the entry path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Connection, Table
from sqlalchemy.orm import Session

from dealer.errors import BoardwrightError
from dealer.store.models import Event
from dealer.store.panel_models import ClubEvent, ResultChange, ResultRow, Submission, TableToken
from dealer.store.repository import Store


class EntryError(BoardwrightError, ValueError):
    """A result form that cannot be recorded; ``field`` names the form field."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass
class Outcome:
    """What :func:`~dealer.store.results.submit` or :func:`~dealer.store.results.correct`
    did: ``recorded``, ``duplicate``, ``conflict``, ``corrected`` or
    ``needs-confirmation`` (warnings to confirm)."""

    status: str
    result_id: int | None = None
    score: int | None = None
    message: str = ""
    warnings: list[str] = field(default_factory=list)


#: The fields of a recorded result a correction may change.
EDITABLE = ("contract", "declarer", "tricks", "lead", "ns", "ew", "ns_artificial",
            "ew_artificial", "not_played", "not_played_reason", "fouled_group", "weighted",
            "swapped")


#: Marks a correction sets besides the fields it changes (no audit row of their own):
#: ``late`` once changed after publication, ``changed_after_view`` once a table changed
#: a board it had been shown.
FLAGS = ("late", "changed_after_view")


class Stale(Exception):
    """Someone else changed the result between our read and our write."""


class Resent(Exception):
    """The same correction form arrived twice at once."""


#: The longest reason a correction keeps (the audit column's width).
REASON_MAX = 300
#: The longest submission id a form may carry (the ``submissions`` key's width).
SUBMISSION_ID_MAX = 64


def check_submission_id(submission_id: str | None, *, required: bool = True) -> None:
    """Refuse a missing (when ``required``) or over-long submission id; never cut it:
    two forms whose ids differ only after the cut would count as one."""
    if submission_id is None or submission_id == "":
        if required:
            raise EntryError("the form lost its submission id; reload the page",
                             "submission_id")
        return
    if len(submission_id) > SUBMISSION_ID_MAX:
        raise EntryError(f"the submission id is at most {SUBMISSION_ID_MAX} characters "
                         f"({len(submission_id)} were sent); reload the page",
                         "submission_id")


def check_reason(reason: str) -> None:
    """Refuse a correction's reason longer than the audit keeps (it used to be cut)."""
    if len(reason) > REASON_MAX:
        raise EntryError(f"the reason is at most {REASON_MAX} characters "
                         f"({len(reason)} were sent)", "reason")


def now() -> datetime:
    return datetime.now(UTC)


def aware(t: datetime) -> datetime:
    # SQLite gives naive datetimes back even for timezone=True columns; they were UTC.
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def as_text(v: object) -> str:
    """A value as the audit trail keeps it (``None`` as empty)."""
    return "" if v is None else str(v)


# The tables behind the models, for the entry path: a table's phone submits and
# corrects results all evening, and SQLAlchemy Core statements cost a fraction of
# the ORM's unit of work there (measured: a result entry 0.58 -> 0.33 ms).
# Typed as Table: mypy sees a mapped class's __table__ only as a FromClause.
TOKENS = cast(Table, TableToken.__table__)
CLUB_EVENTS = cast(Table, ClubEvent.__table__)
EVENTS = cast(Table, Event.__table__)
RESULTS = cast(Table, ResultRow.__table__)
SUBMISSIONS = cast(Table, Submission.__table__)
CHANGES = cast(Table, ResultChange.__table__)


@contextmanager
def writing(store: Store) -> Iterator[Session]:
    """An ORM write transaction, after taking the writer's turn (:meth:`Store.turn`).

    Unguarded: the callers turn an ``IntegrityError`` into an answer (a race)."""
    with store.turn(), store.session() as s, s.begin():
        yield s


@contextmanager
def transaction(store: Store) -> Iterator[Connection]:
    """A Core write transaction, after taking the writer's turn."""
    with store.turn(), store.engine.begin() as conn:
        yield conn


@contextmanager
def reading(store: Store) -> Iterator[Session]:
    """A read-only session whose objects stay usable afterwards (detached, loaded)."""
    with store.read() as s:
        yield s
        s.expunge_all()  # before the rollback, which would expire them
