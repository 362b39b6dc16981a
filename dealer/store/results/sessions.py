"""Multi-session events in the store: which club events are sessions of one event.

Each session of a multi-session event holds, in ``club_events.group_id``, the
id of the group's first session (the first holds its own id); a one-session
event holds ``None``. Sessions are in the order they were created. The
combined ranking itself is the core's (:mod:`dealer.events.sessions`).

>>> from dealer.store import Store
>>> from dealer.store.results import create_club_event
>>> with Store.open("sqlite://") as st:
...     one = create_club_event(st, "Championship", tables=3)
...     two = create_club_event(st, "Championship", tables=3)
...     join(st, two, one, who="td")
...     ids = [ce.id for ce, _ev in sessions(st, two)]
>>> ids
[1, 2]
"""

from __future__ import annotations

from sqlalchemy import select, update

from dealer.store.models import Event
from dealer.store.panel_models import ClubEvent
from dealer.store.repository import Store
from dealer.store.results.club_events import get_event
from dealer.store.results.common import EntryError, reading
from dealer.store.results.fairplay import add_audit

#: What a session's scores are in: sessions of one event must agree.
UNITS = {"matchpoints": "%", "butler": "IMPs", "cross": "IMPs"}


def unit_of(ce: ClubEvent) -> str:
    if ce.kind == "teams" and ce.movement == "teams":
        return "VPs"
    return UNITS.get(ce.scoring, ce.scoring)


def join(store: Store, club_event_id: int, continues: int | None, *, who: str) -> None:
    """Make the event a later session of the event ``continues`` belongs to (``None``:
    a one-session event again). Sessions scored in different units are refused."""
    ce = get_event(store, club_event_id)
    if continues is None:
        if ce.group_id is not None:
            with store.write() as s:
                s.execute(update(ClubEvent).where(ClubEvent.id == club_event_id)
                          .values(group_id=None))
                add_audit(s, who, "leave-group", f"event {club_event_id}",
                          f"no longer a session of event {ce.group_id}")
        return
    if continues == club_event_id:
        raise EntryError("an event cannot be a later session of itself", "continues")
    try:
        first = get_event(store, continues)
    except EntryError:
        raise EntryError(f"there is no event {continues} to continue", "continues") from None
    if unit_of(first) != unit_of(ce):
        raise EntryError(f"event {continues} is scored in {unit_of(first)} and this one in "
                         f"{unit_of(ce)}: sessions of one event are scored alike", "continues")
    group = first.group_id if first.group_id is not None else first.id
    if ce.group_id == group:
        return
    with store.write() as s:
        s.execute(update(ClubEvent).where(ClubEvent.id == group).values(group_id=group))
        s.execute(update(ClubEvent).where(ClubEvent.id == club_event_id)
                  .values(group_id=group))
        add_audit(s, who, "join-group", f"event {club_event_id}",
                  f"a session of the event that began with event {group}")


def sessions(store: Store, club_event_id: int) -> list[tuple[ClubEvent, Event]]:
    """The sessions of the event ``club_event_id`` belongs to, in order (itself alone
    when it is a one-session event)."""
    ce = get_event(store, club_event_id)
    q = select(ClubEvent, Event).join(Event, ClubEvent.event_id == Event.id)
    if ce.group_id is None:
        q = q.where(ClubEvent.id == club_event_id)
    else:
        q = q.where(ClubEvent.group_id == ce.group_id)
    with reading(store) as s:
        return [(r[0], r[1]) for r in s.execute(q.order_by(ClubEvent.id)).all()]
