"""A deal: four hands.

The four hands live in one Python ``int`` of 208 bits (four 52-bit masks,
North in the lowest bits), so hundreds of thousands of deals cost a few
megabytes and comparing two deals is one integer comparison.

A full deal is checked to hold 52 distinct cards, 13 in each hand. A partial
deal (fewer cards, or an unknown hand written ``-``) must be asked for with
``partial=True``; its cards must still be distinct.

>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> d[Seat.EAST].to_pbn()
'T987.765.432.AKQ'
>>> d.to_pbn(Seat.WEST)
'W:32.AKQJ.T98.8765 AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9'
>>> d.owner(Card.parse("HA"))
<Seat.WEST: 3>
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from dealer.cards import Card
from dealer.errors import CardError, DealError
from dealer.hand import ALL_CARDS_MASK, Hand
from dealer.seats import Seat


class Deal:
    """Four hands, indexed by :class:`Seat`. Immutable and hashable."""

    __slots__ = ("_bits", "partial")

    def __init__(
        self,
        hands: Mapping[Seat, Hand] | Iterable[Hand],
        *,
        partial: bool = False,
    ) -> None:
        if isinstance(hands, Mapping):
            ordered = [hands.get(s, Hand()) for s in Seat]
        else:
            ordered = list(hands)
        if len(ordered) != 4:
            raise DealError(f"a deal has four hands, not {len(ordered)}")
        bits = 0
        for seat, hand in zip(Seat, ordered, strict=True):
            bits |= hand.mask << (52 * seat)
        self._bits = bits
        self.partial = partial
        self.validate()

    @classmethod
    def from_bits(cls, bits: int, *, partial: bool = False, validate: bool = True) -> Deal:
        """Build from the packed encoding (see :attr:`bits`)."""
        d = object.__new__(cls)
        d._bits = bits
        d.partial = partial
        if validate:
            d.validate()
        return d

    @classmethod
    def from_owners(cls, owners: Iterable[Seat | int]) -> Deal:
        """Build a full deal from the owner of each card, card 0 (♣2) first."""
        masks = [0, 0, 0, 0]
        count = 0
        for card, seat in enumerate(owners):
            masks[seat] |= 1 << card
            count += 1
        if count != 52:
            raise DealError(f"owner list has {count} entries, not 52")
        return cls.from_bits(masks[0] | masks[1] << 52 | masks[2] << 104 | masks[3] << 156)

    @property
    def bits(self) -> int:
        """The packed encoding: four 52-bit masks, North lowest."""
        return self._bits

    def hand(self, seat: Seat) -> Hand:
        return Hand.from_mask(self._bits >> (52 * seat) & ALL_CARDS_MASK)

    __getitem__ = hand

    @property
    def hands(self) -> tuple[Hand, Hand, Hand, Hand]:
        return tuple(self.hand(s) for s in Seat)  # type: ignore[return-value]

    def owner(self, card: Card | int) -> Seat | None:
        """Which seat holds ``card``, or ``None`` in a partial deal."""
        for seat in Seat:
            if self._bits >> (52 * seat + card) & 1:
                return seat
        return None

    def owners(self) -> list[Seat | None]:
        """The owner of each card, card 0 (♣2) first."""
        return [self.owner(c) for c in range(52)]

    @property
    def is_complete(self) -> bool:
        # Bit counts, not Hand objects: `deals check` asks this of every board of a big file.
        bits = self._bits
        return all((bits >> (52 * s) & ALL_CARDS_MASK).bit_count() == 13 for s in range(4))

    def validate(self) -> None:
        """Raise :class:`DealError` if the hands overlap, or (full deals) are not 13 each."""
        seen = 0
        for seat in Seat:
            m = self._bits >> (52 * seat) & ALL_CARDS_MASK
            clash = seen & m
            if clash:
                card = Card((clash & -clash).bit_length() - 1)
                raise DealError(f"{card.symbol} is in two hands ({seat.title} and another)")
            seen |= m
        if self._bits >> 208:
            raise DealError("deal encoding has bits beyond the four hands")
        if self.partial:
            return
        for seat in Seat:
            n = len(self.hand(seat))
            if n != 13:
                missing = [Card(i).symbol for i in range(52) if not seen >> i & 1]
                extra = f"; missing {' '.join(missing)}" if missing else ""
                raise DealError(f"{seat.title} has {n} cards, not 13{extra}")

    @classmethod
    def from_pbn(cls, text: str, *, partial: bool = False) -> Deal:
        """Parse a PBN deal string: ``"N:hand hand hand hand"``, clockwise from the first seat.

        A hand written ``-`` is unknown; that makes the deal partial (allowed only
        with ``partial=True``, except that a single unknown hand in an otherwise
        full deal is filled in with the 13 remaining cards, as PBN allows).
        """
        s = text.strip()
        if len(s) < 2 or s[1] != ":":
            raise CardError(f"deal {text!r} must start with the first seat and a colon, like 'N:'")
        first = Seat.parse(s[0])
        parts = s[2:].split()
        if len(parts) != 4:
            raise CardError(f"deal {text!r} must have four hands, not {len(parts)}")
        hands: dict[Seat, Hand] = {}
        unknown: list[Seat] = []
        for seat, part in zip(first.clockwise(), parts, strict=True):
            if part == "-":
                unknown.append(seat)
                hands[seat] = Hand()
            else:
                hands[seat] = Hand.from_pbn(part)
        if len(unknown) == 1 and not partial:
            others = sum(len(h) for h in hands.values())
            if others == 39:
                used = 0
                for h in hands.values():
                    used |= h.mask
                hands[unknown[0]] = Hand.from_mask(ALL_CARDS_MASK & ~used)
                unknown = []
        if unknown and not partial:
            raise DealError(f"deal {text!r} has unknown hands; read it as a partial deal")
        return cls(hands, partial=partial)

    def to_pbn(self, first: Seat = Seat.NORTH) -> str:
        out = []
        for seat in first.clockwise():
            h = self.hand(seat)
            out.append(h.to_pbn() if len(h) or not self.partial else "-")
        return f"{first.letter}:" + " ".join(out)

    def rotated(self, steps: int) -> Deal:
        """The deal with every hand moved ``steps`` seats clockwise."""
        bits = 0
        for seat in Seat:
            bits |= self.hand(seat).mask << (52 * seat.rotate(steps))
        return Deal.from_bits(bits, partial=self.partial, validate=False)

    def __iter__(self) -> Iterator[Hand]:
        return iter(self.hands)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and other._bits == self._bits

    def __hash__(self) -> int:
        return hash(self._bits)

    def __repr__(self) -> str:
        extra = ", partial=True" if self.partial else ""
        return f"Deal.from_pbn({self.to_pbn()!r}{extra})"

    def __reduce__(self) -> tuple[object, tuple[int, bool, bool]]:
        return (_restore, (self._bits, self.partial, False))


def _restore(bits: int, partial: bool, validate: bool) -> Deal:
    return Deal.from_bits(bits, partial=partial, validate=validate)
