"""Fair play at the tables, through Flask's test client on a real SQLite file (issue 13).

Finding 11: what a table or the director types is checked exactly and refused
with the field's name, never cut into something else.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.store import results as rs
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _form_token(client: FlaskClient, token: str, rnd: int | None = None) -> str:
    page = client.get(f"/t/{token}" + (f"?round={rnd}" if rnd else "")).get_data(as_text=True)
    m = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert m, page
    return m[1]


def _enter(client: FlaskClient, token: str, board: int, *, level="4", strain="S",
           declarer="N", tricks="10", lead="", sid="s1", rnd: int | None = None, **extra):
    data = {"csrf_token": _form_token(client, token), "submission_id": sid,
            "board": str(board), "level": level, "strain": strain, "dbl": "",
            "declarer": declarer, "tricks": tricks, "lead": lead, **extra}
    return client.post(f"/t/{token}/enter" + (f"?round={rnd}" if rnd else ""), data=data)


def _fix(client: FlaskClient, token: str, board: int, *, version=1, sid="f1", **values):
    data = {"csrf_token": _form_token(client, token), "submission_id": sid,
            "version": str(version), "contract": "4S", "declarer": "N", "tricks": "9"}
    data.update(values)
    return client.post(f"/t/{token}/fix/{board}", data=data)


def _rows(app: Flask, ce: int) -> list[tuple]:
    with app.app_context():
        return [(r.table_no, r.board, r.contract, r.declarer, r.tricks, r.lead, r.version)
                for r in rs.results(store(), ce)]


# ---------------------------------------------------------------- finding 11
def test_a_tables_input_is_refused_naming_the_field_never_cut(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    tok = table_tokens(app, ce)[1]
    phone = app.test_client()
    # Before: "N' --" was cut to "N" and recorded as North's contract.
    r = _enter(phone, tok, 1, declarer="N' --", sid="d1")
    assert r.status_code == 400 and "declarer: choose the declarer" in r.get_data(as_text=True)
    # Before: a lead "S10X" was cut to "S10" and recorded as ST.
    r = _enter(phone, tok, 1, lead="S10X", sid="d2")
    assert r.status_code == 400 and "lead: at most 3 characters" in r.get_data(as_text=True)
    r = _enter(phone, tok, 1, tricks="1_0", sid="d3")  # int() reads this as 10
    assert r.status_code == 400 and "tricks: a whole number 0 to 13" in r.get_data(as_text=True)
    r = _enter(phone, tok, 1, sid="x" * 65)
    assert r.status_code == 400 and "submission id is at most 64" in r.get_data(as_text=True)
    assert _rows(app, ce) == []
    assert _enter(phone, tok, 1, lead="SQ", sid="ok").status_code == 302
    before = _rows(app, ce)
    assert before == [(1, 1, "4S", "N", 10, "SQ", 1)]
    # The change form: before, the contract was cut to 8 characters ("4S      " -> 4S),
    # the declarer to one, the reason to 300 and the submission id to 64.
    for values, said in (({"contract": "4S      XX"}, "contract: at most 8 characters"),
                         ({"declarer": "N' --"}, "declarer: choose the declarer"),
                         ({"reason": "r" * 301}, "reason: the reason is at most 300"),
                         ({"submission_id": "y" * 65}, "submission id is at most 64"),
                         ({"tricks": "1_0"}, "tricks: a whole number 0 to 13")):
        r = _fix(phone, tok, 1, **values)
        assert r.status_code == 400, (values, r.status_code)
        assert said in r.get_data(as_text=True), values
    assert _rows(app, ce) == before
    with app.app_context():
        assert rs.changes(store(), ce) == []
    # A change that is right goes through, and keeps the lead it does not show.
    assert _fix(phone, tok, 1, reason="r" * 300).status_code == 302
    assert _rows(app, ce) == [(1, 1, "4S", "N", 9, "SQ", 2)]


def test_the_directors_desk_refuses_over_long_or_out_of_range_values(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    tok = table_tokens(app, ce)[1]
    assert _enter(app.test_client(), tok, 1).status_code == 302
    with app.app_context():
        row = rs.results(store(), ce)[0]
    t = csrf(c, f"/events/{ce}/desk/")
    url = f"/events/{ce}/desk/result/{row.id}"
    # Before: "50.000000001" was cut to "50.00000" (an artificial 50 %), a fouled group
    # of 42 clamped to 9, a 301-letter reason cut to 300, "1_0" tricks read as 10.
    for data, said in (
            ({"action": "artificial", "ns_artificial": "50.000000001", "ew_artificial": "50"},
             "ns_artificial: at most 8 characters"),
            ({"action": "fouled", "fouled_group": "42"}, "fouled_group: a whole number 0 to 9"),
            ({"action": "correct", "contract": "4S", "declarer": "N", "tricks": "9",
              "reason": "r" * 301}, "reason: at most 300 characters"),
            ({"action": "correct", "contract": "4S", "declarer": "N' --", "tricks": "9"},
             "declarer: at most 1 characters"),
            ({"action": "correct", "contract": "4S", "declarer": "N", "tricks": "1_0"},
             "tricks: a whole number 0 to 13")):
        r = c.post(url, data={"csrf_token": t, "version": str(row.version), **data})
        assert r.status_code == 400, data
        assert said in r.get_data(as_text=True), data
    r = c.post(f"/events/{ce}/desk/adjust", data={
        "csrf_token": t, "section": "AAAAA", "table": "2", "round": "1", "board": "3"})
    assert r.status_code == 400 and "section: at most 4 characters" in r.get_data(as_text=True)
    assert _rows(app, ce) == [(1, 1, "4S", "N", 10, None, 1)]
    with app.app_context():
        assert rs.changes(store(), ce) == [] and rs.result(store(), row.id).fouled_group == 0


def test_an_events_date_is_refused_not_cut(app: Flask) -> None:
    c = app.test_client()
    director(c)
    r = c.post("/events/new", data={
        "csrf_token": csrf(c, "/events/new"), "name": "Long date", "date": "2" * 33,
        "kind": "pairs", "movement": "mitchell", "tables": "3", "boards_per_round": "2",
        "sections": "A", "scoring": "matchpoints"})
    assert r.status_code == 400 and "date: at most 32 characters" in r.get_data(as_text=True)
    with app.app_context():
        assert rs.list_events(store()) == []
