"""Login, logout and the first-run setup of the first director."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from webpanel import security

bp = Blueprint("auth", __name__)


def local_path(nxt: str) -> str | None:
    r"""``nxt`` if it is a path on this site, else None (then the caller goes home).

    An open redirect after login would help phishing. Browsers drop tabs and
    newlines inside an address and read a backslash as a slash, so
    ``/<TAB>/example.org`` and ``/\example.org`` both lead to another site:
    any control character or backslash refuses the address (a newline also
    cannot go into a Location header), as does anything with a scheme or a
    host.

    >>> [local_path(x) for x in ("/events/3?x=1", "//evil.example", "/\t/evil.example")]
    ['/events/3?x=1', None, None]
    >>> [local_path(x) for x in ("/\\evil.example", "https://evil.example/", "events")]
    [None, None, None]
    """
    if not nxt.startswith("/") or nxt.startswith("//") or len(nxt) > 2000:
        return None
    if "\\" in nxt or any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in nxt):
        return None
    parts = urlsplit(nxt)
    if parts.scheme or parts.netloc:
        return None
    return nxt


@bp.route("/")
def home() -> Response | str:
    if not security.has_director():
        return redirect(url_for("auth.setup"))
    if session.get("director"):
        return redirect(url_for("events.index"))
    return render_template("home.html")


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Response | str:
    """First run only: create the first director."""
    if security.has_director():
        return redirect(url_for("auth.login"))
    if request.method == "POST":
        name = request.form.get("name", "")
        password = request.form.get("password", "")
        if password != request.form.get("again", ""):
            flash("The two passwords differ.", "error")
        else:
            try:
                security.create_director(name, password)
            except ValueError as exc:
                flash(str(exc), "error")
            else:
                session.clear()
                session["director"] = name.strip()
                return redirect(url_for("events.index"))
    return render_template("setup.html")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | str | tuple[str, int]:
    if request.method == "POST":
        if security.limited():
            minutes = current_app.config["LOGIN_WINDOW_MINUTES"]
            return render_template("login.html", error=(
                f"Too many failed logins from this device. Wait {minutes} minutes and try "
                "again.")), 429
        name = request.form.get("name", "")
        if security.check_login(name, request.form.get("password", "")):
            session.clear()  # a fresh session on login: no fixation
            session["director"] = name.strip()
            return redirect(local_path(request.args.get("next", ""))
                            or url_for("events.index"))
        return render_template("login.html", error="Wrong name or password."), 401
    return render_template("login.html")


@bp.route("/logout", methods=["POST"])
def logout() -> Response:
    session.clear()
    return redirect(url_for("auth.login"))
