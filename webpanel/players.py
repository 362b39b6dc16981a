"""The names of the pairs: entered at the table in round 1, pre-assigned or corrected by
the director on the event's Pairs page.

At a table (``/t/<token>/players``) the phone asks for the players of the
pairs sitting there in its current round, North-South then East-West, each a
member found by a search of the member list or a visitor typed in full. It
never stands in the way of the results: the table page only shows a line
asking for the names, and a table may enter every result without them. A
table names only the pairs at its own table now; the director names anyone.

The search (``/t/<token>/members?q=``, and ``/members/search.json`` for the
director) answers JSON for ``players.js``; without JavaScript, **Find** asks
the page again with the typed text and it lists the matching members to
choose from. A name sent as the search offers it, ``Ann Smith (EBU 12345)``,
is that member; a plain name is the one member so called, else a visitor
(:func:`dealer.store.players.resolve`).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from flask import (
    Blueprint,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import CSRFError
from werkzeug.wrappers import Response

from dealer.errors import BoardwrightError
from dealer.events.model import PairKey
from dealer.players import NAME_MAX, PlayerError, PlayerName, pair_label, search_key
from dealer.players.seating import SeatedPair, all_pairs, pairs_at
from dealer.store import players as ps
from dealer.store import results as rs
from webpanel import fields
from webpanel.db import store
from webpanel.security import director_required, who
from webpanel.tables import TableContext, table_csrf
from webpanel.tables import _table as table_of

bp = Blueprint("players", __name__, url_prefix="/events/<int:ce_id>/pairs")
table_bp = Blueprint("names", __name__, url_prefix="/t")

#: The longest a name field may be: a name and its number as the search offers it,
#: "Ann Smith (EBU 12345)" (the name itself is then held to NAME_MAX).
FIELD_MAX = NAME_MAX + 40
QUERY_MAX = 100
SUGGESTIONS = 8  # members a search offers a table


@table_bp.before_request
def _check_form_token() -> None:
    # Exempt from CSRFProtect like the table pages (create_app), with the same check: the
    # form carries the table's own signed token, so a phone needs no cookie.
    if request.method == "POST":
        token = (request.view_args or {}).get("token", "")
        sent = request.form.get("csrf_token", "")
        if not sent or not hmac.compare_digest(sent, table_csrf(token)):
            raise CSRFError("The CSRF token is missing or does not belong to this table.")


# ---------------------------------------------------------------- shared by both pages
def _read(form, name: str, said: str) -> PlayerName | None:  # type: ignore[no-untyped-def]
    """One name field as the player it names (``said``: the field in a message); a member
    chosen from the Find list (``pick_<name>``) wins over the text typed."""
    picked = fields.text(form, "pick_" + name, FIELD_MAX)
    text = picked if picked and picked != "-" else fields.text(form, name, FIELD_MAX)
    return ps.resolve(store(), text, said)


def _finds(form, names: list[str]) -> dict[str, list[ps.MemberLine]]:  # type: ignore[no-untyped-def]
    """For Find without JavaScript: the members matching each typed field."""
    out = {}
    for name in names:
        text = form.get(name, "")[:QUERY_MAX]
        if len(search_key(text)) >= 2:
            out[name] = ps.search(store(), text.split("(")[0], SUGGESTIONS)
    return out


def _label(p: PlayerName | None) -> str:
    return "" if p is None else p.label()


# ---------------------------------------------------------------- at the table
@dataclass
class TablePlayers:
    """The pairs at a table in its current round, with their names (for the table page)."""

    pairs: list[tuple[SeatedPair, tuple[PlayerName, ...]]]

    @property
    def missing(self) -> bool:
        return any(len(names) < 2 for _, names in self.pairs)

    def text(self, names: tuple[PlayerName, ...]) -> str:
        return pair_label(names)


def _seated(ctx: TableContext) -> tuple[int, list[SeatedPair]]:
    table = ctx.token.table_no
    entered = set(rs.table_results(store(), ctx.ce.id, ctx.token.section, table))
    cur = rs.current_round(ctx.movement, table, entered)
    return cur, pairs_at(ctx.movement, table, cur)


@table_bp.app_template_global()
def table_players(ctx: TableContext, round_no: int) -> TablePlayers:
    """The table page's line about the players (``tables/_players.html``)."""
    seated = pairs_at(ctx.movement, ctx.token.table_no, round_no)
    names = ps.pair_names(store(), ctx.ce.id, [s.key for s in seated])
    return TablePlayers([(s, names.get(s.key, ())) for s in seated])


def _table_page(ctx: TableContext, *, values: dict[str, str] | None = None,
                error: str = "", field: str = "", status: int = 200,
                finds: dict[str, list[ps.MemberLine]] | None = None) -> tuple[str, int]:
    cur, seated = _seated(ctx)
    names = ps.pair_names(store(), ctx.ce.id, [s.key for s in seated])
    if values is None:
        values = {f"{s.field}{i}": _label(p) for s in seated
                  for i, p in enumerate(names.get(s.key, ()), 1)}
    return render_template(
        "tables/players.html", ctx=ctx, rnd=cur, seated=seated, values=values, error=error,
        field=field, finds=finds or {}, form_token=table_csrf(ctx.token.token),
        table_page=True), status


@table_bp.route("/<token>/players")
def table_form(token: str) -> tuple[str, int]:
    ctx = table_of(token)
    if request.args.get("find"):  # Find, without JavaScript: list the matching members
        _, seated = _seated(ctx)
        wanted = [f"{s.field}{i}" for s in seated for i in (1, 2)]
        values = {k: request.args.get(k, "")[:FIELD_MAX] for k in wanted}
        return _table_page(ctx, values=values, finds=_finds(request.args, wanted))
    return _table_page(ctx)


@table_bp.route("/<token>/players", methods=["POST"])
def table_save(token: str) -> Response | tuple[str, int]:
    """Keep the names of the pairs at this table now (empty fields: not known)."""
    ctx = table_of(token)
    _, seated = _seated(ctx)
    f = request.form
    try:
        chosen = {s.key: [_read(f, f"{s.field}{i}", s.seats[i - 1]) for i in (1, 2)]
                  for s in seated}
        ps.set_pairs(store(), ctx.ce.id, chosen,
                     who=f"table {ctx.token.section}{ctx.token.table_no}")
    except (rs.EntryError, PlayerError) as exc:
        values = {k: f.get(k, "")[:FIELD_MAX] for s in seated for k in
                  (f"{s.field}1", f"{s.field}2")}
        return _table_page(ctx, values=values, error=str(exc),
                           field=getattr(exc, "field", ""), status=400)
    return redirect(url_for("tables.entry", token=token, names="saved"))


@table_bp.route("/<token>/members")
def table_search(token: str) -> Response:
    """The member search for a table's name fields: a few names and numbers, never an
    email, and nothing for fewer than two letters (no list of the club to a card)."""
    table_of(token)
    q = request.args.get("q", "")[:QUERY_MAX]
    found = ps.search(store(), q, SUGGESTIONS) if len(search_key(q)) >= 2 else []
    return jsonify(members=[{"label": m.label, "name": m.name} for m in found])


# ---------------------------------------------------------------- the director's Pairs page
def _field(key: PairKey, seat: int) -> str:
    return f"p_{key.section}_{key.line}_{key.number}_{seat}"


def _where(ce_id: int) -> dict[PairKey, str]:
    """Where each pair starts: "round 1, table 3 NS" (its first sitting)."""
    ce = rs.get_event(store(), ce_id)
    out: dict[PairKey, str] = {}
    for sec in ce.sections:
        m = rs.movement(store(), ce_id, sec)
        for s in sorted(m.sittings, key=lambda s: (s.round, s.table)):
            for sp in pairs_at(m, s.table, s.round):
                out.setdefault(sp.key, f"round {s.round}, table {s.table} {sp.line}")
    return out


def _pairs_page(ce_id: int, *, values: dict[str, str] | None = None,
                errors: dict[str, str] | None = None, status: int = 200,
                finds: dict[str, list[ps.MemberLine]] | None = None) -> tuple[str, int]:
    ce = rs.get_event(store(), ce_id)
    name, date = rs.event_name(store(), ce_id)
    keys = [k for sec in ce.sections for k in all_pairs(rs.movement(store(), ce_id, sec))]
    names = ps.pair_names(store(), ce_id)
    if values is None:
        values = {_field(k, i): _label(p) for k in keys
                  for i, p in enumerate(names.get(k, ()), 1)}
    return render_template(
        "players/pairs.html", ce=ce, name=name, date=date, keys=keys, where=_where(ce_id),
        values=values, errors=errors or {}, field=_field, finds=finds or {},
        named=sum(1 for k in keys if len(names.get(k, ())) == 2)), status


@bp.route("/")
@director_required
def pairs(ce_id: int) -> tuple[str, int]:
    if request.args.get("find"):
        ce = rs.get_event(store(), ce_id)
        wanted = [_field(k, i) for sec in ce.sections
                  for k in all_pairs(rs.movement(store(), ce_id, sec)) for i in (1, 2)]
        values = {k: request.args.get(k, "")[:FIELD_MAX] for k in wanted}
        return _pairs_page(ce_id, values=values, finds=_finds(request.args, wanted))
    return _pairs_page(ce_id)


@bp.route("/", methods=["POST"])
@director_required
def save(ce_id: int) -> Response | tuple[str, int]:
    """Keep the names typed for every pair on the page; a pair whose fields are not in
    the form is left alone. Each refused field is said beside it; nothing is kept then."""
    ce = rs.get_event(store(), ce_id)
    f = request.form
    chosen: dict[PairKey, list[PlayerName | None]] = {}
    errors: dict[str, str] = {}
    for sec in ce.sections:
        for key in all_pairs(rs.movement(store(), ce_id, sec)):
            if _field(key, 1) not in f and _field(key, 2) not in f:
                continue
            players: list[PlayerName | None] = []
            for seat in (1, 2):
                try:
                    players.append(_read(f, _field(key, seat), f"pair {key} player {seat}"))
                except BoardwrightError as exc:
                    errors[_field(key, seat)] = str(exc)
            chosen[key] = players
    if errors:
        values = {k: v[:FIELD_MAX] for k, v in f.items() if k.startswith("p_")}
        return _pairs_page(ce_id, values=values, errors=errors, status=400)
    changed = ps.set_pairs(store(), ce_id, chosen, who=who())
    flash(f"Names saved ({changed} pair{'s' if changed != 1 else ''} changed).", "ok")
    return redirect(url_for("players.pairs", ce_id=ce_id))
