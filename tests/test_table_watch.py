"""The table watcher (issue 9): real recorded play through the emulated overhead camera.

Every test renders real frames with OpenCV and reads them with the real
recognisers; nothing of ours is mocked. The long run over 200+ boards is
``bench/table_watch.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.board import Board, DealSet
from dealer.cards import Card, Suit
from dealer.contract import Contract
from dealer.games.bugger import BuggerGame
from dealer.hand import Hand
from dealer.play_record import (
    UNCONFIRMED,
    PlayRecord,
    PlayRecordError,
    beer_card,
    board_play,
    bugger_record,
    score_bugger_round,
    to_board,
)
from vision.index import IndexReader
from vision.learn import learn
from vision.render import render_card_frame
from vision.table_render import (
    CALM,
    FRAME_H,
    FRAME_W,
    TableCamera,
    TableLayout,
    bridge_layout,
    frames,
    learning_scenes,
    play_scenes,
    ring_layout,
)
from vision.table_watch import (
    TableWatcher,
    bridge_record,
    canvas_of,
    learn_at_table,
    look,
    partial_read,
    run,
)

ROOT = Path(__file__).resolve().parents[1]
ENDPLAY = Path(os.environ.get("BOARDWRIGHT_SHARED", ROOT.parent / "shared")) / "corpus" / "endplay"
Tricks = list[list[tuple[int, Card]]]


@pytest.fixture(scope="module")
def reader() -> IndexReader:
    """The learning pass at the table: the sorted deck through the table camera."""
    return IndexReader(learn_at_table(TableCamera(bridge_layout(), seed=424242, disturbances=CALM)))


@pytest.fixture(scope="module")
def script_reader() -> IndexReader:
    """A reader for a typeface the table never shows: every card must be refused."""
    return IndexReader(learn("script", ((str(c), render_card_frame(c, design="script", seed=int(c)))
                                        for c in Card.all())))


def _watch(board: Board, reader: IndexReader, *, with_deal: bool, seed: int,
           tricks: Tricks | None = None) -> tuple[TableWatcher, Contract, Tricks]:
    contract, recorded = board_play(board)
    tricks = tricks or recorded
    assert board.deal is not None and contract.declarer is not None
    lay = bridge_layout()
    w = TableWatcher(lay, reader, bridge_record(contract, board.deal if with_deal else None))
    dummy = contract.declarer.partner
    scenes = play_scenes(tricks, 4, dummy=(int(dummy), board.deal.hand(dummy).cards), seed=seed)
    run(w, frames(scenes, TableCamera(lay, seed=seed)))
    return w, contract, tricks


def _score(w: TableWatcher, tricks: Tricks) -> tuple[int, int, int]:
    """(right, unconfirmed, wrong) against the recorded play; every card must be accounted for."""
    got = {(ti, e.seat): e for ti, e in w.record.entries()}
    truth = {(ti, s): c for ti, t in enumerate(tricks) for s, c in t}
    assert set(got) == set(truth), "a card was lost or invented"
    right = sum(1 for k, c in truth.items() if got[k].card == c)
    unconfirmed = sum(1 for k in truth if got[k].card is None)
    for k in truth:  # an unconfirmed card always offers the true card
        if got[k].card is None:
            assert truth[k] in got[k].candidates, got[k]
    return right, unconfirmed, len(truth) - right - unconfirmed


# --------------------------------------------------------------------------- corpus replays
def test_corpus_lin_replay_with_deal_no_wrong_card(reader: IndexReader) -> None:
    ds = formats.read(ENDPLAY / "example1.lin")
    total = right = 0
    for board in ds.boards[:2]:
        w, contract, tricks = _watch(board, reader, with_deal=True, seed=board.number)
        r, unconfirmed, wrong = _score(w, tricks)
        assert wrong == 0
        total += r + unconfirmed
        right += r
        assert [e.kind for e in w.events].count("trick") == len(tricks)
        assert not w.record.irregularities
    assert right >= 0.95 * total  # the bench measures the real rate over 200 boards


def test_corpus_pbn_replay_rules_alone(reader: IndexReader) -> None:
    """No deal known: the rules alone (turn order, no card twice, shown-out suits)."""
    for board in formats.read(ENDPLAY / "example1.pbn").boards:
        w, _, tricks = _watch(board, reader, with_deal=False, seed=7 + board.number)
        _, _, wrong = _score(w, tricks)
        assert wrong == 0
        assert w.record.hands == [None] * 4


def test_output_pbn_and_lin_carry_the_watched_play(reader: IndexReader, tmp_path: Path) -> None:
    board = formats.read(ENDPLAY / "example1.lin").boards[1]
    w, contract, tricks = _watch(board, reader, with_deal=True, seed=3)
    for trick, e in w.record.unconfirmed():  # the table confirms what the camera could not read
        truth = dict(tricks[trick - 1])[e.seat]
        w.confirm(trick, e.seat, truth)
    out = DealSet([to_board(w.record, board, contract)])
    for fmt in ("pbn", "lin"):
        path = tmp_path / f"play.{fmt}"
        formats.write(out, path, format=fmt)
        back = formats.read(path).boards[0]
        c2, t2 = board_play(back)
        assert c2 == contract
        assert t2 == tricks
    assert out.boards[0].tags["Result"] == str(sum(
        1 for i in range(13) if w.record.winner(i) in (int(contract.declarer),
                                                            int(contract.declarer.partner))))


# --------------------------------------------------------------------------- uncertainty
def test_unlearned_deck_is_flagged_never_guessed(script_reader: IndexReader) -> None:
    """A deck whose typeface was never learned: every card is unconfirmed, with candidates."""
    board = formats.read(ENDPLAY / "example1.pbn").boards[0]
    w, contract, tricks = _watch(board, script_reader, with_deal=True, seed=11)
    entries = [e for _, e in w.record.entries()]
    assert entries and all(e.card is None and e.status == UNCONFIRMED for e in entries)
    # With the deal known the candidates are the few cards the rules allow.
    first = w.record.tricks[0].entries[0]
    assert tricks[0][0][1] in first.candidates and len(first.candidates) <= 13
    follower = w.record.tricks[0].entries[1]
    assert set(follower.candidates) == set(board.deal.hand(follower.seat).cards)
    # One tap per card; an impossible card is refused with the reason.
    with pytest.raises(PlayRecordError, match="hand"):
        w.confirm(1, first.seat, next(c for c in Card.all()
                                       if c not in board.deal.hand(first.seat)))
    for t_no, trick in enumerate(tricks, start=1):
        for seat, card in trick:
            w.confirm(t_no, seat, card)
    assert not w.record.unconfirmed()
    assert w.record.winner(0) is not None
    assert w.record.tricks[1].leader == w.record.winner(0)
    assert [[(e.seat, e.card) for e in t.entries] for t in w.record.tricks if t.entries] == tricks


def test_broken_frames_never_raise_nor_invent() -> None:
    rec = PlayRecord(4, trump=None, leader=0, tricks=1)
    w = TableWatcher(bridge_layout(), None, rec)
    assert w.feed(None)[0].kind == "ignored"
    assert w.feed(np.zeros((10, 10), np.uint8))[0].kind == "ignored"
    noise = np.random.default_rng(1).integers(0, 255, (FRAME_H, FRAME_W, 3), dtype=np.uint8)
    for _ in range(4):
        w.feed(noise)
    assert not any(e.card is not None for _, e in rec.entries())


# --------------------------------------------------------------------------- the rules
def test_revokes_with_evidence_from_hand_and_from_later_play() -> None:
    hands = [Hand.from_pbn(h) for h in ("AK.2.3.4", "QJ.5.6.7", "T9.8.9.T", "87.J.Q.K")]
    known = PlayRecord(4, trump=None, leader=0, tricks=4, hands=hands)
    blind = PlayRecord(4, trump=None, leader=0, tricks=4)
    plays = [(0, "SA"), (1, "H5"), (2, "ST"), (3, "S8"),  # East revokes: holds SQ SJ
             (0, "SK"), (1, "SQ"), (2, "S9"), (3, "S7")]
    for rec in (known, blind):
        for seat, c in plays:
            rec.add(seat, Card.parse(c))
        (r,) = rec.revokes()
        assert (r.trick, r.seat, str(r.card), r.suit_led) == (1, 1, "H5", Suit.SPADES)
    assert known.revokes()[0].how == "hand" and {str(c) for c in known.revokes()[0].held} == {"SQ", "SJ"}
    assert blind.revokes()[0].how == "later" and [str(c) for c in blind.revokes()[0].held] == ["SQ"]
    assert "E played H5 to a S lead" in known.revokes()[0].describe(["N", "E", "S", "W"])


def test_known_deal_refuses_a_card_outside_the_hand() -> None:
    hands = [Hand.from_pbn(h) for h in ("AK.2.3.4", "QJ.5.6.7", "T9.8.9.T", "87.J.Q.K")]
    rec = PlayRecord(4, trump=Suit.HEARTS, leader=0, tricks=4, hands=hands,
                     names=["N", "E", "S", "W"])
    e = rec.add(0, Card.parse("SQ"))  # a misread: SQ is East's
    assert e.card is None and e.status == UNCONFIRMED
    assert e.note == "read as SQ, but SQ is not in N's hand"
    assert set(e.candidates) == set(hands[0].cards)


def test_beer_card_note() -> None:
    rec = PlayRecord(4, trump=None, leader=1, tricks=1)
    for s, c in ((1, "D2"), (2, "D7"), (3, "D3"), (0, "D4")):
        rec.add(s, Card.parse(c))
    one_nt_fails = Contract.parse("1NT S")  # needs 7 tricks, took 1
    assert beer_card(rec, one_nt_fails) is None
    won_by_defender = PlayRecord(4, trump=None, leader=0, tricks=1)
    for s, c in ((0, "D2"), (1, "D7"), (2, "D3"), (3, "D4")):
        won_by_defender.add(s, Card.parse(c))
    note = beer_card(won_by_defender, one_nt_fails)
    assert note is not None and "♦7" in note and "partner" in note


def test_layouts_fit_the_frame_without_overlap() -> None:
    for lay in [bridge_layout()] + [ring_layout(n) for n in range(3, 11)]:
        assert isinstance(lay, TableLayout) and len(lay.zones) == lay.players
        for i, (x0, y0, x1, y1) in enumerate(lay.zones):
            assert 0 <= x0 < x1 <= FRAME_W and 0 <= y0 < y1 <= FRAME_H
            for a0, b0, a1, b1 in lay.zones[i + 1:]:
                assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0, lay


# --------------------------------------------------------------------------- Bugger Bridge
PLAYERS = ["Bob", "Helen", "Corky", "Kim", "Randi"]
SEED_ROUNDS = [("HA", [0, 0, 0, 1, 1], [0, 0, 0, 0, 1]),
               ("D7", [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]),
               ("S2", [0, 1, 2, 0, 0], [0, 1, 2, 0, 0])]


def _find_round(turned: Card, leader: int, cards: int, target: list[int],
                seed: int) -> Tricks:
    """A deal and a legal play of one Bugger round that gives ``target`` tricks per player."""
    rng = np.random.default_rng(seed)
    rest = [c for c in Card.all() if c != turned]
    for _ in range(20000):
        order = rng.permutation(len(rest))
        hands = [[rest[int(i)] for i in order[p * cards:(p + 1) * cards]] for p in range(5)]
        rec = PlayRecord(5, trump=turned.suit, leader=leader, tricks=cards)
        tricks: Tricks = []
        lead = leader
        for _ in range(cards):
            trick = []
            for k in range(5):
                seat = (lead + k) % 5
                led = trick[0][1].suit if trick else None
                legal = [c for c in hands[seat] if c.suit == led] or hands[seat]
                card = legal[int(rng.integers(len(legal)))]
                hands[seat].remove(card)
                rec.add(seat, card)
                trick.append((seat, card))
            tricks.append(trick)
            lead = rec.tricks[-1].leader if len(tricks) < cards else lead
        won = rec.tricks_won()
        if won is not None and [won[s] for s in range(5)] == target:
            return tricks
    raise AssertionError("no deal found")


def _bugger_scenes(tricks: Tricks, turned: Card, dealer: int, seed: int) -> Iterator[np.ndarray]:
    lay = ring_layout(5)
    scenes = play_scenes(tricks, 5, seed=seed, turned=(dealer, turned))
    for f, _ in frames(scenes, TableCamera(lay, seed=seed)):
        yield f


def test_bugger_evening_five_players_into_the_score_pad(reader: IndexReader) -> None:
    """Seed 001's example evening (Bob, Helen, Corky, Kim, Randi), watched round by round."""
    game = BuggerGame(PLAYERS, first_dealer=4)
    lay = ring_layout(5)
    for n, (turned_text, bids, target) in enumerate(SEED_ROUNDS):
        turned = Card.parse(turned_text)
        game.start_round(turned)
        for p in game.bidding_order():
            game.bid(p, bids[PLAYERS.index(p)])
        dealer = game.current.dealer  # type: ignore[union-attr]
        rec = bugger_record(game)
        rec.trump = None  # the watcher learns trump from the turned-up card
        tricks = _find_round(turned, (dealer + 1) % 5, n + 1, target, seed=n)
        w = TableWatcher(lay, reader, rec, trump_seat=dealer)
        run(w, _bugger_scenes(tricks, turned, dealer, seed=20 + n))
        if w.trump_card is None:
            w.confirm_trump(turned)
        assert w.trump_card == turned
        for trick, e in rec.unconfirmed():
            w.confirm(trick, e.seat, dict(tricks[trick - 1])[e.seat])
        assert [[(e.seat, e.card) for e in t.entries] for t in rec.tricks if t.entries] == tricks
        score_bugger_round(game, rec)
    sheet = game.sheet().splitlines()
    assert sheet[1].split() == ["1", "10^0", "10^0", "10^0", "0^1", "11^1"]
    assert sheet[2].split() == ["2", "-^0", "-^0", "20^0", "10^0", "21^0"]
    assert sheet[3].split() == ["3", "20^0", "21^1", "33^2", "20^0", "31^0"]


def test_bugger_revoke_costs_ten_and_redeals() -> None:
    game = BuggerGame(PLAYERS, first_dealer=0)
    game.start_round("HA")
    for p in game.bidding_order():
        game.bid(p, 0)
    rec = PlayRecord(5, trump=Suit.HEARTS, leader=1, tricks=2, names=PLAYERS)
    # Helen leads a club; Corky discards a spade, then plays a club in trick 2: a revoke.
    for seat, c in ((1, "C5"), (2, "S3"), (3, "C9"), (4, "C2"), (0, "C3"),
                    (3, "D4"), (4, "D2"), (0, "D3"), (1, "D5"), (2, "C7")):
        rec.add(seat, Card.parse(c))
    assert score_bugger_round(game, rec) == {}
    assert game.totals()["Corky"] == -10 and game.current is None
    assert game.next_spec.number == 1  # the same round is redealt


# --------------------------------------------------------------------------- command line
def test_cli_watch_writes_pbn_and_lin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dealer.cli import main

    out_pbn, out_lin = tmp_path / "w.pbn", tmp_path / "w.lin"
    assert main(["vision", "watch", str(ENDPLAY / "example1.pbn"), "--board", "1", "--calm",
                 "--pbn", str(out_pbn), "--lin", str(out_lin)]) == 0
    err = capsys.readouterr().err
    assert "board 1:" in err and "unconfirmed" in err
    board = formats.read(out_pbn).boards[0]
    _, watched = board_play(board)
    _, recorded = board_play(formats.read(ENDPLAY / "example1.pbn").boards[0])
    flat = [c for t in watched for c in t]
    assert flat == [c for t in recorded for c in t][:len(flat)]  # a prefix: never a wrong card
    assert out_lin.read_text().startswith("qx|o1|")


def test_cli_watch_bad_board_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from dealer.cli import main

    assert main(["vision", "watch", str(ENDPLAY / "example1.pbn"), "--board", "99"]) == 2
    err = capsys.readouterr().err
    assert "no board 99" in err and "Traceback" not in err


def test_watched_play_stored_with_the_result(reader: IndexReader, tmp_path: Path) -> None:
    from dealer.store import Store
    from dealer.store import results as rs
    from vision.table_watch import store_play

    board = formats.read(ENDPLAY / "example1.pbn").boards[1]
    w, contract, tricks = _watch(board, reader, with_deal=True, seed=5)
    for trick, e in w.record.unconfirmed():
        w.confirm(trick, e.seat, dict(tricks[trick - 1])[e.seat])
    with Store.open(f"sqlite:///{tmp_path / 'club.db'}") as st:
        ce = rs.create_club_event(st, "Camera", tables=2)
        rid = rs.submit(st, ce, "A", 1, 1, rs.Entry(1, "4H", "N", 10), submission_id="t1",
                        who="table 1").result_id
        assert store_play(st, rid, w.record) == len(tricks)
        row = rs.result(st, rid)
        pbn_rows = [ln for ln in board.sections["Play"].splitlines() if ln.strip() != "*"]
        assert row.play.splitlines() == pbn_rows
        assert rs.changes(st, ce)[-1].field == "play"


def test_no_revoke_claimed_on_an_unconfirmed_card() -> None:
    """North's unconfirmed card in trick 1 may have been the SK: no proof of a revoke, until
    the card is confirmed as another one."""
    hands = [Hand.from_pbn(h) for h in ("K.2.3.", "Q9.5..7", "J8.8..T", "T7.J..K")]
    rec = PlayRecord(4, trump=None, leader=0, tricks=2, hands=hands)
    rec.add(0, None)
    for seat, c in ((1, "SQ"), (2, "SJ"), (3, "ST")):
        rec.add(seat, Card.parse(c))
    rec.lead(1)
    for seat, c in ((1, "S9"), (2, "S8"), (3, "S7"), (0, "H2")):
        rec.add(seat, Card.parse(c))
    assert rec.revokes() == []  # had North played the SK already, H2 was no revoke
    rec.confirm(1, 0, Card.parse("D3"))
    (r,) = rec.revokes()
    assert (r.trick, r.seat, [str(c) for c in r.held]) == (2, 0, ["SK"])


# --------------------------------------------------------------------------- partial reads
# The rules that weigh partial reads are tested without pixels in tests/test_play_watch.py.
def test_partial_read_of_a_real_table_face(reader: IndexReader, script_reader: IndexReader) -> None:
    """Rank and colour from a face the camera really saw; an unlearned typeface gives none."""
    lay = bridge_layout()
    cam = TableCamera(lay, seed=3, disturbances=CALM)
    x0, y0, x1, y1 = lay.zones[2]
    scene = next(iter(learning_scenes(4, 2)))  # C2 in South's zone
    face = look(cam.render(scene)[y0:y1, x0:x1], lay.card_scale).face
    assert face is not None
    p = partial_read(reader, canvas_of(face)[30:30 + 420, 170:170 + 300])
    assert p is not None and p.cards()[0] == Card.parse("C2") and not p.red
    # The suit shapes are weighed by the reader's margin, in units of how alike its learned
    # ♣ and ♠ are (issue 15: the margin replaced the ratio test).
    assert p.alike == pytest.approx(float(reader.design.suit_templates[0] @ reader.design.suit_templates[3]))
    assert p.margin == reader.t.margin
    assert partial_read(script_reader, canvas_of(face)[30:30 + 420, 170:170 + 300]) is None
    assert partial_read(None, face) is None
