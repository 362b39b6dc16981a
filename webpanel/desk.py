"""The results desk: live rankings, travellers, corrections with their audit trail,
artificial scores, fouled boards and NS/EW swaps."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from dealer.store import results as rs
from webpanel import contexts, fields
from webpanel.db import store
from webpanel.scoring import score_event
from webpanel.security import director_required, who

bp = Blueprint("desk", __name__, url_prefix="/events/<int:ce_id>/desk")


@bp.route("/")
@director_required
def show(ce_id: int) -> str:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    scored = score_event(store(), ce_id)
    m = rs.movement(store(), ce_id, ce.sections[0])
    entered = {(r.section, r.table_no, r.board) for r in rs.results(store(), ce_id)}
    missing = [(sec, s) for sec in ce.sections for s in m.sittings
               if s.round <= ce.current_round and s.ns and s.ew
               for b in s.boards if (sec, s.table, b) not in entered]
    return render_template("desk/show.html", ce=ce, name=name, date=date, scored=scored,
                           changes=rs.changes(store(), ce_id), missing=missing,
                           window_open=rs.correction_window_open(ce),
                           # The cards replaced one by one are in the log by their hash:
                           # the desk shows the director's actions.
                           log=[a for a in rs.audit_log(store(), ce_id)
                                if a.action != "table-card-replaced"])


@bp.route("/rankings.json")
@director_required
def rankings_json(ce_id: int) -> Response:
    """For the desk's live refresh: the rankings and how many results there are."""
    scored = score_event(store(), ce_id)
    return jsonify(count=sum(len(t) for t in scored.travellers.values()), problem=scored.problem,
                   rankings={line: [s.__dict__ for s in st]
                             for line, st in scored.rankings.items()})


def _back(ce_id: int) -> Response:
    return redirect(url_for("desk.show", ce_id=ce_id) + request.form.get("anchor", ""))


def _mine(ce_id: int, result_id: int) -> rs.ResultRow:
    row = rs.result(store(), result_id)
    if row.club_event_id != ce_id:
        raise rs.EntryError(f"result {result_id} is not in this event")
    return row


@bp.route("/result/<int:result_id>", methods=["POST"])
@director_required
def correct(ce_id: int, result_id: int) -> Response:
    row = _mine(ce_id, result_id)
    f = request.form
    action = f.get("action", "correct")
    # Every field exactly as sent: too long, out of range or not a number is refused
    # (a 400 naming the field), never cut or clamped into something else.
    reason = fields.text(f, "reason", rs.REASON_MAX)
    version = fields.number(f, "version", 1, 10**9)
    if action == "play":
        n = rs.set_play(store(), row.id, fields.text(f, "play", 2000), who=who())
        flash(f"Board {row.board} table {row.table_no}: recorded play of {n} tricks.", "ok")
        return _back(ce_id)
    if action == "swap":
        out = rs.swap_pairs(store(), row.id, who=who(), reason=reason)
    elif action == "artificial":
        out = rs.correct(store(), row.id, who=who(), reason=reason or "artificial score",
                         expected_version=version,
                         ns_artificial=fields.text(f, "ns_artificial", 8),
                         ew_artificial=fields.text(f, "ew_artificial", 8))
    elif action == "fouled":
        out = rs.correct(store(), row.id, who=who(), reason=reason or "fouled board (Law 87)",
                         expected_version=version,
                         fouled_group=fields.number(f, "fouled_group", 0, 9, 0))
    elif action == "correct":
        values: dict[str, object] = {
            "contract": fields.text(f, "contract", 8), "declarer": fields.text(f, "declarer", 1),
            "tricks": fields.number(f, "tricks", 0, 13)}
        if "lead" in f:
            values["lead"] = fields.text(f, "lead", 3)
        out = rs.correct(store(), row.id, who=who(), reason=reason, expected_version=version,
                         ns_artificial=None, ew_artificial=None, not_played=False, **values)
    else:
        raise rs.EntryError(f"action: unknown action {action[:20]!r}", "action")
    flash(f"Board {row.board} table {row.table_no}: {out.status}: {out.message}",
          "ok" if out.status == "corrected" else "error")
    return _back(ce_id)


@bp.route("/adjust", methods=["POST"])
@director_required
def adjust(ce_id: int) -> Response:
    """An artificial score or not-played where the table entered nothing."""
    f = request.form
    table, rnd, board = (fields.number(f, k, 1, 10**6) for k in ("table", "round", "board"))
    if table is None or rnd is None or board is None:
        raise rs.EntryError("table, round and board must be numbers", "board")
    art = None if f.get("not_played") == "on" else (fields.text(f, "ns_artificial", 8, "A"),
                                                   fields.text(f, "ew_artificial", 8, "A"))
    out = rs.director_entry(store(), ce_id, fields.text(f, "section", 4, "A"), table, rnd,
                            board, who=who(), artificial=art, not_played=art is None)
    flash(f"Board {board} table {table}: {out.status}: {out.message}",
          "ok" if out.status == "recorded" else "error")
    return _back(ce_id)


@bp.route("/ahead", methods=["POST"])
@director_required
def ahead(ce_id: int) -> Response:
    """The director's switch: may tables enter boards ahead of their current round?"""
    on = fields.text(request.form, "allow_ahead", 3) == "on"
    contexts.update_event(store(), ce_id, allow_ahead=on)
    with store().write() as s:
        rs.add_audit(s, who(), "allow-ahead" if on else "no-ahead", f"event {ce_id}",
                     "tables may enter ahead of their round" if on else
                     "tables enter their current round only")
    flash("Tables may now enter boards ahead of their round; each such entry is logged."
          if on else "Tables enter their current round's boards only.", "ok")
    return _back(ce_id)


@bp.route("/publish", methods=["POST"])
@director_required
def publish(ce_id: int) -> Response:
    """Make the results official: the Law 79C correction period starts now."""
    contexts.update_event(store(), ce_id, published_at=datetime.now(UTC))
    flash("Results published; the correction period has started.", "ok")
    return _back(ce_id)
