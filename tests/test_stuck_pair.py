"""Two cards stuck together, aligned so well that the thickness sensor misses them.

The camera sees the top card only; it is read and routed, and both cards fall into
its pocket. Nothing at the gate can tell, so the rest of the system must: the
pocket's sensor count grows by two (said at once), the hopper empties with a card
never read (the notice names the pocket and the card, not "under the machine"),
and a board whose pockets hold more (or fewer) cards than were read into them is
never reported complete.

* the pure session, driven as a machine with pocket sensors would drive it;
* end to end: the emulator on a pty, the real barcode camera on rendered frames,
  the driver, the rig, a SQLite journal and the simulated operator, with one stuck
  pair forced in a board (and on the reference firmware in simavr, when it is here).
"""

from __future__ import annotations

import random

import pytest
from stuck_helpers import run_with_a_stuck_pair

import rig
from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.deal import Deal
from dealer.generate import random_dealset
from dealer.seats import Seat
from dealer.session import DealingSession, MachineView, MemoryJournal, Sighting
from dealer.session_notices import Notice
from dealer.session_plan import Plan
from firmware_bridge.physical import PhysicalCard
from firmware_bridge.simboard import firmware_available


# ============================================================================ the pure session
def _set(n: int = 1) -> DealSet:
    boards = []
    for number in range(1, n + 1):
        owners = [i % 4 for i in range(52)]
        random.Random(number).shuffle(owners)
        boards.append(Board(number, Deal.from_owners(owners)))
    return DealSet(boards)


class SensorFeeder:
    """Plays a machine whose pocket sensors count what really fell (CARD_DROPPED's counts)."""

    def __init__(self, session: DealingSession) -> None:
        self.s = session
        self.gate = 0
        self.pockets: list[list[Card]] = [[], [], [], []]
        self.notices: list[Notice] = []

    def counts(self) -> tuple[int, int, int, int]:
        return (len(self.pockets[0]), len(self.pockets[1]), len(self.pockets[2]),
                len(self.pockets[3]))

    def feed(self, card: Card, under: Card | None = None) -> int | None:
        """``card`` comes to the gate; ``under`` is stuck beneath it, unseen."""
        self.gate += 1
        key = (1, self.gate)
        d = self.s.card_at_gate(key, Sighting(card, deck="1"))
        assert d.route
        if d.pocket is not None:
            self.pockets[d.pocket] += [card] + ([under] if under is not None else [])
        self.notices += self.s.card_dropped(key, d.pocket, counts=self.counts())
        return d.pocket


def _order(seed: int = 5) -> list[Card]:
    cards = list(Card.all())
    random.Random(seed).shuffle(cards)
    return cards


def _stuck_board(ds: DealSet, *, at: int = 20):
    """Board 1 dealt with cards[at + 1] stuck under cards[at]: (session, feeder, top, under)."""
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = SensorFeeder(s)
    cards = _order()
    top, under = cards[at], cards[at + 1]
    for i, c in enumerate(cards):
        if i == at:
            f.feed(c, under)
        elif i != at + 1:
            f.feed(c)
    return s, f, top, under


def test_a_pocket_that_grows_by_two_is_said_at_once_and_dealing_goes_on():
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    said = [n for n in f.notices if n.code == "stuck_pair"]
    assert len(said) == 1 and not said[0].stop
    assert said[0].message.startswith(f"board 1: a card came stuck to {top.symbol} and fell "
                                      f"unread into {Seat(pocket).title}'s pocket")
    assert s.state == "dealing" and len(s.current.placed) == 51


def test_the_hopper_empty_notice_names_the_pocket_and_the_card_never_read():
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    routed = s.current.counts()[pocket]
    held = len(f.pockets[pocket])
    assert held == routed + 1  # the unread card is in the top card's pocket
    (n,) = s.hopper_empty()
    name = f"{Seat(pocket).title}'s pocket"
    assert n.code == "stuck_card" and n.stop
    assert n.message == (f"board 1: 1 card was never read ({under.symbol}); {name} holds "
                         f"{held} cards where {routed} were routed: 1 card went in unread, "
                         f"stuck to {top.symbol}")
    assert n.instruction == (f"look through {name} for {under.symbol} and take it out ({name} "
                             f"then holds {routed} cards), put it on the hopper, then continue; "
                             "if it is not there, look in the reject tray and under the machine")
    assert "under the machine" not in n.message  # the place to look first is the pocket


def test_after_the_card_is_taken_out_of_the_pocket_and_fed_the_board_is_done_and_right():
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    s.hopper_empty()
    f.pockets[pocket].remove(under)  # the operator takes it out ...
    f.feed(under)  # ... and puts it on the hopper
    assert s.state == "board_done" and s.notices[-1].code == "board_done"
    deal = ds.board(1).deal
    assert all(sorted(map(int, f.pockets[p])) == sorted(map(int, deal.hand(p).cards))
               for p in range(4))


def test_the_card_it_was_stuck_to_fed_again_by_mistake_is_said_so_and_the_board_still_comes_right():
    """Asked to take the unread card out, the operator takes out the card it was stuck to
    and feeds that: the session says which card was to come out and where this one goes
    back, not only that the deck has two of it."""
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    name = f"{Seat(pocket).title}'s pocket"
    s.hopper_empty()
    f.pockets[pocket].remove(top)  # the wrong card taken out ...
    assert f.feed(top) is None  # ... and fed: a duplicate, to the reject tray
    n = next(n for n in reversed(s.notices) if n.code == "duplicate")
    assert n.message == (f"board 1: this deck has two {top.symbol}, or the {top.symbol} dealt to "
                         f"{name} was fed again")
    assert n.instruction == (f"the card to take out of {name} is {under.symbol}, never read, not "
                             f"{top.symbol}: put {top.symbol} back in {name} from the reject tray, "
                             f"then look for {under.symbol}")
    assert s.state == "dealing"  # never done with the card in the tray
    f.pockets[pocket].append(top)  # as told: put back, the unread one out and fed
    f.pockets[pocket].remove(under)
    f.feed(under)
    assert s.state == "board_done"
    deal = ds.board(1).deal
    assert all(sorted(map(int, f.pockets[p])) == sorted(map(int, deal.hand(p).cards)) for p in range(4))


def test_a_full_board_with_a_pocket_of_fourteen_is_never_done():
    """The operator feeds a second copy of the unread card and leaves the stuck one in the
    pocket: 52 cards read, each in its own pocket, but one pocket holds 14."""
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    s.hopper_empty()
    f.feed(under)  # a second copy from the box; the stuck one is still in the pocket
    assert s.state != "board_done" and s.boards_done == 0
    assert "board_done" not in [n.code for n in s.notices]
    n = s.notices[-1]
    assert n.code == "restart" and n.stop
    assert n.message == (f"board 1 cannot be resumed: {Seat(pocket).title}'s pocket holds 14 "
                         f"cards but 13 were read into it (a card came stuck to {top.symbol})")


def test_a_pocket_short_of_a_read_card_is_never_done():
    """The operator took the top card out instead of the unread one: the board fills only
    when the unread one is fed too, and then the top card's pocket holds 12."""
    ds = _set()
    s, f, top, under = _stuck_board(ds)
    pocket = int(ds.board(1).deal.owner(top))
    s.hopper_empty()
    f.pockets[pocket].remove(top)
    f.pockets[pocket].remove(under)
    f.feed(under)
    assert s.boards_done == 0 and s.notices[-1].code == "restart"
    assert f"{Seat(pocket).title}'s pocket holds 12 cards but 13 were read into it" in s.notices[-1].message


def test_without_sensor_counts_the_missing_notice_sends_the_operator_to_the_pockets_too():
    ds = _set()
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    cards = _order()
    for gate, c in enumerate(cards[1:], start=1):
        d = s.card_at_gate((1, gate), Sighting(c))
        s.card_dropped((1, gate), d.pocket)  # no counts: a machine without pocket sensors
    (n,) = s.hopper_empty()
    routed = s.current.counts()
    assert n.code == "missing" and n.stop
    assert n.message == f"board 1: the hopper is empty but 1 card was never read: {cards[0].symbol}"
    assert n.instruction == (
        "it may be in a pocket, stuck to another card: count each pocket (the journal routed "
        f"North {routed[0]}, East {routed[1]}, South {routed[2]}, West {routed[3]}; a pocket "
        "holding more holds a card never read), and look in the reject tray and under the "
        "machine; take out what you find, put it on the hopper, then continue")


def test_a_reconnect_after_a_stuck_pair_resumes_with_the_surplus_the_sensors_showed():
    ds = _set()
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = SensorFeeder(s)
    cards = _order()
    f.feed(cards[0], cards[1])
    for c in cards[2:10]:
        f.feed(c)
    notices, reroute = s.reconcile(MachineView(True, 1, f.counts()))
    assert [n.code for n in notices] == ["resume"] and reroute == []
    # The same counts but one card fewer than the sensors showed: not resumed.
    short = list(f.counts())
    short[int(ds.board(1).deal.owner(cards[0]))] -= 1
    s2 = DealingSession(Plan.build(ds), MemoryJournal())
    s2.board_inserted(1)
    f2 = SensorFeeder(s2)
    f2.feed(cards[0], cards[1])
    notices, _ = s2.reconcile(MachineView(True, 1, (short[0], short[1], short[2], short[3])))
    assert notices[0].code == "restart"


# ============================================================================ end to end
class WatchingOperator(rig.EmulatedOperator):
    """The simulated operator, who also notes what the pockets physically held whenever a
    board was said to be done, and what the emulator knew when each notice came."""

    def __init__(self, *a, second_copy: bool = False, **kw) -> None:
        super().__init__(*a, **kw)
        self.second_copy = second_copy  # feed a second copy instead of finding the stuck card
        self.seen: list[tuple[Notice, list[list[PhysicalCard]]]] = []
        self.done_pockets: list[tuple[int, list[list[PhysicalCard]]]] = []
        self.unread: list[tuple[list[Card], tuple[int, int, int, int]]] = []  # at stuck_card

    def handle(self, notice: Notice, r) -> None:
        pockets = [list(p) for p in self.emu.pockets]
        self.seen.append((notice, pockets))
        if notice.code == "board_done":
            self.done_pockets.append((r.session.current.slot.number, pockets))
        if notice.code == "stuck_card":
            self.unread.append((r.session.current.missing(), r.session.current.counts()))
        if notice.code == "stuck_card" and self.second_copy:
            self.second_copy = False
            missing = r.session.current.missing()
            deck = self.emu.pockets[0][0].deck_id
            self.emu.put_on_hopper([PhysicalCard(c, deck) for c in missing])
            return
        super().handle(notice, r)


def _deal_with_a_stuck_pair(tmp_path, *, machine: str = "emulator", second_copy: bool = False):
    ds = random_dealset([1, 2], event="stuck")
    report, op = run_with_a_stuck_pair(WatchingOperator, ds, f"sqlite:///{tmp_path}/stuck.sqlite",
                                       at_card=17, machine=machine,
                                       operator_options={"second_copy": second_copy})
    return ds, report, op


def _right(ds: DealSet, number: int, pockets: list[list[PhysicalCard]]) -> bool:
    deal = ds.board(number).deal
    return all(sorted(int(pc.card) for pc in got if pc.card is not None)
               == sorted(int(c) for c in deal.hand(seat).cards) and len(got) == 13
               for seat, got in enumerate(pockets))


def _check_stuck_run(ds: DealSet, report, op: WatchingOperator) -> None:
    assert report.injected["stuck_pair"] == 1
    codes = [n.code for n, _ in op.seen]
    # Said when it fell, and again (naming the pocket) when the hopper was empty.
    assert codes.count("stuck_pair") == 1 and codes.count("stuck_card") == 1
    assert "missing" not in codes  # never "find them under the machine" alone
    i = codes.index("stuck_card")
    notice, pockets = op.seen[i]
    assert notice.stop
    (missing, routed), = op.unread
    assert len(missing) == 1
    # The one card never read is physically in a pocket, one more than routed there.
    (p,) = [p for p in range(4) if any(pc.card == missing[0] for pc in pockets[p])]
    assert len(pockets[p]) == routed[p] + 1
    name = f"{Seat(p).title}'s pocket"
    assert notice.message.startswith(f"board 1: 1 card was never read ({missing[0].symbol}); "
                                     f"{name} holds {routed[p] + 1} cards where {routed[p]} "
                                     "were routed: 1 card went in unread, stuck to ")
    assert notice.instruction.startswith(f"look through {name} for {missing[0].symbol} and "
                                         "take it out")
    # Board 1 was not said to be done before the stuck card was dealt again.
    assert codes.index("board_done") > i
    # Whenever a board was said to be done, its pockets physically held its deal.
    assert [n for n, _ in op.done_pockets] == [1, 2]
    for number, held in op.done_pockets:
        assert _right(ds, number, held), number
    assert report.stopped is None and report.boards_done == 2
    assert report.checked == 2 and report.misdealt == 0


def test_a_stuck_pair_on_the_emulator_stops_with_the_pocket_notice_and_the_board_ends_right(tmp_path):
    ds, report, op = _deal_with_a_stuck_pair(tmp_path)
    _check_stuck_run(ds, report, op)
    stuck = next(n for n, _ in op.seen if n.code == "stuck_pair")
    assert "fell unread into" in stuck.message


def test_a_second_copy_fed_while_the_stuck_card_stays_in_its_pocket_is_never_done(tmp_path):
    """The operator does not take the stuck card out but feeds another copy of it: every
    card is read into its pocket, but one pocket holds 14. The board is dealt again."""
    ds, report, op = _deal_with_a_stuck_pair(tmp_path, second_copy=True)
    codes = [n.code for n, _ in op.seen]
    restart = next(n for n, _ in op.seen if n.code == "restart")
    assert "holds 14 cards but 13 were read into it (a card came stuck to" in restart.message
    assert codes.index("restart") < codes.index("board_done")
    for number, held in op.done_pockets:
        assert _right(ds, number, held), number
    assert report.stopped is None and report.boards_done == 2 and report.misdealt == 0


@pytest.mark.skipif(not firmware_available(), reason="gcc-avr, avr-libc and libsimavr-dev "
                    "are not installed")
def test_a_stuck_pair_on_the_firmware_in_simavr_is_caught_the_same_way(tmp_path):
    ds, report, op = _deal_with_a_stuck_pair(tmp_path, machine="firmware")
    _check_stuck_run(ds, report, op)
