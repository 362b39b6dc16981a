"""A teams round robin through the panel (Flask test client, real SQLite file):
create the event, enter a round from the table tokens, read VP standings and IMPs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.events.vp import wbf_vp
from dealer.store import results as rs
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _enter(client: FlaskClient, token: str, board: int, contract: str, tricks: int,
           sid: str, rnd: int = 1) -> None:
    tok = csrf(client, f"/t/{token}")  # the table's current round: it has the form
    r = client.post(f"/t/{token}/enter?round={rnd}", data={
        "csrf_token": tok, "submission_id": sid, "board": str(board), "level": contract[0],
        "strain": contract[1:], "dbl": "", "declarer": "N", "tricks": str(tricks), "lead": ""})
    assert r.status_code == 302, r.get_data(as_text=True)


def _teams_event(c: FlaskClient, teams: int = 4) -> int:
    return new_event(c, name="Club teams", kind="teams", movement="teams", tables=str(teams),
                     boards_per_round="2")


# Round 1 of 4 teams: team 1 v team 4 at tables 1-2, team 2 v team 3 at tables 3-4.
# Board 1 is love all, board 2 North-South vulnerable (the 16-board cycle).
ROUND_1 = {
    1: [(1, "4S", 10), (2, "3NT", 9)],   # team 1 NS: +420, +600
    2: [(1, "2S", 10), (2, "3NT", 9)],   # team 4 NS: +170, +600
    3: [(1, "4S", 9), (2, "4S", 10)],   # team 2 NS: -50, +620
    4: [(1, "4S", 10), (2, "4S", 9)],   # team 3 NS: +420, -100
}


def test_a_four_team_round_scored_in_vps_on_the_desk(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = _teams_event(c)
    toks = table_tokens(app, ce)
    assert sorted(toks) == [1, 2, 3, 4]
    show = c.get(f"/events/{ce}").get_data(as_text=True)
    assert "4 teams" in show and "4-team round robin" in show
    assert "team 1 v team 4 (tables 1–2)" in show and "team 2 v team 3 (tables 3–4)" in show
    # The table's own page knows its pairs: team 4's NS pair 7 against team 1's EW pair 2.
    phone = app.test_client()
    page = phone.get(f"/t/{toks[2]}").get_data(as_text=True)
    assert "NS pair 7" in page and "EW pair 2" in page
    for table, entries in ROUND_1.items():
        for board, contract, tricks in entries:
            _enter(phone, toks[table], board, contract, tricks, sid=f"t{table}b{board}")
    # A resent form records nothing twice.
    _enter(phone, toks[1], 1, "4S", 10, sid="t1b1")
    with app.app_context():
        assert len(rs.results(store(), ce)) == 8

    # Team 1: 420 - 170 = 250 -> +6 IMPs, 600 - 600 -> 0: 6-0 on 2 boards.
    # Team 2: -50 - 420 = -470 -> -10, 620 - (-100) = 720 -> +12: 12-10.
    # WBF 2013, 2 boards (B = 21.21): 6 IMPs -> 14.39, 2 IMPs -> 11.67.
    assert wbf_vp(6, 2) == (14.39, 5.61) and wbf_vp(2, 2) == (11.67, 8.33)
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    rows = re.findall(r"<tr><td>(\d=?)</td><td>team (\d)</td><td>([\d.]+) VPs</td>"
                      r"<td>(\d+)–(\d+)</td><td>(\d)</td><td>(\d)</td></tr>", desk)
    assert rows == [("1", "1", "14.39", "6", "0", "1", "2"),
                    ("2", "2", "11.67", "12", "10", "1", "2"),
                    ("3", "3", "8.33", "10", "12", "1", "2"),
                    ("4", "4", "5.61", "0", "6", "1", "2")]
    assert "<td>6–0</td><td>14.39–5.61</td><td>2 of 2</td>" in desk
    assert "<td>12–10</td><td>11.67–8.33</td><td>2 of 2</td>" in desk
    # The traveller shows both tables of a match, each line with its team's board IMPs.
    tr1 = desk.split('id="tr-1"')[1].split('id="tr-2"')[0]
    assert tr1.count("team 1 v team 4 (tables 1-2)") == 2
    assert tr1.count("team 2 v team 3 (tables 3-4)") == 2
    assert "<td>6.0</td><td>-6.0</td>" in tr1 and "<td>-10.0</td><td>10.0</td>" in tr1

    live = c.get(f"/events/{ce}/desk/rankings.json").get_json()
    top = live["rankings"][""][0]
    assert (top["pair"], top["score"], top["unit"], top["imps_for"]) == ("team 1", 14.39,
                                                                         "VPs", 6)
    # The exports of a teams event: USEBIO teams, and the board IMPs in PBN and CSV.
    import xml.etree.ElementTree as ET
    root = ET.fromstring(c.get(f"/events/{ce}/export.xml").data)
    assert root.find("EVENT").get("EVENT_TYPE") == "TEAMS_OF_FOUR"  # type: ignore[union-attr]
    assert root.findtext("EVENT/MATCH_SCORING_METHOD") == "VPS"
    assert [(t.get("TEAM_ID"), t.findtext("PLACE")) for t in root.iter("TEAM")] == [
        ("1", "1"), ("2", "2"), ("3", "3"), ("4", "4")]
    pbn_text = c.get(f"/events/{ce}/export.pbn").get_data(as_text=True)
    assert '[Scoring "IMP"]' in pbn_text and ";IMP_NS" in pbn_text
    csv_text = c.get(f"/events/{ce}/export.csv").get_data(as_text=True)
    assert "6.00,-6.00" in csv_text


def test_half_a_match_scores_only_the_compared_boards(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = _teams_event(c)
    toks = table_tokens(app, ce)
    phone = app.test_client()
    _enter(phone, toks[1], 1, "4S", 10, sid="a")   # +420 for team 1
    _enter(phone, toks[3], 1, "4S", 10, sid="b")   # team 2 v 3: only one table so far
    _enter(phone, toks[2], 1, "2S", 10, sid="c")   # +170 for team 4: board 1 compared
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    # Team 1 v 4: +6 IMPs on one of 2 boards, still on the 2-board scale. Match 2 has
    # no board compared, so it is not yet in the standings.
    assert "<td>6–0</td><td>14.39–5.61</td><td>1 of 2</td>" in desk
    assert ("board 1, team 2 v team 3: not yet entered at the table where team 3 sits "
            "North-South") in desk
    assert re.search(r"<td>1</td><td>team 1</td><td>14.39 VPs</td>", desk)
    assert re.search(r"<td>2</td><td>team 4</td><td>5.61 VPs</td>", desk)
    assert re.search(r"<td>3=</td><td>team 2</td><td>0.00 VPs</td><td>0–0</td><td>0</td>", desk)
    assert "board 2, team 1 v team 4: not yet entered at either table" in desk


def test_the_teams_movement_needs_a_teams_event_and_an_odd_field_gets_a_bye(app: Flask) -> None:
    c = app.test_client()
    director(c)
    tok = csrf(c, "/events/new")
    r = c.post("/events/new", data={"csrf_token": tok, "name": "x", "kind": "pairs",
                                    "movement": "teams", "tables": "4",
                                    "boards_per_round": "2", "scoring": "matchpoints"})
    assert r.status_code == 400
    assert "movement: the teams round robin is for a teams event" in r.get_data(as_text=True)
    form = c.get("/events/new").get_data(as_text=True)
    assert 'value="teams">Teams round robin' in form
    ce = _teams_event(c, teams=5)
    assert sorted(table_tokens(app, ce)) == [1, 2, 3, 4]  # 5 teams: two matches, one bye a round
    show = c.get(f"/events/{ce}").get_data(as_text=True)
    assert "5 teams · 4 tables · 5 rounds" in show and "one team has a bye" in show


def test_two_sections_are_two_round_robins_ranked_apart(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c, name="Two rooms", kind="teams", movement="teams", tables="4",
                   boards_per_round="2", sections="A,B")
    with app.app_context():
        toks = {(t.section, t.table_no): t.token for t in rs.tokens(store(), ce)}
    assert sorted(toks) == [(s, t) for s in "AB" for t in (1, 2, 3, 4)]
    phone = app.test_client()
    for table, entries in ROUND_1.items():
        for board, contract, tricks in entries:
            _enter(phone, toks[("A", table)], board, contract, tricks, sid=f"A{table}{board}")
    # Section B: the same round with team 1's NS and team 4's NS swapped results.
    swapped = {1: ROUND_1[2], 2: ROUND_1[1], 3: ROUND_1[3], 4: ROUND_1[4]}
    for table, entries in swapped.items():
        for board, contract, tricks in entries:
            _enter(phone, toks[("B", table)], board, contract, tricks, sid=f"B{table}{board}")
    live = c.get(f"/events/{ce}/desk/rankings.json").get_json()["rankings"]
    assert sorted(live) == ["A", "B"]
    first = {sec: (live[sec][0]["pair"], live[sec][0]["score"]) for sec in live}
    assert first["A"] == ("A team 1", 14.39)  # 6-0 IMPs over 2 boards
    assert first["B"] == ("B team 4", 14.39)  # the same match won the other way
    assert sum(s["score"] for s in live["A"]) == pytest.approx(40.0)
    assert sum(s["score"] for s in live["B"]) == pytest.approx(40.0)
