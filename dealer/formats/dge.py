"""DGE: the Duplimate "DGE" deal file, as Big Deal writes it.

Each board is a 128-byte record: the four hands North, East, South, West, each
as the DOS suit characters 6 (♠), 3 (♥), 4 (♦), 5 (♣), every one followed by
that suit's ranks (``AKQJT98765432`` order), 68 bytes in all, then 60 NUL
bytes. Like BRI, the file carries no board numbers, dealer or vulnerability.

>>> ds = loads(_sample(), source="x.dge")
>>> ds.boards[0].deal.to_pbn()
'N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432'
>>> dumps(ds) == _sample()
True
"""

from __future__ import annotations

from dealer.board import Board, DealSet
from dealer.formats import Format
from dealer.formats._duplimate import (
    DGE_LEN,
    DGE_SUITS,
    RANK_CHARS,
    Reader,
    decode_dge,
    encode_dge,
    names_file,
    note_numbering,
    split_records,
    writable_boards,
)
from dealer.formats.sealing import for_writing

RECORD = 128
PADDING = b"\x00" * (RECORD - DGE_LEN)
_ALLOWED = frozenset(DGE_SUITS) | frozenset(RANK_CHARS.encode())


def _sample() -> bytes:
    out = bytearray()
    for hand in range(4):
        for s, mark in enumerate(DGE_SUITS):
            out.append(mark)
            if s == hand:
                out += RANK_CHARS.encode()
    return bytes(out) + PADDING


def sniff(data: bytes) -> int:
    """DGE starts with the ♠ byte 6 and holds only suit bytes and ranks up to its padding."""
    head = data[:DGE_LEN]
    if len(head) < DGE_LEN or head[0] != DGE_SUITS[0]:
        return 0
    if not set(head) <= _ALLOWED:
        return 0
    score = 80
    if len(data) % RECORD == 0:
        score += 10
    if data[DGE_LEN:RECORD] == PADDING:
        score += 5
    return score


@names_file("dge")
def loads(data: bytes, *, source: str = "<data>", strict: bool = False,
          first_board: int | None = None) -> DealSet:
    """Read DGE records; boards are numbered from ``first_board`` (else 1, with a note)."""
    rd = Reader(source, strict, "dge")
    boards = []
    records = split_records(data, RECORD, DGE_LEN, rd, first_board or 1)
    first_board = note_numbering("dge", len(records), first_board)
    for i, rec in enumerate(records):
        number = first_board + i
        # The cards end at the padding; a NUL inside the first 68 bytes means cards are missing.
        end = rec.find(b"\x00")
        cards = rec if end < 0 else rec[:end]
        if len(cards) != DGE_LEN:
            rd.deviation(f"the cards take {len(cards)} bytes, not {DGE_LEN}", board=number,
                         field="cards")
        deal = decode_dge(cards, board=number, offset=i * RECORD)
        if rec[len(cards):].strip(b"\x00 "):
            rd.deviation("the padding after the cards holds other bytes than NULs",
                         board=number, field="padding")
        boards.append(Board(number, deal))
    return DealSet(boards)


def dumps(dealset: DealSet, *, unseal: bool = False) -> bytes:
    """Write DGE records exactly as Big Deal does."""
    # A sealed set: no hands (PBN) or a refusal, unless told to unseal (sealing.py).
    dealset = for_writing(dealset, "dge", unseal=unseal)
    boards = writable_boards(dealset, "dge", max_board=None, numbered=False)
    return b"".join(encode_dge(b.deal) + PADDING for b in boards)  # type: ignore[arg-type]


FORMAT = Format(
    name="dge",
    extensions=("dge",),
    sniff=sniff,
    loads=loads,
    dumps=dumps,
    binary=True,
    description="Duplimate DGE: 128-byte records of hands with DOS suit characters",
)
