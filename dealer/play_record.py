"""Play as it is recorded by a watcher: cards may be unconfirmed, never invented.

A :class:`PlayRecord` is the play of one deal at a table of 3 to 10 players
(bridge, TigerBridge and Bugger Bridge alike) as a camera or a scorer saw it.
Each card is an :class:`Entry` whose status is ``read`` (accepted
automatically), ``confirmed`` (a person chose it) or ``unconfirmed`` (the card
is there but could not be named: ``card`` is ``None`` and ``candidates`` lists
the few cards it can be). The record never fills in a card on its own.

The game narrows what a card can be: a card already played cannot come again;
once a hand is known (the deal from the dealing machine or the hand record,
or dummy's hand once it is shown) a card outside that hand is refused; a
player who has shown out of a suit is not offered that suit again. Revokes are
found with evidence (WBF Laws 2017, Law 61; Bugger Bridge seed 001 "Revoke"):
from the known hand when there is one, otherwise from the record alone, when
a player later plays a card of the suit they failed to follow.

Trick winners follow seed 002 / Law 44 (highest trump, else highest card of
the suit led). When a card of a trick is unconfirmed the winner may be
unknown; the watcher then tells the record who led next (:meth:`lead`), and a
later confirmation that gives a different winner is noted as a lead out of
turn.

>>> from dealer.cards import Card, Suit
>>> r = PlayRecord(players=4, trump=Suit.HEARTS, leader=1, tricks=2)
>>> for seat, c in ((1, "S2"), (2, "SA"), (3, "S5")):
...     _ = r.add(seat, Card.parse(c))
>>> e = r.add(0, None, note="blurred")
>>> e.status, len(e.candidates)     # any spade not yet seen: North has not shown out
(<EntryStatus.UNCONFIRMED: 'unconfirmed'>, 10)
>>> r.winner(0) is None
True
>>> _ = r.confirm(1, 0, Card.parse("H3")); r.winner(0), r.next_seat
(0, 0)
>>> r.unconfirmed()
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from dealer.board import Board
from dealer.cards import Card, Strain, Suit
from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.games.bugger import BuggerGame
from dealer.hand import Hand
from dealer.play import Play, trick_winner
from dealer.play_section import read_play, write_play
from dealer.seats import Seat


class EntryStatus(StrEnum):
    """How a recorded card is known; equal to the old strings (``"read"`` ...)."""

    READ = "read"  # accepted automatically
    CONFIRMED = "confirmed"  # a person chose it
    UNCONFIRMED = "unconfirmed"  # there is a card, not yet named


READ, CONFIRMED, UNCONFIRMED = EntryStatus.READ, EntryStatus.CONFIRMED, EntryStatus.UNCONFIRMED


class PlayRecordError(BoardwrightError, ValueError):
    """A card cannot be recorded or confirmed; the message names trick, seat and card."""


@dataclass(slots=True)
class Entry:
    """One card put on the table by ``seat`` (an index into the players)."""

    seat: int
    card: Card | None
    status: EntryStatus = READ
    candidates: tuple[Card, ...] = ()
    note: str = ""

    @property
    def known(self) -> bool:
        return self.card is not None


@dataclass(slots=True)
class RecordedTrick:
    """A trick: its leader (``None`` until seen) and the cards in the order played."""

    leader: int | None
    entries: list[Entry] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RevokeFound:
    """A revoke with its evidence: ``held`` are cards of the suit led the seat still had.

    ``how`` is ``"hand"`` (the seat's hand was known) or ``"later"`` (the seat
    played those cards later, so it held them then).
    """

    trick: int  # 1-based
    seat: int
    card: Card
    suit_led: Suit
    held: tuple[Card, ...]
    how: str

    def describe(self, names: Sequence[str]) -> str:
        held = " ".join(str(c) for c in self.held)
        why = "still holding" if self.how == "hand" else "and later played"
        return (f"trick {self.trick}: {names[self.seat]} played {self.card} to a "
                f"{self.suit_led.letter} lead, {why} {held}")


class PlayRecord:
    """The recorded play of one deal.

    ``hands`` (optional) are the known hands by seat index; ``dummy`` is the
    seat whose hand is shown after the opening lead (bridge). ``rank_order``
    re-ranks cards for TigerBridge (power of ``card % 13``).
    """

    def __init__(self, players: int = 4, *, trump: Suit | None, leader: int, tricks: int = 13,
                 hands: Sequence[Hand] | None = None, dummy: int | None = None,
                 names: Sequence[str] | None = None,
                 rank_order: Sequence[int] | None = None,
                 out_of_play: Iterable[Card] = ()) -> None:
        if not 3 <= players <= 10:
            raise PlayRecordError(f"a table has 3 to 10 players, not {players}")
        if players * tricks > 52:
            raise PlayRecordError(f"{players} players cannot each play {tricks} cards from 52")
        if hands is not None and len(hands) != players:
            raise PlayRecordError(f"{len(hands)} hands given for {players} players")
        self.players, self.trump, self.n_tricks = players, trump, tricks
        self.hands: list[Hand | None] = list(hands) if hands is not None else [None] * players
        self.dummy = dummy
        self.names = list(names) if names is not None else [f"player {i + 1}" for i in range(players)]
        self.rank_order = list(rank_order) if rank_order is not None else None
        self.tricks: list[RecordedTrick] = [RecordedTrick(leader)]
        self.irregularities: list[str] = []
        self.out_of_play = {int(c) for c in out_of_play}  # e.g. Bugger's turned-up trump card

    # -- state ---------------------------------------------------------------------
    @property
    def current(self) -> RecordedTrick:
        return self.tricks[-1]

    @property
    def is_complete(self) -> bool:
        return len(self.tricks) == self.n_tricks and len(self.current.entries) == self.players

    @property
    def next_seat(self) -> int | None:
        """Whose card comes next (``None``: the leader is not known yet, or play is over)."""
        t = self.current
        if t.leader is None or self.is_complete:
            return None
        return (t.leader + len(t.entries)) % self.players

    def entries(self) -> Iterable[tuple[int, Entry]]:
        """(0-based trick, entry) for every card recorded."""
        for i, t in enumerate(self.tricks):
            for e in t.entries:
                yield i, e

    def played(self) -> set[int]:
        return {int(e.card) for _, e in self.entries() if e.card is not None}

    def played_by(self, seat: int) -> list[Card]:
        return [e.card for _, e in self.entries() if e.seat == seat and e.card is not None]

    def unconfirmed(self) -> list[tuple[int, Entry]]:
        """(1-based trick, entry) of every card still waiting for a person."""
        return [(i + 1, e) for i, e in self.entries() if e.status == UNCONFIRMED]

    def remaining(self, seat: int) -> Hand | None:
        """The cards ``seat`` still holds, when its hand is known."""
        hand = self.hands[seat]
        if hand is None:
            return None
        mask = hand.mask
        for c in self.played_by(seat):
            mask &= ~(1 << int(c))
        return Hand.from_mask(mask)

    def shown_out(self, seat: int) -> set[Suit]:
        """Suits ``seat`` failed to follow (so, barring a revoke, holds no more of)."""
        out = set()
        for t in self.tricks:
            if not t.entries or t.entries[0].card is None:
                continue
            led = t.entries[0].card.suit
            for e in t.entries[1:]:
                if e.seat == seat and e.card is not None and e.card.suit != led:
                    out.add(led)
        return out

    def suit_led(self) -> Suit | None:
        t = self.current
        if t.entries and t.entries[0].card is not None:
            return t.entries[0].card.suit
        return None

    # -- what a card can be ----------------------------------------------------------
    def why_impossible(self, seat: int, card: Card, *, trick: int | None = None) -> str | None:
        """Why ``card`` cannot be ``seat``'s card (``None`` if it can).

        Only hard facts count: played before, or outside a known hand (a
        revoke is possible, so not following suit is never "impossible").
        """
        if int(card) in self.out_of_play:
            return f"{card} is not in play (the turned-up card)"
        for i, e in self.entries():
            if e.card == card and not (trick == i and e.seat == seat):
                return f"{card} was already played (trick {i + 1}, {self.names[e.seat]})"
        for other, hand in enumerate(self.hands):
            if hand is None:
                continue
            if other == seat and card not in hand:
                return f"{card} is not in {self.names[seat]}'s hand"
            if other != seat and card in hand:
                return f"{card} is in {self.names[other]}'s hand"
        return None

    def candidates(self, seat: int, trick: int | None = None) -> list[Card]:
        """The cards ``seat``'s card in ``trick`` (0-based; default the current) can be.

        Possible cards, narrowed to the suit led when the seat can follow
        (known hand) or has not shown out of it; the full possible set when
        only a revoke would explain the card, so a revoke is never hidden.
        """
        ti = len(self.tricks) - 1 if trick is None else trick
        t = self.tricks[ti]
        possible = [c for c in Card.all() if self.why_impossible(seat, c, trick=ti) is None]
        hand_known = self.hands[seat] is not None
        if hand_known:  # cards played after this trick are also out
            later = {int(e.card) for j, e in self.entries() if j > ti and e.card is not None}
            possible = [c for c in possible if int(c) not in later]
        led = t.entries[0].card.suit if t.entries and t.entries[0].card is not None else None
        if t.entries and t.entries[0].seat == seat:
            led = None  # the leader may lead anything
        if led is not None:
            follow = [c for c in possible if c.suit == led]
            if follow and (hand_known or led not in self.shown_out(seat)):
                return follow
        shown = self.shown_out(seat)
        if not hand_known and shown:
            narrowed = [c for c in possible if c.suit not in shown]
            return narrowed or possible
        return possible

    # -- recording -------------------------------------------------------------------
    def add(self, seat: int, card: Card | None, *, note: str = "") -> Entry:
        """Record ``seat``'s card (``None``: there is a card but it was not read).

        A card that cannot be this seat's is recorded as unconfirmed with the
        reason, never dropped: the card is physically there.
        """
        if self.is_complete:
            raise PlayRecordError(f"all {self.n_tricks} tricks are recorded; "
                                  f"no card from {self.names[seat]} expected")
        t = self.current
        if t.leader is None:
            t.leader = seat
        expected = self.next_seat
        if seat != expected:
            raise PlayRecordError(f"trick {len(self.tricks)}: {self.names[seat]} is not in turn "
                                  f"({self.names[expected] if expected is not None else 'nobody'} is)")
        entry = Entry(seat, card)
        t.entries.append(entry)
        if card is not None:
            reason = self.why_impossible(seat, card, trick=len(self.tricks) - 1)
            if reason is not None:
                entry.card, note = None, f"read as {card}, but {reason}"
        if entry.card is None:
            entry.status = UNCONFIRMED
            entry.note = note
            entry.candidates = tuple(self.candidates(seat))
        if len(t.entries) == self.players and len(self.tricks) < self.n_tricks:
            self.tricks.append(RecordedTrick(self.winner(len(self.tricks) - 1)))
        return entry

    def lead(self, seat: int) -> None:
        """The watcher saw ``seat`` lead to the current (empty) trick."""
        t = self.current
        if t.entries:
            raise PlayRecordError(f"trick {len(self.tricks)} has already been led")
        if t.leader is not None and t.leader != seat:
            self.irregularities.append(f"trick {len(self.tricks)}: {self.names[seat]} led, but "
                                       f"{self.names[t.leader]} won the trick before")
        t.leader = seat

    def upgrade(self, trick: int, seat: int, card: Card, *, status: EntryStatus = READ,
                note: str = "") -> Entry:
        """Name an unconfirmed card (``trick`` 1-based). ``status`` says who named it."""
        if not 1 <= trick <= len(self.tricks):
            raise PlayRecordError(f"there is no trick {trick} (recorded: {len(self.tricks)})")
        entry = next((e for e in self.tricks[trick - 1].entries if e.seat == seat), None)
        if entry is None:
            raise PlayRecordError(f"trick {trick}: no card from {self.names[seat]} is recorded")
        reason = self.why_impossible(seat, card, trick=trick - 1)
        if reason is not None:
            raise PlayRecordError(f"trick {trick}, {self.names[seat]}: {reason}")
        entry.card, entry.status, entry.candidates, entry.note = card, status, (), note
        self._relead(trick - 1)
        return entry

    def confirm(self, trick: int, seat: int, card: Card) -> Entry:
        """A person names the card (the panel's one tap); ``trick`` is 1-based."""
        return self.upgrade(trick, seat, card, status=CONFIRMED)

    def demote(self, trick: int, seat: int, note: str, also: Iterable[Card] = ()) -> Entry:
        """Reads disagree: back to unconfirmed, offering the disputed cards first."""
        entry = next(e for e in self.tricks[trick - 1].entries if e.seat == seat)
        disputed = [c for c in ([entry.card] if entry.card is not None else []) + list(also)]
        entry.card, entry.status, entry.note = None, UNCONFIRMED, note
        rest = [c for c in self.candidates(seat, trick - 1) if c not in disputed]
        entry.candidates = tuple(dict.fromkeys(disputed)) + tuple(rest)
        return entry

    def _relead(self, ti: int) -> None:
        """A trick's winner became known: check it against who was seen to lead next."""
        if ti + 1 >= len(self.tricks):
            return
        w = self.winner(ti)
        nxt = self.tricks[ti + 1]
        if w is None:
            return
        if nxt.leader is None:
            nxt.leader = w
        elif nxt.leader != w:
            self.irregularities.append(f"trick {ti + 2}: {self.names[nxt.leader]} led, but "
                                       f"{self.names[w]} won trick {ti + 1}")

    # -- results ---------------------------------------------------------------------
    def winner(self, index: int) -> int | None:
        """The seat that won trick ``index`` (0-based), or ``None`` if not yet known.

        The rule is :func:`dealer.play.trick_winner`'s (Law 44; ``rank_order`` for TigerBridge).
        """
        t = self.tricks[index]
        if len(t.entries) < self.players or any(e.card is None for e in t.entries):
            return None
        cards = [e.card for e in t.entries if e.card is not None]
        return trick_winner(cards, t.entries[0].seat, self.trump, self.rank_order,
                            players=self.players)

    def as_play(self, contract: Contract | None = None) -> Play:
        """The named cards of a bridge record as a :class:`~dealer.play.Play`, up to the
        first unconfirmed one (PBN cannot say "a card was here but not named").

        ``contract`` gives the declarer; without it (or when the record's opening
        leader is not declarer's left-hand opponent) declarer is taken as the
        opening leader's right-hand opponent, which lays out the same tricks.
        """
        leader = self.tricks[0].leader
        if self.players != 4 or leader is None:
            raise PlayRecordError("only a bridge record (4 players) with a card recorded "
                                  "is a bridge play")
        first = Seat(leader)
        if contract is None or contract.declarer is None or contract.declarer.lho != first:
            strain = Strain.NOTRUMP if self.trump is None else Strain(int(self.trump))
            contract = Contract(contract.level if contract else 1, strain,
                                contract.doubled if contract else 0, first.rho)
        play = Play(contract, enforce=False)
        for _, e in self.entries():
            if e.card is None:
                break
            play.record(e.card)
        return play

    def tricks_won(self) -> dict[int, int] | None:
        """Tricks taken by each seat, once every trick has a known winner."""
        out = {s: 0 for s in range(self.players)}
        for i, t in enumerate(self.tricks):
            if len(t.entries) < self.players:
                continue
            w = self.winner(i)
            if w is None:
                return None
            out[w] += 1
        return out

    def revokes(self) -> list[RevokeFound]:
        """Every revoke the record proves, with evidence (Law 61; seed 001)."""
        found: list[RevokeFound] = []
        for ti, t in enumerate(self.tricks):
            if not t.entries or t.entries[0].card is None:
                continue
            led = t.entries[0].card.suit
            for e in t.entries[1:]:
                if e.card is None or e.card.suit == led:
                    continue
                held = self._held_then(e.seat, ti, led)
                if held:
                    found.append(RevokeFound(ti + 1, e.seat, e.card, led, held[0], held[1]))
        return found

    def _held_then(self, seat: int, ti: int, suit: Suit) -> tuple[tuple[Card, ...], str] | None:
        hand = self.hands[seat]
        if hand is not None:
            before = {int(e.card) for j, e in self.entries() if j < ti and e.seat == seat
                      and e.card is not None}
            # An earlier unconfirmed card of this seat may have been any of its candidates:
            # only cards it cannot have been prove the revoke.
            maybe = {int(c) for j, e in self.entries() if j < ti and e.seat == seat
                     and e.card is None for c in e.candidates}
            held = tuple(c for c in hand.cards if c.suit == suit and int(c) not in before
                         and int(c) not in maybe)
            return (held, "hand") if held else None
        later = tuple(e.card for j, e in self.entries() if j > ti and e.seat == seat
                      and e.card is not None and e.card.suit == suit)
        return (later, "later") if later else None

    def show_hand(self, seat: int, hand: Hand) -> None:
        """A hand becomes known during play (dummy, once laid out after the opening lead).

        ``hand`` is what is on the table now; the cards ``seat`` already played
        are added back, so the record knows the whole hand.
        """
        mask = hand.mask
        for c in self.played_by(seat):
            mask |= 1 << int(c)
        self.hands[seat] = Hand.from_mask(mask)


# --------------------------------------------------------------------------- bridge boards
def board_play(board: Board) -> tuple[Contract, list[list[tuple[int, Card]]]]:
    """The contract and the recorded play of a bridge board (PBN ``Play`` section or LIN ``pc``).

    Tricks are lists of (seat, card) in the order played; the record may
    stop early (a claim). Raises :class:`PlayRecordError` naming the board
    when there is no contract, no declarer or no play.
    """
    where = f"board {board.number}"
    text, first = board.sections.get("Play"), board.tags.get("Play", "").strip()
    if not text or not first:
        raise PlayRecordError(f"{where}: no recorded play (Play section)")
    try:
        contract = Contract.parse(board.tags.get("Contract", ""), board.tags.get("Declarer") or None)
    except BoardwrightError as e:
        raise PlayRecordError(f"{where}: {e}") from None
    if contract.declarer is None or contract.is_passed_out:
        raise PlayRecordError(f"{where}: contract {contract.ascii} has no declarer")
    try:
        play = read_play(contract, first, text, board.deal)
    except BoardwrightError as e:
        raise PlayRecordError(f"{where}: {e}") from None
    if play.faults:
        raise PlayRecordError(f"{where}: {play.faults[0]}")
    return contract, [[(int(t.seat_of(i)), c) for i, c in enumerate(t.cards)]
                      for t in play.tricks if t.cards]


def to_board(record: PlayRecord, board: Board, contract: Contract) -> Board:
    """A copy of ``board`` carrying the recorded play as PBN tags and a ``Play`` section.

    Cards are written up to the first unconfirmed one (PBN has no way to say
    "a card was here but not named"), and the section then ends with ``*``.
    ``Result`` is declarer's tricks once every trick is known.
    """
    if record.players != 4 or contract.declarer is None:
        raise PlayRecordError("only a bridge board (4 players, a declarer) goes to PBN or LIN")
    if record.tricks[0].leader is None:
        raise PlayRecordError("no card has been recorded")
    play = record.as_play(contract)
    leader = play.opening_leader
    tags = dict(board.tags)
    tags["Contract"] = contract.pbn
    tags["Declarer"] = Seat(contract.declarer).letter
    tags["Play"] = Seat(leader).letter
    won = record.tricks_won()
    if record.is_complete and won is not None:
        side = (int(contract.declarer), int(contract.declarer.partner))
        tags["Result"] = str(sum(won[s] for s in side))
    sections = dict(board.sections)
    sections["Play"] = write_play(play)
    return Board(board.number, board.deal, board.dealer, board.vulnerability, tags, sections)


def beer_card(record: PlayRecord, contract: Contract) -> str | None:
    """The Beer Card note (seed 002): ♦7 won the last trick and the contract made
    (or, won by a defender, went down). ``None`` otherwise or while unknown.

    >>> from dealer.cards import Suit
    >>> r = PlayRecord(4, trump=None, leader=1, tricks=1)
    >>> for s, c in ((1, "D2"), (2, "D7"), (3, "D3"), (0, "D4")):
    ...     _ = r.add(s, Card.parse(c))
    >>> beer_card(r, Contract.parse("1NT S")) is None   # 1NT needs 7 tricks: it failed
    True
    """
    if record.players != 4 or contract.declarer is None or not record.is_complete:
        return None
    last = record.tricks[-1]
    w = record.winner(len(record.tricks) - 1)
    won = record.tricks_won()
    if w is None or won is None:
        return None
    card = next(e.card for e in last.entries if e.seat == w)
    if card != Card.parse("D7"):
        return None
    side = (int(contract.declarer), int(contract.declarer.partner))
    made = sum(won[s] for s in side) >= contract.tricks_needed
    if made != (w in side):
        return None
    name = record.names[w]
    payer = "dummy" if w in side else "partner"
    return f"Beer Card: {name} won the last trick with ♦7; {payer} buys the beer"


# --------------------------------------------------------------------------- Bugger Bridge
def bugger_record(game: BuggerGame) -> PlayRecord:
    """A record for the Bugger Bridge round in progress: the dealer's left leads (seed 001).

    Seats are indices into ``game.players``; the turned-up card (if any) is
    trump and out of play.
    """
    r = game.current
    if r is None:
        raise PlayRecordError("no Bugger Bridge round is in progress: start one first")
    n = len(game.players)
    turned = [r.turned] if r.turned is not None else []
    return PlayRecord(n, trump=r.trump, leader=(r.dealer + 1) % n, tricks=r.spec.cards,
                      names=game.players, out_of_play=turned)


def score_bugger_round(game: BuggerGame, record: PlayRecord) -> dict[str, int]:
    """Feed a watched round into the score pad: tricks per player, or a revoke penalty.

    A proven revoke costs the (first) offender 10 and the round is redealt by
    the same dealer (seed 001 "Revoke"); the points are then empty. Every card
    must be known first: unconfirmed cards are named in the error.
    """
    if not record.is_complete:
        raise PlayRecordError(f"the round is not over: {len(record.tricks)} of "
                              f"{record.n_tricks} tricks recorded")
    open_cards = record.unconfirmed()
    if open_cards:
        where = ", ".join(f"trick {t} {record.names[e.seat]}" for t, e in open_cards)
        raise PlayRecordError(f"confirm these cards first: {where}")
    revokes = record.revokes()
    if revokes:
        game.penalty(game.players[revokes[0].seat], "revoke: " + revokes[0].describe(record.names))
        return {}
    won = record.tricks_won()
    assert won is not None
    return game.record_tricks({game.players[s]: k for s, k in won.items()})
