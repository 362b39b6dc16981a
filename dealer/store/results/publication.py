"""Publishing a club event's results, and taking a publication back (Law 79C).

Publication is one timestamp, ``club_events.published_at``: the public results
page (``/results/<id>`` in the panel) answers only while it is set, and the
Law 79C correction period runs from it for ``correction_minutes``. Within that
period the director may take the publication back (:func:`unpublish`): the
public page then answers "not found" again, exactly as before publication.
After it, a publication stands (corrections are still possible, marked late).
Both steps are written to the audit log in the same unit of work.

>>> from dealer.store import Store
>>> from dealer.store.results import create_club_event, get_event
>>> with Store.open("sqlite://") as st:
...     ce = create_club_event(st, "Monday", tables=3, movement="mitchell")
...     at = publish(st, ce, who="td")
...     shown = [c.id for c, _ev in published_events(st)]
...     unpublish(st, ce, who="td")
...     after = get_event(st, ce).published_at
>>> shown, after
([1], None)
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from dealer.store.models import DealSetRow, Event
from dealer.store.panel_models import ClubEvent, ResultRow
from dealer.store.player_models import PairPlayer
from dealer.store.repository import Store
from dealer.store.results.club_events import get_event
from dealer.store.results.common import EntryError, aware, now, reading
from dealer.store.results.fairplay import add_audit


def undo_until(ce: ClubEvent) -> datetime | None:
    """The end of the correction period (UTC), or ``None`` while unpublished."""
    if ce.published_at is None:
        return None
    return aware(ce.published_at) + timedelta(minutes=ce.correction_minutes)


def may_unpublish(ce: ClubEvent, at: datetime | None = None) -> bool:
    """Whether the publication may still be taken back (inside the correction period)."""
    until = undo_until(ce)
    return until is not None and (at or now()) <= until


def publish(store: Store, club_event_id: int, *, who: str, at: datetime | None = None
            ) -> datetime:
    """Publish the results now (or at ``at``); returns the time of publication.

    Publishing again changes nothing: the correction period keeps its start.
    """
    ce = get_event(store, club_event_id)
    if ce.published_at is not None:
        return aware(ce.published_at)
    when = at or now()
    with store.write() as s:
        s.execute(update(ClubEvent).where(ClubEvent.id == club_event_id,
                                          ClubEvent.published_at.is_(None))
                  .values(published_at=when))
        add_audit(s, who, "publish", f"event {club_event_id}",
                  f"results published; corrections for {ce.correction_minutes} minutes "
                  "(Law 79C)")
    return when


def unpublish(store: Store, club_event_id: int, *, who: str,
              at: datetime | None = None) -> None:
    """Take the publication back, within the correction period only.

    Raises :class:`EntryError` (field ``published``) when the results are not
    published or the period is over.
    """
    ce = get_event(store, club_event_id)
    until = undo_until(ce)
    if until is None:
        raise EntryError("the results are not published", "published")
    if not may_unpublish(ce, at):
        raise EntryError(f"the correction period ended at {until:%H:%M} UTC "
                         f"({ce.correction_minutes} minutes after publication): the "
                         "publication stands; correct the results instead (marked late)",
                         "published")
    with store.write() as s:
        s.execute(update(ClubEvent).where(ClubEvent.id == club_event_id)
                  .values(published_at=None))
        add_audit(s, who, "unpublish", f"event {club_event_id}",
                  f"publication of {aware(ce.published_at):%H:%M} UTC taken back; "  # type: ignore[arg-type]
                  "the public page is gone")


def published_event(store: Store, club_event_id: int) -> tuple[ClubEvent, Event] | None:
    """The club event and its event, if it exists and is published (else ``None``)."""
    with reading(store) as s:
        row = s.execute(select(ClubEvent, Event).join(Event, ClubEvent.event_id == Event.id)
                        .where(ClubEvent.id == club_event_id,
                               ClubEvent.published_at.is_not(None))).first()
        return None if row is None else (row[0], row[1])


def public_stamp(store: Store, club_event_id: int) -> str:
    """A mark of everything a published page shows: it changes when a result is entered
    or changed, a name is entered or edited, the event is renamed, published again, given
    another deal set, or its set is sealed or unsealed. The panel keeps a built page
    (the A4 PDF) under it, so a page is built once per change, not once per reader."""
    with reading(store) as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            return ""
        count, versions = s.execute(
            select(func.count(ResultRow.id), func.coalesce(func.sum(ResultRow.version), 0))
            .where(ResultRow.club_event_id == club_event_id)).one()
        names = s.execute(
            select(PairPlayer.section, PairPlayer.line, PairPlayer.pair_no, PairPlayer.seat,
                   PairPlayer.name, PairPlayer.number)
            .where(PairPlayer.club_event_id == club_event_id)
            .order_by(PairPlayer.section, PairPlayer.line, PairPlayer.pair_no,
                      PairPlayer.seat)).all()
        sealed = (None if ce.deal_set_id is None
                  else s.scalar(select(DealSetRow.sealed).where(DealSetRow.id == ce.deal_set_id)))
        event = s.get(Event, ce.event_id)
        parts = [count, versions, ce.published_at, ce.deal_set_id, sealed,
                 event.name if event else "", event.date if event else "", names]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def published_events(store: Store) -> list[tuple[ClubEvent, Event]]:
    """Every published club event, the latest publication first."""
    with reading(store) as s:
        return [(r[0], r[1]) for r in s.execute(
            select(ClubEvent, Event).join(Event, ClubEvent.event_id == Event.id)
            .where(ClubEvent.published_at.is_not(None))
            .order_by(ClubEvent.published_at.desc(), ClubEvent.id.desc())).all()]
