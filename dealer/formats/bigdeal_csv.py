"""Big Deal's CSV ("Comma Separated Values, for database import"): read only.

One board per line, 18 quoted fields and no header::

    "AKT2","5","K854","AQ43", "8",...  ,"875","1","N/-"

Fields 1-16 are the suit holdings (♠ ♥ ♦ ♣) of North, East, South and West,
field 17 is the board number, and field 18 is ``dealer/vulnerability`` with the
vulnerability written ``-``, ``NS``, ``EW`` or ``All``. A header line (a first
line whose board field is not a number) is skipped, since spreadsheet
programs add one when they re-save the file. Dealer and vulnerability are
taken from the file, even where they differ from the standard cycle.

>>> ds = loads(b'"AKQJT98765432","","","","","AKQJT98765432","","","","","AKQJT98765432","","","","","AKQJT98765432","7","S/All"\\n')
>>> ds.boards[0].number, ds.boards[0].dealer.letter, ds.boards[0].vulnerability.value
(7, 'S', 'All')
"""

from __future__ import annotations

import csv
import io
import re

from dealer.board import MAX_BOARD, Board, DealSet
from dealer.cards import Card
from dealer.errors import BoardwrightError, FormatError
from dealer.formats import Format
from dealer.formats._duplimate import RANK_CHARS, Reader, _deal_from_masks, names_file
from dealer.hand import Hand
from dealer.seats import Seat, Vulnerability

FIELDS = 18
_SUITS = ("spades", "hearts", "diamonds", "clubs")
_MARKINGS = re.compile(r"^\s*([NESWnesw])\s*/\s*(-|NS|EW|All|None|Both)\s*$")
_HOLDING = re.compile(f"^[{RANK_CHARS}]*$")


def _row_fits(row: list[str]) -> bool:
    return (len(row) == FIELDS and row[16].strip().isdigit() and bool(_MARKINGS.match(row[17]))
            and all(_HOLDING.match(f.strip().upper()) for f in row[:16]))


def sniff(data: bytes) -> int:
    """Big Deal CSV: the first lines are 18 fields, 16 holdings, a number and ``D/vul``."""
    try:
        text = data[:4000].decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        text = data[:exc.start].decode("utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip()][:3]
    if not lines or len(data) > 4000 and len(lines) > 1:
        lines = lines[:-1] or lines  # the last one may be cut off by the 4000-byte window
    rows = list(csv.reader(lines))
    if not rows:
        return 0
    if len(rows[0]) == FIELDS and not rows[0][16].strip().isdigit():
        rows = rows[1:]  # a header line
    if rows and all(_row_fits(r) for r in rows):
        return 90
    return 0


@names_file("csv")
def loads(data: bytes, *, source: str = "<data>", strict: bool = False) -> DealSet:
    """Read Big Deal's CSV."""
    rd = Reader(source, strict, "csv")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise rd.error(f"byte 0x{data[exc.start]:02x} is not valid UTF-8 (a CSV deal file "
                       "holds only card letters, numbers and quotes)", line=line) from None
    boards: list[Board] = []
    seen: dict[int, int] = {}
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise rd.error(f"not valid CSV: {exc}", line=reader.line_num) from None
    for lineno, row in enumerate(rows, start=1):
        if not any(f.strip() for f in row):
            continue
        if len(row) != FIELDS:
            raise rd.error(f"the line has {len(row)} fields, not {FIELDS} (16 suit holdings, "
                           "the board number and dealer/vulnerability)", line=lineno)
        if not boards and not seen and not row[16].strip().isdigit():
            rd.deviation("a header line is skipped", line=lineno)
            continue
        boards.append(_board(row, lineno, rd, seen))
    if not boards:
        raise rd.error("the file holds no boards")
    return DealSet(boards)


def _board(row: list[str], lineno: int, rd: Reader, seen: dict[int, int]) -> Board:
    num_text = row[16].strip()
    if not num_text.isdigit() or int(num_text) < 1:
        raise rd.error(f"{num_text!r} is not a board number", line=lineno, field="board")
    if int(num_text) > MAX_BOARD:
        raise rd.error(f"board number {num_text[:30]} is too large (at most {MAX_BOARD:,})",
                       line=lineno, field="board")
    number = int(num_text)
    if number in seen:
        raise rd.error(f"board {number} is given twice (first on line {seen[number]})",
                       line=lineno, board=number, field="board")
    seen[number] = lineno
    m = _MARKINGS.match(row[17])
    if not m:
        raise rd.error(f"{row[17]!r} is not dealer/vulnerability like 'N/-' or 'E/NS'",
                       line=lineno, board=number, field="dealer/vulnerability")
    masks: list[int] = []
    for s, seat in enumerate(each.title for each in Seat):
        holdings = [f.strip().upper() for f in row[4 * s:4 * s + 4]]
        for suit, h in zip(_SUITS, holdings, strict=True):
            if not _HOLDING.match(h):
                raise rd.error(f"{h!r} is not a holding of ranks AKQJT98765432", line=lineno,
                               board=number, field=f"{seat} {suit}")
        try:
            mask = Hand.from_pbn(".".join(holdings)).mask
        except BoardwrightError as exc:
            raise rd.error(str(exc), line=lineno, board=number, field=seat) from None
        for earlier, other in enumerate(masks):
            if other & mask:
                card = Card((other & mask).bit_length() - 1)
                raise rd.error(f"{card.symbol} is given twice ({Seat(earlier).title} and {seat})",
                               line=lineno, board=number, field=seat)
        masks.append(mask)
    try:
        deal = _deal_from_masks(masks, number, "cards")
    except FormatError as exc:
        raise rd.error(exc.message, line=lineno, board=number, field="cards") from None
    return Board(number, deal, Seat.parse(m.group(1)), Vulnerability.parse(m.group(2)))


FORMAT = Format(
    name="csv",
    extensions=("csv",),
    sniff=sniff,
    loads=loads,
    dumps=None,
    binary=False,
    description="Big Deal CSV: 16 suit holdings, board number and dealer/vulnerability (read only)",
    aliases=("bigdeal_csv", "bigdeal-csv"),
)
