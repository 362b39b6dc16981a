"""Results as CSV: one row a traveller line, with the matchpoints (or IMPs) of each side.

The header is :data:`CSV_FIELDS`; rows end with CRLF (RFC 4180).
"""

from __future__ import annotations

import csv
import io

from dealer.events.score import RecordedResult, Scored

CSV_FIELDS = ("board", "section", "table", "round", "ns", "ew", "contract", "declarer", "lead",
              "tricks", "ns_score", "ns_artificial", "ew_artificial", "ns_mp", "ew_mp")


def to_csv(scored: Scored[RecordedResult]) -> str:
    """The travellers of ``scored``, board by board, as CSV text."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(CSV_FIELDS)
    for board, lines in sorted(scored.travellers.items()):
        for r, nsv, ewv in lines:
            w.writerow([board, r.section, r.table_no, r.round_no, r.ns, r.ew, r.contract or "",
                        r.declarer or "", r.lead or "", "" if r.tricks is None else r.tricks,
                        "" if r.score is None else r.score, r.ns_artificial or "",
                        r.ew_artificial or "", cell(nsv), cell(ewv)])
    return out.getvalue()


def cell(v: float | None) -> str:
    """A score in a cell: two decimals, empty when there is none."""
    return "" if v is None else f"{v:.2f}"
