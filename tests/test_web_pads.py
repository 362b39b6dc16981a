"""Score pads on a phone (issue 14, part 7): the rubber sheet with honours and new
rubbers, Chicago's vulnerability variants, no session cookie, an undo sent twice.

Through Flask's test client on a real SQLite file; a client that keeps no
cookies stands for a phone that refuses them (or a private tab).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_app

from dealer.store import pads as store_pads
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _token(page: str) -> str:
    m = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert m, "no form token on the page"
    return m.group(1)


def _sid(page: str) -> str:
    m = re.search(r'name="sid" value="([^"]+)"', page)
    assert m, "no submission id on the page"
    return m.group(1)


def _start(c: FlaskClient, kind: str, **form: str) -> str:
    tok = _token(c.get("/pads/").get_data(as_text=True))
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": kind, "name": f"my {kind}",
                                  **form})
    assert r.status_code == 302, r.get_data(as_text=True)
    return r.headers["Location"]


def _post(c: FlaskClient, url: str, **form: str):
    page = c.get(url).get_data(as_text=True)
    return c.post(url, data={"csrf_token": _token(page), "sid": _sid(page), **form})


def _entries(app: Flask, url: str) -> list[dict]:
    with app.app_context():
        pad, _ = store_pads.view(store(), url.rstrip("/").split("/")[-1])
    return pad.entries


def _sheet(page: str) -> tuple[list[tuple[str, str]], list[list[tuple[str, str]]]]:
    """The WE/THEY sheet as drawn: the rows above the line, then each game's rows."""
    table = page.split('id="rubber-sheet"', 1)[1].split("</table>", 1)[0]
    def rows(html: str) -> list[tuple[str, str]]:
        return [tuple(re.findall(r"<td>([^<]*)</td>", r)) for r in
                re.findall(r'<tr class="fig">(.*?)</tr>', html)]  # type: ignore[misc]
    above = table.split('<tbody class="above">', 1)[1].split("</tbody>", 1)[0]
    games = re.findall(r'<tbody class="below[^"]*" data-game="\d+">(.*?)</tbody>', table)
    return rows(above), [rows(g) for g in games]


# -- no session cookie ------------------------------------------------------------------------

def test_a_phone_without_cookies_starts_a_pad_enters_and_undoes(app: Flask) -> None:
    """Before: the pad forms carried the session's CSRF token, so a phone that keeps no
    cookie got "Form expired" on its first entry, and a refused entry's message went
    into the session (flash) and was lost."""
    phone = app.test_client(use_cookies=False)
    url = _start(phone, "chicago")
    r = _post(phone, url, contract="4S", declarer="N", tricks="10")
    assert r.status_code == 302, r.get_data(as_text=True)
    assert "Set-Cookie" not in r.headers
    page = phone.get(url)
    assert "Set-Cookie" not in page.headers
    assert 'data-total="NS">NS 420' in page.get_data(as_text=True)
    # A refusal is said on the page itself, with no cookie to carry it.
    r = _post(phone, url, contract="9S", declarer="N", tricks="10")
    assert r.status_code == 400 and 'id="error"' in r.get_data(as_text=True)
    assert "Set-Cookie" not in r.headers
    r = _post(phone, url, op="undo")
    assert r.status_code == 302
    assert 'data-total="NS">NS 0' in phone.get(url).get_data(as_text=True)


def test_pad_forms_are_bound_to_their_pad(app: Flask) -> None:
    c = app.test_client(use_cookies=False)
    one, two = _start(c, "rubber"), _start(c, "rubber")
    page_one = c.get(one).get_data(as_text=True)
    # Pad one's form token does not open pad two, and no token opens nothing.
    r = c.post(two, data={"csrf_token": _token(page_one), "sid": "x", "contract": "2H",
                          "declarer": "N", "tricks": "8"})
    assert r.status_code == 400 and "Form expired" in r.get_data(as_text=True)
    r = c.post(two, data={"sid": "y", "contract": "2H", "declarer": "N", "tricks": "8"})
    assert r.status_code == 400
    assert _entries(app, two) == []
    # Another site's page cannot start pads in a visitor's name.
    tok = _token(c.get("/pads/").get_data(as_text=True))
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": "rubber"},
               headers={"Origin": "http://evil.example"})
    assert r.status_code == 400
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": "rubber"},
               headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 400
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": "rubber"},
               headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 302


# -- undo ---------------------------------------------------------------------------------------

def test_a_resent_undo_takes_back_one_deal_not_two(app: Flask) -> None:
    """Before: undo dropped the last entry each time it arrived, so a double tap (or
    the browser resending the form) removed two deals."""
    c = app.test_client()
    url = _start(c, "chicago")
    for contract in ("2H", "3C"):
        assert _post(c, url, contract=contract, declarer="S", tricks="9").status_code == 302
    page = c.get(url).get_data(as_text=True)
    undo = {"csrf_token": _token(page), "sid": _sid(page), "op": "undo"}
    assert c.post(url, data=undo).status_code == 302
    assert c.post(url, data=undo).status_code == 302  # the same form again
    kept = [e["contract"] for e in _entries(app, url) if e.get("op") != "undo"]
    page = c.get(url).get_data(as_text=True)
    assert page.count("<tr><td>") == 1 and "2♥ S" in page and "3♣" not in page, kept
    # A new undo (a new form) does take back the next one.
    assert _post(c, url, op="undo").status_code == 302
    assert c.get(url).get_data(as_text=True).count("<tr><td>") == 0
    r = _post(c, url, op="undo")  # nothing left
    assert r.status_code == 400 and "nothing to undo" in r.get_data(as_text=True)


# -- rubber -------------------------------------------------------------------------------------

def test_rubber_sheet_above_and_below_the_line_with_honours_and_a_new_rubber(app: Flask) -> None:
    """Seed 002's first deals on the WE/THEY sheet: honours go above the line, trick
    scores below it, game by game; two games win the rubber, and a new one starts."""
    c = app.test_client()
    url = _start(c, "rubber")
    # WE (NS) 2H making 10 with four trump honours: 60 below, 60 + 100 above.
    assert _post(c, url, contract="2H", declarer="N", tricks="10",
                 honours="WE100").status_code == 302
    # THEY 3NT making 10: 100 below (game), 30 above.
    assert _post(c, url, contract="3NT", declarer="E", tricks="10").status_code == 302
    page = c.get(url).get_data(as_text=True)
    above, games = _sheet(page)
    # Each column stacks upwards from the line: WE's honours first, then its overtricks.
    assert above == [("60", ""), ("100", "30")]
    assert games == [[("60", "100")]]
    assert 'data-total="WE">WE 220' in page and 'data-total="THEY">THEY 130' in page
    assert "vulnerable: THEY" in page
    # Honours at no trumps are four aces: 150, never 100.
    r = _post(c, url, contract="1NT", declarer="S", tricks="7", honours="WE100")
    assert r.status_code == 400 and "four aces" in r.get_data(as_text=True)
    # A new rubber before this one is over is refused.
    r = _post(c, url, op="new")
    assert r.status_code == 400 and "not over" in r.get_data(as_text=True)
    # THEY win the second game: the rubber, 2-0, 700.
    assert _post(c, url, contract="4S", declarer="W", tricks="10").status_code == 302
    page = c.get(url).get_data(as_text=True)
    above, games = _sheet(page)
    assert games == [[("60", "100")], [("", "120")]]
    assert above == [("60", "700"), ("100", "30")]
    assert 'id="over"' in page and "THEY win by 730" in page
    # A new rubber: a clean sheet, the first rubber kept in the list with the net.
    assert _post(c, url, op="new").status_code == 302
    page = c.get(url).get_data(as_text=True)
    assert "Rubber 2" in page and _sheet(page) == ([], [])
    assert re.search(r'<tr class="rubber-done"><td>1</td><td>220</td><td>950</td>', page)
    assert 'id="net">THEY +730' in page
    assert _post(c, url, contract="1C", declarer="N", tricks="7").status_code == 302
    assert _sheet(c.get(url).get_data(as_text=True))[1] == [[("20", "")]]


# -- Chicago ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("variant", "vulnerable", "score"), [
    ("modern", "NS", "420"),    # deal 2, East deals: the non-dealing side (NS) vulnerable
    ("original", "EW", "620"),  # the dealing side (EW) vulnerable: 4S by E is worth 620
])
def test_chicago_players_choose_the_vulnerability(app: Flask, variant: str, vulnerable: str,
                                                  score: str) -> None:
    """Before: the pad always played the modern scheme (the form had no choice)."""
    c = app.test_client()
    page = c.get("/pads/").get_data(as_text=True)
    assert 'name="vulnerability"' in page and 'value="original"' in page
    url = _start(c, "chicago", scoring="chicago", vulnerability=variant)
    assert _post(c, url, contract="1C", declarer="N", tricks="7").status_code == 302
    page = c.get(url).get_data(as_text=True)
    assert f"Deal 2: East deals, vulnerable: {vulnerable}" in page
    assert ("the dealing side is vulnerable" in page) == (variant == "original")
    assert _post(c, url, contract="4S", declarer="E", tricks="10").status_code == 302
    page = c.get(url).get_data(as_text=True)
    assert re.search(rf"<td>4♠ E</td><td>0</td><td>{score}</td>", page), page


def test_chicago_refuses_an_unknown_vulnerability(app: Flask) -> None:
    c = app.test_client()
    tok = _token(c.get("/pads/").get_data(as_text=True))
    r = c.post("/pads/new", data={"csrf_token": tok, "kind": "chicago",
                                  "vulnerability": "upside-down"})
    assert r.status_code == 400 and "vulnerability" in r.get_data(as_text=True)


def test_the_pads_page_has_the_list_of_this_devices_pads(app: Flask) -> None:
    """The list itself is drawn by panel.js from localStorage (tests/browser); the
    pages carry what it needs: each pad page its address and name, the pads page
    the place for the list."""
    c = app.test_client()
    url = _start(c, "minibridge")
    page = c.get(url).get_data(as_text=True)
    assert f'data-bw-pad="{url}"' in page and 'data-name="my minibridge"' in page
    assert "data-bw-mypads" in c.get("/pads/").get_data(as_text=True)
