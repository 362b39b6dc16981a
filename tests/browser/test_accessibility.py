"""Accessibility in real headless Chromium, judged by axe-core (Deque's engine, from npm).

axe-core is installed by ``make bootstrap`` (scripts/post-install.sh) into
``.venv/axe``; it is injected into each page and run there. A page passes when
axe reports no violation of impact "serious" or "critical". The pages: a
phone's table page (entry and, after the round, a board), the director's desk,
the events page, the results page, and the public results page a player reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from web_helpers import browser_login as _login

from dealer.generate import random_dealset
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
SERIOUS = ("serious", "critical")


def axe(page) -> list[dict]:
    """axe-core's violations on ``page`` (the context bypasses CSP to inject it)."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => JSON.stringify(await axe.run(document))")
    return json.loads(result)["violations"]


def serious(violations: list[dict]) -> list[str]:
    return [f"{v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(n["target"][0] if isinstance(n["target"][0], str)
                        else str(n["target"][0]) for n in v["nodes"][:3])
            for v in violations if v["impact"] in SERIOUS]


@pytest.fixture(scope="module")
def night(server):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (make bootstrap installs it)")
    base, app = server
    from webpanel.db import store
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="accessibility")
        ce = rs.create_club_event(store(), "Accessible pairs", tables=3, deal_set_id=set_id)
        toks = {t.table_no: t.token for t in rs.tokens(store(), ce)}
        m = rs.movement(store(), ce)
        for table in (1, 2, 3):
            for b in m.at(table, 1).boards:
                out = rs.submit(store(), ce, "A", table, 1, rs.Entry(b, "4S", "N", 10),
                                submission_id=f"a{table}-{b}", who=f"table A{table}")
                assert out.status == "recorded", out
    return base, ce, toks, m


def test_the_axe_check_is_live(browser) -> None:
    """The check can fail: a page with an unlabelled input and an image with no alt."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed")
    ctx = browser.new_context(bypass_csp=True)
    page = ctx.new_page()
    page.set_content('<html><body><form><input type="text"></form>'
                     '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></body></html>')
    found = serious(axe(page))
    ctx.close()
    assert any(f.startswith("image-alt") for f in found), found
    assert any(f.startswith("label") for f in found), found


def test_the_table_page_on_a_phone_has_no_serious_accessibility_finding(browser, night,
                                                                        shot) -> None:
    base, ce, toks, m = night
    ctx = browser.new_context(bypass_csp=True, **PHONE)
    page = ctx.new_page()
    found = []
    page.goto(f"{base}/t/{toks[1]}")
    found += serious(axe(page))
    shot(page, "axe-table-entry")
    board = m.at(1, 1).boards[0]
    page.goto(f"{base}/t/{toks[1]}/board/{board}")
    found += serious(axe(page))
    ctx.close()
    assert not found, "\n".join(found)


def test_the_desk_and_event_pages_have_no_serious_accessibility_finding(browser, night,
                                                                        shot) -> None:
    base, ce, toks, m = night
    ctx = browser.new_context(bypass_csp=True, **LAPTOP)
    page = ctx.new_page()
    _login(page, base)
    found = []
    for url in ("/events/", f"/events/{ce}", f"/events/{ce}/desk/", f"/events/{ce}/results"):
        page.goto(base + url)
        found += [f"{url}: {f}" for f in serious(axe(page))]
    shot(page, "axe-results")
    ctx.close()
    assert not found, "\n".join(found)


def test_the_public_results_page_on_a_phone_has_no_serious_accessibility_finding(
        browser, server, night, shot) -> None:
    base, ce, toks, m = night
    _, app = server
    from webpanel.db import store
    with app.app_context():
        rs.publish(store(), ce, who="td")
    ctx = browser.new_context(bypass_csp=True, **PHONE)
    page = ctx.new_page()
    found = []
    for url in ("/results/", f"/results/{ce}"):
        resp = page.goto(base + url)
        assert resp is not None and resp.status == 200, url
        found += [f"{url}: {f}" for f in serious(axe(page))]
    shot(page, "axe-public-results")
    ctx.close()
    assert not found, "\n".join(found)
