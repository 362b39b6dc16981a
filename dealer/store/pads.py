"""Score pads in the store: the setup and the entry log of each pad (see :mod:`dealer.pads`).

Each entry carries the client's submission id (``sid``); an entry whose id is
already in the log is a retry and changes nothing. An undo is logged the same
way (:func:`undo`), so a resent undo takes back one entry, not two. A pad remembers the address
that started it, so that one address cannot start pads without end
(:func:`create`'s ``limit``), and pads nobody writes to any more are deleted
(:func:`expire`).

>>> from dealer.store import Store
>>> with Store.open("sqlite://") as st:
...     tok = create(st, "rubber", "Friday four", {})
...     _ = add(st, tok, {"contract": "2H", "declarer": "S", "tricks": 8, "sid": "a"})
...     _ = add(st, tok, {"contract": "2H", "declarer": "S", "tricks": 8, "sid": "a"})
...     view(st, tok)[1].totals
{'WE': 60, 'THEY': 0}
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm.exc import StaleDataError

from dealer.pads import PadError, PadView, apply, check_setup, replay
from dealer.store.panel_models import Pad
from dealer.store.repository import Store


class PadLimitError(PadError):
    """One address has started too many pads lately."""


def create(store: Store, kind: str, name: str, setup: dict[str, Any], *, client: str = "",
           limit: int | None = None, window: timedelta = timedelta(hours=1)) -> str:
    """A new pad; returns its token (the pad's address).

    ``client`` is the address that asks; with ``limit``, it may have started
    at most that many pads within ``window`` (else :class:`PadLimitError`).
    """
    clean = check_setup(kind, setup)
    if len(name.strip()) > 100:
        raise PadError(f"name: at most 100 characters ({len(name.strip())} were sent)")
    name = name.strip() or kind.title()
    token = secrets.token_urlsafe(12)
    with store.write() as s:
        if limit is not None:
            since = datetime.now(UTC) - window
            started = s.scalar(select(func.count()).select_from(Pad).where(
                Pad.client == client[:100], Pad.created_at >= since)) or 0
            if started >= limit:
                minutes = round(window.total_seconds() / 60)
                raise PadLimitError(
                    f"this device has started {started} score pads in the last {minutes} "
                    f"minutes, the most allowed: keep using one of them (its address is in "
                    f"the browser's history), or wait and try again")
        s.add(Pad(kind=kind, name=name, token=token, setup=clean, entries=[],
                  client=client[:100]))
    return token


def expire(store: Store, days: int) -> int:
    """Delete the pads with no new entry for ``days`` days; returns how many went."""
    cutoff = datetime.now(UTC) - timedelta(days=days)
    with store.write() as s:
        gone = s.execute(delete(Pad).where(Pad.updated_at < cutoff))
        return int(getattr(gone, "rowcount", 0) or 0)


def remove(store: Store, pad_id: int) -> bool:
    """Delete one pad (the director's list); False when there is none of that id."""
    with store.write() as s:
        gone = s.execute(delete(Pad).where(Pad.id == pad_id))
        return bool(getattr(gone, "rowcount", 0))


def _get(s: Any, token: str, lock: bool = False) -> Pad:
    q = select(Pad).where(Pad.token == token)
    pad = s.scalars(q.with_for_update() if lock else q).first()
    if pad is None:
        raise PadError("there is no such score pad")
    return pad


def view(store: Store, token: str) -> tuple[Pad, PadView]:
    with store.read() as s:
        pad = _get(s, token)
        s.expunge(pad)
    return pad, replay(pad.kind, pad.setup, pad.entries)


def add(store: Store, token: str, entry: dict[str, Any]) -> PadView:
    """Append ``entry`` if the rules accept it (and its ``sid`` is new)."""
    def change(pad: Pad) -> PadView | None:
        sid = entry.get("sid")
        if sid and any(e.get("sid") == sid for e in pad.entries):
            return None  # a resent form: nothing to write
        v = apply(pad.kind, pad.setup, pad.entries, entry)
        pad.entries = [*pad.entries, entry]  # a new list, so SQLAlchemy sees the change
        return v
    return _update(store, token, change)


def undo(store: Store, token: str, sid: str = "") -> PadView:
    """Take back the last entry (a mistyped bid or result).

    The undo is written to the log with the form's ``sid``, like any entry: the
    same undo sent again (a double tap, a reload of the answer) is recognised
    and takes back nothing more. Without a ``sid`` every call takes one back.
    """
    return add(store, token, {"op": "undo", "sid": sid} if sid else {"op": "undo"})


def _update(store: Store, token: str, change: Callable[[Pad], PadView | None]) -> PadView:
    # Two phones on one pad: the version check makes the later write start again from
    # the new log rather than overwrite the other phone's entry.
    for _ in range(20):
        try:
            with store.session() as s, s.begin():
                pad = _get(s, token, lock=True)
                v = change(pad)
                if v is None:
                    return replay(pad.kind, pad.setup, pad.entries)
                pad.updated_at = datetime.now(UTC)
                s.flush()
                return v
        except StaleDataError:
            time.sleep(0.01)
    raise PadError("the pad is busy; please try again")


def all_pads(store: Store) -> list[Pad]:
    with store.read() as s:
        pads = list(s.scalars(select(Pad).order_by(Pad.id.desc())))
        s.expunge_all()
        return pads
