"""Results as USEBIO XML, following the EBU's USEBIO 1.2 element names
(EVENT, PARTICIPANTS, BOARD, TRAVELLER_LINE)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dealer.events.score import RecordedResult, Scored
from dealer.formats.results_csv import cell


def to_usebio(name: str, date: str, kind: str, scoring: str, scored: Scored[RecordedResult]
              ) -> bytes:
    """The event's results as USEBIO XML; ``kind`` is ``pairs`` or ``teams``, ``scoring``
    ``matchpoints``, ``butler`` or ``cross``."""
    root = ET.Element("USEBIO", Version="1.2")
    ev = ET.SubElement(root, "EVENT", EVENT_TYPE="PAIRS" if kind == "pairs" else "TEAMS")
    ET.SubElement(ev, "EVENT_DESCRIPTION").text = name
    ET.SubElement(ev, "DATE").text = date
    ET.SubElement(ev, "BOARD_SCORING_METHOD").text = (
        "MATCHPOINTS" if scoring == "matchpoints" else "CROSS_IMPS"
        if scoring == "cross" else "BUTLER")
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
            ET.SubElement(tl, "NS_MATCH_POINTS").text = cell(nsv)
            ET.SubElement(tl, "EW_MATCH_POINTS").text = cell(ewv)
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")
