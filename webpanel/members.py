"""The club's member list: list and search, add, edit, delete, import a CSV.

Every field is read exactly (:mod:`webpanel.fields`): a value too long is
refused with the field named, never cut. The store's checks
(:mod:`dealer.store.players`) refuse a bad number or email the same way. A
CSV import takes every good line and lists each refused one by line and
column (:func:`dealer.players.read_members_csv`).
"""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from dealer.players import (
    EMAIL_MAX,
    NAME_MAX,
    NUMBER_MAX,
    SCHEMES,
    MemberIn,
    PlayerError,
    read_members_csv,
)
from dealer.store import audit
from dealer.store import players as ps
from dealer.store import results as rs
from webpanel import fields
from webpanel.db import store
from webpanel.security import director_required, who

bp = Blueprint("members", __name__, url_prefix="/members")

PAGE = 100  # members a page of the list shows
QUERY_MAX = 100  # the longest search a field may send


def _query() -> str:
    return fields.text(request.args, "q", QUERY_MAX).strip()


def _member_form() -> MemberIn:
    f = request.form
    return MemberIn(name=fields.text(f, "name", NAME_MAX),
                    scheme=fields.text(f, "scheme", 10), number=fields.text(f, "number",
                                                                            NUMBER_MAX),
                    email=fields.text(f, "email", EMAIL_MAX))


def _page_of(f) -> int:  # type: ignore[no-untyped-def]
    return fields.number(f, "page", 1, 10_000, 1) or 1


@bp.route("/")
@director_required
def index() -> str | tuple[str, int]:
    try:
        q, page = _query(), _page_of(request.args)
    except rs.EntryError as exc:
        flash(str(exc), "error")
        q, page = "", 1
    total = ps.member_count(store(), q)
    shown = ps.members(store(), q, limit=PAGE, offset=(page - 1) * PAGE)
    return render_template("members/index.html", q=q, page=page, total=total, members=shown,
                           pages=max(1, -(-total // PAGE)), schemes=SCHEMES, form={})


@bp.route("/search.json")
@director_required
def search_json() -> Response:
    """The member search for the director's name fields (the Pairs page)."""
    q = request.args.get("q", "")[:QUERY_MAX]
    return jsonify(members=[{"id": m.id, "label": m.label, "name": m.name}
                            for m in ps.search(store(), q)])


@bp.route("/add", methods=["POST"])
@director_required
def add() -> Response | tuple[str, int]:
    try:
        m = _member_form()
        ps.add_member(store(), m)
    except (rs.EntryError, PlayerError) as exc:
        flash(f"Not added: {exc}", "error")
        return render_template("members/index.html", q="", page=1,
                               total=ps.member_count(store()),
                               members=ps.members(store(), limit=PAGE), pages=1,
                               schemes=SCHEMES, form=request.form), 400
    flash(f"Added {m.name.strip()}.", "ok")
    return redirect(url_for("members.index"))


@bp.route("/<int:member_id>/edit", methods=["GET", "POST"])
@director_required
def edit(member_id: int) -> Response | str | tuple[str, int]:
    m = ps.get_member(store(), member_id)
    if request.method == "POST":
        try:
            ps.update_member(store(), member_id, _member_form())
        except (rs.EntryError, PlayerError) as exc:
            flash(f"Not saved: {exc}", "error")
            return render_template("members/edit.html", m=m, form=request.form,
                                   schemes=SCHEMES), 400
        flash("Saved.", "ok")
        return redirect(url_for("members.index", q=request.form.get("q", "")[:QUERY_MAX]))
    return render_template("members/edit.html", m=m, schemes=SCHEMES,
                           form={"name": m.name, "scheme": m.scheme, "number": m.number,
                                 "email": m.email})


@bp.route("/<int:member_id>/delete", methods=["POST"])
@director_required
def delete(member_id: int) -> Response:
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm the deletion.", "error")
        return redirect(url_for("members.edit", member_id=member_id))
    name = ps.delete_member(store(), member_id)
    flash(f"Deleted {name} from the member list (events keep the names they had).", "ok")
    return redirect(url_for("members.index"))


@bp.route("/import", methods=["GET", "POST"])
@director_required
def import_csv() -> str | tuple[str, int]:
    """Import a member list CSV: every good line is taken, each bad one is named."""
    if request.method == "GET":
        return render_template("members/import.html", schemes=SCHEMES, report=None)
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        flash("Choose the CSV file of the member list.", "error")
        return render_template("members/import.html", schemes=SCHEMES, report=None), 400
    name = upload.filename[:200]
    try:
        got = read_members_csv(upload.read(), scheme=fields.text(request.form, "scheme", 10))
    except (rs.EntryError, PlayerError) as exc:
        flash(f"{name}: {exc}", "error")
        return render_template("members/import.html", schemes=SCHEMES, report=None), 400
    report = ps.import_members(store(), got.members)
    problems = [str(p) for p in got.problems] + report.problems
    report.problems = problems
    audit.record(store(), who=who(), action="import-members", subject="member list",
                 detail=f"{name}: {report.summary()}")
    flash(f"{name}: {report.summary()}.", "ok" if not problems else "warn")
    return render_template("members/import.html", schemes=SCHEMES, report=report, csv=got,
                           filename=name)
