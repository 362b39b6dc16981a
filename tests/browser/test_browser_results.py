"""Results for the players in real headless Chromium: the director publishes through the
confirmation page, a phone at a table follows its link to the public page (no log-in,
no sideways scrolling, no serious axe-core finding), the page prints on A4, and the
downloaded club-website file renders on its own from disk with nothing fetched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from web_helpers import browser_login as _login

from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.generate import random_dealset
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture(scope="module")
def night(server):
    """A 3-table Mitchell, every board of its three rounds played."""
    base, app = server
    from webpanel.db import store
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="results night")
        ce = rs.create_club_event(store(), "Thursday pairs", date="2026.11.26", tables=3,
                                  deal_set_id=set_id)
        toks = {t.table_no: t.token for t in rs.tokens(store(), ce)}
        m = rs.movement(store(), ce)
        for rnd in (1, 2, 3):
            for s in m.round(rnd):
                for i, b in enumerate(s.boards):
                    e = rs.Entry(b, ("4S", "3NT", "2H")[(s.table + i) % 3], "NESW"[s.table],
                                 7 + s.table + i, lead="SA")
                    out = rs.submit(store(), ce, "A", s.table, rnd, e,
                                    submission_id=f"r{rnd}-{s.table}-{b}",
                                    who=f"table A{s.table}", confirm=True)
                    assert out.status == "recorded", out
        ev = score_matchpoints(rs.as_results(rs.results(store(), ce)),
                               MatchpointOptions(numbering="by_line"))
    return base, ce, toks, ev


def test_publish_then_a_phone_reads_the_results(browser, night, shot, tmp_path: Path) -> None:
    base, ce, toks, ev = night
    phone = browser.new_context(bypass_csp=True, **PHONE)
    table = phone.new_page()
    table.goto(f"{base}/t/{toks[2]}")
    assert table.locator("#results-link").count() == 0  # not before publication
    assert table.request.get(f"{base}/results/{ce}").status == 404

    laptop = browser.new_context(**LAPTOP)
    desk = laptop.new_page()
    _login(desk, base)
    desk.goto(f"{base}/events/{ce}/desk/")
    desk.click("#publish-link")
    desk.wait_for_url(f"{base}/events/{ce}/publish")
    assert "18 results entered of 18" in desk.inner_text("#confirm")
    shot(desk, "results-confirm")
    with desk.expect_navigation():  # without the box: refused, nothing published
        desk.click("#publish button")
    assert "Tick the box" in desk.inner_text("main")
    assert table.request.get(f"{base}/results/{ce}").status == 404
    desk.check("#publish input[name=confirm]")
    with desk.expect_navigation():
        desk.click("#publish button")
    address = desk.inner_text("#public-address")
    assert address.endswith(f"/results/{ce}")

    table.goto(f"{base}/t/{toks[2]}")
    table.click("#results-link a")
    table.wait_for_url(f"{base}/results/{ce}")
    # The ranking as the core scores it, read off the phone's screen.
    shown = {r.split("\t")[1]: r.split("\t")[2] for r in
             table.locator("#ranking tbody tr").all_inner_texts()}
    assert shown == {str(k): f"{t.percent:.2f}" for k, t in ev.totals.items()}
    assert table.locator(".bw-dd").count() == 6 and table.locator(".scorecard").count() == 6
    # A phone never scrolls the page sideways; wide tables scroll in their own box.
    width = table.evaluate("document.documentElement.scrollWidth")
    wide = table.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.scroll'))
        .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + e.getBoundingClientRect().right)""")
    assert width <= 390, (width, wide)
    if AXE.is_file():
        table.add_script_tag(path=str(AXE))
        found = json.loads(table.evaluate(
            "async () => JSON.stringify((await axe.run(document)).violations)"))
        bad = [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]
        assert not bad, bad
    shot(table, "results-public-phone")
    # A score card from the ranking's link.
    first = next(iter(ev.totals))
    card = "#card-" + "-".join(str(first).split())
    table.click(f"#ranking a:text-is('{first}')")
    expect(table).to_have_url(re.compile(re.escape(card) + "$"))  # the jump within the page
    assert table.evaluate("location.hash") == card

    # Printing: A4, the buttons and the contents line left out.
    table.emulate_media(media="print")
    assert table.locator("#links").is_hidden() and table.locator("nav.toc").is_hidden()
    pdf = table.pdf(prefer_css_page_size=True)
    box = re.search(rb"/MediaBox \[\s*0 0 ([0-9.]+) ([0-9.]+)", pdf)
    assert box and (round(float(box.group(1))), round(float(box.group(2)))) == (595, 842)
    (tmp_path / "printed.pdf").write_bytes(pdf)

    # The club-website file: downloaded, opened from disk, rendered with nothing fetched.
    with desk.expect_download() as dl:
        desk.click("text=Download the page for the club's website")
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    assert saved.name.startswith("results-thursday-pairs")
    offline = browser.new_context(java_script_enabled=False, **PHONE)
    fetched: list[str] = []
    offline.route(re.compile(r"^https?://"), lambda route: (fetched.append(route.request.url),
                                                           route.abort()))
    page = offline.new_page()
    page.goto(saved.as_uri())
    assert page.locator("#ranking tbody tr").count() == 6
    collapse = page.evaluate(
        "getComputedStyle(document.querySelector('table.grid')).borderCollapse")
    assert collapse == "collapse"  # the inline styles apply
    assert not fetched, fetched
    shot(page, "results-export-file")
    for ctx in (phone, laptop, offline):
        ctx.close()
