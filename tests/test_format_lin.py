"""BBO LIN reader and writer: the corpus, LIN to PBN and back, broken files, round trips."""

from __future__ import annotations

import os
import random
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.auction import Auction
from dealer.board import Board, DealSet
from dealer.cards import Card, Suit
from dealer.deal import Deal
from dealer.errors import FormatError, FormatWarning
from dealer.formats import detect, lin, pbn
from dealer.play import trick_winner
from dealer.seats import Seat, Vulnerability, board_dealer, board_vulnerability

# As tests/conftest.py finds it (a shared name would clash with tests/browser/conftest.py).
CORPUS = Path(os.environ.get("BOARDWRIGHT_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "corpus"

CLUB36 = CORPUS / "bigdeal/club36.lin"
EXAMPLE1 = CORPUS / "endplay/example1.lin"


def test_club36_lin_matches_club36_pbn() -> None:
    a = lin.loads(CLUB36.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)
        b = pbn.loads((CORPUS / "bigdeal/club36.pbn").read_bytes())
    assert a.numbers == list(range(1, 37))
    assert [(x.number, x.deal, x.dealer, x.vulnerability) for x in a] == [
        (x.number, x.deal, x.dealer, x.vulnerability) for x in b]
    for x in a:
        assert x.dealer == board_dealer(x.number)
        assert x.vulnerability == board_vulnerability(x.number)


def test_club36_lin_written_byte_for_byte() -> None:
    data = CLUB36.read_bytes()
    assert lin.dumps(lin.loads(data)) == data
    # ... and from the PBN file's deals too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)
        from_pbn = pbn.loads((CORPUS / "bigdeal/club36.pbn").read_bytes())
    assert lin.dumps(from_pbn) == data


def test_sniffing() -> None:
    for path in (CLUB36, EXAMPLE1):
        assert detect(path.read_bytes()).name == "lin"
    assert lin.sniff((CORPUS / "bigdeal/club36.pbn").read_bytes()) == 0


def test_example1_names_auction_alerts_play_and_claims() -> None:
    ds = lin.loads(EXAMPLE1.read_bytes())
    assert ds.numbers == list(range(1, 9))
    b = ds.boards[0]
    assert (b.dealer, b.vulnerability) == (Seat.NORTH, Vulnerability.NONE)
    assert b.deal is not None and b.deal[Seat.SOUTH].to_pbn() == "K.AKQ9754.96.K85"
    assert (b.tags["South"], b.tags["West"]) == ("domtp", "~~M25054gn")
    assert b.tags["Auction"] == "N"
    assert b.sections["Auction"] == "Pass Pass 1H =1= 2H =2=\nPass 4S =3= 5H =4= Pass\nPass Pass"
    assert b.tags["Note"].startswith("1:Major suit opening")
    assert b.tags["Note#2"].startswith("2:Michaels")
    assert (b.tags["Contract"], b.tags["Declarer"]) == ("5H", "S")
    assert b.tags["Play"] == "W"
    assert b.sections["Play"].splitlines()[0] == "C9 C3 C2 CK"  # W N E S
    assert len(b.sections["Play"].splitlines()) == 13
    assert b.tags["Result"] == "12"  # counted from the 13 tricks
    claimed = ds.board(3)
    assert claimed.tags["Result"] == "9"  # mc|9|
    assert claimed.sections["Play"].endswith("*")


def test_lin_to_pbn_and_back_keeps_auction_and_play() -> None:
    ds = lin.loads(EXAMPLE1.read_bytes())
    as_pbn = pbn.dumps(ds)
    text = as_pbn.decode()
    assert '[Contract "5H"]' in text and "[Play \"W\"]\nC9 C3 C2 CK" in text
    back = pbn.loads(as_pbn)
    for a, b in zip(ds, back, strict=True):
        assert (a.number, a.deal, a.dealer, a.vulnerability) == (
            b.number, b.deal, b.dealer, b.vulnerability)
        for key in ("Auction", "Play", "Contract", "Declarer", "Result", "Note"):
            assert a.tags.get(key) == b.tags.get(key)
        assert a.sections == b.sections
    assert lin.dumps(back) == lin.dumps(ds)
    # the LIN written from PBN has the calls, explanations and cards of the original
    original = EXAMPLE1.read_text()
    written = lin.dumps(back).decode()
    assert written.count("mb|") == original.count("mb|")
    assert written.count("pc|") == original.count("pc|")
    assert written.count("an|") == original.count("an|")
    assert written.count("mc|") == original.count("mc|")


def test_pbn_play_written_as_lin_in_play_order() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)
        ds = pbn.loads((CORPUS / "endplay/example1.pbn").read_bytes())
    line = lin.dumps(ds).decode().splitlines()[1]  # 4H by N, East leads
    # PBN's columns are E S W N in every trick; LIN lists each trick from its leader.
    assert "mb|1N|mb|p|mb|4C|mb|p|mb|4H|mb|p|mb|p|mb|p|pg||" in line
    assert line.count("pc|") == 16
    assert "pc|DA|pc|D2|pc|D5|pc|D3|pg||" in line
    again = lin.loads(line.encode())
    assert again.boards[0].sections["Play"].splitlines()[:4] == \
        ds.boards[1].sections["Play"].splitlines()[:4]


def test_trick_winner_and_auction_result() -> None:
    # LIN asks the core's rules (dealer.play, dealer.auction): it has none of its own
    assert not hasattr(lin, "trick_winner") and not hasattr(lin, "auction_result")
    cards = [Card.parse(c) for c in ("D2", "DA", "C2", "D3")]
    assert trick_winner(cards, Seat.NORTH, None) == Seat.EAST
    assert trick_winner(cards, Seat.NORTH, Suit.CLUBS) == Seat.SOUTH
    contract = Auction.from_calls(Seat.SOUTH, ["1NT", "X", "XX", "Pass", "Pass", "Pass"]).contract
    assert contract is not None and (contract.pbn, contract.declarer) == ("1NTXX", Seat.SOUTH)
    assert Auction.from_calls(Seat.WEST, ["1C", "Pass", "1S"]).contract is None


def test_vugraph_header_and_eight_names() -> None:
    text = ("vg|Final,Seg 1,I,1,16,Home,0,Away,0|rs|,|pw|,|bn|0,0|"
            "pn|a,b,c,d,e,f,g,h|pg||\n"
            "qx|o1|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|sv|o|pg||\n"
            "qx|c1|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|sv|o|pg||\n")
    ds = lin.loads(text.encode())
    assert ds.meta["Event"] == "Final"
    assert len(ds) == 2
    assert (ds.boards[0].tags["South"], ds.boards[0].tags["Room"]) == ("a", "Open")
    assert (ds.boards[1].tags["South"], ds.boards[1].tags["Room"]) == ("e", "Closed")


# ------------------------------------------------------------------ broken files

def test_truncated_lin() -> None:
    data = CLUB36.read_bytes()
    cut = data[:data.index(b"qx|o5|") + 30]
    with pytest.raises(FormatError) as exc:
        lin.loads(cut, source="club36.lin")
    assert str(exc.value).startswith("club36.lin, line 5, board 5, field md:")
    assert "truncated" in str(exc.value)


def test_duplicate_card_and_53rd_card_in_md() -> None:
    with pytest.raises(FormatError, match=r"line 1, board 7, field md: .*♠Q is in two hands"):
        lin.loads(b"ah|Board 7|md|1SQ,SQ,,|")
    fourteen = "SAKQJT98765432H2"
    with pytest.raises(FormatError, match=r"board 2, field md: .*South has 14"):
        lin.loads(f"qx|o2|md|1{fourteen},,,|".encode())


def test_unknown_key_warns_or_fails_in_strict_mode() -> None:
    data = b"qx|o1|zz|what|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|"
    with pytest.warns(FormatWarning, match=r"field zz: unknown LIN key"):
        ds = lin.loads(data)
    assert ds.boards[0].deal is not None
    with pytest.raises(FormatError, match=r"line 1, field zz: unknown LIN key"):
        lin.loads(data, strict=True)


def test_bad_utf8_in_lin() -> None:
    data = b"pn|Jos\xe9,b,c,d|md|1SA,,,|ah|Board 1|"
    with pytest.warns(FormatWarning, match="not valid UTF-8"):
        ds = lin.loads(data)
    assert ds.boards[0].tags["South"] == "José"
    with pytest.raises(FormatError, match=r"line 1: byte 0xe9 at offset 6"):
        lin.loads(data, strict=True)


def test_bad_card_and_bad_vulnerability() -> None:
    with pytest.raises(FormatError, match=r"board 1, field pc: bad card 'Z9'"):
        lin.loads(b"md|1SA,,,|ah|Board 1|mb|1S|mb|p|mb|p|mb|p|pc|Z9|")
    with pytest.warns(FormatWarning, match=r"board 3, field sv"):
        ds = lin.loads(b"md|1SA,,,|ah|Board 3|sv|q|")
    assert ds.boards[0].vulnerability is Vulnerability.EW


# ------------------------------------------------------------------ properties

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), numbers=st.lists(st.integers(1, 999), min_size=1, max_size=8))
def test_property_random_deals_round_trip(seed: int, numbers: list[int]) -> None:
    rng = random.Random(seed)
    boards = []
    for n in numbers:
        owners = [i // 13 for i in range(52)]
        rng.shuffle(owners)
        boards.append(Board(n, Deal.from_owners(owners)))
    again = lin.loads(lin.dumps(DealSet(boards)))
    assert [(b.number, b.deal, b.dealer, b.vulnerability) for b in again] == [
        (b.number, b.deal, b.dealer, b.vulnerability) for b in boards]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), dealer=st.sampled_from(list(Seat)),
       vul=st.sampled_from(list(Vulnerability)), number=st.integers(1, 99))
def test_property_markings_that_differ_from_the_cycle_survive(
        seed: int, dealer: Seat, vul: Vulnerability, number: int) -> None:
    rng = random.Random(seed)
    owners = [i // 13 for i in range(52)]
    rng.shuffle(owners)
    board = Board(number, Deal.from_owners(owners), dealer, vul)
    for fmt in (lin, pbn):
        (b,) = fmt.loads(fmt.dumps(DealSet([board]))).boards
        assert (b.number, b.deal, b.dealer, b.vulnerability) == (number, board.deal, dealer, vul)


# ------------------------------------------------------------------ illegal play is kept and said
_MD = "qx|o1|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|ah|Board 1|sv|0|"
_1NT_BY_NORTH = "mb|1N|mb|p|mb|p|mb|p|pg||"  # East leads; PBN columns are E S W N


def _read_warned(line: str) -> tuple[Board, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FormatWarning)
        board = lin.loads((line + "\n").encode()).boards[0]
    return board, [str(w.message) for w in caught if issubclass(w.category, FormatWarning)]


def test_a_card_played_four_times_is_kept_four_times_and_named() -> None:
    board, said = _read_warned(_MD + _1NT_BY_NORTH + "pc|CT|" * 4)
    assert board.sections["Play"].splitlines()[0] == "CT CT CT CT"  # was "CT - - -"
    assert len(said) == 3 and all("CT has already been played" in s for s in said)
    assert "board 1" in said[0] and "trick 1, card 2 (S)" in said[0]
    with pytest.raises(FormatError, match="CT has already been played"):
        lin.loads((_MD + _1NT_BY_NORTH + "pc|CT|" * 4 + "\n").encode(), strict=True)


def test_a_card_by_the_wrong_seat_stays_in_its_column_and_is_named() -> None:
    # South plays North's CA: it used to move to North's column, and North's C3 was dropped
    board, said = _read_warned(_MD + _1NT_BY_NORTH + "pc|CK|pc|CA|pc|C5|pc|C3|")
    assert board.sections["Play"].splitlines()[0] == "CK CA C5 C3"
    assert len(said) == 1 and "trick 1, card 2 (S): CA is not in South's hand" in said[0]
    again = lin.dumps(DealSet([board])).decode()
    assert "pc|CK|pc|CA|pc|C5|pc|C3|" in again


def test_an_illegal_auction_is_kept_and_said() -> None:
    board, said = _read_warned(_MD + "mb|1H|mb|1D|mb|p|mb|p|mb|p|pc|CK|")
    assert board.sections["Auction"] == "1H 1D Pass Pass\nPass"
    assert "Contract" not in board.tags and "Play" not in board.sections
    assert any("insufficient bid 1D" in s for s in said)
    assert any("1 cards played" in s and "not kept" in s for s in said)
