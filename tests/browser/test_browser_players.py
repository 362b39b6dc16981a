"""A phone names the four players of its table in real headless Chromium (issue 14, part 2).

A 390×844 phone that refuses cookies opens its table, follows "Enter the players",
finds two members by typing part of their names (accents left out: the search
is the server's, through players.js) and types two visitors; the names reach
the store and the table page, and axe-core finds nothing serious on the form.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_accessibility import AXE, PHONE, axe, serious
from test_browser_entry import _no_cookies

from dealer.players import MemberIn
from dealer.store import players as ps
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")


def test_a_phone_enters_four_names_with_the_member_search(server, browser, shot) -> None:
    base, app = server
    from webpanel.db import store
    with app.app_context():
        for m in (MemberIn("José Müller", "EBU", "123456"), MemberIn("Zofia Łęcka", "EBU", "345678"),
                  MemberIn("Josephine Moss", "EBU", "777")):
            ps.add_member(store(), m)
        ce = rs.create_club_event(store(), "Names night", tables=3)
        tok = {t.table_no: t.token for t in rs.tokens(store(), ce)}[1]
    ctx = browser.new_context(**PHONE, bypass_csp=True)  # to inject axe-core
    _no_cookies(ctx)
    phone = ctx.new_page()
    phone.goto(f"{base}/t/{tok}")
    phone.click("#players-ask a")
    phone.wait_for_url(f"**/t/{tok}/players")
    assert phone.locator("[data-bw-nojs]").is_hidden()  # the search works as you type
    phone.fill("#f-ns1", "jose mu")
    phone.locator("#s-ns1 button").first.wait_for()
    assert phone.locator("#s-ns1 button").all_inner_texts() == ["José Müller (EBU 123456)"]
    phone.locator("#s-ns1 button").first.click()
    assert phone.input_value("#f-ns1") == "José Müller (EBU 123456)"
    assert phone.evaluate("document.activeElement.id") == "f-ns2"  # on to the next seat
    phone.keyboard.type("lecka")
    phone.locator("#s-ns2 button", has_text="Zofia").wait_for()
    shot(phone, "players-phone-search")
    phone.locator("#s-ns2 button", has_text="Zofia").click()
    phone.fill("#f-ew1", "Vera Visitor")
    phone.fill("#f-ew2", "Walter Guest")
    shot(phone, "players-phone")
    if Path(AXE).is_file():
        assert not serious(axe(phone)), serious(axe(phone))
    with phone.expect_navigation():
        phone.click("#save-players")
    assert phone.locator("#names-saved").is_visible()
    assert phone.locator("#players-line").inner_text().startswith(
        "NS José Müller & Zofia Łęcka · EW Vera Visitor & Walter Guest")
    assert phone.locator("#send").is_visible()  # the results are entered as before
    assert ctx.cookies() == []
    with app.app_context():
        names = {str(k): [(p.name, p.member_id is not None) for p in v]
                 for k, v in ps.pair_names(store(), ce).items()}
    assert names == {"A1 NS": [("José Müller", True), ("Zofia Łęcka", True)],
                     "A1 EW": [("Vera Visitor", False), ("Walter Guest", False)]}
    ctx.close()
