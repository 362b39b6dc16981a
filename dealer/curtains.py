"""Curtain cards and deal sheets, as PDFs, for clubs dealing boards by hand.

*Curtain cards*: one card per hand per board (eight to an A4 or Letter page,
two boards), each with the board number, the seat, the dealer, the
vulnerability and the seat's 13 cards sorted by suit, with cut marks at the
corners. *Deal sheets*: for each board, a grid that tells whoever deals a
sorted deck (♠A first, ♣2 last) which seat each card goes to.

>>> from dealer import Board, Deal, DealSet
>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> deal_sheet_rows(Board(1, d))[0]
('♠', ['N', 'N', 'N', 'N', 'E', 'E', 'E', 'E', 'S', 'S', 'S', 'W', 'W'])
"""

from __future__ import annotations

from pathlib import Path

from dealer.board import Board, DealSet
from dealer.cards import SUITS_DESCENDING, Card, Rank
from dealer.errors import BoardwrightError
from dealer.records import FONT, FONT_BOLD, RED, _page_size, holding_text, register_fonts, vul_text
from dealer.seats import Seat

_RANKS_DESC = [Rank(r) for r in range(14, 1, -1)]


def _check(dealset: DealSet) -> None:
    if dealset.sealed:
        raise BoardwrightError("the set is sealed; unseal it before printing its hands")
    for b in dealset:
        if b.deal is None or not b.deal.is_complete:
            raise BoardwrightError(f"board {b.number} has no full deal to print")


def _cut_marks(c: object, x: float, y: float, w: float, h: float, length: float = 9.0) -> None:
    """Short lines just outside each corner, so a guillotine cut misses the text."""
    c.setStrokeColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    c.setLineWidth(0.4)  # type: ignore[attr-defined]
    gap = 3.0
    for cx, dx in ((x, -1), (x + w, 1)):
        for cy, dy in ((y, -1), (y + h, 1)):
            c.line(cx + dx * gap, cy, cx + dx * (gap + length), cy)  # type: ignore[attr-defined]
            c.line(cx, cy + dy * gap, cx, cy + dy * (gap + length))  # type: ignore[attr-defined]


def curtain_cards_pdf(dealset: DealSet, path: str | Path, *, paper: str = "a4") -> int:
    """Write four curtain cards per board, eight per page; returns the page count."""
    from reportlab.pdfgen.canvas import Canvas

    _check(dealset)
    register_fonts()
    width, height = _page_size(paper)
    c = Canvas(str(path), pagesize=(width, height))
    c.setTitle("Curtain cards")
    c.setCreator("boardwright")
    margin = 36.0
    cols, rows = 2, 4
    cw, ch = (width - 2 * margin) / cols, (height - 2 * margin) / rows
    pad = 12.0  # room between cards for the cut marks
    cards = [(b, seat) for b in dealset for seat in Seat]
    pages = 0
    for start in range(0, len(cards), cols * rows):
        pages += 1
        for k, (board, seat) in enumerate(cards[start:start + cols * rows]):
            x = margin + (k % cols) * cw + pad / 2
            y = height - margin - (k // cols + 1) * ch + pad / 2
            _curtain(c, board, seat, x, y, cw - pad, ch - pad)
        c.showPage()
    c.save()
    return pages


def _curtain(c: object, board: Board, seat: Seat, x: float, y: float, w: float, h: float) -> None:
    _cut_marks(c, x, y, w, h)
    top = y + h
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    c.setFont(FONT_BOLD, 15)  # type: ignore[attr-defined]
    c.drawString(x + 10, top - 22, f"Board {board.number}")  # type: ignore[attr-defined]
    c.drawRightString(x + w - 10, top - 22, seat.title)  # type: ignore[attr-defined]
    c.setFont(FONT, 9)  # type: ignore[attr-defined]
    dealer = board.dealer.title if board.dealer is not None else "?"
    c.drawString(x + 10, top - 36, f"Dealer {dealer}   Vul {vul_text(board)}")  # type: ignore[attr-defined]
    hand = board.deal[seat]  # type: ignore[index]
    c.setFont(FONT, 9)  # type: ignore[attr-defined]
    c.drawRightString(x + w - 10, top - 36, f"{hand.hcp} HCP")  # type: ignore[attr-defined]
    size = 14.0
    for i, suit in enumerate(SUITS_DESCENDING):
        yy = top - 60 - i * size * 1.3
        if suit.is_red:
            c.setFillColorRGB(*RED)  # type: ignore[attr-defined]
        else:
            c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        c.setFont(FONT, size)  # type: ignore[attr-defined]
        c.drawString(x + 14, yy, suit.symbol)  # type: ignore[attr-defined]
        c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        c.drawString(x + 14 + size * 1.2, yy, holding_text(hand, suit))  # type: ignore[attr-defined]


def deal_sheet_rows(board: Board) -> list[tuple[str, list[str]]]:
    """Per suit (♠ first), the seat letter for each rank from A down to 2."""
    deal = board.deal
    if deal is None:
        raise BoardwrightError(f"board {board.number} has no deal")
    rows = []
    for suit in SUITS_DESCENDING:
        seats = []
        for rank in _RANKS_DESC:
            owner = deal.owner(Card(suit, rank))
            seats.append(owner.letter if owner is not None else "?")
        rows.append((suit.symbol, seats))
    return rows


def deal_sheets_pdf(dealset: DealSet, path: str | Path, *, paper: str = "a4") -> int:
    """Write deal sheets, eight boards a page; returns the page count."""
    from reportlab.pdfgen.canvas import Canvas

    _check(dealset)
    register_fonts()
    width, height = _page_size(paper)
    c = Canvas(str(path), pagesize=(width, height))
    c.setTitle("Deal sheets")
    c.setCreator("boardwright")
    margin = 36.0
    per_page = 8
    block = (height - 2 * margin - 30) / per_page
    boards = list(dealset)
    pages = 0
    for start in range(0, len(boards), per_page):
        pages += 1
        c.setFillColorRGB(0, 0, 0)
        c.setFont(FONT_BOLD, 12)
        c.drawString(margin, height - margin - 12, "Deal sheet: deal a sorted deck (♠A first) "
                     "card by card to the seat shown")
        for k, board in enumerate(boards[start:start + per_page]):
            _sheet(c, board, margin, height - margin - 30 - k * block, width - 2 * margin)
        c.showPage()
    c.save()
    return pages


def _sheet(c: object, board: Board, x: float, top: float, w: float) -> None:
    c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
    c.setFont(FONT_BOLD, 11)  # type: ignore[attr-defined]
    c.drawString(x, top - 14, f"Board {board.number}")  # type: ignore[attr-defined]
    c.setFont(FONT, 8)  # type: ignore[attr-defined]
    dealer = board.dealer.letter if board.dealer is not None else "?"
    c.drawString(x, top - 26, f"Dealer {dealer}  Vul {vul_text(board)}")  # type: ignore[attr-defined]
    col = (w - 110) / 13
    gx = x + 110
    c.setFont(FONT, 8)  # type: ignore[attr-defined]
    for j, rank in enumerate(_RANKS_DESC):
        c.drawCentredString(gx + col * (j + 0.5), top - 10,  # type: ignore[attr-defined]
                            "10" if rank.char == "T" else rank.char)
    for i, (symbol, seats) in enumerate(deal_sheet_rows(board)):
        yy = top - 22 - i * 11
        red = symbol in ("♥", "♦")
        c.setFillColorRGB(*(RED if red else (0, 0, 0)))  # type: ignore[attr-defined]
        c.setFont(FONT, 9.5)  # type: ignore[attr-defined]
        c.drawString(gx - 14, yy, symbol)  # type: ignore[attr-defined]
        c.setFillColorRGB(0, 0, 0)  # type: ignore[attr-defined]
        for j, s in enumerate(seats):
            c.drawCentredString(gx + col * (j + 0.5), yy, s)  # type: ignore[attr-defined]
    c.setStrokeColorRGB(0.7, 0.7, 0.7)  # type: ignore[attr-defined]
    c.line(x, top - 70, x + w, top - 70)  # type: ignore[attr-defined]
