"""DUP: the Duplimate "DOS version" deal file, as Big Deal writes it.

Each board is a 156-byte record:

* bytes 1-78: the BRI part (North, East, South as two-digit card numbers, West implied);
* bytes 79-146: the DGE part (the four hands with DOS suit characters), which the
  machine shows on its screen;
* byte 147 ``Y``: "random hands"; byte 148 ``N``: "count backwards";
* bytes 149-151 the lowest board, 152-153 the number of copies, 154-156 the highest
  board, each left-aligned and padded with spaces: ``YN1  0 36 `` for boards 1-36.

The **blind** variant (Big Deal's ``dupblind``, "no cards on screen") writes 68
spaces instead of the DGE part of the first record, so the Duplimate does not
show the hands while it deals. Boardwright reads a DUP whose first DGE part is
blank as a sealed set (``DealSet.sealed``) and writes the blind variant when
the set is sealed. The BRI part decides the deal; a DGE part that disagrees
with it is an error, because the file then holds two different deals.

Values Big Deal always writes are the defaults; other values read from a file
are kept in ``DealSet.meta`` as ``DUP random hands`` (``Y``/``N``), ``DUP
backwards`` (``Y``/``N``) and ``DUP copies`` (a number), and written back;
the copies are also put in ``meta["Copies"]`` (what ``deals new --copies``
records and the dealing job reads), which the writer uses when there is no
``DUP copies``.

>>> from dealer.formats import bri
>>> ds = bri.loads(bri._sample())
>>> rec = dumps(ds)
>>> len(rec), rec[-10:]
(156, b'YN1  0 01 ')
>>> loads(rec).boards[0].deal == ds.boards[0].deal
True
"""

from __future__ import annotations

from dealer.board import Board, DealSet
from dealer.errors import FormatError
from dealer.formats import Format
from dealer.formats._duplimate import (
    BRI_LEN,
    DGE_LEN,
    Reader,
    decode_bri,
    decode_dge,
    encode_bri,
    encode_dge,
    names_file,
    note_numbering,
    split_records,
    writable_boards,
)
from dealer.formats.sealing import for_writing

RECORD = 156
_DGE_START = BRI_LEN
_TRAILER = _DGE_START + DGE_LEN  # 146
BLIND = b" " * DGE_LEN
_YN = (b"Y", b"N")


def sniff(data: bytes) -> int:
    """DUP: 78 digits, then the ♠ byte 6 (or blanks when blind), then the ``YN`` trailer.

    A file of whole 156-byte records with a screen part but a damaged first trailer
    still scores, so that reading it reports the trailer instead of misreading it as BRI.
    """
    part = data[:BRI_LEN]
    if len(data) < _TRAILER or not (part.isdigit() and part.isascii()):
        return 0
    if data[_DGE_START] not in (6, 32):
        return 0
    if data[_TRAILER:_TRAILER + 1] in _YN and data[_TRAILER + 1:_TRAILER + 2] in _YN:
        return 100 if len(data) % RECORD == 0 else 90
    if data[_DGE_START] == 6 and len(data) % RECORD == 0:
        return 70
    return 0


def _number(field: bytes, name: str, rd: Reader, board: int) -> int | None:
    text = field.decode("latin-1").strip()
    if text.isdigit():
        return int(text)
    rd.deviation(f"{text!r} is not a number", board=board, field=name)
    return None


@names_file("dup")
def loads(data: bytes, *, source: str = "<data>", strict: bool = False,
          first_board: int | None = None) -> DealSet:
    """Read a DUP file (plain or blind).

    Big Deal writes ``1`` as the lowest board and the number of boards as the
    highest, whatever boards the set holds (boards 5-28 get ``YN1  0 24 ``), so
    a trailer starting at 1 cannot say where the set starts: the boards are
    numbered from ``first_board`` when given, else from 1 with a note.
    """
    rd = Reader(source, strict, "dup")
    records = split_records(data, RECORD, _TRAILER, rd)
    first_trailer = records[0][_TRAILER:RECORD]
    low = _number(first_trailer[2:5], "lowest board", rd, 1) or 1
    high = _number(first_trailer[7:10], "highest board", rd, low)
    copies = _number(first_trailer[5:7], "copies", rd, low)
    if first_board is not None or low == 1:
        if first_board is not None and low not in (1, first_board):
            raise rd.error(f"the trailer says the set starts at board {low}, not at the "
                           f"first board given ({first_board})", board=1, field="lowest board")
        if high == len(records) % 100:
            high = None  # Big Deal's "highest" is the count of boards (two digits)
        low = note_numbering("dup", len(records), first_board)
    if high is not None and high - low + 1 != len(records):
        rd.deviation(f"the trailer says boards {low}-{high}, but the file holds "
                     f"{len(records)} boards; they are numbered {low}-{low + len(records) - 1}",
                     board=low, field="highest board")
    boards: list[Board] = []
    sealed = False
    for i, rec in enumerate(records):
        number = low + i
        deal = decode_bri(rec[:BRI_LEN], board=number, offset=i * RECORD)
        dge = rec[_DGE_START:_TRAILER]
        if dge == BLIND:
            if i == 0:
                sealed = True
            else:
                rd.deviation("the screen (DGE) part is blank, which only the first board "
                             "of a blind file has", board=number, field="DGE part")
        else:
            try:
                shown = decode_dge(dge, board=number, offset=i * RECORD + _DGE_START)
            except FormatError as exc:
                raise rd.error(f"screen (DGE) part: {exc.message}", board=number,
                               field=exc.field) from None
            if shown != deal:
                raise rd.error("the screen (DGE) part shows a different deal from the "
                               "dealing (BRI) part", board=number, field="DGE part")
        trailer = rec[_TRAILER:RECORD]
        if trailer != first_trailer:
            rd.deviation(f"the trailer {trailer!r} differs from the first board's "
                         f"{first_trailer!r}", board=number, field="trailer")
        boards.append(Board(number, deal))
    meta: dict[str, str] = {}
    if first_trailer[0:1] != b"Y":
        meta["DUP random hands"] = first_trailer[0:1].decode("latin-1")
    if first_trailer[1:2] != b"N":
        meta["DUP backwards"] = first_trailer[1:2].decode("latin-1")
    if copies:
        meta["DUP copies"] = str(copies)
        meta["Copies"] = str(copies)  # the dealing job's copies (rig.py), as from PBN
    return DealSet(boards, meta=meta, sealed=sealed)


def dumps(dealset: DealSet, *, unseal: bool = False) -> bytes:
    """Write DUP records exactly as Big Deal does (the blind variant when sealed)."""
    # A sealed set: no hands (PBN) or a refusal, unless told to unseal (sealing.py).
    dealset = for_writing(dealset, "dup", unseal=unseal)
    boards = writable_boards(dealset, "dup", max_board=99)
    low, high = boards[0].number, boards[-1].number
    meta = dealset.meta
    copies = meta.get("DUP copies") or meta.get("Copies") or "0"
    if not (copies.isdigit() and len(copies) <= 2):
        raise FormatError(f"a DUP file holds 0-99 copies of each board, not {copies!r}",
                          field="copies")
    # Big Deal writes the highest board as two digits ("09 "); the lowest left-aligned.
    trailer = (meta.get("DUP random hands", "Y")[:1] + meta.get("DUP backwards", "N")[:1]
               + f"{low:<3}{copies:<2}{high:02d} ").encode("ascii")
    out = bytearray()
    for i, b in enumerate(boards):
        out += encode_bri(b.deal)  # type: ignore[arg-type]
        out += BLIND if i == 0 and dealset.sealed else encode_dge(b.deal)  # type: ignore[arg-type]
        out += trailer
    return bytes(out)


FORMAT = Format(
    name="dup",
    extensions=("dup",),
    sniff=sniff,
    loads=loads,
    dumps=dumps,
    binary=True,
    description="Duplimate DUP (DOS version): 156-byte BRI+DGE records with a board-range trailer",
)
