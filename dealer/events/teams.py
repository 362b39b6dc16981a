"""Team-against-team matches: a round-robin schedule, board IMPs, match VPs, the ranking.

**Schedule.** :func:`round_robin` pairs N teams by the circle method (team N,
or a phantom N+1 for odd N, stays put; the others turn round it), N-1 rounds
(N rounds for odd N, each team having one bye). Each match of a round has two
tables, numbered in match order: match m plays at tables 2m-1 and 2m.

**Pair numbers.** Team t's two pairs are numbers ``2t-1`` and ``2t``. Pair
``2t-1`` always sits North-South (at its team's *home* table of the match),
pair ``2t`` always sits East-West (at the other table). So in match m between
home team h and away team a::

    table 2m-1:  NS = 2h-1 (team h)   EW = 2a   (team a)
    table 2m  :  NS = 2a-1 (team a)   EW = 2h   (team h)

which is the teams-of-four seating of seed 002 ("the pairs of team A sit
North-South at table 1 and East-West at table 2"). Every match of round r
plays the same boards (set r), so the schedule is an ordinary
:class:`~dealer.events.movements.Movement` and the table pages, validation and
table cards work unchanged.

**Scoring** (:func:`score_matches`). On each board the two tables' NS scores
are netted for the team: its NS score at one table plus its EW score
(minus the NS score) at the other, converted to IMPs on the WBF scale (Law
78B; seed 002's worked match). A board not yet compared at both tables
scores nothing. A match's IMP margin is converted to victory points on the
WBF 2013 continuous scale for the *scheduled* match length (the WBF's
conditions of contest pick the scale by the number of boards in the match).
A bye scores ``bye_vp`` (12) VPs, or the team's average VP score in its
played matches if that is higher: the WBF/EBL General Conditions of Contest
reading, since the seeds are silent.

>>> s = round_robin(4, boards_per_round=2)
>>> len(s.rounds), [(m.home, m.away, m.tables) for m in s.rounds[0].matches]
(3, [(1, 4, (1, 2)), (2, 3, (3, 4))])
>>> mv = s.movement()
>>> (mv.tables, mv.rounds, mv.problems())
(4, 3, [])
>>> st = mv.at(table=2, round=1)
>>> (st.ns, st.ew, st.boards)
(7, 2, (1, 2))
>>> team_of(7), team_pairs(4)
(4, (7, 8))
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from dealer.events.model import Artificial, EventError, Result
from dealer.events.movements import Movement, Sitting
from dealer.events.vp import scale_named
from dealer.scoring.imps import imps

#: VPs for a bye: the WBF/EBL conditions of contest (or the team's average, if higher).
BYE_VP = 12.0
#: IMPs for average-plus / average-minus at one table (Law 12C2(b): "plus 3 IMPs").
ARTIFICIAL_IMPS = 3.0


def team_of(pair: int) -> int:
    """The team a pair number belongs to: pairs 2t-1 and 2t are team t.

    >>> [team_of(p) for p in (1, 2, 3, 4)]
    [1, 1, 2, 2]
    """
    if pair < 1:
        raise EventError(f"pair {pair} is not in any team (pairs are numbered from 1)")
    return (pair + 1) // 2


def team_pairs(team: int) -> tuple[int, int]:
    """(North-South pair, East-West pair) of a team."""
    return 2 * team - 1, 2 * team


# ------------------------------------------------------------------ schedule


@dataclass(frozen=True, slots=True)
class Match:
    """One match of a round: ``home`` sits NS at ``tables[0]``, ``away`` NS at ``tables[1]``."""

    round: int
    number: int
    home: int
    away: int
    tables: tuple[int, int]
    boards: tuple[int, ...]

    def sittings(self) -> list[Sitting]:
        h_ns, h_ew = team_pairs(self.home)
        a_ns, a_ew = team_pairs(self.away)
        return [Sitting(self.tables[0], self.round, h_ns, a_ew, self.round, self.boards),
                Sitting(self.tables[1], self.round, a_ns, h_ew, self.round, self.boards)]


@dataclass(frozen=True, slots=True)
class TeamRound:
    """A round: its matches and the team with the bye (None for an even field)."""

    number: int
    matches: tuple[Match, ...]
    bye: int | None = None


@dataclass(frozen=True)
class Schedule:
    """A teams round robin, round by round.

    >>> round_robin(5).rounds[0].bye, round_robin(5).tables
    (1, 4)
    """

    teams: int
    boards_per_round: int
    rounds: tuple[TeamRound, ...]
    section: str = "A"

    @property
    def tables(self) -> int:
        return 2 * (self.teams // 2)

    def matches(self) -> list[Match]:
        return [m for r in self.rounds for m in r.matches]

    def match_of(self, round: int, team: int) -> Match | None:
        """The match ``team`` plays in ``round`` (None: a bye)."""
        for m in self.rounds[round - 1].matches:
            if team in (m.home, m.away):
                return m
        return None

    def movement(self) -> Movement:
        """The schedule as a :class:`Movement`: one sitting a table a round."""
        sittings = [s for m in self.matches() for s in m.sittings()]
        notes = ["teams of four: team t is pairs 2t-1 (always NS) and 2t (always EW); "
                 "match m of a round plays at tables 2m-1 and 2m",
                 f"every match plays the same boards in a round: deal {self.teams // 2} "
                 "copies of each board; the two tables of a match swap them half-way"]
        if self.teams % 2:
            notes.append(f"one team has a bye each round and scores {BYE_VP:g} VPs "
                         "(or its average, if higher)")
        return Movement(f"{self.teams}-team round robin", self.tables, len(self.rounds),
                        self.boards_per_round, sittings, "unique", self.section, notes)


def round_robin(teams: int, *, boards_per_round: int = 2, rounds: int | None = None,
                section: str = "A") -> Schedule:
    """Every team meets every other once, by the circle method.

    ``rounds`` (default: all) plays only the first rounds of the round robin.
    Round r plays boards (r-1)*b+1 .. r*b for b boards a round.
    """
    if teams < 2:
        raise EventError(f"a teams match needs at least 2 teams, not {teams}")
    if boards_per_round < 1:
        raise EventError("boards per round must be at least 1")
    n = teams + teams % 2  # a phantom team n gives the bye for an odd field
    full = n - 1
    count = full if rounds is None else rounds
    if not 1 <= count <= full:
        raise EventError(f"a round robin of {teams} teams has 1 to {full} rounds, not {count}")
    out = []
    for r in range(count):
        # The circle: team n stays, teams 1..n-1 turn. Alternate who is at home
        # so that each team is home about half the time.
        pairs = [(n, r + 1) if r % 2 else (r + 1, n)]
        for j in range(1, n // 2):
            a, b = (r + j) % full + 1, (r - j) % full + 1
            pairs.append((a, b) if j % 2 else (b, a))
        bye = None
        matches: list[Match] = []
        boards = tuple(range(r * boards_per_round + 1, (r + 1) * boards_per_round + 1))
        for home, away in pairs:
            if n != teams and n in (home, away):
                bye = away if home == n else home
                continue
            k = len(matches) + 1
            matches.append(Match(r + 1, k, home, away, (2 * k - 1, 2 * k), boards))
        out.append(TeamRound(r + 1, tuple(matches), bye))
    return Schedule(teams, boards_per_round, tuple(out), section)


# ------------------------------------------------------------------ scoring


@dataclass(frozen=True, slots=True)
class BoardComparison:
    """One board of a match: IMPs for the home team (None: not compared), and why."""

    board: int
    home_imps: float | None
    home_ns_score: int | None  # NS score at the home team's NS table
    away_ns_score: int | None  # NS score at the away team's NS table
    note: str = ""


@dataclass(frozen=True)
class MatchResult:
    """A match's boards, IMP totals and victory points."""

    match: Match
    boards: tuple[BoardComparison, ...]
    home_imps: float
    away_imps: float
    home_vp: float
    away_vp: float

    @property
    def compared(self) -> int:
        return sum(1 for b in self.boards if b.home_imps is not None)

    @property
    def margin(self) -> float:
        return self.home_imps - self.away_imps


@dataclass(frozen=True, slots=True)
class TeamTotal:
    team: int
    vp: float
    imps_for: float
    imps_against: float
    matches: int
    byes: int

    @property
    def imp_difference(self) -> float:
        return self.imps_for - self.imps_against


@dataclass(frozen=True, slots=True)
class TeamPlace:
    place: str
    team: int
    total: TeamTotal


@dataclass
class TeamsEvent:
    """Every match scored, every team's total, the ranking, and notes for the director."""

    matches: list[MatchResult]
    totals: dict[int, TeamTotal]
    ranking: list[TeamPlace]
    notes: list[str] = field(default_factory=list)

    def board_imps(self) -> dict[tuple[int, int], float]:
        """{(board, pair): IMPs for the pair's team on that board} for every compared board."""
        out: dict[tuple[int, int], float] = {}
        for mr in self.matches:
            for b in mr.boards:
                if b.home_imps is None:
                    continue
                for pair in team_pairs(mr.match.home):
                    out[(b.board, pair)] = b.home_imps
                for pair in team_pairs(mr.match.away):
                    out[(b.board, pair)] = -b.home_imps
        return out


def _side_imps(r: Result, team: int) -> float:
    """Artificial IMPs (Law 12C2(b)) of ``team``'s side on an artificial line."""
    adj = r.ns_artificial if team_of(r.ns) == team else r.ew_artificial
    if isinstance(adj, Artificial):
        return {Artificial.AVE_PLUS: ARTIFICIAL_IMPS, Artificial.AVE: 0.0,
                Artificial.AVE_MINUS: -ARTIFICIAL_IMPS}[adj]
    return (float(adj) - 50.0) / 10.0 * ARTIFICIAL_IMPS  # type: ignore[arg-type]


def compare_board(board: int, home: int, away: int, lines: list[Result]) -> BoardComparison:
    """IMPs for ``home`` from the lines of one board between the two teams.

    >>> a = Result(1, 1, 4, 420)   # team 1 NS at its home table
    >>> b = Result(1, 3, 2, 450)   # team 2 NS at the other table
    >>> compare_board(1, 1, 2, [a, b]).home_imps   # 420 - 450 = -30: -1 IMP
    -1
    """
    where = f"board {board}, team {home} v team {away}"
    ns_home = [r for r in lines if r.ns and team_of(r.ns) == home]
    ns_away = [r for r in lines if r.ns and team_of(r.ns) == away]
    h = ns_home[0] if len(ns_home) == 1 else None
    a = ns_away[0] if len(ns_away) == 1 else None
    h_score = None if h is None else h.score
    a_score = None if a is None else a.score
    if len(ns_home) > 1 or len(ns_away) > 1:
        return BoardComparison(board, None, h_score, a_score,
                               f"{where}: one team sat North-South at both tables")
    arts = [r for r in (h, a) if r is not None and r.kind == "artificial"]
    if arts:
        # Law 12C2(b): an artificial score at a table stands for the board; the
        # other table's score is not compared with it.
        return BoardComparison(board, sum(_side_imps(r, home) for r in arts), h_score, a_score,
                               f"{where}: artificial score")
    if h is not None and a is not None and h.parts and a.parts and (
            h.kind == "weighted" or a.kind == "weighted"):
        # Law 12C1(c): each part of a weighted score is compared with the other
        # table, counting its share (both tables' shares when both are weighted).
        return BoardComparison(board, sum(wh * wa * imps(x - y) for wh, x in h.parts
                                          for wa, y in a.parts), h_score, a_score,
                               f"{where}: weighted score")
    if h is None or a is None or h.score is None or a.score is None:
        missing = [t for t, r in ((home, h), (away, a)) if r is None or r.score is None]
        what = "not played" if any(r is not None and r.not_played for r in (h, a)) \
            else "not yet entered"
        at = "either table" if len(missing) == 2 else \
            f"the table where team {missing[0]} sits North-South"
        return BoardComparison(board, None, h_score, a_score, f"{where}: {what} at {at}")
    return BoardComparison(board, imps(h.score - a.score), h.score, a.score)


def score_matches(schedule: Schedule, results: Iterable[Result], *, scale: str = "wbf",
                  bye_vp: float = BYE_VP) -> TeamsEvent:
    """Score every match of ``schedule`` that has at least one compared board.

    Results are matched to a match by the teams of their pair numbers, so a
    line the director swapped (NS and EW the wrong way round) still counts.
    Lines of pairs outside the schedule's teams, or of two teams that do not
    meet in that board's round, are reported in ``notes`` and left out.
    """
    vp = scale_named(scale)
    per_board: dict[tuple[int, frozenset[int]], list[Result]] = defaultdict(list)
    notes: list[str] = []
    known = {(b, frozenset((m.home, m.away))) for m in schedule.matches() for b in m.boards}
    for r in results:
        if not r.ns or not r.ew or max(r.ns, r.ew) > 2 * schedule.teams:
            notes.append(f"board {r.board}: pairs {r.ns}-{r.ew} are not two teams' pairs "
                         f"(pairs 1-{2 * schedule.teams}); left out")
            continue
        key = (r.board, frozenset((team_of(r.ns), team_of(r.ew))))
        if key not in known:
            notes.append(f"board {r.board}: teams {team_of(r.ns)} and {team_of(r.ew)} do not "
                         "meet on this board; left out")
            continue
        per_board[key].append(r)
    played: list[MatchResult] = []
    for m in schedule.matches():
        comps = tuple(compare_board(b, m.home, m.away,
                                    per_board.get((b, frozenset((m.home, m.away))), []))
                      for b in m.boards)
        begun = any(per_board.get((b, frozenset((m.home, m.away)))) for b in m.boards)
        if begun:  # a match nobody has started yet needs no notes
            notes.extend(c.note for c in comps if c.note and c.home_imps is None)
        if not any(c.home_imps is not None for c in comps):
            continue
        gains = [c.home_imps for c in comps if c.home_imps is not None]
        h_imps = sum(g for g in gains if g > 0)
        a_imps = -sum(g for g in gains if g < 0)
        margin = h_imps - a_imps
        hv, av = vp.convert(round(margin), len(m.boards))
        played.append(MatchResult(m, comps, h_imps, a_imps, float(hv), float(av)))
    totals = _totals(schedule, played, bye_vp)
    return TeamsEvent(played, totals, rank_teams(totals), notes)


def _totals(schedule: Schedule, played: list[MatchResult], bye_vp: float) -> dict[int, TeamTotal]:
    vp: dict[int, list[float]] = defaultdict(list)
    imp_for: dict[int, float] = defaultdict(float)
    imp_against: dict[int, float] = defaultdict(float)
    started = set()
    for mr in played:
        m = mr.match
        started.add(m.round)
        vp[m.home].append(mr.home_vp)
        vp[m.away].append(mr.away_vp)
        imp_for[m.home] += mr.home_imps
        imp_against[m.home] += mr.away_imps
        imp_for[m.away] += mr.away_imps
        imp_against[m.away] += mr.home_imps
    byes: dict[int, int] = defaultdict(int)
    for rd in schedule.rounds:
        if rd.bye is not None and rd.number in started:
            byes[rd.bye] += 1
    out = {}
    for t in range(1, schedule.teams + 1):
        own = vp[t]
        # The bye: 12 VPs or the team's average in its played matches, if higher.
        bye_each = max(bye_vp, sum(own) / len(own)) if own else bye_vp
        out[t] = TeamTotal(t, round(sum(own) + byes[t] * bye_each, 2), imp_for[t],
                           imp_against[t], len(own), byes[t])
    return out


def rank_teams(totals: dict[int, TeamTotal]) -> list[TeamPlace]:
    """Teams by VPs; equal VPs are split by the IMP difference, then share the place.

    >>> t = {1: TeamTotal(1, 30.5, 40, 20, 2, 0), 2: TeamTotal(2, 30.5, 30, 20, 2, 0),
    ...      3: TeamTotal(3, 9.0, 10, 40, 2, 0), 4: TeamTotal(4, 9.0, 10, 40, 2, 0)}
    >>> [(p.place, p.team) for p in rank_teams(t)]
    [('1', 1), ('2', 2), ('3=', 3), ('3=', 4)]
    """
    def key(t: TeamTotal) -> tuple[float, float]:
        return (round(t.vp, 2), round(t.imp_difference, 2))

    ordered = sorted(totals.values(), key=lambda t: (-key(t)[0], -key(t)[1], t.team))
    out: list[TeamPlace] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and key(ordered[j + 1]) == key(ordered[i]):
            j += 1
        place = str(i + 1) + ("=" if j > i else "")
        out.extend(TeamPlace(place, t.team, t) for t in ordered[i:j + 1])
        i = j + 1
    return out
