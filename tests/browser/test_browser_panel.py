"""A club evening in real headless Chromium: the director sets up and deals, phones enter a
round (with a lost response and a second phone), the rankings update, and a Bugger Bridge
pad runs several rounds."""

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


def _state(page) -> str:
    return page.inner_text("[data-bw-field=state]")


def test_director_creates_an_event_and_deals_on_the_emulated_machine(server, browser,
                                                                    shot) -> None:
    base, app = server
    ctx = browser.new_context(**LAPTOP)
    page = ctx.new_page()
    _login(page, base)
    page.click("nav >> text=Deal sets")
    page.fill("input[name=name]", "Club night")
    page.fill("input[name=count]", "6")
    with page.expect_navigation():
        page.click("button:has-text('Generate')")
    assert "Generated deal set" in page.inner_text("main")
    page.click("nav >> text=Events")
    page.click("text=New event")
    page.fill("input[name=name]", "Tuesday pairs")
    page.fill("input[name=date]", "2026.11.24")
    page.fill("input[name=tables]", "3")
    page.select_option("select[name=deal_set_id]", index=1)
    with page.expect_navigation():
        page.click("button:has-text('Create event')")
    assert "Event created." in page.inner_text("main")
    body = page.inner_text("main")
    assert "Mitchell" in body and "3 tables" in body
    assert page.locator("table.movement tr").count() == 4  # header + 3 rounds
    assert page.locator(".paircard").count() == 6          # 3 NS + 3 EW pairs
    shot(page, "01-event-created")
    # The first job runs on the rig (`boardwright deal`: the emulated machine and camera).
    app.config["RIG_FAULTS"] = "unreadable@6"  # the camera's picture of it stays on the page
    with page.expect_navigation():
        page.click("text=Deal the boards")
    assert "the rig" in page.inner_text("main")
    start_url = page.url
    page.click("#start-dealing")
    expect(page.locator("[data-bw-field=state]")).to_have_text("done", timeout=60_000)
    assert page.inner_text("[data-bw-field=boards_done]") == "6"
    assert page.inner_text("[data-bw-field=cards_done]") == "312"
    assert "all 6 boards are dealt and checked" in page.inner_text("[data-bw-field=message]")
    # The rig's camera picture replaced the "no picture" text, and it has really loaded.
    expect(page.locator("[data-bw-camera]")).to_be_visible()
    expect(page.locator("[data-bw-nocamera]")).to_be_hidden()
    page.wait_for_function("document.querySelector('[data-bw-camera]').naturalWidth >= 320")
    shot(page, "02-dealing-on-the-rig-done")
    assert " → " in page.inner_text("[data-bw-field=card]")  # the last card and its pocket
    app.config.pop("RIG_FAULTS")
    # A second job, paused at once: the rig takes the pause from the job's row when it
    # starts, sends PAUSE to the machine, and says so on the page; Resume goes on.
    page.goto(start_url)
    with page.expect_navigation():
        page.click("#start-dealing")
    with page.expect_navigation():  # a form POST: the job's page again, with the pause
        page.click("#cmd-pause")
    expect(page.locator("[data-bw-field=state]")).to_have_text("paused", timeout=30_000)
    assert "paused by the director" in page.inner_text("[data-bw-field=message]")
    assert "press Resume" in page.inner_text("[data-bw-field=instruction]")
    shot(page, "03-dealing-paused")
    with page.expect_navigation():
        page.click("#cmd-resume")
    expect(page.locator("[data-bw-field=state]")).to_have_text("done", timeout=90_000)
    assert page.inner_text("[data-bw-field=boards_done]") == "6"
    assert not page.is_visible("#cmd-pause")  # a finished job has nothing to pause
    shot(page, "03b-dealing-done")
    # A third job: pause, then abort.
    page.goto(start_url)
    with page.expect_navigation():
        page.click("#start-dealing")
    with page.expect_navigation():
        page.click("#cmd-pause")
    expect(page.locator("[data-bw-field=state]")).to_have_text("paused", timeout=30_000)
    page.click("#cmd-abort")
    expect(page.locator("[data-bw-field=state]")).to_have_text("aborted", timeout=20_000)
    ctx.close()


def _event(app) -> tuple[int, dict[int, str]]:
    from webpanel.db import store
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="phones")
        ce = rs.create_club_event(store(), "Phone night", tables=3, deal_set_id=set_id)
        return ce, {t.table_no: t.token for t in rs.tokens(store(), ce)}


def _fill(page, board: int, level: str, strain: str, declarer: str, tricks: str,
          dbl: str = "") -> None:
    page.select_option("#board", str(board))
    page.click(f".chips label:has(input[name=level][value='{level}']) span")
    page.click(f".chips label:has(input[name=strain][value='{strain}']) span")
    page.click(f".chips label:has(input[name=dbl][value='{dbl}']) span")
    page.click(f".chips label:has(input[name=declarer][value='{declarer}']) span")
    page.select_option("#tricks", tricks)


def test_a_table_enters_a_full_round_on_a_phone_with_a_retry_and_a_conflict(
        server, browser, shot) -> None:
    base, app = server
    ce, toks = _event(app)
    # The director watches the rankings on a laptop.
    desk_ctx = browser.new_context(**LAPTOP)
    desk = desk_ctx.new_page()
    _login(desk, base)
    desk.goto(f"{base}/events/{ce}/desk/")
    assert "No results yet." in desk.inner_text("#rankings")

    phone_ctx = browser.new_context(**PHONE)
    phone = phone_ctx.new_page()
    phone.goto(f"{base}/t/{toks[1]}")
    assert "NS pair 1 v EW pair 1, boards 1, 2" in phone.inner_text("#sitting")
    shot(phone, "04-phone-entry")
    # Board 1: the response is lost on the way back (the server did record it) ...
    lost = {"n": 0}

    def flaky(route) -> None:
        lost["n"] += 1
        if lost["n"] == 1:
            route.fetch()          # the server gets the result ...
            route.abort("connectionreset")  # ... but the phone never hears back
        else:
            route.continue_()
    phone.route("**/enter*", flaky)
    _fill(phone, 1, "4", "S", "N", "10")
    phone.click("#send")
    expect(phone).to_have_url(re.compile("^chrome-error://"))
    phone.reload()  # the player taps reload: the browser sends the same form again
    assert "already recorded from this form; nothing was added" in phone.inner_text("main")
    phone.unroute("**/enter*")
    # Board 2, then the round is complete.
    _fill(phone, 2, "3", "NT", "E", "8", dbl="X")
    with phone.expect_navigation():  # (a loaded machine: the checks wait for the new page)
        phone.click("#send")
    assert "Board 2 recorded: 3NTX by E, 8 tricks, NS +100." in phone.inner_text("main")
    assert phone.is_visible("#round-complete")
    shot(phone, "05-phone-round-complete")

    # A second phone at the same table enters board 2 as well: a clear conflict.
    other = browser.new_context(**PHONE).new_page()
    other.goto(f"{base}/t/{toks[1]}?round=1")
    assert other.is_visible("#round-complete")
    # It types the board in a stale page opened before the first phone finished:
    other.goto(f"{base}/t/{toks[2]}")  # a table still to enter, to get a form ...
    other.evaluate(f"document.querySelector('#entry').action = '/t/{toks[1]}/enter?round=1'")
    # ... with table 1's form token (a table's token opens only its own forms), read from
    # its page of the current round (round 1 is done: its page has no form any more).
    own = phone_ctx.new_page()
    own.goto(f"{base}/t/{toks[1]}")
    mine = own.locator("input[name=csrf_token]").first.get_attribute("value")
    own.close()
    other.evaluate(f"document.querySelector('#entry input[name=csrf_token]').value = '{mine}'")
    other.evaluate("(() => { const s = document.querySelector('#board');"
                   " s.add(new Option('2', '2')); s.value = '2'; })()")
    _fill(other, 2, "2", "H", "S", "8")
    with other.expect_navigation():
        other.click("#send")
    text = other.inner_text("main")
    assert "Conflict: board 2 was already entered at this table by table A1" in text
    shot(other, "06-phone-conflict")

    # Table 2 and 3 enter too; the desk's rankings update by themselves.
    for table, board in ((2, 3), (3, 5)):
        p = phone_ctx.new_page()
        p.goto(f"{base}/t/{toks[table]}")
        _fill(p, board, "2", "S", "S", "9")
        with p.expect_navigation():
            p.click("#send")
        assert "recorded" in p.inner_text("main").lower() or p.is_visible("#done")
    expect(desk.locator("table.rank tr").nth(1)).to_be_visible(timeout=15_000)
    desk.reload()
    ranks = desk.inner_text("#rankings")
    # Each board has one result so far: nothing to compare, and the desk says so.
    assert "A1" in ranks and "No comparison yet" in ranks and "0.00%" not in ranks
    assert "4 results" in ranks
    shot(desk, "07-desk-rankings")
    # After the entry the phone may see the traveller and the hand record.
    with phone.expect_navigation():
        phone.click("#done li >> text=traveller >> nth=0")
    assert phone.is_visible("#traveller") and phone.is_visible("#handrecord")
    shot(phone, "08-phone-traveller")
    desk_ctx.close()
    phone_ctx.close()


@pytest.mark.parametrize("players", [["Ann", "Bob", "Cy", "Di"]])
def test_a_bugger_bridge_evening_of_several_rounds(server, browser, shot, players) -> None:
    base, _app = server
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(base + "/pads/")
    page.select_option("#pad-kind", "bugger")
    page.fill("input[name=name]", "Bugger at Di's")
    page.fill("#players", "\n".join(players))
    with page.expect_navigation():
        page.click("button:has-text('Start the pad')")
    # 4 players: rounds 1, 2, 3 ... (m = 8). Play three rounds.
    plan = [  # (turned card, bids in order, tricks)
        ("HA", {"Bob": 1, "Cy": 0, "Di": 1, "Ann": 0}, {"Ann": 0, "Bob": 1, "Cy": 0, "Di": 0}),
        ("SK", {"Cy": 1, "Di": 0, "Ann": 1, "Bob": 1}, {"Ann": 1, "Bob": 0, "Cy": 1, "Di": 0}),
        ("D2", {"Di": 2, "Ann": 0, "Bob": 1, "Cy": 1}, {"Ann": 0, "Bob": 1, "Cy": 0, "Di": 2}),
    ]
    expected = {p: 0 for p in players}
    points = {0: 10, 1: 11, 2: 13}
    for n, (card, bids, tricks) in enumerate(plan, 1):
        assert f"Round {n}:" in page.inner_text("#round")
        page.fill("#turned", card)
        with page.expect_navigation():  # each step of the pad is a form POST
            page.click("#start-round")
        for p, b in bids.items():
            page.select_option(f"select[data-player='{p}']", str(b))
        with page.expect_navigation():
            page.click("#send-bids")
        total = sum(bids.values())
        word = "even" if total == n else ("over-bid" if total > n else "under-bid")
        assert f"the round is {word}" in page.inner_text("#announcement")
        for p, t in tricks.items():
            page.select_option(f"select[data-player='{p}']", str(t))
        if n == 2:
            shot(page, "09-bugger-tricks")
        with page.expect_navigation():
            page.click("#send-tricks")
        for p in players:
            if bids[p] == tricks[p]:
                expected[p] += points[bids[p]]
        for p in players:
            assert page.inner_text(f"[data-total='{p}']") == str(expected[p])
    # A reload (or another phone) shows the same sheet: nothing is lost.
    page.reload()
    assert page.locator("#sheet tr").count() == 1 + 3 + 1
    assert "Round 4:" in page.inner_text("#round")
    shot(page, "10-bugger-after-three-rounds")
    ctx.close()
