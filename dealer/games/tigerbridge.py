"""TigerBridge (seed 000): proclamations, rounds, set points, sets and games.

TigerBridge words: suits are *houses*, trumps *crests*, the contract the
*proclamation*, declarer the *proclaimer*, dummy the *lookout*, tricks
*rounds*, over/undertricks *roundsover*/*roundsunder*, a pass *declining*.

**Lost in the copy.** Seed 000's tables giving the house names with their
bidding rank, and the TigerBridge card ranking, did not survive. The text keeps
three names (towers, lakes, forests) and says No Crests ranks lowest. So the
house names, the house order and the card order are configuration
(:class:`TigerConfig`); the default is the standard suits in the standard order
and card order, below No Crests.

Readings (seed README, "000"):

* Bids are 5 to 9 rounds in five denominations: 25 bids, ranked by number,
  then by denomination with No Crests lowest. A bid of 7 means 7 rounds (not
  6+7). No doubles. Three declines in a row after a bid end the bidding; four
  declines: next deal, no score. The **last bidder** proclaims (rule 1).
* The defender on the proclaimer's left leads; the lookout's cards are shown
  after the first card; follow house; highest crest, else highest card of the
  house led, wins; the winner leads next.
* Each roundover gives the proclaimer's side 1 set point, each roundunder the
  defenders 1, each capped at 5; making the bid exactly gives 0.
* A side with at least 6 set points and a lead of at least 2 wins the set: 1
  game point, and a new set. It carries the excess, its set points minus
  max(6, loser + 2); the loser restarts from 0. Nothing carries once the game
  ends. The first side to 2 game points wins, 3-0 if the opponents won no set
  (the extra game point), otherwise 2-1.

>>> set_points(5, 10), set_points(5, 4), set_points(9, 4), set_points(7, 7)
((5, 0), (0, 1), (0, 5), (0, 0))
>>> balancing_point(10, 4), balancing_point(9, 6)
(7.0, 7.5)
>>> cfg = TigerConfig()
>>> [cfg.bid_name(b) for b in all_bids(cfg)[:6]]
['5 no crests', '5 clubs', '5 diamonds', '5 hearts', '5 spades', '6 no crests']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer.cards import Card, Rank, Suit
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.hand import Hand
from dealer.play import trick_winner
from dealer.seats import Seat, Side

MIN_ROUNDS, MAX_ROUNDS, SET_POINT_CAP = 5, 9, 5


class TigerError(BoardwrightError, ValueError):
    """A TigerBridge bid, card or score that the rules do not allow."""


@dataclass(frozen=True, slots=True)
class TigerConfig:
    """The parts of TigerBridge lost from seed 000, as configuration.

    ``house_names[s]`` is the display name of standard suit ``s`` (clubs=0 ...
    spades=3). ``house_order`` lists the suits from lowest to highest bidding
    rank; No Crests is always below them. ``card_order`` lists ranks from the
    lowest to the highest in play.
    """

    house_names: tuple[str, str, str, str] = ("clubs", "diamonds", "hearts", "spades")
    house_order: tuple[Suit, Suit, Suit, Suit] = (
        Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
    card_order: str = "23456789TJQKA"
    no_crests_name: str = "no crests"

    def __post_init__(self) -> None:
        if sorted(self.house_order) != list(Suit):
            raise TigerError("house_order must list each of the four houses once")
        if sorted(self.card_order.upper()) != sorted("23456789TJQKA"):
            raise TigerError("card_order must list the 13 ranks once: 2-9, T, J, Q, K, A")
        names = [n.strip().lower() for n in (*self.house_names, self.no_crests_name)]
        if len(set(names)) != 5 or not all(names):
            raise TigerError("the four house names and the No Crests name must differ")

    def rank_order(self) -> list[int]:
        """Power of each rank index (card % 13) in play, for :func:`trick_winner`."""
        order = self.card_order.upper()
        return [order.index(Rank(i + 2).char) for i in range(13)]

    def denomination_rank(self, house: Suit | None) -> int:
        """0 for No Crests, then 1-4 by ``house_order``."""
        return 0 if house is None else self.house_order.index(house) + 1

    def house_name(self, house: Suit | None) -> str:
        return self.no_crests_name if house is None else self.house_names[house]

    def parse_house(self, text: str) -> Suit | None:
        key = text.strip().lower()
        if key in (self.no_crests_name.lower(), "nc", "nt"):
            return None
        for s in Suit:
            if key in (self.house_names[s].lower(), s.letter.lower(), s.symbol):
                return s
        raise TigerError(f"unknown house {text!r} (houses: "
                         f"{', '.join([*self.house_names, self.no_crests_name])})")

    def bid_name(self, bid: TigerBid) -> str:
        return f"{bid.rounds} {self.house_name(bid.house)}"


@dataclass(frozen=True, slots=True)
class TigerBid:
    """A proclamation: ``rounds`` (5-9) with ``house`` as crests (``None``: No Crests)."""

    rounds: int
    house: Suit | None

    def __post_init__(self) -> None:
        if not MIN_ROUNDS <= self.rounds <= MAX_ROUNDS:
            raise TigerError(f"a bid is for 5 to 9 rounds, not {self.rounds}")

    def rank(self, config: TigerConfig) -> int:
        return (self.rounds - MIN_ROUNDS) * 5 + config.denomination_rank(self.house)

    @classmethod
    def parse(cls, text: str, config: TigerConfig) -> TigerBid:
        """Read ``7 lakes``, ``5 no crests``, ``6S``, ``9NC``."""
        t = text.strip()
        if not t or not t[0].isdigit():
            raise TigerError(f"cannot read bid {text!r} (write e.g. '7 lakes' or '5 no crests')")
        return cls(int(t[0]), config.parse_house(t[1:].strip()))


def all_bids(config: TigerConfig) -> list[TigerBid]:
    """The 25 bids, lowest first."""
    houses: list[Suit | None] = [None, *config.house_order]
    return [TigerBid(n, h) for n in range(MIN_ROUNDS, MAX_ROUNDS + 1) for h in houses]


DECLINE = "decline"


class TigerAuction:
    """The bidding: bids or declines, clockwise from the dealer's left (rule 16)."""

    def __init__(self, dealer: Seat, config: TigerConfig | None = None) -> None:
        self.dealer = dealer
        self.config = config or TigerConfig()
        self.calls: list[TigerBid | str] = []

    @property
    def next_seat(self) -> Seat:
        return self.dealer.lho.rotate(len(self.calls))

    def _last_bid(self) -> tuple[int, TigerBid] | None:
        for i in range(len(self.calls) - 1, -1, -1):
            c = self.calls[i]
            if isinstance(c, TigerBid):
                return i, c
        return None

    @property
    def is_complete(self) -> bool:
        if self._last_bid() is None:
            return len(self.calls) >= 4  # all four declined: next deal, no score
        return len(self.calls) >= 4 and all(c == DECLINE for c in self.calls[-3:])

    def call(self, call: TigerBid | str, seat: Seat | None = None) -> None:
        """Bid or decline; raises :class:`TigerError` with the reason if not allowed."""
        where = f"call {len(self.calls) + 1} ({self.next_seat.letter})"
        if self.is_complete:
            raise TigerError(f"{where}: the bidding is over")
        if seat is not None and seat != self.next_seat:
            raise TigerError(f"{where}: {seat.letter} bid out of turn")
        if isinstance(call, str):
            key = call.strip().lower()
            if key in ("decline", "pass", "p", "-"):
                self.calls.append(DECLINE)
                return
            if key in ("x", "xx", "double", "redouble"):
                raise TigerError(f"{where}: TigerBridge has no doubles or redoubles")
            call = TigerBid.parse(call, self.config)
        last = self._last_bid()
        if last is not None and call.rank(self.config) <= last[1].rank(self.config):
            raise TigerError(f"{where}: {self.config.bid_name(call)} is not higher than "
                             f"{self.config.bid_name(last[1])}")
        self.calls.append(call)

    @property
    def proclamation(self) -> tuple[Seat, TigerBid] | None:
        """(proclaimer, bid) once the bidding is over: the **last** bidder (rule 1).

        ``None`` while bidding or when all four declined.
        """
        last = self._last_bid()
        if not self.is_complete or last is None:
            return None
        return self.dealer.lho.rotate(last[0]), last[1]


def set_points(bid_rounds: int, rounds_taken: int) -> tuple[int, int]:
    """(proclaimer's side, defenders) set points for one deal, each capped at 5."""
    if not 0 <= rounds_taken <= 13:
        raise TigerError(f"{rounds_taken} rounds is impossible: a deal has 0 to 13")
    TigerBid(bid_rounds, None)  # validates 5-9
    diff = rounds_taken - bid_rounds
    return (min(diff, SET_POINT_CAP), 0) if diff >= 0 else (0, min(-diff, SET_POINT_CAP))


def balancing_point(rounds_a: int, rounds_b: int) -> float:
    """The bid at which A proclaiming and B proclaiming give A the same set points.

    A proclaiming n with ``rounds_a`` available earns rounds_a - n; B proclaiming
    n with ``rounds_b`` available gives A n - rounds_b. Equal at the midpoint
    (seed 000, "A Question of Balance"; ignoring the cap of 5).
    """
    return (rounds_a + rounds_b) / 2


class TigerPlay:
    """The play of one deal: follow house; crest or highest of the house led wins."""

    def __init__(self, deal: Deal, proclaimer: Seat, bid: TigerBid,
                 config: TigerConfig | None = None) -> None:
        self.deal = deal
        self.proclaimer = proclaimer
        self.bid = bid
        self.config = config or TigerConfig()
        self._order = self.config.rank_order()
        self.tricks: list[tuple[Seat, list[Card]]] = [(proclaimer.lho, [])]
        self._played = 0

    @property
    def lookout(self) -> Seat:
        return self.proclaimer.partner

    @property
    def lookout_shown(self) -> bool:
        """The lookout turns his cards up after the first card (rule 8)."""
        return self._played > 0

    @property
    def next_seat(self) -> Seat:
        leader, cards = self.tricks[-1]
        return leader.rotate(len(cards))

    def held(self, seat: Seat) -> Hand:
        return Hand.from_mask(self.deal.hand(seat).mask & ~self._played)

    def play(self, card: Card | str) -> None:
        c = Card.parse(card) if isinstance(card, str) else card
        leader, cards = self.tricks[-1]
        seat = self.next_seat
        where = f"round {len(self.tricks)}, card {len(cards) + 1} ({seat.letter})"
        if self.is_complete:
            raise TigerError(f"{where}: all 13 rounds have been played")
        held = self.held(seat)
        if c not in held:
            raise TigerError(f"{where}: {c} is not in {seat.title}'s hand")
        if cards and c.suit != cards[0].suit and held.suit_length(cards[0].suit):
            raise TigerError(f"{where}: {c} does not follow house "
                             f"{self.config.house_name(cards[0].suit)}")
        cards.append(c)
        self._played |= 1 << int(c)
        if len(cards) == 4 and len(self.tricks) < 13:
            self.tricks.append((self.winner(len(self.tricks) - 1), []))

    def winner(self, index: int) -> Seat:
        leader, cards = self.tricks[index]
        return trick_winner(cards, leader, self.bid.house, self._order)

    @property
    def is_complete(self) -> bool:
        return len(self.tricks) == 13 and len(self.tricks[-1][1]) == 4

    @property
    def proclaimer_rounds(self) -> int:
        side = self.proclaimer.is_ns
        return sum(1 for i, (_, cards) in enumerate(self.tricks)
                   if len(cards) == 4 and self.winner(i).is_ns == side)


@dataclass
class TigerGame:
    """Set points, sets and game points of one TigerBridge game between NS and EW."""

    set_points: dict[Side, int] = field(default_factory=lambda: {Side.NS: 0, Side.EW: 0})
    game_points: dict[Side, int] = field(default_factory=lambda: {Side.NS: 0, Side.EW: 0})
    sets: list[Side] = field(default_factory=list)
    winner: Side | None = None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def record(self, proclaimer: Seat | Side, bid_rounds: int, rounds_taken: int) -> str | None:
        """Score one deal; returns a note when a set or the game was won."""
        if self.is_over:
            raise TigerError("the game is over")
        side = proclaimer if isinstance(proclaimer, Side) else Side.of(proclaimer)
        mine, theirs = set_points(bid_rounds, rounds_taken)
        self.set_points[side] += mine
        self.set_points[side.other] += theirs
        scorer = side if mine else side.other
        return self._check_set(scorer) if mine or theirs else None

    def record_all_declined(self) -> None:
        """All four declined: next deal, no score (rule 18)."""

    def _check_set(self, s: Side) -> str | None:
        o = s.other
        mine, theirs = self.set_points[s], self.set_points[o]
        if mine < 6 or mine - theirs < 2:
            return None
        self.sets.append(s)
        self.game_points[s] += 1
        if self.game_points[s] == 2:
            if self.game_points[o] == 0:
                self.game_points[s] += 1  # the extra game point: 3-0
            self.winner = s
            self.set_points = {Side.NS: 0, Side.EW: 0}  # nothing carries past the game
            return f"{s.value} win the game {self.score}"
        excess = mine - max(6, theirs + 2)
        self.set_points = {s: excess, o: 0}
        return f"{s.value} win set {len(self.sets)} and carry {excess}"

    @property
    def score(self) -> str:
        """The game score, e.g. ``2-1``, winner first once the game is over."""
        w = self.winner or Side.NS
        return f"{self.game_points[w]}-{self.game_points[w.other]}"

