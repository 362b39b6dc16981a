"""The live results desk (issue 14, part 5), through Flask's test client on a real SQLite
file: errors beside their form, reasons for corrections, an audit trail in the
director's words, the director's entry for a dead phone, matchpoints and tops, and
"no comparison yet"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from test_store import db_url, pg_server  # noqa: F401  (fixtures: SQLite and PostgreSQL)
from web_helpers import csrf, director, make_app, new_event

from dealer.store import Store
from dealer.store import results as rs
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _result(app: Flask, ce: int, table: int, rnd: int, board: int, contract: str = "4S",
            declarer: str = "N", tricks: int = 10, lead: str = "") -> int:
    """A table's result as its phone would record it (the core's own entry)."""
    with app.app_context():
        out = rs.submit(store(), ce, "A", table, rnd, rs.Entry(board, contract, declarer,
                                                                 tricks, lead),
                        submission_id=f"t{table}r{rnd}b{board}", who=f"table A{table}",
                        confirm=True)
    assert out.status == "recorded", out
    assert out.result_id is not None
    return out.result_id


def _desk(c: FlaskClient, ce: int) -> str:
    return c.get(f"/events/{ce}/desk/").get_data(as_text=True)


def _row(desk: str, rid: int) -> str:
    """A traveller line of the desk, with its forms."""
    return desk.split(f'<tr id="r{rid}">')[1].split("</tr>")[0]


@pytest.fixture
def desk(app: Flask) -> tuple[FlaskClient, int]:
    c = app.test_client()
    director(c)
    return c, new_event(c)


def test_a_refused_correction_comes_back_on_the_desk_beside_its_form_as_typed(
        app: Flask, desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    rid = _result(app, ce, 1, 1, 1)
    r = c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": csrf(c, f"/events/{ce}/desk/"), "version": "1", "action": "correct",
        "contract": "5S", "declarer": "N", "tricks": "14", "reason": "claim misread"})
    body = r.get_data(as_text=True)
    assert r.status_code == 400
    # The desk itself, not a bare error page with a "Back" link into nowhere.
    assert "<h1>Results desk" in body and "history.back()" not in body
    line = _row(body, rid)
    assert "<details open>" in line and 'id="desk-error"' in line
    assert "tricks: a whole number 0 to 13, not &#39;14&#39;" in line
    # What was typed is still there, and the field at fault has the focus.
    assert 'name="contract" value="5S"' in line and 'value="claim misread"' in line
    assert re.search(r'name="tricks" value="14"[^>]*autofocus', line)
    with app.app_context():
        assert (rs.result(store(), rid).tricks, rs.changes(store(), ce)) == (10, [])


def test_a_refused_director_entry_keeps_its_values_beside_the_form(
        app: Flask, desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    r = c.post(f"/events/{ce}/desk/adjust", data={
        "csrf_token": csrf(c, f"/events/{ce}/desk/"), "table": "2", "round": "1",
        "board": "1", "contract": "3NT", "declarer": "S", "tricks": "9", "action": "result"})
    body = r.get_data(as_text=True)
    assert r.status_code == 400 and "<h1>Results desk" in body
    entry = body.split('id="entry"')[1].split("</section>")[0]
    assert "table 2 does not play board 1 in round 1 (it plays 3, 4)" in entry
    assert re.search(r'name="contract" value="3NT"', entry)
    assert re.search(r'name="table"[^>]*value="2"', entry)
    assert re.search(r'name="board"[^>]*value="1"[^>]*autofocus', entry)


def test_a_correction_needs_a_reason(app: Flask, desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    rid = _result(app, ce, 1, 1, 1)
    t = csrf(c, f"/events/{ce}/desk/")
    for data in ({"action": "correct", "contract": "4S", "declarer": "N", "tricks": "9"},
                 {"action": "artificial", "ns_artificial": "A+", "ew_artificial": "A-"},
                 {"action": "fouled", "fouled_group": "1"},
                 {"action": "swap", "reason": "   "}):
        r = c.post(f"/events/{ce}/desk/result/{rid}", data={"csrf_token": t, "version": "1",
                                                            **data})
        assert r.status_code == 400, data
        assert "reason: say why the result is corrected" in _row(r.get_data(as_text=True), rid)
    with app.app_context():
        assert rs.changes(store(), ce) == [] and rs.result(store(), rid).version == 1
    r = c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": t, "version": "1", "action": "correct", "contract": "4S",
        "declarer": "N", "tricks": "9", "reason": "claim misread"})
    assert r.status_code == 302
    with app.app_context():
        assert rs.result(store(), rid).tricks == 9


def test_the_audit_trail_names_board_table_and_round(app: Flask,
                                                     desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    _result(app, ce, 1, 1, 1)
    rid = _result(app, ce, 2, 1, 4)  # table 2 plays boards 3-4 in round 1
    c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": csrf(c, f"/events/{ce}/desk/"), "version": "1", "action": "correct",
        "contract": "4S", "declarer": "N", "tricks": "9", "reason": "ruling"})
    page = _desk(c, ce)
    trail = page.split('id="audit"')[1].split("</table>")[0]
    assert "<th>Board</th><th>Table</th><th>Round</th>" in trail
    assert ("<td>director td</td><td>4</td><td>A2</td><td>1</td><td>tricks</td><td>10</td>"
            "<td>9</td><td>ruling</td>") in trail
    assert "<th>Result</th>" not in trail  # the row id meant nothing to a director
    with app.app_context():
        named = rs.trail(store(), ce)
    assert [(n.where, n.field) for n in named] == [("board 4, table A2, round 1", "tricks"),
                                                  ("board 4, table A2, round 1", "score")]


def test_the_director_enters_a_result_for_a_table_whose_phone_died(
        app: Flask, desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    data = {"csrf_token": csrf(c, f"/events/{ce}/desk/"), "table": "2", "round": "1",
            "board": "3", "contract": "3NT", "declarer": "S", "tricks": "10", "lead": "H7",
            "action": "result", "sid": "desk-entry-1"}
    r = c.post(f"/events/{ce}/desk/adjust", data=data)
    assert r.status_code == 302
    again = c.post(f"/events/{ce}/desk/adjust", data=data, follow_redirects=True)
    assert "duplicate" in again.get_data(as_text=True)  # a resent form adds nothing
    with app.app_context():
        rows = rs.results(store(), ce)
        log = [(a.who, a.action, a.subject) for a in rs.audit_log(store(), ce)]
    assert [(r.board, r.table_no, r.contract, r.declarer, r.tricks, r.lead, r.score,
             r.entered_by) for r in rows] == [(3, 2, "3NT", "S", 10, "H7", 430, "director td")]
    assert log == [("director td", "director-entry", f"event {ce} table A2")]
    assert "director-entry" in _desk(c, ce)


def test_rankings_with_one_result_per_board_say_no_comparison_yet(
        app: Flask, desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    _result(app, ce, 1, 1, 1)
    ranks = _desk(c, ce).split('id="rankings"')[1].split("</section>")[0]
    assert "No comparison yet" in ranks and "no comparison yet" in ranks
    assert "0.00%" not in ranks
    live = c.get(f"/events/{ce}/desk/rankings.json").get_json()
    assert {s["compared"] for st in live["rankings"].values() for s in st} == {False}


def test_matchpoints_and_tops_beside_the_percentages(app: Flask,
                                                     desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    a = _result(app, ce, 1, 1, 1, tricks=10)   # +420
    _result(app, ce, 3, 2, 1, tricks=11)       # +450 (board 1 reaches table 3 in round 2)
    _result(app, ce, 2, 1, 3, tricks=10)       # board 3 alone: no comparison for it
    page = _desk(c, ce)
    ranks = page.split('id="rankings"')[1].split("</section>")[0]
    # NS 3 beat NS 1 on board 1: 2 of a top of 2 (100%). NS 2 played only the lone
    # board 3: no comparison yet, and not tied for last place either.
    assert ("<tr><td>1</td><td>A3 NS</td><td>100.00%</td><td data-bw-mp>2 of 2</td><td>1</td>"
            "</tr><tr><td>2</td><td>A1 NS</td><td>0.00%</td><td data-bw-mp>0 of 2</td>"
            "<td>1</td></tr><tr><td>–</td><td>A2 NS</td><td class=\"muted\" data-bw-nocompare>"
            "no comparison yet</td>") in ranks
    assert "Board 1 <small>top 2</small>" in page
    assert re.search(r"<td data-bw-mp>0 <small>0.0%</small></td><td data-bw-mp>2 "
                     r"<small>100.0%</small></td>", _row(page, a))


# ---------------------------------------------------------------- swap NS/EW in a Mitchell
def _mitchell_board_one(app: Flask, ce: int) -> dict[str, int]:
    """Board 1 of a 3-table two-winner Mitchell at its three tables."""
    return {"t1": _result(app, ce, 1, 1, 1, tricks=10),   # NS 1 v EW 1: +420
            "t3": _result(app, ce, 3, 2, 1, tricks=11),   # NS 3 v EW 2: +450
            "t2": _result(app, ce, 2, 3, 1, tricks=8)}    # NS 2 v EW 3: -100


def _totals(app: Flask, ce: int) -> dict[str, tuple[float, float, int]]:
    from webpanel.scoring import score_event
    with app.app_context():
        scored = score_event(store(), ce)
    return {s.pair: (s.total or 0.0, s.top or 0.0, s.boards)
            for st in scored.rankings.values() for s in st}


def test_swap_in_a_mitchell_keeps_each_pair_in_its_own_field(app: Flask) -> None:
    """Before: swapping NS 3 and EW 2 (who sat the wrong way at table 3) recorded NS pair 2
    and EW pair 3, who were at table 2, a second time; NS 3 and EW 2 lost the board."""
    with app.app_context():
        ce = rs.create_club_event(store(), "Mitchell", tables=3, movement="mitchell")
        assert rs.movement(store(), ce).numbering == "by_line"
    ids = _mitchell_board_one(app, ce)
    assert _totals(app, ce) == {"A3 NS": (4.0, 4.0, 1), "A1 NS": (2.0, 4.0, 1),
                                "A2 NS": (0.0, 4.0, 1), "A2 EW": (0.0, 4.0, 1),
                                "A1 EW": (2.0, 4.0, 1), "A3 EW": (4.0, 4.0, 1)}
    with app.app_context():
        out = rs.swap_pairs(store(), ids["t3"], who="director td", reason="sat the wrong way")
        row = rs.result(store(), ids["t3"])
    assert out.status == "corrected"
    # EW 2 sat North-South and made +450 (the NS top); NS 3 sat East-West and lost it.
    assert (row.ns, row.ew, row.swapped, row.score) == (2, 3, True, 450)
    assert _totals(app, ce) == {"A2 EW": (4.0, 4.0, 1), "A1 NS": (2.0, 4.0, 1),
                                "A2 NS": (0.0, 4.0, 1), "A3 NS": (0.0, 4.0, 1),
                                "A1 EW": (2.0, 4.0, 1), "A3 EW": (4.0, 4.0, 1)}
    # Swapping again puts the line back as it was entered.
    with app.app_context():
        rs.swap_pairs(store(), ids["t3"], who="director td", reason="my mistake")
        back = rs.result(store(), ids["t3"])
        trail = [(t.field, t.old, t.new) for t in rs.trail(store(), ce)]
    assert (back.ns, back.ew, back.swapped) == (3, 2, False)
    assert ("swapped", "False", "True") in trail and ("swapped", "True", "False") in trail


def test_swap_in_a_howell_swaps_the_numbers(app: Flask) -> None:
    """Unique pair numbers: the numbers alone say who sat where (no mark needed)."""
    with app.app_context():
        ce = rs.create_club_event(store(), "Howell", tables=2, movement="howell")
        m = rs.movement(store(), ce)
        s = m.at(1, 1)
    rid = _result(app, ce, 1, 1, s.boards[0])
    with app.app_context():
        rs.swap_pairs(store(), rid, who="director td", reason="sat the wrong way")
        row = rs.result(store(), rid)
    assert (row.ns, row.ew, row.swapped) == (s.ew, s.ns, False)


def test_the_desk_shows_a_swapped_line_and_its_pairs_keep_their_lines(app: Flask) -> None:
    from dealer.events.model import PairKey
    from dealer.players.names import PlayerName
    from dealer.store import players as ps
    c = app.test_client()
    director(c)
    ce = new_event(c)
    ids = _mitchell_board_one(app, ce)
    with app.app_context():
        for line, num, who in (("NS", 3, "Nora North"), ("EW", 2, "Ed East"),
                               ("NS", 2, "Wrong Pair"), ("EW", 3, "Other Pair")):
            ps.set_pair(store(), ce, PairKey("A", line, num), [PlayerName(who)], who="td")
    r = c.post(f"/events/{ce}/desk/result/{ids['t3']}", data={
        "csrf_token": csrf(c, f"/events/{ce}/desk/"), "action": "swap",
        "reason": "sat the wrong way"})
    assert r.status_code == 302
    page = _desk(c, ce)
    line = _row(page, ids["t3"])
    # Each pair named from its own line: EW 2 sat North-South, NS 3 East-West.
    assert ('<td>2 <small>EW</small><span class="names">Ed East</span></td>'
            '<td>3 <small>NS</small><span class="names">Nora North</span></td>') in line
    assert "sat the wrong way" in line
    ranks = page.split('id="rankings"')[1].split("</section>")[0]
    assert re.search(r"<td>1=</td><td>A2 EW(<span[^<]*</span>)?</td><td>100.00%</td>", ranks)
    assert re.search(r"<td>A3 NS(<span[^<]*</span>)?</td><td>0.00%</td>", ranks)


# ---------------------------------------------------------------- weighted scores
def _weighted_board(app: Flask, ce: int) -> int:
    """Board 1 with +420, +450 and -100 at three tables; returns the +420 line."""
    ids = _mitchell_board_one(app, ce)
    return ids["t1"]


def test_weighted_scores_are_matchpointed_part_by_part() -> None:
    from dealer.events.model import Result
    from dealer.events.score import score_event
    lines = [Result(1, 1, 1, 420), Result(1, 2, 2, 450), Result(1, 3, 3, -100),
             Result(1, 4, 4, weighted=((0.6, 420), (0.4, -50)))]
    s = score_event(lines, method="matchpoints")
    mp = [s.matchpoints(r) for r in lines]
    # +420: lost to +450, beat -100, and against the weighted score 0.6 of a tie and
    # 0.4 of a win. The weighted score: 0.6 x (1 + 0 + 2) + 0.4 x (0 + 0 + 2).
    assert [round(m[0], 6) for m in mp if m] == [3.4, 6.0, 0.0, 2.6]
    assert [round(m[1], 6) for m in mp if m] == [2.6, 0.0, 6.0, 3.4]
    assert sum(m[0] + m[1] for m in mp if m) == pytest.approx(4 * 6)
    assert {m[2] for m in mp if m} == {6.0}


def test_weighted_scores_at_imps() -> None:
    from dealer.events.model import Result
    from dealer.events.score import score_event
    lines = [Result(1, 1, 2, 420), Result(1, 3, 4, 450), Result(1, 5, 6, -100),
             Result(1, 7, 8, weighted=((0.6, 420), (0.4, -50)))]
    cross = score_event(lines, method="cross")
    w = cross.travellers[1][3]
    # Against +420: 0.4 x -10; +450: 0.6 x -1 + 0.4 x -11; -100: 0.6 x 11 + 0.4 x 2.
    assert w[1] == pytest.approx((-4.0 - 5.0 + 7.4) / 3)
    assert sum(ns for _, ns, _ in cross.travellers[1]) == pytest.approx(0.0)
    butler = score_event(lines, method="butler")
    # The datum is made from the scores played: (420 + 450 - 100) / 3 -> 260.
    # 0.6 x IMPs(420 - 260 = 160: 4) + 0.4 x IMPs(-50 - 260 = -310: -7) = -0.4.
    assert butler.travellers[1][3][1] == pytest.approx(-0.4)
    assert butler.travellers[1][0][1] == 4.0


def test_a_weighted_score_in_a_teams_match() -> None:
    from dealer.events.model import Result
    from dealer.events.teams import compare_board
    home = Result(1, 1, 4, weighted=((0.5, 420), (0.5, -50)))
    away = Result(1, 3, 2, 420)
    # Half of a push, half of -470 (-10 IMPs).
    assert compare_board(1, 1, 2, [home, away]).home_imps == pytest.approx(-5.0)


def test_the_director_gives_a_weighted_score_on_the_desk(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    rid = _weighted_board(app, ce)
    t = csrf(c, f"/events/{ce}/desk/")
    url = f"/events/{ce}/desk/result/{rid}"
    bad = c.post(url, data={"csrf_token": t, "version": "1", "action": "weighted",
                            "weighted": "60% 4S= N, 30% 4S-1 N", "reason": "Law 12C1(c)"})
    assert bad.status_code == 400
    line = _row(bad.get_data(as_text=True), rid)
    assert "weighted: the shares add up to 90%, not 100%" in line
    assert 'value="60% 4S= N, 30% 4S-1 N"' in line
    r = c.post(url, data={"csrf_token": t, "version": "1", "action": "weighted",
                          "weighted": "60% 4S= N, 40% 4S-1 N", "reason": "Law 12C1(c)"})
    assert r.status_code == 302
    with app.app_context():
        row = rs.result(store(), rid)
    assert (row.weighted, row.score, row.contract) == ("60% 4S N 10 +420; 40% 4S N 9 -50",
                                                       None, None)
    page = _desk(c, ce)
    assert "weighted: 60% 4S N 10 +420; 40% 4S N 9 -50" in _row(page, rid)
    # NS 1's 60% of +420 and 40% of -50 against +450 and -100: 0.6 x 2 + 0.4 x 2 = 2 of 4.
    assert _totals(app, ce)["A1 NS"] == (2.0, 4.0, 1)
    assert _totals(app, ce)["A3 NS"] == (4.0, 4.0, 1)
    csv_text = c.get(f"/events/{ce}/export.csv").get_data(as_text=True)
    import csv
    table = list(csv.DictReader(csv_text.splitlines()))
    assert "weighted" in table[0]
    assert [r["weighted"] for r in table if r["board"] == "1" and r["table"] == "1"] == [
        "60% 4S N 10 +420; 40% 4S N 9 -50"]
    printable = c.get(f"/events/{ce}/results").get_data(as_text=True)
    assert "weighted 60% 4S N 10 +420; 40% 4S N 9 -50" in printable
    # A weighted score where the table entered nothing, from the director's entry.
    r = c.post(f"/events/{ce}/desk/adjust", data={
        "csrf_token": t, "table": "2", "round": "1", "board": "3", "action": "weighted",
        "weighted": "50% 3NT= S; 50% 3NT-1 S"})
    assert r.status_code == 302
    with app.app_context():
        three = next(x for x in rs.results(store(), ce) if x.board == 3)
    assert three.weighted == "50% 3NT S 9 +400; 50% 3NT S 8 -50"
    assert three.entered_by == "director td"


def test_swap_and_weighted_scores_are_written_on_both_backends(db_url: str) -> None:  # noqa: F811
    """PostgreSQL writes a correction in one statement: the new columns go with it."""
    with Store.open(db_url) as st:
        ce = rs.create_club_event(st, "Both", tables=3, movement="mitchell")
        a = rs.submit(st, ce, "A", 3, 2, rs.Entry(1, "4S", "N", 11), submission_id="a",
                      who="table A3").result_id
        b = rs.submit(st, ce, "A", 1, 1, rs.Entry(1, "4S", "N", 10), submission_id="b",
                      who="table A1").result_id
        assert a is not None and b is not None
        assert rs.swap_pairs(st, a, who="td", reason="wrong way").status == "corrected"
        out = rs.correct(st, b, who="td", reason="12C1c", weighted="60% 4S= N, 40% 4S-1 N",
                         ns_artificial=None, ew_artificial=None, not_played=False)
        assert out.status == "corrected", out
        rows = {r.id: r for r in rs.results(st, ce)}
        assert (rows[a].ns, rows[a].ew, rows[a].swapped) == (2, 3, True)
        assert (rows[b].weighted, rows[b].score) == ("60% 4S N 10 +420; 40% 4S N 9 -50", None)
        fields = [(t.field, t.new) for t in rs.trail(st, ce)]
        assert ("swapped", "True") in fields and ("weighted", rows[b].weighted) in fields


# ---------------------------------------------------------------- live parts, table status
def test_the_live_parts_come_only_when_the_results_change(app: Flask,
                                                          desk: tuple[FlaskClient, int]) -> None:
    c, ce = desk
    first = c.get(f"/events/{ce}/desk/live.json").get_json()
    assert set(first["parts"]) == {"rankings", "tables", "trail"} and first["count"] == 0
    assert c.get(f"/events/{ce}/desk/live.json?stamp={first['stamp']}").get_json() == {
        "stamp": first["stamp"]}
    rid = _result(app, ce, 1, 1, 1)
    new = c.get(f"/events/{ce}/desk/live.json?stamp={first['stamp']}").get_json()
    assert new["stamp"] != first["stamp"] and new["count"] == 1
    assert set(new["parts"]) == {"rankings", "tables", "trail", "tr-1"}
    assert new["parts"]["tr-1"].startswith('<div class="traveller" id="tr-1" data-bw-part="tr-1">')
    assert f'<tr id="r{rid}">' in new["parts"]["tr-1"]
    assert new["parts"]["rankings"].startswith('<div data-bw-part="rankings">')
    # A correction changes the stamp too (the row's version), not only a new result.
    c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": csrf(c, f"/events/{ce}/desk/"), "version": "1", "action": "correct",
        "contract": "4S", "declarer": "N", "tricks": "9", "reason": "claim"})
    again = c.get(f"/events/{ce}/desk/live.json?stamp={new['stamp']}").get_json()
    assert again["stamp"] != new["stamp"] and "tricks" in again["parts"]["trail"]
    # The page carries the stamp it was made with and the address it polls.
    page = _desk(c, ce)
    assert f'data-bw-stamp="{again["stamp"]}"' in page
    assert f'data-bw-live="/events/{ce}/desk/live.json"' in page


def test_the_tables_progress_shows_finished_rounds_and_slow_tables(app: Flask) -> None:
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from dealer.store.results.common import RESULTS
    c = app.test_client()
    director(c)
    ce = new_event(c, tables="5")
    now = datetime.now(UTC)
    # Tables 1 and 2 finished round 1 in the last minutes; table 3 is half way; table 4
    # entered one board 15 minutes ago; table 5 nothing since the first entry.
    entries = {(1, 1): 6, (1, 2): 4, (2, 3): 5, (2, 4): 3, (3, 5): 2, (4, 7): 15}
    for (table, board), ago in entries.items():
        rid = _result(app, ce, table, 1, board)
        with app.app_context(), store().engine.begin() as conn:
            conn.execute(update(RESULTS).where(RESULTS.c.id == rid).values(
                created_at=now - timedelta(minutes=ago)))
    page = _desk(c, ce)
    status = page.split('id="table-status"')[1].split("</table>")[0]
    rows = re.findall(r'<tr class="st-([a-z-]+)" data-table="(A\d)"><td>A\d</td><td>(\d)</td>'
                      r"<td>(\d) of (\d)</td>", status)
    assert rows == [("round-done", "A1", "2", "0", "2"), ("round-done", "A2", "2", "0", "2"),
                    ("playing", "A3", "1", "1", "2"), ("slow", "A4", "1", "1", "2"),
                    ("slow", "A5", "1", "0", "2")]
    assert "Round 1: 2 of 5 tables have finished it" in page and "slow: A4, A5" in page
    assert "(15 min ago)" in status
