"""Cards, suits, ranks and strains.

A :class:`Card` is a small ``int`` from 0 to 51: ``suit * 13 + (rank - 2)``,
with clubs 0, diamonds 1, hearts 2 and spades 3. The 52 cards are singletons,
so they cost nothing to hold and compare.

>>> Card.parse("SA"), Card.parse("AS"), Card.parse("♠A"), Card.parse("10S")
(Card('SA'), Card('SA'), Card('SA'), Card('ST'))
>>> Card.parse("TH").suit, Card.parse("TH").rank
(<Suit.HEARTS: 2>, <Rank.TEN: 10>)
>>> str(Card.parse("qd")), Card.parse("qd").symbol
('DQ', '♦Q')
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum

from dealer.errors import CardError


class Suit(IntEnum):
    """The four suits in bridge order, lowest first."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def is_major(self) -> bool:
        return self >= Suit.HEARTS

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit letter or symbol: ``S``, ``s``, ``♠``, ``♤``."""
        key = text.strip().upper()
        try:
            return _SUIT_BY_TEXT[key]
        except KeyError:
            raise CardError(f"unknown suit {text!r} (use S, H, D, C or ♠ ♥ ♦ ♣)") from None

    def __str__(self) -> str:
        return self.letter


#: Suits in the order deal files and diagrams list them: spades first.
SUITS_DESCENDING: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)

_SUIT_BY_TEXT: dict[str, Suit] = {}
for _s in Suit:
    _SUIT_BY_TEXT[_s.letter] = _s
    _SUIT_BY_TEXT[_s.symbol] = _s
for _sym, _s in zip("♧♢♡♤", Suit, strict=True):
    _SUIT_BY_TEXT[_sym] = _s


class Rank(IntEnum):
    """Card ranks, valued 2 to 14 so that comparisons read naturally."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        return "23456789TJQKA"[self - 2]

    @property
    def hcp(self) -> int:
        """Milton Work high-card points: A=4, K=3, Q=2, J=1."""
        return max(0, self - 10)

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``A``, ``K``, ``Q``, ``J``, ``T``, ``10`` or ``2``–``9``."""
        key = text.strip().upper()
        try:
            return _RANK_BY_TEXT[key]
        except KeyError:
            raise CardError(f"unknown rank {text!r} (use A K Q J T 9 … 2)") from None

    def __str__(self) -> str:
        return self.char


_RANK_BY_TEXT: dict[str, Rank] = {r.char: r for r in Rank}
_RANK_BY_TEXT["10"] = Rank.TEN


class Card(int):
    """One of the 52 cards; an ``int`` from 0 (♣2) to 51 (♠A)."""

    __slots__ = ()
    _cache: list[Card] = []

    def __new__(cls, index_or_suit: int | Suit, rank: int | Rank | None = None) -> Card:
        if rank is not None:
            if not 2 <= rank <= 14:
                raise CardError(f"rank {rank} is not between 2 and 14")
            index_or_suit = int(index_or_suit) * 13 + int(rank) - 2
        if cls._cache and 0 <= index_or_suit < 52:
            return cls._cache[index_or_suit]
        if not 0 <= index_or_suit < 52:
            raise CardError(f"card index {index_or_suit} is not between 0 and 51")
        return int.__new__(cls, index_or_suit)

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def rank(self) -> Rank:
        return Rank(self % 13 + 2)

    @property
    def hcp(self) -> int:
        return max(0, self % 13 - 8)

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, as printed on a diagram: ``♠A``."""
        return self.suit.symbol + self.rank.char

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card written suit-first or rank-first, with letters or symbols."""
        t = text.strip()
        if len(t) < 2 or len(t) > 3:
            raise CardError(f"cannot read {text!r} as a card (try 'SA', 'AS', '♠A' or '10S')")
        first, rest = t[0], t[1:]
        if first.upper() in _SUIT_BY_TEXT and rest.upper() in _RANK_BY_TEXT:
            return cls(_SUIT_BY_TEXT[first.upper()], _RANK_BY_TEXT[rest.upper()])
        last, head = t[-1], t[:-1]
        if last.upper() in _SUIT_BY_TEXT and head.upper() in _RANK_BY_TEXT:
            return cls(_SUIT_BY_TEXT[last.upper()], _RANK_BY_TEXT[head.upper()])
        raise CardError(f"cannot read {text!r} as a card (try 'SA', 'AS', '♠A' or '10S')")

    @classmethod
    def all(cls) -> Iterator[Card]:
        """All 52 cards, ♣2 first."""
        return iter(cls._cache)

    def __str__(self) -> str:
        return self.suit.letter + self.rank.char

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


Card._cache = [Card(i) for i in range(52)]


class Strain(IntEnum):
    """A contract's denomination: the four suits, then no trumps (highest)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    NOTRUMP = 4

    @property
    def letter(self) -> str:
        return ("C", "D", "H", "S", "NT")[self]

    @property
    def symbol(self) -> str:
        return ("♣", "♦", "♥", "♠", "NT")[self]

    @property
    def suit(self) -> Suit | None:
        """The trump suit, or ``None`` at no trumps."""
        return None if self is Strain.NOTRUMP else Suit(int(self))

    @classmethod
    def parse(cls, text: str) -> Strain:
        key = text.strip().upper()
        if key in ("N", "NT", "SA"):  # SA: sans atout, as French sheets write it
            return cls.NOTRUMP
        try:
            return cls(int(Suit.parse(key)))
        except CardError:
            raise CardError(f"unknown strain {text!r} (use C, D, H, S or NT)") from None

    def __str__(self) -> str:
        return self.letter
