"""VERIFY, RECORD and PLAY-SCAN: a board's four hands fed back through the machine.

The operator takes the hands out of a board and feeds them one after the
other, North, East, South, West, 13 cards each. Each card is routed back to
the pocket of the hand it came from, so the board leaves the machine as it
went in, and the session learns who held what:

* **verify**: every card is checked against the recorded deal ("♥Q was in
  East's hand; the record has it in South's");
* **record**: the hands of a hand-shuffled board become its deal, for the hand
  records of a session that was not machine-dealt;
* **play**: each player kept the cards played in order, as duplicate players
  do (WBF Law 65A), so hand h's k-th card is the card h played to trick k.
  With the contract, the tricks are rebuilt with the play rules
  (:mod:`dealer.play`): declarer's left-hand opponent leads the first trick
  (Law 41), the winner of each trick leads the next (Law 44G).

Order matters here, so a card that cannot be read is not simply re-fed later:
the session **holds** (rejects) every card after it until the operator has put
the reject tray back on top of the hopper in the same order and continued.

Two cards stuck together that the thickness sensor misses fall into the pocket
of the top card, which alone was read: every later card would be counted one
place early. When the machine's pocket sensors (CARD_DROPPED's counts) show a
pocket holding more cards than were read into it, the board's scan is void at
once (``rescan``): nothing of it is recorded, and the operator rebuilds the fed
order from the pockets and the reject tray and inserts the board again.

>>> from dealer.generate import random_dealset
>>> ds = random_dealset([1])
>>> s = ScanSession("verify", MemoryJournal(), ds)
>>> _ = s.board_inserted(1)
>>> deal = ds.board(1).deal
>>> cards = [c for seat in range(4) for c in deal.hand(seat).cards]
>>> for gate, card in enumerate(cards, start=1):
...     d = s.card_at_gate((1, gate), Sighting(card))
...     _ = s.card_dropped((1, gate), d.pocket)
>>> s.results[1].ok, s.notices[-1].message
(True, 'board 1: all 52 cards are where the record has them')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer import session_notices as say
from dealer.board import DealSet
from dealer.cards import Card
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.hand import Hand
from dealer.play import Play, PlayError, trick_winner
from dealer.seats import Seat
from dealer.session import (
    Decision,
    Entry,
    GateKey,
    Journal,
    JournalWriting,
    MemoryJournal,
    SessionState,
    Sighting,
    unread_in_pockets,
)
from dealer.session_notices import Notice

__all__ = ["MemoryJournal", "ScanResult", "ScanSession", "rebuild_play"]

MODES = ("verify", "record", "play")


@dataclass
class ScanResult:
    """One board's outcome: the hands as fed, and what they say."""

    number: int
    hands: list[list[Card]] = field(default_factory=lambda: [[], [], [], []])
    differences: list[str] = field(default_factory=list)  # verify
    deal: Deal | None = None  # record (and verify: the deal as fed)
    play: Play | None = None  # play
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.differences and not self.problem


def rebuild_play(contract: Contract, hands: list[list[Card]], deal: Deal | None = None) -> Play:
    """Tricks from each seat's cards in the order played (trick k = each hand's k-th card).

    >>> d = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    >>> hands = [[Card.parse(c) for c in h] for h in (["SA", "HA"], ["ST", "HJ"], ["S3", "H8"], ["S2", "H5"])]
    >>> p = rebuild_play(Contract.parse("7NT S"), hands, d)
    >>> [str(c) for c in p.card_sequence()], p.tricks[1].leader
    (['S2', 'SA', 'ST', 'S3', 'HA', 'HJ', 'H8', 'H5'], <Seat.NORTH: 0>)
    """
    if contract.declarer is None:
        raise PlayError(f"contract {contract.ascii} names no declarer")
    trump = contract.strain.suit if contract.strain is not None else None
    leader = contract.declarer.lho
    order: list[Card] = []
    for k in range(max(len(h) for h in hands)):
        seats = [leader.rotate(i) for i in range(4)]
        if any(k >= len(hands[s]) for s in seats):
            break  # a trick not finished (a claim): the rest stays unplayed
        trick = [hands[s][k] for s in seats]
        order += trick
        leader = trick_winner(trick, leader, trump)
    p = Play(contract, deal, enforce=False)
    for c in order:
        p.play(c)
    return p


@dataclass(frozen=True)
class ScanSlot:
    """A board to scan, as the rig's console and operator see it."""

    index: int
    number: int
    copy: int = 1

    @property
    def label(self) -> str:
        return f"board {self.number}"


class ScanSession(JournalWriting):
    """Hands fed back N, E, S, W: see the module docstring. Same port as the dealing session.

    ``numbers`` are the boards to scan (default: every board of ``record``),
    in any order; the job ends when each has been scanned once.
    """

    def __init__(self, mode: str, journal: Journal, record: DealSet | None = None, *,
                 contracts: dict[int, Contract] | None = None,
                 numbers: list[int] | None = None) -> None:
        if mode not in MODES:
            raise BoardwrightError(f"scan mode must be one of {', '.join(MODES)}, not {mode!r}")
        if mode != "record" and record is None:
            raise BoardwrightError(f"{mode} needs the recorded deal set")
        if numbers is None:
            numbers = record.numbers if record is not None else [1]
        self.slots = [ScanSlot(i, n) for i, n in enumerate(numbers)]
        self.mode = mode
        self.journal = journal
        self.record = record
        self.contracts = contracts or {}
        self.state = SessionState.WAITING_BOARD  # dealing (cards being fed) | board_done | finished | stopped
        self.stop_reason: str | None = None
        self.cards_placed = 0
        self.current: ScanResult | None = None
        self.results: dict[int, ScanResult] = {}
        self.notices: list[Notice] = []
        self.holding = False
        self._pending: dict[GateKey, tuple[Card | None, int | None]] = {}
        self._seen: set[int] = set()
        self._placed = 0
        self._dropped = [0, 0, 0, 0]  # cards read whose drop into each pocket was confirmed
        #: The pocket sensors after the last drop (an empty board at first); None: not told.
        self._sensed: tuple[int, int, int, int] | None = (0, 0, 0, 0)

    def _note(self, *notices: Notice) -> list[Notice]:
        self.notices += notices
        return list(notices)

    # -- the port the rig drives (the same as DealingSession's) --------------------
    @property
    def boards_total(self) -> int:
        return len(self.slots)

    @property
    def boards_done(self) -> int:
        return sum(s.number in self.results for s in self.slots)

    @property
    def next_slot(self) -> ScanSlot | None:
        for s in self.slots:
            if s.number not in self.results:
                return s
        return None

    @property
    def instruction(self) -> Notice | None:
        return self.notices[-1] if self.notices else None

    def progress(self) -> tuple[str, int]:
        cur = self.current
        return (f"board {cur.number}", self._placed) if cur is not None else ("", 0)

    def start(self) -> list[Notice]:
        nxt = self.next_slot
        if nxt is None:
            self.state = SessionState.FINISHED
            return self._note(Notice("finished", f"all {self.boards_total} boards are scanned"))
        return self._note(Notice("insert", f"insert {nxt.label} with its four hands on the "
                                 "hopper, North's on top, then East's, South's, West's",
                                 "", stop=True))

    def hopper_empty(self) -> list[Notice]:
        cur = self.current
        if self.state != SessionState.DEALING or cur is None or self._pending or self._placed == 52:
            return []
        extra = {p: (self._dropped[p] + n, self._dropped[p])
                 for p, n in unread_in_pockets(self._sensed, self._dropped).items()}
        if extra:  # a card never read lies in a pocket: the order is lost, not just a card
            return self._void(cur, say.scan_stuck_card(f"board {cur.number}", self.mode,
                                                       self._placed, extra))
        if self.holding:
            self.holding = False  # the operator puts the tray back before continuing
            return self._note(Notice("refeed", f"board {cur.number}: {self._placed} of 52 cards "
                                     "read; the rest are in the reject tray", "put the reject "
                                     "tray back on top of the hopper in the order the cards came "
                                     "out (take out a joker or a stray card), then continue",
                                     stop=True))
        return self._note(Notice("missing", f"board {cur.number}: the hopper is empty after "
                                 f"{self._placed} of 52 cards ({Seat(self.seat).title}'s hand)",
                                 "feed the rest of the hands in order, then continue", stop=True))

    def card_returned(self, key: GateKey) -> list[Notice]:
        """After a power cut the card went back on top of the hopper: undo its place."""
        got = self._pending.pop(key, None)
        cur = self.current
        if got is None or cur is None:
            return []
        card, pocket = got
        if pocket is not None and card is not None and cur.hands[pocket][-1:] == [card]:
            cur.hands[pocket].pop()
            self._seen.discard(int(card))
            self._placed -= 1
        return []

    def machine_fault(self, notice: Notice) -> list[Notice]:
        return self._note(notice)

    def hopper_not_empty(self) -> list[Notice]:
        cur = self.current
        if self.state != SessionState.BOARD_DONE or cur is None:
            return []
        return self._note(say.left_over(f"board {cur.number}"))

    def double_feed(self, cards: int) -> list[Notice]:
        # Both cards left before the gate, in order: back on top of the hopper keeps the order.
        return self._note(say.double_feed(cards))

    def reconcile(self, view: object) -> tuple[list[Notice], list[tuple[GateKey, int | None]]]:
        """Scan modes are not resumed from the journal: a restarted scan starts the board over."""
        return [], []

    @property
    def seat(self) -> int:
        """The hand being fed now: 13 accepted cards each, North first."""
        return min(3, self._placed // 13)

    def board_inserted(self, number: int | None) -> list[Notice]:
        if number is None:
            return self._note(say.not_in_plan(None, self.mode))
        if all(s.number != number for s in self.slots) or number in self.results:
            return self._note(say.not_in_plan(number, ", ".join(str(s.number) for s in self.slots)))
        if self.state == SessionState.DEALING and self.current is not None and self.current.number == number:
            return []  # the same insertion announced again
        self.current = ScanResult(number)
        self._seen, self._placed, self.holding = set(), 0, False
        self._dropped, self._sensed = [0, 0, 0, 0], (0, 0, 0, 0)
        self.state = SessionState.DEALING
        self._write(Entry("board", number))
        return self._note(Notice("start", f"board {number}: feed North's hand, then East's, "
                                 "South's and West's", ""))

    def operator_continue(self) -> None:
        """The operator put the held cards back on top of the hopper, in order."""
        self.holding = False

    def hold_released(self) -> bool:
        """True once, when the cards held after a problem card have all dropped."""
        return self.holding and not self._pending

    def card_at_gate(self, key: GateKey, seen: Sighting) -> Decision:
        cur = self.current
        if self.state != SessionState.DEALING or cur is None:
            return Decision(self.state != SessionState.STOPPED, None, seen.card)
        where = f"board {cur.number}, {Seat(self.seat).title}'s hand"
        notices: list[Notice] = []
        pocket: int | None = None
        if self.holding:
            code = "held"
        elif seen.problem is not None or seen.card is None:
            code = seen.problem or "unreadable"
            self.holding = True  # keep the order: everything after it goes to the tray too
            what = {"unreadable": "could not be read", "joker": "is a joker",
                    "face_down": "is face down", "other_deck": "is from another deck"}[code]
            notices.append(Notice(code, f"{where}: a card {what}; it and the cards after it go "
                                  "to the reject tray, to keep their order",
                                  "when the hopper is empty, fix that card and put the reject "
                                  "tray back on top of the hopper in the same order"))
        elif int(seen.card) in self._seen:
            code = "duplicate"
            notices.append(say.duplicate_card(seen.card, f"board {cur.number}"))
        else:
            code = ""
            pocket = self.seat
            self._seen.add(int(seen.card))
            self._placed += 1
        card = seen.card
        if not self._write(Entry("route", cur.number, key[0], key[1],
                                 None if card is None else int(card), pocket, code)):
            return Decision(False, None, card, tuple(self.notices[-1:]))
        self._pending[key] = (card, pocket)
        if pocket is not None and card is not None:
            cur.hands[pocket].append(card)
        return Decision(True, pocket, card, tuple(self._note(*notices)))

    def card_dropped(self, key: GateKey, pocket: int | None, *, inferred: bool = False,
                     counts: tuple[int, int, int, int] | None = None) -> list[Notice]:
        """The drop of a routed card, with the pocket sensors' ``counts`` if the machine has them.

        A pocket that holds more cards than were read into it holds a card never read
        (two cards stuck together, the top one read): every later card would be counted
        one place early, so the scan is void at once and the board is scanned again.
        """
        cur = self.current
        if key not in self._pending or cur is None:
            return []
        card, _ = self._pending.pop(key)
        if not self._write(Entry("drop", cur.number, key[0], key[1],
                                 None if card is None else int(card), pocket)):
            return []
        if pocket is not None:
            self.cards_placed += 1
            self._dropped[pocket] += 1
        before, self._sensed = self._sensed, counts
        if counts is not None and pocket is not None and counts[pocket] > self._dropped[pocket]:
            # "stuck to" the card read only when its drop is what made the pocket grow by two.
            top = card if before is not None and counts[pocket] - before[pocket] > 1 else None
            return self._void(cur, say.scan_stuck_pair(f"board {cur.number}", self.mode, pocket,
                                                       top, counts[pocket],
                                                       self._dropped[pocket]))
        if self._placed == 52 and not self._pending and self.state == SessionState.DEALING:
            return self._finish(cur)
        return []

    def _void(self, cur: ScanResult, notice: Notice) -> list[Notice]:
        """The board's scan cannot be trusted: nothing of it is kept; it must come out and
        be scanned again from the start (journalled as a restart, as a dealt board is)."""
        ok = self._write(Entry("restart", cur.number, code="pocket holds an unread card"))
        self.current, self.holding = None, False
        self._pending.clear()
        if not ok:
            return []
        self.state = SessionState.WAITING_BOARD
        return self._note(notice)

    def _finish(self, cur: ScanResult) -> list[Notice]:
        self.state = SessionState.BOARD_DONE
        self.results[cur.number] = cur
        cur.deal = Deal([Hand(h) for h in cur.hands])
        where = f"board {cur.number}"
        if self.mode == "record":
            return self._note(Notice("recorded", f"{where}: the deal is recorded", "take it out"))
        recorded = self.record.board(cur.number).deal if self.record is not None else None
        if self.mode == "verify":
            for seat, cards in enumerate(cur.hands):
                for c in cards:
                    owner = recorded.owner(c) if recorded is not None else None
                    if owner is not None and int(owner) != seat:
                        cur.differences.append(f"{c.symbol} was in {Seat(seat).title}'s hand; the "
                                               f"record has it in {Seat(owner).title}'s")
            if cur.differences:
                return self._note(Notice("verify_failed", f"{where}: {len(cur.differences)} "
                                         "cards differ from the record: "
                                         + "; ".join(cur.differences[:4]),
                                         "call the director", stop=True))
            return self._note(Notice("verified", f"{where}: all 52 cards are where the record "
                                     "has them", "take it out"))
        contract = self.contracts.get(cur.number)
        if contract is None:
            cur.problem = "no contract"
            return self._note(Notice("play_failed", f"{where}: no contract, so the tricks cannot "
                                     "be rebuilt", "enter the contract and declarer", stop=True))
        try:
            cur.play = rebuild_play(contract, cur.hands, recorded or cur.deal)
        except PlayError as exc:
            cur.problem = str(exc)
            return self._note(Notice("play_failed", f"{where}: {exc}", "check the order of the "
                                     "played cards", stop=True))
        revokes = cur.play.revokes(recorded or cur.deal)
        extra = f"; {len(revokes)} revoke(s): {revokes[0]}" if revokes else ""
        return self._note(Notice("play_scanned", f"{where}: {len(cur.play.completed_tricks)} "
                                 f"tricks rebuilt, declarer took {cur.play.declarer_tricks}{extra}",
                                 "take it out"))

    def board_removed(self) -> list[Notice]:
        if self.state == SessionState.STOPPED:
            return []
        cur = self.current
        self.current = None
        self.state = SessionState.WAITING_BOARD
        if cur is not None and cur.number not in self.results:
            return self._note(Notice("board_pulled", f"board {cur.number} was taken out after "
                                     f"{self._placed} of 52 cards", "put its hands back in order "
                                     "and insert it again; it is scanned from the start",
                                     stop=True))
        return self.start()
