"""The payload printed as a barcode on cards and board-number stickers.

Ten decimal digits, so Code128 can use its dense set C (two digits per
symbol character) and QR its numeric mode::

    K DDD II CCCC
    | |   |  +-- check: CRC-8 of the three data symbols, zero-padded 0000..0255
    | |   +----- item: card 00..51 (Card index), 52/53 joker; board number 00..99
    | +--------- deck id 000..999 (a board sticker uses its set id here)
    +----------- kind: 1 card, 2 board sticker (boards 1..99), 3 board 100..199

The CRC is taken over the three *symbol values* (``KD``, ``DD``, ``II``, each
0..99) exactly as Code128 set C carries them, so one garbled symbol character
is a one-byte error, which every CRC-8 detects. A garbled check symbol either
changes the check value or makes it exceed 255. That closes the "ghost" the
research found (zbar read ``TS`` as ``'S`` and the ghost passed Code128's own
mod-103 check).

>>> p = card_payload(Card.parse("SA"), deck_id=42)
>>> p
'1042510050'
>>> parse(p)
Payload(kind='card', deck_id=42, item=51)
>>> parse(p).card
Card('SA')
>>> parse("1042500050") is None      # one digit changed: rejected
True
>>> parse(board_payload(17, set_id=42)).board
17
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.cards import Card
from dealer.errors import CardError

JOKER_ITEMS = (52, 53)


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS (polynomial x^8+x^2+x+1, init 0): detects every 1-byte error.

    >>> crc8(b"123456789")
    244
    """
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def _check(data6: str) -> str:
    symbols = bytes(int(data6[i : i + 2]) for i in range(0, 6, 2))
    return f"{crc8(symbols):04d}"


@dataclass(frozen=True)
class Payload:
    """A parsed, CRC-checked payload."""

    kind: str  # "card" or "board"
    deck_id: int
    item: int

    @property
    def card(self) -> Card | None:
        """The card, or ``None`` for a joker or a board sticker."""
        if self.kind == "card" and self.item < 52:
            return Card(self.item)
        return None

    @property
    def is_joker(self) -> bool:
        return self.kind == "card" and self.item in JOKER_ITEMS

    @property
    def board(self) -> int | None:
        return self.item if self.kind == "board" else None


def _encode(kind_digit: int, deck_id: int, item: int) -> str:
    if not 0 <= deck_id <= 999:
        raise CardError(f"deck id {deck_id} is not between 0 and 999")
    data = f"{kind_digit}{deck_id:03d}{item:02d}"
    return data + _check(data)


def card_payload(card: Card | None, deck_id: int, *, joker: int = 0) -> str:
    """The payload for a card (or, with ``card=None``, joker 0 or 1) of a deck."""
    item = int(card) if card is not None else JOKER_ITEMS[joker]
    return _encode(1, deck_id, item)


def board_payload(board: int, set_id: int = 0) -> str:
    """The payload for a board-number sticker (boards 1..199)."""
    if not 1 <= board <= 199:
        raise CardError(f"board number {board} is not between 1 and 199")
    return _encode(2 + board // 100, set_id, board % 100)


def parse(text: str) -> Payload | None:
    """Parse a decoded string; ``None`` unless it is a well-formed, CRC-valid payload.

    Anything else (wrong length, a non-digit, a CRC mismatch, an item out of
    range) is ``None``: the closed world of valid payloads is the whitelist.
    """
    if len(text) != 10 or not text.isascii() or not text.isdigit():
        return None
    data, check = text[:6], text[6:]
    if _check(data) != check:
        return None
    kind_digit, deck_id, item = int(data[0]), int(data[1:4]), int(data[4:6])
    if kind_digit == 1:
        if item > JOKER_ITEMS[-1]:
            return None
        return Payload("card", deck_id, item)
    if kind_digit in (2, 3):
        board = (kind_digit - 2) * 100 + item
        if board == 0:
            return None
        return Payload("board", deck_id, board)
    return None
