"""BRI: the Duplimate "BRI" deal file, as Big Deal writes it.

Each board is a 128-byte record: 78 ASCII digits giving North's, East's and
South's 13 cards as two-digit numbers (01 = ♠A … 52 = ♣2, ascending), then 32
spaces and 18 NUL bytes of padding. West holds the 13 cards left over. The
file carries no board numbers, no dealer and no vulnerability: boards are
numbered 1, 2, 3 … (or from ``first_board``) and take the standard markings.

>>> ds = loads(_sample(), source="x.bri")
>>> ds.numbers, ds.boards[0].deal[Seat.NORTH].to_pbn()
([1], 'AKQJT98765432...')
>>> dumps(ds) == _sample()
True
"""

from __future__ import annotations

from dealer.board import Board, DealSet
from dealer.formats import Format
from dealer.formats._duplimate import (
    BRI_LEN,
    Reader,
    decode_bri,
    encode_bri,
    names_file,
    note_numbering,
    split_records,
    writable_boards,
)
from dealer.formats.sealing import for_writing
from dealer.seats import Seat  # noqa: F401  (used by the doctest)

RECORD = 128
PADDING = b" " * 32 + b"\x00" * 18  # Big Deal's padding: "just the way I saw my first BRI file"


def _sample() -> bytes:
    return "".join(f"{n:02d}" for n in range(1, 40)).encode() + PADDING


def _is_bri_part(rec: bytes) -> bool:
    part = rec[:BRI_LEN]
    if len(part) < BRI_LEN or not (part.isdigit() and part.isascii()):
        return False
    return all(1 <= int(part[i:i + 2]) <= 52 for i in range(0, BRI_LEN, 2))


def sniff(data: bytes) -> int:
    """BRI starts with 78 digits, then padding: not the DUP's ♠ byte (6) or its Y/N trailer."""
    if not _is_bri_part(data):
        return 0
    if data[78:79] == b"\x06":
        return 0  # a DUP record's screen part: BRI pads with spaces
    if data[146:148] in (b"YN", b"YY", b"NN", b"NY"):
        return 10  # a blind DUP file: its DUP sniffer is surer
    score = 80
    if len(data) % RECORD == 0:
        score += 10
    if data[BRI_LEN:RECORD] == PADDING:
        score += 5
    return score


@names_file("bri")
def loads(data: bytes, *, source: str = "<data>", strict: bool = False,
          first_board: int | None = None) -> DealSet:
    """Read BRI records; boards are numbered from ``first_board`` (else 1, with a note)."""
    rd = Reader(source, strict, "bri")
    boards = []
    records = split_records(data, RECORD, BRI_LEN, rd, first_board or 1)
    first_board = note_numbering("bri", len(records), first_board)
    for i, rec in enumerate(records):
        number = first_board + i
        deal = decode_bri(rec[:BRI_LEN], board=number, offset=i * RECORD)
        pad = rec[BRI_LEN:]
        if pad.strip(b" \x00"):
            rd.deviation("the padding after the cards holds other bytes than spaces and NULs",
                         board=number, field="padding")
        boards.append(Board(number, deal))
    return DealSet(boards)


def dumps(dealset: DealSet, *, unseal: bool = False) -> bytes:
    """Write BRI records exactly as Big Deal does."""
    # A sealed set: no hands (PBN) or a refusal, unless told to unseal (sealing.py).
    dealset = for_writing(dealset, "bri", unseal=unseal)
    boards = writable_boards(dealset, "bri", max_board=None, numbered=False)
    return b"".join(encode_bri(b.deal) + PADDING for b in boards)  # type: ignore[arg-type]


FORMAT = Format(
    name="bri",
    extensions=("bri",),
    sniff=sniff,
    loads=loads,
    dumps=dumps,
    binary=True,
    description="Duplimate BRI: 128-byte records of two-digit card numbers (N, E, S; W implied)",
)
