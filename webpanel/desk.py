"""The results desk: live rankings, travellers, the tables' progress, corrections with
their audit trail, artificial scores, fouled boards, NS/EW swaps and the director's own
entry for a table whose phone died.

A form that cannot be carried out is answered with the desk itself, the message
beside the form and the form as it was typed (status 400), never a bare error page.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from dealer.errors import BoardwrightError
from dealer.store import results as rs
from dealer.store.panel_models import ResultRow
from dealer.store.results.progress import SLOW_MINUTES
from webpanel import contexts, fields
from webpanel.db import store
from webpanel.scoring import Scored, score_event
from webpanel.security import director_required, who

bp = Blueprint("desk", __name__, url_prefix="/events/<int:ce_id>/desk")

#: The corrections that change a result: each needs a reason for the audit trail.
CORRECTIONS = ("correct", "artificial", "weighted", "fouled", "swap")


@dataclass
class FormError:
    """A refused desk form: which form (``r<result id>`` or ``entry``), why, and what
    was typed, so the desk shows it again as it was."""

    form: str
    message: str
    field: str = ""
    values: dict[str, str] = dataclasses.field(default_factory=dict)

    def value(self, form: str, name: str, default: object = "") -> object:
        """What the form showed for ``name``: as typed when this form was refused."""
        if form == self.form and name in self.values:
            return self.values[name]
        return default


class _NoError(FormError):
    def value(self, form: str, name: str, default: object = "") -> object:
        return default


def _context(ce_id: int) -> dict[str, object]:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    stamp = rs.desk_stamp(store(), ce_id)  # before the reads: a later change shows next time
    scored = score_event(store(), ce_id)
    rows = rs.results(store(), ce_id)
    movements = {sec: rs.movement(store(), ce_id, sec) for sec in ce.sections}
    progress = rs.table_progress(movements, rows, datetime.now(UTC))
    return dict(ce=ce, name=name, date=date, scored=scored, trail=rs.trail(store(), ce_id),
                progress=progress, room=min((p.round for p in progress
                                             if p.state != "finished"), default=None),
                slow_minutes=SLOW_MINUTES, window_open=rs.correction_window_open(ce),
                stamp=stamp,
                sid=secrets.token_hex(16),
                # The cards replaced one by one are in the log by their hash: the desk
                # shows the director's actions.
                log=[a for a in rs.audit_log(store(), ce_id)
                     if a.action != "table-card-replaced"])


@bp.route("/")
@director_required
def show(ce_id: int) -> str:
    return render_template("desk/show.html", error=_NoError("", ""), **_context(ce_id))


def _refused(ce_id: int, form: str, exc: BoardwrightError) -> tuple[str, int]:
    """The desk again, with the message beside ``form`` and what was typed in it."""
    values = {k: v for k, v in request.form.items() if k != "csrf_token"}
    err = FormError(form, str(exc), getattr(exc, "field", ""), values)
    return render_template("desk/show.html", error=err, **_context(ce_id)), 400


@bp.route("/rankings.json")
@director_required
def rankings_json(ce_id: int) -> Response:
    """For the desk's live refresh: the rankings and how many results there are."""
    scored = score_event(store(), ce_id)
    return jsonify(count=sum(len(t) for t in scored.travellers.values()), problem=scored.problem,
                   rankings={line: [s.__dict__ for s in st]
                             for line, st in scored.rankings.items()})


@bp.route("/live.json")
@director_required
def live(ce_id: int) -> Response:
    """The desk's live parts, for the page to patch in place (static/panel.js).

    ``?stamp=`` as the page last had it: while the results are the same the answer
    is the stamp alone. Otherwise (and without a stamp) the parts: the rankings, the
    tables' progress, the audit trail and each board's traveller, as HTML.
    """
    stamp = request.args.get("stamp", "")
    if stamp and len(stamp) <= 40 and stamp == rs.desk_stamp(store(), ce_id):
        return jsonify(stamp=stamp)
    ctx = _context(ce_id)
    ctx["error"] = _NoError("", "")
    scored = ctx["scored"]
    assert isinstance(scored, Scored)
    parts = {name: render_template(f"desk/_{name}.html", **ctx).strip()
             for name in ("rankings", "tables", "trail")}
    for board, lines in sorted(scored.travellers.items()):
        parts[f"tr-{board}"] = render_template("desk/_traveller.html", board=board,
                                               lines=lines, **ctx).strip()
    return jsonify(stamp=ctx["stamp"], count=sum(len(t) for t in scored.travellers.values()),
                   parts=parts)


def _back(ce_id: int) -> Response:
    return redirect(url_for("desk.show", ce_id=ce_id) + request.form.get("anchor", ""))


def _mine(ce_id: int, result_id: int) -> ResultRow:
    row = rs.result(store(), result_id)
    if row.club_event_id != ce_id:
        raise rs.EntryError(f"result {result_id} is not in this event")
    return row


def _reason(action: str, reason: str) -> str:
    """A correction's reason, which the audit trail must have (Law 79C, a ruling)."""
    if action in CORRECTIONS and not reason.strip():
        raise rs.EntryError("reason: say why the result is corrected (it goes in the audit "
                            "trail)", "reason")
    return reason.strip()


@bp.route("/result/<int:result_id>", methods=["POST"])
@director_required
def correct(ce_id: int, result_id: int) -> Response | tuple[str, int]:
    try:
        row = _mine(ce_id, result_id)
    except rs.EntryError as exc:
        return _refused(ce_id, "", exc)
    try:
        return _correct(ce_id, row)
    except BoardwrightError as exc:
        return _refused(ce_id, f"r{row.id}", exc)


def _correct(ce_id: int, row: ResultRow) -> Response | tuple[str, int]:
    f = request.form
    action = f.get("action", "correct")
    # Every field exactly as sent: too long, out of range or not a number is refused
    # (naming the field), never cut or clamped into something else.
    reason = fields.text(f, "reason", rs.REASON_MAX)
    version = fields.number(f, "version", 1, 10**9)
    if action == "play":
        n = rs.set_play(store(), row.id, fields.text(f, "play", 2000), who=who())
        flash(f"Board {row.board} table {row.table_no}: recorded play of {n} tricks.", "ok")
        return _back(ce_id)
    if action == "swap":
        out = rs.swap_pairs(store(), row.id, who=who(), reason=_reason(action, reason))
    elif action == "artificial":
        ns_a, ew_a = fields.text(f, "ns_artificial", 8), fields.text(f, "ew_artificial", 8)
        out = rs.correct(store(), row.id, who=who(), reason=_reason(action, reason),
                         expected_version=version, ns_artificial=ns_a, ew_artificial=ew_a)
    elif action == "weighted":
        out = rs.correct(store(), row.id, who=who(), reason=_reason(action, reason),
                         expected_version=version, weighted=fields.text(f, "weighted", 200),
                         ns_artificial=None, ew_artificial=None, not_played=False)
    elif action == "fouled":
        group = fields.number(f, "fouled_group", 0, 9, 0)
        out = rs.correct(store(), row.id, who=who(), reason=_reason(action, reason),
                         expected_version=version, fouled_group=group)
    elif action == "correct":
        contract, declarer = fields.text(f, "contract", 8), fields.text(f, "declarer", 1)
        tricks = fields.number(f, "tricks", 0, 13)
        # The lead only when the form has the field: absent, the recorded lead stays.
        lead = {"lead": fields.text(f, "lead", 3)} if "lead" in f else {}
        out = rs.correct(store(), row.id, who=who(), reason=_reason(action, reason),
                         expected_version=version, ns_artificial=None, ew_artificial=None,
                         not_played=False, weighted=None, contract=contract,
                         declarer=declarer, tricks=tricks, **lead)
    else:
        raise rs.EntryError(f"action: unknown action {action[:20]!r}", "action")
    if out.status != "corrected":  # a conflict: said beside the form, as typed
        raise rs.EntryError(f"{out.status}: {out.message}", "version")
    flash(f"Board {row.board} table {row.table_no}: {out.status}: {out.message}", "ok")
    return _back(ce_id)


@bp.route("/adjust", methods=["POST"])
@director_required
def adjust(ce_id: int) -> Response | tuple[str, int]:
    """The director's entry where the table entered nothing: the table's own result
    (its phone died), an artificial score, or not played."""
    try:
        return _adjust(ce_id)
    except BoardwrightError as exc:
        return _refused(ce_id, "entry", exc)


def _adjust(ce_id: int) -> Response:
    f = request.form
    table, rnd, board = (fields.number(f, k, 1, 10**6) for k in ("table", "round", "board"))
    for name, v in (("table", table), ("round", rnd), ("board", board)):
        if v is None:
            raise rs.EntryError(f"{name}: say which {name} (a number)", name)
    assert table is not None and rnd is not None and board is not None
    section = fields.text(f, "section", 4, "A")
    action = f.get("action", "")
    if action == "result" or (not action and f.get("contract")):
        entry = rs.Entry(board, fields.text(f, "contract", 8), fields.text(f, "declarer", 1),
                         fields.number(f, "tricks", 0, 13), fields.text(f, "lead", 3))
        out = rs.director_result(store(), ce_id, section, table, rnd, entry, who=who(),
                                 submission_id=fields.text(f, "sid", 64) or secrets.token_hex(16))
    elif action == "weighted":
        out = rs.director_entry(store(), ce_id, section, table, rnd, board, who=who(),
                                weighted=fields.text(f, "weighted", 200))
    else:
        art = None if (action == "not_played" or f.get("not_played") == "on") else (
            fields.text(f, "ns_artificial", 8, "A"), fields.text(f, "ew_artificial", 8, "A"))
        out = rs.director_entry(store(), ce_id, section, table, rnd, board, who=who(),
                                artificial=art, not_played=art is None)
    if out.status not in ("recorded", "duplicate"):
        raise rs.EntryError(f"{out.status}: {out.message}", "board")
    flash(f"Board {board} table {section}{table}: {out.status}: {out.message}", "ok")
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
    """Make the results official (confirmed): the publication step lives in
    :func:`webpanel.publish.confirm`; an unconfirmed post goes to its confirmation page."""
    if request.form.get("confirm") != "yes":
        return redirect(url_for("publish.confirm", ce_id=ce_id))
    rs.publish(store(), ce_id, who=who())
    contexts.forget_contexts()
    flash("Results published; the correction period has started.", "ok")
    return _back(ce_id)
