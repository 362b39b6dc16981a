"""The live desk in real headless Chromium: results arrive while the director types, and the
director's pages on a 390-pixel phone (issue 14, parts 5 and 8)."""

from __future__ import annotations

import re

import pytest
from web_helpers import browser_login as _login

from dealer.generate import random_dealset
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def _event(app, name: str = "Live desk") -> tuple[int, int]:
    """A 3-table Mitchell with a deal set, made through the core."""
    from webpanel.db import store
    with app.app_context():
        ds = store().save(random_dealset(range(1, 7)), name=f"{name} boards")
        ce = rs.create_club_event(store(), name, tables=3, movement="mitchell",
                                  deal_set_id=ds)
    return ce, ds


def _enter(app, ce: int, table: int, rnd: int, board: int, tricks: int) -> int:
    """A table's phone records a result (the core's entry, as the phone's request does)."""
    from webpanel.db import store
    with app.app_context():
        out = rs.submit(store(), ce, "A", table, rnd, rs.Entry(board, "4S", "N", tricks),
                        submission_id=f"b{ce}-{table}-{board}", who=f"table A{table}",
                        confirm=True)
    assert out.status == "recorded", out
    assert out.result_id is not None
    return out.result_id


def test_a_result_arrives_while_the_director_types(server, browser, shot) -> None:
    """Before: any new result reloaded the page, and the typed text was gone."""
    base, app = server
    ce, _ = _event(app)
    first = _enter(app, ce, 1, 1, 1, 10)   # +420, alone on board 1: no comparison yet
    ctx = browser.new_context(**LAPTOP)
    page = ctx.new_page()
    _login(page, base)
    page.goto(f"{base}/events/{ce}/desk/")
    ranks = page.locator("#rankings")
    assert "No comparison yet" in ranks.inner_text()
    # The director types in the director's entry form and in a traveller's edit form.
    page.fill("#entry input[name=table]", "2")
    page.fill("#entry input[name=contract]", "3NT")
    page.fill("#entry input[name=declarer]", "S")
    line = page.locator(f"#r{first}")
    line.locator("summary").click()
    line.locator("input[name=reason]").first.fill("claim disputed at table 1")
    line.locator("input[name=tricks]").fill("9")
    marker = page.evaluate("() => (window.bwMarker = Math.random())")
    # A result arrives from table 3 (board 1 in round 2): now board 1 compares.
    _enter(app, ce, 3, 2, 1, 11)
    expect(ranks).to_contain_text("100.00%", timeout=15_000)
    expect(page.locator("[data-bw-part=tables]")).to_contain_text("A3", timeout=5_000)
    # The same page (no reload), the rankings changed, and the typing is all there.
    assert page.evaluate("() => window.bwMarker") == marker
    assert "No comparison yet" not in ranks.inner_text()
    assert page.input_value("#entry input[name=table]") == "2"
    assert page.input_value("#entry input[name=contract]") == "3NT"
    assert page.input_value("#entry input[name=declarer]") == "S"
    assert line.locator("input[name=reason]").first.input_value() == "claim disputed at table 1"
    assert line.locator("input[name=tricks]").input_value() == "9"
    assert page.locator(f"#r{first} details").get_attribute("open") is not None
    shot(page, "desk-live-typing")
    # A board that had no traveller yet appears in its place, in board order.
    _enter(app, ce, 2, 1, 3, 10)
    expect(page.locator("#tr-3")).to_be_visible(timeout=15_000)
    boards = page.eval_on_selector_all("[data-bw-travellers] > .traveller",
                                       "els => els.map(e => e.id)")
    assert boards == ["tr-1", "tr-3"]
    # The director sends the correction typed meanwhile: it goes through.
    with page.expect_navigation():  # (wait_for_load_state() can return on the old page)
        line.locator("button[value=correct]").click()
    assert "corrected" in page.inner_text("main")
    assert "claim disputed at table 1" in page.inner_text("#audit")
    ctx.close()


DIRECTOR_PAGES = ("/events/", "/events/new", "/events/{ce}", "/events/{ce}/edit",
                  "/events/{ce}/desk/", "/dealsets/", "/dealing/", "/dealing/start/{ds}")
WIDE = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.scroll'))
    .slice(0, 6).map(e => `${e.tagName}.${e.className}#${e.id}`)"""


def _width(page) -> int:
    return int(page.evaluate("() => document.scrollingElement.scrollWidth"))


def test_the_directors_pages_do_not_scroll_sideways_on_a_phone(server, browser, shot) -> None:
    """No sideways scrolling at 390 px: wide tables scroll in their own box instead."""
    base, app = server
    ce, ds = _event(app, "Phone desk")
    rid = _enter(app, ce, 1, 1, 1, 10)
    _enter(app, ce, 3, 2, 1, 11)
    from webpanel.db import store
    with app.app_context():
        rs.correct(store(), rid, who="director td", reason="a long reason " * 8, tricks=9)
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    _login(page, base)
    wide = {}
    for path in DIRECTOR_PAGES:
        url = base + path.format(ce=ce, ds=ds)
        page.goto(url)
        assert page.url.rstrip("/") == url.rstrip("/"), page.url
        if _width(page) > 390:  # name what sticks out, to say what to fix
            wide[path] = (_width(page), page.evaluate(WIDE))
        shot(page, "phone" + path.format(ce="event", ds="set").replace("/", "-").rstrip("-"))
    # A dealing job's page, while the emulated machine deals.
    page.goto(base + f"/dealing/start/{ds}")
    page.click("#start-dealing")
    page.wait_for_url(re.compile(r".*/dealing/\d+$"))
    if _width(page) > 390:
        wide["/dealing/<job>"] = (_width(page), page.evaluate(WIDE))
    shot(page, "phone-dealing-job")
    # The desk's forms, opened on a phone, stay inside the screen too.
    page.goto(f"{base}/events/{ce}/desk/")
    page.locator(f"#r{rid} summary").click()
    if _width(page) > 390:
        wide["desk, a traveller's form open"] = (_width(page), page.evaluate(WIDE))
    assert wide == {}, "\n".join(f"{k}: {v}" for k, v in wide.items())
    ctx.close()
