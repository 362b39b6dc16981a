"""Multi-session events: one combined ranking from the rankings of several sessions.

A pair is the same pair in every session when it has the same label there
(``A7``, ``A3 NS``): the director keeps the pair numbers from session to
session. Each session counts equally, whatever its number of boards:

- **matchpoints**: the combined score is the average of the pair's session
  percentages, as the EBU's clubs commonly score a two-session pairs event
  (a session of 24 boards counts no more than one of 26);
- **IMPs** (Butler, cross-IMPs) and **VPs** (teams): the session totals add up.

Sessions cannot mix units. A pair that has not played every session is
listed after the ranked pairs, unplaced, with the sessions it played: its
average would compare a part of the event with the whole.

>>> s1 = {"": {"A1": 60.0, "A2": 40.0, "A3": 50.0}}
>>> s2 = {"": {"A1": 45.0, "A2": 58.0}}
>>> out = combine([s1, s2], "%")
>>> [(c.place, c.pair, c.score, c.played) for c in out[""]]
[('1', 'A1', 52.5, 2), ('2', 'A2', 49.0, 2), ('', 'A3', 50.0, 1)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dealer.events.model import EventError
from dealer.events.rankings import rank

#: Units whose session figures are averaged; every other unit is summed.
AVERAGED = ("%",)


@dataclass(frozen=True, slots=True)
class CombinedStanding:
    """A pair's place over the sessions: ``sessions`` holds each session's figure
    (``None`` where it did not play), ``score`` the combined one."""

    place: str  # "" when the pair did not play every session (unranked)
    pair: str
    score: float
    sessions: tuple[float | None, ...]
    played: int


def combine(sessions: Sequence[Mapping[str, Mapping[str, float]]], unit: str
            ) -> dict[str, list[CombinedStanding]]:
    """The combined rankings of ``sessions`` (each: line -> pair label -> score).

    ``unit`` is the sessions' unit (``"%"``, ``"IMPs"`` or ``"VPs"``):
    percentages are averaged, the others summed (module docstring). Lines
    (``""``, or ``"NS"`` and ``"EW"`` for two winners) are ranked apart.
    """
    if not sessions:
        raise EventError("a combined ranking needs at least one session")
    lines: list[str] = []
    for s in sessions:
        lines += [line for line in s if line not in lines]
    out: dict[str, list[CombinedStanding]] = {}
    for line in lines:
        pairs = sorted({p for s in sessions for p in s.get(line, {})})
        figures = {p: tuple(s.get(line, {}).get(p) for s in sessions) for p in pairs}
        combined: dict[str, float] = {}
        for p, fs in figures.items():
            got = [f for f in fs if f is not None]
            combined[p] = sum(got) / len(got) if unit in AVERAGED else sum(got)
        full = {p: v for p, v in combined.items() if None not in figures[p]}
        ranked = [CombinedStanding(pl.place, pl.key, round(pl.score, 2), figures[pl.key],
                                   len(sessions)) for pl in rank(full)]
        rest = sorted((p for p in pairs if p not in full), key=lambda p: -combined[p])
        ranked += [CombinedStanding("", p, round(combined[p], 2), figures[p],
                                    sum(f is not None for f in figures[p])) for p in rest]
        out[line] = ranked
    return out


def check_units(units: Sequence[str]) -> str:
    """The one unit of all sessions, or an :class:`EventError` naming the mix."""
    found = sorted(set(units))
    if len(found) > 1:
        raise EventError("the sessions are scored in different units (" + ", ".join(found)
                         + "): they cannot be combined")
    return found[0] if found else "%"
