"""Result exports: CSV, PBN with ScoreTable and TotalScoreTable, USEBIO XML, PDF.

PBN tables follow PBN 2.1 section 5 (tables): a tag whose value is the
column header, then one line per row. USEBIO follows the EBU's USEBIO 1.2
element names (EVENT, PARTICIPANTS, BOARD, TRAVELLER_LINE).
"""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

from dealer.board import Board, DealSet
from dealer.formats import pbn
from dealer.seats import board_dealer, board_vulnerability
from dealer.store.panel_models import ClubEvent, ResultRow
from webpanel.scoring import Scored

CSV_FIELDS = ("board", "section", "table", "round", "ns", "ew", "contract", "declarer", "lead",
              "tricks", "ns_score", "ns_artificial", "ew_artificial", "ns_mp", "ew_mp")


def to_csv(scored: Scored) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(CSV_FIELDS)
    for board, lines in sorted(scored.travellers.items()):
        for r, nsv, ewv in lines:
            w.writerow([board, r.section, r.table_no, r.round_no, r.ns, r.ew, r.contract or "",
                        r.declarer or "", r.lead or "", "" if r.tricks is None else r.tricks,
                        "" if r.score is None else r.score, r.ns_artificial or "",
                        r.ew_artificial or "", _num(nsv), _num(ewv)])
    return out.getvalue()


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}"


def to_pbn(name: str, date: str, scored: Scored, dealset: DealSet | None) -> bytes:
    boards = {b.number: b for b in dealset.boards} if dealset is not None else {}
    out = []
    first = True
    for number, lines in sorted(scored.travellers.items()):
        src = boards.get(number)
        b = Board(number, src.deal if src else None,
                  dealer=src.dealer if src else board_dealer(number),
                  vulnerability=src.vulnerability if src else board_vulnerability(number))
        b.tags.update({"Event": name, "Site": "", "Date": date or "?", "Board": str(number)})
        b.tags["ScoreTable"] = ("PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;"
                                "Result\\2R;Lead\\3L;Score_NS\\6R;MP_NS\\6R;MP_EW\\6R")
        rows = []
        for r, nsv, ewv in lines:
            contract = r.contract or (f"{r.ns_artificial}/{r.ew_artificial}"
                                      if r.ns_artificial else "-")
            rows.append(f'{r.ns:>2} {r.ew:>2} "{contract}" "{r.declarer or "-"}" '
                        f'{"-" if r.tricks is None else r.tricks:>2} "{r.lead or "-"}" '
                        f'{"-" if r.score is None else r.score:>6} {_num(nsv) or "-":>6} '
                        f'{_num(ewv) or "-":>6}')
        b.sections["ScoreTable"] = "\n".join(rows)
        if first:
            b.tags["TotalScoreTable"] = "Rank\\3R;PairId\\4R;Line\\2L;Score\\7R;Boards\\2R"
            total = []
            for line, standings in scored.rankings.items():
                for s in standings:
                    total.append(f'"{s.place}" "{s.pair}" "{line or "-"}" {s.score:>7.2f} '
                                 f"{s.boards:>2}")
            b.sections["TotalScoreTable"] = "\n".join(total)
            first = False
        out.append(b)
    return pbn.dumps(DealSet(boards=out, meta={"Event": name, "Date": date}))


def to_usebio(name: str, date: str, ce: ClubEvent, scored: Scored) -> bytes:
    root = ET.Element("USEBIO", Version="1.2")
    ev = ET.SubElement(root, "EVENT", EVENT_TYPE="PAIRS" if ce.kind == "pairs" else "TEAMS")
    ET.SubElement(ev, "EVENT_DESCRIPTION").text = name
    ET.SubElement(ev, "DATE").text = date
    ET.SubElement(ev, "BOARD_SCORING_METHOD").text = (
        "MATCHPOINTS" if ce.scoring == "matchpoints" else "CROSS_IMPS"
        if ce.scoring == "cross" else "BUTLER")
    parts = ET.SubElement(ev, "PARTICIPANTS")
    for line, standings in scored.rankings.items():
        for s in standings:
            p = ET.SubElement(parts, "PAIR")
            ET.SubElement(p, "PAIR_NUMBER").text = s.pair
            if line:
                ET.SubElement(p, "DIRECTION").text = line
            ET.SubElement(p, "PLACE").text = s.place
            ET.SubElement(p, "PERCENTAGE" if s.unit == "%" else "TOTAL_SCORE").text = (
                f"{s.score:.2f}")
    for number, lines in sorted(scored.travellers.items()):
        bd = ET.SubElement(ev, "BOARD")
        ET.SubElement(bd, "BOARD_NUMBER").text = str(number)
        for r, nsv, ewv in lines:
            tl = ET.SubElement(bd, "TRAVELLER_LINE")
            ET.SubElement(tl, "NS_PAIR_NUMBER").text = str(r.ns)
            ET.SubElement(tl, "EW_PAIR_NUMBER").text = str(r.ew)
            ET.SubElement(tl, "CONTRACT").text = r.contract or ""
            ET.SubElement(tl, "PLAYED_BY").text = r.declarer or ""
            ET.SubElement(tl, "LEAD").text = r.lead or ""
            ET.SubElement(tl, "TRICKS").text = "" if r.tricks is None else str(r.tricks)
            ET.SubElement(tl, "SCORE").text = "" if r.score is None else str(r.score)
            if r.ns_artificial:
                ET.SubElement(tl, "NS_ARTIFICIAL").text = r.ns_artificial
                ET.SubElement(tl, "EW_ARTIFICIAL").text = r.ew_artificial or ""
            ET.SubElement(tl, "NS_MATCH_POINTS").text = _num(nsv)
            ET.SubElement(tl, "EW_MATCH_POINTS").text = _num(ewv)
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def results_pdf(name: str, date: str, scored: Scored, dealset: DealSet | None) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    from dealer.records import draw_board, draw_header, register_fonts  # as the hand records

    register_fonts()
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=A4)
    c.setTitle(f"Results – {name} {date}")
    w, h = A4
    y = h - 50
    c.setFont("Helvetica-Bold", 16)
    c.drawString(40, y, f"{name} {date}"[:70])
    y -= 28

    def line(text: str, bold: bool = False) -> None:
        nonlocal y
        if y < 50:
            c.showPage()
            y = h - 50
        c.setFont("Helvetica-Bold" if bold else "Helvetica", 10)
        c.drawString(40, y, text[:110])
        y -= 14

    for ln, standings in scored.rankings.items():
        line(f"Rankings {ln}".strip(), True)
        for s in standings:
            unit = "%" if s.unit == "%" else f" {s.unit}"
            who = s.pair if "team" in s.pair else f"pair {s.pair}"
            line(f"{s.place:>4}  {who:<13} {s.score:8.2f}{unit}  ({s.boards} boards)")
        y -= 8
    for number, lines in sorted(scored.travellers.items()):
        line(f"Board {number}", True)
        for r, nsv, ewv in lines:
            line(f"  {r.ns:>3} v {r.ew:<3} {r.contract or r.ns_artificial or '-':<6} "
                 f"{r.declarer or '':<2} {'' if r.tricks is None else r.tricks:>2}  "
                 f"{'' if r.score is None else r.score:>6}  {_num(nsv):>6} {_num(ewv):>6}")
    c.showPage()
    if dealset is not None and not dealset.sealed:
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


def replay(row: ResultRow) -> list[list[str]]:
    """The recorded play, trick by trick (PBN ``Play`` section: four cards a line)."""
    if not row.play:
        return []
    return [ln.split() for ln in row.play.strip().splitlines() if ln.strip()]
