"""The auction and the play: law checks, seed 002's example, real PBN records."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.auction import ALL_BIDS, DOUBLE, PASS, REDOUBLE, Auction, AuctionError, Call
from dealer.cards import Card, Strain, Suit
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.play import Play, PlayError, replay, trick_winner
from dealer.play_section import pbn_play_sequence
from dealer.scoring.duplicate import score_ns
from dealer.seats import Seat, Vulnerability


# ---------------------------------------------------------------- auction
def test_seed_002_auction_example() -> None:
    # Seed 002 "The Auction": N deals; pass 1♥ X 3♥ / 3♠ pass 4♠ pass / pass pass.
    a = Auction.from_calls("N", "pass 1H X 3H 3S pass 4S pass pass pass")
    c = a.contract
    assert c is not None and c.ascii == "4S" and c.declarer is Seat.NORTH
    assert c.doubled == 0  # South's double was cancelled by West's 3♥


@pytest.mark.parametrize(
    ("dealer", "calls", "bad", "reason"),
    [
        ("N", "1H", "1D", "call 2 (E): insufficient bid 1D: it must be higher than 1H"),
        ("N", "1NT", "1S", "insufficient bid 1S"),
        ("N", "1H pass", "X", "call 3 (S): double of 1H, a bid by your own side"),
        ("N", "1H", "XX", "redouble of 1H, which has not been doubled"),
        ("N", "1H X pass", "XX", "redouble of your own side's double of 1H"),
        ("N", "1H X XX", "X", "1H is already redoubled"),
        ("N", "1H X XX", "XX", "1H is already redoubled"),
        ("N", "", "X", "X without a bid to double"),
        ("N", "pass pass pass pass", "1C", "the auction is over"),
        ("N", "1C pass pass pass", "pass", "the auction is over"),
    ],
)
def test_illegal_calls_rejected_with_reason(dealer: str, calls: str, bad: str, reason: str) -> None:
    a = Auction.from_calls(dealer, calls)
    before = list(a.calls)
    with pytest.raises(AuctionError, match=re.escape(reason)):
        a.call(bad)
    assert a.calls == before  # nothing recorded is lost


def test_redouble_by_either_member_of_doubled_side() -> None:
    a = Auction.from_calls("N", "1H X")
    a.call("XX")  # South, opener's partner, redoubles
    b = Auction.from_calls("N", "1H X pass pass")
    b.call("XX")  # North, the bidder, redoubles in fourth seat after the double
    assert b.calls[-1] is REDOUBLE


def test_call_out_of_turn() -> None:
    a = Auction("E")
    with pytest.raises(AuctionError, match=r"call 1 \(S\): call out of turn by S: it is E's turn"):
        a.call("1C", seat="S")
    a.call("1C", seat="E")
    assert a.next_seat is Seat.SOUTH


def test_passed_out_and_completion() -> None:
    a = Auction.from_calls("W", "p p p")
    assert not a.is_complete and a.contract is None
    a.call("p")
    assert a.is_passed_out and a.contract is not None and a.contract.is_passed_out
    late = Auction.from_calls("N", "p p p 1S p p p")  # fourth-hand opening
    assert late.contract is not None and late.contract.declarer is Seat.WEST


def test_declarer_is_first_of_side_to_name_strain() -> None:
    # S names hearts first, N raises; N-S play in hearts, so S declares.
    a = Auction.from_calls("N", "1C pass 1H pass 2H pass 4H X XX AP")
    c = a.contract
    assert c is not None and str(c) == "4♥XX S"
    # A strain named by the opponents does not count.
    b = Auction.from_calls("N", "1S 2S 3S AP")
    assert b.contract is not None and b.contract.declarer is Seat.NORTH


def test_call_parse() -> None:
    assert Call.parse("1♠") == Call.bid(1, Strain.SPADES)
    assert Call.parse("3NT") == Call.parse("3N")
    assert Call.parse("Dbl") is DOUBLE and Call.parse("rdbl") is REDOUBLE
    assert Call.parse("NB") is PASS
    for bad in ("8S", "1Z", "hello"):
        with pytest.raises(AuctionError, match="cannot read call"):
            Call.parse(bad)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_legal_auctions_invariants(data: st.DataObject) -> None:
    dealer = data.draw(st.sampled_from(list(Seat)))
    a = Auction(dealer)
    highest = -1
    while not a.is_complete:
        legal = a.legal_calls()
        # Every call not offered must be refused, with a reason.
        illegal = [c for c in (PASS, DOUBLE, REDOUBLE, *ALL_BIDS) if c not in legal]
        if illegal:
            probe = data.draw(st.sampled_from(illegal))
            with pytest.raises(AuctionError):
                a.call(probe)
        assert PASS in legal
        # Bias towards passing so auctions end in reasonable time.
        call = data.draw(st.one_of(st.just(PASS), st.sampled_from(legal)))
        a.call(call)
        if call.kind == "bid":
            assert call.rank > highest
            highest = call.rank
        assert len(a.calls) <= 319  # the longest possible auction
    c = a.contract
    assert c is not None
    if highest < 0:
        assert c.is_passed_out and len(a.calls) == 4
    else:
        last = next(x for x in reversed(a.calls) if x.kind == "bid")
        assert (c.level, c.strain) == (last.level, last.strain)
        last_bidder = a.dealer.rotate(max(i for i, x in enumerate(a.calls) if x.kind == "bid"))
        assert c.declarer is not None and c.declarer.is_ns == last_bidder.is_ns
        assert a.calls[-3:] == [PASS, PASS, PASS]


# ---------------------------------------------------------------- play
DEAL = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")


def test_trick_winner_trumps_and_nt() -> None:
    cards = [Card.parse(c) for c in ("D5", "DA", "C2", "D9")]
    assert trick_winner(cards, Seat.SOUTH, Suit.CLUBS) is Seat.NORTH  # ruff by the third hand
    assert trick_winner(cards, Seat.SOUTH, None) is Seat.WEST          # ace of the suit led
    assert trick_winner(cards, Seat.SOUTH, Suit.HEARTS) is Seat.WEST   # off-suit trumps none


def test_play_flow_dummy_claim() -> None:
    p = Play(Contract.parse("4S S"), DEAL)
    assert p.opening_leader is Seat.WEST and p.dummy is Seat.NORTH
    assert p.dummy_cards is None  # hidden before the opening lead
    p.play("H2")
    assert p.dummy_exposed and p.dummy_cards is not None and len(p.dummy_cards) == 13
    with pytest.raises(PlayError, match=r"trick 1, card 2 \(N\): SA does not follow suit: "
                                         r"North must play ♥ \(HA HK HQ\)"):
        p.play("SA")
    with pytest.raises(PlayError, match="played out of turn by E"):
        p.play("HJ", seat="E")
    for c in ("HA", "HJ", "H6"):
        p.play(c)
    assert p.tricks[0].winner is Seat.NORTH and p.next_seat is Seat.NORTH
    assert p.legal_cards() == p.remaining(Seat.NORTH).cards
    with pytest.raises(PlayError, match="HA has already been played"):
        p.play("HA")
    p.claim(12)
    assert p.result == 13 and p.is_complete
    with pytest.raises(PlayError, match="already over"):
        p.claim(1)
    q = Play(Contract.parse("4S S"), DEAL)
    with pytest.raises(PlayError, match="a claim of 14 tricks is impossible: 13 are left"):
        q.claim(14)


def test_full_play_counts_tricks() -> None:
    # North (declarer at 7NT) cashes everything; East leads ♠10 and follows each suit.
    seq = []
    p = Play(Contract.parse("7NT N"), DEAL)
    seq.append(p.play("ST"))
    while not p.is_complete:
        seq.append(p.play(p.legal_cards()[-1]))
    assert p.result == 13 and p.declarer_tricks == 13 and len(seq) == 52
    assert replay(Contract.parse("7NT N"), seq, DEAL).result == 13


def test_replay_names_trick_and_card() -> None:
    seq = ["C2", "CK", "CJ", "C6", "CA", "CT", "C7", "C3", "HA", "HJ", "H6", "C4"]
    with pytest.raises(PlayError, match=r"trick 3, card 4 \(W\): C4 does not follow suit: "
                                         r"West must play ♥"):
        replay(Contract.parse("1NT S"), seq, DEAL)
    with pytest.raises(PlayError, match=r"trick 1, card 2 \(N\): card 2 of the record: "
                                         r"cannot read 'ZZ'"):
        replay(Contract.parse("1NT S"), ["C2", "ZZ"], DEAL)


def test_revoke_detected_once_deal_known() -> None:
    # Recorded without the deal (e.g. by the camera), West discards a club on a heart lead.
    p = Play(Contract.parse("3NT N"))
    for c in ("SK", "S3", "S2", "SA",   # E leads, N's ace wins  (E S W N)
              "HA", "HJ", "H6", "C5"):  # N leads hearts; West plays a club holding hearts
        p.play(c)
    found = p.revokes(DEAL)
    assert len(found) == 1
    r = found[0]
    assert (r.trick, r.seat, str(r.card), r.suit_led) == (2, Seat.WEST, "C5", Suit.HEARTS)
    assert [str(c) for c in r.held] == ["H5", "H4", "H3", "H2"]
    assert str(r) == "trick 2: West played ♣5 to a ♥ lead while holding ♥5 ♥4 ♥3 ♥2"
    with pytest.raises(PlayError, match="once the deal is known"):
        Play(Contract.parse("3NT N")).revokes()


# --------------------------------------------------- real PBN records (corpus)
_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
_NOTE = re.compile(r"=\d+=|\$\d+|\{[^}]*\}")


def _records(path: Path) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    rec: dict[str, str] = {}
    section = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line.strip():
            if rec:
                out.append(rec)
            rec, section = {}, None
            continue
        if line.startswith("%"):
            continue
        m = _TAG.match(line)
        if m:
            rec[m[1]] = m[2]
            section = m[1] if m[1] in ("Auction", "Play") else None
            continue
        if section:
            rec["_" + section] = rec.get("_" + section, "") + " " + line
    if rec:
        out.append(rec)
    return out


@pytest.mark.parametrize("name", ["example1.pbn", "example2.pbn"])
def test_corpus_auctions_plays_and_scores(corpus: Path, name: str) -> None:
    checked = {"auction": 0, "play": 0, "played_out": 0, "score": 0}
    for rec in _records(corpus / "endplay" / name):
        if "_Auction" not in rec or not rec.get("Contract"):
            continue
        calls = [t for t in _NOTE.sub(" ", rec["_Auction"]).split() if t not in ("*", "+")]
        auction = Auction.from_calls(rec["Auction"], calls)
        contract = auction.contract
        assert contract is not None, rec.get("Board")
        assert contract.ascii == Contract.parse(rec["Contract"]).ascii, rec.get("Board")
        if not contract.is_passed_out:
            assert contract.declarer is Seat.parse(rec["Declarer"]), rec.get("Board")
        checked["auction"] += 1
        if "_Play" in rec and not contract.is_passed_out:
            deal = Deal.from_pbn(rec["Deal"])
            assert contract.strain is not None
            seq = pbn_play_sequence(rec["Play"], rec["_Play"], contract.strain.suit)
            p = replay(contract, seq, deal)
            assert p.revokes() == []
            checked["play"] += 1
            if p.is_complete and rec.get("Result", "").isdigit():
                assert p.result == int(rec["Result"])
                checked["played_out"] += 1
        score = rec.get("Score", "")
        if score.startswith("NS ") and rec.get("Result", "").isdigit():
            vul = Vulnerability.parse(rec["Vulnerable"])
            assert score_ns(contract, int(rec["Result"]), vul) == int(score[3:]), rec.get("Board")
            checked["score"] += 1
    assert checked["auction"] >= 2 and checked["play"] >= 2
    if name == "example2.pbn":
        assert checked["auction"] > 200 and checked["score"] > 200



def _suit_per_hand_play(contract: str, diamonds: str) -> Play:
    # Each hand holds one whole suit: N spades, E hearts, S diamonds, W clubs.
    deal = Deal.from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    p = Play(Contract.parse(contract), deal)
    for d in diamonds:
        while p.next_seat is not Seat.SOUTH:
            p.play(p.legal_cards()[0])
        p.play("D" + d)
        while p.current.cards and not p.is_complete:
            p.play(p.legal_cards()[0])
    return p


def test_beer_card() -> None:
    # Seed 002 "The Beer Card": the last trick won with ♦7.
    made = _suit_per_hand_play("7D S", "AKQJT9865432" + "7")
    assert made.result == 13 and made.beer_card is Seat.SOUTH      # declarer makes it
    early = _suit_per_hand_play("7D S", "7AKQJT986543" + "2")
    assert early.result == 13 and early.beer_card is None           # ♦2 won the last trick
    beaten = _suit_per_hand_play("1NT E", "AKQJT9865432" + "7")
    assert beaten.result == 0 and beaten.beer_card is Seat.SOUTH    # a defender, contract down


@settings(max_examples=30, deadline=None)
@given(st.permutations(list(range(52))), st.sampled_from(list(Seat)),
       st.sampled_from(list(Strain)), st.randoms(use_true_random=False))
def test_random_play_round_trips_through_pbn(order: list[int], declarer: Seat, strain: Strain,
                                             rnd: object) -> None:
    deal = Deal.from_owners([Seat(i // 13) for i in order])
    contract = Contract(3, strain, 0, declarer)
    p = Play(contract, deal)
    while not p.is_complete:
        p.play(rnd.choice(p.legal_cards()))  # type: ignore[attr-defined]
    assert p.declarer_tricks + p.defender_tricks == 13 and p.revokes() == []
    # Write the play as PBN does (each line in seat order from the opening leader)
    # and read it back into playing order.
    lines = []
    for t in p.tricks:
        by_seat = {t.seat_of(i): c for i, c in enumerate(t.cards)}
        lines.append(" ".join(str(by_seat[p.opening_leader.rotate(k)]) for k in range(4)))
    seq = pbn_play_sequence(p.opening_leader, "\n".join(lines) + "\n*", strain.suit)
    assert seq == p.card_sequence()
    assert replay(contract, seq, deal).result == p.result
