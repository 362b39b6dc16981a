"""Two cards stuck together in a scan (verify, record, play-scan).

The hands are fed N, E, S, W and told apart by counting, so a card that falls
unread under the card read shifts every later card one place: East's first card
would be North's 13th. The pocket sensors (CARD_DROPPED's counts) show the pocket
holding more cards than were read into it; the scan is then void at once
(``rescan``): nothing of it is recorded, and the operator rebuilds the order the
cards were fed in (pockets North to West, then the reject tray, each in the order
its cards fell, on top of what is left on the hopper) and scans the board again.

* the pure session, driven as a machine with pocket sensors would drive it, in
  each mode; the operator follows the notice's instruction to the letter;
* end to end: the emulator on a pty, rendered frames read by the barcode camera,
  the rig, a SQLite journal and the simulated operator, with one stuck pair forced
  (and on the reference firmware in simavr, when it is here).
"""

from __future__ import annotations

import pytest
from stuck_helpers import played, random_deal, run_with_a_stuck_pair

import rig
from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.generate import random_dealset
from dealer.session import MemoryJournal, Sighting
from dealer.session_notices import RESCAN, Notice
from dealer.session_scan import ScanSession
from firmware_bridge.simboard import firmware_available


def _hands(deal: Deal) -> list[list[Card]]:
    return [list(deal.hand(seat).cards) for seat in range(4)]


class ScanMachine:
    """The machine and its pocket sensors, with the hands on the hopper (top first)."""

    def __init__(self, session: ScanSession, hands: list[list[Card]]) -> None:
        self.s = session
        self.hopper = [c for h in hands for c in h]
        self.pockets: list[list[Card]] = [[], [], [], []]
        self.tray: list[Card] = []
        self.gate = 0
        self.notices: list[Notice] = []
        self.routes: list[int | None] = []  # the pocket of each card read, in order

    def counts(self) -> tuple[int, int, int, int]:
        return (len(self.pockets[0]), len(self.pockets[1]), len(self.pockets[2]),
                len(self.pockets[3]))

    def feed(self, *, stuck: bool = False, sensors: bool = True) -> None:
        """The top card comes to the gate; ``stuck``: the next one comes under it, unseen."""
        fell = self.hopper[:2] if stuck else self.hopper[:1]
        del self.hopper[:len(fell)]
        self.gate += 1
        key = (1, self.gate)
        d = self.s.card_at_gate(key, Sighting(fell[0]))
        assert d.route
        self.routes.append(d.pocket)
        (self.tray if d.pocket is None else self.pockets[d.pocket]).extend(fell)
        self.notices += d.notices
        self.notices += self.s.card_dropped(key, d.pocket,
                                            counts=self.counts() if sensors else None)

    def run(self, *, stuck_at: int | None = None, in_hand: int = 1,
            sensors: bool = True, stuck_sensors: bool = True) -> None:
        """Feed until the hopper is empty, or until a stopping notice; then the card the
        feeder already held (``in_hand`` of them) still comes through, as on a machine."""
        i = 0
        while self.hopper:
            stop = [n for n in self.notices if n.stop]
            if stop:
                for _ in range(min(in_hand, len(self.hopper))):
                    self.feed(sensors=sensors)
                return
            self.feed(stuck=i == stuck_at, sensors=sensors and (i != stuck_at or stuck_sensors))
            i += 1
        self.notices += self.s.hopper_empty()

    def rebuild(self) -> list[Card]:
        """What the rescan notice says: from the top, North's pocket, East's, South's,
        West's, the reject tray (each in the order its cards fell), then the hopper."""
        stack = [c for p in self.pockets for c in p] + self.tray + self.hopper
        self.pockets, self.tray, self.hopper = [[], [], [], []], [], []
        return stack


def _rescan(s: ScanSession, m: ScanMachine, number: int) -> list[Notice]:
    """The operator takes the board out, rebuilds the stack and inserts the board again."""
    said = s.board_removed()
    stack = m.rebuild()
    said += s.board_inserted(number)
    m.hopper, m.notices = stack, []
    m.run()
    return said


def _read_into(pocket: int, held: int, read: int) -> str:
    name = ["North", "East", "South", "West"][pocket]
    return f"{name}'s pocket (it holds {held} cards, {read} were read into it)"


# ============================================================================ record
@pytest.mark.parametrize("at, in_hand", [(5, 1), (12, 1), (12, 0), (25, 1), (38, 1), (49, 1)])
def test_record_a_stuck_pair_voids_the_scan_at_once_and_the_rescan_records_therandom_deal(at, in_hand):
    """``at`` 12: North's 13th card with East's first under it, in North's pocket."""
    deal = random_deal(77)
    hands = _hands(deal)
    fed = [c for h in hands for c in h]
    s = ScanSession("record", MemoryJournal(), numbers=[9])
    s.board_inserted(9)
    m = ScanMachine(s, hands)
    m.run(stuck_at=at, in_hand=in_hand)
    top, pocket = fed[at], at // 13
    (n,) = [n for n in m.notices if n.stop]
    assert n.code == "rescan" and n == s.notices[-1] and n.stop
    read = at % 13 + 1  # cards read into the pocket, the top card of the pair the last
    assert n.message == (f"board 9: a card came stuck to {top.symbol} and fell unread into "
                         f"{_read_into(pocket, read + 1, read)}; every card after it would be "
                         "counted one place early, so the hands can no longer be told apart "
                         "by order: no deal is recorded, and the board is scanned again from "
                         "the start")
    assert n.instruction == RESCAN
    assert n.instruction == (
        "take the board out; stack its cards back in the order they were fed, the first card on "
        "top: North's pocket, then East's, South's and West's, then the reject tray (each pile in "
        "the order its cards fell); put that stack on top of the cards still on the hopper and "
        "insert the board again")
    # Nothing of this scan is recorded, and the card in hand went to the reject tray.
    assert s.results == {} and s.current is None and s.state == "waiting_board"
    assert m.routes[at + 1:] == [None] * in_hand and len(m.tray) == in_hand
    assert s.journal.entries[-1].kind == "restart"
    assert s.hopper_empty() == []  # no "feed the rest of the hands"
    # The rebuilt stack is the order the hands were fed in, so the rescan records the deal.
    assert [n.code for n in _rescan(s, m, 9)] == ["insert", "start"]
    assert s.results[9].deal == deal
    assert m.notices[-1].code == "recorded"
    assert [n.code for n in m.notices].count("rescan") == 0


def test_record_a_stuck_pair_is_never_recorded_with_the_hands_shifted():
    """Feeding on regardless (the old behaviour) would put East's first card in North's hand:
    no result exists for the board until it has been scanned again."""
    deal = random_deal(5)
    hands = _hands(deal)
    s = ScanSession("record", MemoryJournal(), numbers=[3])
    s.board_inserted(3)
    m = ScanMachine(s, hands)
    m.run(stuck_at=12, in_hand=40)  # the machine is not stopped: every card goes to the tray
    assert s.results == {} and 3 not in s.results
    assert not any(n.code in ("recorded", "missing") for n in s.notices)
    assert len(m.tray) == 38 and m.counts() == (14, 0, 0, 0)
    _rescan(s, m, 3)
    assert s.results[3].deal == deal


def test_record_the_hopper_empty_names_the_stuck_pair_when_the_drop_was_not_counted():
    """The drop of the pair came without counts (the card at it cannot be named); later
    drops' counts show North's pocket holding one more: the empty hopper says why."""
    deal = random_deal(8)
    hands = _hands(deal)
    s = ScanSession("record", MemoryJournal(), numbers=[4])
    s.board_inserted(4)
    m = ScanMachine(s, hands)
    m.run(stuck_at=12, stuck_sensors=False)
    (n,) = [n for n in m.notices if n.stop]
    assert n.code == "rescan" and n.stop and n.instruction == RESCAN
    assert n.message == ("board 4: the hopper is empty after 51 of 52 cards, but North's pocket "
                         "holds 14 cards where 13 were read into it (a card came stuck to another "
                         "and fell in unread); every card after it was counted one place early, so "
                         "the hands can no longer be told apart by order: no deal is recorded, and "
                         "the board is scanned again from the start")
    assert "feed the rest of the hands" not in str(n)
    assert s.results == {} and s.state == "waiting_board"
    _rescan(s, m, 4)
    assert s.results[4].deal == deal


def test_a_drop_counted_after_one_without_counts_does_not_name_a_card():
    deal = random_deal(9)
    s = ScanSession("record", MemoryJournal(), numbers=[4])
    s.board_inserted(4)
    m = ScanMachine(s, _hands(deal))
    m.run(stuck_at=3, stuck_sensors=False)  # the next North drop shows the surplus
    (n,) = [n for n in m.notices if n.stop]
    assert n.message.startswith(f"board 4: a card fell unread into {_read_into(0, 6, 5)}; ")
    assert s.results == {}


def test_without_sensor_counts_a_scan_behaves_as_before():
    deal = random_deal(6)
    s = ScanSession("record", MemoryJournal(), numbers=[2])
    s.board_inserted(2)
    m = ScanMachine(s, _hands(deal))
    m.run(stuck_at=12, sensors=False)
    (n,) = [n for n in m.notices if n.stop]
    assert n.code == "missing"
    assert str(n) == ("board 2: the hopper is empty after 51 of 52 cards (West's hand): feed the "
                      "rest of the hands in order, then continue")
    assert s.state == "dealing" and s.current is not None


def test_a_clean_scan_with_counts_records_the_deal_and_says_nothing_else():
    deal = random_deal(11)
    s = ScanSession("record", MemoryJournal(), numbers=[1])
    s.board_inserted(1)
    m = ScanMachine(s, _hands(deal))
    m.run()
    assert [n.code for n in m.notices] == ["recorded"] and s.results[1].deal == deal


# ============================================================================ verify
def test_verify_a_stuck_pair_gives_no_verdict_and_the_rescan_verifies():
    ds = DealSet([Board(7, random_deal(7))])
    s = ScanSession("verify", MemoryJournal(), ds)
    s.board_inserted(7)
    m = ScanMachine(s, _hands(ds.board(7).deal))
    m.run(stuck_at=12)
    (n,) = [n for n in m.notices if n.stop]
    assert n.code == "rescan"
    assert n.message.endswith("the hands can no longer be told apart by order: nothing is "
                              "compared with the record, and the board is scanned again from "
                              "the start")
    assert n.message.startswith(f"board 7: a card came stuck to {_hands(ds.board(7).deal)[0][12].symbol} "
                                f"and fell unread into {_read_into(0, 14, 13)}")
    assert s.results == {}
    assert not any(x.code in ("verified", "verify_failed") for x in s.notices)
    _rescan(s, m, 7)
    assert s.results[7].ok and s.notices[-1].code == "verified"


# ============================================================================ play
def test_play_scan_a_stuck_pair_saves_no_play_and_the_rescan_rebuilds_the_tricks():
    deal = random_deal(5)
    contract = Contract.parse("3NT S")
    p, kept = played(deal, contract, 5)
    s = ScanSession("play", MemoryJournal(), DealSet([Board(2, deal)]), contracts={2: contract})
    s.board_inserted(2)
    m = ScanMachine(s, kept)
    m.run(stuck_at=30)
    (n,) = [n for n in m.notices if n.stop]
    assert n.code == "rescan" and "no play is rebuilt" in n.message
    assert s.results == {}
    assert not any(x.code in ("play_scanned", "play_failed") for x in s.notices)
    _rescan(s, m, 2)
    assert s.results[2].play.card_sequence() == p.card_sequence()
    assert s.notices[-1].code == "play_scanned"


# ============================================================================ end to end
class RescanOperator(rig.EmulatedOperator):
    """The simulated operator, who also notes the order the cards lay in when it rebuilt
    the stack for the rescan (pockets, reject tray, hopper), and every notice."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.seen: list[Notice] = []
        self.rebuilt: list[list[Card]] = []

    def handle(self, notice: Notice, r) -> None:
        self.seen.append(notice)
        super().handle(notice, r)

    def _start_again(self, r) -> None:
        super()._start_again(r)
        self.rebuilt.append([pc.card for pc in self.reuse or []])


def _scan_with_a_stuck_pair(tmp_path, mode: str, machine: str) -> None:
    ds = random_dealset([1, 2], event="stuck-scan")
    # At the feed after the next: North's 13th card, East's first under it.
    report, op = run_with_a_stuck_pair(RescanOperator, ds, f"sqlite:///{tmp_path}/scan.sqlite",
                                       at_card=11, machine=machine, mode=mode)
    assert report.injected["stuck_pair"] == 1
    codes = [n.code for n in op.seen]
    assert codes.count("rescan") == 1 and "missing" not in codes
    n = next(n for n in op.seen if n.code == "rescan")
    assert n.stop and n.instruction == RESCAN and n.message.startswith("board 1: a card came stuck to ")
    # North's 13th card, with East's first under it: in North's pocket, not East's.
    assert f"fell unread into {_read_into(0, 14, 13)}" in n.message
    # The first board's result came only from the rescan, after the notice.
    first_done = next(i for i, x in enumerate(op.seen) if x.code in ("recorded", "verified"))
    assert codes.index("rescan") < first_done
    assert codes.count("recorded" if mode == "record" else "verified") == 2
    # The stack the operator rebuilt as told is the order the hands were fed in.
    fed = [c for h in op.fed[1] for c in h]
    assert op.rebuilt == [fed]
    if mode == "record":
        assert [report.scan[b].deal for b in (1, 2)] == [ds.board(1).deal, ds.board(2).deal]
    else:
        assert report.scan[1].ok and report.scan[2].ok
    assert report.stopped is None and report.boards_done == 2
    assert report.checked == 2 and report.misdealt == 0


@pytest.mark.parametrize("mode", ["record", "verify"])
def test_a_stuck_pair_in_a_scan_on_the_emulator_is_scanned_again_and_ends_right(tmp_path, mode):
    _scan_with_a_stuck_pair(tmp_path, mode, "emulator")


@pytest.mark.skipif(not firmware_available(), reason="gcc-avr, avr-libc and libsimavr-dev "
                    "are not installed")
def test_a_stuck_pair_in_a_record_scan_on_the_firmware_in_simavr_too(tmp_path):
    _scan_with_a_stuck_pair(tmp_path, "record", "firmware")
