"""Table cards as PDF: one per table, its QR code opening the table's entry page.

The QR code is reportlab's own widget, so no other package is needed.
"""

from __future__ import annotations

from typing import BinaryIO

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from dealer.events.movements import Movement


def table_cards_pdf(out: BinaryIO, title: str, movements: dict[str, Movement],
                    urls: dict[tuple[str, int], str]) -> int:
    """Write the cards (two per A4 page); returns the number of cards."""
    c = Canvas(out, pagesize=A4)
    c.setTitle(f"Table cards – {title}")
    w, h = A4
    n = 0
    for (section, table), url in sorted(urls.items()):
        m = movements[section]
        top = h - 30 if n % 2 == 0 else h / 2 - 10
        c.setFont("Helvetica-Bold", 22)
        c.drawString(40, top - 30, f"Section {section} · Table {table}")
        c.setFont("Helvetica", 11)
        c.drawString(40, top - 50, title[:80])
        c.drawString(40, top - 66, "Scan to enter your results:")
        qr = QrCodeWidget(url, barLevel="M")
        x0, y0, x1, y1 = qr.getBounds()
        size = 150
        d = Drawing(size, size, transform=[size / (x1 - x0), 0, 0, size / (y1 - y0), 0, 0])
        d.add(qr)
        renderPDF.draw(d, c, w - size - 40, top - size - 20)
        c.setFont("Helvetica-Bold", 10)
        y = top - 95
        c.drawString(40, y, "Round   NS   EW   Boards")
        c.setFont("Helvetica", 10)
        for s in sorted((s for s in m.sittings if s.table == table), key=lambda s: s.round):
            y -= 14
            boards = f"{s.boards[0]}-{s.boards[-1]}" if s.boards else "rest"
            c.drawString(40, y, f"{s.round:>5}   {s.ns or '-':>3}  {s.ew or '-':>3}   {boards}")
        c.setFont("Helvetica", 7)
        c.drawString(40, top - 380 if n % 2 == 0 else 30, url)
        n += 1
        if n % 2 == 0:
            c.showPage()
    if n % 2:
        c.showPage()
    c.save()
    return n
