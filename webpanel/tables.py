"""The table pages: a phone at the table enters its results with the token from the QR code.

The token is the only key: it opens one table of one event and nothing else
(no director page, no other table's entry form), until the director prints
new cards for the session or closes the event (then the page says so, 410).
Fair play (:mod:`dealer.store.results.fairplay`): a table enters only its
current round's boards; a board's hand record and traveller reach it only
after its own result on the board and as the director's reveal rule allows;
it changes its entries only in its current round.

Entry works as on a Bridgemate: the result relative to the contract (``=``,
``+1``, ``-2``, or the tricks taken), the score shown before it is sent (live
from :func:`score` with JavaScript; a confirm step without it), East-West's
acceptance when the director asks for it (:func:`accept`), a board not played
with its reason, and at the end of a round the movement's instruction
(:func:`dealer.events.moves.after_round`) before the next round opens.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import NoReturn

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
)
from flask_wtf.csrf import CSRFError
from werkzeug.wrappers import Response

from dealer.board import Board
from dealer.events.model import EventError
from dealer.events.movements import Movement
from dealer.events.moves import after_round
from dealer.formats.sealing import is_sealed
from dealer.store import Store
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
    return table_csrf_for(current_app.secret_key, token)


def table_csrf_for(secret_key: object, token: str) -> str:
    """:func:`table_csrf` with the app's secret given (the fast path has no app context)."""
    key = str(secret_key).encode()
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
#: The result chips, as values (ASCII) and as shown: made exactly and overtricks, then
#: the usual undertricks; -8 to -13 are one tap further ("more").
RESULTS_UP = tuple((v, v) for v in ("=", "+1", "+2", "+3", "+4", "+5", "+6"))
RESULTS_DOWN = tuple((f"-{n}", f"\u2212{n}") for n in range(1, 8))
RESULTS_MORE = tuple((f"-{n}", f"\u2212{n}") for n in range(8, 14))
#: The fields of the entry form, carried through the confirm step.
ENTRY_FIELDS = ("board", "level", "strain", "dbl", "passed", "declarer", "result", "tricks",
                "lead", "not_played", "not_played_other")


def line_words(r: rs.ResultLine) -> str:
    """A recorded result as the table's phone lists it: ``4S N 11 tricks (+1), NS +450``."""
    if r.ns_artificial:
        return "adjusted"
    if r.not_played:
        return f"not played ({r.not_played_reason})" if r.not_played_reason else "not played"
    if r.contract == "PASS":
        return "passed out"
    return (f"{r.contract} {r.declarer} {r.tricks} tricks ({rs.relative(r.contract, r.tricks)}),"
            f" NS {r.score:+d}")


@dataclass
class TableContext:
    token: TableToken
    ce: ClubEvent
    movement: Movement
    name: str


def _gone(title: str, message: str) -> NoReturn:
    # 410 Gone: the card did open a table once; it never will again.
    abort(make_response(render_template("error.html", title=title, message=message), 410))


def table_of(st: Store, token: str) -> TableContext | None:
    """The table ``token`` opens, if it is open: ``None`` for an unknown or replaced
    card and a closed event (:func:`_table` says which, on a page)."""
    found = contexts.table_context(st, token)
    if not found or found[1].closed_at is not None:
        return None
    t, ce, ev = found
    return TableContext(t, ce, rs.movement_of(ce, t.section), f"{ev.name} {ev.date}".strip())


def _table(token: str) -> TableContext:
    ctx = table_of(store(), token)
    if ctx is not None:
        return ctx
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
    "accepted": "Board {b} accepted by East-West: {row}.",
    "reaccepted": "Board {b} was already accepted; nothing more was done.",
}


def _said(mine: dict[int, rs.ResultLine]) -> str:
    """The line confirming what the last form did, from the redirect's address."""
    for key, text in _SAID.items():
        b = request.args.get(key, type=int)
        if b is not None and b in mine:
            if mine[b].pending and key in ("done", "changed"):
                text = "Board {b}: {row}. Now pass the phone to East-West to accept it."
            return text.format(b=b, row=rs.describe(mine[b]))
    return ""


def _chosen(r: rs.ResultLine) -> dict[str, str]:
    """A recorded result as the chips show it (the change form starts from it)."""
    c = r.contract or ""
    out = {"declarer": r.declarer or "", "lead": r.lead or "",
           "tricks": "" if r.tricks is None else str(r.tricks)}
    if c == "PASS":
        return {**out, "passed": "on"}
    if c[:1].isdigit():
        body = c[1:]
        dbl = "XX" if body.endswith("XX") else "X" if body.endswith("X") else ""
        out.update(level=c[0], strain=body[: len(body) - len(dbl)], dbl=dbl,
                   result=rs.relative(c, r.tricks).replace("\u2212", "-"))
    return out


def _render(ctx: TableContext, *, form: dict | None = None,
            warnings: list[str] | None = None, error: str = "", field: str = "",
            conflict: str = "", check: rs.Preview | None = None,
            status: int = 200) -> tuple[str, int] | str:
    mine = _mine(ctx)
    # A result East-West have not accepted yet is not entered for the round's rules
    # (fairplay): the table still changes it, and it shows nothing of the board.
    pending = {b: r for b, r in mine.items() if r.pending}
    entered = {b for b in mine if b not in pending}
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
        mine=mine, todo=todo, pending=pending, entered=entered, words=line_words,
        moves=_moves(m, table, rnd, cur, entered),
        can_see={b for b in entered if shown and rs.reveals(ce.reveal_after, m, table, b,
                                                             entered)},
        can_change={b for b in mine if ce.published_at is None
                    and rs.may_change(bool(ce.allow_ahead), m, table, b, entered)},
        form=form or {}, warnings=warnings or [], error=error, field=field, conflict=conflict,
        check=check, said=said, form_token=table_csrf(ctx.token.token), chosen=_chosen,
        relative=rs.relative, levels=LEVELS, strains=STRAINS, results_up=RESULTS_UP,
        results_down=RESULTS_DOWN, results_more=RESULTS_MORE, entry_fields=ENTRY_FIELDS,
        reasons=rs.NOT_PLAYED_REASONS, submission_id=uuid.uuid4().hex,
        table_page=True, rounds=rs.rounds_open(ce, m, table, entered))
    return (page, status) if status != 200 else page


def _moves(m: Movement, table: int, rnd: int, cur: int, entered: set[int]) -> str:
    """The movement's instruction to show: after the round on the page, once the table
    has entered all of it; or, on the current round before its first entry, the move
    that brought the players here. Empty when there is nothing to say."""
    try:
        if rs.round_done(m, table, rnd, entered) and any(
                s.round == rnd for s in rs.playing(m, table)):
            return after_round(m, table, rnd).text
        if rnd == cur and rnd > 1 and not any(b in entered for b in m.at(table, rnd).boards):
            return f"Round {rnd - 1} is over: " + after_round(m, table, rnd - 1).text
    except EventError:  # a table the movement does not seat in that round
        return ""
    return ""


def _contract(f: Mapping[str, str]) -> str:
    """The contract the chips say (``PASS``, ``4SX``), or an :class:`rs.EntryError`."""
    if "contract" in f and "level" not in f and "passed" not in f:
        return fields.text(f, "contract", 8)  # the contract as text (an older form)
    if f.get("passed") == "on":
        return "PASS"
    level, strain, dbl = f.get("level", ""), f.get("strain", ""), f.get("dbl", "")
    # Exact choices only: a truncated "SSSS..." must not quietly become a contract.
    if (level not in "1234567" or len(level) != 1 or strain not in {v for v, _ in STRAINS}
            or dbl not in ("", "X", "XX")):
        raise rs.EntryError("choose a level 1-7, a strain and X or XX", "contract")
    return level + strain + dbl


def _entry_of(f: Mapping[str, str], board: int) -> rs.Entry:
    """The entry the form says: a board not played (with its reason), or a contract
    with its result relative to the contract or in tricks. Every field exactly as sent."""
    why = fields.text(f, "not_played", rs.NOT_PLAYED_MAX)
    if why == "other":
        why = fields.text(f, "not_played_other", rs.NOT_PLAYED_MAX) or "other"
    if why:
        return rs.Entry(board=board, contract="", not_played=why)
    return rs.Entry(board=board, contract=_contract(f), declarer=f.get("declarer", ""),
                    tricks=fields.number(f, "tricks", 0, 13), lead=fields.text(f, "lead", 3),
                    result=fields.text(f, "result", 3))


def _board(f: Mapping[str, str]) -> int:
    board = fields.number(f, "board", 1, 10**6)
    if board is None:
        raise rs.EntryError("choose the board", "board")
    return board


@dataclass(frozen=True)
class Done:
    """A table's form did its work: the page to go to (``said`` names what happened)."""

    token: str
    said: str
    board: int
    round: int | None

    def location(self, script_root: str = "") -> str:
        """The entry page's address, as ``url_for('tables.entry', ...)`` builds it."""
        query = f"{self.said}={self.board}"
        if self.round is not None:
            query += f"&round={self.round}"
        return f"{script_root}/t/{self.token}?{query}"


#: What a form that did not go through shows: the keywords of :func:`_render`.
Page = dict


def do_enter(st: Store, ctx: TableContext, f: Mapping[str, str]) -> Done | Page:
    """An entry form (:func:`enter`), without Flask: nothing is written unless ``Done``."""
    try:
        # Exactly as sent: a value too long or not a number is refused, never cut.
        board = _board(f)
        e = _entry_of(f, board)
        if f.get("step") == "check":
            if rs.round_of(ctx.movement, ctx.token.table_no, board) is None:
                raise rs.EntryError(f"board {board} is not played at this table", "board")
            return {"form": f, "check": rs.preview(st, ctx.ce, e)}
        out = rs.submit_at_table(st, ctx.ce, ctx.token.section, ctx.token.table_no, e,
                                 submission_id=f.get("submission_id", ""),
                                 who=f"table {ctx.token.section}{ctx.token.table_no}",
                                 confirm=f.get("confirm") == "on")
    except rs.Refused as exc:
        return {"error": str(exc), "status": 403}
    except rs.EntryError as exc:
        return {"form": f, "error": str(exc), "field": exc.field, "status": 400}
    if out.status == "needs-confirmation":
        return {"form": f, "warnings": out.warnings, "status": 422}
    if out.status == "conflict":
        return {"conflict": out.message, "status": 409}
    # The outcome travels in the address (a board number), not in a flashed message:
    # nothing is written to the session cookie, and a reload shows the same page.
    said = "resent" if out.status == "duplicate" else "done"
    return Done(ctx.token.token, said, board,
                rs.round_of(ctx.movement, ctx.token.table_no, board))


@bp.route("/<token>/enter", methods=["POST"])
def enter(token: str) -> Response | str | tuple[str, int]:
    """A table's result. The round is the board's own at this table (the movement's),
    not the page's: a board of a later round is refused unless the director allows
    entering ahead (:func:`dealer.store.results.submit_at_table`).

    ``step=check`` (the form's default without JavaScript) shows the score the core
    computes and a button that records it; nothing is written until then."""
    ctx = _table(token)
    return _answer(ctx, do_enter(store(), ctx, request.form))


def _answer(ctx: TableContext, out: Done | Page) -> Response | str | tuple[str, int]:
    if isinstance(out, Done):
        return redirect(out.location(request.script_root))
    if out is NOT_FOUND:
        abort(404)
    return _render(ctx, **out)


#: A form about a board this table has no entry on (404).
NOT_FOUND: Page = {}


@bp.route("/<token>/score")
def score(token: str) -> Response:
    """The score the entry form would record, as the core computes it (JSON, for the
    live line beside the Record button): ``{"ok": true, "score": 420, "words": ...}``
    or ``{"ok": false, "error": ..., "field": ...}`` while the form is incomplete."""
    ctx = _table(token)
    a = request.args
    try:
        board = _board(a)
        if rs.round_of(ctx.movement, ctx.token.table_no, board) is None:
            raise rs.EntryError(f"board {board} is not played at this table", "board")
        p = rs.preview(store(), ctx.ce, _entry_of(a, board))
    except rs.EntryError as exc:
        return jsonify(ok=False, error=str(exc), field=exc.field)
    return jsonify(ok=True, board=p.board, score=p.score, words=p.words,
                   vulnerable=p.vulnerability.value)


def do_accept(st: Store, ctx: TableContext, board: int, f: Mapping[str, str]) -> Done | Page:
    """East-West's acceptance (:func:`accept`), without Flask."""
    try:
        version = fields.number(f, "version", 1, 10**9)
        if version is None:
            raise rs.EntryError("the form is incomplete; reload the page", "version")
        out = rs.accept_at_table(st, ctx.ce, ctx.token.section, ctx.token.table_no,
                                 board, version=version)
    except rs.Refused as exc:
        return {"error": str(exc), "status": 403}
    except rs.EntryError as exc:
        return {"error": str(exc), "field": exc.field, "status": 400}
    if out is None:
        return NOT_FOUND
    if out.status == "conflict":
        return {"conflict": out.message, "status": 409}
    said = "accepted" if out.status == "accepted" else "reaccepted"
    return Done(ctx.token.token, said, board,
                rs.round_of(ctx.movement, ctx.token.table_no, board))


@bp.route("/<token>/accept/<int:board>", methods=["POST"])
def accept(token: str, board: int) -> Response | str | tuple[str, int]:
    """East-West accept North-South's entry on ``board`` as it was shown to them (the
    form carries the version shown): only then does it count."""
    ctx = _table(token)
    return _answer(ctx, do_accept(store(), ctx, board, request.form))


def do_fix(st: Store, ctx: TableContext, board: int, f: Mapping[str, str]) -> Done | Page:
    """A table's change of its own entry (:func:`fix`), without Flask."""
    try:
        version = fields.number(f, "version", 1, 10**9)
        if version is None:
            raise rs.EntryError("the form is incomplete; reload the page", "version")
        # Exactly as sent, never cut: the core refuses what it cannot record as typed.
        e = _entry_of(f, board)
        changes: dict[str, object] = {"contract": e.contract, "declarer": e.declarer,
                                      "tricks": e.tricks}
        if e.not_played:
            changes = {"not_played": True, "not_played_reason": e.reason()}
        elif e.result:
            contract, _decl, _lead, tricks = e.checked()
            changes["tricks"] = None if contract.is_passed_out else tricks
        if "lead" in f and not e.not_played:
            changes["lead"] = e.lead
        out = rs.correct_at_table(
            st, ctx.ce, ctx.token.section, ctx.token.table_no, board,
            who=f"table {ctx.token.section}{ctx.token.table_no}",
            reason=f.get("reason", "corrected at the table"),  # checked whole by the core
            submission_id=f.get("submission_id", "") or None, expected_version=version,
            **changes)
    except rs.EntryError as exc:
        if isinstance(exc, rs.Refused) or exc.field == "published":
            return {"error": str(exc), "status": 403}
        return {"error": str(exc), "field": exc.field, "status": 400}
    if out is None:  # this table has no entry on that board
        return NOT_FOUND
    if out.status == "conflict":
        return {"conflict": out.message, "status": 409}
    said = "changed" if out.status == "corrected" else "rechanged"
    return Done(ctx.token.token, said, board,
                rs.round_of(ctx.movement, ctx.token.table_no, board))


@bp.route("/<token>/fix/<int:board>", methods=["POST"])
def fix(token: str, board: int) -> Response | str | tuple[str, int]:
    """The table changes its own entry, with an audit row: only in its current round and
    until the results are published (:func:`dealer.store.results.correct_at_table`).
    The form is the entry form's chips (or, from an older page, the contract as text);
    a lead not sent is kept as recorded."""
    ctx = _table(token)
    return _answer(ctx, do_fix(store(), ctx, board, request.form))


@bp.route("/<token>/board/<int:board>")
def board(token: str, board: int) -> str | tuple[str, int]:
    """The traveller so far and the hand record, once this table may see the board: its
    own result entered, and the director's reveal rule met (off, after the board, after
    the round). Showing it is remembered, so a later change of the result is flagged."""
    ctx = _table(token)
    table = ctx.token.table_no
    why = rs.reveal_refusal(ctx.ce, ctx.movement, table, board,
                            {b for b, r in _mine(ctx).items() if not r.pending})
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
            diagram = handrecord.board_fragment(b, store().engine)
    rs.record_view(store(), ctx.ce.id, ctx.token.section, table, board)
    return render_template("tables/board.html", ctx=ctx, board=board, traveller=traveller,
                           diagram=diagram, table_page=True)


def _board_of(ctx: TableContext, number: int) -> Board | None:
    """The board to show a table; never one of a sealed set (until the director unseals it)."""
    ds = rs.dealset_of(store(), ctx.ce)
    if ds is None or is_sealed(ds):
        return None
    return next((b for b in ds.boards if b.number == number), None)
