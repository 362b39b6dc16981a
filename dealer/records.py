"""Hand records: a PDF (reportlab) with four boards a page, and an HTML fragment.

Each board shows its number, dealer and vulnerability, the four hands around a
compass with suit symbols (hearts and diamonds in red), each hand's HCP, the
5×4 grid of makeable contracts (the highest level each declarer makes in each
strain, ``–`` for none) and the par (DDS ``DealerPar``, North-South's view).

The suit symbols need a TrueType font that has them; DejaVu Sans (Debian
``fonts-dejavu-core``) is used, found in the usual places or at
``$BOARDWRIGHT_FONT``.

>>> from dealer import Board, Deal, DealSet
>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> "Board 1" in records_html(DealSet([Board(1, d)]))
True
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

from dealer.board import Board, DealSet
from dealer.cards import SUITS_DESCENDING, Strain, Suit
from dealer.errors import BoardwrightError
from dealer.hand import Hand
from dealer.seats import Seat

Analysis = Mapping[int, tuple[object, object]]  # board number -> (DDTable, Par)

_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
              "/usr/local/share/fonts", "/Library/Fonts")
FONT, FONT_BOLD = "BW-Sans", "BW-Sans-Bold"
#: The fallback for text DejaVu Sans cannot show (Chinese, Japanese, Korean names):
#: WenQuanYi Zen Hei, Debian's fonts-wqy-zenhei, whose TrueType outlines reportlab can
#: embed (Noto CJK's are CFF, which it cannot) and which covers Han, kana and Hangul.
FONT_CJK = "BW-CJK"
_CJK_FILES = ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
              "/usr/share/fonts/truetype/wqy-zenhei/wqy-zenhei.ttc")
_cjk_tried = False
RED = (0.80, 0.0, 0.0)
# "All", as the diagrams, curtain cards and PBN say it (not "Both").
_VUL_TEXT = {"None": "None", "NS": "N-S", "EW": "E-W", "All": "All"}
GRID_CAPTION = "Makeable contracts (double dummy)"
_GRID_STRAINS = (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS)
_GRID_SEATS = (Seat.NORTH, Seat.SOUTH, Seat.EAST, Seat.WEST)
HAND_SIZE = 10.5


def register_fonts() -> None:
    """Register DejaVu Sans (regular and bold) with reportlab, once."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    candidates = []
    if os.environ.get("BOARDWRIGHT_FONT"):
        base = Path(os.environ["BOARDWRIGHT_FONT"])
        candidates.append((base, base.with_name(base.stem + "-Bold" + base.suffix)))
    candidates += [(Path(d) / "DejaVuSans.ttf", Path(d) / "DejaVuSans-Bold.ttf") for d in _FONT_DIRS]
    for regular, bold in candidates:
        if regular.is_file():
            pdfmetrics.registerFont(TTFont(FONT, str(regular)))
            pdfmetrics.registerFont(TTFont(FONT_BOLD, str(bold if bold.is_file() else regular)))
            return
    raise BoardwrightError("no font with suit symbols found: install Debian's fonts-dejavu-core "
                           "or set BOARDWRIGHT_FONT to a DejaVuSans.ttf")


def _runs(text: str, font: str) -> list[tuple[str, str]]:
    """``text`` cut into runs of one font each: ``font`` where it has the glyph, else the
    CJK fallback (reportlab draws a missing glyph as an empty box and has no fallback)."""
    from reportlab.pdfbase import pdfmetrics

    if text.isascii():
        return [(text, font)]
    has = pdfmetrics.getFont(font).face.charToGlyph
    if all(ch.isspace() or ord(ch) in has for ch in text) or not _cjk_font():
        return [(text, font)]
    runs: list[tuple[str, str]] = []
    for ch in text:
        face = font if ch.isspace() or ord(ch) in has else FONT_CJK
        if runs and runs[-1][1] == face:
            runs[-1] = (runs[-1][0] + ch, face)
        else:
            runs.append((ch, face))
    return runs


def _cjk_font() -> bool:
    """Register the CJK fallback the first time a text needs it (the file is 17 MB)."""
    global _cjk_tried
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if FONT_CJK in pdfmetrics.getRegisteredFontNames():
        return True
    if _cjk_tried:
        return False
    _cjk_tried = True
    for path in (os.environ.get("BOARDWRIGHT_CJK_FONT", ""), *_CJK_FILES):
        if path and Path(path).is_file():
            pdfmetrics.registerFont(TTFont(FONT_CJK, path, subfontIndex=0))
            return True
    return False


def font_for(text: str, font: str = FONT) -> str:
    """The font the first character of ``text`` that ``font`` cannot show needs, else ``font``."""
    return next((face for _, face in _runs(text, font) if face != font), font)


def text_width(text: str, size: float, font: str = FONT) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return sum(stringWidth(run, face, size) for run, face in _runs(text, font))


def draw_fit(c: object, x: float, y: float, text: str, size: float, max_width: float, *,
             font: str = FONT, align: str = "left", least: float = 4.0) -> float:
    """Draw ``text`` at ``size`` in ``font``, with the CJK fallback for what ``font`` lacks,
    smaller if it would be wider than ``max_width``: a long title is shrunk, never cut.
    Returns the size used."""
    width = text_width(text, size, font)
    if width > max_width > 0:
        size = max(least, size * max_width / width)
        width = text_width(text, size, font)
    if align == "right":
        x -= width
    elif align == "centre":
        x -= width / 2
    from reportlab.pdfbase.pdfmetrics import stringWidth

    for run, face in _runs(text, font):
        c.setFont(face, size)  # type: ignore[attr-defined]
        c.drawString(x, y, run)  # type: ignore[attr-defined]
        x += stringWidth(run, face, size)
    return size


def holding_text(hand: Hand, suit: Suit) -> str:
    """Ranks highest first, ``10`` for the ten, ``—`` for a void."""
    ranks = [r.char for r in hand.suit(suit).ranks]
    return " ".join("10" if r == "T" else r for r in ranks) or "—"


def _page_size(paper: str) -> tuple[float, float]:
    from reportlab.lib.pagesizes import A4, LETTER

    return {"a4": A4, "letter": LETTER}[paper.lower()]


def vul_text(board: Board) -> str:
    return _VUL_TEXT.get(board.vulnerability.value if board.vulnerability else "", "?")


# --------------------------------------------------------------------------- PDF
def records_pdf(dealset: DealSet, path: str | Path, *, analysis: Analysis | None = None,
                club: str = "", event: str = "", date: str = "", paper: str = "a4") -> int:
    """Write the hand records; returns the number of pages."""
    from reportlab.pdfgen.canvas import Canvas

    if dealset.sealed:
        raise BoardwrightError("the set is sealed; unseal it before printing hand records")
    register_fonts()
    width, height = _page_size(paper)
    c = Canvas(str(path), pagesize=(width, height))
    c.setTitle(" – ".join(x for x in (club, event, date) if x) or "Hand records")
    c.setCreator("boardwright")
    margin, header = 28.0, 46.0
    cell_w = (width - 2 * margin) / 2
    cell_h = (height - 2 * margin - header) / 2
    boards = list(dealset)
    pages = 0
    for start in range(0, max(len(boards), 1), 4):
        pages += 1
        draw_header(c, width, height, margin, club, event, date, pages)
        for k, board in enumerate(boards[start:start + 4]):
            x = margin + (k % 2) * cell_w
            top = height - margin - header - (k // 2) * cell_h
            c.setStrokeColorRGB(0.75, 0.75, 0.75)
            c.rect(x + 3, top - cell_h + 3, cell_w - 6, cell_h - 6, stroke=1, fill=0)
            draw_board(c, board, x + 10, top - 10, cell_w - 20,
                   analysis.get(board.number) if analysis else None)
        c.showPage()
    c.save()
    return pages


def draw_header(c: object, width: float, height: float, margin: float, club: str, event: str,
                date: str, page: int) -> None:
    """Draw a hand-record page's header on the reportlab canvas ``c``.

    The club (or "Hand records") in bold at the top left, the event and date
    under it, ``page N`` at the top right; it takes 46 points below ``margin``.
    Used by :func:`records_pdf` and by the panel's results PDF, so both look alike.

    >>> from io import BytesIO
    >>> from reportlab.pdfgen.canvas import Canvas
    >>> register_fonts()
    >>> c = Canvas(BytesIO(), pagesize=(595, 842))
    >>> draw_header(c, 595, 842, 28.0, "Club", "Tuesday pairs", "2026.11.24", 1)
    """
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    room = width - 2 * margin - 50  # "page N" sits at the right
    draw_fit(c, margin, height - margin - 14, club or "Hand records", 15, room, font=FONT_BOLD)
    sub = "   ".join(x for x in (event, date) if x)
    draw_fit(c, margin, height - margin - 31, sub, 10.5, room)
    c.setFont(FONT, 8)  # type: ignore[attr-defined]
    c.drawRightString(width - margin, height - margin - 14, f"page {page}")  # type: ignore[attr-defined]


def hand_size(hand: Hand, room: float, size: float = HAND_SIZE) -> float:
    """The font size at which ``hand``'s longest suit line fits in ``room`` points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    need = max(stringWidth(holding_text(hand, s), FONT, size) for s in SUITS_DESCENDING)
    need += size * 1.05  # the suit symbol and its gap
    return size if need <= room else size * room / need


def _hand(c: object, hand: Hand, x: float, y: float, size: float = 0.0) -> None:
    """Four suit lines from baseline ``y`` downwards (line spacing of the normal size)."""
    size = size or HAND_SIZE
    lead = max(size, HAND_SIZE) * 1.28  # a hand set smaller keeps the layout's line spacing
    for i, suit in enumerate(SUITS_DESCENDING):
        yy = y - i * lead
        if suit.is_red:
            c.setFillColorRGB(*RED)  # type: ignore[attr-defined]
        else:
            c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        c.setFont(FONT, size)  # type: ignore[attr-defined]
        c.drawString(x, yy, suit.symbol)  # type: ignore[attr-defined]
        c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        c.drawString(x + size * 1.05, yy, holding_text(hand, suit))  # type: ignore[attr-defined]


def draw_board(c: object, board: Board, x: float, top: float, w: float,
               result: tuple[object, object] | None) -> None:
    """Draw one board's hand record on the reportlab canvas ``c``, from ``(x, top)`` down.

    Number, dealer and vulnerability, the four hands around a compass with
    each hand's HCP, and, if ``result`` is a ``(DDTable, Par)`` pair from the
    analysis, the makeable-contracts grid and the par score. ``w`` is the width
    of the cell (the hands are placed within it); a cell needs about 330 points
    of height with the grid. A board with no deal says so.

    >>> from io import BytesIO
    >>> from reportlab.pdfgen.canvas import Canvas
    >>> from dealer.generate import random_dealset
    >>> register_fonts()
    >>> c = Canvas(BytesIO(), pagesize=(595, 842))
    >>> draw_board(c, random_dealset([1]).boards[0], 38, 760, 250, None)
    """
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    c.setFont(FONT_BOLD, 12)  # type: ignore[attr-defined]
    c.drawString(x, top - 12, f"Board {board.number}")  # type: ignore[attr-defined]
    c.setFont(FONT, 8.5)  # type: ignore[attr-defined]
    dealer = board.dealer.title if board.dealer is not None else "?"
    c.drawString(x, top - 24, f"Dealer {dealer}")  # type: ignore[attr-defined]
    c.drawString(x, top - 35, f"Vul {vul_text(board)}")  # type: ignore[attr-defined]
    deal = board.deal
    if deal is None:
        c.drawString(x, top - 60, "(no deal recorded)")  # type: ignore[attr-defined]
        return
    lead = HAND_SIZE * 1.28
    box = 50.0
    cx = x + w / 2  # compass centre
    cy = top - 14 - 3 * lead - 16 - box / 2
    # North above the compass, South below, West left and East right of it; a long
    # suit (9 cards and more) is set smaller rather than run into the box or the frame.
    side = x + w - (cx - box / 2)
    _hand(c, deal[Seat.NORTH], cx - box / 2, top - 14, hand_size(deal[Seat.NORTH], side))
    _hand(c, deal[Seat.SOUTH], cx - box / 2, cy - box / 2 - 14, hand_size(deal[Seat.SOUTH], side))
    west_room = cx - box / 2 - 4 - x
    _hand(c, deal[Seat.WEST], x, cy + 1.5 * lead - 3, hand_size(deal[Seat.WEST], west_room))
    east_x = cx + box / 2 + 8
    _hand(c, deal[Seat.EAST], east_x, cy + 1.5 * lead - 3,
          hand_size(deal[Seat.EAST], x + w - east_x))
    c.setStrokeColorRGB(0.2, 0.2, 0.2)  # type: ignore[attr-defined]
    c.setFillColorRGB(0.93, 0.93, 0.93)  # type: ignore[attr-defined]
    c.rect(cx - box / 2, cy - box / 2, box, box, stroke=1, fill=1)  # type: ignore[attr-defined]
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    c.setFont(FONT, 7.5)  # type: ignore[attr-defined]
    # HCP of each hand just inside the compass edge on its side.
    c.drawCentredString(cx, cy + box / 2 - 9, str(deal[Seat.NORTH].hcp))  # type: ignore[attr-defined]
    c.drawCentredString(cx, cy - box / 2 + 3, str(deal[Seat.SOUTH].hcp))  # type: ignore[attr-defined]
    c.drawString(cx - box / 2 + 3, cy - 3, str(deal[Seat.WEST].hcp))  # type: ignore[attr-defined]
    c.drawRightString(cx + box / 2 - 3, cy - 3, str(deal[Seat.EAST].hcp))  # type: ignore[attr-defined]
    c.setFont(FONT_BOLD, 7)  # type: ignore[attr-defined]
    c.drawCentredString(cx, cy - 3, "HCP")  # type: ignore[attr-defined]
    if result is None:
        return
    table, par = result
    gy = cy - box / 2 - 14 - 4 * lead - 10
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    draw_fit(c, x, gy + 10, GRID_CAPTION, 7, w / 2, font=FONT_BOLD)
    _grid(c, table, x, gy)
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    room = w - 130
    draw_fit(c, x + 130, gy - 13, "Par (double dummy)", 7, room, font=FONT_BOLD)
    lines = par.contract_text().split(" or ")[:3] + [f"NS {par.score:+d}"]  # type: ignore[attr-defined]
    for i, line in enumerate(lines):
        draw_fit(c, x + 130, gy - 25 - 11 * i, line, 8.5, room)


def _grid(c: object, table: object, x: float, y: float) -> None:
    """The makeable-contracts grid: rows N S E W, columns NT ♠ ♥ ♦ ♣."""
    col, row = 20.0, 12.0
    c.setFont(FONT, 9)  # type: ignore[attr-defined]
    for j, strain in enumerate(_GRID_STRAINS):
        if strain.suit is not None and strain.suit.is_red:
            c.setFillColorRGB(*RED)  # type: ignore[attr-defined]
        else:
            c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        c.drawCentredString(x + 14 + col * (j + 0.5), y, strain.symbol)  # type: ignore[attr-defined]
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    for i, seat in enumerate(_GRID_SEATS):
        yy = y - row * (i + 1)
        c.drawString(x, yy, seat.letter)  # type: ignore[attr-defined]
        for j, strain in enumerate(_GRID_STRAINS):
            level = table.makeable(seat, strain)  # type: ignore[attr-defined]
            c.drawCentredString(x + 14 + col * (j + 0.5), yy, str(level) if level else "–")  # type: ignore[attr-defined]
    c.setStrokeColorRGB(0.6, 0.6, 0.6)  # type: ignore[attr-defined]
    c.line(x, y - 3, x + 14 + 5 * col, y - 3)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- HTML
_CSS = """<style>
.bw-records{display:flex;flex-wrap:wrap;gap:1em;font-family:"DejaVu Sans",sans-serif}
.bw-board{border:1px solid #bbb;padding:.5em;width:22em}
.bw-board table{border-collapse:collapse}
.bw-red{color:#c00}
.bw-compass{background:#eee;border:1px solid #333;text-align:center;width:4em;height:4em;font-size:.8em}
.bw-dd td,.bw-dd th{padding:0 .35em;text-align:center}
</style>"""


def _hand_html(hand: Hand) -> str:
    lines = []
    for suit in SUITS_DESCENDING:
        cls = ' class="bw-red"' if suit.is_red else ""
        lines.append(f"<span{cls}>{suit.symbol}</span> {html.escape(holding_text(hand, suit))}")
    return "<br>".join(lines)


def board_html(board: Board, result: tuple[object, object] | None = None) -> str:
    """One board's diagram as an HTML fragment (for the panel)."""
    dealer = board.dealer.title if board.dealer is not None else "?"
    head = (f'<div class="bw-board" id="board-{board.number}"><b>Board {board.number}</b><br>'
            f"Dealer {dealer}<br>Vul {vul_text(board)}")
    if board.deal is None:
        return head + "<p>(no deal recorded)</p></div>"
    d = board.deal
    hcp = {s: d[s].hcp for s in Seat}
    compass = (f'<table class="bw-compass"><tr><td></td><td>{hcp[Seat.NORTH]}</td><td></td></tr>'
               f"<tr><td>{hcp[Seat.WEST]}</td><td>HCP</td><td>{hcp[Seat.EAST]}</td></tr>"
               f"<tr><td></td><td>{hcp[Seat.SOUTH]}</td><td></td></tr></table>")
    out = [head, '<table class="bw-diagram">',
           f"<tr><td></td><td>{_hand_html(d[Seat.NORTH])}</td><td></td></tr>",
           f"<tr><td>{_hand_html(d[Seat.WEST])}</td><td>{compass}</td>"
           f"<td>{_hand_html(d[Seat.EAST])}</td></tr>",
           f"<tr><td></td><td>{_hand_html(d[Seat.SOUTH])}</td><td></td></tr></table>"]
    if result is not None:
        table, par = result
        cells = "".join(
            f'<th{" class=bw-red" if s.suit is not None and s.suit.is_red else ""}>{s.symbol}</th>'
            for s in _GRID_STRAINS)
        rows = [f'<table class="bw-dd"><caption>{GRID_CAPTION}</caption>'
                f'<tr><th></th>{cells}</tr>']
        for seat in _GRID_SEATS:
            levels = "".join(f"<td>{table.makeable(seat, s) or '–'}</td>"  # type: ignore[attr-defined]
                             for s in _GRID_STRAINS)
            rows.append(f"<tr><th>{seat.letter}</th>{levels}</tr>")
        rows.append("</table>")
        out += rows + [f'<p class="bw-par">{html.escape(par.text())}</p>']  # type: ignore[attr-defined]
    out.append("</div>")
    return "".join(out)


def records_html(dealset: DealSet, *, analysis: Analysis | None = None, club: str = "",
                 event: str = "", date: str = "") -> str:
    """All boards as one HTML fragment (no ``<html>``/``<body>``), with a small style block."""
    if dealset.sealed:
        raise BoardwrightError("the set is sealed; unseal it before showing hand records")
    title = " – ".join(html.escape(x) for x in (club, event, date) if x)
    parts = [_CSS, '<div class="bw-records">']
    if title:
        parts.insert(1, f'<h2 class="bw-title">{title}</h2>')
    for b in dealset:
        parts.append(board_html(b, analysis.get(b.number) if analysis else None))
    parts.append("</div>")
    return "\n".join(parts)
