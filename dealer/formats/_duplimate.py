"""Shared pieces of the Duplimate family of deal files (DUP, DLM, BRI, DGE, Big Deal CSV).

These formats all come from the Jannersten Duplimate world and number the deck
the same way: card 1 is ♠A, 13 is ♠2, 14 is ♥A … 52 is ♣2 ("BRI numbers").
Boardwright's own :class:`~dealer.cards.Card` counts the other way (0 is ♣2),
so :func:`card_from_bri` and :func:`bri_number` translate.

>>> card_from_bri(1).symbol, card_from_bri(52).symbol
('♠A', '♣2')
>>> bri_number(Card.parse("HA"))
14
>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> decode_bri(encode_bri(d), board=1) == d
True
>>> decode_dge(encode_dge(d), board=1) == d
True
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence

from dealer.board import Board, DealSet
from dealer.cards import Card, Suit
from dealer.deal import Deal
from dealer.errors import FormatError, FormatNote, FormatWarning
from dealer.hand import ALL_CARDS_MASK
from dealer.seats import Seat

#: Bytes of the BRI part of a record: North, East and South, 13 two-digit cards each.
BRI_LEN = 78
#: Bytes of the DGE part of a record: 4 hands x (4 suit bytes + 13 ranks).
DGE_LEN = 68
#: The DOS code-page characters DGE uses for ♠ ♥ ♦ ♣, in that (file) order.
DGE_SUITS = (6, 3, 4, 5)
RANK_CHARS = "AKQJT98765432"



def card_from_bri(number: int) -> Card:
    """The card with Duplimate number ``number`` (1 = ♠A … 52 = ♣2)."""
    suit_from_top, rank_from_top = divmod(number - 1, 13)
    return Card((3 - suit_from_top) * 13 + 12 - rank_from_top)


def bri_number(card: Card | int) -> int:
    """The Duplimate number (1 = ♠A … 52 = ♣2) of ``card``."""
    suit, rank_index = divmod(int(card), 13)
    return (3 - suit) * 13 + 12 - rank_index + 1


def names_file(fmt: str) -> Callable[[Callable[..., DealSet]], Callable[..., DealSet]]:
    """Decorate a ``loads`` so that every error it raises names the file and the format."""

    def wrap(loads: Callable[..., DealSet]) -> Callable[..., DealSet]:
        @functools.wraps(loads)
        def inner(data: bytes, *, source: str = "<data>", **options: object) -> DealSet:
            try:
                return loads(data, source=source, **options)
            except FormatError as exc:
                raise exc.located(path=source, format=fmt) from None

        return inner

    return wrap


class Reader:
    """Where a reader is, and what it does with a deviation.

    Lenient reading (the default) turns a deviation that leaves the deals
    intact into a :class:`FormatWarning`; ``strict=True`` raises it as a
    :class:`FormatError`. Both name the file and whatever else is known.
    """

    def __init__(self, source: str, strict: bool, format: str) -> None:
        self.source = source
        self.strict = strict
        self.format = format

    def error(self, message: str, **where: object) -> FormatError:
        return FormatError(message, path=self.source, format=self.format, **where)  # type: ignore[arg-type]

    def deviation(self, message: str, **where: object) -> None:
        err = self.error(message, **where)
        if self.strict:
            raise err
        warnings.warn(FormatWarning(str(err)), stacklevel=3)


def _deal_from_masks(masks: Sequence[int], board: int | None, field: str) -> Deal:
    """A full deal from four card masks, with a clear message for a wrong count."""
    for seat, m in zip(Seat, masks, strict=True):
        n = m.bit_count()
        if n != 13:
            raise FormatError(f"{Seat(seat).title} has {n} cards, not 13",
                              board=board, field=field)
    bits = 0
    for seat, m in zip(Seat, masks, strict=True):
        bits |= m << (52 * seat)
    return Deal.from_bits(bits)


def encode_bri(deal: Deal) -> bytes:
    """The 78-byte BRI part: North, East, South, each card as 01-52, ascending."""
    out: list[str] = []
    for seat in (Seat.NORTH, Seat.EAST, Seat.SOUTH):
        out.extend(f"{n:02d}" for n in sorted(bri_number(c) for c in deal[seat]))
    return "".join(out).encode("ascii")


# Card bit of each Duplimate number (index 0 unused), for the fast paths below.
_BRI_BIT = [0] + [1 << int(card_from_bri(n)) for n in range(1, 53)]
# Card bit of each (DGE suit byte, rank byte).
_DGE_BIT = {(mark, ord(ch)): 1 << ((3 - k) * 13 + 12 - RANK_CHARS.index(ch))
            for k, mark in enumerate(DGE_SUITS) for ch in RANK_CHARS}


def _fast_bri(part: bytes) -> list[int] | None:
    """The four hands' masks of a well-formed BRI part, or None (the careful path says why).

    A 10 MB DUP has 64,000 records: naming the seat and card of every byte in
    case it is wrong made reading ten times slower than this.
    """
    digits = part[:BRI_LEN]
    if len(digits) < BRI_LEN or not (digits.isdigit() and digits.isascii()):
        return None
    numbers = [int(digits[i:i + 2]) for i in range(0, BRI_LEN, 2)]
    if len(set(numbers)) != 39 or min(numbers) < 1 or max(numbers) > 52:
        return None
    masks = [0, 0, 0, 0]
    for seat in range(3):
        m = 0
        for n in numbers[13 * seat:13 * seat + 13]:
            m |= _BRI_BIT[n]
        masks[seat] = m
    masks[3] = ALL_CARDS_MASK & ~(masks[0] | masks[1] | masks[2])
    return masks


def decode_bri(part: bytes, *, board: int | None, offset: int = 0) -> Deal:
    """Read the 78-byte BRI part; West gets the 13 cards nobody else holds.

    ``offset`` is where ``part`` starts in the file, so a message can say which byte.
    """
    fast = _fast_bri(part)
    if fast is not None:
        return _deal_from_masks(fast, board, "cards")
    if len(part) < BRI_LEN:
        raise FormatError(f"the record is cut short: {len(part)} of {BRI_LEN} card bytes",
                          board=board, field="cards")
    masks = [0, 0, 0, 0]
    owner: dict[int, int] = {}
    for i in range(39):
        seat = i // 13
        pair = part[2 * i:2 * i + 2]
        field = f"{Seat(seat).title} card {i % 13 + 1}"
        if not (pair.isdigit() and pair.isascii()):
            raise FormatError(f"{pair!r} at byte {offset + 2 * i} is not a two-digit card number",
                              board=board, field=field)
        number = int(pair)
        if not 1 <= number <= 52:
            raise FormatError(f"card number {number} is outside 01-52", board=board, field=field)
        card = card_from_bri(number)
        if number in owner:
            raise FormatError(f"{card.symbol} ({pair.decode()}) is given twice "
                              f"({Seat(owner[number]).title} and {Seat(seat).title})",
                              board=board, field=field)
        owner[number] = seat
        masks[seat] |= 1 << card
    masks[3] = ALL_CARDS_MASK & ~(masks[0] | masks[1] | masks[2])
    return _deal_from_masks(masks, board, "cards")


def encode_dge(deal: Deal) -> bytes:
    """The 68-byte DGE part: each hand as ``\\x06`` spades ``\\x03`` hearts ``\\x04`` diamonds ``\\x05`` clubs."""
    out = bytearray()
    for hand in deal:
        for suit_byte, suit in zip(DGE_SUITS, (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS),
                                   strict=True):
            out.append(suit_byte)
            out += str(hand.suit(suit)).encode("ascii")
    return bytes(out)


def _fast_dge(part: bytes) -> list[int] | None:
    """The four hands' masks of a well-formed DGE part, or None (the careful path says why)."""
    masks = [0, 0, 0, 0]
    hand = -1
    mark = 0
    seen = 0
    for byte in part:
        if byte in _DGE_MARKS:
            if byte == 6:
                hand += 1
                if hand > 3:
                    return None
            elif hand < 0:
                return None
            mark = byte
            continue
        bit = _DGE_BIT.get((mark, byte))
        if bit is None or seen & bit:
            return None
        seen |= bit
        masks[hand] |= bit
    return masks if hand == 3 else None


_DGE_MARKS = frozenset(DGE_SUITS)


def decode_dge(part: bytes, *, board: int | None, offset: int = 0) -> Deal:
    """Read a DGE part: four hands, each opened by the ♠ byte (6)."""
    fast = _fast_dge(part)
    if fast is not None:
        return _deal_from_masks(fast, board, "cards")
    masks = [0, 0, 0, 0]
    seen: dict[int, int] = {}
    hand = -1
    suit: int | None = None
    for i, byte in enumerate(part):
        if byte == DGE_SUITS[0]:
            hand += 1
            if hand > 3:
                raise FormatError(f"a fifth hand starts at byte {offset + i}", board=board,
                                  field="cards")
        if byte in DGE_SUITS:
            if hand < 0:
                raise FormatError(f"the cards must start with the spade byte 6, not {byte}",
                                  board=board, field="North")
            suit = 3 - DGE_SUITS.index(byte)
            continue
        field = Seat(hand).title if hand >= 0 else "North"
        ch = chr(byte)
        if suit is None or ch not in RANK_CHARS:
            raise FormatError(f"byte {byte} ({ch!r}) at {offset + i} is not a rank or suit mark",
                              board=board, field=field)
        card = Card(suit * 13 + 14 - RANK_CHARS.index(ch) - 2)
        if card in seen:
            raise FormatError(f"{card.symbol} is given twice ({Seat(seen[card]).title} and "
                              f"{Seat(hand).title})", board=board, field=field)
        seen[card] = hand
        masks[hand] |= 1 << card
    if hand != 3:
        raise FormatError(f"{hand + 1} hands found, not 4", board=board, field="cards")
    return _deal_from_masks(masks, board, "cards")


def writable_boards(dealset: DealSet, fmt: str, *, max_board: int | None,
                    numbered: bool = True) -> list[Board]:
    """Check that ``dealset`` fits a Duplimate-family file, and return its boards.

    These files hold full deals only, of consecutive boards, with the standard
    dealer and vulnerability (they carry neither). ``numbered`` is False for
    BRI and DGE, which carry no board numbers at all.
    """
    boards = list(dealset)
    if not boards:
        raise FormatError(f"a {fmt} file needs at least one board")
    for prev, b in zip(boards, boards[1:], strict=False):
        if b.number != prev.number + 1:
            raise FormatError(f"{fmt} files hold consecutive boards; board {b.number} follows "
                              f"board {prev.number}", board=b.number)
    for b in boards:
        if b.deal is None or b.deal.partial or not b.deal.is_complete:
            raise FormatError(f"{fmt} files hold full deals only; this board's deal is "
                              "missing or partial", board=b.number)
        if not b.standard_markings:
            raise FormatError(
                f"dealer {b.dealer} and vulnerability {b.vulnerability} differ from the "
                f"standard cycle, and {fmt} files cannot record that", board=b.number)
        if max_board is not None and b.number > max_board:
            raise FormatError(f"{fmt} files go up to board {max_board}", board=b.number)
    if not numbered and boards[0].number != 1:
        warnings.warn(FormatWarning(
            f"{fmt} files carry no board numbers: boards {dealset.describe_range()} will read "
            f"back as 1-{len(boards)} unless the reader is told the first board "
            f"(--first-board {boards[0].number})"), stacklevel=3)
    if dealset.sealed and fmt in ("bri", "dge"):
        warnings.warn(FormatWarning(f"{fmt} files cannot mark a set sealed; the seal is not "
                                    "written"), stacklevel=3)
    return boards


def note_numbering(fmt: str, count: int, first_board: int | None) -> int:
    """The first board of a file that does not say it; a note when it had to be assumed.

    BRI and DGE files carry no board numbers, and Big Deal writes every DUP file's
    lowest board as 1 (see dup.py), so a set of boards 5-28 reads as 1-24 unless
    the reader is told (``first_board``, the CLI's ``--first-board``).
    """
    if first_board is not None:
        if first_board < 1:
            raise FormatError(f"the first board must be 1 or more, not {first_board}")
        return first_board
    warnings.warn(FormatNote(
        f"{fmt} files do not say which board comes first: read as boards 1-{count}; "
        "if the set starts at another board, give --first-board N"), stacklevel=3)
    return 1


def split_records(data: bytes, size: int, need: int, rd: Reader, first: int = 1) -> list[bytes]:
    """Cut a binary file into ``size``-byte records.

    A last record cut short after its first ``need`` bytes lost only padding
    (a deviation); one cut shorter lost cards (an error naming the board).
    """
    records = [data[i:i + size] for i in range(0, len(data), size)]
    if not records:
        raise rd.error("the file is empty")
    last = records[-1]
    if len(last) < size:
        board = first + len(records) - 1
        if len(last) < need or not last.strip(b" \x00"):
            if not last.strip(b" \x00\r\n\x1a"):
                # Trailing blanks or a DOS end-of-file mark after the last record.
                rd.deviation(f"{len(last)} stray bytes after the last record",
                             board=board - 1 if len(records) > 1 else None)
                records.pop()
            else:
                raise rd.error(f"the file is truncated: the last record has {len(last)} of "
                               f"{size} bytes", board=board, field="cards")
        else:
            rd.deviation(f"the last record has {len(last)} of {size} bytes (its padding is "
                         "cut short)", board=board)
    if not records:
        raise rd.error("the file holds no boards, only blank bytes")
    return records
