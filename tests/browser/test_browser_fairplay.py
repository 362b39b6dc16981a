"""Fair play in real headless Chromium (issue 13, finding 1): a phone at table 1 tries the
exact sequence that used to show it a board's four hands before it played the board.

Before the fix: the round menu offered every round; the phone picked round 2,
entered a dummy result for board 3 (a board it had not played), opened its
"traveller", and saw the four hands, the double-dummy table and par, and the
other tables' results; then it "changed" the dummy result. The same worked for
the board on the table now. Here every step is refused, and no page the phone
ever sees holds a hand of a board before table 1 has finished its round.
"""

from __future__ import annotations

import pytest

from dealer.board import Board
from dealer.generate import random_dealset
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
SECRET = "6NTXX"  # table 2's result on board 3: it must never reach table 1 early


def _spaced(suit: str) -> str:
    return " ".join("10" if r == "T" else r for r in suit)


def _hands(b: Board) -> list[str]:
    """Each hand of ``b`` as the hand record writes it (spades and hearts, ranks spaced)."""
    out = []
    for hand in b.deal.to_pbn().split(":", 1)[1].split():
        spades, hearts, *_ = hand.split(".")
        out.append(f'♠</span> {_spaced(spades)}<br><span class="bw-red">♥</span> '
                   f"{_spaced(hearts)}<br>")
    return out


def _shows(html: str, b: Board) -> list[str]:
    """What of board ``b``'s hand record or analysis a page's HTML holds."""
    found = [h for h in _hands(b) if h in html]
    found += [m for m in ('id="handrecord"', "bw-diagram", "bw-dd", "bw-par",
                          f'id="board-{b.number}"') if m in html]
    return found


def test_a_phone_at_table_1_never_sees_a_board_before_it_has_played_it(server, browser,
                                                                        shot) -> None:
    base, app = server
    from webpanel.db import store
    with app.app_context():
        ds = random_dealset(range(1, 7))
        set_id = store().save(ds, name="fair play")
        ce_id = rs.create_club_event(store(), "Fair play night", tables=3, deal_set_id=set_id)
        toks = {t.table_no: t.token for t in rs.tokens(store(), ce_id)}
        # Table 2 plays board 3 in round 1 (table 1 plays it in round 2).
        out = rs.submit(store(), ce_id, "A", 2, 1, rs.Entry(3, SECRET, "S", 12),
                        submission_id="t2b3", who="table A2")
        assert out.status == "recorded"
    boards = {b.number: b for b in ds.boards}
    seen: list[str] = []  # every page the phone was shown, for the final check

    ctx = browser.new_context(**PHONE)
    phone = ctx.new_page()

    def look(url: str) -> str:
        phone.goto(base + url)
        html = phone.content()
        seen.append(html)
        return html

    def no_hand_yet(html: str, *numbers: int) -> None:
        for n in numbers:
            assert not _shows(html, boards[n]), (n, _shows(html, boards[n]))
        assert SECRET not in html and "6NT" not in html

    html = look(f"/t/{toks[1]}")
    # 1. The round menu offers round 1 only: there is no round 2 to pick.
    options = phone.eval_on_selector_all("select[name=round] option", "os => os.map(o => o.value)")
    assert options == ["1"]
    with pytest.raises(pw.Error):
        phone.select_option("select[name=round]", "2", timeout=1_000)
    # ... and round 2 typed into the address shows round 1, saying why.
    html = look(f"/t/{toks[1]}?round=2")
    assert "Round 1:" in phone.inner_text("#sitting")
    assert "Round 2 is not open to this table" in phone.inner_text("#round-note")
    no_hand_yet(html, 1, 2, 3, 4)
    shot(phone, "11-fairplay-round-2-refused")

    # 2. A dummy result for board 3, forced into the form as a cheat would, posted as round 2.
    phone.evaluate("(() => { const s = document.querySelector('#board');"
                   " s.add(new Option('3', '3')); s.value = '3';"
                   " document.querySelector('#entry').action += '&round=2'; })()")
    phone.click(".chips label:has(input[name=level][value='1']) span")
    phone.click(".chips label:has(input[name=strain][value='C']) span")
    phone.click(".chips label:has(input[name=declarer][value='N']) span")
    phone.select_option("#tricks", "7")
    with phone.expect_navigation():  # the refusal is the page the POST answers with
        phone.click("#send")
    text = phone.inner_text("main")
    assert "board 3 is played in round 2; this table is in round 1" in text
    seen.append(phone.content())

    # 3. Its "traveller": not shown, neither for board 3 nor the board on the table now.
    for n in (3, 1, 2):
        html = look(f"/t/{toks[1]}/board/{n}")
        assert "Not yet" in phone.inner_text("main")
        no_hand_yet(html, n)
    shot(phone, "12-fairplay-traveller-refused")

    # 4. A dummy result on the board now on the table (board 1): recorded, but no
    # traveller until the table has finished the round.
    look(f"/t/{toks[1]}")
    phone.select_option("#board", "1")
    phone.click(".chips label:has(input[name=level][value='1']) span")
    phone.click(".chips label:has(input[name=strain][value='C']) span")
    phone.click(".chips label:has(input[name=declarer][value='N']) span")
    phone.select_option("#tricks", "7")
    with phone.expect_navigation():
        phone.click("#send")
    assert "Board 1 recorded" in phone.inner_text("main")
    assert phone.locator("#done li >> text=traveller").count() == 0
    seen.append(phone.content())
    html = look(f"/t/{toks[1]}/board/1")
    assert "every board of round 1" in phone.inner_text("main")
    no_hand_yet(html, 1, 3)
    for html in seen:  # nothing so far ever held a hand or table 2's result
        no_hand_yet(html, 1, 2, 3, 4, 5, 6)

    # 5. Round 1 finished: now board 1 may be seen (the default: after the round) ...
    look(f"/t/{toks[1]}")
    phone.select_option("#board", "2")
    phone.click(".chips label:has(input[name=level][value='2']) span")
    phone.click(".chips label:has(input[name=strain][value='H']) span")
    phone.click(".chips label:has(input[name=declarer][value='S']) span")
    phone.select_option("#tricks", "8")
    with phone.expect_navigation():  # (a loaded machine: the check waits for the new page)
        phone.click("#send")
    assert phone.is_visible("#round-complete")
    with phone.expect_navigation():
        phone.click("#done li >> text=traveller >> nth=0")
    assert phone.is_visible("#handrecord") and _shows(phone.content(), boards[1])
    # ... but board 3 still not, nor table 2's result on it.
    html = look(f"/t/{toks[1]}/board/3")
    no_hand_yet(html, 3)

    # 6. "Changing" the dummy result of board 1 later: the round is over for this table.
    look(f"/t/{toks[1]}?round=1")
    assert phone.locator("details.fix").count() == 0
    form_token = look(f"/t/{toks[1]}") and phone.locator(
        "input[name=csrf_token]").first.get_attribute("value")
    status = phone.evaluate(
        """async ([url, tok]) => {
             const body = new URLSearchParams({csrf_token: tok, submission_id: 'cheat',
               version: '1', contract: '3NT', declarer: 'S', tricks: '9'});
             return (await fetch(url, {method: 'POST', body})).status; }""",
        [f"/t/{toks[1]}/fix/1", form_token])
    assert status == 403
    shot(phone, "13-fairplay-after-round-1")
    ctx.close()
    with app.app_context():
        mine = rs.table_results(store(), ce_id, "A", 1)
        assert sorted(mine) == [1, 2] and mine[1].contract == "1C" and mine[1].version == 1
