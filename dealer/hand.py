"""A hand: any set of cards, held as a 52-bit mask.

Other games deal fewer than 13 cards, so a hand may hold any number.

>>> h = Hand.from_pbn("AKQ.JT9.8765.432")
>>> len(h), h.hcp, h.shape
(13, 10, (3, 3, 4, 3))
>>> h.to_pbn(), Card.parse("SK") in h
('AKQ.JT9.8765.432', True)
>>> str(h.suit(Suit.DIAMONDS))
'8765'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from dealer.cards import SUITS_DESCENDING, Card, Rank, Suit
from dealer.errors import CardError

_SUIT_MASK = (1 << 13) - 1
ALL_CARDS_MASK = (1 << 52) - 1


class SuitHolding:
    """The cards of one suit in a hand, highest first."""

    __slots__ = ("suit", "_bits")

    def __init__(self, suit: Suit, bits: int) -> None:
        self.suit = suit
        self._bits = bits

    @property
    def ranks(self) -> list[Rank]:
        return [Rank(r + 2) for r in range(12, -1, -1) if self._bits >> r & 1]

    def __len__(self) -> int:
        return self._bits.bit_count()

    def __iter__(self) -> Iterator[Card]:
        return (Card(self.suit, r) for r in self.ranks)

    def __str__(self) -> str:
        return "".join(r.char for r in self.ranks)


class Hand:
    """An immutable set of cards."""

    __slots__ = ("_mask",)

    def __init__(self, cards: Iterable[Card | str] | int = ()) -> None:
        if isinstance(cards, int):
            if cards < 0 or cards > ALL_CARDS_MASK:
                raise CardError(f"hand mask {cards} out of range")
            self._mask = cards
            return
        mask = 0
        for c in cards:
            card = c if isinstance(c, Card) else Card.parse(c)
            bit = 1 << card
            if mask & bit:
                raise CardError(f"{card.symbol} appears twice in the same hand")
            mask |= bit
        self._mask = mask

    @classmethod
    def from_mask(cls, mask: int) -> Hand:
        h = object.__new__(cls)
        h._mask = mask
        return h

    @property
    def mask(self) -> int:
        """The 52-bit set of cards: bit ``int(card)`` is set when the card is held."""
        return self._mask

    @classmethod
    def from_pbn(cls, text: str) -> Hand:
        """Parse ``S.H.D.C`` holdings, spades first, as PBN and most files write them.

        ``10`` is accepted for the ten. An empty holding is written as nothing (``AK..Q.``).
        """
        parts = text.strip().split(".")
        if len(parts) != 4:
            raise CardError(
                f"hand {text!r} must have four suits separated by dots (spades.hearts.diamonds.clubs)"
            )
        mask = 0
        for suit, holding in zip(SUITS_DESCENDING, parts, strict=True):
            h = holding.strip().upper().replace("10", "T")
            if h in ("-", "—"):
                h = ""
            for ch in h:
                try:
                    rank = Rank.parse(ch)
                except CardError:
                    raise CardError(f"hand {text!r}: {ch!r} is not a rank in {suit.symbol}") from None
                bit = 1 << (suit * 13 + rank - 2)
                if mask & bit:
                    raise CardError(f"hand {text!r}: {suit.symbol}{rank.char} appears twice")
                mask |= bit
        return cls.from_mask(mask)

    def to_pbn(self) -> str:
        return ".".join(str(self.suit(s)) for s in SUITS_DESCENDING)

    def suit(self, suit: Suit) -> SuitHolding:
        return SuitHolding(suit, self._mask >> (suit * 13) & _SUIT_MASK)

    def suit_length(self, suit: Suit) -> int:
        return (self._mask >> (suit * 13) & _SUIT_MASK).bit_count()

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """Suit lengths in spades, hearts, diamonds, clubs order."""
        m = self._mask
        return (
            (m >> 39 & _SUIT_MASK).bit_count(),
            (m >> 26 & _SUIT_MASK).bit_count(),
            (m >> 13 & _SUIT_MASK).bit_count(),
            (m & _SUIT_MASK).bit_count(),
        )

    @property
    def hcp(self) -> int:
        """Milton Work high-card points."""
        m = self._mask
        total = 0
        for base in (0, 13, 26, 39):
            s = m >> base
            total += 4 * (s >> 12 & 1) + 3 * (s >> 11 & 1) + 2 * (s >> 10 & 1) + (s >> 9 & 1)
        return total

    @property
    def cards(self) -> list[Card]:
        """The cards, spades first and highest first within a suit."""
        m = self._mask
        return [Card(i) for i in range(51, -1, -1) if m >> i & 1]

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return self._mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 52 and bool(self._mask >> card & 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other._mask == self._mask

    def __hash__(self) -> int:
        return hash(self._mask)

    def __or__(self, other: Hand) -> Hand:
        return Hand.from_mask(self._mask | other._mask)

    def __sub__(self, other: Hand) -> Hand:
        return Hand.from_mask(self._mask & ~other._mask)

    def add(self, card: Card) -> Hand:
        return Hand.from_mask(self._mask | 1 << card)

    def remove(self, card: Card) -> Hand:
        return Hand.from_mask(self._mask & ~(1 << card))

    def __str__(self) -> str:
        return self.to_pbn()

    def __repr__(self) -> str:
        return f"Hand.from_pbn({self.to_pbn()!r})"
