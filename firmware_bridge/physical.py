"""Physical cards as the machine handles them: real deck cards and the odd ones.

A dealing machine does not know what a card is; it moves pieces of cardboard.
The emulator's hopper therefore holds :class:`PhysicalCard` objects, which may
be a joker, a card lying face down, or a card from another deck. Only the
camera (and so the host) can tell what each one is.

>>> deck = standard_deck("red")
>>> len(deck), deck[0], deck[-1]
(52, PhysicalCard('C2', deck='red'), PhysicalCard('SA', deck='red'))
>>> PhysicalCard.make_joker("red").label, PhysicalCard(Card.parse("SA"), "red", face_up=False).label
('joker', 'face-down')
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.cards import Card
from dealer.deal import Deal
from dealer.seats import Seat


@dataclass(frozen=True, slots=True)
class PhysicalCard:
    """One piece of cardboard in the hopper.

    ``card`` is ``None`` for a joker. ``deck_id`` names the deck it belongs to
    (the back design), so a stray card from another deck can be modelled.
    """

    card: Card | None
    deck_id: str = "A"
    face_up: bool = True
    joker: bool = False

    @classmethod
    def make_joker(cls, deck_id: str = "A") -> PhysicalCard:
        return cls(None, deck_id, True, True)

    @property
    def label(self) -> str:
        """What a camera would read: ``SA``, ``joker`` or ``face-down``."""
        if self.joker or self.card is None:
            return "joker"
        if not self.face_up:
            return "face-down"
        return str(self.card)

    def __repr__(self) -> str:
        extra = "" if self.face_up else ", face_up=False"
        body = "joker" if self.joker else repr(str(self.card))
        return f"PhysicalCard({body}, deck={self.deck_id!r}{extra})"


def standard_deck(deck_id: str = "A") -> list[PhysicalCard]:
    """The 52 cards of one deck, ♣2 first, ♠A last."""
    return [PhysicalCard(Card(i), deck_id) for i in range(52)]


def owner_pocket(deal: Deal, pc: PhysicalCard, *, deck_id: str | None = None) -> int | None:
    """The pocket (seat number 0..3) a physical card belongs in, or ``None`` to reject.

    Jokers, face-down cards and cards of another deck are rejected, because the
    camera cannot vouch for them.
    """
    if pc.joker or pc.card is None or not pc.face_up:
        return None
    if deck_id is not None and pc.deck_id != deck_id:
        return None
    seat: Seat | None = deal.owner(pc.card)
    return None if seat is None else int(seat)
