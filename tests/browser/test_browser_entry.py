"""Entry and score pads on a phone, in real headless Chromium (issue 14, parts 3 and 7).

A 390×844 phone: the table's *Record* button is on the screen without scrolling; the
pads page lists the pads started on this device (from the browser's localStorage),
in a browser context that refuses cookies.
"""

from __future__ import annotations

import pytest

pw = pytest.importorskip("playwright.sync_api")

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
    assert phone.locator("#my-pads li a").all_inner_texts() == ["Club Chicago"]
    phone.goto(base + started["Friday rubber"])
    assert "Friday rubber" in phone.content()
    ctx.close()
