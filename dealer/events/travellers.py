"""Read travellers (results) from a CSV file, one result per row.

The first row names the columns, in any order and any case:

- required: ``board``, ``ns``, ``ew``;
- a result: ``score`` (North-South points) and/or ``contract`` with ``tricks``
  (``declarer`` may be its own column or part of the contract, ``4S N``);
  or ``adjust``: ``A+/A-``, ``A/A``, ``60/40`` (percentages) or ``NP`` (not played);
- optional: ``section``, ``table``, ``round``, ``group`` (fouled-board
  version), ``declarer_pair``.

A score written beside a contract is kept as written (the checks in
:mod:`dealer.events.validation` flag it if it does not follow); a row with a
contract and tricks but no score is scored by Law 77.

>>> rows = "board,ns,ew,contract,tricks\\n1,1,8,4S N,10\\n1,2,9,3NT S,8\\n"
>>> [r.score for r in loads(rows)]
[420, -50]
>>> loads("board,ns,ew,score\\n1,1,x,420\\n", path="t.csv")
Traceback (most recent call last):
...
dealer.errors.FormatError: t.csv, line 2, field ew: 'x' is not a whole number
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from dealer.contract import Contract
from dealer.csv_rows import rows as csv_rows
from dealer.errors import BoardwrightError, FormatError
from dealer.events.model import Artificial, Result

_KNOWN = {"board", "ns", "ew", "score", "contract", "declarer", "tricks", "adjust", "section",
          "table", "round", "group", "declarer_pair"}


def loads(text: str, *, path: str | None = None) -> list[Result]:
    """Read CSV text into results; every problem names the line and column."""
    if "\x00" in text:  # a picture, a spreadsheet, random bytes
        raise FormatError("this file is not text (it holds NUL bytes): the results must be "
                          "a CSV file", path=path)
    reader = csv.reader(io.StringIO(text))
    rows = csv_rows(reader, lambda line, exc: FormatError(f"cannot read it as CSV ({exc})",
                                                          path=path, line=line))
    try:
        header = next(rows)
    except StopIteration:
        raise FormatError("the file is empty: no header row", path=path) from None
    cols = [h.strip().lower().replace(" ", "_") for h in header]
    unknown = [c for c in cols if c and c not in _KNOWN]
    if unknown:
        raise FormatError(f"unknown column(s) {', '.join(unknown)} (known: "
                          f"{', '.join(sorted(_KNOWN))})", path=path, line=1)
    for need in ("board", "ns", "ew"):
        if need not in cols:
            raise FormatError(f"the header has no {need!r} column", path=path, line=1)
    out = []
    for row in rows:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(cols):
            raise FormatError(f"{len(row)} cells but the header has {len(cols)} columns",
                              path=path, line=line)
        cells = {c: (row[i].strip() if i < len(row) else "") for i, c in enumerate(cols)}
        try:
            out.append(_row(cells, path, line))
        except FormatError:
            raise
        except BoardwrightError as exc:
            raise FormatError(str(exc), path=path, line=line) from None
    return out


def _int(cells: dict[str, str], name: str, path: str | None, line: int) -> int | None:
    raw = cells.get(name, "")
    if raw == "":
        return None
    try:
        return int(raw.replace("+", "", 1))
    except ValueError:
        raise FormatError(f"{raw!r} is not a whole number", path=path, line=line,
                          field=name) from None


def _required(cells: dict[str, str], name: str, path: str | None, line: int) -> int:
    """A number the row must have: an empty cell is an error here, not ``None`` later."""
    value = _int(cells, name, path, line)
    if value is None:
        raise FormatError("is empty", path=path, line=line, field=name)
    return value


def _row(cells: dict[str, str], path: str | None, line: int) -> Result:
    board, ns, ew = (_required(cells, k, path, line) for k in ("board", "ns", "ew"))
    more: dict[str, object] = {
        "section": cells.get("section") or "A",
        "table": _int(cells, "table", path, line),
        "round": _int(cells, "round", path, line),
        "group": _int(cells, "group", path, line) or 0,
        "declarer_pair": _int(cells, "declarer_pair", path, line),
    }
    adjust = cells.get("adjust", "")
    if adjust:
        if adjust.upper() in ("NP", "NOT PLAYED", "-"):
            return Result(board, ns, ew, not_played=True, **more)  # type: ignore[arg-type]
        parts = adjust.replace(" ", "").split("/")
        if len(parts) != 2:
            raise FormatError(f"adjust {adjust!r} must be NS/EW, e.g. A+/A- or 60/40, or NP",
                              path=path, line=line, field="adjust")
        sides = [_adjustment(p, path, line) for p in parts]
        return Result(board, ns, ew, ns_artificial=sides[0], ew_artificial=sides[1],
                      **more)  # type: ignore[arg-type]
    score = _int(cells, "score", path, line)
    contract_text = cells.get("contract", "")
    tricks = _int(cells, "tricks", path, line)
    contract = None
    if contract_text:
        try:
            contract = Contract.parse(contract_text, cells.get("declarer") or None)
        except BoardwrightError as exc:
            raise FormatError(str(exc), path=path, line=line, field="contract") from None
    if score is None:
        if contract is None or tricks is None:
            raise FormatError("no score: give a score, a contract with tricks, or an adjust",
                              path=path, line=line)
        return Result.from_contract(board, ns, ew, contract, tricks, **more)  # type: ignore[arg-type]
    return Result(board, ns, ew, score, contract=contract, tricks=tricks,
                  **more)  # type: ignore[arg-type]


def _adjustment(text: str, path: str | None, line: int) -> Artificial | float:
    try:
        return Artificial.parse(text) if text.upper().startswith("A") else float(text)
    except (BoardwrightError, ValueError):
        raise FormatError(f"{text!r} is not A+, A, A- or a percentage", path=path, line=line,
                          field="adjust") from None


def load(path: str | Path) -> list[Result]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise FormatError(f"cannot read the results: {exc.strerror}", path=str(p)) from None
    return loads(text, path=str(p))
