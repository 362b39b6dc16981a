"""The table pages: a phone at the table enters its results with the token from the QR code.

The token is the only key: it opens one table of one event and nothing else
(no director page, no other table's entry form). The hand record of a board
reaches a table only after that table has recorded its result on it, so a
sealed or unplayed deal is never shown early.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from dataclasses import dataclass

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.wrappers import Response

from dealer.board import Board
from dealer.events.movements import Movement
from dealer.store import results as rs
from dealer.store.panel_models import ClubEvent, TableToken
from webpanel import contexts, fields, handrecord
from webpanel.db import store

bp = Blueprint("tables", __name__, url_prefix="/t")


def table_csrf(token: str) -> str:
    """The CSRF token of a table's forms: the table's own token signed with the app secret.

    A table's forms need no cookie at all (a phone that refuses cookies still
    works, and no session is read or written per entry). A page from another
    site cannot post to a table: it knows neither the table's token (the
    address) nor this value. The director's pages keep Flask-WTF's
    session-bound tokens.
    """
    key = str(current_app.secret_key).encode()
    return hmac.new(key, b"table-form:" + token.encode(), hashlib.sha256).hexdigest()


@bp.before_request
def _check_form_token() -> None:
    # The blueprint is exempt from CSRFProtect (see create_app); this is its check.
    if request.method == "POST":
        token = (request.view_args or {}).get("token", "")
        sent = request.form.get("csrf_token", "")
        if not sent or not hmac.compare_digest(sent, table_csrf(token)):
            raise CSRFError("The CSRF token is missing or does not belong to this table.")

LEVELS = range(1, 8)
STRAINS = (("C", "♣"), ("D", "♦"), ("H", "♥"), ("S", "♠"), ("NT", "NT"))


@dataclass
class TableContext:
    token: TableToken
    ce: ClubEvent
    movement: Movement
    name: str


def _table(token: str) -> TableContext:
    found = contexts.table_context(store(), token)
    if not found:
        abort(404)
    t, ce, ev = found
    return TableContext(t, ce, rs.movement_of(ce, t.section), f"{ev.name} {ev.date}".strip())


def _round(ctx: TableContext) -> int:
    try:
        r = int(request.values.get("round", ctx.ce.current_round))
    except ValueError:
        r = ctx.ce.current_round
    return min(max(r, 1), ctx.movement.rounds)


def _mine(ctx: TableContext, board: int | None = None) -> dict[int, rs.ResultLine]:
    """This table's results by board (only this table's; only ``board`` if given)."""
    return rs.table_results(store(), ctx.ce.id, ctx.token.section, ctx.token.table_no, board)


@bp.route("/<token>")
def entry(token: str) -> str:
    ctx = _table(token)
    g.table_page = True
    rnd = _round(ctx)
    return _render(ctx, rnd)


_SAID = {
    "done": "Board {b} recorded: {row}.",
    "resent": "Board {b} was already recorded from this form; nothing was added.",
    "changed": "Board {b} changed: {row}.",
    "rechanged": "Board {b}: already changed from this form; nothing more was done.",
}


def _said(mine: dict[int, rs.ResultLine]) -> str:
    """The line confirming what the last form did, from the redirect's address."""
    for key, text in _SAID.items():
        b = request.args.get(key, type=int)
        if b is not None and b in mine:
            return text.format(b=b, row=rs.describe(mine[b]))
    return ""


def _render(ctx: TableContext, rnd: int, *, form: dict | None = None,
            warnings: list[str] | None = None, error: str = "", field: str = "",
            conflict: str = "", status: int = 200) -> tuple[str, int] | str:
    sitting = ctx.movement.at(ctx.token.table_no, rnd)
    mine = _mine(ctx)
    said = "" if form or error or conflict else _said(mine)
    todo = [b for b in sitting.boards if b not in mine]
    page = render_template(
        "tables/entry.html", ctx=ctx, rnd=rnd, sitting=sitting, mine=mine, todo=todo,
        form=form or {}, warnings=warnings or [], error=error, field=field, conflict=conflict,
        said=said, form_token=table_csrf(ctx.token.token),
        levels=LEVELS, strains=STRAINS, submission_id=uuid.uuid4().hex,
        table_page=True, rounds=range(1, ctx.movement.rounds + 1))
    return (page, status) if status != 200 else page


@bp.route("/<token>/enter", methods=["POST"])
def enter(token: str) -> Response | str | tuple[str, int]:
    ctx = _table(token)
    rnd = _round(ctx)
    f = request.form
    level, strain, dbl = f.get("level", ""), f.get("strain", ""), f.get("dbl", "")
    passed = f.get("passed") == "on"
    # Exact choices only: a truncated "SSSS..." must not quietly become a contract.
    if not passed and (level not in "1234567" or len(level) != 1
                       or strain not in {v for v, _ in STRAINS} or dbl not in ("", "X", "XX")):
        return _render(ctx, rnd, form=f, error="choose a level 1-7, a strain and X or XX",
                       field="contract", status=400)
    contract = "PASS" if passed else level + strain + dbl
    try:
        # Exactly as sent: a value too long or not a number is refused, never cut.
        board = fields.number(f, "board", 1, 10**6)
        if board is None:
            raise rs.EntryError("choose the board", "board")
        e = rs.Entry(board=board, contract=contract, declarer=f.get("declarer", ""),
                     tricks=fields.number(f, "tricks", 0, 13), lead=fields.text(f, "lead", 3))
        out = rs.submit(store(), ctx.ce.id, ctx.token.section, ctx.token.table_no, rnd, e,
                        submission_id=f.get("submission_id", ""),
                        who=f"table {ctx.token.section}{ctx.token.table_no}",
                        confirm=f.get("confirm") == "on", ce=ctx.ce)
    except rs.EntryError as exc:
        return _render(ctx, rnd, form=f, error=str(exc), field=exc.field, status=400)
    if out.status == "needs-confirmation":
        return _render(ctx, rnd, form=f, warnings=out.warnings, status=422)
    if out.status == "conflict":
        return _render(ctx, rnd, conflict=out.message, status=409)
    # The outcome travels in the address (a board number), not in a flashed message:
    # nothing is written to the session cookie, and a reload shows the same page.
    said = "resent" if out.status == "duplicate" else "done"
    return redirect(url_for("tables.entry", token=token, round=rnd, **{said: board}))


@bp.route("/<token>/fix/<int:board>", methods=["POST"])
def fix(token: str, board: int) -> Response | str | tuple[str, int]:
    """The table changes its own entry (until the results are published), with an audit row."""
    ctx = _table(token)
    rnd = _round(ctx)
    f = request.form
    try:
        version = fields.number(f, "version", 1, 10**9)
        if version is None:
            raise rs.EntryError("the form is incomplete; reload the page", "version")
        # Exactly as sent, never cut: the core refuses what it cannot record as typed.
        changes: dict[str, object] = {
            "contract": fields.text(f, "contract", 8), "declarer": f.get("declarer", ""),
            "tricks": fields.number(f, "tricks", 0, 13)}
        if "lead" in f:  # the change form has no lead: keep the one recorded
            changes["lead"] = fields.text(f, "lead", 3)
        out = rs.correct_at_table(
            store(), ctx.ce, ctx.token.section, ctx.token.table_no, board,
            who=f"table {ctx.token.section}{ctx.token.table_no}",
            reason=f.get("reason", "corrected at the table"),
            submission_id=f.get("submission_id", "") or None, expected_version=version,
            **changes)
    except rs.EntryError as exc:
        if exc.field == "published":
            return _render(ctx, rnd, error=str(exc), status=403)
        return _render(ctx, rnd, error=str(exc), field=exc.field, status=400)
    if out is None:  # this table has no entry on that board
        abort(404)
    if out.status == "conflict":
        return _render(ctx, rnd, conflict=out.message, status=409)
    said = "changed" if out.status == "corrected" else "rechanged"
    return redirect(url_for("tables.entry", token=token, round=rnd, **{said: board}))


@bp.route("/<token>/board/<int:board>")
def board(token: str, board: int) -> str:
    """The traveller so far and the hand record, once this table has played the board."""
    ctx = _table(token)
    if board not in _mine(ctx, board):
        # Never before the board is finished here (sealed deals stay sealed).
        abort(403)
    traveller = []
    if ctx.ce.show_traveller:
        traveller = [r for r in rs.results(store(), ctx.ce.id)
                     if r.board == board and r.section == ctx.token.section]
    diagram = ""
    if ctx.ce.show_hand_record and ctx.ce.deal_set_id is not None:
        b = _board_of(ctx, board)
        if b is not None:
            diagram = handrecord.board_fragment(b)
    return render_template("tables/board.html", ctx=ctx, board=board, traveller=traveller,
                           diagram=diagram, table_page=True)


def _board_of(ctx: TableContext, number: int) -> Board | None:
    ds = rs.dealset_of(store(), ctx.ce)
    if ds is None:
        return None
    return next((b for b in ds.boards if b.number == number), None)


@bp.errorhandler(403)
def _forbidden(e: Exception) -> tuple[str, int]:
    return render_template("error.html", title="Not yet",
                           message="This table has not finished that board yet."), 403
