"""Movements: who plays which boards against whom, round by round.

The model is (section, table, round) -> (NS pair, EW pair, boards), one
:class:`Sitting` each. Generators build the common movements:

- :func:`mitchell`: NS stay, EW move up a table, boards move down. With an
  even number of tables the EW pairs skip a table after half the rounds
  (``method="skip"``) or one set sits on a relay (bye) stand while tables 1
  and n share a set (``method="relay"``). ``arrow_switch`` rounds turn the
  boards so the NS pairs play the EW cards; EW pair numbers are then offset
  by the number of tables (``ew_offset``) so that there is one winner.
- :func:`howell`: every pair meets every other pair once (2k pairs, 2k-1
  rounds); pair 2k stays NS at table 1.

>>> m = mitchell(5, boards_per_round=2)
>>> m.rounds, m.boards, m.winners
(5, 10, 2)
>>> s = m.at(table=2, round=3)
>>> (s.ns, s.ew, s.boards)
(2, 5, (7, 8))
>>> m.problems()
[]
>>> h = howell(4)
>>> h.rounds, len(h.pairs()), h.winners, h.problems()
(7, 8, 1, [])
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from dealer.events.model import EventError


@dataclass(frozen=True, slots=True)
class Sitting:
    """One table in one round. ``ns``/``ew`` are the pairs in those seats (0 = nobody).

    ``board_set`` numbers the set from 1 (0: the table is empty); ``boards``
    are its board numbers. ``switched`` marks an arrow-switch round, where
    the pair with the line's EW number sits North-South.
    """

    table: int
    round: int
    ns: int
    ew: int
    board_set: int
    boards: tuple[int, ...]
    switched: bool = False


@dataclass(slots=True)
class Movement:
    """A movement for one section.

    ``numbering`` is ``"unique"`` (pair numbers are unique: Howell, or a
    Mitchell with EW numbers offset) or ``"by_line"`` (NS pairs 1..n and EW
    pairs 1..n, a two-winner Mitchell).
    """

    name: str
    tables: int
    rounds: int
    boards_per_round: int
    sittings: list[Sitting]
    numbering: str = "unique"
    section: str = "A"
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Every constructor (the generators, .ASC files, a caller's own) comes through here:
        # an empty board set would only fail later, as an IndexError at a table card.
        _at_least(1, boards_per_round=self.boards_per_round, tables=self.tables,
                  rounds=self.rounds)

    # -- lookups -------------------------------------------------------------
    def at(self, table: int, round: int) -> Sitting:
        for s in self.sittings:
            if s.table == table and s.round == round:
                return s
        raise EventError(f"section {self.section} has no table {table} in round {round} "
                         f"({self.tables} tables, {self.rounds} rounds)")

    def round(self, number: int) -> list[Sitting]:
        return sorted((s for s in self.sittings if s.round == number), key=lambda s: s.table)

    @property
    def boards(self) -> int:
        return max((max(s.boards) for s in self.sittings if s.boards), default=0)

    @property
    def sets(self) -> int:
        return max((s.board_set for s in self.sittings), default=0)

    def pairs(self) -> list[tuple[str, int]]:
        """Every pair as (line, number); line is ``""`` for unique numbering."""
        seen: set[tuple[str, int]] = set()
        for s in self.sittings:
            for line, num in (("NS", s.ns), ("EW", s.ew)):
                if num:
                    seen.add((self._line(s, line), num))
        return sorted(seen)

    def _line(self, s: Sitting, seat_line: str) -> str:
        if self.numbering == "unique":
            return ""
        # by_line: an arrow switch cannot happen (numbers would collide), so seats = line.
        return seat_line

    def card(self, number: int, line: str = "") -> list[Sitting]:
        """A pair's table card: where it sits each round."""
        out = []
        for s in sorted(self.sittings, key=lambda s: s.round):
            if (s.ns == number and self._line(s, "NS") == line) or (
                    s.ew == number and self._line(s, "EW") == line):
                out.append(s)
        return out

    @property
    def winners(self) -> int:
        """2 when no pair ever plays both directions (a plain Mitchell), else 1."""
        if self.numbering == "by_line":
            return 2
        ns = {s.ns for s in self.sittings if s.ns}
        ew = {s.ew for s in self.sittings if s.ew}
        return 1 if ns & ew else 2

    # -- checks ----------------------------------------------------------------
    def problems(self) -> list[str]:
        """Everything wrong with the movement, one sentence each (empty when sound)."""
        out: list[str] = []
        seen_slot: set[tuple[int, int]] = set()
        per_round_pairs: dict[int, dict[tuple[str, int], int]] = defaultdict(dict)
        played: dict[tuple[str, int], dict[int, int]] = defaultdict(dict)
        met: dict[frozenset, int] = {}
        set_boards: dict[int, tuple[int, ...]] = {}
        for s in sorted(self.sittings, key=lambda s: (s.round, s.table)):
            where = f"round {s.round}, table {s.table}"
            if (s.table, s.round) in seen_slot:
                out.append(f"{where} is listed twice")
            seen_slot.add((s.table, s.round))
            if not 1 <= s.table <= self.tables or not 1 <= s.round <= self.rounds:
                out.append(f"{where} is outside {self.tables} tables and {self.rounds} rounds")
            if s.ns == 0 and s.ew == 0:
                continue
            if s.board_set == 0 or not s.boards:
                out.append(f"{where}: pairs {s.ns} and {s.ew} have no boards set")
            if s.board_set in set_boards and set_boards[s.board_set] != s.boards:
                out.append(f"{where}: board set {s.board_set} is {s.boards} here but "
                           f"{set_boards[s.board_set]} elsewhere")
            set_boards.setdefault(s.board_set, s.boards)
            keys = [(self._line(s, "NS"), s.ns), (self._line(s, "EW"), s.ew)]
            if s.ns and s.ns == s.ew and keys[0] == keys[1]:
                out.append(f"{where}: pair {s.ns} is listed against itself")
            for key in keys:
                if not key[1]:
                    continue
                label = _label(key)
                if key in per_round_pairs[s.round]:
                    out.append(f"round {s.round}: pair {label} sits at tables "
                               f"{per_round_pairs[s.round][key]} and {s.table}")
                per_round_pairs[s.round][key] = s.table
                for b in s.boards:
                    if b in played[key]:
                        out.append(f"pair {label} plays board {b} twice (rounds "
                                   f"{played[key][b]} and {s.round})")
                    played[key][b] = s.round
            if s.ns and s.ew:
                pair = frozenset(keys)
                if pair in met:
                    out.append(f"pairs {_label(keys[0])} and {_label(keys[1])} meet twice "
                               f"(rounds {met[pair]} and {s.round})")
                met[pair] = s.round
        return out

    def validate(self) -> Movement:
        """Raise :class:`EventError` listing every problem; return self when sound."""
        probs = self.problems()
        if probs:
            raise EventError(f"movement {self.name!r} is unsound: " + "; ".join(probs))
        return self


def _said(name: str) -> str:
    return name.replace("_", " ").replace("ew ", "EW ")


def _whole(**values: object) -> None:
    """Refuse a value that is not a whole number (a bool, a float, a text) with its name."""
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise EventError(f"{_said(name)} must be a whole number, not {v!r}")


def _at_least(low: int, **values: object) -> None:
    """Refuse a count below ``low`` (or not a whole number) with its name, in one line."""
    for name, v in values.items():
        _whole(**{name: v})
        if v < low:  # type: ignore[operator]
            raise EventError(f"{_said(name)} must be at least {low}, not {v}")


def _label(key: tuple[str, int]) -> str:
    return f"{key[1]}{' ' + key[0] if key[0] else ''}"


def _boards(board_set: int, per_round: int, first: int) -> tuple[int, ...]:
    start = first + (board_set - 1) * per_round
    return tuple(range(start, start + per_round))


# --------------------------------------------------------------------- Mitchell


def mitchell(
    tables: int,
    *,
    rounds: int | None = None,
    boards_per_round: int = 2,
    method: str = "auto",
    arrow_switch: Iterable[int] = (),
    ew_offset: int | None = None,
    section: str = "A",
    first_board: int = 1,
    missing: tuple[str, int] | None = None,
) -> Movement:
    """A Mitchell movement for ``tables`` tables.

    ``method``: ``"plain"`` (odd tables), ``"skip"`` (even tables: EW skip a
    table after round n/2, n-1 rounds) or ``"relay"`` (even tables: a relay
    stand between tables n/2 and n/2+1, tables 1 and n share a set, n
    rounds). ``"auto"`` picks plain for odd and relay for even tables.
    ``ew_offset``: added to EW pair numbers; defaults to ``tables`` when an
    arrow switch needs unique numbers, else 0 (NS and EW both numbered 1..n).
    ``missing``: a line and pair number (``("EW", 7)``) that does not exist,
    for an odd number of pairs; its opponents sit out each round (pair 0).
    """
    n = tables
    _whole(tables=tables)
    _at_least(1, boards_per_round=boards_per_round, first_board=first_board)
    if rounds is not None:
        _whole(rounds=rounds)
    if n < 2:
        raise EventError(f"a Mitchell needs at least 2 tables, not {n}")
    if method == "auto":
        method = "plain" if n % 2 else "relay"
    if method not in ("plain", "skip", "relay"):
        raise EventError(f"unknown Mitchell method {method!r} (use plain, skip or relay)")
    if method in ("skip", "relay") and n % 2:
        raise EventError(f"a {method} Mitchell needs an even number of tables, not {n}")
    max_rounds = n - 1 if method == "skip" else n
    r_count = max_rounds if rounds is None else rounds
    if not 1 <= r_count <= max_rounds:
        raise EventError(f"a {method} Mitchell of {n} tables plays 1 to {max_rounds} rounds, "
                         f"not {r_count}")
    switch = set(arrow_switch)
    for r in switch:
        _whole(arrow_switch_round=r)
    bad = sorted(r for r in switch if not 1 <= r <= r_count)
    if bad:
        raise EventError(f"arrow-switch round(s) {bad} are not among rounds 1-{r_count}")
    offset = (n if switch else 0) if ew_offset is None else ew_offset
    if ew_offset is not None:
        _at_least(0, ew_offset=ew_offset)
    if missing is not None and (not isinstance(missing, tuple | list) or len(missing) != 2
                                or missing[0] not in ("NS", "EW")):
        raise EventError(f"missing pair {missing!r}: give a line and a number, as ('EW', 7)")
    if missing is not None:
        _whole(missing_pair=missing[1])
    if missing is not None and (missing[0] not in ("NS", "EW") or not (
            1 <= missing[1] - (offset if missing[0] == "EW" else 0) <= n)):
        raise EventError(f"missing pair {missing[0]} {missing[1]} is not in this Mitchell")
    if switch and offset < n:
        raise EventError(f"an arrow switch needs EW numbers offset by at least {n} "
                         f"(got {offset}) so NS and EW pair numbers differ")
    if 0 < offset < n:
        raise EventError(f"an EW offset of {offset} makes EW pairs {offset + 1}-{n} collide "
                         f"with NS pairs of the same numbers: use 0 (NS and EW each numbered "
                         f"1-{n}) or at least {n}")
    sittings = []
    for r in range(1, r_count + 1):
        for t in range(1, n + 1):
            move = r - 1 if not (method == "skip" and r > n // 2) else r
            e = (t - 1 - move) % n + 1
            if method == "relay":
                pos = 0 if t in (1, n) else (t - 1 if t <= n // 2 else t)
                bset = (pos + r - 1) % n + 1
            else:
                bset = (t - 1 + r - 1) % n + 1
            ns, ew = t, e + offset
            if missing is not None:
                line, num = missing
                if line == "NS" and ns == num:
                    ns = 0
                elif line == "EW" and e + offset == num:
                    ew = 0
            if r in switch:
                ns, ew = ew, ns
            sittings.append(Sitting(t, r, ns, ew, bset,
                                    _boards(bset, boards_per_round, first_board), r in switch))
    name = f"{n}-table {method} Mitchell" + (f", arrow switch {sorted(switch)}" if switch else "")
    notes = [] if missing is None else [f"{missing[0]} pair {missing[1]} is missing: its "
                                        "opponents sit out"]
    if method == "relay":
        notes.append(f"tables 1 and {n} share boards; one set rests on a relay stand between "
                     f"tables {n // 2} and {n // 2 + 1}")
    if method == "skip":
        notes.append(f"EW pairs skip a table before round {n // 2 + 1}")
    return Movement(name, n, r_count, boards_per_round, sittings,
                    numbering="unique" if offset else "by_line", section=section, notes=notes)


# ----------------------------------------------------------------------- Howell


#: Steps of the adder search before it gives up: 25 tables (the largest it solves) take
#: 4.3 million; each million is about a second.
SEARCH_STEPS = 5_000_000


@lru_cache(maxsize=64)
def _cyclic_adders(n: int) -> tuple[int, ...] | None:
    """Adders for a cyclic Room square of side n (patterned starter), or None.

    Round r has matches {inf, r} and {r+j, r-j} (j = 1..k-1, the circle
    method); match j plays set r + a_j. Sets in a round differ when the a_j
    do, and each pair meets each set once when the symbols -a_0 and
    +-j - a_j are all different mod n. Found for n = 7 and every odd n from 11 to 49
    (25 tables). The search is bounded (:data:`SEARCH_STEPS`): beyond it, as for
    bigger Howells, which no club plays, None, and the boards are copied instead of
    a 30-table Howell keeping a panel busy for minutes.
    """
    k = (n + 1) // 2
    adders: list[int] = []
    used_a: set[int] = set()
    used_s: set[int] = set()
    steps = 0

    def dfs(j: int) -> bool:
        nonlocal steps
        if j == k:
            return True
        for a in range(n):
            steps += 1
            if steps > SEARCH_STEPS:
                return False
            syms = [(-a) % n] if j == 0 else [(j - a) % n, (-j - a) % n]
            if a in used_a or any(s in used_s for s in syms) or len(set(syms)) < len(syms):
                continue
            adders.append(a)
            used_a.add(a)
            used_s.update(syms)
            if dfs(j + 1):
                return True
            adders.pop()
            used_a.discard(a)
            used_s.difference_update(syms)
        return False

    return tuple(adders) if dfs(0) else None


def howell(tables: int, *, boards_per_round: int = 2, section: str = "A",
           first_board: int = 1, missing: int | None = None) -> Movement:
    """A complete Howell for ``2 * tables`` pairs: 2k-1 rounds, everyone meets everyone.

    Each pair plays every board set once. With 4 tables and 6 or more, each
    set is at one table per round (a cyclic Room square, found by a small
    search). With 2, 3 and 5 tables every table plays the same set in a
    round, so each set needs one copy per table (for 2 and 3 tables no
    Room square exists; for 5 no cyclic one).
    """
    k = tables
    _whole(tables=tables)
    _at_least(1, boards_per_round=boards_per_round, first_board=first_board)
    if k < 2:
        raise EventError(f"a Howell needs at least 2 tables, not {k}")
    n = 2 * k - 1
    stationary = 2 * k
    if missing is not None:
        _whole(missing_pair=missing)
    if missing is not None and not 1 <= missing <= stationary:
        raise EventError(f"missing pair {missing} is not among pairs 1-{stationary}")
    matches: list[list[tuple[int, int]]] = []
    for r in range(n):
        rm = [(stationary, r + 1)]
        for j in range(1, k):
            a, b = (r + j) % n + 1, (r - j) % n + 1
            rm.append((a, b) if j % 2 else (b, a))  # alternate seats for balance
        matches.append(rm)
    adders = _cyclic_adders(n)
    if adders is not None:
        sets = [[(r + adders[j]) % n + 1 for j in range(k)] for r in range(n)]
    else:
        # No cyclic Room square (2, 3, 5 tables; none exists at all for 2 and 3; above
        # 25 tables the bounded search gives up):
        # every table plays the same set in a round, from copies of the boards,
        # which a dealing machine makes as easily as one.
        sets = [[r + 1] * k for r in range(n)]
    def present(p: int) -> int:
        return 0 if p == missing else p

    sittings = [
        Sitting(j + 1, r + 1, present(a), present(b), sets[r][j],
                _boards(sets[r][j], boards_per_round, first_board))
        for r in range(n) for j, (a, b) in enumerate(matches[r])
    ]
    shared = any(len(set(row)) < k for row in sets)
    notes = [f"every table plays the same set each round: deal {k} copies of each board"
             ] if shared else []
    if missing is not None:
        notes.append(f"pair {missing} is missing: its opponents sit out")
    return Movement(f"{k}-table Howell", k, n, boards_per_round, sittings, "unique", section,
                    notes)


def with_section(movement: Movement, section: str) -> Movement:
    """The same movement for another section letter."""
    return replace(movement, section=section, sittings=list(movement.sittings))
