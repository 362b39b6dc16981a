"""Entry and score pads on a phone, in real headless Chromium (issue 14, parts 3 and 7).

A 390×844 phone: the table's *Record* button is on the screen without scrolling; the
pads page lists the pads started on this device (from the browser's localStorage),
in a browser context that refuses cookies.
"""

from __future__ import annotations

import pytest

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


def _no_cookies(ctx) -> None:
    """Refuse every cookie the panel would set (a phone in a strict private mode)."""
    def strip(route) -> None:
        resp = route.fetch(max_redirects=0)  # each answer as it is, redirects too
        headers = {k: v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
        route.fulfill(response=resp, headers=headers)
    ctx.route("**/*", strip)


def test_pads_started_on_this_phone_are_listed_and_work_without_cookies(server, browser,
                                                                        shot) -> None:
    base, _app = server
    ctx = browser.new_context(**PHONE)
    _no_cookies(ctx)
    phone = ctx.new_page()
    phone.goto(base + "/pads/")
    assert phone.locator("#my-pads").is_hidden()  # nothing started here yet
    started = {}
    for kind, name in (("rubber", "Friday rubber"), ("chicago", "Club Chicago")):
        phone.goto(base + "/pads/")
        phone.select_option("#pad-kind", kind)
        phone.fill("input[name=name]", name)
        with phone.expect_navigation():
            phone.click("#new-pad button")
        assert not phone.url.endswith("/pads/"), phone.content()
        started[name] = phone.url.removeprefix(base)
    # An entry on the Chicago pad, with no cookie at all.
    phone.fill("input[name=contract]", "4S")
    phone.select_option("select[name=declarer]", "N")
    phone.select_option("select[name=tricks]", "10")
    with phone.expect_navigation():
        phone.click("#deal-form button")
    assert 'data-total="NS"' in phone.content(), phone.content()
    assert phone.locator('[data-total="NS"]').inner_text() == "NS 420"
    assert ctx.cookies() == []
    phone.goto(base + "/pads/")
    links = phone.locator("#my-pads li a")
    assert links.count() == 2
    assert links.all_inner_texts() == ["Club Chicago", "Friday rubber"]  # latest first
    assert [links.nth(i).get_attribute("href") for i in range(2)] == [
        started["Club Chicago"], started["Friday rubber"]]
    shot(phone, "pads-on-this-device")
    links.first.click()
    phone.wait_for_url("**" + started["Club Chicago"])
    assert phone.locator('[data-total="NS"]').inner_text() == "NS 420"
    # Forgetting one takes it off this device's list (the pad itself stays).
    phone.goto(base + "/pads/")
    phone.locator("#my-pads li", has_text="Friday rubber").locator("button").click()
    expect(phone.locator("#my-pads li a")).to_have_text(["Club Chicago"])  # (in-page script)
    assert phone.locator("#my-pads li a").all_inner_texts() == ["Club Chicago"]
    phone.goto(base + started["Friday rubber"])
    assert "Friday rubber" in phone.content()
    ctx.close()


def _in_view(page, selector: str) -> dict:
    """The element's box, and the page's scroll and width, as the phone shows it."""
    return page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
             return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                     scrollY: window.scrollY, width: document.documentElement.scrollWidth,
                     vw: window.innerWidth, vh: window.innerHeight}; }""", selector)


def _assert_reachable(page, selector: str) -> None:
    box = _in_view(page, selector)
    assert box["scrollY"] == 0, box
    assert box["vw"] == 390 and box["vh"] == 844, box
    assert 0 <= box["top"] and box["bottom"] <= box["vh"], box  # no scrolling needed
    assert 0 <= box["left"] and box["right"] <= box["vw"], box
    assert box["width"] <= box["vw"], box  # nothing sideways either


def _tap(page, name: str, value: str, form: str = "#entry") -> None:
    page.click(f"{form} .chips label:has(input[name={name}][value='{value}']) span")


def test_record_is_on_the_phones_screen_and_the_score_shows_before_sending(server, browser,
                                                                           shot) -> None:
    """A 390×844 phone: the Record button is within the screen on the entry page, as the
    page opens (nothing scrolled), in round 1 and in round 2 under the move's instruction;
    the score the core computes is shown as the chips are tapped, before sending."""
    base, app = server
    from dealer.store import results as rs
    from webpanel.db import store
    with app.app_context():
        ce = rs.create_club_event(store(), "Phone night", tables=3)
        tok = {t.table_no: t.token for t in rs.tokens(store(), ce)}[1]
        m = rs.movement(store(), ce)
    ctx = browser.new_context(**PHONE)
    phone = ctx.new_page()
    phone.goto(f"{base}/t/{tok}")
    _assert_reachable(phone, "#send")
    shot(phone, "14-entry-phone-round-1")
    b1, b2 = m.at(1, 1).boards
    phone.select_option("#board", str(b1))
    for name, value in (("level", "4"), ("strain", "S"), ("declarer", "N"), ("result", "+1")):
        _tap(phone, name, value)
    phone.locator("#score-preview", has_text="NS +450").wait_for()
    assert phone.input_value("#tricks") == "11"  # the chip and the tricks agree
    # 7NT cannot make +1: the chips the level cannot have are greyed out.
    _tap(phone, "level", "7")
    assert phone.is_disabled("#entry input[name=result][value='+1']")
    assert not phone.is_checked("#entry input[name=result][value='+1']")
    _tap(phone, "level", "4")
    _tap(phone, "result", "+1")
    phone.locator("#score-preview", has_text="NS +450").wait_for()
    _assert_reachable(phone, "#score-preview")
    shot(phone, "15-entry-phone-score-before-sending")
    with phone.expect_navigation():
        phone.click("#send")
    assert f"Board {b1} recorded: 4S by N, 11 tricks, NS +450." in phone.inner_text("#said")
    phone.select_option("#board", str(b2))
    for name, value in (("level", "3"), ("strain", "NT"), ("declarer", "S"), ("result", "-1")):
        _tap(phone, name, value)
    with phone.expect_navigation():
        phone.click("#send")
    done = phone.inner_text("#round-complete")
    assert "NS stay; EW move to table 2; boards go to table 3" in done
    shot(phone, "16-entry-phone-move")
    with phone.expect_navigation():
        phone.click("#next-round")
    assert "Round 2:" in phone.inner_text("#sitting")
    assert "Round 1 is over: NS stay; EW move to table 2" in phone.inner_text("#move")
    _assert_reachable(phone, "#send")
    shot(phone, "17-entry-phone-round-2")
    ctx.close()


def test_east_west_accept_on_the_same_phone(server, browser, shot) -> None:
    base, app = server
    from dealer.store import results as rs
    from webpanel.db import store
    with app.app_context():
        ce = rs.create_club_event(store(), "Accept night", tables=3, ew_accept=True)
        tok = {t.table_no: t.token for t in rs.tokens(store(), ce)}[2]
    ctx = browser.new_context(**PHONE)
    phone = ctx.new_page()
    phone.goto(f"{base}/t/{tok}")
    for name, value in (("level", "2"), ("strain", "H"), ("declarer", "E"), ("result", "=")):
        _tap(phone, name, value)
    with phone.expect_navigation():
        phone.click("#send")
    card = phone.locator("section.accept")
    assert "East-West: is this right?" in card.inner_text()
    assert phone.locator("#entry").count() == 0
    shot(phone, "18-entry-phone-east-west-accept")
    with phone.expect_navigation():
        card.locator("button.accept").click()
    assert "accepted by East-West" in phone.inner_text("#said")
    with app.app_context():
        assert [r.contract for r in rs.results(store(), ce)] == ["2H"]
    _assert_reachable(phone, "#send")
    ctx.close()


def test_a_result_recorded_while_the_wifi_is_down_is_sent_when_it_is_back(server, browser,
                                                                          shot) -> None:
    """The phone loses the network: Record keeps the result on the phone (its outbox) and
    says so; nothing reaches the panel. The network comes back: it is sent by itself, once,
    and the page shows it recorded; the outbox is in localStorage, so it outlives the page."""
    base, app = server
    from dealer.store import results as rs
    from webpanel.db import store
    with app.app_context():
        ce = rs.create_club_event(store(), "Wi-Fi drops", tables=3)
        tok = {t.table_no: t.token for t in rs.tokens(store(), ce)}[1]
        board = rs.movement(store(), ce).at(1, 1).boards[0]
    ctx = browser.new_context(**PHONE)
    phone = ctx.new_page()
    phone.goto(f"{base}/t/{tok}")
    ctx.set_offline(True)
    phone.select_option("#board", str(board))
    for name, value in (("level", "3"), ("strain", "NT"), ("declarer", "S"), ("result", "+1")):
        _tap(phone, name, value)
    phone.click("#send")
    note = phone.locator("#outbox")
    note.wait_for()
    assert f"kept on this phone, board {board}" in note.inner_text()
    assert phone.url == f"{base}/t/{tok}"  # no navigation to a browser error page
    shot(phone, "19-entry-phone-outbox")
    with app.app_context():
        assert rs.results(store(), ce, include_pending=True) == []
    kept = phone.evaluate("localStorage.getItem('bw-outbox')")
    assert kept and f'"board":"{board}"' in kept
    with phone.expect_navigation():  # the network back: sent, then the page reloads
        ctx.set_offline(False)
    phone.locator("#done li.done").first.wait_for()
    assert phone.locator("#outbox").count() == 0
    assert phone.evaluate("localStorage.getItem('bw-outbox')") == "[]"
    with app.app_context():
        rows = rs.results(store(), ce)
    assert [(r.board, r.contract, r.declarer, r.tricks) for r in rows] == [(board, "3NT", "S", 10)]
    # A second flush (another page load) sends nothing more.
    phone.reload()
    with app.app_context():
        assert len(rs.results(store(), ce, include_pending=True)) == 1
    ctx.close()
