"""Score pads for rubber, Chicago, Minibridge, TigerBridge and Bugger Bridge.

A pad's address holds its own token, so a table can keep it open all
evening; every entry is stored at once, so a reload loses nothing. Each form
carries a submission id: a resent form is recognised and not counted twice.

Anyone may start a pad, but one address at most ``PAD_LIMIT`` an hour
(``PAD_WINDOW_MINUTES``); a pad with no new entry for ``PAD_EXPIRY_DAYS`` is
deleted when the next pad is started or the director lists them
(``/pads/all``, where the director also deletes pads), or by
``flask --app webpanel expire-pads``.

No session cookie is needed (a phone that refuses cookies, or a private tab,
keeps a pad all evening): a pad's forms carry :func:`pad_csrf`, the pad's own
token signed with the app's secret, as a table's forms do
(:func:`webpanel.tables.table_csrf`); errors are said on the page itself, not
flashed through the session. Starting a pad is refused only when the browser
says the form came from another site (``Origin``, ``Sec-Fetch-Site``).
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import CSRFError, validate_csrf
from werkzeug.wrappers import Response
from wtforms import ValidationError

from dealer.errors import BoardwrightError
from dealer.pads import CHICAGO_VULNERABILITY, KINDS, PadError
from dealer.store import pads as store_pads
from dealer.store.pads import PadLimitError
from webpanel.db import store
from webpanel.fields import text
from webpanel.security import client, director_required

bp = Blueprint("pads", __name__, url_prefix="/pads")

#: The forms of a pad and the form that starts one: checked here, not by the
#: session-bound CSRFProtect (create_app exempts them).
COOKIELESS = ("pads.new", "pads.add")


def pad_csrf(token: str) -> str:
    """The CSRF token of a pad's forms: the pad's token signed with the app's secret
    (``""``: the form that starts a pad). Like a table's, it needs no cookie: a page
    of another site knows neither the pad's address nor this value."""
    key = str(current_app.secret_key).encode()
    return hmac.new(key, b"pad-form:" + token.encode(), hashlib.sha256).hexdigest()


def _cross_site() -> bool:
    """Whether the browser says this POST comes from a page of another site."""
    if request.headers.get("Sec-Fetch-Site", "") == "cross-site":
        return True
    origin = request.headers.get("Origin", "")
    return bool(origin) and origin != "null" and urlsplit(origin).netloc != request.host


@bp.before_request
def _check_form_token() -> None:
    if request.method != "POST" or request.endpoint not in COOKIELESS:
        return
    token = (request.view_args or {}).get("token", "")
    sent = request.form.get("csrf_token", "")
    if not sent or _cross_site() or not (hmac.compare_digest(sent, pad_csrf(token))
                                         or _session_token(sent)):
        raise CSRFError("The CSRF token is missing or does not belong to this pad.")


def _session_token(sent: str) -> bool:
    # A signed-in director's page carries the session's token (the log-out form comes
    # first on the page): it proves the same as the pad's, so it is taken too.
    try:
        validate_csrf(sent)
    except ValidationError:
        return False
    return True


def _index(error: str = "", status: int = 200) -> tuple[str, int]:
    return render_template("pads/index.html", kinds=KINDS, error=error,
                           vulnerability=CHICAGO_VULNERABILITY,
                           form_token=pad_csrf("")), status


@bp.route("/")
def index() -> tuple[str, int]:
    # Anyone at the club may start a pad; a pad is only reachable by its own token.
    return _index()


@bp.route("/new", methods=["POST"])
def new() -> Response | tuple[str, int]:
    kind = request.form.get("kind", "")
    setup: dict[str, Any] = {}
    if kind == "bugger":
        names = request.form.get("players", "").replace(",", "\n").splitlines()
        setup = {"players": [n for n in names if n.strip()],  # the game refuses 11
                 "first_dealer": 0}
    elif kind == "chicago":
        setup = {"scoring": text(request.form, "scoring", 10, "chicago"),
                 "vulnerability": text(request.form, "vulnerability", 10, "modern")}
    cfg = current_app.config
    store_pads.expire(store(), int(cfg["PAD_EXPIRY_DAYS"]))  # lazily: no timer to run
    try:
        token = store_pads.create(store(), kind, request.form.get("name", ""), setup,
                                  client=client(), limit=int(cfg["PAD_LIMIT"]),
                                  window=timedelta(minutes=int(cfg["PAD_WINDOW_MINUTES"])))
    except PadLimitError as exc:
        return _index(f"Too many score pads: {exc}.", 429)
    except BoardwrightError as exc:  # PadError, or the game's own (e.g. 11 players)
        return _index(str(exc), 400)
    return redirect(url_for("pads.show", token=token))


@bp.route("/all")
@director_required
def listing() -> str:
    """The director's list of every pad, with a delete button each."""
    days = int(current_app.config["PAD_EXPIRY_DAYS"])
    store_pads.expire(store(), days)
    return render_template("pads/all.html", pads=store_pads.all_pads(store()), days=days)


@bp.route("/all/<int:pad_id>/delete", methods=["POST"])
@director_required
def delete(pad_id: int) -> Response:
    if not store_pads.remove(store(), pad_id):
        abort(404)
    flash(f"Score pad {pad_id} deleted.", "ok")
    return redirect(url_for("pads.listing"))


@bp.route("/<token>")
def show(token: str) -> str | tuple[str, int]:
    return _show(token)


def _show(token: str, error: str = "", status: int = 200) -> tuple[str, int]:
    try:
        pad, view = store_pads.view(store(), token)
    except PadError as exc:
        return render_template("error.html", title="Score pad", message=str(exc)), 404
    return render_template("pads/show.html", pad=pad, view=view, sid=uuid.uuid4().hex,
                           table_page=True, error=error, form_token=pad_csrf(token),
                           vulnerability=CHICAGO_VULNERABILITY), status


def _entry(kind: str, f: Any) -> dict[str, Any]:
    op = f.get("op", "")
    if op == "undo":
        return {"op": "undo"}
    if kind == "bugger":
        if op == "start":
            return {"op": "start", "turned": text(f, "turned", 3).strip().upper() or None}
        if op == "bids":
            return {"op": "bids", "bids": {k[4:]: f[k] for k in f if k.startswith("bid:")}}
        if op == "tricks":
            return {"op": "tricks", "tricks": {k[7:]: f[k] for k in f if k.startswith("tricks:")}}
        if op == "penalty":
            return {"op": "penalty", "player": text(f, "player", 30), "reason": "revoke"}
        raise PadError("unknown action")
    if kind in ("rubber", "chicago"):
        if op in ("finish", "new") and kind == "rubber":
            return {"op": op}
        e = {"contract": text(f, "contract", 8), "declarer": text(f, "declarer", 1),
             "tricks": text(f, "tricks", 2)}
        if f.get("hcp_ns"):
            e["hcp_ns"] = text(f, "hcp_ns", 2)
        if f.get("honours") and kind == "rubber":
            e["honours"] = text(f, "honours", 7)
        return e
    if kind == "minibridge":
        return {"side": text(f, "side", 2), "kind": text(f, "kind", 4),
                "strain": text(f, "strain", 2), "tricks": text(f, "tricks", 2)}
    return {"side": text(f, "side", 2), "bid": text(f, "bid", 2),
            "taken": text(f, "taken", 2)}


@bp.route("/<token>", methods=["POST"])
def add(token: str) -> Response | str | tuple[str, int]:
    try:
        pad, _ = store_pads.view(store(), token)
        entry = _entry(pad.kind, request.form)
        sid = text(request.form, "sid", 40)
        if entry.get("op") == "undo":
            store_pads.undo(store(), token, sid)
        elif entry.get("op") == "bids":
            # One form carries all bids in bidding order; each is its own log entry.
            order = request.form.getlist("order")
            for i, player in enumerate(order):
                if player in entry["bids"] and entry["bids"][player] != "":
                    store_pads.add(store(), token, {"op": "bid", "player": player,
                                                    "tricks": entry["bids"][player],
                                                    "sid": f"{sid}:{i}"})
        else:
            entry["sid"] = sid
            store_pads.add(store(), token, entry)
    except BoardwrightError as exc:  # the game's refusal, or a field refused (never cut)
        # Said on the page at once (no flash: it would need the session cookie).
        return _show(token, str(exc), 400)
    return redirect(url_for("pads.show", token=token))
