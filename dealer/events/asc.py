"""The ``.ASC`` movement text format (version 1.0, http://www.pjms.nl/movementfile_standard.html).

A header line ``contestants tables rounds boardgroups individual``, then one
line per round with ``NS-EW group`` for each table in table order. Groups are
letters from ``A`` or numbers from 1; an unused table is ``0-0 0``; ``#``
starts a comment and blank lines are comments (not allowed before the
header). Individual movements (``individual`` = 1) have ``N S E W group``.

Readings (the page's list of separators was lost in our copy): numbers and
groups may be separated by any run of spaces, tabs, ``-``, ``,`` and ``;``.
The format has no board numbers, so group g holds boards
``(g-1)*boards_per_round + 1`` onwards. Pair numbers are consecutive from 1,
so a two-winner Mitchell (NS and EW both numbered from 1) is written with the
EW numbers offset by the number of tables. Individual movements are
recognised and refused with a clear message: boardwright scores pairs.

>>> loads("14 7 6 6 0\\n 1- 2 A  3- 4 B\\n")
Traceback (most recent call last):
...
dealer.errors.FormatError: line 1: the header says 6 rounds but 1 round line follows
>>> m = loads("4 2 3 3 0\\n1-2 A 3-4 A\\n1-3 B 4-2 B\\n1-4 C 2-3 C\\n")
>>> m.at(2, 3).ns, m.at(2, 3).ew, m.at(2, 3).boards
(2, 3, (5, 6))
>>> print(dumps(m), end="")
4 2 3 3 0
 1- 2 A  3- 4 A
 1- 3 B  4- 2 B
 1- 4 C  2- 3 C
"""

from __future__ import annotations

import re
from pathlib import Path

from dealer.errors import FormatError
from dealer.events.movements import Movement, Sitting

_SEP = re.compile(r"[\s,;\-]+")


def loads(text: str, *, boards_per_round: int = 2, path: str | None = None,
          name: str | None = None, section: str = "A") -> Movement:
    """Read an ``.ASC`` movement. Every problem names the line."""
    header: list[int] | None = None
    header_line = 0
    rounds: list[tuple[int, list[str]]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            if header is None and "#" in raw:
                raise FormatError("a comment may not come before the header", path=path,
                                  line=lineno)
            continue
        tokens = [t for t in _SEP.split(body) if t]
        if header is None:
            header_line = lineno
            if len(tokens) != 5 or not all(t.isdigit() for t in tokens):
                raise FormatError(
                    "the header must be 5 numbers: contestants tables rounds boardgroups "
                    f"individual (found {body!r})", path=path, line=lineno)
            header = [int(t) for t in tokens]
            if header[4] not in (0, 1):
                raise FormatError(f"individual must be 0 or 1, not {header[4]}", path=path,
                                  line=lineno)
            if header[4] == 1:
                raise FormatError("this is an individual movement (N S E W per table); "
                                  "boardwright scores pairs movements only", path=path,
                                  line=lineno)
            continue
        rounds.append((lineno, tokens))
    if header is None:
        raise FormatError("the file is empty: no header line", path=path)
    contestants, tables, n_rounds, groups, _ = header
    if len(rounds) != n_rounds:
        found = f"{len(rounds)} round line" + (" follows" if len(rounds) == 1 else "s follow")
        raise FormatError(f"the header says {n_rounds} rounds but {found}", path=path,
                          line=header_line)
    style: str | None = None
    sittings: list[Sitting] = []
    for r, (lineno, tokens) in enumerate(rounds, start=1):
        if len(tokens) != 3 * tables:
            raise FormatError(f"round {r} has {len(tokens)} entries; {tables} tables need "
                              f"{3 * tables} (NS EW group for each)", path=path, line=lineno)
        for t in range(1, tables + 1):
            ns_t, ew_t, g_t = tokens[3 * (t - 1): 3 * t]
            where = f"round {r}, table {t}"
            if not (ns_t.isdigit() and ew_t.isdigit()):
                raise FormatError(f"{where}: pair numbers must be numbers, not "
                                  f"{ns_t!r}-{ew_t!r}", path=path, line=lineno)
            ns, ew = int(ns_t), int(ew_t)
            if g_t == "0":
                group = 0
            elif g_t.isdigit():
                style = _same_style(style, "number", path, lineno)
                group = int(g_t)
            elif len(g_t) == 1 and "A" <= g_t <= "Z":
                style = _same_style(style, "letter", path, lineno)
                group = ord(g_t) - ord("A") + 1
            else:
                raise FormatError(f"{where}: board group {g_t!r} is not a capital letter or a "
                                  "number", path=path, line=lineno)
            if (ns == 0 and ew == 0) != (group == 0):
                raise FormatError(f"{where}: an unused table is 0-0 0; {ns_t}-{ew_t} {g_t} "
                                  "mixes zero and non-zero", path=path, line=lineno)
            for p in (ns, ew):
                if p > contestants:
                    raise FormatError(f"{where}: pair {p} is above the {contestants} "
                                      "contestants in the header", path=path, line=lineno)
            if group > groups:
                raise FormatError(f"{where}: board group {g_t} is beyond the {groups} groups "
                                  "in the header", path=path, line=lineno)
            if ns == 0 and ew == 0:
                continue
            start = (group - 1) * boards_per_round + 1
            sittings.append(Sitting(t, r, ns, ew, group,
                                    tuple(range(start, start + boards_per_round))))
    label = name or (Path(path).stem if path else f"{contestants}-pair ASC movement")
    return Movement(label, tables, n_rounds, boards_per_round, sittings, "unique", section)


def _same_style(style: str | None, new: str, path: str | None, line: int) -> str:
    if style is not None and style != new:
        raise FormatError("board groups must all be letters or all numbers, not both",
                          path=path, line=line)
    return new


def dumps(movement: Movement) -> str:
    """Write a movement as ``.ASC`` text (groups as letters when there are at most 26)."""
    offset = movement.tables if movement.numbering == "by_line" else 0
    sets = movement.sets
    pairs = {s.ns for s in movement.sittings if s.ns} | {
        s.ew + offset for s in movement.sittings if s.ew}
    contestants = max(pairs, default=0)
    lines = [f"{contestants} {movement.tables} {movement.rounds} {sets} 0"]
    if offset:
        lines.append(f"# EW pairs numbered {offset + 1}-{offset + movement.tables} "
                     f"(EW pair n is {offset}+n)")
    for r in range(1, movement.rounds + 1):
        cells = []
        by_table = {s.table: s for s in movement.round(r)}
        for t in range(1, movement.tables + 1):
            s = by_table.get(t)
            if s is None:
                cells.append(" 0- 0 0")
                continue
            g = chr(ord("A") + s.board_set - 1) if sets <= 26 else str(s.board_set)
            ew = s.ew + offset if s.ew else 0
            cells.append(f"{s.ns:2d}-{ew:2d} {g}")
        lines.append(" ".join(cells))
    return "\n".join(lines) + "\n"


def load(path: str | Path, **kwargs: object) -> Movement:
    """Read an ``.ASC`` file; errors name the file and line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise FormatError(f"cannot read the movement: {exc.strerror}", path=str(p)) from None
    return loads(text, path=str(p), **kwargs)  # type: ignore[arg-type]


def dump(movement: Movement, path: str | Path) -> None:
    Path(path).write_text(dumps(movement), encoding="utf-8")
