"""The play of the cards: legal cards, tricks, dummy, claims and revokes.

Rules from seed 002 ("The Play") and the WBF Laws 2017: declarer's left-hand
opponent leads (Law 41), dummy is exposed after the opening lead (Law 41D),
each player follows suit if able (Law 44C), the highest trump or else the
highest card of the suit led wins (Law 44E-F), and the winner leads next
(Law 44G). A revoke is a failure to follow suit when able (Law 61); a claim
states how many of the remaining tricks declarer's side takes (Law 68).

A :class:`Play` can be strict (the deal is known and every card is checked as
it is played) or recording (``enforce=False``, or no deal yet, e.g. while a
camera reads cards): then cards that do not follow suit are kept, and
:meth:`Play.revokes` finds the revokes, with evidence, once the deal is known.

>>> from dealer.deal import Deal
>>> from dealer.contract import Contract
>>> deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
>>> p = Play(Contract.parse("7NT N"), deal)
>>> p.next_seat, p.dummy_exposed
(<Seat.EAST: 1>, False)
>>> _ = p.play("ST"); p.dummy_exposed, [str(c) for c in p.legal_cards()]
(True, ['S6', 'S5', 'S4', 'S3'])
>>> try:
...     p.play("C5")
... except PlayError as e:
...     print(e)
trick 1, card 2 (S): C5 is not in South's hand
>>> for c in ("S3", "S2", "SA"): _ = p.play(c)
>>> p.tricks[0].winner, p.next_seat, p.declarer_tricks
(<Seat.NORTH: 0>, <Seat.NORTH: 0>, 1)
>>> p.claim(12); p.result
13
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import overload

from dealer.cards import Card, Suit
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.hand import Hand
from dealer.seats import Seat


class PlayError(BoardwrightError, ValueError):
    """A card cannot be played now; the message names the trick, card and reason."""


@overload
def trick_winner(cards: Sequence[Card], leader: Seat, trump: Suit | None,
                 rank_order: Sequence[int] | None = None, *, players: int = 4) -> Seat: ...
@overload
def trick_winner(cards: Sequence[Card], leader: int, trump: Suit | None,
                 rank_order: Sequence[int] | None = None, *, players: int = 4) -> int: ...
def trick_winner(cards: Sequence[Card], leader: int, trump: Suit | None,
                 rank_order: Sequence[int] | None = None, *, players: int = 4) -> int:
    """The seat that wins a trick of up to ``players`` cards played from ``leader`` on.

    The one statement of Law 44E-F in boardwright: the highest trump wins, else
    the highest card of the suit led. Every game and reader asks here. With a
    :class:`Seat` as ``leader`` the answer is a Seat; with a plain index (a
    table of 3 to 10 players, as in Bugger Bridge) it is the index
    ``(leader + k) % players``. ``rank_order`` re-ranks cards for variants
    (TigerBridge): the power of a card is ``rank_order[card % 13]``.

    >>> trick_winner([Card.parse(c) for c in ("HK", "HA", "S2", "H3")], Seat.WEST, Suit.SPADES)
    <Seat.EAST: 1>
    >>> trick_winner([Card.parse(c) for c in ("HK", "HA", "S2", "H3")], Seat.WEST, None)
    <Seat.NORTH: 0>
    >>> trick_winner([Card.parse(c) for c in ("H5", "HK", "C2")], 2, Suit.CLUBS, players=3)
    1
    """
    if not cards:
        raise PlayError("an empty trick has no winner")
    led = cards[0].suit

    def power(card: Card) -> tuple[int, int]:
        rank = card % 13 if rank_order is None else rank_order[card % 13]
        if trump is not None and card.suit == trump:
            return (2, rank)
        return (1, rank) if card.suit == led else (0, rank)

    best = max(range(len(cards)), key=lambda i: power(cards[i]))
    if isinstance(leader, Seat):
        return leader.rotate(best)
    return (leader + best) % players


@dataclass(slots=True)
class Trick:
    """One trick: its leader and the cards in the order played."""

    leader: Seat
    cards: list[Card] = field(default_factory=list)
    winner: Seat | None = None

    def seat_of(self, index: int) -> Seat:
        return self.leader.rotate(index)

    @property
    def suit_led(self) -> Suit | None:
        return self.cards[0].suit if self.cards else None

    @property
    def is_complete(self) -> bool:
        return len(self.cards) == 4


@dataclass(frozen=True, slots=True)
class Revoke:
    """A revoke found after the fact, with its evidence.

    ``held`` lists the cards of the suit led that ``seat`` still held when it
    played ``card`` to trick ``trick`` (1-based).
    """

    trick: int
    seat: Seat
    card: Card
    suit_led: Suit
    held: tuple[Card, ...]

    def __str__(self) -> str:
        held = " ".join(c.symbol for c in self.held)
        return (f"trick {self.trick}: {self.seat.title} played {self.card.symbol} "
                f"to a {self.suit_led.symbol} lead while holding {held}")


class Play:
    """The play of one deal under ``contract`` (which must name its declarer)."""

    def __init__(self, contract: Contract, deal: Deal | None = None, *,
                 enforce: bool = True) -> None:
        if contract.is_passed_out:
            raise PlayError("a passed-out deal has no play")
        if contract.declarer is None:
            raise PlayError(f"contract {contract.ascii} has no declarer, so no one can lead")
        self.contract = contract
        self.declarer: Seat = contract.declarer
        self.trump: Suit | None = contract.strain.suit if contract.strain is not None else None
        self.deal = deal
        self.enforce = enforce
        self.tricks: list[Trick] = [Trick(self.declarer.lho)]
        self.claimed: int | None = None  # declarer-side tricks of those left, when claimed
        self._played: set[int] = set()
        self._played_mask = [0, 0, 0, 0]  # by seat: what remaining() takes off the hand
        self._done = 0  # completed tricks
        self.faults: list[str] = []  # what :meth:`record` kept although it broke a rule

    # -- state -------------------------------------------------------------------
    @property
    def dummy(self) -> Seat:
        return self.declarer.partner

    @property
    def opening_leader(self) -> Seat:
        return self.declarer.lho

    @property
    def dummy_exposed(self) -> bool:
        """Dummy's hand is face up once the opening lead has been made (Law 41D)."""
        return bool(self.tricks[0].cards)

    @property
    def current(self) -> Trick:
        return self.tricks[-1]

    @property
    def completed_tricks(self) -> list[Trick]:
        return [t for t in self.tricks if t.is_complete]

    @property
    def is_complete(self) -> bool:
        return self.claimed is not None or self._done == 13

    @property
    def next_seat(self) -> Seat:
        t = self.current
        return t.leader.rotate(len(t.cards))

    @property
    def declarer_tricks(self) -> int:
        return sum(1 for t in self.completed_tricks if t.winner is not None
                   and t.winner.is_ns == self.declarer.is_ns)

    @property
    def defender_tricks(self) -> int:
        return len(self.completed_tricks) - self.declarer_tricks

    @property
    def result(self) -> int | None:
        """Declarer's total tricks once the play is over (played out or claimed)."""
        if self.claimed is not None:
            return self.declarer_tricks + self.claimed
        return self.declarer_tricks if self.is_complete else None

    def played_by(self, seat: Seat) -> list[Card]:
        """The cards ``seat`` has played so far, in order."""
        out = []
        for t in self.tricks:
            for i, c in enumerate(t.cards):
                if t.seat_of(i) == seat:
                    out.append(c)
        return out

    def remaining(self, seat: Seat) -> Hand:
        """The cards ``seat`` still holds (needs the deal)."""
        if self.deal is None:
            raise PlayError("the deal is not known, so the cards held are not known")
        hand = self.deal.hand(seat)
        return Hand.from_mask(hand.mask & ~self._played_mask[seat])

    @property
    def dummy_cards(self) -> Hand | None:
        """Dummy's remaining cards once exposed (``None`` before the lead or without a deal)."""
        if not self.dummy_exposed or self.deal is None:
            return None
        return self.remaining(self.dummy)

    def legal_cards(self, seat: Seat | None = None) -> list[Card]:
        """The cards the player in turn may play: follow suit if able (Law 44C)."""
        who = self.next_seat if seat is None else seat
        held = self.remaining(who).cards
        led = self.current.suit_led
        if led is None or who != self.next_seat:
            return held
        following = [c for c in held if c.suit == led]
        return following or held

    # -- actions -----------------------------------------------------------------
    def _where(self) -> str:
        t = self.current
        return f"trick {len(self.tricks)}, card {len(t.cards) + 1} ({self.next_seat.letter})"

    def why_illegal(self, card: Card) -> str | None:
        """The reason ``card`` may not be played now, or ``None``."""
        if self.is_complete:
            return "the play is over"
        if int(card) in self._played:
            return f"{card} has already been played"
        if self.deal is None:
            return None
        seat = self.next_seat
        held = self.remaining(seat)
        if card not in held:
            if self.deal.owner(card) is None and self.deal.partial:
                return None  # unknown hand in a partial deal: accept and trust
            return f"{card} is not in {seat.title}'s hand"
        led = self.current.suit_led
        if self.enforce and led is not None and card.suit != led and held.suit_length(led):
            suit_cards = " ".join(str(c) for c in held.cards if c.suit == led)
            return f"{card} does not follow suit: {seat.title} must play {led.symbol} ({suit_cards})"
        return None

    def play(self, card: Card | str, seat: Seat | str | None = None) -> Card:
        """Play the next card; ``seat`` (optional) is checked against the turn."""
        c = Card.parse(card) if isinstance(card, str) else Card(card)
        who = Seat.parse(seat) if isinstance(seat, str) else seat
        if who is not None and who != self.next_seat and not self.is_complete:
            raise PlayError(f"{self._where()}: {c} played out of turn by {who.letter}")
        reason = self.why_illegal(c)
        if reason is not None:
            raise PlayError(f"{self._where()}: {reason}")
        self.record(c)
        return c

    def record(self, card: Card | str) -> str | None:
        """Put the next card on the table as a record says it was played, even against the rules.

        A file or a scorer's record is history: the card it names is kept where
        the record puts it, never moved or dropped, and what is wrong with it is
        returned and kept in :attr:`faults` (``"trick 2, card 1 (E): ..."``), so
        the reader can say so. ``None`` when the card was legal. Only a card after
        the play is over cannot be kept: there is no trick for it.

        >>> from dealer.deal import Deal
        >>> deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
        >>> p = Play(Contract.parse("1NT S"), deal, enforce=False)
        >>> p.record("C2"), p.record("C2")
        (None, 'C2 has already been played')
        >>> p.faults, [str(c) for c in p.tricks[0].cards]
        (['trick 1, card 2 (N): C2 has already been played'], ['C2', 'C2'])
        """
        c = Card.parse(card) if isinstance(card, str) else Card(card)
        reason = self.why_illegal(c)
        if reason is not None:
            self.faults.append(f"{self._where()}: {reason}")
            if self.is_complete:
                return reason
        t = self.current
        self._played_mask[self.next_seat] |= 1 << int(c)
        t.cards.append(c)
        self._played.add(int(c))
        if t.is_complete:
            t.winner = trick_winner(t.cards, t.leader, self.trump)
            self._done += 1
            if len(self.tricks) < 13:
                self.tricks.append(Trick(t.winner))
        return reason

    def claim(self, declarer_tricks: int) -> None:
        """Record a claim or concession: declarer's side takes this many of the tricks left.

        The trick in progress counts as one of the tricks left.
        """
        left = 13 - len(self.completed_tricks)
        if self.is_complete:
            raise PlayError("the play is already over; nothing is left to claim")
        if not 0 <= declarer_tricks <= left:
            raise PlayError(f"a claim of {declarer_tricks} tricks is impossible: {left} are left")
        self.claimed = declarer_tricks

    # -- after the fact ----------------------------------------------------------
    def revokes(self, deal: Deal | None = None) -> list[Revoke]:
        """Every card that failed to follow suit while its player held the suit led.

        Uses ``deal`` (or the play's own deal). A revoke is established from the
        full record, so this also runs on a play recorded before the deal was
        known (Law 61-64 leave the rectification to the Director).
        """
        d = deal if deal is not None else self.deal
        if d is None:
            raise PlayError("revokes can only be found once the deal is known")
        played_mask = [0, 0, 0, 0]
        found: list[Revoke] = []
        for number, t in enumerate(self.tricks, start=1):
            led = t.suit_led
            for i, c in enumerate(t.cards):
                seat = t.seat_of(i)
                held = d.hand(seat).mask & ~played_mask[seat]
                if led is not None and i > 0 and c.suit != led:
                    evidence = tuple(x for x in Hand.from_mask(held).cards if x.suit == led)
                    if evidence:
                        found.append(Revoke(number, seat, c, led, evidence))
                played_mask[seat] |= 1 << int(c)
        return found

    @property
    def beer_card(self) -> Seat | None:
        """Who earns a beer by the Beer Card tradition (seed 002 "The Beer Card").

        If the last trick is won with ♦7 by declarer's side and the contract
        makes, or by a defender and the contract fails, the player of the ♦7 is
        bought a beer (by dummy, or by the partner). Not a law: a club custom
        the panel may show. ``None`` otherwise, or when the play was claimed.
        """
        if len(self.completed_tricks) != 13 or self.claimed is not None:
            return None
        last = self.tricks[12]
        assert last.winner is not None
        card = last.cards[(last.winner - last.leader) % 4]
        if card != Card.parse("D7"):
            return None
        made = self.declarer_tricks >= self.contract.tricks_needed
        on_declarer_side = last.winner.is_ns == self.declarer.is_ns
        return last.winner if made == on_declarer_side else None

    def card_sequence(self) -> list[Card]:
        """All cards played, in the order played."""
        return [c for t in self.tricks for c in t.cards]


def replay(contract: Contract, cards: Iterable[Card | str], deal: Deal | None = None, *,
           enforce: bool = True) -> Play:
    """Replay recorded cards in play order, checking each one.

    The first illegal card raises :class:`PlayError` naming the trick, card
    and reason. A card that cannot be read is reported by its position.

    >>> from dealer.deal import Deal
    >>> deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    >>> replay(Contract.parse("1NT S"), ["C2", "CK", "CJ", "C6"], deal).tricks[0].winner
    <Seat.NORTH: 0>
    >>> try:
    ...     replay(Contract.parse("1NT S"), ["C2", "CK", "HT"], deal)
    ... except PlayError as e:
    ...     print(e)
    trick 1, card 3 (E): HT does not follow suit: East must play ♣ (CJ CT C9)
    """
    p = Play(contract, deal, enforce=enforce)
    for n, item in enumerate(cards, start=1):
        try:
            card = Card.parse(item) if isinstance(item, str) else Card(item)
        except BoardwrightError as e:
            raise PlayError(f"{p._where()}: card {n} of the record: {e}") from None
        p.play(card)
    return p
