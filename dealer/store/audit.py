"""The club's audit log (table ``audit_log``): who unsealed what, who printed new table
cards or closed an event, which table entered ahead of its round, and when.

A line is written for every act that cannot be taken back quietly, such as a
director unsealing a deal set in the panel or ``--unseal`` on the CLI when it
works on the store. The director reads the latest lines on the deal-sets page.

>>> from dealer.store import Store
>>> with Store.open("sqlite://") as store:
...     record(store, who="td", action="unseal", subject="deal set 3", detail="in the panel")
...     [(e.who, e.action, e.subject) for e in entries(store)]
[('td', 'unseal', 'deal set 3')]
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from dealer.store.models import AuditEntry
from dealer.store.repository import Store

# The columns' sizes (models.AuditEntry): longer text is cut with a mark, never refused.
_SIZES = {"who": 100, "action": 40, "subject": 200, "detail": 500}


@dataclass(frozen=True)
class AuditLine:
    """One line of the log, detached from the database session."""

    at: datetime
    who: str
    action: str
    subject: str
    detail: str


def _fit(text: str, size: int) -> str:
    return text if len(text) <= size else text[:size - 1] + "…"


def add(s: Session, *, who: str, action: str, subject: str = "", detail: str = "") -> None:
    """Add one line to the audit log in the caller's unit of work (it commits with the
    act it records, e.g. new table cards)."""
    values = {"who": who, "action": action, "subject": subject, "detail": detail}
    s.add(AuditEntry(**{k: _fit(v, _SIZES[k]) for k, v in values.items()}))


def record(store: Store, *, who: str, action: str, subject: str = "", detail: str = "") -> None:
    """Add one line to the audit log (committed at once)."""
    with store.write() as s:
        add(s, who=who, action=action, subject=subject, detail=detail)


def entries(store: Store, *, action: str | None = None, limit: int = 50) -> list[AuditLine]:
    """The latest lines, newest first (only ``action``'s when given)."""
    q = select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc()).limit(limit)
    if action is not None:
        q = q.where(AuditEntry.action == action)
    with store.read() as s:
        return [AuditLine(e.at, e.who, e.action, e.subject, e.detail) for e in s.scalars(q)]


def cli_user() -> str:
    """Who is at the terminal, for a CLI line of the log ("cli:anne")."""
    try:
        name = getpass.getuser()
    except Exception:  # no user name in the environment: still log the act
        name = "unknown"
    return f"cli:{name}"
