"""Every address the panel registers, walked the way a stranger, a player or a fuzzer would.

The list of addresses comes from ``app.url_map``, not from a list kept by hand:
a new route that is not given an access class below fails
``test_every_registered_route_is_covered``. Each route is then asked for

- with no session (a stranger on the club's Wi-Fi);
- with the table token of another table (a player holding another table's card);
- with a token that no longer opens anything (an event deleted or closed, a card reissued);
- with each path parameter replaced by 0, -1, a 25-digit number, ``../``, a NUL byte
  and 10 kB of text, signed in as the director.

Every answer must be a 3xx, a 4xx or an expected 200: never a 500, and never
another table's data. Through Flask's test client on a real SQLite file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, event_on_six_boards, new_event, table_tokens
from werkzeug.routing import Rule

from dealer.store import results as rs
from webpanel.db import store
from webpanel.tables import table_csrf as _table_csrf

# Who may use each endpoint. "director": the director's pages (a stranger is sent to
# log in or refused); "table": a table token in the address opens one table only;
# "pad": a score pad's token; "public": anyone (log-in, first-run setup, home,
# creating a score pad, static files); "public-results": anyone, but only for a published
# event (an unpublished one answers 404, as if it did not exist: fair play).
ACCESS: dict[str, str] = {
    "auth.home": "public", "auth.login": "public", "auth.logout": "public",
    "auth.setup": "public", "static": "public", "auth.password": "director",
    "pads.listing": "director", "pads.delete": "director",
    "pads.index": "public", "pads.new": "public", "pads.show": "pad", "pads.add": "pad",
    "tables.entry": "table", "tables.board": "table", "tables.enter": "table",
    "tables.fix": "table", "tables.score": "table", "tables.accept": "table",
    "names.table_form": "table", "names.table_save": "table", "names.table_search": "table",
    "results.index": "public", "results.show": "public-results",
    "results.pdf": "public-results", "results.download": "public-results",
    "results.public_combined": "public-results",
}
DIRECTOR_PREFIXES = ("dealing.", "dealsets.", "events.", "desk.", "publish.", "players.",
                     "members.", "audit.")

# A value that stands out: if it ever appears on a page, table 1's result leaked.
SECRET_LEAD = "DQ"
SECRET_CONTRACT = "6NTXX"

BAD_VALUES = {
    "zero": "0", "minus-one": "-1", "huge": "9" * 25, "dot-dot": "../",
    "nul": "%00", "ten-kB": "x" * 10_240,
}


def leaks(body: str) -> bool:
    """Whether a page shows table 1's result (in its text: tags and tokens are not text)."""
    text = re.sub(r"<[^>]*>", " ", body)
    return re.search(r"(?<![A-Za-z0-9])(6\s*NT\s*XX|DQ|♦\s*Q)(?![A-Za-z0-9])", text) is not None


def table_csrf(app: Flask, token: str) -> str:
    with app.app_context():
        return _table_csrf(token)


def access(endpoint: str) -> str:
    if endpoint in ACCESS:
        return ACCESS[endpoint]
    if endpoint.startswith(DIRECTOR_PREFIXES):
        return "director"
    return "uncovered"


def rules(app: Flask) -> list[Rule]:
    return sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint))


def methods(rule: Rule) -> list[str]:
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """An event with a deal set, table 1's secret result, a pad, a stale token."""
    tmp: Path = tmp_path_factory.mktemp("routes")
    app, c, ce, set_id = event_on_six_boards(f"sqlite:///{tmp / 'bw.sqlite'}")
    gone = new_event(c, name="Deleted event", tables="3")
    tokens = table_tokens(app, ce)
    stale = table_tokens(app, gone)[1]
    with app.app_context():
        m = rs.movement(store(), ce)
        board = m.at(1, 1).boards[0]
        out = rs.submit(store(), ce, "A", 1, 1,
                        rs.Entry(board=board, contract=SECRET_CONTRACT, declarer="S",
                                 tricks=12, lead=SECRET_LEAD),
                        submission_id="secret-1", who="table A1", confirm=True)
        assert out.status == "recorded", out
        result_id = out.result_id
        rs.delete_club_event(store(), gone)
    r = c.post("/pads/new", data={"csrf_token": csrf(c, "/pads/"), "kind": "rubber",
                                  "name": "Tuesday rubber"})
    assert r.status_code == 302, r.get_data(as_text=True)
    pad = r.headers["Location"].rstrip("/").split("/")[-1]
    with app.app_context():
        from dealer.store import pads
        pad_id = next(p.id for p in pads.all_pads(store()) if p.token == pad)
        from dealer.players import MemberIn
        from dealer.store import players
        member = players.add_member(store(), MemberIn("Ann Lee", "EBU", "12345"))
    yield {"app": app, "ce": ce, "set": set_id, "tokens": tokens, "stale": stale,
           "board": board, "result": result_id, "pad": pad, "pad_id": pad_id,
           "member": member}


def good_values(world: dict, rule: Rule, *, token: str | None = None) -> dict[str, str]:
    """Real values for each parameter of ``rule`` (table 1's token unless told)."""
    known = {"ce_id": world["ce"], "set_id": world["set"], "result_id": world["result"],
             "job_id": 1, "board": world["board"], "fmt": "csv", "filename": "style.css",
             "pad_id": world["pad_id"], "member_id": world["member"],
             "token": token or (world["pad"] if rule.endpoint.startswith("pads.")
                                else world["tokens"][1])}
    missing = set(rule.arguments) - set(known)
    assert not missing, f"{rule.rule}: no good value for {sorted(missing)}: add one here"
    return {k: str(known[k]) for k in rule.arguments}


def address(rule: Rule, values: dict[str, str]) -> str:
    """The rule's address with raw text in its placeholders (no converter checks)."""
    def put(m: re.Match[str]) -> str:
        name = m.group(1).split(":")[-1]
        return values[name]
    return re.sub(r"<([^>]+)>", put, rule.rule)


def ask(client: FlaskClient, method: str, url: str, data: dict | None = None):
    try:
        if method == "GET":
            return client.get(url)
        return client.post(url, data=data or {})
    except Exception as exc:  # a test client re-raises what would have been a 500
        pytest.fail(f"{method} {url[:120]} raised {type(exc).__name__}: {exc}")


def check_answer(resp, method: str, url: str) -> None:
    assert resp.status_code < 500, f"{method} {url[:120]} -> {resp.status_code}"
    body = resp.get_data(as_text=True)
    assert "Traceback" not in body, f"{method} {url[:120]} shows a traceback"


# -- the routes are all known ---------------------------------------------------------------

def test_every_registered_route_is_covered(world: dict) -> None:
    uncovered = [r.endpoint for r in rules(world["app"]) if access(r.endpoint) == "uncovered"]
    assert not uncovered, (f"routes with no access class in {__name__}.ACCESS: {uncovered}; "
                           "say who may use them and give their parameters good values")


def test_the_walk_sees_every_kind_of_route(world: dict) -> None:
    kinds = {access(r.endpoint) for r in rules(world["app"])}
    assert kinds == {"director", "table", "pad", "public", "public-results"}
    assert len(rules(world["app"])) >= 30


# -- a stranger with no session --------------------------------------------------------------

def test_a_stranger_gets_no_director_page_and_no_table(world: dict) -> None:
    app = world["app"]
    c = app.test_client()
    for rule in rules(app):
        kind = access(rule.endpoint)
        for method in methods(rule):
            values = good_values(world, rule)
            if kind == "table":
                values["token"] = "0" * 32  # a stranger does not hold a card
            url = address(rule, values)
            resp = ask(c, method, url)
            check_answer(resp, method, url)
            if kind == "director":
                assert resp.status_code in (302, 303, 400, 401, 403), \
                    f"{method} {url} answered {resp.status_code} with no session"
                if resp.status_code in (302, 303):
                    assert "/login" in resp.headers["Location"], (method, url)
            elif kind == "table":
                assert resp.status_code in (400, 403, 404), (method, url, resp.status_code)
            elif kind == "public-results":  # the walk's event is not published
                assert resp.status_code == 404, (method, url, resp.status_code)
            assert not leaks(resp.get_data(as_text=True)), (method, url)


# -- a player holding another table's card ---------------------------------------------------

def test_another_tables_token_never_shows_or_changes_table_1s_result(world: dict) -> None:
    app, b = world["app"], world["board"]
    c = app.test_client()
    # The detector is live: table 1's own page lists its own result.
    assert leaks(c.get(f"/t/{world['tokens'][1]}").get_data(as_text=True))
    for table in (2, 3):
        tok = world["tokens"][table]
        for rule in rules(app):
            if access(rule.endpoint) != "table":
                continue
            for method in methods(rule):
                url = address(rule, good_values(world, rule, token=tok))
                data = {"csrf_token": table_csrf(app, tok), "board": str(b), "version": "1",
                        "contract": "1C", "declarer": "N", "tricks": "7", "level": "1",
                        "strain": "C", "submission_id": f"x{table}{rule.endpoint}"}
                resp = ask(c, method, url, data)
                check_answer(resp, method, url)
                assert not leaks(resp.get_data(as_text=True)), (table, url)
        # The board page of a board table 1 played is not this table's to see.
        resp = c.get(f"/t/{tok}/board/{b}")
        assert resp.status_code in (403, 404), resp.status_code
    with app.app_context():
        mine = rs.table_results(store(), world["ce"], "A", 1)
        assert mine[b].contract == SECRET_CONTRACT and mine[b].lead == SECRET_LEAD


# -- a token that no longer opens anything ----------------------------------------------------

def _dead_tokens(world: dict) -> dict[str, str]:
    """A card of a deleted event, a card replaced by new ones, and a card of a closed event."""
    app = world["app"]
    c = app.test_client()
    director_login(c)
    dead = {"deleted event": world["stale"]}
    ce = new_event(c, name="Reissued", tables="3")
    old = table_tokens(app, ce)[1]
    r = c.post(f"/events/{ce}/new-cards", data={"csrf_token": csrf(c, f"/events/{ce}"),
                                                 "confirm": "yes"})
    assert r.status_code == 302
    assert table_tokens(app, ce)[1] != old
    dead["replaced card"] = old
    ce = new_event(c, name="Closed", tables="3")
    closed = table_tokens(app, ce)[1]
    assert c.get(f"/t/{closed}").status_code == 200  # it worked until the close
    r = c.post(f"/events/{ce}/close", data={"csrf_token": csrf(c, f"/events/{ce}"),
                                            "confirm": "yes"})
    assert r.status_code == 302
    dead["closed event"] = closed
    return dead


def test_a_dead_token_opens_nothing(world: dict) -> None:
    """A deleted event's card, a card replaced by new ones, a closed event's card."""
    app = world["app"]
    c = app.test_client()
    dead = _dead_tokens(world)
    for why, tok in dead.items():
        for rule in rules(app):
            if access(rule.endpoint) != "table":
                continue
            for method in methods(rule):
                url = address(rule, good_values(world, rule, token=tok))
                resp = ask(c, method, url, {"csrf_token": table_csrf(app, tok), "board": "1",
                                            "level": "1", "strain": "C", "declarer": "N",
                                            "tricks": "7", "submission_id": "dead-" + why})
                check_answer(resp, method, url)
                assert resp.status_code in (403, 404, 410), (why, method, url,
                                                             resp.status_code)


# -- every path parameter replaced by nonsense ------------------------------------------------

@pytest.mark.parametrize("label", sorted(BAD_VALUES))
def test_bad_path_parameters_are_refused_cleanly(world: dict, label: str) -> None:
    """Signed in as the director (the most a request can reach), never a 500."""
    app = world["app"]
    c = app.test_client()
    director_login(c)
    token = csrf(c, "/events/")
    asked = 0
    for rule in rules(app):
        for name in rule.arguments:
            for method in methods(rule):
                values = good_values(world, rule)
                values[name] = BAD_VALUES[label] if label == "nul" else quote(
                    BAD_VALUES[label], safe="/")
                url = address(rule, values)
                resp = ask(c, method, url, {"csrf_token": token})
                check_answer(resp, method, url)
                assert resp.status_code in (200, 301, 302, 303, 308, 400, 403, 404, 405,
                                            409, 410, 413, 414, 422), (method, url[:100])
                if resp.status_code == 200:
                    # Only a value that is a real one in disguise may open a page.
                    assert label == "zero" and name == "filename" or rule.endpoint in (
                        "static",), (method, url[:100])
                asked += 1
    assert asked >= 30


def director_login(c: FlaskClient) -> None:
    from web_helpers import PASSWORD
    r = c.post("/login", data={"csrf_token": csrf(c, "/login"), "name": "td",
                               "password": PASSWORD})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]


# -- numbers in forms ------------------------------------------------------------------------

HUGE = "9" * 25


def test_huge_numbers_in_director_forms_get_a_clear_answer(world: dict) -> None:
    app, ce = world["app"], world["ce"]
    c = app.test_client()
    director_login(c)
    tok = csrf(c, f"/events/{ce}/desk/")
    asks = [
        (f"/events/{ce}/desk/adjust", {"table": "1", "round": "1", "board": HUGE}),
        (f"/events/{ce}/desk/adjust", {"table": HUGE, "round": "1", "board": "1"}),
        (f"/events/{ce}/desk/adjust", {"table": "1", "round": HUGE, "board": "1"}),
        (f"/events/{ce}/desk/result/{world['result']}", {"version": HUGE, "tricks": HUGE}),
        (f"/events/{ce}/settings", {"current_round": HUGE, "correction_minutes": HUGE,
                                    "deal_set_id": HUGE}),
        ("/dealsets/generate", {"first": HUGE, "count": HUGE}),
        (f"/dealing/start/{world['set']}", {"first": HUGE}),
    ]
    for url, form in asks:
        resp = ask(c, "POST", url, {"csrf_token": tok, **form})
        check_answer(resp, "POST", url)
        if resp.status_code in (302, 303):
            resp = c.get(resp.headers["Location"])
            check_answer(resp, "GET", url)
    with app.app_context():
        assert all(r.board < 10**6 for r in rs.results(store(), ce))


def test_a_huge_board_in_the_desk_adjustment_names_the_board(world: dict) -> None:
    app, ce = world["app"], world["ce"]
    c = app.test_client()
    director_login(c)
    resp = c.post(f"/events/{ce}/desk/adjust",
                  data={"csrf_token": csrf(c, f"/events/{ce}/desk/"), "table": "2",
                        "round": "1", "board": HUGE, "ns_artificial": "A",
                        "ew_artificial": "A"}, follow_redirects=True)
    body = resp.get_data(as_text=True)
    assert resp.status_code in (200, 400), resp.status_code
    assert "board" in body.lower() and HUGE[:10] in body


def test_huge_numbers_in_table_forms_get_a_clear_answer(world: dict) -> None:
    app = world["app"]
    c = app.test_client()
    tok = world["tokens"][2]
    for url, form in ((f"/t/{tok}/enter", {"board": HUGE, "level": "1", "strain": "C",
                                            "declarer": "N", "tricks": "7"}),
                      (f"/t/{tok}/enter", {"board": "1", "level": "1", "strain": "C",
                                           "declarer": "N", "tricks": HUGE}),
                      (f"/t/{tok}?round={HUGE}", None),
                      (f"/t/{tok}/fix/1", {"version": HUGE, "tricks": HUGE})):
        method = "GET" if form is None else "POST"
        resp = ask(c, method, url, None if form is None else
                   {"csrf_token": table_csrf(app, tok), "submission_id": "huge", **form})
        check_answer(resp, method, url)
