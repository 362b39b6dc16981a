"""The director's events: create one, see its movement and table cards, run the rounds."""

from __future__ import annotations

import io

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from werkzeug.wrappers import Response

from dealer.store import results as rs
from webpanel import contexts
from webpanel.db import store
from webpanel.lan import public_url_for
from webpanel.security import director_required
from webpanel.tablecards import table_cards_pdf

bp = Blueprint("events", __name__, url_prefix="/events")


def _int(name: str, default: int | None = None, lo: int = 0, hi: int = 10_000) -> int | None:
    raw = request.form.get(name, "").strip()
    if not raw:
        return default
    try:
        v = int(raw)
    except ValueError:
        raise rs.EntryError(f"{name.replace('_', ' ')} must be a whole number", name) from None
    if not lo <= v <= hi:
        raise rs.EntryError(f"{name.replace('_', ' ')} must be {lo} to {hi}", name)
    return v


@bp.route("/")
@director_required
def index() -> str:
    return render_template("events/index.html", events=rs.list_events(store()))


@bp.route("/new", methods=["GET", "POST"])
@director_required
def new() -> Response | str | tuple[str, int]:
    sets = store().list()
    if request.method == "POST":
        f = request.form
        try:
            ds = _int("deal_set_id")
            ce = rs.create_club_event(
                store(), f.get("name", ""), date=f.get("date", "")[:32],
                kind=f.get("kind", "pairs"), movement=f.get("movement", "mitchell"),
                tables=_int("tables", 0, 0, 40) or 0, rounds=_int("rounds", None, 1, 40),
                boards_per_round=_int("boards_per_round", 2, 1, 8) or 2,
                sections=f.get("sections", "A").replace(",", " ").split(),
                scoring=f.get("scoring", "matchpoints"),
                deal_set_id=ds if ds and any(s.id == ds for s in sets) else None)
        except rs.EntryError as exc:
            flash(f"{exc.field or 'form'}: {exc}", "error")
            return render_template("events/new.html", sets=sets, form=f), 400
        flash("Event created.", "ok")
        return redirect(url_for("events.show", ce_id=ce))
    return render_template("events/new.html", sets=sets, form={})


@bp.route("/<int:ce_id>")
@director_required
def show(ce_id: int) -> str:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    movements = {sec: rs.movement(store(), ce_id, sec) for sec in ce.sections}
    first = movements[ce.sections[0]]
    cards = {(line, num): first.card(num, line) for line, num in first.pairs()}
    return render_template("events/show.html", ce=ce, name=name, date=date,
                           movements=movements, first=first, cards=cards,
                           tokens=rs.tokens(store(), ce_id), sets=store().list())


@bp.route("/<int:ce_id>/settings", methods=["POST"])
@director_required
def settings(ce_id: int) -> Response:
    ce = rs.get_event(store(), ce_id)
    m = rs.movement(store(), ce_id, ce.sections[0])
    values: dict[str, object] = {}
    if "current_round" in request.form:
        values["current_round"] = _int("current_round", 1, 1, m.rounds)
    if "options" in request.form:
        values["show_traveller"] = request.form.get("show_traveller") == "on"
        values["show_hand_record"] = request.form.get("show_hand_record") == "on"
        values["correction_minutes"] = _int("correction_minutes", 30, 0, 24 * 60)
    if "deal_set_id" in request.form:
        ds = _int("deal_set_id")
        values["deal_set_id"] = ds if ds and any(s.id == ds for s in store().list()) else None
    contexts.update_event(store(), ce_id, **values)
    flash("Saved.", "ok")
    return redirect(url_for("events.show", ce_id=ce_id))


@bp.route("/<int:ce_id>/table-cards.pdf")
@director_required
def table_cards(ce_id: int) -> Response:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    toks = rs.tokens(store(), ce_id)
    if not toks:
        abort(404)
    movements = {sec: rs.movement(store(), ce_id, sec) for sec in ce.sections}
    urls = {(t.section, t.table_no): public_url_for("tables.entry", token=t.token)
            for t in toks}
    buf = io.BytesIO()
    table_cards_pdf(buf, f"{name} {date}".strip(), movements, urls)
    buf.seek(0)
    return send_file(buf, mimetype="application/pdf", download_name=f"table-cards-{ce_id}.pdf")
