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
from webpanel import contexts, handrecord
from webpanel import fields as exact
from webpanel.db import store
from webpanel.lan import public_url_for
from webpanel.security import director_required, who
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


def _options(f, movement: str, tables: int) -> dict[str, object]:
    """The movement options typed on the form, in the core's terms (rs.check_options)."""
    opts: dict[str, object] = {}
    miss = f.get("missing_pair", "").strip().upper().replace("-", " ")
    if miss:
        parts = miss.split()
        if movement == "howell" and len(parts) == 1 and parts[0].isdigit():
            opts["missing"] = int(parts[0])
        elif (movement == "mitchell" and len(parts) == 2 and parts[0] in ("NS", "EW")
              and parts[1].isdigit()):
            opts["missing"] = [parts[0], int(parts[1])]
        else:
            raise rs.EntryError(f"missing pair {miss!r}: write EW 7 or NS 3 (Mitchell) or a "
                                "pair number (Howell)", "missing_pair")
    elif f.get("half_table") == "on":
        opts["missing"] = "last"
    if movement != "mitchell":
        return opts
    method = f.get("method", "auto")
    opts["method"] = method
    ew = _int("ew_offset", None, 0, 999)
    if ew is not None:
        opts["ew_offset"] = ew
    arrow = f.get("arrow_switch", "").replace(",", " ").split()
    if arrow:
        rounds = _int("rounds", None, 1, 40)
        if rounds is None:
            even = tables % 2 == 0
            rounds = tables - 1 if (even and method == "skip") else tables
        try:
            opts["arrow_switch"] = [rounds if a.lower() == "last" else int(a) for a in arrow]
        except ValueError:
            raise rs.EntryError("arrow switch: round numbers or 'last'", "arrow_switch") from None
    return opts


def _event_fields() -> dict[str, object]:
    f = request.form
    movement = f.get("movement", "mitchell")
    tables = _int("tables", 0, 0, 40) or 0
    out: dict[str, object] = dict(
        name=f.get("name", ""), date=exact.text(f, "date", 32), kind=f.get("kind", "pairs"),
        movement=movement, tables=tables, rounds=_int("rounds", None, 1, 40),
        boards_per_round=_int("boards_per_round", 2, 1, 8) or 2,
        sections=f.get("sections", "A").replace(",", " ").split(),
        scoring=f.get("scoring", "matchpoints"), options=_options(f, movement, tables))
    if "reveal_after" in f:  # absent (an older form): the event keeps its rule
        out["reveal_after"] = exact.text(f, "reveal_after", 8)
    return out


@bp.route("/new", methods=["GET", "POST"])
@director_required
def new() -> Response | str | tuple[str, int]:
    sets = store().list()
    if request.method == "POST":
        f = request.form
        try:
            ds = _int("deal_set_id")
            fields = _event_fields()
            continues = _int("continues", None, 1, 10**9)
            ce = rs.create_club_event(
                store(), str(fields.pop("name")), **fields,  # type: ignore[arg-type]
                deal_set_id=ds if ds and any(s.id == ds for s in sets) else None)
            try:
                rs.join(store(), ce, continues, who=who())
            except rs.EntryError:  # not a session of that event: no event at all
                rs.delete_club_event(store(), ce)
                raise
        except rs.EntryError as exc:
            flash(f"{exc.field or 'form'}: {exc}", "error")
            return render_template("events/new.html", sets=sets, form=f,
                                   events=_firsts()), 400
        _solve_ahead(ds if ds and any(s.id == ds for s in sets) else None)
        flash("Event created.", "ok")
        return redirect(url_for("events.show", ce_id=ce))
    return render_template("events/new.html", sets=sets, form={}, events=_firsts())


def _solve_ahead(set_id: int | None) -> None:
    """The set's boards solved double dummy in the background (webpanel.handrecord): a
    set imported with the command line, or stored before the panel solved sets ahead,
    is ready before its event's results are published."""
    if set_id is not None:
        handrecord.ahead(store().load(set_id).boards)


def _firsts(but: int | None = None) -> list[tuple[int, str]]:
    """The events a new session may continue: (id, "name date"), one per multi-session
    event (its first session) and every one-session event, the latest first."""
    return [(ce.id, f"{ev.name} {ev.date}".strip()) for ce, ev in rs.list_events(store())
            if ce.id != but and ce.group_id in (None, ce.id)]


def _form_of(ce_id: int) -> dict[str, str]:
    """The event's settings as the form shows them."""
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    o = ce.movement_options or {}
    miss = o.get("missing")
    return {"name": name, "date": date, "kind": ce.kind, "movement": ce.movement,
            "tables": str(ce.tables), "rounds": "" if ce.rounds is None else str(ce.rounds),
            "boards_per_round": str(ce.boards_per_round), "sections": " ".join(ce.sections),
            "scoring": ce.scoring, "method": str(o.get("method", "auto")),
            "arrow_switch": " ".join(map(str, o.get("arrow_switch", []))),  # type: ignore[call-overload]
            "ew_offset": "" if o.get("ew_offset") is None else str(o["ew_offset"]),
            "missing_pair": "" if miss is None else (
                " ".join(map(str, miss)) if isinstance(miss, list) else str(miss)),
            "reveal_after": ce.reveal_after,
            "continues": "" if ce.group_id in (None, ce.id) else str(ce.group_id)}


@bp.route("/<int:ce_id>/edit", methods=["GET", "POST"])
@director_required
def edit(ce_id: int) -> Response | str | tuple[str, int]:
    ce = rs.get_event(store(), ce_id)
    locked = rs.result_count(store(), ce_id)
    if request.method == "POST":
        f = request.form
        try:
            if locked:  # only the name and date: the rest is taken as it is
                fields: dict[str, object] = {**_form_of(ce_id), "name": f.get("name", ""),
                                             "date": exact.text(f, "date", 32)}
                keep = dict(kind=ce.kind, movement=ce.movement, tables=ce.tables,
                            rounds=ce.rounds, boards_per_round=ce.boards_per_round,
                            sections=ce.sections, scoring=ce.scoring,
                            options=ce.movement_options)
                rs.edit_club_event(store(), ce_id, str(fields["name"]),
                                   date=str(fields["date"]),
                                   reveal_after=exact.text(f, "reveal_after", 8) or None,
                                   **keep)  # type: ignore[arg-type]
            else:
                fields = _event_fields()
                rs.edit_club_event(store(), ce_id, str(fields.pop("name")),
                                   **fields)  # type: ignore[arg-type]
            continues = _int("continues", None, 1, 10**9)
            if continues is not None or ce.group_id not in (None, ce_id):
                # The first session keeps its group: "" is "no earlier session" for it.
                rs.join(store(), ce_id, continues, who=who())
        except rs.EntryError as exc:
            flash(f"{exc.field or 'form'}: {exc}", "error")
            return render_template("events/edit.html", ce=ce, form=f, locked=locked,
                                   results=locked, events=_firsts(ce_id)), 400
        contexts.forget_contexts()
        flash("Event saved.", "ok")
        return redirect(url_for("events.show", ce_id=ce_id))
    return render_template("events/edit.html", ce=ce, form=_form_of(ce_id), locked=locked,
                           results=locked, events=_firsts(ce_id))


@bp.route("/<int:ce_id>/delete", methods=["POST"])
@director_required
def remove(ce_id: int) -> Response:
    name, _date = rs.event_name(store(), ce_id)
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm the deletion.", "error")
        return redirect(url_for("events.edit", ce_id=ce_id))
    gone = rs.delete_club_event(store(), ce_id)
    contexts.forget_contexts()
    flash(f"Deleted the event {name!r} and its {gone} results.", "ok")
    return redirect(url_for("events.index"))


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
                           sessions=rs.sessions(store(), ce_id),
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
        values["ew_accept"] = request.form.get("ew_accept") == "on"
        if "reveal_after" in request.form:
            values["reveal_after"] = exact.text(request.form, "reveal_after", 8)
    if "deal_set_id" in request.form:
        ds = _int("deal_set_id")
        values["deal_set_id"] = ds if ds and any(s.id == ds for s in store().list()) else None
    try:
        contexts.update_event(store(), ce_id, **values)
    except rs.EntryError as exc:  # said on the event's page, beside the form
        flash(f"{exc.field or 'form'}: {exc}", "error")
        return redirect(url_for("events.show", ce_id=ce_id))
    if values.get("deal_set_id") not in (None, ce.deal_set_id):
        _solve_ahead(values["deal_set_id"])  # type: ignore[arg-type]
    flash("Saved.", "ok")
    return redirect(url_for("events.show", ce_id=ce_id))


@bp.route("/<int:ce_id>/new-cards", methods=["POST"])
@director_required
def new_cards(ce_id: int) -> Response:
    """New table cards for the session: every table gets a new token and the old
    cards open nothing (a card left on a table, photographed or taken home)."""
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm: the cards on the tables will stop working.", "error")
        return redirect(url_for("events.show", ce_id=ce_id) + "#cards")
    issue = rs.new_table_cards(store(), ce_id, who=who())
    contexts.forget_contexts()
    flash(f"New table cards issued (issue {issue}): print them and put them on the tables; "
          "the earlier cards no longer open a table.", "ok")
    return redirect(url_for("events.show", ce_id=ce_id) + "#cards")


@bp.route("/<int:ce_id>/close", methods=["POST"])
@director_required
def close(ce_id: int) -> Response:
    """Close the event: its table cards stop working; the director keeps every page."""
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm: the table cards will stop working for good.", "error")
        return redirect(url_for("events.show", ce_id=ce_id) + "#cards")
    rs.close_event(store(), ce_id, who=who())
    contexts.forget_contexts()
    flash("Event closed: its table cards no longer open it.", "ok")
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
