"""Rankings (ties, one or two winners), score cards, and result validation."""

from __future__ import annotations

import re

import pytest

from dealer.contract import Contract
from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.events.model import Artificial, EventError, PairKey, Result
from dealer.events.movements import Movement, mitchell
from dealer.events.rankings import format_score_card, rank, rank_event, score_card
from dealer.events.validation import accept, check_results


def _play(m: Movement, score_of) -> list[Result]:
    """Results for every board of a movement, scores from ``score_of(board, ns, ew)``."""
    return [Result(b, s.ns, s.ew, score_of(b, s.ns, s.ew), table=s.table, round=s.round)
            for s in m.sittings for b in s.boards]


def test_rank_ties_and_order() -> None:
    places = rank({"a": 61.2345, "b": 61.2349, "c": 70.0, "d": 50.0, "e": 50.004})
    assert [(p.place, p.key) for p in places] == [
        ("1", "c"), ("2=", "a"), ("2=", "b"), ("4=", "d"), ("4=", "e")]
    low = rank({"x": 3, "y": 1}, higher_is_better=False)
    assert [p.key for p in low] == ["y", "x"]
    with pytest.raises(EventError, match="tie style"):
        rank({"x": 1}, tie_style="dots")


def test_mitchell_has_two_winners_and_arrow_switch_one() -> None:
    m = mitchell(5)
    # NS pair p always scores 10*p more than its opponents' number: a clean order.
    results = _play(m, lambda b, ns, ew: 10 * ns - 10 * ew + (b % 2) * 10)
    event = score_matchpoints(results, MatchpointOptions(numbering="by_line"))
    ranking = rank_event(event, m)
    assert set(ranking) == {"NS", "EW"}
    assert [p.key.number for p in ranking["NS"]][0] == 5
    assert [p.key.number for p in ranking["EW"]][0] == 5
    assert len(ranking["NS"]) == len(ranking["EW"]) == 5
    sw = mitchell(5, arrow_switch=[5])
    event1 = score_matchpoints(_play(sw, lambda b, ns, ew: 10 * (ns % 5) - 10 * (ew % 5)))
    one = rank_event(event1, sw)
    assert list(one) == [""] and len(one[""]) == 10
    with pytest.raises(EventError, match="played both"):
        rank_event(event1, sw, winners=2)
    # Percentages of each line's pairs mirror the other line on every board.
    ns_total = sum(event.totals[PairKey("A", "NS", p)].mp for p in range(1, 6))
    ew_total = sum(event.totals[PairKey("A", "EW", p)].mp for p in range(1, 6))
    assert ns_total + ew_total == pytest.approx(50 * 8)  # 50 results, top 8 each


def test_personal_score_card() -> None:
    results = [
        Result.from_contract(1, 1, 8, "4S", 10, declarer="N", table=1, round=1),
        Result.from_contract(1, 2, 9, "4S", 11, declarer="N", table=2, round=2),
        Result.from_contract(2, 1, 8, "3NT", 8, declarer="E", table=1, round=1),
        Result.from_contract(2, 2, 9, "2H", 8, declarer="E", table=2, round=2),
        Result(3, 9, 1, ns_artificial=Artificial.AVE_MINUS, ew_artificial=Artificial.AVE_PLUS,
               table=1, round=3),
        Result(3, 2, 8, 100, table=2, round=3),
    ]
    event = score_matchpoints(results)
    card = score_card(event, PairKey("A", "", 1))
    assert [(c.board, c.direction, c.opponents, c.score) for c in card] == [
        (1, "NS", 8, 420), (2, "NS", 8, 50), (3, "EW", 9, None)]
    # Pair 1 has 2 of 4 on real boards (50%), so its average-plus stays at 60%.
    assert [c.mp for c in card] == [0.0, 2.0, pytest.approx(2 * 0.60)]
    text = format_score_card(event, PairKey("A", "", 1))
    assert "4♠ N" in text and "A+" in text and "Total 3.20 of 6 = 53.33%" in text
    with pytest.raises(EventError, match="pair A42 has no results"):
        score_card(event, PairKey("A", "", 42))


def test_validation_flags_each_doubt_with_its_reason() -> None:
    m = mitchell(3, ew_offset=3)  # NS 1-3, EW 4-6
    good = Result.from_contract(1, 1, 4, "4S", 10, declarer="N", table=1, round=1,
                                declarer_pair=1)
    assert check_results([good], m) == []
    lines = [
        good,
        Result(6, 1, 4, 100, table=1, round=1),                          # wrong board
        Result(6, 2, 6, 100, table=2, round=2),                          # wrong pairs
        Result(3, 4, 3, 100, table=3, round=3),                          # wrong way
        Result(1, 1, 4, 420, table=1, round=1),                          # played twice
        Result(5, 2, 4, 420, contract=Contract.parse("4S N"), tricks=14,
               table=2, round=2),                                        # impossible tricks
        Result(5, 3, 6, -420, contract=Contract.parse("4S", "E"), tricks=10,
               declarer_pair=3, table=3, round=1),                       # declarer wrong pair
        Result(4, 1, 6, 450, contract=Contract.parse("4H", "N"), tricks=10,
               table=1, round=2),                                        # score mismatch
        Result(2, 1, 9, 0, table=7, round=1),                            # no such table
        Result(2, 3, 4, 50),                                             # meet on other boards
    ]
    flags = check_results(lines, m)
    got = {(f.index, f.code) for f in flags}
    assert got == {(1, "wrong-board"), (2, "wrong-pairs"), (3, "wrong-way"),
                   (4, "played-twice"), (5, "tricks"), (6, "declarer"),
                   (7, "score-mismatch"), (8, "no-such-table"), (9, "wrong-board")}
    text: dict[str, str] = {}
    for f in flags:
        text.setdefault(f.code, str(f))
    assert "the movement has boards 1-2 at table 1 in round 1, not board 6" \
        in text["wrong-board"]
    assert "the movement has pairs 2-4 at table 2 in round 2" in text["wrong-pairs"]
    assert "board 1 is recorded twice for pairs 1 and 4 (lines 1 and 5)" in text["played-twice"]
    assert "14 tricks is impossible" in text["tricks"]
    assert "declarer E is East-West, pair 6, but pair 3 is written as declaring" \
        in text["declarer"]
    assert "4H by N taking 10 tricks scores +620 for North-South, not +450" \
        in text["score-mismatch"]
    assert "no table 7 in round 1" in text["no-such-table"]
    assert "sat the wrong way: the movement puts pair 3 North-South and pair 4 East-West" \
        in text["wrong-way"]
    later = next(f for f in flags if f.index == 9)
    assert later.reason == "pairs 3 and 4 meet at table 3 in round 3 on boards 3-4, not board 2"
    with pytest.raises(EventError, match="9 result\\(s\\) need the director"):
        accept(lines, m)
    assert accept([good], m) == [good]


def test_validation_without_movement_and_never_meeting() -> None:
    m = mitchell(3, ew_offset=3)
    flags = check_results([Result(1, 1, 2, 100)], m)
    assert [f.code for f in flags] == ["never-meet"]
    assert str(flags[0]) == "board 1, pairs 1-2: pairs 1 and 2 never meet in this movement"
    # The same pair twice on a board with different opponents, no movement given.
    flags = check_results([Result(1, 1, 4, 100), Result(1, 1, 5, 100)])
    assert [f.code for f in flags] == ["played-twice"]
    assert "pair 1 already has a result on board 1 (against pair 4)" in flags[0].reason
    # A passed-out board with tricks, and a declarer who is not at the table.
    flags = check_results([
        Result(1, 1, 4, 0, contract=Contract.parse("PASS"), tricks=3),
        Result(9, 1, 4, 420, contract=Contract.parse("4S N"), tricks=10, declarer_pair=7),
        Result(3, 1, 4, contract=Contract.parse("4S"), tricks=10, score=420)])
    assert [f.code for f in flags] == ["tricks", "declarer", "declarer"]
    assert "declaring pair 7 is not at this table" in flags[1].reason
    assert "has no declarer" in flags[2].reason


SEED_CSV = """board,ns,ew,contract,tricks,score,table,round
1,1,8,4S N,10,,1,1
1,2,13,3NT S,10,,2,1
1,3,11,5CX E,8,,3,1
1,4,9,4S N,10,,4,1
1,5,14,4S N,11,,5,1
1,6,12,5S N,10,,6,1
1,7,10,3S N,10,,7,1
"""


def test_travellers_csv_reads_scores_adjustments_and_names_errors() -> None:
    from dealer.errors import FormatError
    from dealer.events import travellers

    rows = travellers.loads(SEED_CSV)
    assert [r.score for r in rows] == [420, 430, 500, 420, 450, -50, 170]
    more = travellers.loads("Board,NS,EW,Adjust,Score,Contract,Declarer,Tricks\n"
                            "2,1,8,A+/A-,,,,\n2,2,9,60/40,,,,\n2,3,10,NP,,,,\n"
                            "3,1,8,,-100,4H,E,9\n\n")
    assert [r.kind for r in more] == ["artificial", "artificial", "not_played", "score"]
    assert more[0].ns_artificial is Artificial.AVE_PLUS and more[1].ew_artificial == 40.0
    assert more[3].contract is not None and more[3].contract.declarer is not None
    cases = [
        ("", "no header row"),
        ("board,ns\n", "line 1: the header has no 'ew' column"),
        ("board,ns,ew,bid\n", "line 1: unknown column(s) bid"),
        ("board,ns,ew\n1,2,3\n", "line 2: no score"),
        ("board,ns,ew,score\n1,2,3,4,5\n", "line 2: 5 cells but the header has 4"),
        ("board,ns,ew,contract,tricks\n1,2,3,8S N,10\n", "line 2, field contract: cannot read"),
        ("board,ns,ew,adjust\n1,2,3,A+\n", "line 2, field adjust: adjust 'A+' must be NS/EW"),
        ("board,ns,ew,adjust\n1,2,3,A+/Q\n", "field adjust: 'Q' is not A+, A, A- or a perc"),
        ("board,ns,ew,contract,tricks\n1,2,3,4S N,15\n", "line 2: board 1, pairs 2-3: 15 tricks"),
        ("board,ns,ew,score\n,2,3,10\n", "line 2, field board: is empty"),
    ]
    for text, message in cases:
        with pytest.raises(FormatError, match=re.escape(message)):
            travellers.loads(text, path="r.csv")


def test_event_cli_checks_before_scoring(tmp_path, capsys) -> None:
    from dealer.cli import main
    from dealer.events import asc

    good = tmp_path / "seed.csv"
    good.write_text(SEED_CSV)
    assert main(["event", "score", str(good), "--card", "3"]) == 0
    out = capsys.readouterr().out
    assert "NS ranking:" in out and "EW ranking:" in out
    assert "   1  A3       100.00%  12 of 12" in out and "4=  A1" in out
    assert "Total 12.00 of 12 = 100.00% over 1 boards" in out
    assert main(["event", "score", str(good), "--imps", "butler"]) == 0
    assert "butler IMPs" in capsys.readouterr().out
    move = tmp_path / "m.asc"
    asc.dump(mitchell(3, ew_offset=3), move)
    bad = tmp_path / "bad.csv"
    bad.write_text("board,ns,ew,score,table,round\n1,1,4,420,1,1\n3,1,4,100,1,1\n")
    assert main(["event", "check", str(bad), "--movement", str(move)]) == 1
    assert "not board 3" in capsys.readouterr().out
    assert main(["event", "score", str(bad), "--movement", str(move)]) == 1
    assert "1 result(s) flagged: not scored" in capsys.readouterr().out
    assert main(["event", "score", str(bad), "--movement", str(move), "--accept-flagged"]) == 0
    assert main(["event", "check", str(good)]) == 0
    assert "7 results, nothing flagged" in capsys.readouterr().out
    missing = tmp_path / "none.csv"
    assert main(["event", "check", str(missing)]) == 2
    assert "none.csv: cannot read the results" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["model", "matchpoints", "imps_events", "vp", "movements",
                                  "asc", "rankings", "validation", "travellers"])
def test_docstring_examples_hold(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(f"dealer.events.{name}")
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0
