"""Results as PDF: rankings, travellers, then the hand records (unless the set is sealed).

The pairs' names (:attr:`Scored.players`) follow each pair in the rankings, in
DejaVu Sans as the hand records (with their CJK fallback), so that any name
shows: Helvetica, the PDF's built-in face, has no "Ł" or "ő".
"""

from __future__ import annotations

import io

from dealer.board import DealSet
from dealer.events.score import RecordedResult, Scored
from dealer.formats.results_csv import cell
from dealer.formats.sealing import is_sealed


def results_pdf(name: str, date: str, scored: Scored[RecordedResult], dealset: DealSet | None
                ) -> bytes:
    """The event's results as a PDF (A4, reportlab)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    from dealer.records import (  # as the hand records
        FONT,
        draw_board,
        draw_fit,
        draw_header,
        register_fonts,
    )

    register_fonts()
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=A4)
    c.setTitle(f"Results – {name} {date}")
    w, h = A4
    y = h - 50
    c.setFont("Helvetica-Bold", 16)
    c.drawString(40, y, f"{name} {date}"[:70])
    y -= 28

    def line(text: str, bold: bool = False, names: str = "") -> None:
        nonlocal y
        if y < 50:
            c.showPage()
            y = h - 50
        c.setFont("Helvetica-Bold" if bold else "Helvetica", 10)
        c.drawString(40, y, text[:110])
        if names:  # shrunk to fit the line, never cut
            draw_fit(c, 300, y, names, 10, w - 40 - 300, font=FONT)
        y -= 14

    for ln, standings in scored.rankings.items():
        line(f"Rankings {ln}".strip(), True)
        for s in standings:
            unit = "%" if s.unit == "%" else f" {s.unit}"
            who = s.pair if "team" in s.pair else f"pair {s.pair}"
            line(f"{s.place:>4}  {who:<13} {s.score:8.2f}{unit}  ({s.boards} boards)",
                 names=scored.names(s.pair))
        y -= 8
    for number, lines in sorted(scored.travellers.items()):
        line(f"Board {number}", True)
        for r, nsv, ewv in lines:
            line(f"  {r.ns:>3} v {r.ew:<3} {r.contract or r.ns_artificial or _weighted(r):<6} "
                 f"{r.declarer or '':<2} {'' if r.tricks is None else r.tricks:>2}  "
                 f"{'' if r.score is None else r.score:>6}  {cell(nsv):>6} {cell(ewv):>6}")
    c.showPage()
    if dealset is not None and not is_sealed(dealset):
        boards = [b for b in dealset.boards if b.number in scored.travellers]
        for start in range(0, len(boards), 4):
            draw_header(c, w, h, 28.0, "", name, date, start // 4 + 1)
            cw, ch = (w - 56) / 2, (h - 56 - 46) / 2
            for k, b in enumerate(boards[start:start + 4]):
                draw_board(c, b, 28 + (k % 2) * cw + 10, h - 28 - 46 - (k // 2) * ch - 10, cw - 20,
                       None)
            c.showPage()
    c.save()
    return buf.getvalue()


def _weighted(r: object) -> str:
    """A weighted adjusted score (Law 12C1(c)) in the traveller's contract column."""
    return "wtd" if getattr(r, "weighted", None) else "-"
