"""IMPs in events (teams, Butler, cross-IMPs, BAM) and victory-point scales."""

from __future__ import annotations

import pytest

from dealer.contract import Contract
from dealer.events.imps_events import (
    ButlerOptions,
    bam_match,
    butler,
    butler_datum,
    cross_imps,
    teams_match,
)
from dealer.events.model import EventError
from dealer.events.vp import (
    ACBL_DISCRETE,
    SEED_24_BOARDS,
    blitz,
    scale_named,
    wbf_table,
    wbf_vp,
)
from dealer.scoring.duplicate import score_ns
from dealer.seats import board_vulnerability


def _ns(board: int, contract: str, by: str, tricks: int) -> int:
    return score_ns(Contract.parse(contract, by), tricks, board_vulnerability(board))


def test_seed_teams_example_is_plus_15() -> None:
    # Seed 002: North's card at table 1 and East's card at table 2, rebuilt from the contracts.
    table1 = [_ns(1, "4S", "S", 10), _ns(2, "5DX", "W", 8), _ns(3, "3NT", "W", 12),
              _ns(4, "2H", "N", 9)]
    table2 = [_ns(1, "4S", "S", 11), _ns(2, "4H", "N", 10), _ns(3, "6NT", "W", 12),
              _ns(4, "4H", "N", 9)]
    assert table1 == [420, 500, -690, 140]
    # The card's own figures from East's chair: minus 450, minus 620, plus 1440, plus 100.
    assert [-s for s in table2] == [-450, -620, 1440, 100]
    per_board = teams_match(list(zip(table1, table2, strict=True)))
    assert per_board == [-1, -3, 13, 6]
    assert sum(per_board) == 15
    assert bam_match(list(zip(table1, table2, strict=True))) == 2.0


def test_seed_vp_table_15_imps_is_13_7() -> None:
    assert SEED_24_BOARDS.convert(15, 24) == (13, 7)
    assert SEED_24_BOARDS.convert(-15, 24) == (7, 13)
    edges = {0: 10, 2: 10, 3: 11, 6: 11, 7: 12, 11: 12, 12: 13, 16: 13, 17: 14, 21: 14,
             22: 15, 27: 15, 28: 16, 33: 16, 34: 17, 39: 17, 40: 18, 46: 18, 47: 19, 54: 19,
             55: 20, 120: 20}
    assert {m: SEED_24_BOARDS.convert(m, 24)[0] for m in edges} == edges
    with pytest.raises(EventError, match="24-24 boards, not 16"):
        SEED_24_BOARDS.convert(5, 16)


def test_wbf_continuous_published_values() -> None:
    assert round(blitz(8), 2) == 42.43
    published = {0: 10.00, 1: 10.44, 2: 10.86, 3: 11.27, 5: 12.05, 10: 13.78, 20: 16.46,
                 43: 20.00, 44: 20.00, 100: 20.00}
    assert {m: wbf_vp(m, 8)[0] for m in published} == published
    assert wbf_vp(-10, 8) == (6.22, 13.78)
    assert scale_named("wbf").convert(3, 8) == (11.27, 8.73)


@pytest.mark.parametrize("boards", [4, 8, 12, 16, 20, 24, 32, 48, 64])
def test_wbf_scale_is_concave_and_bounded(boards: int) -> None:
    cents = wbf_table(boards)
    steps = [b - a for a, b in zip(cents, cents[1:], strict=False)]
    assert all(s >= 0 for s in steps)
    assert all(later <= earlier for earlier, later in zip(steps, steps[1:], strict=False))
    assert cents[0] == 1000 and cents[-1] == 2000
    for m in range(len(cents) + 5):
        a, b = wbf_vp(m, boards)
        assert a + b == pytest.approx(20.0)


def test_acbl_discrete_table() -> None:
    assert ACBL_DISCRETE.convert(0, 8) == (10, 10)
    assert ACBL_DISCRETE.convert(7, 8) == (13, 7)
    assert ACBL_DISCRETE.convert(28, 7) == (20, 0)
    assert ACBL_DISCRETE.convert(-9, 10) == (7, 13)
    with pytest.raises(EventError, match="unknown VP scale"):
        scale_named("swiss")


def test_butler_datum_methods() -> None:
    scores = [420, 450, 420, 400, -50, 980]
    assert butler_datum(scores) == 420
    assert butler_datum(scores, ButlerOptions(method="mean")) == 440  # 436.7 rounds to 440
    assert butler_datum(scores, ButlerOptions(method="median")) == 420
    assert butler_datum(scores, ButlerOptions(drop=0, round_datum=False)) == pytest.approx(
        2620 / 6)
    assert butler(scores) == [0, 1, 0, -1, -10, 11]
    assert butler_datum([-415, -415]) == -420
    with pytest.raises(EventError, match="leave out 3 scores"):
        butler_datum(scores, ButlerOptions(drop=3))
    with pytest.raises(EventError, match="unknown Butler"):
        butler_datum(scores, ButlerOptions(method="leaders"))


def test_cross_imps() -> None:
    scores = [620, 170, 170, 140, 620, 650]
    sums = cross_imps(scores, divisor="none")
    # 620: +450 +450 +480 0 -30 -> 10+10+10+0-1; 140: -480 -30 -30 -480 -510 -> -10-1-1-10-11
    assert sums == [29, -29, -29, -33, 29, 33]
    assert sum(sums) == 0
    assert cross_imps(scores)[0] == pytest.approx(29 / 5)
    assert cross_imps(scores, divisor="n")[0] == pytest.approx(29 / 6)


def test_imp_pairs_event_butler_and_cross() -> None:
    from dealer.events.imps_events import score_imp_pairs
    from dealer.events.model import Artificial, PairKey, Result

    lines = [Result(1, 1, 11, 420), Result(1, 2, 12, 450), Result(1, 3, 13, 420),
             Result(1, 4, 14, 400), Result(1, 5, 15, -50), Result(1, 6, 16, 980),
             Result(2, 1, 11, ns_artificial=Artificial.AVE_PLUS,
                    ew_artificial=Artificial.AVE_MINUS),
             Result(2, 2, 12, 100), Result(2, 3, 13, not_played=True)]
    ev = score_imp_pairs(lines)
    assert [ln.ns_imps for ln in ev.lines[:6]] == [0, 1, 0, -1, -10, 11]
    assert ev.lines[6].ns_imps == 3.0 and ev.lines[6].ew_imps == -3.0
    assert ev.lines[7].ns_imps == 0.0  # alone on its board: its own datum
    assert ev.lines[8].ns_imps is None
    assert ev.totals[PairKey("A", "", 1)] == 3.0 and ev.boards[PairKey("A", "", 1)] == 2
    assert ev.average(PairKey("A", "", 16)) == -11.0
    assert ev.boards.get(PairKey("A", "", 3)) == 1
    cross = score_imp_pairs(lines[:6], method="cross")
    assert sum(ln.ns_imps for ln in cross.lines) == pytest.approx(0.0)
    with pytest.raises(EventError, match="unknown IMP pairs method"):
        score_imp_pairs(lines, method="patton")
