"""The rules of watching a table: turn order, naming a card from evidence, closing a trick.

:class:`PlayWatch` is to the table camera what :class:`~dealer.session.DealingSession`
is to the dealing machine: a pure state machine, fed what was seen, that decides
and records. It knows no pixels: :class:`vision.table_watch.TableWatcher` finds
the cards in the camera's zones and tells it, per seat, what lies there
(:meth:`PlayWatch.zone_shows`) and what the recogniser made of a face
(:meth:`PlayWatch.seen`, with a :class:`Sight` and, when the recogniser refused,
a :class:`Partial` read of rank and colour). It is tested without a camera.

The rules, through :class:`~dealer.play_record.PlayRecord`: cards are recorded
in turn order (a card put down early waits for its turn); a card that cannot be
that seat's (already played, outside a known hand) is not accepted; a refused
card is recorded *unconfirmed* with its few legal candidates, and a later clear
read of the same card fills it in. Two reads that disagree put the card back to
unconfirmed. A card is never named that the recogniser did not read and the
rules did not allow, except from two agreeing pieces of evidence
(:meth:`PlayWatch._infer`). A trick is closed when all its cards are down and
then turned over (or taken away). Revokes are flagged as soon as the record
proves one (Law 61).

>>> from dealer.cards import Card, Suit
>>> from dealer.play_record import PlayRecord
>>> w = PlayWatch(PlayRecord(4, trump=Suit.SPADES, leader=1, tricks=1))
>>> for seat, card in ((2, "S2"), (1, "SA"), (3, "S3"), (0, "H2")):  # South's card is early
...     w.zone_shows(seat, "face")
...     _ = w.seen(seat, Sight(Card.parse(card)))
>>> [(e.kind, e.seat, str(e.card)) for e in w.events]
[('card', 1, 'SA'), ('card', 2, 'S2'), ('card', 3, 'S3'), ('card', 0, 'H2')]
>>> for seat in range(4):
...     w.zone_shows(seat, "back")       # the cards are turned over: the trick is closed
>>> _ = w.close(); w.events[-1].detail
'won by player 2'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer.cards import Card, Rank, Suit
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.play_record import UNCONFIRMED, Entry, PlayRecord, PlayRecordError, RevokeFound
from dealer.play_section import write_play
from dealer.seats import Seat

__all__ = ["SHAPE_FLOOR", "Partial", "PlayWatch", "SeatView", "Sight", "WatchEvent",
           "bridge_record", "store_play"]

SHAPE_FLOOR = 0.85  # a suit shape under this never counts, whatever the other frames say


@dataclass(frozen=True)
class Sight:
    """What the recogniser made of the card in one seat's zone, in plain terms.

    ``accepted`` with a ``card``: named. Not accepted: refused, ``label`` says why
    (``"blurred"``, ``"reads disagree"`` ...) and ``detail`` adds to it.
    """

    card: Card | None
    accepted: bool = True
    label: str = ""
    detail: str = ""
    method: str = ""

    @classmethod
    def refused(cls, label: str, detail: str = "") -> Sight:
        return cls(None, False, label, detail)


@dataclass(frozen=True)
class Partial:
    """What both corners agree on when the recogniser refused the card: rank and ink colour.

    Rank and colour passed the recogniser's own checks on both corners; only
    the suit *shape* was too weak. ``shapes`` holds, per corner, the shape
    scores of the two suits of that colour. A shape picks a suit by the
    recogniser's margin: where it lies on the line between the two suits'
    templates (``alike``: how alike those two templates are), 1 at one, -1 at
    the other, and at least ``margin`` towards the one it picks. A partial
    read never names a card by itself: the rules (one legal card left) or a
    second frame must agree.

    >>> p = Partial(Rank.SEVEN, True, ({Suit.DIAMONDS: 0.80, Suit.HEARTS: 0.88},) * 2, alike=0.9)
    >>> p.shape_suit(0.85), p.contradicts(Suit.DIAMONDS)
    (<Suit.HEARTS: 2>, True)
    """

    rank: Rank
    red: bool
    shapes: tuple[dict[Suit, float], ...]
    alike: float = 0.9
    margin: float = 0.5

    @property
    def suits(self) -> tuple[Suit, Suit]:
        return (Suit.DIAMONDS, Suit.HEARTS) if self.red else (Suit.CLUBS, Suit.SPADES)

    def cards(self) -> tuple[Card, Card]:
        return (Card(self.suits[0], self.rank), Card(self.suits[1], self.rank))

    def _beats(self, sc: dict[Suit, float], suit: Suit, other: Suit) -> bool:
        """Does ``suit``'s shape beat ``other``'s on this corner by the margin?"""
        return (sc[suit] - sc[other]) / max(1.0 - self.alike, 1e-6) >= self.margin

    def shape_suit(self, floor: float = SHAPE_FLOOR) -> Suit | None:
        """The suit whose shape wins on *both* corners by the margin, if any."""
        a, b = self.suits
        wins = set()
        for sc in self.shapes:
            best, other = (a, b) if sc[a] >= sc[b] else (b, a)
            if sc[best] < floor or not self._beats(sc, best, other):
                return None
            wins.add(best)
        return wins.pop() if len(wins) == 1 else None

    def contradicts(self, suit: Suit) -> bool:
        """The other suit's shape beats ``suit`` on a corner by the margin."""
        other = self.suits[1] if suit == self.suits[0] else self.suits[0]
        return any(self._beats(sc, other, suit) for sc in self.shapes)


@dataclass
class WatchEvent:
    """Something the watcher recorded or flagged; ``trick`` is 1-based."""

    kind: str  # card | unconfirmed | filled | disputed | trick | revoke | irregular | ignored | trump
    trick: int
    seat: int | None = None
    card: Card | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind, "trick": self.trick}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.card is not None:
            out["card"] = str(self.card)
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class SeatView:
    """What lies in one seat's zone, as far as the rules care."""

    kind: str = "empty"  # empty | back | face
    committed: int | None = None  # 0-based trick of the recorded card lying here; -1 trump
    # Partial reads of the card lying here, one per read; ``None`` marks a full read (the
    # recogniser named it), after which partial reads are no evidence any more.
    partials: list[Partial | None] = field(default_factory=list)


@dataclass
class _Pending:
    sight: Sight
    order: int
    partials: list[Partial | None] = field(default_factory=list)


class PlayWatch:
    """The rules of one watched deal: see the module docstring.

    ``trump_seat`` (Bugger Bridge): before the lead the dealer shows the turned-up
    card in their zone; it sets the trump and is out of play.
    """

    def __init__(self, record: PlayRecord, *, trump_seat: int | None = None) -> None:
        self.record = record
        self.seats = [SeatView() for _ in range(record.players)]
        self.events: list[WatchEvent] = []
        self.trick = 0  # 0-based record trick whose cards lie on the table
        self._pending: dict[int, _Pending] = {}
        self._order = 0
        self._revokes: set[tuple[int, int]] = set()
        self._partials: dict[tuple[int, int], list[Partial | None]] = {}  # (0-based trick, seat)
        # (0-based trick, seat) of cards named from partial reads (rank and colour read)
        self.inferred: set[tuple[int, int]] = set()
        self.trump_seat = trump_seat
        self.trump_card: Card | None = None

    # -- what the camera tells -----------------------------------------------------------
    def zone_shows(self, seat: int, kind: str) -> None:
        """The zone now shows ``empty``, ``back`` or ``face`` (a face before it is read)."""
        v = self.seats[seat]
        if kind != "face":
            v.committed, v.partials = None, []
        v.kind = kind

    def another_card(self, seat: int) -> None:
        """A different card lies in the zone than the one read there before."""
        v = self.seats[seat]
        v.partials.append(None)  # the old card's list: later partial reads are not of it
        v.partials = []
        v.committed = None  # a different card lies here now (its turn was missed)

    def wants_reread(self, seat: int) -> bool:
        """Read again while this seat's card is unconfirmed or waiting without a read."""
        if self._awaiting_trump() and seat == self.trump_seat:
            return True
        p = self._pending.get(seat)
        if p is not None:
            return not p.sight.accepted
        v = self.seats[seat]
        if v.committed is None:
            return False
        e = self._entry(v.committed, seat)
        return e is not None and e.status == UNCONFIRMED

    def wants_partial(self, seat: int) -> bool:
        """A refused read is worth a partial read (not for the turned-up trump card)."""
        return self.seats[seat].committed != -1

    def seen(self, seat: int, sight: Sight, partial: Partial | None = None) -> list[WatchEvent]:
        """One read of the face in ``seat``'s zone; returns the events it caused."""
        before = len(self.events)
        v = self.seats[seat]
        v.kind = "face"
        if sight.accepted:
            v.partials.append(None)
        elif partial is not None and v.committed != -1:
            v.partials.append(partial)
        self._seen(seat, sight)
        return self.events[before:]

    def close(self) -> list[WatchEvent]:
        """End of a frame: close the trick if its cards are all down and turned over."""
        before = len(self.events)
        self._maybe_close()
        return self.events[before:]

    def note(self, kind: str, detail: str) -> None:
        """An event the camera side raises (a frame that could not be decoded)."""
        self._event(kind, detail=detail)

    # -- what a person tells -------------------------------------------------------------
    def confirm(self, trick: int, seat: int, card: Card | str) -> Entry:
        """A person names the card ``seat`` played to ``trick`` (1-based): the panel's one tap."""
        c = Card.parse(card) if isinstance(card, str) else card
        entry = self.record.confirm(trick, seat, c)
        self._event("filled", trick, seat, c, "confirmed by hand")
        self._check_revokes()
        self._infer_all()
        return entry

    def confirm_trump(self, card: Card | str) -> None:
        """A person names the turned-up card when the camera could not read it."""
        c = Card.parse(card) if isinstance(card, str) else card
        self.trump_card = c
        self.record.trump = c.suit
        self.record.out_of_play.add(int(c))
        self._event("trump", 1, self.trump_seat, c, "confirmed by hand")

    @property
    def revokes(self) -> list[RevokeFound]:
        return self.record.revokes()

    # -- the rules -----------------------------------------------------------------------
    def _awaiting_trump(self) -> bool:
        return (self.trump_seat is not None and self.trump_card is None
                and not any(True for _ in self.record.entries()))

    def _entry(self, trick: int, seat: int) -> Entry | None:
        if trick >= len(self.record.tricks):
            return None
        return next((e for e in self.record.tricks[trick].entries if e.seat == seat), None)

    def _trick_full(self) -> bool:
        return (self.trick < len(self.record.tricks)
                and len(self.record.tricks[self.trick].entries) == self.record.players)

    def _seen(self, seat: int, sight: Sight) -> None:
        v = self.seats[seat]
        if v.committed == -1:
            return  # the turned-up card, seen again
        if self._awaiting_trump() and seat == self.trump_seat:
            if sight.accepted and sight.card is not None:
                self.trump_card = sight.card
                self.record.trump = sight.card.suit
                self.record.out_of_play.add(int(sight.card))
                v.committed = -1
                self._event("trump", 1, seat, sight.card, f"trump is {sight.card.suit.letter}")
            return
        if v.committed is not None:  # the card already recorded, seen again
            entry = self._entry(v.committed, seat)
            if entry is not None:
                self._again(v.committed + 1, seat, entry, sight)
            return
        old = self._pending.get(seat)
        if old is None or (sight.accepted and not old.sight.accepted):
            self._pending[seat] = _Pending(sight, old.order if old else self._next_order(),
                                           v.partials)
        elif sight.accepted and old.sight.accepted and sight.card != old.sight.card:
            self._pending[seat] = _Pending(
                Sight.refused("reads disagree", f"reads {_label(old.sight)} and {_label(sight)}"),
                old.order, [None])
        self._commit()

    def _next_order(self) -> int:
        self._order += 1
        return self._order

    def _again(self, trick: int, seat: int, entry: Entry, sight: Sight) -> None:
        """Another read of a card already recorded."""
        if not sight.accepted or sight.card is None:
            self._recheck(trick - 1, seat, entry)
            return
        if entry.status == UNCONFIRMED:
            try:
                self.record.upgrade(trick, seat, sight.card, note=f"read by {sight.method}")
            except PlayRecordError as e:
                entry.note = f"{entry.note}; {e}" if entry.note else str(e)
                return
            self._event("filled", trick, seat, sight.card, "read on a later frame")
            self._check_revokes()
            self._infer_all()
        elif entry.card != sight.card and entry.status != "confirmed":
            first = entry.card
            self.record.demote(trick, seat, f"reads disagree: {first} and {sight.card}",
                               [sight.card])
            self._event("disputed", trick, seat, None, f"reads disagree: {first} and {sight.card}")

    def _recheck(self, ti: int, seat: int, entry: Entry) -> None:
        """A new partial read of a recorded card: name it if the evidence now suffices, and
        take back a card named from partial reads when a later one contradicts it."""
        key = (ti, seat)
        if entry.status == UNCONFIRMED:
            if self._infer(ti, seat):
                self._infer_all()
            return
        parts = self._partials.get(key)
        if key not in self.inferred or entry.card is None or not parts or parts[-1] is None:
            return
        last, card = parts[-1], entry.card
        if (last.rank, last.red) != (card.rank, card.suit.is_red) or last.contradicts(card.suit):
            parts.append(None)
            self.inferred.discard(key)
            why = f"a later frame reads {last.rank.char} {'red' if last.red else 'black'}, not {card}"
            self.record.demote(ti + 1, seat, why, [card])
            self._event("disputed", ti + 1, seat, None, why)

    def _infer(self, ti: int, seat: int) -> bool:
        """Name an unconfirmed card from partial reads, never from one piece of evidence.

        Every partial read has rank and ink colour agreed by both corners. The
        suit then comes from one of:

        * the closed world: of the two cards of that rank and colour, only one
          can be this seat's (the other was played already, is in another
          known hand, or is not in this seat's known hand). The suit shapes
          must not point to the other card. Suit-following is *not* used: a
          revoke must never be hidden.
        * two frames: on at least two frames both corners' suit shapes pick
          the same suit by the recogniser's margin (only the absolute
          minimum score was missed), and no frame picks the other.
        """
        parts = self._partials.get((ti, seat))
        entry = self._entry(ti, seat)
        if not parts or None in parts or entry is None or entry.status != UNCONFIRMED:
            return False
        sure = [p for p in parts if p is not None]
        if len({(p.rank, p.red) for p in sure}) != 1:
            return False
        first = sure[0]
        why = {c: self.record.why_impossible(seat, c, trick=ti) for c in first.cards()}
        live = [c for c, w in why.items() if w is None]
        note = ""
        if len(live) == 1:
            card = live[0]
            if any(p.contradicts(card.suit) for p in sure):
                return False
            other = next(c for c in why if c != card)
            note = (f"read {first.rank.char} {'red' if first.red else 'black'} on both corners; "
                    f"{why[other]}")
        elif len(live) == 2:
            picks = [p.shape_suit(SHAPE_FLOOR) for p in sure]
            suits = {s for s in picks if s is not None}
            if len(suits) != 1:
                return False
            suit = suits.pop()
            if picks.count(suit) < 2 or any(p.contradicts(suit) for p in sure):
                return False
            card = Card(suit, first.rank)
            note = f"read {card} on {picks.count(suit)} frames (suit shape under the minimum)"
        else:
            return False
        try:
            self.record.upgrade(ti + 1, seat, card, note=note)
        except PlayRecordError:
            return False
        self.inferred.add((ti, seat))
        self._event("filled", ti + 1, seat, card, note)
        self._check_revokes()
        return True

    def _infer_all(self) -> None:
        """A card was named: the closed world shrank, so other partial reads may now suffice."""
        again = True
        while again:
            again = False
            for ti, seat in list(self._partials):
                e = self._entry(ti, seat)
                if e is not None and e.status == UNCONFIRMED and self._infer(ti, seat):
                    again = True

    def _commit(self) -> None:
        """Record waiting cards in turn order."""
        rec = self.record
        while not self._trick_full() and not rec.is_complete:
            seat = rec.next_seat
            if seat is None:  # the leader is not known: the first card down leads
                if not self._pending:
                    return
                seat = min(self._pending, key=lambda s: self._pending[s].order)
                rec.lead(seat)
            p = self._pending.pop(seat, None)
            if p is None:
                return
            trick = len(rec.tricks)
            card = p.sight.card
            note = "" if p.sight.accepted else f"not read: {p.sight.label} {p.sight.detail}".strip()
            entry = rec.add(seat, card, note=note)
            if self.seats[seat].kind == "face":
                self.seats[seat].committed = trick - 1
            if entry.card is None:  # the zone's list: later frames of this card add to it
                self._partials[(trick - 1, seat)] = p.partials
            if entry.card is not None:
                self._event("card", trick, seat, entry.card)
                self._infer_all()
            elif self._infer(trick - 1, seat):
                self._infer_all()
            else:
                self._event("unconfirmed", trick, seat, None,
                            f"{entry.note}; candidates {' '.join(str(c) for c in entry.candidates[:8])}"
                            f"{' ...' if len(entry.candidates) > 8 else ''}")
            self._check_revokes()

    def _maybe_close(self) -> None:
        """Four (n) cards down and then all turned over or taken away: the trick is over."""
        if not self._trick_full():
            self._fill_unseen()
        if not self._trick_full():
            return
        t = self.record.tricks[self.trick]
        if any(self.seats[e.seat].committed == self.trick for e in t.entries):
            return
        winner = self.record.winner(self.trick)
        who = self.record.names[winner] if winner is not None else "unknown until confirmed"
        self._event("trick", self.trick + 1, winner, None, f"won by {who}")
        self.trick += 1
        self._commit()

    def _fill_unseen(self) -> None:
        """Every card seen in this trick has been turned over, yet a seat has none recorded:
        its card was never seen well enough to be found. It is recorded unconfirmed (the
        rules say a card was played), so later cards cannot slide into its place."""
        if self.trick >= len(self.record.tricks):
            return
        t = self.record.tricks[self.trick]
        if self.record.is_complete:
            return
        seen = [e.seat for e in t.entries] + list(self._pending)
        if not seen:
            return
        # Turned face down, not just gone: a claim gathers the cards without turning them.
        if any(self.seats[s].committed == self.trick or self.seats[s].kind != "back"
               for s in seen):
            return
        if t.leader is None and self.record.next_seat is None and self._pending:
            # Nobody knows who led: the leader is the earliest unseen seat before the first card seen.
            return
        while not self._trick_full() and self.record.next_seat is not None:
            seat = self.record.next_seat
            if seat in self._pending:  # seen, only waiting for its turn: record it as seen
                self._commit()
                continue
            entry = self.record.add(seat, None, note="no card was seen in the zone")
            self._event("unconfirmed", self.trick + 1, seat, None,
                        f"{entry.note}; {len(entry.candidates)} candidates")

    def _check_revokes(self) -> None:
        for r in self.record.revokes():
            key = (r.trick, r.seat)
            if key not in self._revokes:
                self._revokes.add(key)
                self._event("revoke", r.trick, r.seat, r.card, r.describe(self.record.names))

    def _event(self, kind: str, trick: int | None = None, seat: int | None = None,
               card: Card | None = None, detail: str = "") -> None:
        self.events.append(WatchEvent(kind, trick if trick is not None else self.trick + 1,
                                      seat, card, detail))


def _label(sight: Sight) -> str:
    return str(sight.card) if sight.card is not None else sight.label


# --------------------------------------------------------------------------- setups
def bridge_record(contract: Contract, deal: Deal | None = None) -> PlayRecord:
    """A record for one bridge board: the opening leader is declarer's LHO (Law 41).

    With the deal (dealing machine or hand record) every hand is known.
    """
    if contract.declarer is None or contract.is_passed_out:
        raise BoardwrightError(f"contract {contract.ascii} has no declarer: nothing to watch")
    hands = [deal.hand(Seat(s)) for s in range(4)] if deal is not None and not deal.partial else None
    trump = contract.strain.suit if contract.strain is not None else None
    names: Sequence[str] = [s.title for s in Seat]
    return PlayRecord(4, trump=trump, leader=int(contract.declarer.lho), tricks=13, hands=hands,
                      dummy=int(contract.declarer.partner), names=names)


def store_play(store: Any, result_id: int, record: PlayRecord, *, who: str = "table camera") -> int:
    """Store the watched play with the board's result (``results.play``, audited).

    Only named cards are stored: the play is cut at the first unconfirmed card
    (confirm it first to store the rest). Returns the number of tricks stored.
    """
    from dealer.store import results as rs

    # PBN's layout, as the panel replays it (dealer.play_section), without the closing "*".
    rows = write_play(record.as_play(), end_mark=False) if record.tricks[0].leader is not None else ""
    return rs.set_play(store, result_id, rows, who=who)
