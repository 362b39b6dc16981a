"""Deal sets: generate, import, seal or unseal; hand-record and curtain-card downloads.

A sealed set's hands leave the panel by no path: its hand records and curtain
cards are refused with a 403 page (and not offered), until the director
unseals it here, which takes a ticked confirmation and writes a line to the
audit log (shown on this page with the CLI's ``--unseal`` lines).
"""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

from flask import Blueprint, flash, redirect, render_template, request, send_file, url_for
from werkzeug.wrappers import Response

from dealer import formats
from dealer.curtains import curtain_cards_pdf
from dealer.errors import BoardwrightError
from dealer.formats.sealing import is_sealed
from dealer.generate import random_dealset
from dealer.records import records_pdf
from dealer.store import audit
from dealer.store import results as rs
from webpanel import handrecord
from webpanel.db import store
from webpanel.fields import text
from webpanel.security import director_required, who

bp = Blueprint("dealsets", __name__, url_prefix="/dealsets")


@bp.route("/")
@director_required
def index() -> str:
    return render_template("dealsets/index.html", sets=store().list(),
                           log=audit.entries(store(), limit=20))


@bp.route("/generate", methods=["POST"])
@director_required
def generate() -> Response:
    try:
        first = int(request.form.get("first", "1"))
        count = int(request.form.get("count", "24"))
    except ValueError:
        raise rs.EntryError("first board and count must be numbers") from None
    if not (1 <= first <= 999 and 1 <= count <= 144):
        raise rs.EntryError("first board 1-999 and 1-144 boards")
    name = text(request.form, "name", 200).strip() or f"Boards {first}-{first + count - 1}"
    ds = random_dealset(range(first, first + count), event=name)
    ds.meta["Date"] = date.today().strftime("%Y.%m.%d")
    ds.sealed = request.form.get("sealed") == "on"
    set_id = store().save(ds, name=name, source="generated in the panel")
    handrecord.ahead(ds.boards)  # solved before anyone opens the results: webpanel.handrecord
    flash(f"Generated deal set {set_id} ({count} boards).", "ok")
    return redirect(url_for("dealsets.index"))


@bp.route("/import", methods=["POST"])
@director_required
def upload() -> Response:
    f = request.files.get("file")
    if f is None or not f.filename:
        raise rs.EntryError("choose a deal file to import", "file")
    data = f.read()
    name = Path(f.filename).name
    if len(name) > 200:
        raise rs.EntryError(f"file: the file name is {len(name)} characters; at most 200", "file")
    try:
        ds = formats.loads(data, source=name)
    except BoardwrightError as exc:
        flash(f"{name}: {exc}", "error")
        return redirect(url_for("dealsets.index"))
    set_id = store().save(ds, name=name, source=name)
    handrecord.ahead(ds.boards)
    flash(f"Imported {name} as deal set {set_id} ({len(ds)} boards).", "ok")
    return redirect(url_for("dealsets.index"))


@bp.route("/<int:set_id>/seal", methods=["POST"])
@director_required
def seal(set_id: int) -> Response:
    """Seal (at once) or unseal (only with the confirmation ticked); both are logged."""
    sealed = request.form.get("sealed") == "1"
    if not sealed and request.form.get("confirm") != "yes":
        flash(f"deal set {set_id}: tick the box to confirm the unsealing (its hands will show "
              "on the hand records, curtain cards, exports and table pages).", "error")
        return redirect(url_for("dealsets.index"))
    changed = rs.set_sealed(store(), set_id, sealed, who=who(),
                            detail="in the panel" if sealed else "in the panel, confirmed")
    state = "sealed" if sealed else "unsealed"
    flash(f"Deal set {set_id} {state}." if changed else f"Deal set {set_id} was already {state}.",
          "ok")
    return redirect(url_for("dealsets.index"))


@bp.route("/<int:set_id>/rename", methods=["POST"])
@director_required
def rename(set_id: int) -> Response:
    try:
        rs.rename_deal_set(store(), set_id, request.form.get("name", ""))
    except rs.EntryError as exc:
        flash(f"deal set {set_id}: {exc}", "error")
    else:
        flash(f"Deal set {set_id} renamed.", "ok")
    return redirect(url_for("dealsets.index"))


@bp.route("/<int:set_id>/delete", methods=["POST"])
@director_required
def remove(set_id: int) -> Response:
    if request.form.get("confirm") != "yes":
        flash(f"deal set {set_id}: tick the box to confirm the deletion.", "error")
        return redirect(url_for("dealsets.index"))
    try:
        rs.delete_deal_set(store(), set_id)
    except rs.EntryError as exc:  # played in an event: said here, nothing deleted
        flash(str(exc), "error")
    else:
        flash(f"Deleted deal set {set_id}.", "ok")
    return redirect(url_for("dealsets.index"))


def _pdf(set_id: int, kind: str) -> Response | tuple[str, int]:
    ds = store().load(set_id)
    if is_sealed(ds):
        what = "hand records" if kind == "records" else "curtain cards"
        return render_template(
            "error.html", title="Sealed",
            message=f"Deal set {set_id} is sealed: its {what} show the hands, so they are not "
                    "printed until you unseal it (Deal sets page)."), 403
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{kind}-{set_id}.pdf"
        if kind == "records":
            records_pdf(ds, path, event=ds.meta.get("Event", ""), date=ds.meta.get("Date", ""))
        else:
            curtain_cards_pdf(ds, path)
        data = path.read_bytes()
    import io
    return send_file(io.BytesIO(data), mimetype="application/pdf",
                     download_name=f"{kind}-{set_id}.pdf")


@bp.route("/<int:set_id>/records.pdf")
@director_required
def records(set_id: int) -> Response | tuple[str, int]:
    return _pdf(set_id, "records")


@bp.route("/<int:set_id>/curtains.pdf")
@director_required
def curtains(set_id: int) -> Response | tuple[str, int]:
    return _pdf(set_id, "curtains")
