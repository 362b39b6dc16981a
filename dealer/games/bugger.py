"""Bugger Bridge (seed 001): 3 to 10 players, exact-bid scoring.

Readings (seed README, "001"):

* **Rounds.** m, the most cards each player gets, is 8 for 3-6 players and
  7, 6, 5, 4 for 7, 8, 9, 10 players. The rounds deal 1, 2, ..., m-1, then m,
  m NT, m NT, m, then m-1, ..., 1 cards: 2m+2 rounds (18, 16, 14, 12, 10).
* **Trump.** In a trump round the card after the deal is turned up and its
  suit is trump; in an NT round no card is turned.
* **Bidding.** Everyone bids (0 allowed, no passing), from the dealer's left
  round to the dealer. A bid may be changed until the next player bids. A bid
  out of turn stands (seed 001 "Irregular Bid"). After the bidding the round
  is announced "even", "over-bid" or "under-bid" (total bids vs cards dealt).
* **Points.** Making the bid exactly scores 10 + n(n+1)/2 (10, 11, 13, 16,
  20, 25, 31, 38, 46); anything else 0. An uncorrected revoke, or a wrong
  number of cards found after play started: redeal by the same dealer and -10
  for the offender.
* **Play.** The dealer's left leads; follow suit if able; the highest trump,
  else the highest card of the suit led, wins; the winner leads next.

>>> [len(schedule(n)) for n in (3, 6, 7, 8, 9, 10)]
[18, 18, 16, 14, 12, 10]
>>> [str(r) for r in schedule(10)]
['1', '2', '3', '4', '4NT', '4NT', '4', '3', '2', '1']
>>> [exact_bid_points(n) for n in range(9)]
[10, 11, 13, 16, 20, 25, 31, 38, 46]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dealer.cards import Card, Suit
from dealer.errors import BoardwrightError

PENALTY = 10


class BuggerError(BoardwrightError, ValueError):
    """A bid, result or round that the rules of Bugger Bridge do not allow."""


def max_cards(players: int) -> int:
    """m: the most cards each player is dealt (8 for 3-6 players, then 7 down to 4)."""
    if not 3 <= players <= 10:
        raise BuggerError(f"Bugger Bridge is for 3 to 10 players, not {players}")
    return 8 if players <= 6 else 14 - players


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One line of the score sheet: how many cards, and whether it is no trumps."""

    number: int
    cards: int
    no_trump: bool

    def __str__(self) -> str:
        return f"{self.cards}NT" if self.no_trump else str(self.cards)


def schedule(players: int) -> list[RoundSpec]:
    """The rounds of a game for ``players`` players (seed README reading)."""
    m = max_cards(players)
    plan = [(n, False) for n in range(1, m)]
    plan += [(m, False), (m, True), (m, True), (m, False)]
    plan += [(n, False) for n in range(m - 1, 0, -1)]
    return [RoundSpec(i, n, nt) for i, (n, nt) in enumerate(plan, start=1)]


def exact_bid_points(bid: int) -> int:
    """Points for making a bid of ``bid`` exactly: 10 + n(n+1)/2."""
    return 10 + bid * (bid + 1) // 2


@dataclass
class Round:
    """One round as played: its dealer, trump, bids, tricks and points."""

    spec: RoundSpec
    dealer: int                                   # index into the players
    turned: Card | None = None
    bids: dict[str, int] = field(default_factory=dict)
    fixed: set[str] = field(default_factory=set)  # bids that may no longer change
    tricks: dict[str, int] | None = None
    points: dict[str, int] = field(default_factory=dict)

    @property
    def trump(self) -> Suit | None:
        return None if self.turned is None else self.turned.suit


class BuggerGame:
    """A game of Bugger Bridge: rounds, bids, results, penalties and totals.

    ``players`` are listed clockwise; ``first_dealer`` is the index of the
    player who deals round 1 (found by drawing cards, seed 001 "Deal").
    """

    def __init__(self, players: Sequence[str], first_dealer: int = 0) -> None:
        names = [p.strip() for p in players]
        if len(set(names)) != len(names) or any(not n for n in names):
            raise BuggerError("each player needs a different, non-empty name")
        self.players = names
        self.plan = schedule(len(names))
        if not 0 <= first_dealer < len(names):
            raise BuggerError(f"first dealer {first_dealer} is not a player index")
        self.rounds: list[Round] = []
        self.penalties: list[tuple[int, str, str]] = []   # (round number, player, reason)
        self._dealer = first_dealer
        self.current: Round | None = None

    # -- the round in progress ------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return len(self.rounds) == len(self.plan)

    @property
    def next_spec(self) -> RoundSpec:
        if self.is_over:
            raise BuggerError("the game is over")
        return self.plan[len(self.rounds)]

    def bidding_order(self, dealer: int | None = None) -> list[str]:
        """Players in bidding order: the dealer's left first, the dealer last."""
        d = self._dealer if dealer is None else dealer
        n = len(self.players)
        return [self.players[(d + 1 + i) % n] for i in range(n)]

    def start_round(self, turned: Card | str | None = None) -> Round:
        """Deal the next round; ``turned`` is the turned-up card (trump rounds only)."""
        if self.current is not None:
            raise BuggerError(f"round {self.current.spec.number} is still in progress")
        spec = self.next_spec
        card = Card.parse(turned) if isinstance(turned, str) else turned
        if spec.no_trump and card is not None:
            raise BuggerError(f"round {spec.number} ({spec}) is no trumps: no card is turned up")
        if not spec.no_trump and card is None:
            raise BuggerError(f"round {spec.number} ({spec}): turn up the next card for trump")
        self.current = Round(spec, self._dealer, card)
        return self.current

    def _round(self) -> Round:
        if self.current is None:
            raise BuggerError("no round is in progress: start one first")
        return self.current

    def bid(self, player: str, tricks: int) -> None:
        """Record (or change) a bid. A bid may change until the next player bids."""
        r = self._round()
        if player not in self.players:
            raise BuggerError(f"{player!r} is not playing")
        if not 0 <= tricks <= r.spec.cards:
            raise BuggerError(f"round {r.spec.number}: {player} bid {tricks}, but only "
                              f"{r.spec.cards} card(s) each were dealt")
        if r.tricks is not None:
            raise BuggerError(f"round {r.spec.number} has been scored; bids are closed")
        order = self.bidding_order(r.dealer)
        if player in r.bids:
            nxt = order[order.index(player) + 1] if player != order[-1] else None
            if player in r.fixed or (nxt is not None and nxt in r.bids):
                who = f"{nxt} has bid" if nxt in r.bids else "it was made out of turn"
                raise BuggerError(f"round {r.spec.number}: {player}'s bid of {r.bids[player]} "
                                  f"can no longer be changed ({who})")
            r.bids[player] = tricks
            return
        in_turn = next(p for p in order if p not in r.bids)
        r.bids[player] = tricks
        if player != in_turn:
            r.fixed.add(player)  # a bid out of turn stands (seed 001 "Irregular Bid")
        # Once a player bids, every earlier bid in the order is final.
        for p in order[: order.index(player)]:
            if p in r.bids:
                r.fixed.add(p)

    def announcement(self) -> str:
        """'even', 'over-bid' or 'under-bid', once everyone has bid."""
        r = self._round()
        missing = [p for p in self.bidding_order(r.dealer) if p not in r.bids]
        if missing:
            raise BuggerError(f"round {r.spec.number}: still to bid: {', '.join(missing)}")
        total = sum(r.bids.values())
        if total == r.spec.cards:
            return "even"
        return "over-bid" if total > r.spec.cards else "under-bid"

    def record_tricks(self, tricks: Mapping[str, int]) -> dict[str, int]:
        """Score the round from the tricks each player took; returns the points."""
        r = self._round()
        self.announcement()  # everyone must have bid
        missing = [p for p in self.players if p not in tricks]
        if missing:
            raise BuggerError(f"round {r.spec.number}: tricks missing for {', '.join(missing)}")
        total = sum(tricks[p] for p in self.players)
        if total != r.spec.cards or any(tricks[p] < 0 for p in self.players):
            raise BuggerError(f"round {r.spec.number}: the tricks add up to {total}, "
                              f"but {r.spec.cards} were played")
        r.tricks = {p: tricks[p] for p in self.players}
        r.points = {p: exact_bid_points(r.bids[p]) if r.bids[p] == tricks[p] else 0
                    for p in self.players}
        self.rounds.append(r)
        self.current = None
        self._dealer = (self._dealer + 1) % len(self.players)  # the deal passes clockwise
        return r.points

    def penalty(self, player: str, reason: str = "revoke") -> None:
        """-10 for an uncorrected revoke or a wrong number of cards; the same dealer
        redeals the same round (seed 001 "Revoke", "Insufficient or Too Many Cards")."""
        r = self._round()
        if player not in self.players:
            raise BuggerError(f"{player!r} is not playing")
        self.penalties.append((r.spec.number, player, reason))
        self.current = None  # redeal: same round, same dealer

    # -- results --------------------------------------------------------------------
    def totals(self) -> dict[str, int]:
        out = {p: 0 for p in self.players}
        for r in self.rounds:
            for p, pts in r.points.items():
                out[p] += pts
        for _, p, _ in self.penalties:
            out[p] -= PENALTY
        return out

    def running_totals(self) -> list[dict[str, int]]:
        """The totals after each round (penalties counted in the round they arose)."""
        rows = []
        acc = {p: 0 for p in self.players}
        for r in self.rounds:
            for rn, p, _ in self.penalties:
                if rn == r.spec.number:
                    acc[p] -= PENALTY
            for p, pts in r.points.items():
                acc[p] += pts
            rows.append(dict(acc))
        return rows

    def sheet(self) -> str:
        """The score sheet as text: running totals with each bid as ``^n``; ``-``
        where a player's total did not change (as on seed 001's sheet)."""
        width = max(8, *(len(p) + 1 for p in self.players))
        lines = ["Round " + "".join(f"{p:>{width}}" for p in self.players)]
        prev: dict[str, int] | None = None
        for r, row in zip(self.rounds, self.running_totals(), strict=True):
            cells = []
            for p in self.players:
                shown = "-" if prev is not None and row[p] == prev[p] else str(row[p])
                cells.append(f"{shown + '^' + str(r.bids[p]):>{width}}")
            lines.append(f"{str(r.spec):<6}" + "".join(cells))
            prev = row
        return "\n".join(lines)
