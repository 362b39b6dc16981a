"""Scores of a club event from the store: rankings and travellers, by the event's method.

A teams event with the teams round robin (``kind == "teams"``, movement
``"teams"``) is scored as team-against-team matches (:mod:`dealer.events.teams`):
rankings in VPs with the match IMPs, travellers with both tables of each
match side by side and each line's board IMPs for its team. Other events are
matchpoints, or IMP pairs (Butler or cross-IMPs).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dealer.events.imps_events import score_imp_pairs
from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.events.model import EventError
from dealer.events.rankings import rank, rank_event
from dealer.events.teams import round_robin, score_matches
from dealer.store import results as rs
from dealer.store.panel_models import ClubEvent, ResultRow
from dealer.store.repository import Store


@dataclass
class Standing:
    place: str
    pair: str
    score: float
    unit: str  # "%", "IMPs" or "VPs"
    boards: int
    imps_for: float | None = None  # teams: the match IMPs, shown beside the VPs
    imps_against: float | None = None
    matches: int | None = None


@dataclass
class MatchLine:
    """One team match for the desk: IMPs and VPs so far, boards compared of scheduled."""

    round: int
    home: int
    away: int
    tables: tuple[int, int]
    home_imps: float
    away_imps: float
    home_vp: float
    away_vp: float
    compared: int
    boards: int


@dataclass
class Scored:
    """Rankings by line ("" for one winner), travellers by board, and any problem."""

    rankings: dict[str, list[Standing]] = field(default_factory=dict)
    travellers: dict[int, list[tuple[ResultRow, float | None, float | None]]] = field(
        default_factory=dict)
    frequencies: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    problem: str = ""
    matches: list[MatchLine] = field(default_factory=list)  # teams only
    labels: dict[int, str] = field(default_factory=dict)  # teams: result id -> its match
    notes: list[str] = field(default_factory=list)  # teams: boards not yet compared, ...


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
        if ce.kind == "teams" and ce.movement == "teams":
            _score_teams(ce, rows, out)
        elif ce.scoring == "matchpoints":
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


def _score_teams(ce: ClubEvent, rows: list[ResultRow], out: Scored) -> None:
    """Team matches, one round robin a section (``ce.tables`` counts the teams)."""
    for sec in ce.sections:
        sec_rows = [r for r in rows if r.section == sec]
        schedule = round_robin(ce.tables, boards_per_round=ce.boards_per_round,
                               rounds=ce.rounds, section=sec)
        ev = score_matches(schedule, rs.as_results(sec_rows))
        imps = ev.board_imps()
        where: dict[tuple[int, int], tuple[int, int, int]] = {}  # (board, ns) -> order
        prefix = f"{sec} " if len(ce.sections) > 1 else ""
        for m in schedule.matches():
            for st in m.sittings():
                where[(st.round, st.ns)] = (m.round, m.number, st.table)
        for mr in ev.matches:
            m = mr.match
            out.matches.append(MatchLine(m.round, m.home, m.away, m.tables, mr.home_imps,
                                         mr.away_imps, mr.home_vp, mr.away_vp, mr.compared,
                                         len(m.boards)))
        matches = {(m.round, m.number): m for m in schedule.matches()}
        ordered = sorted(sec_rows, key=lambda r: (r.board, where.get((r.round_no, r.ns),
                                                                    (0, 0, r.table_no))))
        for r in ordered:
            v = imps.get((r.board, r.ns))
            out.travellers[r.board].append((r, v, None if v is None else -v))
            key = where.get((r.round_no, r.ns))
            if key is not None:
                m = matches[key[:2]]
                out.labels[r.id] = (f"{prefix}team {m.home} v team {m.away} "
                                    f"(tables {m.tables[0]}-{m.tables[1]})")
        out.notes.extend(ev.notes)
        out.rankings[sec if len(ce.sections) > 1 else ""] = [
            Standing(p.place, f"{prefix}team {p.team}", p.total.vp, "VPs",
                     sum(mr.compared for mr in ev.matches
                         if p.team in (mr.match.home, mr.match.away)),
                     p.total.imps_for, p.total.imps_against, p.total.matches)
            for p in ev.ranking]
