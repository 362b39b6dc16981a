"""Rubber bridge and Chicago: seed 002's worked sheets, deal by deal."""

from __future__ import annotations

import pytest

from dealer.cards import Strain
from dealer.contract import Contract, ContractError
from dealer.deal import Deal
from dealer.scoring.chicago import ChicagoGame, russian_imps, russian_target
from dealer.scoring.rubber import RubberSheet, Team, honours_bonus
from dealer.seats import Seat, Side, Vulnerability

WE, THEY = Team.WE, Team.THEY

# Seed 002 "Example of Rubber Bridge scoring", deals (a) to (i).
SEED_RUBBER = [
    ("a", "2H", 10, WE), ("b", "4SX", 8, THEY), ("c", "3NT", 10, THEY),
    ("d", "3S", 9, THEY), ("e", "2D", 6, THEY), ("f", "6HX", 13, WE),
    ("g", "1NT", 8, THEY), ("h", "3C", 9, WE), ("i", "3H", 9, THEY),
]


def test_seed_rubber_sheet_deal_by_deal() -> None:
    sheet = RubberSheet()
    got = {}
    vulnerable_after = {}
    for tag, contract, tricks, by in SEED_RUBBER:
        got[tag] = [(e.team, e.points, e.below) for e in
                    sheet.record(Contract.parse(contract), tricks, by=by)]
        vulnerable_after[tag] = (sheet.vulnerable(WE), sheet.vulnerable(THEY))
    assert got["a"] == [(WE, 60, False), (WE, 60, True)]
    assert got["b"] == [(WE, 300, False)]                      # 100 + 200, not vulnerable
    assert got["c"] == [(THEY, 30, False), (THEY, 100, True)]  # game to THEY
    assert vulnerable_after["b"] == (False, False) and vulnerable_after["c"] == (False, True)
    assert vulnerable_after["f"] == (True, True)
    assert got["d"] == [(THEY, 90, True)]
    assert got["e"] == [(WE, 200, False)]                      # THEY vulnerable: 100 each
    assert got["f"] == [(WE, 100, False), (WE, 50, False), (WE, 500, False), (WE, 360, True)]
    assert got["g"] == [(THEY, 30, False), (THEY, 40, True)]   # 90 from (d) was the old game
    assert got["h"] == [(WE, 60, True)]
    assert got["i"] == [(THEY, 90, True), (THEY, 500, False)]  # rubber 2-1
    assert sheet.totals() == {WE: 1690, THEY: 880}
    assert sheet.winner is THEY and sheet.is_over and sheet.games == [THEY, WE, THEY]
    text = sheet.render()
    assert text.splitlines()[-1].split() == ["1690", "|", "880"]
    # Above the line, WE's figures read upwards from the line: 60, 300, 200, 100, 50, 500.
    lines = text.splitlines()
    line_at = lines.index(next(x for x in lines if x.startswith("=")))
    we_above = [x.split("|")[0].strip() for x in lines[2:line_at]]
    assert [v for v in we_above if v][::-1] == ["60", "300", "200", "100", "50", "500"]
    with pytest.raises(ContractError, match="rubber is over"):
        sheet.record(Contract.parse("1C"), 7, by=WE)


def test_rubber_700_and_declarer_mapping() -> None:
    sheet = RubberSheet(we=Side.EW)
    sheet.record(Contract.parse("4S E"), 10)
    sheet.record(Contract.parse("5D W"), 11)
    assert sheet.totals() == {WE: 120 + 100 + 700, THEY: 0}
    assert sheet.winner is WE


def test_unfinished_rubber_and_honours() -> None:
    sheet = RubberSheet()
    sheet.record(Contract.parse("4H"), 10, by=WE, honours=(THEY, 100))
    sheet.record(Contract.parse("2C"), 8, by=THEY)
    finish = sheet.finish()
    assert [(e.team, e.points) for e in finish] == [(WE, 300), (THEY, 100)]
    assert sheet.totals() == {WE: 120 + 300, THEY: 100 + 40 + 100}
    with pytest.raises(ContractError, match="honours are worth 100 or 150"):
        RubberSheet().record(Contract.parse("1S"), 7, by=WE, honours=(WE, 120))
    with pytest.raises(ContractError, match="say who declared"):
        RubberSheet().record(Contract.parse("1S"), 7)


def test_honours_bonus() -> None:
    five = Deal.from_pbn("N:AKQJT.AKQ.AKQ.KQ 98765.JT9.JT9.JT 432.876.876.A987 .5432.5432.65432")
    assert honours_bonus(five, Strain.SPADES) == (Seat.NORTH, 150)
    assert honours_bonus(five, Strain.HEARTS) == (None, 0)     # N has ♥A K Q only
    assert honours_bonus(five, Strain.NOTRUMP) == (None, 0)    # N holds three aces
    aces = Deal.from_pbn("N:A432.A32.A32.A32 KQJT.KQJ.KQJ.KQJ 9876.T98.T98.T98 5.7654.7654.7654")
    assert honours_bonus(aces, Strain.NOTRUMP) == (Seat.NORTH, 150)
    assert honours_bonus(aces, Strain.SPADES) == (Seat.EAST, 100)


def test_seed_chicago_550_630() -> None:
    g = ChicagoGame()  # N deals first, modern vulnerability
    d1 = g.record(Contract.parse("2S N"), 10)
    assert g.record(Contract.parse("PASS")) is None            # redealt, same dealer
    d2 = g.record(Contract.parse("1NT E"), 7)
    d3 = g.record(Contract.parse("2H W"), 9)
    d4 = g.record(Contract.parse("1NTX S"), 8)
    assert [d.dealer for d in (d1, d2, d3, d4)] == [Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST]
    assert d2 is not None and d2.vulnerability is Vulnerability.NS
    assert (d1.ns, d2.ew, d3.ew, d4.ns) == (120, 40, 60 + 30 + 500, 80 + 200 + 50 + 100)
    assert d3.notes == ("game",) and d4.notes == ("part score on deal 4",)
    assert g.totals() == {Side.NS: 550, Side.EW: 630} and g.is_over and g.redeals == 1
    with pytest.raises(ContractError, match="over after 4 deals"):
        g.record(Contract.parse("1C N"), 7)


def test_chicago_part_score_only_bonus_on_deal_4() -> None:
    g = ChicagoGame()
    g.record(Contract.parse("1S N"), 7)     # 30 below the line, no premium
    g.record(Contract.parse("2S E"), 6)     # E-W (not vulnerable on deal 2) two down: 100
    g.record(Contract.parse("1C N"), 7)     # N-S 50 below
    d4 = g.record(Contract.parse("1D S"), 7)  # 70 below: no game; part score on deal 4
    assert d4 is not None and d4.ns == 20 + 100
    assert g.totals()[Side.NS] == 30 + 100 + 20 + 20 + 100


def test_chicago_duplicate_variant() -> None:
    g = ChicagoGame(scoring="duplicate", deals=8)
    d = g.record(Contract.parse("2S N"), 10)
    assert d is not None and d.ns == 170                       # 50 part-score premium
    for _ in range(6):
        g.record(Contract.parse("3NT E"), 8)
    last = g.record(Contract.parse("4H W"), 10)
    assert last is not None and last.vulnerability is Vulnerability.BOTH and last.ew == 620
    assert g.is_over
    with pytest.raises(ContractError, match="multiple of 4"):
        ChicagoGame(deals=6)


def test_seed_russian_examples() -> None:
    # First example: EW, deal 2, vulnerable, 3♥ making 10 with 24 HCP: 170 vs 290 = -3.
    assert russian_target(24, True) == 290
    assert russian_imps(170, 24, vulnerable=True) == -3
    g = ChicagoGame(scoring="russian", original=True)  # deal 2: dealer's side (EW) vulnerable
    g.record(Contract.parse("1C N"), 7, hcp_ns=20)
    d2 = g.record(Contract.parse("3H W"), 10, hcp_ns=16)
    assert d2 is not None and (d2.ew, d2.ns) == (-3, 3)
    # Second example: deal 1, 4♠ made with 18 HCP against a target of 70: 490 -> +10.
    r = ChicagoGame(scoring="russian")
    d1 = r.record(Contract.parse("4S N"), 10, hcp_ns=18)
    assert d1 is not None and (d1.ns, d1.ew) == (10, -10)
    with pytest.raises(ContractError, match="needs the deal"):
        r.record(Contract.parse("4S N"), 10)
    with pytest.raises(ContractError, match="20 to 40"):
        russian_target(19, False)


def test_russian_from_deal_hcp() -> None:
    deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    g = ChicagoGame(scoring="russian")
    d = g.record(Contract.parse("7NT N"), 13, deal=deal)       # 37 HCP, target 1300
    assert d is not None and d.ns == 6                         # 1520 - 1300 = 220 -> 6 IMPs
