"""The pure dealing session: routing, every card error, the journal, restore and reconcile.

These drive :class:`dealer.session.DealingSession` with what a machine and a
camera would report (no serial port, no OpenCV); the end-to-end tests in
``test_rig_e2e.py`` do the same through the real emulator and recogniser.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.deal import Deal
from dealer.seats import Seat
from dealer.session import DealingSession, Entry, JournalError, MachineView, MemoryJournal, Sighting
from dealer.session_plan import Plan, PlanError
from dealer.store import Store
from dealer.store.journal import JournalStore


def _deal(seed: int) -> Deal:
    owners = [i % 4 for i in range(52)]
    random.Random(seed).shuffle(owners)
    return Deal.from_owners(owners)


def _set(numbers: range | list[int]) -> DealSet:
    return DealSet([Board(n, _deal(n)) for n in numbers])


class Feeder:
    """Plays the machine: numbers gates, confirms drops into the decided pocket."""

    def __init__(self, session: DealingSession, boot: int = 1) -> None:
        self.s = session
        self.boot = boot
        self.gate = 0
        self.pockets: list[list[Card]] = [[], [], [], []]
        self.rejects: list[Card | None] = []

    def feed(self, seen: Sighting, *, drop: bool = True):
        self.gate += 1
        key = (self.boot, self.gate)
        d = self.s.card_at_gate(key, seen)
        if d.route and drop:
            self.land(key, d.pocket, seen.card)
        return d, key

    def land(self, key, pocket, card) -> list:
        if pocket is None:
            self.rejects.append(card)
        else:
            self.pockets[pocket].append(card)
        return self.s.card_dropped(key, pocket)

    def deck(self, cards, deck: str | None = "1") -> None:
        for c in cards:
            self.feed(Sighting(c, deck=deck))

    def counts(self) -> tuple[int, int, int, int]:
        return tuple(len(p) for p in self.pockets)  # type: ignore[return-value]


def _shuffled(seed: int) -> list[Card]:
    cards = list(Card.all())
    random.Random(seed).shuffle(cards)
    return cards


def test_a_board_is_dealt_by_the_deal_and_every_drop_is_journalled_before_the_next_route():
    ds = _set([1])
    j = MemoryJournal()
    s = DealingSession(Plan.build(ds), j)
    assert s.start()[0].code == "insert"
    assert s.board_inserted(1)[0].code == "start"
    f = Feeder(s)
    f.deck(_shuffled(1))
    deal = ds.board(1).deal
    for seat, cards in enumerate(f.pockets):
        assert sorted(cards) == sorted(deal.hand(seat).cards)
    assert s.state == "board_done" and s.notices[-1].code == "board_done"
    # Write-ahead: each card's route entry comes before its drop, and its drop before
    # the next card's route.
    kinds = [e.kind for e in j.entries]
    assert kinds[0] == "board" and kinds[-1] == "done"
    body = kinds[1:-1]
    assert body == ["route", "drop"] * 52


def test_card_errors_go_to_the_reject_tray_with_plain_instructions():
    ds = _set([3])
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(3)
    f = Feeder(s)
    hq = Card.parse("HQ")
    d, _ = f.feed(Sighting(hq, deck="1"))
    assert d.pocket == int(ds.board(3).deal.owner(hq))
    d, _ = f.feed(Sighting(hq, deck="1"))
    assert d.pocket is None
    seat = f"{Seat(int(ds.board(3).deal.owner(hq))).title}'s pocket"
    assert d.notices[0].message == f"board 3: this deck has two ♥Q, or the ♥Q dealt to {seat} was fed again"
    assert d.notices[0].instruction == (f"if you took ♥Q out of {seat}, put it back there from the reject "
                                        "tray; if not, check the deck: take the second ♥Q out of the "
                                        "reject tray and put it aside")
    d, _ = f.feed(Sighting(None, "joker"))
    assert d.pocket is None and d.notices[0].code == "joker"
    d, _ = f.feed(Sighting(None, "face_down"))
    assert d.pocket is None and "turn it face up" in d.notices[0].instruction
    d, _ = f.feed(Sighting(None, "unreadable", "blurred"))
    assert d.pocket is None and d.notices[0].instruction.startswith("re-feed it")
    d, _ = f.feed(Sighting(Card.parse("S2"), deck="9"))
    assert d.pocket is None and d.notices[0].code == "other_deck"
    assert "another deck (deck 9)" in d.notices[0].message
    assert f.counts() == tuple(1 if s == int(ds.board(3).deal.owner(hq)) else 0 for s in range(4))


def test_missing_cards_are_named_and_rejected_cards_are_asked_back_first():
    ds = _set([1])
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = Feeder(s)
    cards = _shuffled(2)
    gone = cards[:2]
    f.feed(Sighting(None, "unreadable"))
    f.deck(cards[2:])
    first = s.hopper_empty()
    assert first[0].code == "refeed" and first[0].stop
    second = s.hopper_empty()
    assert second[0].code == "missing"
    for c in gone:
        assert c.symbol in second[0].message
    assert second[0].message.startswith("board 1: the hopper is empty but 2 cards were never read")
    # A card never read may be in a pocket (a stuck pair): the operator is told to count them.
    assert second[0].instruction.startswith("they may be in a pocket, stuck to another card")
    f.deck(gone)
    assert s.state == "board_done"


def test_a_second_copy_rejected_unread_while_its_twin_fills_the_board_is_said():
    """A deck of 53: the extra copy of a card read badly the first time goes to the
    reject tray, its twin fills the board, and the tray still holds a card that no
    one identified. Swept away with the tray it would hide a bad deck: it is said."""
    ds = _set([1])
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = Feeder(s)
    cards = _shuffled(4)
    f.feed(Sighting(None, "unreadable", "blurred"))  # the second copy of cards[7]
    f.deck(cards)
    assert s.state == "board_done"
    codes = [n.code for n in s.notices[-2:]]
    assert codes == ["unread_rejects", "board_done"]
    said = s.notices[-2]
    assert "reject tray holds 1 card never read" in said.message
    assert "check the deck" in said.instruction


def test_a_rejected_card_fed_back_leaves_nothing_to_say_when_the_board_is_full():
    ds = _set([1])
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = Feeder(s)
    cards = _shuffled(5)
    f.feed(Sighting(None, "unreadable", "blurred"))  # cards[0], read badly once
    f.deck(cards[1:])
    assert s.hopper_empty()[0].code == "refeed"
    f.deck(cards[:1])
    assert s.state == "board_done"
    assert "unread_rejects" not in [n.code for n in s.notices]


def test_wrong_board_and_automatic_board_numbers():
    ds = _set(range(1, 5))
    s = DealingSession(Plan.build(ds), MemoryJournal())
    n = s.board_inserted(2)
    assert n[0].code == "wrong_board"
    assert n[0].message == "board 2 was inserted, but the machine expects board 1"
    assert s.state == "waiting_board"
    auto = DealingSession(Plan.build(ds, auto_number=True), MemoryJournal())
    assert auto.board_inserted(3)[0].code == "start" and auto.current.slot.number == 3
    f = Feeder(auto)
    f.deck(_shuffled(3))
    assert sorted(f.pockets[0]) == sorted(ds.board(3).deal.hand(0).cards)
    auto.board_removed()
    assert auto.board_inserted(3)[0].code == "wrong_board"  # all its copies are dealt
    assert auto.board_inserted(None)[0].message == "the board's sticker cannot be read"
    assert auto.board_inserted(9)[0].code == "wrong_board"


def test_plan_copies_ranges_and_descending_order():
    ds = _set(range(1, 9))
    plan = Plan.build(ds, copies=3, first=2, last=4, descending=True)
    assert [(x.number, x.copy) for x in plan.slots] == [
        (4, 1), (4, 2), (4, 3), (3, 1), (3, 2), (3, 3), (2, 1), (2, 2), (2, 3)]
    with pytest.raises(PlanError, match="range 10-12"):
        Plan.build(ds, first=10, last=12)
    with pytest.raises(PlanError, match="copies"):
        Plan.build(ds, copies=0)


def test_a_journal_that_cannot_be_written_stops_before_any_route():
    j = MemoryJournal()
    s = DealingSession(Plan.build(_set([1])), j)
    s.board_inserted(1)
    f = Feeder(s)
    f.deck(_shuffled(4)[:10])
    j.broken = "disk full"
    d, _ = f.feed(Sighting(Card(0), deck="1"))
    assert d.route is False
    assert s.state == "stopped"
    assert s.notices[-1].code == "journal_failed" and "disk full" in s.notices[-1].message
    assert sum(f.counts()) == 10
    # Nothing more is ever decided, even when the journal works again.
    j.broken = None
    assert s.card_at_gate((1, 99), Sighting(Card(1), deck="1")).route is False


def test_restore_and_reconcile_after_a_crash():
    ds = _set([1, 2])
    plan = Plan.build(ds)
    j = MemoryJournal()
    s = DealingSession(plan, j)
    s.board_inserted(1)
    f = Feeder(s)
    cards = _shuffled(5)
    f.deck(cards[:20])
    d, key = f.feed(Sighting(cards[20], deck="1"), drop=False)  # routed, then the host died
    # The card landed while the host was dead: the counts show one more in its pocket.
    f.pockets[d.pocket].append(cards[20])
    back = DealingSession.restore(plan, list(j.entries), j)
    assert back.state == "dealing" and len(back.current.placed) == 20
    notices, reroute = back.reconcile(MachineView(True, 1, f.counts()))
    assert notices[0].code == "resume" and reroute == []
    assert len(back.current.placed) == 21
    assert j.entries[-1].kind == "drop" and j.entries[-1].code == "inferred"
    f.s = back
    f.deck(cards[21:])
    for seat, got in enumerate(f.pockets):
        assert sorted(got) == sorted(ds.board(1).deal.hand(seat).cards)
    # A routed card still unrouted at the gate (the route never left) is routed again.
    s2 = DealingSession(plan, MemoryJournal())
    s2.board_inserted(1)
    d, key = Feeder(s2).feed(Sighting(cards[0], deck="1"), drop=False)
    again = DealingSession.restore(plan, s2.journal.entries, s2.journal)
    _, reroute = again.reconcile(MachineView(True, 1, (0, 0, 0, 0), gate=key, gate_routed=False))
    assert reroute == [(key, d.pocket)]


def test_pockets_that_disagree_with_the_journal_force_a_clean_restart():
    ds = _set([1])
    plan = Plan.build(ds)
    j = MemoryJournal()
    s = DealingSession(plan, j)
    s.board_inserted(1)
    f = Feeder(s)
    f.deck(_shuffled(6)[:30])
    counts = list(f.counts())
    counts[0] += 2  # someone put cards in by hand
    back = DealingSession.restore(plan, j.entries, j)
    notices, _ = back.reconcile(MachineView(True, 1, tuple(counts)))
    assert notices[0].code == "restart" and notices[0].stop
    assert "journal has" in notices[0].message
    assert back.current is None and back.state == "waiting_board"
    assert back.board_inserted(1)[0].code == "start"
    assert back.current.placed == {}


def test_a_board_taken_out_half_dealt_is_dealt_again_from_the_start():
    s = DealingSession(Plan.build(_set([1])), MemoryJournal())
    s.board_inserted(1)
    Feeder(s).deck(_shuffled(7)[:13])
    n = s.board_removed()
    assert n[0].code == "board_pulled" and "after 13 of 52" in n[0].message
    assert s.board_inserted(1)[0].code == "start" and not s.current.placed


def test_same_back_as_the_previous_deck_and_the_stop_card():
    ds = _set([1, 2])
    s = DealingSession(Plan.build(ds), MemoryJournal())
    s.board_inserted(1)
    f = Feeder(s)
    f.deck(_shuffled(8), deck="red")
    s.board_removed()
    s.board_inserted(2)
    d, _ = f.feed(Sighting(Card(5), deck="red"))
    assert d.notices[0].code == "same_back" and "--stop-card" in d.notices[0].instruction
    stop = DealingSession(Plan.build(ds), MemoryJournal(), stop_card=True)
    stop.board_inserted(1)
    g = Feeder(stop)
    g.deck(_shuffled(9)[:50])
    d, _ = g.feed(Sighting(None, "face_down"))
    assert d.pocket is None and d.notices[0].code == "missing" and d.notices[0].stop


def test_the_sql_journal_round_trips_and_refuses_a_read_only_database(tmp_path):
    url = f"sqlite:///{tmp_path}/j.sqlite"
    with Store.open(url) as store:
        set_id = store.save(_set([1]))
        runs = JournalStore(store.engine)
        run = runs.create_run(set_id, "deal", {"copies": 1})
        j = runs.journal(run)
        s = DealingSession(Plan.build(_set([1])), j)
        s.board_inserted(1)
        Feeder(s).deck(_shuffled(10)[:5])
        assert runs.entries(run)[1] == Entry("route", 0, 1, 1, int(_shuffled(10)[0]),
                                             int(_set([1]).board(1).deal.owner(_shuffled(10)[0])),
                                             "", "1")
        assert runs.open_run(set_id) == run
    from dealer.store import make_engine

    ro = JournalStore(make_engine(f"sqlite:///file:{tmp_path}/j.sqlite?mode=ro&uri=true"))
    # An SQLite URI names its file after "file:": no folder "file:" appears where we stand.
    assert not (Path.cwd() / "file:").exists()
    with pytest.raises(JournalError, match="readonly"):
        ro.journal(run).append(Entry("board", 0))


# --------------------------------------------------------------------- VERIFY, RECORD, PLAY-SCAN
from dealer.contract import Contract  # noqa: E402
from dealer.play import Play  # noqa: E402
from dealer.session_scan import ScanSession  # noqa: E402


def _feed_hands(s: ScanSession, hands: list[list[Card]], start: int = 0) -> list:
    decisions = []
    for gate, card in enumerate([c for h in hands for c in h], start=start + 1):
        d = s.card_at_gate((1, gate), Sighting(card))
        s.card_dropped((1, gate), d.pocket)
        decisions.append(d)
    return decisions


def test_verify_finds_a_card_in_the_wrong_hand_and_refills_the_board():
    ds = _set([4])
    deal = ds.board(4).deal
    hands = [list(deal.hand(seat).cards) for seat in range(4)]
    hands[1][0], hands[2][0] = hands[2][0], hands[1][0]  # a player put a card back wrongly
    s = ScanSession("verify", MemoryJournal(), ds)
    s.board_inserted(4)
    ds_ = _feed_hands(s, hands)
    assert [d.pocket for d in ds_] == [0] * 13 + [1] * 13 + [2] * 13 + [3] * 13
    res = s.results[4]
    assert not res.ok and len(res.differences) == 2
    assert f"{hands[1][0].symbol} was in East's hand; the record has it in South's" in res.differences
    assert s.notices[-1].code == "verify_failed" and s.notices[-1].stop


def test_record_captures_a_hand_shuffled_deal_and_holds_cards_after_an_unreadable_one():
    deal = _deal(77)
    hands = [list(deal.hand(seat).cards) for seat in range(4)]
    s = ScanSession("record", MemoryJournal(), numbers=[9])
    s.board_inserted(9)
    _feed_hands(s, [hands[0][:5]])
    d = s.card_at_gate((1, 100), Sighting(None, "unreadable"))
    assert d.pocket is None and "to keep their order" in d.notices[0].message
    held = s.card_at_gate((1, 101), Sighting(hands[0][6]))
    assert held.pocket is None  # out of order now: held back
    s.card_dropped((1, 100), None)
    s.card_dropped((1, 101), None)
    n = s.hopper_empty()
    assert n[0].code == "refeed" and "in the order the cards came out" in n[0].instruction
    _feed_hands(s, [hands[0][5:], *hands[1:]], start=200)  # the tray went back on top
    assert s.results[9].deal == deal


def test_play_scan_rebuilds_the_tricks_of_a_played_board():
    deal = _deal(5)
    contract = Contract.parse("3NT S")
    p = Play(contract, deal)
    rng = random.Random(5)
    while not p.is_complete:
        p.play(rng.choice(p.legal_cards()))
    kept = [p.played_by(seat) for seat in range(4)]  # each player's cards, in order played
    ds = DealSet([Board(2, deal)])
    s = ScanSession("play", MemoryJournal(), ds, contracts={2: contract})
    s.board_inserted(2)
    _feed_hands(s, kept)
    got = s.results[2].play
    assert got is not None and got.card_sequence() == p.card_sequence()
    assert [t.winner for t in got.tricks] == [t.winner for t in p.tricks]
    assert s.notices[-1].code == "play_scanned"
    assert f"declarer took {p.declarer_tricks}" in s.notices[-1].message
