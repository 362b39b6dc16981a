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
from web_helpers import csrf, director, make_app, new_event

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
