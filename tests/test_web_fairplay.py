"""Fair play at the tables, through Flask's test client on a real SQLite file (issue 13);
the store's write paths on PostgreSQL too.

Finding 1: a table enters only its current round's boards, sees a board only
after its own result and as the reveal rule allows, and changes only its round
in progress (a change after seeing the board is flagged on the desk).
Finding 9: new table cards end the old ones; closing an event ends them all;
results entered or changed after publication are LATE.
Finding 11: what a table or the director types is checked exactly and refused
with the field's name, never cut into something else.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from test_store import db_url, pg_server  # noqa: F401  (fixtures)
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.generate import random_dealset
from dealer.store import Store
from dealer.store import results as rs
from dealer.store.models import AuditEntry
from dealer.store.panel_models import TableView
from webpanel import contexts
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


# ---------------------------------------------------------------- finding 1
# A 3-table Mitchell, 2 boards a round: table 1 plays boards 1-2, then 3-4, then 5-6.

def _event_with_hands(app: Flask, c: FlaskClient, **form: str) -> tuple[int, dict[int, str]]:
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="six")
    ce = new_event(c, deal_set_id=str(set_id), **form)
    return ce, table_tokens(app, ce)


def _menu(page: str) -> list[str]:
    return re.findall(r'<option value="(\d+)"[^>]*>\d+', page.split('name="round"')[1]
                      .split("</select>")[0])


def _board_choices(page: str) -> list[str]:
    return re.findall(r"<option[^>]*>(\d+)</option>",
                      page.split('id="board"')[1].split("</select>")[0])


def test_a_table_enters_only_its_current_rounds_boards(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c)
    phone = app.test_client()
    page = phone.get(f"/t/{toks[1]}").get_data(as_text=True)
    assert _menu(page) == ["1"]  # before: every round was offered
    # Round 2 asked in the address: the page stays in round 1 and says why.
    page = phone.get(f"/t/{toks[1]}?round=2").get_data(as_text=True)
    assert "Round 1: <b>NS pair 1</b>" in page and "boards 1, 2" in page
    assert "Round 2 is not open to this table: it is in round 1" in page
    assert _board_choices(page) == ["1", "2"]
    # A board of round 2, posted as round 2 (and confirmed): refused, nothing written.
    for rnd, confirm in ((2, False), (2, True), (None, True)):
        extra = {"confirm": "on"} if confirm else {}
        r = _enter(phone, toks[1], 3, rnd=rnd, sid=f"ahead{rnd}{confirm}", **extra)
        assert r.status_code == 403, (rnd, confirm)
        assert "board 3 is played in round 2; this table is in round 1 and enters its " \
               "boards (1, 2) first" in r.get_data(as_text=True)
    assert _rows(app, ce) == []
    assert _enter(phone, toks[1], 1, sid="b1").status_code == 302
    assert _enter(phone, toks[1], 2, sid="b2", rnd=1).status_code == 302
    # Round 1 done: round 2 opens, round 3 does not.
    assert _menu(phone.get(f"/t/{toks[1]}").get_data(as_text=True)) == ["1", "2"]
    assert _enter(phone, toks[1], 5, sid="b5", rnd=3).status_code == 403
    r = _enter(phone, toks[1], 3, sid="b3", rnd=1)  # the round on the form does not matter
    assert r.status_code == 302 and "round=2" in r.headers["Location"]
    # A form resent after the round moved on is still "already recorded", not refused.
    r = _enter(phone, toks[1], 1, sid="b1")
    assert r.status_code == 302 and "resent=1" in r.headers["Location"]
    with app.app_context():
        assert [(r.board, r.round_no) for r in rs.results(store(), ce)] == [(1, 1), (2, 1),
                                                                            (3, 2)]


def test_the_director_lets_tables_enter_ahead_and_each_is_logged(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c)
    phone = app.test_client()
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    assert "Let tables enter ahead" in desk
    c.post(f"/events/{ce}/desk/ahead", data={"csrf_token": csrf(c, f"/events/{ce}/desk/"),
                                            "allow_ahead": "on"})
    assert _menu(phone.get(f"/t/{toks[1]}").get_data(as_text=True)) == ["1", "2", "3"]
    assert _enter(phone, toks[1], 5, sid="a5", rnd=3).status_code == 302
    with app.app_context():
        log = [(a.action, a.subject, a.detail) for a in rs.audit_log(store(), ce)]
    assert ("enter-ahead", f"event {ce} table A1",
            "board 5 of round 3 entered in round 1") in log
    assert "enter-ahead" in c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    c.post(f"/events/{ce}/desk/ahead", data={"csrf_token": csrf(c, f"/events/{ce}/desk/"),
                                            "allow_ahead": "off"})
    assert _enter(phone, toks[1], 6, sid="a6", rnd=3).status_code == 403


def _hand_shown(page: str) -> bool:
    return 'id="handrecord"' in page or "bw-diagram" in page


def test_a_board_is_shown_after_the_tables_own_result_and_the_reveal_rule(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c)
    phone = app.test_client()
    # Table 2 plays board 3 in round 1; table 1 plays it in round 2.
    assert _enter(phone, toks[2], 3, level="6", strain="NT", sid="t2b3").status_code == 302
    for b in (1, 3):  # the board on the table now, and a board of a later round
        r = phone.get(f"/t/{toks[1]}/board/{b}")
        assert r.status_code == 403 and not _hand_shown(r.get_data(as_text=True))
        assert "only after this table has entered its own result" in r.get_data(as_text=True)
    assert _enter(phone, toks[1], 1, sid="b1").status_code == 302
    page = phone.get(f"/t/{toks[1]}").get_data(as_text=True)
    assert "traveller</a>" not in page  # the round is not done: no link yet
    r = phone.get(f"/t/{toks[1]}/board/1")
    assert r.status_code == 403 and "every board of round 1" in r.get_data(as_text=True)
    assert not _hand_shown(r.get_data(as_text=True))
    with app.app_context():
        assert store().session().scalars(select(TableView)).all() == []
    assert _enter(phone, toks[1], 2, sid="b2").status_code == 302
    r = phone.get(f"/t/{toks[1]}/board/1")
    assert r.status_code == 200 and _hand_shown(r.get_data(as_text=True))
    assert 'id="traveller"' in r.get_data(as_text=True)
    with app.app_context():
        seen = [(v.table_no, v.board) for v in store().session().scalars(select(TableView))]
    assert seen == [(1, 1)]
    # Board 3: table 2's 6NT is not table 1's to see before table 1 plays it.
    r = phone.get(f"/t/{toks[1]}/board/3")
    assert r.status_code == 403 and "6NT" not in r.get_data(as_text=True)
    # "off": never at the tables; "board": as soon as the board is entered.
    t = csrf(c, f"/events/{ce}")
    c.post(f"/events/{ce}/settings", data={"csrf_token": t, "options": "1",
                                           "show_traveller": "on", "show_hand_record": "on",
                                           "correction_minutes": "30", "reveal_after": "off"})
    r = phone.get(f"/t/{toks[1]}/board/1")
    assert r.status_code == 403 and not _hand_shown(r.get_data(as_text=True))
    assert "does not show hand records" in r.get_data(as_text=True)
    c.post(f"/events/{ce}/settings", data={"csrf_token": t, "options": "1",
                                           "show_traveller": "on", "show_hand_record": "on",
                                           "correction_minutes": "30", "reveal_after": "board"})
    assert _enter(phone, toks[1], 3, sid="b3").status_code == 302
    r = phone.get(f"/t/{toks[1]}/board/3")
    assert r.status_code == 200 and _hand_shown(r.get_data(as_text=True))
    assert "6NT" in r.get_data(as_text=True)  # now the traveller has table 2's line
    assert phone.get(f"/t/{toks[1]}/board/4").status_code == 403  # not entered here yet
    # The booleans still say what is shown: no hand record, the traveller only.
    c.post(f"/events/{ce}/settings", data={"csrf_token": t, "options": "1",
                                           "show_traveller": "on", "correction_minutes": "30",
                                           "reveal_after": "board"})
    r = phone.get(f"/t/{toks[1]}/board/3").get_data(as_text=True)
    assert not _hand_shown(r) and 'id="traveller"' in r


def test_a_table_changes_only_its_round_in_progress_and_a_late_look_is_flagged(
        app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c, reveal_after="board")
    phone = app.test_client()
    assert _enter(phone, toks[1], 1, sid="b1").status_code == 302
    # A change in the round in progress, before the table looked: no flag.
    assert _fix(phone, toks[1], 1, version=1, sid="f1").status_code == 302
    # The table looks at board 1 (the reveal rule "board"), then changes it: flagged.
    assert phone.get(f"/t/{toks[1]}/board/1").status_code == 200
    assert _fix(phone, toks[1], 1, version=2, sid="f2", tricks="11").status_code == 302
    with app.app_context():
        row = rs.table_results(store(), ce, "A", 1)[1]
    assert (row.tricks, row.changed_after_view) == (11, True)
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    assert f'data-flag="{row.id}"' in desk and "changed after viewing" in desk
    # Round 1 done: its boards are the director's now.
    assert _enter(phone, toks[1], 2, sid="b2").status_code == 302
    page = phone.get(f"/t/{toks[1]}?round=1").get_data(as_text=True)
    assert "<summary>change</summary>" not in page and "only the director changes" in page
    r = _fix(phone, toks[1], 2, version=1, sid="f3", tricks="8")
    assert r.status_code == 403
    assert "board 2 was played in round 1, which this table has finished" in r.get_data(
        as_text=True)
    with app.app_context():
        two = rs.table_results(store(), ce, "A", 1)[2]
    assert (two.tricks, two.version, two.changed_after_view) == (10, 1, False)
    t = csrf(c, f"/events/{ce}/desk/")
    c.post(f"/events/{ce}/desk/result/{two.id}", data={
        "csrf_token": t, "version": "1", "action": "correct", "contract": "4S",
        "declarer": "N", "tricks": "8", "lead": "", "reason": "table asked"})
    with app.app_context():
        assert rs.result(store(), two.id).tricks == 8


# ---------------------------------------------------------------- finding 9
def test_new_table_cards_end_the_old_ones(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, old = _event_with_hands(app, c)
    phone = app.test_client()
    assert _enter(phone, old[1], 1, sid="b1").status_code == 302
    page = c.get(f"/events/{ce}").get_data(as_text=True)
    assert "New table cards" in page and "issue 1" in page
    t = csrf(c, f"/events/{ce}")
    c.post(f"/events/{ce}/new-cards", data={"csrf_token": t})  # not confirmed: nothing
    assert table_tokens(app, ce) == old
    r = c.post(f"/events/{ce}/new-cards", data={"csrf_token": t, "confirm": "yes"},
               follow_redirects=True)
    assert "New table cards issued (issue 2)" in r.get_data(as_text=True)
    new = table_tokens(app, ce)
    assert set(new.values()).isdisjoint(old.values())
    r = phone.get(f"/t/{old[1]}")
    assert r.status_code == 410 and "This table card was replaced" in r.get_data(as_text=True)
    r = phone.post(f"/t/{old[1]}/enter", data={
        "csrf_token": _csrf_of(app, old[1]), "submission_id": "z", "board": "2", "level": "1",
        "strain": "C", "dbl": "", "declarer": "N", "tricks": "7"})
    assert r.status_code == 410
    assert phone.get(f"/t/{old[2]}/board/1").status_code == 410
    assert phone.get("/t/never-a-card").status_code == 404  # a made-up token is not "replaced"
    # The new card carries on where the table was.
    assert "Board 1: 4S N 10 tricks" in phone.get(f"/t/{new[1]}").get_data(as_text=True)
    assert _enter(phone, new[1], 2, sid="b2").status_code == 302
    with app.app_context():
        log = rs.audit_log(store(), ce)
        issues = {t.issue for t in rs.tokens(store(), ce)}
    assert issues == {2}
    assert [a.action for a in log].count("table-card-replaced") == 3
    assert ("new-table-cards", "director td") in [(a.action, a.who) for a in log]
    assert not any(tok in a.detail for a in log for tok in old.values())  # hashes only
    # The director's pages still show everything, and print the new cards.
    assert c.get(f"/events/{ce}/desk/").status_code == 200
    assert "issue 2" in c.get(f"/events/{ce}").get_data(as_text=True)
    assert c.get(f"/events/{ce}/table-cards.pdf").data.startswith(b"%PDF")


def _csrf_of(app: Flask, token: str) -> str:
    from webpanel.tables import table_csrf
    with app.test_request_context():
        return table_csrf(token)


def test_closing_an_event_ends_its_table_cards(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c)
    phone = app.test_client()
    assert _enter(phone, toks[1], 1, sid="b1").status_code == 302
    t = csrf(c, f"/events/{ce}")
    c.post(f"/events/{ce}/close", data={"csrf_token": t})  # not confirmed: still open
    assert phone.get(f"/t/{toks[1]}").status_code == 200
    c.post(f"/events/{ce}/close", data={"csrf_token": t, "confirm": "yes"})
    for url in (f"/t/{toks[1]}", f"/t/{toks[2]}", f"/t/{toks[1]}/board/1"):
        r = phone.get(url)
        assert r.status_code == 410 and "This event is closed" in r.get_data(as_text=True)
    r = phone.post(f"/t/{toks[2]}/enter", data={
        "csrf_token": _csrf_of(app, toks[2]), "submission_id": "z", "board": "3",
        "level": "1", "strain": "C", "dbl": "", "declarer": "N", "tricks": "7"})
    assert r.status_code == 410
    assert len(_rows(app, ce)) == 1
    # The director still sees the event, its desk and its results.
    show = c.get(f"/events/{ce}").get_data(as_text=True)
    assert "the table cards no longer open this event" in show
    desk = c.get(f"/events/{ce}/desk/")
    assert desk.status_code == 200 and "Board 1" in desk.get_data(as_text=True)
    assert "close-event" in desk.get_data(as_text=True)
    assert c.get(f"/events/{ce}/export.csv").status_code == 200


def test_results_entered_or_changed_after_publication_are_late(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce, toks = _event_with_hands(app, c, reveal_after="board")
    phone = app.test_client()
    assert _enter(phone, toks[1], 1, sid="b1").status_code == 302
    assert _enter(phone, toks[2], 3, sid="t2b3").status_code == 302
    c.post(f"/events/{ce}/desk/publish", data={"csrf_token": csrf(c, f"/events/{ce}/desk/"),
                                               "confirm": "yes"})
    assert _enter(phone, toks[1], 2, sid="b2").status_code == 302  # after publication
    with app.app_context():
        late = {(r.table_no, r.board): r.late for r in rs.results(store(), ce)}
        three = next(r for r in rs.results(store(), ce) if r.board == 3)
    assert late == {(1, 1): False, (1, 2): True, (2, 3): False}
    page = phone.get(f"/t/{toks[1]}/board/2").get_data(as_text=True)
    assert "LATE" in page
    assert "LATE" in phone.get(f"/t/{toks[1]}?round=1").get_data(as_text=True)
    # The director corrects table 2's board 3 after publication: late too.
    t = csrf(c, f"/events/{ce}/desk/")
    c.post(f"/events/{ce}/desk/result/{three.id}", data={
        "csrf_token": t, "version": "1", "action": "correct", "contract": "4S",
        "declarer": "N", "tricks": "9", "lead": "", "reason": "ruling"})
    with app.app_context():
        assert rs.result(store(), three.id).late is True
        ids = [r.id for r in rs.results(store(), ce) if r.late]
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    assert all(f'data-late="{i}"' in desk for i in ids) and len(ids) == 2


# ---------------------------------------------------------------- the store, both backends
def test_the_fair_play_marks_are_written_on_both_backends(db_url: str) -> None:  # noqa: F811
    """PostgreSQL writes an entry and a correction in one statement each: the marks
    (late, changed after view) and the round rules must be the same as on SQLite."""
    with Store.open(db_url) as st:
        ce_id = rs.create_club_event(st, "Marks", tables=3, reveal_after="board")
        ce = rs.get_event(st, ce_id)
        e = rs.Entry(1, "4S", "N", 10)
        out = rs.submit_at_table(st, ce, "A", 1, e, submission_id="m1", who="table A1")
        assert out.status == "recorded"
        with pytest.raises(rs.Refused, match="board 3 is played in round 2"):
            rs.submit_at_table(st, ce, "A", 1, rs.Entry(3, "4S", "N", 10),
                               submission_id="m3", who="table A1")
        rs.record_view(st, ce_id, "A", 1, 1)
        rs.record_view(st, ce_id, "A", 1, 1)  # once only
        fixed = rs.correct_at_table(st, ce, "A", 1, 1, who="table A1", reason="typo",
                                    submission_id="c1", expected_version=1, contract="4S",
                                    declarer="N", tricks=9)
        assert fixed is not None and fixed.status == "corrected"
        row = rs.result(st, out.result_id)
        assert (row.tricks, row.changed_after_view, row.late) == (9, True, False)
        assert [c.field for c in rs.changes(st, ce_id)] == ["tricks", "score"]
        rs.update_event(st, ce_id, published_at=datetime.now(UTC))
        ce = rs.get_event(st, ce_id)
        late = rs.submit_at_table(st, ce, "A", 1, rs.Entry(2, "3NT", "S", 9),
                                  submission_id="m2", who="table A1")
        assert rs.result(st, late.result_id).late is True
        rs.correct(st, out.result_id, who="director td", reason="ruling", tricks=10)
        assert rs.result(st, out.result_id).late is True
        # Table 1 finished round 1: board 2 is the director's now, even unpublished.
        rs.update_event(st, ce_id, published_at=None)
        with pytest.raises(rs.Refused, match="board 2 was played in round 1"):
            rs.correct_at_table(st, rs.get_event(st, ce_id), "A", 1, 2, who="table A1",
                                reason="", submission_id="c2", expected_version=1, tricks=8)
        with st.read() as s:
            assert len(s.scalars(select(TableView)).all()) == 1


def test_closing_is_checked_fresh_whatever_the_panel_keeps(tmp_path: Path) -> None:
    """Another worker closes the event: this worker's kept table context is stale for a
    moment, but the entry's own query sees the closing and refuses."""
    with Store.open(f"sqlite:///{tmp_path / 'bw.sqlite'}") as st:
        ce_id = rs.create_club_event(st, "Kept", tables=3)
        tok = rs.tokens(st, ce_id)[0].token
        kept = contexts.table_context(st, tok)
        assert kept is not None
        rs.close_event(st, ce_id, who="director td")
        assert contexts.table_context(st, tok) is kept  # still kept (another worker)
        with pytest.raises(rs.Refused, match="This event is closed"):
            rs.submit_at_table(st, kept[1], "A", 1, rs.Entry(1, "4S", "N", 10),
                               submission_id="k1", who="table A1")
        with st.read() as s:
            assert [a.action for a in s.scalars(select(AuditEntry))] == ["close-event"]
        contexts.forget_contexts()


def test_the_reveal_rule_is_set_on_the_event_form_and_checked(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    with app.app_context():
        assert rs.get_event(store(), ce).reveal_after == "round"  # the default
    ce = new_event(c, reveal_after="off")
    page = c.get(f"/events/{ce}/edit").get_data(as_text=True)
    assert '<option value="off" selected>' in page
    form = {"csrf_token": csrf(c, f"/events/{ce}/edit"), "name": "Monday pairs",
            "kind": "pairs", "movement": "mitchell", "tables": "3", "boards_per_round": "2",
            "sections": "A", "scoring": "matchpoints"}
    assert c.post(f"/events/{ce}/edit", data=form).status_code == 302  # no rule sent: kept
    r = c.post(f"/events/{ce}/edit", data={**form, "reveal_after": "never"})
    assert r.status_code == 400 and "reveal_after: reveal_after must be off, board or round" \
        in r.get_data(as_text=True)
    assert c.post(f"/events/{ce}/edit", data={**form, "reveal_after": "board"}
                  ).status_code == 302
    with app.app_context():
        assert rs.get_event(store(), ce).reveal_after == "board"


def test_score_pad_and_deal_set_fields_are_refused_not_cut(tmp_path) -> None:
    """Finding 11 on the pads and the deal-set forms: over-long values are refused by name."""
    from web_helpers import csrf, director, make_app

    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    r = c.post("/pads/new", data={"csrf_token": csrf(c, "/pads/"), "kind": "rubber",
                                  "name": "x" * 101})
    assert r.status_code == 400 and "at most 100 characters" in r.get_data(as_text=True)
    r = c.post("/pads/new", data={"csrf_token": csrf(c, "/pads/"), "kind": "rubber",
                                  "name": "Tuesday"})
    pad = r.headers["Location"]
    r = c.post(pad, data={"csrf_token": csrf(c, pad), "contract": "4S      X",
                          "declarer": "N", "tricks": "10", "sid": "a"},
               follow_redirects=True)
    page = r.get_data(as_text=True)
    assert "contract: at most 8 characters" in page
    r = c.post(pad, data={"csrf_token": csrf(c, pad), "contract": "4S", "declarer": "N' --",
                          "tricks": "10", "sid": "b"}, follow_redirects=True)
    assert "declarer: at most 1 characters" in r.get_data(as_text=True)
    director(c)
    r = c.post("/dealsets/generate", data={"csrf_token": csrf(c, "/dealsets/"),
                                           "first": "1", "count": "4", "name": "n" * 201})
    assert r.status_code == 400 and "name: at most 200 characters" in r.get_data(as_text=True)
