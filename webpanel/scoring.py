"""Scores of a club event from the store: rankings and travellers, by the event's method."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dealer.events.imps_events import score_imp_pairs
from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.events.model import EventError
from dealer.events.rankings import rank, rank_event
from dealer.store import results as rs
from dealer.store.panel_models import ResultRow
from dealer.store.repository import Store


@dataclass
class Standing:
    place: str
    pair: str
    score: float
    unit: str  # "%" or "IMPs"
    boards: int


@dataclass
class Scored:
    """Rankings by line ("" for one winner), travellers by board, and any problem."""

    rankings: dict[str, list[Standing]] = field(default_factory=dict)
    travellers: dict[int, list[tuple[ResultRow, float | None, float | None]]] = field(
        default_factory=dict)
    frequencies: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    problem: str = ""


def score_event(store: Store, ce_id: int) -> Scored:
    ce = rs.get_event(store, ce_id)
    m = rs.movement(store, ce_id, ce.sections[0])
    rows = rs.results(store, ce_id)
    out = Scored()
    lines = rs.as_results(rows)
    for r in rows:
        out.travellers.setdefault(r.board, [])
    if not rows:
        return out
    try:
        if ce.scoring == "matchpoints":
            ev = score_matchpoints(lines, MatchpointOptions(numbering=m.numbering))
            for row, ln in zip(rows, ev.lines, strict=True):
                out.travellers[row.board].append((row, ln.ns_percent, ln.ew_percent))
            for line, places in rank_event(ev, m).items():
                out.rankings[line] = [Standing(p.place, str(p.key), round(p.score, 2), "%",
                                               ev.totals[p.key].boards) for p in places]
        else:
            iev = score_imp_pairs(lines, method=ce.scoring, numbering=m.numbering)
            for row, il in zip(rows, iev.lines, strict=True):
                out.travellers[row.board].append((row, il.ns_imps, il.ew_imps))
            out.rankings[""] = [Standing(p.place, str(p.key), round(p.score, 2), "IMPs",
                                         iev.boards.get(p.key, 0))  # type: ignore[call-overload]
                                for p in rank(iev.totals)]
    except EventError as exc:
        out.problem = str(exc)
        for row in rows:
            out.travellers[row.board].append((row, None, None))
    for board, tl in out.travellers.items():
        freq = Counter(r.score for r, _, _ in tl if r.score is not None)
        out.frequencies[board] = sorted(freq.items(), reverse=True)
    return out
