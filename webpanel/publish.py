"""Publishing: the director's printable page and exports, the confirmed publication and
its undo, and the public results pages for the players.

The public address of an event's results is ``/results/<id>``, with no log-in.
It answers only while the event is published (checked in the store on every
request, never from a kept copy); before publication, and again after the
director takes a publication back, it is "not found", the same page as an id
that never existed, so nothing about a running session can be read from it
(fair play). The id in the address is plain, not a secret: results are public
once published, a club website links to them, and a player can type it.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response as BaseResponse

from dealer.formats import results_csv, results_pbn, results_pdf, usebio
from dealer.store import results as rs
from webpanel import contexts, exports, results_page
from webpanel.db import store
from webpanel.lan import public_url_for
from webpanel.scoring import score_event
from webpanel.security import director_required, who

bp = Blueprint("publish", __name__, url_prefix="/events/<int:ce_id>")
#: The players' pages: published events only (module docstring).
public = Blueprint("results", __name__, url_prefix="/results")

#: Built public PDFs kept per process (the newest; one per event and version of its results).
PDFS_KEPT = 8
_PDFS_LOCK = threading.Lock()

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
def play(ce_id: int, result_id: int) -> str | tuple[str, int]:
    row = rs.result(store(), result_id)
    if row.club_event_id != ce_id:
        return render_template("error.html", title="Not found", message="no such result"), 404
    return render_template("publish/play.html", row=row, tricks=exports.replay(row), ce_id=ce_id)


# -- publication, confirmed, and its undo within the correction period ------------------------

def _expected(ce_id: int) -> int:
    """How many results the movement asks for (sittings with two pairs, each board)."""
    ce = rs.get_event(store(), ce_id)
    return sum(len(s.boards) for sec in ce.sections
               for s in rs.movement(store(), ce_id, sec).sittings if s.ns and s.ew)


@bp.route("/publish", methods=["GET", "POST"])
@director_required
def confirm(ce_id: int) -> BaseResponse | str:
    """The confirmation step: what the players will see, then publish (or take it back)."""
    ce = rs.get_event(store(), ce_id)
    if request.method == "POST" and ce.published_at is None:
        if request.form.get("confirm") != "yes":
            flash("Tick the box to confirm the publication.", "error")
            return redirect(url_for("publish.confirm", ce_id=ce_id))
        rs.publish(store(), ce_id, who=who())
        contexts.forget_contexts()  # the tables' pages link to the results at once
        flash("Results published at " + public_url_for("results.show", ce_id=ce_id)
              + f"; corrections for {ce.correction_minutes} minutes (Law 79C).", "ok")
        return redirect(url_for("publish.confirm", ce_id=ce_id))
    name, date = rs.event_name(store(), ce_id)
    # The confirmation shows no board: solving every board's double dummy here made its
    # first opening take seconds (over 30 under load); the players' page gets them.
    page = results_page.build(store(), ce_id, analysis=False)
    return render_template("publish/confirm.html", ce=ce, name=name, date=date, page=page,
                           entered=rs.result_count(store(), ce_id), expected=_expected(ce_id),
                           may_undo=rs.may_unpublish(ce), until=rs.undo_until(ce),
                           address=public_url_for("results.show", ce_id=ce_id))


@bp.route("/unpublish", methods=["POST"])
@director_required
def unpublish(ce_id: int) -> BaseResponse:
    """Take the publication back, inside the correction period only."""
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm: the public results page will be gone.", "error")
        return redirect(url_for("publish.confirm", ce_id=ce_id))
    try:
        rs.unpublish(store(), ce_id, who=who())
    except rs.EntryError as exc:  # said beside the form, not on a bare page
        flash(f"{exc.field or 'form'}: {exc}", "error")
        return redirect(url_for("publish.confirm", ce_id=ce_id))
    contexts.forget_contexts()
    flash("Publication taken back: the public results page answers \"not found\" again.",
          "ok")
    return redirect(url_for("publish.confirm", ce_id=ce_id))


# -- the players' pages -----------------------------------------------------------------------

def _published(ce_id: int) -> None:
    """404 unless the event is published: the same answer as for an event that never was."""
    if rs.published_event(store(), ce_id) is None:
        abort(404)


@public.route("/")
def index() -> str:
    return render_template("publish/public_index.html", events=rs.published_events(store()))


@public.route("/<int:ce_id>")
def show(ce_id: int) -> str:
    _published(ce_id)
    return render_template("publish/public.html", page=results_page.build(store(), ce_id),
                           live=True, contract_text=results_page.contract_text)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "results"


@public.route("/<int:ce_id>/results.pdf")
def pdf(ce_id: int) -> Response:
    """The printable A4 results (the PDF of the director's export, hand records unless
    the set is sealed)."""
    _published(ce_id)
    name, date = rs.event_name(store(), ce_id)
    stamp = rs.public_stamp(store(), ce_id)
    # Built once per change of what it shows, not once per reader: a room of phones
    # opening the PDF at the end of the night costs one build (rs.public_stamp).
    kept: OrderedDict[tuple[int, str], bytes] = current_app.extensions.setdefault(
        "bw_public_pdfs", OrderedDict())
    with _PDFS_LOCK:
        body = kept.get((ce_id, stamp))
        if body is not None:
            kept.move_to_end((ce_id, stamp))
    if body is None:
        ce = rs.get_event(store(), ce_id)
        body = results_pdf.results_pdf(name, date, score_event(store(), ce_id),
                                       rs.dealset_of(store(), ce))
        with _PDFS_LOCK:
            kept[(ce_id, stamp)] = body
            while len(kept) > PDFS_KEPT:
                kept.popitem(last=False)
    return Response(body, mimetype="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{_slug(name)}-{_slug(date)}.pdf"'})


STATIC = Path(__file__).parent / "static"


@public.route("/<int:ce_id>/download")
def download(ce_id: int) -> Response:
    """The page as one self-contained HTML file, styles inline, for a club's website."""
    _published(ce_id)
    page = results_page.build(store(), ce_id)
    css = "\n".join((STATIC / f).read_text(encoding="utf-8")
                    for f in ("style.css", "results.css"))
    body = render_template("publish/export.html", page=page, live=False, made_at=datetime.now(UTC),
                           css=Markup(css.replace("</", "<\\/")),
                           contract_text=results_page.contract_text)
    return Response(body, mimetype="text/html", headers={
        "Content-Disposition":
            f'attachment; filename="results-{_slug(page.name)}-{_slug(page.date)}.html"'})


# -- multi-session events -----------------------------------------------------------------------

@bp.route("/combined")
@director_required
def combined(ce_id: int) -> str:
    """Every session with results, combined (the director's view, published or not)."""
    return render_template("publish/combined.html", ce_id=ce_id, public_view=False,
                           page=results_page.combined(store(), ce_id, published_only=False))


@public.route("/<int:ce_id>/combined")
def public_combined(ce_id: int) -> str:
    """The players' combined ranking: only the published sessions count."""
    _published(ce_id)
    return render_template("publish/public_combined.html", ce_id=ce_id, public_view=True,
                           page=results_page.combined(store(), ce_id, published_only=True))
