"""The panel through Flask's test client on a real SQLite file: events, entry, desk, pads,
exports, and the security rules (CSRF, tokens, sealed hands, rate limits, hostile input)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from flask import Flask
from web_helpers import PASSWORD, csrf, director, make_app, new_event, table_tokens

from dealer.generate import random_dealset
from dealer.store import results as rs
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _enter(client, token: str, board: int, *, contract=("4", "S", ""), declarer="N",
           tricks="10", sid="s1", rnd=1, confirm=False, lead=""):
    tok = csrf(client, f"/t/{token}?round={rnd}")
    data = {"csrf_token": tok, "submission_id": sid, "board": str(board), "level": contract[0],
            "strain": contract[1], "dbl": contract[2], "declarer": declarer, "tricks": tricks,
            "lead": lead}
    if confirm:
        data["confirm"] = "on"
    return client.post(f"/t/{token}/enter?round={rnd}", data=data)


def test_first_run_setup_then_login_and_logout(app: Flask) -> None:
    c = app.test_client()
    assert c.get("/").headers["Location"].endswith("/setup")
    director(c)
    assert c.get("/events/").status_code == 200
    c.post("/logout", data={"csrf_token": csrf(c, "/events/")})
    assert c.get("/events/").status_code == 302  # logged out: back to the login
    assert c.get("/setup").status_code == 302     # setup is only for the first run
    r = c.post("/login", data={"csrf_token": csrf(c, "/login"), "name": "td",
                               "password": PASSWORD})
    assert r.status_code == 302 and c.get("/events/").status_code == 200


def test_table_enters_a_round_idempotently_with_conflict_and_warning(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    toks = table_tokens(app, ce)
    phone = app.test_client()
    page = phone.get(f"/t/{toks[1]}").get_data(as_text=True)
    assert "NS pair 1" in page and "EW pair 1" in page and "boards 1, 2" in page
    r = _enter(phone, toks[1], 1, sid="a1")
    assert r.status_code == 302
    said = phone.get(r.headers["Location"]).get_data(as_text=True)
    assert "Board 1 recorded: 4S by N, 10 tricks, NS +420." in said
    # The same form again (a retry from a flaky phone): nothing is added.
    r = _enter(phone, toks[1], 1, sid="a1")
    assert r.status_code == 302
    said = phone.get(r.headers["Location"]).get_data(as_text=True)
    assert "Board 1 was already recorded from this form; nothing was added." in said
    assert "already recorded" not in phone.get(f"/t/{toks[1]}").get_data(as_text=True)
    # A second phone at the same table enters board 1 too: a clear conflict.
    other = app.test_client()
    r = _enter(other, toks[1], 1, contract=("3", "NT", ""), tricks="9", sid="b1")
    assert r.status_code == 409
    assert "board 1 was already entered at this table by table A1" in r.get_data(as_text=True)
    # A board of a later round is refused, confirmed or not (fair play: issue 13) ...
    for confirm in (False, True):
        r = _enter(phone, toks[1], 3, sid=f"a3{confirm}", confirm=confirm)
        assert r.status_code == 403
        assert "board 3 is played in round 2; this table is in round 1" in r.get_data(
            as_text=True)
    # ... and a board this table never plays names the board.
    r = _enter(phone, toks[1], 7, sid="a7", confirm=True)
    assert r.status_code == 400
    assert "board 7 is not played at this table" in r.get_data(as_text=True)
    assert _enter(phone, toks[1], 2, contract=("3", "NT", "X"), declarer="E", tricks="7",
                  sid="a2").status_code == 302
    with app.app_context():
        rows = rs.results(store(), ce)
    assert [(r.board, r.contract, r.score) for r in rows] == [(1, "4S", 420), (2, "3NTX", 300)]  # E down 2 doubled, not vulnerable


def test_bad_entries_name_the_field(app: Flask) -> None:
    c = app.test_client()
    director(c)
    tok = table_tokens(app, new_event(c))[1]
    r = _enter(c, tok, 1, declarer="", sid="x1")
    assert r.status_code == 400 and "declarer: choose the declarer" in r.get_data(as_text=True)
    r = _enter(c, tok, 1, tricks="14", sid="x2")
    assert r.status_code == 400 and "tricks" in r.get_data(as_text=True)
    r = _enter(c, tok, 1, lead="Z9", sid="x3")
    assert r.status_code == 400 and "opening lead" in r.get_data(as_text=True)


def test_csrf_is_required_on_every_form(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    tok = table_tokens(app, ce)[1]
    strict = Flask  # noqa: F841  (the app under test has CSRF on; TESTING does not turn it off)
    for path, data in ((f"/t/{tok}/enter", {"board": "1", "level": "1", "strain": "C",
                                            "declarer": "N", "tricks": "7",
                                            "submission_id": "z"}),
                       ("/events/new", {"name": "x", "tables": "3"}),
                       ("/logout", {}), ("/pads/new", {"kind": "rubber"})):
        r = c.post(path, data=data)
        assert r.status_code == 400, path
        assert "security token" in r.get_data(as_text=True)
    with app.app_context():
        assert rs.results(store(), ce) == []


def test_table_forms_need_no_cookie_and_their_token_is_bound_to_the_table(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    toks = table_tokens(app, ce)
    phone = app.test_client(use_cookies=False)  # a phone that refuses cookies
    page = phone.get(f"/t/{toks[1]}")
    assert "Set-Cookie" not in page.headers
    form_token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))[1]
    entry = {"csrf_token": form_token, "submission_id": "nc1", "board": "1", "level": "4",
             "strain": "S", "dbl": "", "declarer": "N", "tricks": "10"}
    r = phone.post(f"/t/{toks[1]}/enter?round=1", data=entry)
    assert r.status_code == 302 and "Set-Cookie" not in r.headers
    # Table 1's form token does not open table 2's form.
    r = phone.post(f"/t/{toks[2]}/enter?round=1", data={**entry, "submission_id": "nc2"})
    assert r.status_code == 400 and "security token" in r.get_data(as_text=True)
    with app.app_context():
        assert [(x.table_no, x.board) for x in rs.results(store(), ce)] == [(1, 1)]


def _fix(client, token: str, board: int, version: int, tricks: str, sid: str):
    page = client.get(f"/t/{token}?round=1").get_data(as_text=True)
    form_token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    return client.post(f"/t/{token}/fix/{board}?round=1", data={
        "csrf_token": form_token, "submission_id": sid, "version": str(version),
        "contract": "4S", "declarer": "N", "tricks": tricks})


def test_a_table_changes_its_own_entry_until_publication(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    tok = table_tokens(app, ce)[1]
    phone = app.test_client()
    assert _enter(phone, tok, 1, sid="e1").status_code == 302
    r = _fix(phone, tok, 1, 1, "9", "f1")
    assert r.status_code == 302
    said = phone.get(r.headers["Location"]).get_data(as_text=True)
    assert "Board 1 changed: 4S by N, 9 tricks, NS -50." in said
    # The same change form again changes nothing; a stale page is a conflict.
    r = _fix(phone, tok, 1, 1, "9", "f1")
    assert "already changed from this form" in phone.get(r.headers["Location"]).get_data(
        as_text=True)
    r = _fix(phone, tok, 1, 1, "11", "f2")
    assert r.status_code == 409 and "changed meanwhile" in r.get_data(as_text=True)
    assert _fix(phone, tok, 2, 1, "9", "f3").status_code == 404  # board 2 not entered here
    with app.app_context():
        row = rs.results(store(), ce)[0]
        assert (row.tricks, row.score, row.version) == (9, -50, 2)
        assert [(x.field, x.old, x.new) for x in rs.changes(store(), ce)] == [
            ("tricks", "10", "9"), ("score", "420", "-50")]
    # Once published, only the director corrects.
    c.post(f"/events/{ce}/desk/publish", data={"csrf_token": csrf(c, f"/events/{ce}/desk/"),
                                               "confirm": "yes"})
    r = _fix(phone, tok, 1, 2, "10", "f4")
    assert r.status_code == 403 and "the results are published" in r.get_data(as_text=True)
    with app.app_context():
        assert rs.results(store(), ce)[0].tricks == 9


def test_table_token_opens_only_its_table(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    toks = table_tokens(app, ce)
    phone = app.test_client()
    assert _enter(phone, toks[2], 3, sid="t2").status_code == 302
    # Table 1's token cannot show table 2's board before table 1 played it ...
    assert phone.get(f"/t/{toks[1]}/board/3").status_code == 403
    # ... nor any director page, and a made-up token opens nothing.
    for path in ("/events/", f"/events/{ce}", f"/events/{ce}/desk/", f"/events/{ce}/export.csv",
                 "/dealsets/"):
        assert phone.get(path).status_code == 302  # to the login
    assert phone.get("/t/not-a-token").status_code == 404
    assert phone.get("/t/" + "x" * 500).status_code == 404


def test_sealed_hand_is_not_shown_even_after_the_board_is_finished_here(app: Flask) -> None:
    c = app.test_client()
    director(c)
    with app.app_context():
        ds = random_dealset(range(1, 7))
        ds.sealed = True
        set_id = store().save(ds, name="sealed")
        north = ds.boards[0].deal.to_pbn().split()[0][2:]  # North's hand, "AK.Q..."
    ce = new_event(c, deal_set_id=str(set_id))
    tok = table_tokens(app, ce)[1]
    phone = app.test_client()
    before = phone.get(f"/t/{tok}").get_data(as_text=True) + phone.get(
        f"/t/{tok}/board/1").get_data(as_text=True)
    assert phone.get(f"/t/{tok}/board/1").status_code == 403
    spades = north.split(".")[0]
    assert f"♠</span> {' '.join(spades)}" not in before
    assert _enter(phone, tok, 1, sid="s").status_code == 302
    # Board 2 is still not finished at this table: still hidden, and so is board 1
    # until the round is complete (the default reveal rule).
    assert phone.get(f"/t/{tok}/board/2").status_code == 403
    assert phone.get(f"/t/{tok}/board/1").status_code == 403
    assert _enter(phone, tok, 2, sid="s2").status_code == 302
    after = phone.get(f"/t/{tok}/board/1")
    # Finished here and the round complete, but sealed: the traveller page opens, without
    # the hands, until the director unseals the set (tests/test_sealed.py: every path).
    assert after.status_code == 200 and 'id="handrecord"' not in after.get_data(as_text=True)
    # The director's hand-record download refuses a sealed set.
    assert c.get(f"/dealsets/{set_id}/records.pdf").status_code == 403


def test_login_rate_limit(app: Flask) -> None:
    c = app.test_client()
    director(c)
    c.post("/logout", data={"csrf_token": csrf(c, "/events/")})
    for _ in range(5):
        r = c.post("/login", data={"csrf_token": csrf(c, "/login"), "name": "td",
                                   "password": "wrong"})
        assert r.status_code == 401
    # Now even the right password is refused for a while.
    r = c.post("/login", data={"csrf_token": csrf(c, "/login"), "name": "td",
                               "password": PASSWORD})
    assert r.status_code == 429 and "Too many failed logins" in r.get_data(as_text=True)
    assert c.get("/events/").status_code == 302


def test_hostile_input_is_escaped_and_stored_verbatim(app: Flask) -> None:
    c = app.test_client()
    director(c)
    evil = "<script>alert(1)</script>'; DROP TABLE results; --"
    ce = new_event(c, name=evil)
    page = c.get(f"/events/{ce}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    tok = table_tokens(app, ce)[1]
    r = _enter(c, tok, 1, lead="<b>", sid="'; DROP TABLE results; --")
    assert r.status_code == 400
    r = _enter(c, tok, 1, sid="'; DROP TABLE results; --")
    assert r.status_code == 302
    r = _enter(c, tok, 2, contract=("4", "S" * 100_000, ""), sid="huge")
    assert r.status_code == 400
    # A huge form is refused before it is read.
    r = c.post(f"/t/{tok}/enter", data={"csrf_token": "x", "lead": "A" * (5 * 1024 * 1024)})
    assert r.status_code == 413
    with app.app_context():
        rows = rs.results(store(), ce)
        assert len(rows) == 1 and rs.event_name(store(), ce)[0] == evil
    # Pads: names with markup are escaped too.
    tokp = csrf(c, "/pads/")
    r = c.post("/pads/new", data={"csrf_token": tokp, "kind": "bugger", "name": evil,
                                  "players": "<img src=x onerror=alert(1)>\nBob\nCy"})
    assert r.status_code == 302
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    assert "<img src=x" not in page and "&lt;img src=x" in page


def test_desk_corrections_audit_swap_artificial_and_exports(app: Flask) -> None:
    c = app.test_client()
    director(c)
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="six")
    ce = new_event(c, deal_set_id=str(set_id))
    toks = table_tokens(app, ce)
    # Round 1: table 1 has boards 1-2, table 2 boards 3-4, table 3 boards 5-6.
    phone = app.test_client()
    _enter(phone, toks[1], 1, sid="1a")
    _enter(phone, toks[2], 3, contract=("2", "H", ""), declarer="S", tricks="8", sid="2a")
    # Round 2: boards 1-2 move to table 3 (Mitchell: boards move down). Table 3 has not
    # entered its round 1: it enters ahead only once the director lets it.
    r = _enter(phone, toks[3], 1, contract=("3", "NT", ""), declarer="S", tricks="10", sid="3b",
               rnd=2)
    assert r.status_code == 403
    c.post(f"/events/{ce}/desk/ahead", data={"csrf_token": csrf(c, f"/events/{ce}/desk/"),
                                            "allow_ahead": "on"})
    r = _enter(phone, toks[3], 1, contract=("3", "NT", ""), declarer="S", tricks="10", sid="3b",
               rnd=2)
    assert r.status_code == 302
    desk = c.get(f"/events/{ce}/desk/").get_data(as_text=True)
    assert "Frequencies: +430×1, +420×1" in desk
    with app.app_context():
        row = next(r for r in rs.results(store(), ce) if r.board == 1 and r.table_no == 1)
    tok = csrf(c, f"/events/{ce}/desk/")
    c.post(f"/events/{ce}/desk/result/{row.id}", data={
        "csrf_token": tok, "version": str(row.version), "action": "correct", "contract": "4S",
        "declarer": "N", "tricks": "11", "lead": "", "reason": "wrong tricks"})
    # A stale version (someone else corrected meanwhile) is a conflict.
    r = c.post(f"/events/{ce}/desk/result/{row.id}", data={
        "csrf_token": tok, "version": str(row.version), "action": "correct", "contract": "4S",
        "declarer": "N", "tricks": "9", "reason": "late"}, follow_redirects=True)
    assert "conflict" in r.get_data(as_text=True)
    c.post(f"/events/{ce}/desk/result/{row.id}", data={"csrf_token": tok, "action": "swap",
                                                       "reason": "sat the wrong way"})
    with app.app_context():
        fixed = rs.result(store(), row.id)
        audit = [(a.field, a.old, a.new, a.who) for a in rs.changes(store(), ce)]
    assert (fixed.score, fixed.ns, fixed.ew) == (450, 1, 1)
    assert ("tricks", "10", "11", "director td") in audit
    assert ("score", "420", "450", "director td") in audit
    c.post(f"/events/{ce}/desk/result/{row.id}", data={
        "csrf_token": tok, "action": "artificial", "ns_artificial": "A+", "ew_artificial": "A-",
        "reason": "ruling"})
    with app.app_context():
        assert rs.result(store(), row.id).ns_artificial == "A+"
    csv_text = c.get(f"/events/{ce}/export.csv").get_data(as_text=True)
    assert csv_text.splitlines()[0].startswith("board,section,table")
    assert len(csv_text.strip().splitlines()) == 4
    pbn_text = c.get(f"/events/{ce}/export.pbn").get_data(as_text=True)
    assert ';PairId_NS' in pbn_text and '[TotalScoreTable "Rank' in pbn_text
    assert re.search(r'\[Deal "N:', pbn_text)
    root = ET.fromstring(c.get(f"/events/{ce}/export.xml").data)
    assert root.tag == "USEBIO" and len(root.findall(".//TRAVELLER_LINE")) == 3
    pdf = c.get(f"/events/{ce}/export.pdf")
    assert pdf.data.startswith(b"%PDF") and pdf.status_code == 200
    assert c.get(f"/events/{ce}/table-cards.pdf").data.startswith(b"%PDF")
    assert c.get(f"/dealsets/{set_id}/records.pdf").data.startswith(b"%PDF")
    assert c.get(f"/dealsets/{set_id}/curtains.pdf").data.startswith(b"%PDF")


def test_pads_survive_a_reload_and_ignore_resent_forms(app: Flask) -> None:
    c = app.test_client()
    tok = csrf(c, "/pads/")
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": "chicago", "scoring": "chicago",
                                  "name": "Friday"})
    url = r.headers["Location"]
    # A pad's forms carry the pad's own token (pads.pad_csrf), not the pads page's.
    form = {"csrf_token": csrf(c, url), "sid": "d1", "contract": "4S", "declarer": "N",
            "tricks": "10"}
    c.post(url, data=form)
    c.post(url, data=form)  # resent
    fresh = app.test_client()  # another browser, same address: the pad is all there
    page = fresh.get(url).get_data(as_text=True)
    assert page.count("4♠ N") == 1 and 'data-total="NS">NS 420' in page
    r = c.post(url, data={**form, "sid": "d2", "contract": "9S"}, follow_redirects=True)
    assert "contract" in r.get_data(as_text=True).lower()


def test_table_card_qr_code_opens_the_tables_entry_page(app: Flask, tmp_path: Path) -> None:
    import shutil
    import subprocess
    cv2 = pytest.importorskip("cv2")
    zxingcpp = pytest.importorskip("zxingcpp")
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    c = app.test_client()
    director(c)
    ce = new_event(c)
    (tmp_path / "cards.pdf").write_bytes(c.get(f"/events/{ce}/table-cards.pdf").data)
    subprocess.run(["pdftoppm", "-r", "150", "-png", "-f", "1", "-l", "1",
                    str(tmp_path / "cards.pdf"), str(tmp_path / "p")], check=True)
    image = cv2.imread(str(next(tmp_path.glob("p*.png"))))
    urls = sorted(b.text for b in zxingcpp.read_barcodes(image))
    toks = table_tokens(app, ce)
    assert urls == sorted(f"http://localhost/t/{toks[t]}" for t in (1, 2))
    phone = app.test_client()
    page = phone.get(urls[0].removeprefix("http://localhost")).get_data(as_text=True)
    assert "Table A" in page and "Record result" in page


@pytest.mark.parametrize(("kind", "form", "entries", "totals"), [
    ("rubber", {}, [{"contract": "4S", "declarer": "N", "tricks": "10"},
                    {"contract": "3NT", "declarer": "E", "tricks": "7"}],
     ['data-total="WE">WE 220', 'data-total="THEY">THEY 0']),  # 120 + E two down
    ("chicago", {"scoring": "russian"},
     [{"contract": "4H", "declarer": "S", "tricks": "10", "hcp_ns": "26"}],
     ['data-total="NS">NS 2', 'data-total="EW">EW -2']),  # 420 v target 350: 2 IMPs
    ("minibridge", {}, [{"side": "EW", "kind": "game", "strain": "NT", "tricks": "9"}],
     ['data-total="NS">NS 0', 'data-total="EW">EW 400']),
    ("tigerbridge", {}, [{"side": "NS", "bid": "6", "taken": "7"}],
     ['data-total="NS">NS 0']),
])
def test_every_pad_kind_records_and_reloads(app: Flask, kind, form, entries, totals) -> None:
    c = app.test_client()
    tok = csrf(c, "/pads/")
    url = c.post("/pads/new", data={"csrf_token": tok, "kind": kind, "name": kind,
                                    **form}).headers["Location"]
    tok = csrf(c, url)  # the pad's own form token
    for i, e in enumerate(entries):
        r = c.post(url, data={"csrf_token": tok, "sid": f"e{i}", **e}, follow_redirects=True)
        assert 'class="flash error"' not in r.get_data(as_text=True), r.get_data(as_text=True)
    page = app.test_client().get(url).get_data(as_text=True)
    for t in totals:
        assert t in page
    assert page.count("<tr><td>") == len(entries)


def test_flask_commands_init_db_and_create_director(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'cli.sqlite'}")
    runner = app.test_cli_runner()
    assert "database ready" in runner.invoke(args=["init-db"]).output
    out = runner.invoke(args=["create-director", "ann"], input="longpassword\nlongpassword\n")
    assert "director ann created" in out.output
    c = app.test_client()
    r = c.post("/login", data={"csrf_token": csrf(c, "/login"), "name": "ann",
                               "password": "longpassword"})
    assert r.status_code == 302
    bad = runner.invoke(args=["create-director", "bob"], input="short\nshort\n")
    assert bad.exit_code != 0 and "8 characters" in bad.output


def test_recorded_play_is_checked_and_replayed_trick_by_trick(app: Flask) -> None:
    c = app.test_client()
    director(c)
    ce = new_event(c)
    tok = table_tokens(app, ce)[1]
    _enter(c, tok, 1, sid="p1")
    with app.app_context():
        rid = rs.results(store(), ce)[0].id
    t = csrf(c, f"/events/{ce}/desk/")
    bad = c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": t, "action": "play", "play": "HK H2 H3 H4\nHK S2 S3 S4"})
    assert bad.status_code == 400 and "HK was already played" in bad.get_data(as_text=True)
    c.post(f"/events/{ce}/desk/result/{rid}", data={
        "csrf_token": t, "action": "play", "play": "HK H2 H3 H4\nS10 S2 S3 SA\nCA - - -"})
    page = c.get(f"/events/{ce}/play/{rid}").get_data(as_text=True)
    assert re.findall(r"<li>([^<]*)</li>", page) == ["HK H2 H3 H4", "ST S2 S3 SA", "CA - - -"]
    assert "data-bw-replay" in page
