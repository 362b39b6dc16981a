"""Score pads for rubber, Chicago, Minibridge, TigerBridge and Bugger Bridge.

A pad's address holds its own token, so a table can keep it open all
evening; every entry is stored at once, so a reload loses nothing. Each form
carries a submission id: a resent form is recognised and not counted twice.

Anyone may start a pad, but one address at most ``PAD_LIMIT`` an hour
(``PAD_WINDOW_MINUTES``); a pad with no new entry for ``PAD_EXPIRY_DAYS`` is
deleted when the next pad is started or the director lists them
(``/pads/all``, where the director also deletes pads), or by
``flask --app webpanel expire-pads``.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

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
from werkzeug.wrappers import Response

from dealer.errors import BoardwrightError
from dealer.pads import KINDS, PadError
from dealer.store import pads as store_pads
from dealer.store.pads import PadLimitError
from webpanel.db import store
from webpanel.fields import text
from webpanel.security import client, director_required

bp = Blueprint("pads", __name__, url_prefix="/pads")


@bp.route("/")
def index() -> str:
    # Anyone at the club may start a pad; a pad is only reachable by its own token.
    return render_template("pads/index.html", kinds=KINDS)


@bp.route("/new", methods=["POST"])
def new() -> Response | tuple[str, int]:
    kind = request.form.get("kind", "")
    setup: dict[str, Any] = {}
    if kind == "bugger":
        names = request.form.get("players", "").replace(",", "\n").splitlines()
        setup = {"players": [n for n in names if n.strip()],  # the game refuses 11
                 "first_dealer": 0}
    elif kind == "chicago":
        setup = {"scoring": request.form.get("scoring", "chicago")}
    cfg = current_app.config
    store_pads.expire(store(), int(cfg["PAD_EXPIRY_DAYS"]))  # lazily: no timer to run
    try:
        token = store_pads.create(store(), kind, request.form.get("name", ""), setup,
                                  client=client(), limit=int(cfg["PAD_LIMIT"]),
                                  window=timedelta(minutes=int(cfg["PAD_WINDOW_MINUTES"])))
    except PadLimitError as exc:
        return render_template("pads/index.html", kinds=KINDS,
                               error=f"Too many score pads: {exc}."), 429
    except BoardwrightError as exc:  # PadError, or the game's own (e.g. 11 players)
        return render_template("pads/index.html", kinds=KINDS, error=str(exc)), 400
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
    try:
        pad, view = store_pads.view(store(), token)
    except PadError as exc:
        return render_template("error.html", title="Score pad", message=str(exc)), 404
    return render_template("pads/show.html", pad=pad, view=view, sid=uuid.uuid4().hex,
                           table_page=True)


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
        if op == "finish":
            return {"op": "finish"}
        e = {"contract": text(f, "contract", 8), "declarer": text(f, "declarer", 1),
             "tricks": text(f, "tricks", 2)}
        if f.get("hcp_ns"):
            e["hcp_ns"] = text(f, "hcp_ns", 2)
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
            store_pads.undo(store(), token)
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
        flash(str(exc), "error")
    return redirect(url_for("pads.show", token=token))
