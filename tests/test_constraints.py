"""Teaching-set constraints: features against the scalar model, the language, limits."""

from __future__ import annotations

import pytest

from dealer import Hand, Seat, Suit, formats
from dealer.cli import main
from dealer.constraint_lang import compile_expr
from dealer.constraints import (
    Batch,
    ConstraintError,
    Constraints,
    SeatSpec,
    find_deals,
    parse_predeal,
    shape_table,
)
from dealer.generate import KeyedStream, deal_from_owner_column, owners_batch


def _losers(hand: Hand) -> int:
    """Losing-trick count the slow way, for cross-checking the lookup table."""
    total = 0
    for suit in Suit:
        ranks = [r.char for r in hand.suit(suit).ranks][:3]
        total += sum(1 for i, _ in enumerate(ranks) if "AKQ"[i] not in ranks)
    return total


def test_batch_features_match_the_hand_model() -> None:
    owners = owners_batch(300, KeyedStream(b"features"))
    b = Batch(owners)
    for i in range(0, 300, 7):
        deal = deal_from_owner_column(owners, i)
        for seat in Seat:
            hand = deal[seat]
            assert b.hcp(seat)[i] == hand.hcp
            assert b.hcp(seat, int(Suit.SPADES))[i] == sum(
                max(0, r - 10) for r in hand.suit(Suit.SPADES).ranks)
            for suit in Suit:
                assert b.length(seat, int(suit))[i] == hand.suit_length(suit)
            aces = sum(1 for c in hand.cards if c.rank == 14)
            kings = sum(1 for c in hand.cards if c.rank == 13)
            assert b.controls(seat)[i] == 2 * aces + kings
            assert b.losers(seat)[i] == _losers(hand)


def test_shape_patterns() -> None:
    t = shape_table("any 4333 + any 4432 + any 5332")
    assert t.sum() == 4 + 12 + 12
    assert (t == shape_table("balanced")).all()
    assert shape_table("5xxx")[5, 4, 2, 2] and not shape_table("5xxx")[4, 5, 2, 2]
    minus = shape_table("any 5xxx - 5xxx")
    assert minus[4, 5, 2, 2] and minus[2, 2, 4, 5] and not minus[5, 4, 2, 2]
    with pytest.raises(ConstraintError, match="add up to 13"):
        shape_table("4432 + 5555")
    with pytest.raises(ConstraintError, match="digits or x"):
        shape_table("43z3")


def test_language_and_seat_clauses_agree() -> None:
    text_a = "hcp(north) >= 15 and hcp(north) <= 17 and shape(north, any 4333 + any 4432 + any 5332)"
    text_b = "north: 15-17 hcp, balanced"
    owners = owners_batch(50_000, KeyedStream(b"lang"))
    b = Batch(owners)
    a = compile_expr(text_a)[0](b)
    c = compile_expr(text_b)[0](b)
    assert (a == c).all() and 0.03 < a.mean() < 0.08
    # operators of both spellings, arithmetic and not
    x = compile_expr("spades(south) >= 5 && !(hcp(west) + hcp(east) > 20) || hascard(north, SA)")[0](b)
    y = ((b.length(2, 3) >= 5) & ~(b.hcp(3) + b.hcp(1) > 20)) | (owners[51] == 0)
    assert (x == y).all()


@pytest.mark.parametrize("text, message", [
    ("hcp(nrth) > 3", "'nrth' is not a seat"),
    ("hcp(north) >", "ended too early"),
    ("hcp(north) + 3", "must be a condition"),
    ("frobnicate(north) > 1", "unknown function"),
    ("north: 3+ bananas", "unknown feature 'bananas'"),
    ("hcp(north) >= 3 and 5", "joins conditions"),
    ("", "empty"),
])
def test_language_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConstraintError, match=message):
        Constraints.parse(text)


@pytest.mark.parametrize("text, message", [
    ("hcp(north) >= 21 and hcp(south) >= 20", "at least 41 HCP"),
    ("north: 25+ hcp; south: 20+ hcp", "at least 45 HCP"),
    ("spades(north) >= 7 and spades(south) >= 7", "14 spades"),
    ("north: 5+ spades, 5+ hearts, 4+ clubs", "add up to 14 cards"),
    ("hcp(east) > 37", "at least 38"),
])
def test_impossible_requests_fail_before_dealing(text: str, message: str) -> None:
    with pytest.raises(ConstraintError, match=message):
        find_deals(Constraints.parse(text), 1, progress=False)


def test_under_or_bounds_are_not_static() -> None:
    # Either side of an "or" may fail, so this is possible and must not be refused.
    c = Constraints.parse("hcp(north) >= 30 or hcp(south) >= 12")
    assert len(find_deals(c, 3, key=b"or", progress=False)) == 3


def test_too_rare_stops_with_an_estimate() -> None:
    c = Constraints.parse("hcp(north) >= 30")  # about 1 in 10^6
    with pytest.raises(ConstraintError, match="no deal among|would take"):
        find_deals(c, 40, progress=False, max_seconds=1.5)


def test_predeal_specs_and_python_predicate() -> None:
    pre = parse_predeal("N:AKQ... W=HA,HK")
    assert pre[Seat.NORTH].to_pbn() == "AKQ..." and pre[Seat.WEST].to_pbn() == ".AK.."
    c = Constraints(seats={Seat.SOUTH: SeatSpec(hcp=(10, 12), lengths={Suit.HEARTS: (4, 13)})},
                    predeal=pre, predicate=lambda d: d[Seat.EAST].hcp < 10, text="mix")
    deals = find_deals(c, 5, key=b"p", progress=False)
    for d in deals:
        assert d.to_pbn().startswith("N:AKQ")
        assert "AK" in str(d[Seat.WEST].suit(Suit.HEARTS))
        assert 10 <= d[Seat.SOUTH].hcp <= 12 and d[Seat.SOUTH].suit_length(Suit.HEARTS) >= 4
        assert d[Seat.EAST].hcp < 10
    with pytest.raises(ConstraintError, match="both North and West"):
        find_deals(Constraints(predeal=parse_predeal("N:A... W:A...")), 1, progress=False)


def test_reproducible_with_a_key() -> None:
    c = Constraints.parse("north: 20+ hcp")
    assert find_deals(c, 4, key=b"x", progress=False) == find_deals(c, 4, key=b"x", progress=False)


def test_cli_teach_writes_matching_boards_and_recreates(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    out = tmp_path / "teach.pbn"
    assert main(["deals", "teach", "north: 15-17 hcp, balanced; south: 5+ hearts",
                 "--boards", "1-16", "--predeal", "W:SA", "-o", str(out)]) == 0
    ds = formats.read(out)
    assert ds.numbers == list(range(1, 17))
    for b in ds:
        n = b.deal[Seat.NORTH]
        assert 15 <= n.hcp <= 17 and sorted(n.shape) in ([3, 3, 3, 4], [2, 3, 4, 4], [2, 3, 3, 5])
        assert b.deal[Seat.SOUTH].suit_length(Suit.HEARTS) >= 5
        assert "A" in str(b.deal[Seat.WEST].suit(Suit.SPADES))
    again = tmp_path / "again.pbn"
    assert main(["deals", "recreate", str(out) + ".secret.json", "-o", str(again)]) == 0
    assert formats.read(again).deals == ds.deals
    capsys.readouterr()
    assert main(["deals", "teach", "hcp(north) >= 25 and hcp(south) >= 16", "--boards", "1-4",
                 "-o", str(tmp_path / "x.pbn")]) == 2
    assert "41 HCP" in capsys.readouterr().err


def test_progress_bar_on_stderr_when_slow(capsys, monkeypatch) -> None:
    c = Constraints.parse("hcp(north) >= 24")  # about 1 in 3,000
    # Not a terminal (a log file): no bar at all, so no \r in the log (issue 16, finding 9).
    find_deals(c, 40, key=b"slow", progress=True, progress_after=0.0)
    assert capsys.readouterr().err == ""
    import dealer.constraints

    monkeypatch.setattr(dealer.constraints, "is_terminal", lambda: True)
    find_deals(c, 40, key=b"slow", progress=True, progress_after=0.0)
    err = capsys.readouterr().err
    assert "40/40 deals" in err and "match" in err
    find_deals(c, 40, key=b"slow", progress=True)  # fast enough: no bar
    assert capsys.readouterr().err == ""


def test_acceptance_rate_matches_the_exact_probability() -> None:
    # P(15-17 HCP and 4333/4432/5332) = 0.0486560, counted exactly in bench/uniformity.py;
    # a wrong feature or a biased dealer moves the rate by far more than 4 sigma.
    n = 200_000
    rate = Constraints.parse("north: 15-17 hcp, balanced").mask(
        Batch(owners_batch(n, KeyedStream(b"rate")))).mean()
    sigma = (0.048656 * (1 - 0.048656) / n) ** 0.5
    assert abs(rate - 0.048656) < 4 * sigma
