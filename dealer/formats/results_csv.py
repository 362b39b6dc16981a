"""Results as CSV: one row a traveller line, with what each side scored on it.

The header is :data:`CSV_FIELDS`; rows end with CRLF (RFC 4180). A
matchpointed line fills ``ns_mp``/``ew_mp`` with its real matchpoints (the
top is ``ns_mp + ew_mp`` on a fully played board) and ``ns_pct``/``ew_pct``
with the same as percentages of the top; an IMP-scored line (Butler,
cross-IMPs, a team's board) fills ``ns_imps``/``ew_imps`` instead. A weighted
adjusted score (Law 12C1(c)) has no single score: ``weighted`` gives its parts
("60% 4S N 10 +420; 40% 4S N 9 -50") and the matchpoints or IMPs are its own.
Columns a line has no value for are empty. ``ns_names``/``ew_names`` are the
pairs' players (``Ann Smith & Bob Jones``) when :attr:`Scored.players` has them;
they come last, so a reader of the earlier columns by position is not disturbed.
"""

from __future__ import annotations

import csv
import io

from dealer.events.score import RecordedResult, Scored

CSV_FIELDS = ("board", "section", "table", "round", "ns", "ew", "contract", "declarer", "lead",
              "tricks", "ns_score", "ns_artificial", "ew_artificial", "ns_mp", "ew_mp",
              "ns_pct", "ew_pct", "ns_imps", "ew_imps", "weighted", "ns_names", "ew_names")


def to_csv(scored: Scored[RecordedResult]) -> str:
    """The travellers of ``scored``, board by board, as CSV text."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(CSV_FIELDS)
    for board, lines in sorted(scored.travellers.items()):
        for r, nsv, ewv in lines:
            mp = scored.matchpoints(r)
            if mp is not None:  # nsv/ewv are the percentages
                values = [cell(mp[0]), cell(mp[1]), cell(nsv), cell(ewv), "", ""]
            else:  # IMPs (or nothing yet, when the event cannot be scored)
                values = ["", "", "", "", cell(nsv), cell(ewv)]
            w.writerow([board, r.section, r.table_no, r.round_no, r.ns, r.ew, r.contract or "",
                        r.declarer or "", r.lead or "", "" if r.tricks is None else r.tricks,
                        "" if r.score is None else r.score, r.ns_artificial or "",
                        r.ew_artificial or "", *values, weighted_text(r),
                        *scored.seat_names(r)])
    return out.getvalue()


def weighted_text(r: object) -> str:
    """A weighted adjusted score (Law 12C1(c)) as the stored text says it ("60% 4S N 10
    +420; 40% 4S N 9 -50"), or its shares and NS scores for a scoring line; else empty."""
    w = getattr(r, "weighted", None)
    if not w:
        return ""
    if isinstance(w, str):
        return w
    return "; ".join(f"{100 * share:g}% {score:+d}" for share, score in w)


def cell(v: float | None) -> str:
    """A score in a cell: two decimals, empty when there is none (never ``-0.00``)."""
    if v is None:
        return ""
    text = f"{v:.2f}"
    return "0.00" if text == "-0.00" else text
