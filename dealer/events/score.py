"""One entry point for scoring an event, used by the command line and the panel.

:func:`score_event` picks the method (matchpoints, IMP pairs by Butler or
cross-IMPs, or team-against-team matches of a round robin) and returns
rankings and travellers in one shape, :class:`Scored`, which the panel's
pages and the results writers (:mod:`dealer.formats.results_csv`,
:mod:`~dealer.formats.results_pbn`, :mod:`~dealer.formats.usebio`) read.

The travellers carry the caller's own rows (a stored result, or the
:class:`~dealer.events.model.Result` itself), each with the values it scored
for NS and EW: percentages, IMPs, or a team's board IMPs.

>>> from dealer.contract import Contract
>>> lines = [Result(1, 1, 2, 420, contract=Contract.parse("4S", "N"), tricks=10),
...          Result(1, 3, 4, 450, contract=Contract.parse("4S", "N"), tricks=11)]
>>> s = score_event(lines, method="matchpoints")
>>> {line: [(st.pair, st.score) for st in sts] for line, sts in s.rankings.items()}
{'NS': [('A3', 100.0), ('A1', 0.0)], 'EW': [('A2', 100.0), ('A4', 0.0)]}
>>> [(r.ns, ns, ew) for r, ns, ew in s.travellers[1]]
[(1, 0.0, 100.0), (3, 100.0, 0.0)]
>>> s.frequencies[1]
[(450, 1), (420, 1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from dealer.events.imps_events import ImpPairsEvent, score_imp_pairs
from dealer.events.matchpoints import (
    MatchpointEvent,
    MatchpointOptions,
    pair_keys,
    score_matchpoints,
)
from dealer.events.model import EventError, PairKey, Result
from dealer.events.movements import Movement
from dealer.events.rankings import Placing, rank, rank_event
from dealer.events.teams import Schedule, score_matches
from dealer.players.names import PlayerName, pair_label

#: The scoring methods, as a club event stores them ("teams": a teams round robin).
METHODS = ("matchpoints", "butler", "cross", "teams")


class RecordedResult(Protocol):
    """A traveller's row as the results writers read it (a stored result is one)."""

    board: int
    section: str
    table_no: int
    round_no: int
    ns: int
    ew: int
    contract: str | None
    declarer: str | None
    lead: str | None
    tricks: int | None
    score: int | None
    ns_artificial: str | None
    ew_artificial: str | None


R = TypeVar("R")


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
    total: float | None = None  # matchpoints: the pair's total matchpoints (``score`` is %)
    top: float | None = None  # matchpoints: the sum of the tops of the pair's boards
    # False while none of the pair's boards has a second result to compare with: its
    # score is no score yet (0% or 0 IMPs would read as the worst result of the night).
    compared: bool = True


@dataclass
class MatchLine:
    """One team match: IMPs and VPs so far, boards compared of scheduled."""

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
class Scored(Generic[R]):
    """Rankings by line ("" for one winner), travellers by board, and any problem.

    ``placings`` are the rankings with their pair keys (:class:`Placing`), and
    ``event`` the matchpoint or IMP event behind them (totals, score cards);
    a teams event has neither.
    """

    rankings: dict[str, list[Standing]] = field(default_factory=dict)
    travellers: dict[int, list[tuple[R, float | None, float | None]]] = field(
        default_factory=dict)
    frequencies: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    problem: str = ""
    matches: list[MatchLine] = field(default_factory=list)  # teams only
    labels: dict[int, str] = field(default_factory=dict)  # teams: id(row) -> its match
    notes: list[str] = field(default_factory=list)  # teams: boards not yet compared, ...
    placings: dict[str, list[Placing]] = field(default_factory=dict)
    event: MatchpointEvent | ImpPairsEvent | None = None
    points: dict[int, tuple[float | None, float | None, float]] = field(default_factory=dict)
    # The players of each named pair, seat order (the caller fills it: the panel from the
    # store). The pages and the results writers read them through names()/pair_names().
    players: dict[PairKey, tuple[PlayerName, ...]] = field(default_factory=dict)

    def pair_names(self, section: str, line: str, number: int, sep: str = " & ") -> str:
        """The names of pair ``number`` of ``section`` (``""`` when not known). ``line``
        is where it sat (``NS``/``EW``): it matters only when both lines are numbered
        from 1, and is ignored otherwise."""
        players = (self.players.get(PairKey(section, line, number))
                   or self.players.get(PairKey(section, "", number)))
        return pair_label(players, sep) if players else ""

    def seat_names(self, row: Any, sep: str = " & ") -> tuple[str, str]:
        """The names of the pairs in the NS and the EW seats of a traveller's row. A row
        whose pairs sat the wrong way in a two-winner Mitchell (``swapped``) has an EW
        pair in the NS seats: each is named from its own line."""
        ns_line, ew_line = ("EW", "NS") if getattr(row, "swapped", False) else ("NS", "EW")
        return (self.pair_names(row.section, ns_line, row.ns, sep),
                self.pair_names(row.section, ew_line, row.ew, sep))

    def names(self, pair: PairKey | str, sep: str = " & ") -> str:
        """The names of a ranked pair or team, by its key or as a standing shows it
        (``"A3"``, ``"A3 NS"``, ``"team 2"``, ``"B team 2"``); ``""`` when not known.

        A team is its two pairs (team *t* is pairs 2t-1 and 2t of the round robin).
        """
        if isinstance(pair, PairKey):
            return self.pair_names(pair.section, pair.line, pair.number, sep)
        words = pair.split()
        if "team" in words and words[-1].isdigit():
            team, sec = int(words[-1]), words[0] if words[0] != "team" else None
            players = [p for k in sorted(self.players, key=lambda k: k.number)
                       if k.number in (2 * team - 1, 2 * team) and sec in (None, k.section)
                       for p in self.players[k]]
            return pair_label(players, sep)
        for k in self.players:
            if str(k) == pair:
                return pair_label(self.players[k], sep)
        return ""

    def label(self, row: Any) -> str:
        """The team match a traveller's row belongs to ("" outside a teams event)."""
        return self.labels.get(id(row), "")

    def matchpoints(self, row: Any) -> tuple[float | None, float | None, float] | None:
        """A matchpointed row's (NS, EW) matchpoints and the board's top, or ``None``.

        The travellers carry percentages; exports that must write real
        matchpoints (USEBIO's ``NS_MATCH_POINTS``, PBN's ``MP_NS``) read them here.
        """
        return self.points.get(id(row))


def score_event(rows: Sequence[R], lines: Sequence[Result] | None = None, *,
                method: str = "matchpoints", movement: Movement | None = None,
                numbering: str = "unique", scale: str = "wbf",
                schedules: Mapping[str, Schedule] | None = None) -> Scored[R]:
    """Score an event by ``method`` (one of :data:`METHODS`).

    ``rows`` are what the travellers show (with ``board``, ``ns``, ``score``;
    for teams also ``section``, ``round_no`` or ``round``, ``table_no`` or
    ``table``); ``lines`` are the same results as :class:`Result` (by default
    ``rows`` are). ``movement`` ranks a two-winner matchpoint event by line;
    ``schedules`` gives a teams event its round robin by section. A problem
    the results cannot be scored with (an :class:`EventError`) is reported in
    :attr:`Scored.problem`, with the travellers unscored, not raised: the
    director still sees every line.
    """
    if method not in METHODS:
        raise EventError(f"unknown scoring method {method!r} ({', '.join(METHODS)})")
    lines = list(rows) if lines is None else list(lines)  # type: ignore[arg-type]
    if len(lines) != len(rows):
        raise EventError(f"{len(rows)} rows but {len(lines)} results to score")
    out: Scored[R] = Scored()
    for r in lines:
        out.travellers.setdefault(r.board, [])
    try:
        if method == "teams":
            if not schedules:
                raise EventError("a teams event needs its round robin schedule")
            _score_teams(schedules, rows, lines, out)
        elif method == "matchpoints":
            ev = score_matchpoints(lines, MatchpointOptions(scale=scale, numbering=numbering))
            out.event = ev
            compared = {k for k, t in ev.totals.items() if t.top > 0}.__contains__
            for row, res, ln in zip(rows, lines, ev.lines, strict=True):
                out.travellers[res.board].append((row, ln.ns_percent, ln.ew_percent))
                out.points[id(row)] = (ln.ns_mp, ln.ew_mp, ln.top)
            for line, places in rank_event(ev, movement).items():
                out.placings[line] = places
                out.rankings[line] = [Standing(place, str(p.key), round(p.score, 2), "%",
                                               ev.totals[p.key].boards, total=ev.totals[p.key].mp,
                                               top=ev.totals[p.key].top,
                                               compared=ev.totals[p.key].top > 0)
                                      for place, p in _placed(places, compared)]
        else:
            iev = score_imp_pairs(lines, method=method, numbering=numbering)
            out.event = iev
            for row, res, il in zip(rows, lines, iev.lines, strict=True):
                out.travellers[res.board].append((row, il.ns_imps, il.ew_imps))
            out.placings[""] = rank(iev.totals)
            seen = _compared_pairs(lines, numbering)
            out.rankings[""] = [Standing(place, str(p.key), round(p.score, 2), "IMPs",
                                         iev.boards.get(p.key, 0),  # type: ignore[call-overload]
                                         compared=p.key in seen)
                                for place, p in _placed(out.placings[""], seen.__contains__)]
    except EventError as exc:
        out.problem = str(exc)
        out.points.clear()
        for board in out.travellers:
            out.travellers[board] = []
        for row, res in zip(rows, lines, strict=True):
            out.travellers[res.board].append((row, None, None))
    for board, tl in out.travellers.items():
        freq = Counter(res_score for res_score in (_score(r) for r, _, _ in tl)
                       if res_score is not None)
        out.frequencies[board] = sorted(freq.items(), reverse=True)
    return out


def _placed(places: list[Placing], compared: Callable[[Any], bool]) -> list[tuple[str, Placing]]:
    """The places again among the pairs with a comparison, the others last and unplaced:
    a pair with no comparison yet is not tied for last with the pair that came last."""
    live = [p for p in places if compared(p.key)]
    if len(live) == len(places):
        return [(p.place, p) for p in places]
    again = {p.key: p.place for p in rank({p.key: p.score for p in live})}
    return [(again[p.key], p) for p in live] + [("", p) for p in places if not compared(p.key)]


def _compared_pairs(lines: Sequence[Result], numbering: str) -> set[Any]:
    """The pairs with a board that has at least two lines to compare (IMP pairs)."""
    per_board = Counter((r.board, r.group) for r in lines if r.kind != "not_played")
    out: set[Any] = set()
    for r in lines:
        if r.kind != "not_played" and per_board[(r.board, r.group)] > 1:
            out.update(pair_keys(r, numbering))
    return out


def _score(row: object) -> int | None:
    return getattr(row, "score", None)


def _score_teams(schedules: Mapping[str, Schedule], rows: Sequence[R], lines: Sequence[Result],
                 out: Scored[R]) -> None:
    """Team matches, one round robin a section."""
    for sec, schedule in schedules.items():
        pick = [i for i, ln in enumerate(lines) if ln.section == sec]
        ev = score_matches(schedule, [lines[i] for i in pick])
        imps = ev.board_imps()
        where: dict[tuple[int, int], tuple[int, int, int]] = {}  # (round, ns) -> order
        prefix = f"{sec} " if len(schedules) > 1 else ""
        for m in schedule.matches():
            for st in m.sittings():
                where[(st.round, st.ns)] = (m.round, m.number, st.table)
        for mr in ev.matches:
            m = mr.match
            out.matches.append(MatchLine(m.round, m.home, m.away, m.tables, mr.home_imps,
                                         mr.away_imps, mr.home_vp, mr.away_vp, mr.compared,
                                         len(m.boards)))
        matches = {(m.round, m.number): m for m in schedule.matches()}

        def order(i: int, where: dict = where) -> tuple[int, tuple[int, int, int]]:
            ln = lines[i]
            return ln.board, where.get((ln.round, ln.ns), (0, 0, ln.table))

        for i in sorted(pick, key=order):
            ln, row = lines[i], rows[i]
            v = imps.get((ln.board, ln.ns)) if ln.board is not None and ln.ns is not None else None
            out.travellers[ln.board].append((row, v, None if v is None else -v))
            key: Hashable = where.get((ln.round, ln.ns)) if ln.round is not None else None
            if key is not None:
                m = matches[key[:2]]  # type: ignore[index]
                out.labels[id(row)] = (f"{prefix}team {m.home} v team {m.away} "
                                       f"(tables {m.tables[0]}-{m.tables[1]})")
        out.notes.extend(ev.notes)
        out.rankings[sec if len(schedules) > 1 else ""] = [
            Standing(p.place, f"{prefix}team {p.team}", p.total.vp, "VPs",
                     sum(mr.compared for mr in ev.matches
                         if p.team in (mr.match.home, mr.match.away)),
                     p.total.imps_for, p.total.imps_against, p.total.matches)
            for p in ev.ranking]
