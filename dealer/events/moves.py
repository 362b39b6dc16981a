"""The move at the end of a round, as a table's phone says it: where the pairs that
sat at a table go next, and where its boards go.

Read from the movement itself (:class:`~dealer.events.movements.Movement`), so
it holds for every movement the core builds or reads: a Mitchell (NS stay, EW
up a table, boards down), with a skip, with a relay-and-bye stand, with an
arrow switch (the boards are turned: the pairs keep their seats and numbers), a Howell, a
half table (a pair with no opponents sits out), and an ``.ASC`` file.

>>> from dealer.events.movements import mitchell, howell
>>> m = mitchell(5, boards_per_round=2)
>>> after_round(m, table=1, round_no=1).text
'NS stay; EW move to table 2; boards go to table 5'
>>> after_round(mitchell(4, method="skip"), table=2, round_no=2).text
'NS stay; EW move to table 4 (the skip); boards go to table 1'
>>> after_round(mitchell(5, arrow_switch=[5]), table=3, round_no=4).text
'NS stay; EW move to table 4; boards go to table 2; next round is an arrow switch: turn the boards, North-South play the East-West cards'
>>> relay = mitchell(4, method="relay")
>>> after_round(relay, table=3, round_no=1).text
'NS stay; EW move to table 4; boards go to the relay stand (nobody plays them next round)'
>>> after_round(relay, table=2, round_no=1).text
'NS stay; EW move to table 3; boards go to tables 1 and 4 (shared between them)'
>>> after_round(howell(3), table=1, round_no=1).text
'NS (pair 6) stay; EW (pair 1) move to table 2; boards are done here: put them aside'
>>> after_round(m, table=1, round_no=5).text  # the last round
'That was the last round: the session is over at this table'
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.events.model import EventError
from dealer.events.movements import Movement, Sitting


@dataclass(frozen=True)
class Move:
    """Where one pair goes: ``table`` (0: it has no game), ``seat`` ``"NS"``/``"EW"``."""

    pair: int
    line: str          # the pair's line in a by-line Mitchell ("NS"/"EW"), else ""
    was: str           # the seat it leaves: "NS" or "EW"
    table: int
    seat: str
    sits_out: bool = False   # it has a table but no opponents there (a half table)


@dataclass(frozen=True)
class Moves:
    """The instruction after ``round_no`` at ``table``: its pairs, its boards, in words."""

    table: int
    round_no: int
    last: bool
    pairs: tuple[Move, ...]
    boards: tuple[int, ...]
    boards_to: tuple[int, ...]   # the tables that play them next round (empty: none)
    boards_later: bool           # played again in a later round (a relay or bye stand)
    skip: bool = False
    arrow: str = ""              # "on": the next round is an arrow switch; "off": it ends
    text: str = ""


def _line(m: Movement, s: Sitting, seat: str) -> str:
    return seat if m.numbering == "by_line" else ""


def _seated(s: Sitting) -> tuple[tuple[str, int], tuple[str, int]]:
    """(seat, pair) for the pairs at the table as they sit. In an arrow-switch round
    the movement lists the NS line's pair as EW (it plays the EW cards), but the
    pairs do not move: the boards are turned. The seats here are the chairs."""
    return (("NS", s.ew), ("EW", s.ns)) if s.switched else (("NS", s.ns), ("EW", s.ew))


def _find(m: Movement, round_no: int, pair: int, line: str) -> tuple[Sitting, str] | None:
    """The pair's sitting in ``round_no`` and the seat it takes there."""
    for s in m.round(round_no):
        for seat, num in _seated(s):
            if num == pair and _line(m, s, seat) == line:
                return s, seat
    return None


def after_round(m: Movement, table: int, round_no: int) -> Moves:
    """The move after ``round_no`` for the pairs and boards of ``table``.

    Raises :class:`EventError` for a table or round the movement does not have.
    """
    here = m.at(table, round_no)
    if round_no >= m.rounds:
        return Moves(table, round_no, True, (), here.boards, (), False,
                     text="That was the last round: the session is over at this table")
    nxt = round_no + 1
    pairs = []
    for seat, num in _seated(here):
        if not num:
            continue
        line = _line(m, here, seat)
        found = _find(m, nxt, num, line)
        if found is None:
            pairs.append(Move(num, line, seat, 0, "", True))
            continue
        s, new_seat = found
        pairs.append(Move(num, line, seat, s.table, new_seat, not (s.ns and s.ew)))
    boards_to: tuple[int, ...] = ()
    later = False
    if here.board_set:
        boards_to = tuple(s.table for s in m.round(nxt) if s.board_set == here.board_set)
        later = any(s.board_set == here.board_set for r in range(nxt + 1, m.rounds + 1)
                    for s in m.round(r))
    skip = _skipped(m, round_no)
    now, then = here.switched, any(s.switched for s in m.round(nxt))
    arrow = "on" if then and not now else "off" if now and not then else ""
    mv = Moves(table, round_no, False, tuple(pairs), here.boards, boards_to, later, skip, arrow)
    return Moves(**{**mv.__dict__, "text": _words(m, mv)})


def _skipped(m: Movement, round_no: int) -> bool:
    """Whether the EW pairs jump a table now (a skip Mitchell, after half the rounds)."""
    return "skip Mitchell" in m.name and round_no == m.tables // 2


def _who(m: Movement, mv: Move) -> str:
    # In a Mitchell "NS" and "EW" say who is meant; in a Howell the pairs change
    # direction from round to round, so the pair's number is said too.
    return mv.was if "Mitchell" in m.name else f"{mv.was} (pair {mv.pair})"


def _words(m: Movement, mv: Moves) -> str:
    parts = []
    for p in mv.pairs:
        who = _who(m, p)
        if p.table == 0:
            parts.append(f"{who} sit out next round")
            continue
        where = "stay" if p.table == mv.table else f"move to table {p.table}"
        if p.table != mv.table and p.was == "EW" and mv.skip and p.seat == "EW":
            where += " (the skip)"
        if p.seat != p.was:
            where += ", and sit " + ("North-South" if p.seat == "NS" else "East-West")
        if p.sits_out:
            where += " (no opponents there: a sit-out round)"
        parts.append(f"{who} {where}")
    if not mv.boards:
        pass  # an empty table (a sit-out round) has no boards to pass on
    elif len(mv.boards_to) == 1:
        to = mv.boards_to[0]
        parts.append("boards stay here" if to == mv.table else f"boards go to table {to}")
    elif mv.boards_to:
        *first, end = map(str, mv.boards_to)
        parts.append(f"boards go to tables {', '.join(first)} and {end} (shared between them)")
    elif mv.boards_later:
        parts.append("boards go to the relay stand (nobody plays them next round)")
    else:
        parts.append("boards are done here: put them aside")
    if mv.arrow == "on":
        parts.append("next round is an arrow switch: turn the boards, North-South play the "
                     "East-West cards")
    elif mv.arrow == "off":
        parts.append("the arrow switch is over: play the boards the right way round again")
    return "; ".join(parts)


__all__ = ["EventError", "Move", "Moves", "after_round"]
