"""A director's checks on recorded results: every doubt is flagged with its reason.

:func:`check_results` never changes or drops a result; it returns a
:class:`Flag` for each line that needs a look. :func:`accept` refuses a
batch with flags, naming every one, so nothing doubtful is ever silently
scored.

>>> from dealer.events.movements import mitchell
>>> m = mitchell(3)
>>> flags = check_results([Result(5, 1, 1, 100, table=1, round=1)], m)
>>> [f.code for f in flags]
['wrong-board']
>>> print(flags[0])
board 5, table 1, round 1, pairs 1-1: the movement has boards 1-2 at table 1 in round 1, not board 5
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dealer.errors import BoardwrightError
from dealer.events.model import EventError, Result
from dealer.events.movements import Movement
from dealer.scoring.duplicate import score_ns
from dealer.seats import Seat, Vulnerability, board_vulnerability


@dataclass(frozen=True, slots=True)
class Flag:
    """One doubt about one line: ``index`` is its position in the input, ``code`` its kind.

    Codes: ``no-such-table``, ``wrong-board``, ``wrong-pairs``, ``wrong-way``,
    ``never-meet``, ``played-twice``, ``tricks``, ``declarer``,
    ``score-mismatch``.
    """

    code: str
    reason: str
    index: int
    result: Result

    def __str__(self) -> str:
        r = self.result
        where = [f"board {r.board}"]
        if r.table is not None:
            where.append(f"table {r.table}")
        if r.round is not None:
            where.append(f"round {r.round}")
        where.append(f"pairs {r.ns}-{r.ew}")
        return f"{', '.join(where)}: {self.reason}"


def _span(boards: Sequence[int]) -> str:
    return f"{boards[0]}-{boards[-1]}" if len(boards) > 1 else str(boards[0])


def _movement_flags(i: int, r: Result, m: Movement) -> list[Flag]:
    if r.table is not None and r.round is not None:
        try:
            s = m.at(r.table, r.round)
        except EventError:
            return [Flag("no-such-table", f"the movement has no table {r.table} in round "
                         f"{r.round}", i, r)]
        out = []
        if r.board not in s.boards:
            out.append(Flag("wrong-board", f"the movement has boards {_span(s.boards)} at table "
                            f"{s.table} in round {s.round}, not board {r.board}", i, r))
        if (r.ns, r.ew) == (s.ns, s.ew):
            pass
        elif (r.ns, r.ew) == (s.ew, s.ns):
            out.append(Flag("wrong-way", f"the pairs sat the wrong way: the movement puts pair "
                            f"{s.ns} North-South and pair {s.ew} East-West", i, r))
        else:
            out.append(Flag("wrong-pairs", f"the movement has pairs {s.ns}-{s.ew} at table "
                            f"{s.table} in round {s.round}", i, r))
        return out
    # No table and round written: find where these pairs were due to meet.
    if m.numbering == "by_line":  # NS 1 v EW 3 is not NS 3 v EW 1
        meetings = [s for s in m.sittings if (s.ns, s.ew) == (r.ns, r.ew)]
    else:
        meetings = [s for s in m.sittings if {s.ns, s.ew} == {r.ns, r.ew}]
    if not meetings:
        return [Flag("never-meet", f"pairs {r.ns} and {r.ew} never meet in this movement",
                     i, r)]
    s = meetings[0]
    if r.board not in s.boards:
        return [Flag("wrong-board", f"pairs {r.ns} and {r.ew} meet at table {s.table} in "
                     f"round {s.round} on boards {_span(s.boards)}, not board {r.board}", i, r)]
    if (r.ns, r.ew) != (s.ns, s.ew):
        return [Flag("wrong-way", f"the pairs sat the wrong way: the movement puts pair {s.ns} "
                     f"North-South and pair {s.ew} East-West", i, r)]
    return []


def _line_flags(i: int, r: Result, vulnerability: Callable[[int], Vulnerability]) -> list[Flag]:
    out = []
    if r.tricks is not None and not 0 <= r.tricks <= 13:
        out.append(Flag("tricks", f"{r.tricks} tricks is impossible (a deal has 13)", i, r))
    c = r.contract
    if c is not None and not c.is_passed_out:
        if c.declarer is None:
            out.append(Flag("declarer", f"contract {c.ascii} has no declarer", i, r))
        elif r.declarer_pair is not None:
            want = r.ns if c.declarer.is_ns else r.ew
            side = "North-South" if c.declarer.is_ns else "East-West"
            if r.declarer_pair not in (r.ns, r.ew):
                out.append(Flag("declarer", f"declaring pair {r.declarer_pair} is not at this "
                                f"table (pairs {r.ns} and {r.ew})", i, r))
            elif r.declarer_pair != want:
                out.append(Flag("declarer", f"declarer {c.declarer.letter} is {side}, pair "
                                f"{want}, but pair {r.declarer_pair} is written as declaring",
                                i, r))
    if c is not None and c.is_passed_out and r.tricks not in (None, 0):
        out.append(Flag("tricks", f"a passed-out board has no tricks, not {r.tricks}", i, r))
    if (c is not None and r.tricks is not None and r.score is not None and 0 <= r.tricks <= 13
            and (c.is_passed_out or c.declarer is not None)):
        try:
            expected = score_ns(c, r.tricks, vulnerability(r.board))
        except BoardwrightError as exc:  # pragma: no cover - contract already checked
            out.append(Flag("score-mismatch", str(exc), i, r))
        else:
            if expected != r.score:
                decl = "" if c.declarer is None else f" by {Seat(c.declarer).letter}"
                out.append(Flag("score-mismatch", f"{c.ascii}{decl} taking {r.tricks} tricks "
                                f"scores {expected:+d} for North-South, not {r.score:+d}", i, r))
    return out


def check_results(
    results: Iterable[Result],
    movement: Movement | None = None,
    *,
    vulnerability: Callable[[int], Vulnerability] = board_vulnerability,
) -> list[Flag]:
    """Every doubt about ``results``, in input order.

    With a movement: a result at a table and round the movement does not
    have, for a board that table did not play then, or with other pairs.
    Always: a pair with two results on one board, an impossible number of
    tricks, a declarer from the wrong pair, and a score that does not follow
    from the contract and tricks (Law 77; board vulnerability by number
    unless ``vulnerability`` says otherwise).
    """
    lines = list(results)
    flags: list[Flag] = []
    seen: dict[tuple[str, int, int], list[int]] = defaultdict(list)
    for i, r in enumerate(lines):
        if movement is not None and r.section == movement.section:
            flags.extend(_movement_flags(i, r, movement))
        flags.extend(_line_flags(i, r, vulnerability))
        numbering_line = movement.numbering if movement is not None else "unique"
        for num, line in ((r.ns, "NS"), (r.ew, "EW")):
            key = (f"{r.section}{line if numbering_line == 'by_line' else ''}", num, r.board)
            seen[key].append(i)
    for (_, num, board), idx in seen.items():
        for later in idx[1:]:
            first = lines[idx[0]]
            same = {first.ns, first.ew} == {lines[later].ns, lines[later].ew}
            what = (f"board {board} is recorded twice for pairs {first.ns} and {first.ew}"
                    if same else f"pair {num} already has a result on board {board} "
                    f"(against pair {first.ew if first.ns == num else first.ns})")
            flag = Flag("played-twice", what + f" (lines {idx[0] + 1} and {later + 1})",
                        later, lines[later])
            if flag not in flags:
                flags.append(flag)
    flags.sort(key=lambda f: f.index)
    return _dedupe(flags)


def _dedupe(flags: list[Flag]) -> list[Flag]:
    out: list[Flag] = []
    for f in flags:
        if not any(g.index == f.index and g.code == f.code and g.code == "played-twice"
                   for g in out):
            out.append(f)
    return out


def accept(results: Iterable[Result], movement: Movement | None = None) -> list[Result]:
    """The results, if nothing is doubtful; else an :class:`EventError` naming every flag."""
    lines = list(results)
    flags = check_results(lines, movement)
    if flags:
        raise EventError(f"{len(flags)} result(s) need the director: "
                         + "; ".join(str(f) for f in flags))
    return lines
