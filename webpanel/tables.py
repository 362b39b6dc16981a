"""The table pages: a phone at the table enters its results with the token from the QR code.

The token is the only key: it opens one table of one event and nothing else
(no director page, no other table's entry form), until the director prints
new cards for the session or closes the event (then the page says so, 410).
Fair play (:mod:`dealer.store.results.fairplay`): a table enters only its
current round's boards; a board's hand record and traveller reach it only
after its own result on the board and as the director's reveal rule allows;
it changes its entries only in its current round.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import NoReturn

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import CSRFError
from werkzeug.wrappers import Response

from dealer.board import Board
from dealer.events.movements import Movement
from dealer.formats.sealing import is_sealed
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


def _gone(title: str, message: str) -> NoReturn:
    # 410 Gone: the card did open a table once; it never will again.
    abort(make_response(render_template("error.html", title=title, message=message), 410))


def _table(token: str) -> TableContext:
    found = contexts.table_context(store(), token)
    if not found:
        if rs.replaced_card(store(), token):
            _gone("Table card replaced", "This table card was replaced: the director has "
                  "printed new cards for this session. Scan the QR code of the new card on "
                  "your table.")
        abort(404)
    t, ce, ev = found
    if ce.closed_at is not None:
        _gone("Event closed", rs.closed_message())
    return TableContext(t, ce, rs.movement_of(ce, t.section), f"{ev.name} {ev.date}".strip())


def _round(ctx: TableContext, entered: Collection[int]) -> tuple[int, str]:
    """The round the page shows, and why not the one asked for (a later round).

    A table sees its rounds up to its current one (every round while the director
    lets tables enter ahead): a later round is not offered, and asking for it in
    the address shows the current round with a line saying so.
    """
    table = ctx.token.table_no
    cur = rs.current_round(ctx.movement, table, entered)
    raw = request.args.get("round", "")
    asked = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else cur
    if asked in rs.rounds_open(ctx.ce, ctx.movement, table, entered):
        return asked, ""
    if asked > cur:
        return cur, (f"Round {asked} is not open to this table: it is in round {cur}, and "
                     "enters that round's boards first.")
    return cur, ""


def _mine(ctx: TableContext, board: int | None = None) -> dict[int, rs.ResultLine]:
    """This table's results by board (only this table's; only ``board`` if given)."""
    return rs.table_results(store(), ctx.ce.id, ctx.token.section, ctx.token.table_no, board)


@bp.route("/<token>")
def entry(token: str) -> str | tuple[str, int]:
    ctx = _table(token)
    g.table_page = True
    return _render(ctx)


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


def _render(ctx: TableContext, *, form: dict | None = None,
            warnings: list[str] | None = None, error: str = "", field: str = "",
            conflict: str = "", status: int = 200) -> tuple[str, int] | str:
    mine = _mine(ctx)
    entered = set(mine)
    table, m, ce = ctx.token.table_no, ctx.movement, ctx.ce
    rnd, note = _round(ctx, entered)
    cur = rs.current_round(m, table, entered)
    sitting = m.at(table, rnd)
    said = "" if form or error or conflict else _said(mine)
    # Boards to enter: only in the current round (or a later one while entering ahead
    # is allowed); a finished round has none left anyway.
    todo = [b for b in sitting.boards if b not in mine] if rnd == cur or (
        ce.allow_ahead and rnd > cur) else []
    shown = ce.show_traveller or ce.show_hand_record
    page = render_template(
        "tables/entry.html", ctx=ctx, rnd=rnd, cur=cur, note=note, sitting=sitting,
        mine=mine, todo=todo,
        can_see={b for b in mine if shown and rs.reveals(ce.reveal_after, m, table, b, entered)},
        can_change={b for b in mine if ce.published_at is None
                    and rs.may_change(bool(ce.allow_ahead), m, table, b, entered)},
        form=form or {}, warnings=warnings or [], error=error, field=field, conflict=conflict,
        said=said, form_token=table_csrf(ctx.token.token),
        levels=LEVELS, strains=STRAINS, submission_id=uuid.uuid4().hex,
        table_page=True, rounds=rs.rounds_open(ce, m, table, entered))
    return (page, status) if status != 200 else page


@bp.route("/<token>/enter", methods=["POST"])
def enter(token: str) -> Response | str | tuple[str, int]:
    """A table's result. The round is the board's own at this table (the movement's),
    not the page's: a board of a later round is refused unless the director allows
    entering ahead (:func:`dealer.store.results.submit_at_table`)."""
    ctx = _table(token)
    f = request.form
    level, strain, dbl = f.get("level", ""), f.get("strain", ""), f.get("dbl", "")
    passed = f.get("passed") == "on"
    # Exact choices only: a truncated "SSSS..." must not quietly become a contract.
    if not passed and (level not in "1234567" or len(level) != 1
                       or strain not in {v for v, _ in STRAINS} or dbl not in ("", "X", "XX")):
        return _render(ctx, form=f, error="choose a level 1-7, a strain and X or XX",
                       field="contract", status=400)
    contract = "PASS" if passed else level + strain + dbl
    try:
        # Exactly as sent: a value too long or not a number is refused, never cut.
        board = fields.number(f, "board", 1, 10**6)
        if board is None:
            raise rs.EntryError("choose the board", "board")
        e = rs.Entry(board=board, contract=contract, declarer=f.get("declarer", ""),
                     tricks=fields.number(f, "tricks", 0, 13), lead=fields.text(f, "lead", 3))
        out = rs.submit_at_table(store(), ctx.ce, ctx.token.section, ctx.token.table_no, e,
                                 submission_id=f.get("submission_id", ""),
                                 who=f"table {ctx.token.section}{ctx.token.table_no}",
                                 confirm=f.get("confirm") == "on")
    except rs.Refused as exc:
        return _render(ctx, error=str(exc), status=403)
    except rs.EntryError as exc:
        return _render(ctx, form=f, error=str(exc), field=exc.field, status=400)
    if out.status == "needs-confirmation":
        return _render(ctx, form=f, warnings=out.warnings, status=422)
    if out.status == "conflict":
        return _render(ctx, conflict=out.message, status=409)
    # The outcome travels in the address (a board number), not in a flashed message:
    # nothing is written to the session cookie, and a reload shows the same page.
    said = "resent" if out.status == "duplicate" else "done"
    return redirect(url_for("tables.entry", token=token, **{said: board},
                            round=rs.round_of(ctx.movement, ctx.token.table_no, board)))


@bp.route("/<token>/fix/<int:board>", methods=["POST"])
def fix(token: str, board: int) -> Response | str | tuple[str, int]:
    """The table changes its own entry, with an audit row: only in its current round and
    until the results are published (:func:`dealer.store.results.correct_at_table`)."""
    ctx = _table(token)
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
        if isinstance(exc, rs.Refused) or exc.field == "published":
            return _render(ctx, error=str(exc), status=403)
        return _render(ctx, error=str(exc), field=exc.field, status=400)
    if out is None:  # this table has no entry on that board
        abort(404)
    if out.status == "conflict":
        return _render(ctx, conflict=out.message, status=409)
    said = "changed" if out.status == "corrected" else "rechanged"
    return redirect(url_for("tables.entry", token=token, **{said: board},
                            round=rs.round_of(ctx.movement, ctx.token.table_no, board)))


@bp.route("/<token>/board/<int:board>")
def board(token: str, board: int) -> str | tuple[str, int]:
    """The traveller so far and the hand record, once this table may see the board: its
    own result entered, and the director's reveal rule met (off, after the board, after
    the round). Showing it is remembered, so a later change of the result is flagged."""
    ctx = _table(token)
    table = ctx.token.table_no
    why = rs.reveal_refusal(ctx.ce, ctx.movement, table, board, set(_mine(ctx)))
    if why:
        return render_template("error.html", title="Not yet", message=why), 403
    traveller = []
    if ctx.ce.show_traveller:
        traveller = [r for r in rs.results(store(), ctx.ce.id)
                     if r.board == board and r.section == ctx.token.section]
    diagram = ""
    if ctx.ce.show_hand_record and ctx.ce.deal_set_id is not None:
        b = _board_of(ctx, board)
        if b is not None:
            diagram = handrecord.board_fragment(b)
    rs.record_view(store(), ctx.ce.id, ctx.token.section, table, board)
    return render_template("tables/board.html", ctx=ctx, board=board, traveller=traveller,
                           diagram=diagram, table_page=True)


def _board_of(ctx: TableContext, number: int) -> Board | None:
    """The board to show a table; never one of a sealed set (until the director unseals it)."""
    ds = rs.dealset_of(store(), ctx.ce)
    if ds is None or is_sealed(ds):
        return None
    return next((b for b in ds.boards if b.number == number), None)
