"""Hand records, curtain cards and deal sheets: checked through the PDFs' own text and pixels."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dealer import Board, Deal, DealSet, Seat, Strain, Suit
from dealer.cli import main
from dealer.curtains import curtain_cards_pdf, deal_sheet_rows, deal_sheets_pdf
from dealer.dd import DDCache, DDTable, par
from dealer.errors import BoardwrightError
from dealer.records import holding_text, records_html, records_pdf

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                reason="poppler-utils (pdftotext) is not installed")
_ORDER = (Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS, Strain.NOTRUMP)


@pytest.fixture(scope="module")
def boards(corpus: Path) -> tuple[DealSet, dict[int, tuple[DDTable, object]]]:
    """Eight list100 deals as boards 1-8, analysed from the list's own tables (no solving)."""
    deals, tables = [], []
    for line in (corpus / "dds" / "list100.txt").read_text().splitlines():
        w = shlex.split(line)
        if w and w[0] == "PBN":
            deals.append(Deal.from_pbn(w[5]))
        elif w and w[0] == "TABLE":
            cells = [0] * 20
            for k, n in enumerate(int(x) for x in w[1:]):
                cells[int(_ORDER[k // 4]) * 4 + k % 4] = n
            tables.append(DDTable(tuple(cells)))
        if len(tables) == 8:
            break
    ds = DealSet([Board(n + 1, d) for n, d in enumerate(deals[:8])], meta={"Event": "Test Pairs"})
    analysis = {b.number: (t, par(t, b.vulnerability, b.dealer))
                for b, t in zip(ds, tables, strict=True)}
    return ds, analysis


def _text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout


def _squash(text: str) -> str:
    """Text without whitespace: pdftotext keeps or drops the spaces between ranks by size."""
    return "".join(text.split())


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))


def _red_pixels(pdf: Path, tmp: Path) -> int:
    """Render page 1 (pdftoppm) and count clearly red pixels: the ♥ and ♦ symbols."""
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", str(pdf), str(tmp / "p")],
                   check=True)
    ppm = next(tmp.glob("p*.ppm")).read_bytes()
    parts = ppm.split(maxsplit=4)  # P6 width height maxval data
    w, h = int(parts[1]), int(parts[2])
    img = np.frombuffer(parts[4][: w * h * 3], dtype=np.uint8).reshape(h, w, 3).astype(int)
    return int(((img[..., 0] > 150) & (img[..., 1] < 90) & (img[..., 2] < 90)).sum())


def test_hand_records_pdf_text(boards, tmp_path) -> None:
    ds, analysis = boards
    pdf = tmp_path / "records.pdf"
    pages = records_pdf(ds, pdf, analysis=analysis, club="Maastricht BC", event="Test Pairs",
                        date="2026.11.22")
    assert pages == 2 == _pages(pdf)  # four boards a page
    text = _text(pdf)
    assert "Maastricht BC" in text and "Test Pairs" in text and "2026.11.22" in text
    for n in range(1, 9):
        assert f"Board {n}" in text
    assert "Dealer North" in text and "Dealer East" in text and "Vul None" in text
    assert "Vul N-S" in text and "Vul All" in text and "Vul Both" not in text
    for sym in "♠♥♦♣":
        assert sym in text
    b1 = ds.board(1).deal
    # every hand of board 1, suit by suit, and its HCP
    for seat in Seat:
        for suit in Suit:
            assert _squash(suit.symbol + holding_text(b1[seat], suit)) in _squash(text)
    page1 = text.split("\f")[0]
    for seat in Seat:
        assert str(b1[seat].hcp) in page1
    # par and the makeable grid (board 1: EW make 2♠, par NS -110)
    # par as a contract and a score, not DDS's notation
    assert "2♠ by EW" in text and "NS -110" in text and "EW 2♠=" not in text
    assert "NT" in text and "Makeable contracts (double dummy)" in text
    assert _red_pixels(pdf, tmp_path) > 20


def test_hand_records_html_fragment(boards) -> None:
    ds, analysis = boards
    html = records_html(ds, analysis=analysis, club="Club <&>")
    assert "<html" not in html and "<body" not in html
    assert html.count('class="bw-board"') == 8 and 'id="board-3"' in html
    assert '<span class="bw-red">♥</span>' in html
    assert "Club &lt;&amp;&gt;" in html
    assert "Par: 2♠ by EW, NS -110" in html and "<caption>Makeable contracts" in html
    assert html.count('class="bw-dd"') == 8


def test_curtain_cards_pdf(boards, tmp_path) -> None:
    ds, _ = boards
    pdf = tmp_path / "curtains.pdf"
    assert curtain_cards_pdf(ds, pdf) == 4 == _pages(pdf)  # 32 cards, eight a page
    text = _text(pdf)
    for n in range(1, 9):
        assert text.count(f"Board {n}") == 4
    for name in ("North", "East", "South", "West"):
        assert text.count(name) >= 8
    assert "Dealer North" in text and "Vul None" in text
    d = ds.board(2).deal
    for seat in Seat:
        for suit in Suit:
            assert _squash(suit.symbol + holding_text(d[seat], suit)) in _squash(text)
        assert f"{d[seat].hcp} HCP" in text
    assert _red_pixels(pdf, tmp_path) > 20


def test_deal_sheets_pdf(boards, tmp_path) -> None:
    ds, _ = boards
    rows = deal_sheet_rows(ds.board(1))
    assert [r[0] for r in rows] == ["♠", "♥", "♦", "♣"]
    d = ds.board(1).deal
    # ♠A is first in a sorted deck: the sheet sends it to its owner
    assert rows[0][1][0] == d.owner(51).letter
    assert sum(row.count("N") for _, row in rows) == 13
    pdf = tmp_path / "sheets.pdf"
    assert deal_sheets_pdf(ds, pdf) == 1
    text = _text(pdf)
    assert "Board 8" in text and "sorted deck" in text
    assert " ".join(rows[0][1]) in " ".join(text.split())


def test_sealed_or_incomplete_sets_are_refused(boards, tmp_path) -> None:
    ds, _ = boards
    sealed = DealSet(list(ds), sealed=True)
    with pytest.raises(BoardwrightError, match="sealed"):
        records_pdf(sealed, tmp_path / "x.pdf")
    with pytest.raises(BoardwrightError, match="sealed"):
        curtain_cards_pdf(sealed, tmp_path / "x.pdf")
    partial = DealSet([Board(1, Deal.from_pbn("N:AKQ... - - -", partial=True))])
    with pytest.raises(BoardwrightError, match="board 1 has no full deal"):
        curtain_cards_pdf(partial, tmp_path / "x.pdf")


def test_cli_records_and_curtains(boards, tmp_path, monkeypatch, capsys) -> None:
    from dealer import formats

    ds, analysis = boards
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    # the instance cache already holds the tables, so the CLI solves nothing
    DDCache().put_many(
        {b.deal: analysis[b.number][0] for b in ds})
    src = tmp_path / "set.pbn"
    formats.write(ds, src)
    pdf, html = tmp_path / "r.pdf", tmp_path / "r.html"
    assert main(["records", str(src), "-o", str(pdf), "--club", "CLI BC", "--html", str(html),
                 "--paper", "letter"]) == 0
    text = _text(pdf)
    assert "CLI BC" in text and "2♠ by EW" in text
    assert "bw-board" in html.read_text()
    assert main(["curtains", str(src), "-o", str(tmp_path / "c.pdf"),
                 "--sheets", str(tmp_path / "s.pdf")]) == 0
    assert _pages(tmp_path / "c.pdf") == 4 and _pages(tmp_path / "s.pdf") == 1
    capsys.readouterr()
    assert main(["records", str(tmp_path / "missing.pbn"), "-o", str(pdf)]) == 2
    assert "Traceback" not in capsys.readouterr().err


# ---------------------------------------------------------------- issue 16, finding 9
def _words(pdf: Path) -> list[tuple[float, float, float, float, str]]:
    """Every word on page 1 with its box (points, top-left origin), from pdftotext -bbox."""
    import re

    out = subprocess.run(["pdftotext", "-bbox", "-f", "1", "-l", "1", str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    return [(float(a), float(b), float(c), float(d), html_unescape(w)) for a, b, c, d, w in
            re.findall(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<',
                       out)]


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_long_suits_stay_inside_the_frame_and_clear_of_the_hcp_box(tmp_path) -> None:
    # East and North hold nine spades, West seven hearts: the longest lines a board has.
    d = Deal.from_pbn("N:AKQJT9876.2.32.2 5432.AKQ.A54.A43 .JT98765.KQJ.KQ5 .43.T9876.JT9876")
    d2 = Deal.from_pbn("N:.43.T9876.JT9876 AKQJT9876.2.32.2 5432.AKQ.A54.A43 .JT98765.KQJ.KQ5")
    pdf = tmp_path / "long.pdf"
    records_pdf(DealSet([Board(1, d), Board(2, d2)]), pdf)
    words = _words(pdf)
    width = 595.28
    margin, cell_w = 28.0, (width - 56) / 2
    hcp = [w for w in words if w[4] == "HCP"]
    assert len(hcp) == 2
    for x0, _, x1, _, text in words:
        if text in ("page", "1", "Hand", "records"):
            continue
        # inside one of the two columns' frames (3 pt inside each cell)
        assert (margin + 3 <= x0 and x1 <= margin + cell_w - 3) or \
            (margin + cell_w + 3 <= x0 and x1 <= width - margin - 3), text
    for hx0, hy0, hx1, hy1, _ in hcp:
        box = (hx0 + (hx1 - hx0) / 2 - 25, hx0 + (hx1 - hx0) / 2 + 25)  # the 50-pt compass
        for x0, y0, x1, y1, text in words:
            if abs((y0 + y1) / 2 - (hy0 + hy1) / 2) < 20 and text not in ("HCP",) \
                    and not text.isdigit():
                assert x1 <= box[0] + 1 or x0 >= box[1] - 1, (text, x0, x1, box)


def test_a_long_title_is_shrunk_not_cut(tmp_path) -> None:
    title = "The Very Long Name of a Bridge Club That Goes On and On " * 2 + "END"
    pdf = tmp_path / "t.pdf"
    records_pdf(DealSet([Board(1, Deal.from_pbn(
        "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"))]), pdf,
        club=title, event="Tuesday " * 12 + "FIN")
    words = _words(pdf)
    assert any(w[4] == "END" and w[2] <= 595.28 - 28 for w in words)
    assert any(w[4] == "FIN" and w[2] <= 595.28 - 28 for w in words)


def test_cjk_names_are_drawn_with_the_fallback_font(tmp_path) -> None:
    pdf = tmp_path / "cjk.pdf"
    records_pdf(DealSet([Board(1, Deal.from_pbn(
        "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"))]), pdf,
        club="上海桥牌俱乐部 Club", event="東京 한국어 ひらがな")
    text = _text(pdf)
    for word in ("上海桥牌俱乐部", "Club", "東京", "한국어", "ひらがな"):
        assert word in text, word
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout
    assert "WenQuanYi" in fonts or "wqy" in fonts.lower()


def test_reader_warnings_are_plain_lines(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    src = tmp_path / "odd.pbn"
    src.write_text('[Board "1"]\n[Frobnicate "x"]\n'
                   '[Deal "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"]\n')
    assert main(["curtains", str(src), "-o", str(tmp_path / "c.pdf")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("boardwright: warning: ") and "unknown tag 'Frobnicate'" in err
    assert ".py:" not in err and "FormatWarning" not in err
