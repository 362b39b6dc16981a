"""Law 77 duplicate scoring: the seed's worked scores and the full table.

The oracle below is written from the printed Law 77 tables (WBF Laws of
Duplicate Bridge 2017) as literal lookups, and never calls dealer.scoring.
"""

from __future__ import annotations

import pytest

from dealer.cards import Strain
from dealer.contract import PASSED_OUT, Contract, ContractError
from dealer.scoring.duplicate import duplicate_score, score_ns
from dealer.scoring.imps import imps
from dealer.seats import Seat, Vulnerability

# --- the independent oracle -------------------------------------------------
# Cumulative trick score for levels 1..7, per strain and doubling, read off
# Law 77's "per odd trick" rows and added up by hand.
_TRICKS_UNDOUBLED = {
    "C": [20, 40, 60, 80, 100, 120, 140],
    "D": [20, 40, 60, 80, 100, 120, 140],
    "H": [30, 60, 90, 120, 150, 180, 210],
    "S": [30, 60, 90, 120, 150, 180, 210],
    "NT": [40, 70, 100, 130, 160, 190, 220],
}
# Overtrick value undoubled, per strain.
_OVER_UNDOUBLED = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}
# Defenders' total for 1..13 undertricks: [undoubled, doubled, redoubled].
_UNDER_NV = {
    0: [50 * n for n in range(1, 14)],
    1: [100, 300, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500],
    2: [200, 600, 1000, 1600, 2200, 2800, 3400, 4000, 4600, 5200, 5800, 6400, 7000],
}
_UNDER_V = {
    0: [100 * n for n in range(1, 14)],
    1: [200, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500, 3800],
    2: [400, 1000, 1600, 2200, 2800, 3400, 4000, 4600, 5200, 5800, 6400, 7000, 7600],
}
_OVER_DOUBLED = {(1, False): 100, (1, True): 200, (2, False): 200, (2, True): 400}
_SLAM = {(6, False): 500, (6, True): 750, (7, False): 1000, (7, True): 1500}
_STRAIN_KEYS = {Strain.CLUBS: "C", Strain.DIAMONDS: "D", Strain.HEARTS: "H",
                Strain.SPADES: "S", Strain.NOTRUMP: "NT"}


def oracle(level: int, strain: str, doubled: int, vul: bool, tricks: int) -> int:
    need = level + 6
    if tricks < need:
        table = _UNDER_V if vul else _UNDER_NV
        return -table[doubled][need - tricks - 1]
    below = _TRICKS_UNDOUBLED[strain][level - 1] * (1, 2, 4)[doubled]
    extra = tricks - need
    if doubled:
        over = extra * _OVER_DOUBLED[(doubled, vul)]
    else:
        over = extra * _OVER_UNDOUBLED[strain]
    premium = (500 if vul else 300) if below >= 100 else 50
    insult = (0, 50, 100)[doubled]
    return below + over + premium + insult + _SLAM.get((level, vul), 0)


def test_law77_table_exhaustive() -> None:
    cases = 0
    mismatches = []
    for level in range(1, 8):
        for strain, key in _STRAIN_KEYS.items():
            for doubled in (0, 1, 2):
                contract = Contract(level, strain, doubled)
                for vul in (False, True):
                    for tricks in range(14):
                        cases += 1
                        got = duplicate_score(contract, tricks, vul)
                        want = oracle(level, key, doubled, vul, tricks)
                        if got != want:
                            mismatches.append((contract.ascii, vul, tricks, got, want))
    assert cases == 2940
    assert mismatches == []


@pytest.mark.parametrize(
    ("text", "tricks", "vul", "score"),
    [
        # seed 002, duplicate part-score and game worked examples
        ("3H", 9, False, 140),
        ("2S", 8, False, 110),
        ("3NT", 9, False, 400),
        ("4S", 10, False, 420),
        ("4S", 10, True, 620),
        ("1NT", 8, False, 120),
        # dds-bridge crate's contract tests (research/scoring.md 1.1)
        ("3NT", 11, True, 660),
        ("1NTXX", 8, True, 1160),
        ("2CX", 9, False, 280),
        ("6S", 12, True, 1430),
        ("6NT", 12, False, 990),
        ("7NTXX", 13, True, 2980),
        ("7NTXX", 0, True, -7600),
    ],
)
def test_worked_scores(text: str, tricks: int, vul: bool, score: int) -> None:
    assert duplicate_score(Contract.parse(text), tricks, vul) == score


def test_seed_002_duplicate_170_420_620() -> None:
    # Seed 002 lines 273-275: 2♠ making 10 tricks = 60 + 60 + 50 = 170;
    # 4♠ making = 120 + 300 = 420 non-vulnerable, 120 + 500 = 620 vulnerable.
    assert duplicate_score(Contract.parse("2S"), 10, False) == 170
    assert duplicate_score(Contract.parse("2S"), 10, True) == 170
    assert duplicate_score(Contract.parse("4S"), 10, False) == 420
    assert duplicate_score(Contract.parse("4S"), 10, True) == 620


def test_score_ns_signs_and_passed_out() -> None:
    assert score_ns(Contract.parse("4S N"), 10, Vulnerability.NS) == 620
    assert score_ns(Contract.parse("4S W"), 10, Vulnerability.NS) == -420
    assert score_ns(Contract.parse("4SX E"), 8, Vulnerability.NS) == 300
    assert score_ns(PASSED_OUT, 0, Vulnerability.BOTH) == 0
    with pytest.raises(ContractError, match="no declarer"):
        score_ns(Contract.parse("4S"), 10, Vulnerability.NONE)
    with pytest.raises(ContractError, match="14 tricks"):
        duplicate_score(Contract.parse("4S"), 14, False)


def test_contract_parse_and_forms() -> None:
    c = Contract.parse("4SX", declarer="N")
    assert (c.level, c.strain, c.doubled, c.declarer) == (4, Strain.SPADES, 1, Seat.NORTH)
    assert str(c) == "4♠X N" and c.ascii == "4SX"
    assert Contract.parse("3NTXX S").ascii == "3NTXX"
    assert Contract.parse("6♥ by W").declarer is Seat.WEST
    assert Contract.parse("1n").strain is Strain.NOTRUMP
    assert Contract.parse("PASS").is_passed_out and str(PASSED_OUT) == "PASS"
    for bad in ("8S", "0NT", "4Z", "4SXXX", ""):
        with pytest.raises(ContractError, match="cannot read contract"):
            Contract.parse(bad)
    with pytest.raises(ContractError, match="names declarer N but S"):
        Contract.parse("4S N", declarer="S")
    with pytest.raises(ContractError, match="level 9"):
        Contract(9, Strain.CLUBS)


def test_imp_scale_bands() -> None:
    # Law 78B band edges: each lower bound gives its IMP, 10 below gives one less.
    bounds = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100,
              1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]
    for n, low in enumerate(bounds, start=1):
        assert imps(low) == n and imps(-low) == -n
        assert imps(low - 10) == n - 1
    assert imps(0) == 0 and imps(10) == 0 and imps(9990) == 24
