"""Publishing: the printable results page, exports, and the replay of a recorded play."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template

from dealer.formats import results_csv, results_pbn, results_pdf, usebio
from dealer.store import results as rs
from webpanel import exports
from webpanel.db import store
from webpanel.scoring import score_event
from webpanel.security import director_required

bp = Blueprint("publish", __name__, url_prefix="/events/<int:ce_id>")

TYPES = {"csv": "text/csv", "pbn": "application/x-pbn", "xml": "application/xml",
         "pdf": "application/pdf"}


@bp.route("/results")
@director_required
def results(ce_id: int) -> str:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    return render_template("publish/results.html", ce=ce, name=name, date=date,
                           scored=score_event(store(), ce_id))


@bp.route("/export.<fmt>")
@director_required
def export(ce_id: int, fmt: str) -> Response:
    if fmt not in TYPES:
        return Response("unknown export", status=404)
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    scored = score_event(store(), ce_id)
    ds = rs.dealset_of(store(), ce)
    if fmt == "csv":
        body: bytes | str = results_csv.to_csv(scored)
    elif fmt == "pbn":
        body = results_pbn.to_pbn(name, date, scored, ds,
                                  "teams" if ce.kind == "teams" else ce.scoring)
    elif fmt == "xml":
        # The club's name and national number come from the app's settings (CLUB_NAME,
        # CLUB_ID_NUMBER); player names are not kept by the panel yet.
        body = usebio.to_usebio(name, date, ce.kind, ce.scoring, scored, ds,
                                club=str(current_app.config.get("CLUB_NAME", "")),
                                club_id=str(current_app.config.get("CLUB_ID_NUMBER", "")))
    else:
        body = results_pdf.results_pdf(name, date, scored, ds)
    return Response(body, mimetype=TYPES[fmt], headers={
        "Content-Disposition": f'attachment; filename="results-{ce_id}.{fmt}"'})


@bp.route("/play/<int:result_id>")
@director_required
def play(ce_id: int, result_id: int) -> str:
    row = rs.result(store(), result_id)
    if row.club_event_id != ce_id:
        return render_template("error.html", title="Not found", message="no such result"), 404
    return render_template("publish/play.html", row=row, tricks=exports.replay(row), ce_id=ce_id)
