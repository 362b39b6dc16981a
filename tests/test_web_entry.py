"""Entry as good as a Bridgemate (issue 14, part 3), through Flask's test client on a
real SQLite file: results relative to the contract, the score before sending, East-West's
acceptance, the movement's instruction at the end of a round, the change form's chips,
and a board not played with its reason. The viewport check is in tests/browser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.contract import Contract
from dealer.events.moves import after_round
from dealer.scoring.duplicate import score_ns
from dealer.seats import board_vulnerability
from dealer.store import results as rs
from webpanel.db import store
from webpanel.tables import table_csrf


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


@pytest.fixture
def event(app: Flask) -> tuple[FlaskClient, int, dict[int, str]]:
    """A director's client, a 3-table Mitchell (2 boards a round) and its table tokens."""
    c = app.test_client()
    director(c)
    ce = new_event(c)
    return c, ce, table_tokens(app, ce)


class _Forms(HTMLParser):
    """The forms of a page, as a browser would send them: hidden and text inputs,
    checked radios and boxes, each select's chosen option."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._select: str | None = None
        self._first: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "id": a.get("id", ""),
                               "class": a.get("class", ""), "values": {}})
        elif not self.forms:
            return
        elif tag == "input" and "name" in a:
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox") and "checked" not in a:
                return
            self.forms[-1]["values"][a["name"]] = a.get("value", "on")
        elif tag == "select":
            self._select, self._first = a.get("name"), None
        elif tag == "option" and self._select:
            value = a.get("value")
            if self._first is None:
                self._first = value if value is not None else "?"
            if "selected" in a:
                self.forms[-1]["values"][self._select] = value if value is not None else "?"

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select:
            self.forms[-1]["values"].setdefault(self._select, self._first)
            self._select = None


def forms(page: str) -> list[dict]:
    p = _Forms()
    p.feed(page)
    return p.forms


def _post(c: FlaskClient, token: str, board: int, sid: str, **form: str):
    data = {"csrf_token": _token(c, token), "submission_id": sid, "board": str(board),
            "level": "4", "strain": "S", "dbl": "", "declarer": "N", **form}
    return c.post(f"/t/{token}/enter", data=data)


def _token(c: FlaskClient, token: str) -> str:
    with c.application.app_context():
        return table_csrf(token)


def _row(app: Flask, ce: int, table: int, board: int) -> rs.ResultLine:
    with app.app_context():
        return rs.table_results(store(), ce, "A", table)[board]


# -- results relative to the contract ---------------------------------------------------------

@pytest.mark.parametrize(("result", "tricks"), [("=", 10), ("+1", 11), ("+3", 13),
                                                 ("-2", 8), ("\u22122", 8), ("\u201310", 0)])
def test_a_result_is_entered_relative_to_the_contract(app: Flask, event, result: str,
                                                      tricks: int) -> None:
    """Before: the form had only "tricks taken"; a result chip was ignored and the entry
    refused ("tricks taken by declarer must be 0 to 13")."""
    c, ce, toks = event
    r = _post(c, toks[1], 1, "r1", result=result)
    assert r.status_code == 302, r.get_data(as_text=True)
    row = _row(app, ce, 1, 1)
    assert (row.contract, row.tricks) == ("4S", tricks)
    assert row.score == score_ns(Contract.parse("4S N"), tricks, board_vulnerability(1))
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    shown = rs.relative("4S", tricks)
    assert f"4S N {tricks} tricks ({shown})" in page


def test_impossible_or_contradicting_results_are_refused_by_name(app: Flask, event) -> None:
    c, ce, toks = event
    r = _post(c, toks[1], 1, "x1", level="6", result="+2")
    assert r.status_code == 400
    assert "result: +2 is impossible in 6S: at most +1" in r.get_data(as_text=True)
    r = _post(c, toks[1], 1, "x2", result="+1", tricks="10")
    assert r.status_code == 400 and "+1 and 10 tricks disagree" in r.get_data(as_text=True)
    r = _post(c, toks[1], 1, "x3", result="+0")
    assert r.status_code == 400 and "the result is =, +1, -2" in r.get_data(as_text=True)
    with app.app_context():
        assert rs.table_results(store(), ce, "A", 1) == {}
    # The absolute tricks remain an option, and agree with a chip that says the same.
    assert _post(c, toks[1], 1, "x4", result="-1", tricks="9").status_code == 302
    assert _row(app, ce, 1, 1).tricks == 9


def test_the_entry_form_offers_result_chips_and_tricks(app: Flask, event) -> None:
    c, _ce, toks = event
    page = c.get(f"/t/{toks[1]}").get_data(as_text=True)
    entry = next(f for f in forms(page) if f["id"] == "entry")
    assert entry["values"]["step"] == "check"  # without JavaScript: the confirm step
    for value in ("=", "+1", "+6", "-1", "-7", "-13"):
        assert f'name="result" value="{value}"' in page
    assert 'id="tricks"' in page and "\u22122" in page


# -- the score before sending ------------------------------------------------------------------

def test_the_score_is_shown_before_it_is_sent_without_javascript(app: Flask, event) -> None:
    """Before: the form recorded at once; the score was first seen after recording."""
    c, ce, toks = event
    # Board 2: North-South vulnerable (Law 2), so 4S making 11 is +650.
    r = _post(c, toks[1], 2, "s1", result="+1", lead="HK", step="check")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert re.search(r'id="check-words">Board 2: 4S by N \+1 \(11 tricks\): NS \+650<', page)
    with app.app_context():
        assert rs.table_results(store(), ce, "A", 1) == {}  # nothing written yet
    confirm = next(f for f in forms(page) if f["values"].get("step") == "record"
                   and "lead" in f["values"])
    assert confirm["values"]["submission_id"] == "s1"
    r = c.post(confirm["action"], data=confirm["values"])
    assert r.status_code == 302
    row = _row(app, ce, 1, 2)
    assert (row.tricks, row.score, row.lead) == (11, 650, "HK")
    # Sent again (the browser's back and resend), the confirmed form adds nothing.
    assert "resent=2" in c.post(confirm["action"], data=confirm["values"]).headers["Location"]


def test_the_score_address_gives_the_cores_score_as_json(app: Flask, event) -> None:
    c, _ce, toks = event
    q = {"board": "2", "level": "3", "strain": "NT", "dbl": "X", "declarer": "E",
         "result": "-2"}
    got = c.get(f"/t/{toks[1]}/score", query_string=q).get_json()
    want = score_ns(Contract.parse("3NTX E"), 7, board_vulnerability(2))
    assert got["ok"] and got["score"] == want == 300 and got["vulnerable"] == "NS"
    assert "3NTX by E \u22122 (7 tricks)" in got["words"]
    got = c.get(f"/t/{toks[1]}/score", query_string={**q, "declarer": ""}).get_json()
    assert not got["ok"] and got["field"] == "declarer"
    got = c.get(f"/t/{toks[1]}/score", query_string={**q, "board": "7"}).get_json()
    assert not got["ok"] and "not played at this table" in got["error"]
    assert c.get("/t/not-a-card/score", query_string=q).status_code == 404


# -- East-West accept ---------------------------------------------------------------------------

def _ew_accept_on(c: FlaskClient, ce: int) -> None:
    r = c.post(f"/events/{ce}/settings", data={
        "csrf_token": csrf(c, f"/events/{ce}"), "options": "1", "show_traveller": "on",
        "show_hand_record": "on", "correction_minutes": "30", "reveal_after": "board",
        "ew_accept": "on"})
    assert r.status_code == 302


def test_east_west_accept_each_result_before_it_counts(app: Flask, event) -> None:
    """Before: there was no acceptance step; every entry counted at once."""
    c, ce, toks = event
    assert 'name="ew_accept"' in c.get(f"/events/{ce}").get_data(as_text=True)
    _ew_accept_on(c, ce)
    phone = app.test_client()
    r = _post(phone, toks[1], 1, "a1", result="=")
    assert r.status_code == 302
    page = phone.get(r.headers["Location"]).get_data(as_text=True)
    assert "East-West: is this right?" in page and "waiting for East-West" in page
    assert 'id="entry"' not in page  # the phone is passed to East-West first
    with app.app_context():
        assert rs.results(store(), ce) == []  # pending: not scored
        assert len(rs.results(store(), ce, include_pending=True)) == 1
    # Not yet shown, even with the reveal rule "board".
    assert phone.get(f"/t/{toks[1]}/board/1").status_code == 403
    # North-South change it before East-West accept: East-West's page is stale now.
    shown = _row(app, ce, 1, 1)
    r = phone.post(f"/t/{toks[1]}/fix/1", data={
        "csrf_token": _token(phone, toks[1]), "version": str(shown.version),
        "submission_id": "f1", "level": "4", "strain": "S", "dbl": "", "declarer": "N",
        "result": "+1", "lead": ""})
    assert r.status_code == 302, r.get_data(as_text=True)
    assert _row(app, ce, 1, 1).pending  # still East-West's to accept
    accept = {"csrf_token": _token(phone, toks[1]), "version": str(shown.version)}
    r = phone.post(f"/t/{toks[1]}/accept/1", data=accept)
    assert r.status_code == 409 and "North-South changed it meanwhile" in r.get_data(
        as_text=True)
    page = phone.get(f"/t/{toks[1]}").get_data(as_text=True)
    acc = next(f for f in forms(page) if "/accept/1" in f["action"])
    r = phone.post(acc["action"], data=acc["values"])
    assert r.status_code == 302 and "accepted=1" in r.headers["Location"]
    assert "Board 1 accepted by East-West: 4S by N, 11 tricks, NS +450" in phone.get(
        r.headers["Location"]).get_data(as_text=True)
    r = phone.post(acc["action"], data=acc["values"])  # resent
    assert r.status_code == 302 and "reaccepted=1" in r.headers["Location"]
    with app.app_context():
        [line] = rs.results(store(), ce)
        assert (line.board, line.tricks, line.pending) == (1, 11, False)
    assert phone.get(f"/t/{toks[1]}/board/1").status_code == 200
    # Another table's card accepts nothing of table 1's.
    assert phone.post(f"/t/{toks[2]}/accept/1", data={
        "csrf_token": _token(phone, toks[2]), "version": "1"}).status_code == 404


def test_with_the_setting_off_results_count_at_once(app: Flask, event) -> None:
    c, ce, toks = event
    assert _post(c, toks[1], 1, "o1", result="=").status_code == 302
    with app.app_context():
        assert [r.board for r in rs.results(store(), ce)] == [1]
    assert "East-West: is this right?" not in c.get(f"/t/{toks[1]}").get_data(as_text=True)


# -- the movement's instruction at the end of a round -------------------------------------------

def test_the_end_of_a_round_says_where_pairs_and_boards_go(app: Flask, event) -> None:
    """Before: "All boards of round 1 are recorded" and a link, with no move."""
    c, ce, toks = event
    with app.app_context():
        m = rs.movement(store(), ce)
    want = after_round(m, 2, 1).text
    assert want == "NS stay; EW move to table 3; boards go to table 1"
    b1, b2 = m.at(2, 1).boards
    assert _post(c, toks[2], b1, "m1", result="=").status_code == 302
    page = c.get(f"/t/{toks[2]}").get_data(as_text=True)
    assert want not in page  # not before the round is done
    r = _post(c, toks[2], b2, "m2", result="-1")
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    done = page.split('id="round-complete"', 1)[1].split("</div>", 1)[0]
    assert want in done and 'id="next-round"' in done and "On to round 2" in done
    # The next round opens with the same instruction, until its first entry.
    page = c.get(f"/t/{toks[2]}").get_data(as_text=True)
    assert "Round 2:" in page and f"Round 1 is over: {want}" in page and 'id="entry"' in page
    b3 = m.at(2, 2).boards[0]
    assert _post(c, toks[2], b3, "m3", result="=").status_code == 302
    assert "Round 1 is over" not in c.get(f"/t/{toks[2]}").get_data(as_text=True)


def test_the_last_round_says_the_session_is_over(app: Flask, event) -> None:
    c, ce, toks = event
    with app.app_context():
        m = rs.movement(store(), ce)
    for s in sorted((s for s in m.sittings if s.table == 1), key=lambda s: s.round):
        for b in s.boards:
            assert _post(c, toks[1], b, f"l{b}", result="=").status_code == 302
    page = c.get(f"/t/{toks[1]}").get_data(as_text=True)
    assert "That was the last round: the session is over at this table" in page


# -- the change form ----------------------------------------------------------------------------

def test_the_change_form_has_the_entry_chips_and_keeps_the_lead(app: Flask, event) -> None:
    """Before: the change form was three text boxes (contract, declarer, tricks)."""
    c, ce, toks = event
    assert _post(c, toks[1], 1, "c1", level="3", strain="NT", declarer="S", result="=",
                 lead="SQ").status_code == 302
    page = c.get(f"/t/{toks[1]}").get_data(as_text=True)
    fix = next(f for f in forms(page) if "/fix/1" in f["action"])
    v = fix["values"]
    assert (v["level"], v["strain"], v["dbl"], v["declarer"], v["result"], v["lead"]) == (
        "3", "NT", "", "S", "=", "SQ")
    assert "contract" not in v  # chips, not a text box
    # Tapping "+1" on the chips and sending the form as it stands.
    r = c.post(fix["action"], data={**v, "result": "+1", "tricks": ""})
    assert r.status_code == 302, r.get_data(as_text=True)
    row = _row(app, ce, 1, 1)
    assert (row.contract, row.declarer, row.tricks, row.lead) == ("3NT", "S", 10, "SQ")
    # A change form that does not send the lead (an older page) keeps it too.
    r = c.post(f"/t/{toks[1]}/fix/1", data={
        "csrf_token": _token(c, toks[1]), "version": str(row.version), "submission_id": "c3",
        "contract": "3NT", "declarer": "S", "tricks": "8"})
    assert r.status_code == 302
    assert (_row(app, ce, 1, 1).tricks, _row(app, ce, 1, 1).lead) == (8, "SQ")


# -- a board not played -------------------------------------------------------------------------

def test_a_table_records_a_board_not_played_with_its_reason(app: Flask, event) -> None:
    """Before: only the director could record "not played", and with no reason."""
    c, ce, toks = event
    page = c.get(f"/t/{toks[1]}").get_data(as_text=True)
    np = next(f for f in forms(page) if f["values"].get("not_played"))
    assert np["values"]["not_played"] == "time"
    r = c.post(np["action"], data={**np["values"], "board": "2", "not_played": "late play"})
    assert r.status_code == 302
    row = _row(app, ce, 1, 2)
    assert (row.not_played, row.not_played_reason, row.contract, row.score) == (
        True, "late play", None, None)
    assert "Board 2: not played (late play)" in c.get(r.headers["Location"]).get_data(
        as_text=True)
    # "Other" takes the words typed, whole or not at all (a new page: a new form id).
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    np = next(f for f in forms(page) if f["values"].get("not_played"))
    r = c.post(np["action"], data={**np["values"], "board": "1", "not_played": "other",
                                   "not_played_other": "x" * 41})
    assert r.status_code == 400 and "at most 40 characters" in r.get_data(as_text=True)
    r = c.post(np["action"], data={**np["values"], "board": "1", "not_played": "other",
                                   "not_played_other": "player taken ill"})
    assert r.status_code == 302
    # The desk sees both, with the reasons.
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    assert "not played <span" in desk, desk
    assert "(late play)" in desk and "(player taken ill)" in desk
    with app.app_context():
        lines = rs.as_results(rs.results(store(), ce))
    assert [(x.board, x.not_played) for x in lines] == [(1, True), (2, True)]
