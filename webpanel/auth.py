"""Login, logout, the password change and the first-run setup of the first director."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from webpanel import security, setup_code

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
    if security.current_director():
        return redirect(url_for("events.index"))
    return render_template("home.html")


SETUP_REFUSED = ("Wrong or missing setup code. It is printed in the terminal where "
                 "`boardwright serve` was started; on the server, `flask --app webpanel "
                 "setup-code` prints a new one.")
NO_SETUP_CODE = ("No setup code has been made yet: run `flask --app webpanel setup-code` on "
                 "the server (or start it with `boardwright serve`, which prints one) and "
                 "enter the code here.")


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Response | str | tuple[str, int]:
    """First run only: create the first director, with the setup code from the console."""
    if security.has_director():
        return redirect(url_for("auth.login"))
    if request.method == "POST":
        if security.limited():
            minutes = current_app.config["LOGIN_WINDOW_MINUTES"]
            return render_template("setup.html", error=(
                f"Too many wrong setup codes from this device. Wait {minutes} minutes and "
                "try again.")), 429
        if not setup_code.is_set():
            return render_template("setup.html", error=NO_SETUP_CODE), 403
        if not setup_code.check(request.form.get("code", "")):
            security.record_failure("(setup)")
            return render_template("setup.html", error=SETUP_REFUSED), 403
        name = request.form.get("name", "")
        password = request.form.get("password", "")
        if password != request.form.get("again", ""):
            flash("The two passwords differ.", "error")
        else:
            try:
                director_id = security.create_director(name, password)
            except ValueError as exc:
                flash(str(exc), "error")
            else:
                setup_code.forget()
                security.sign_in(director_id, name.strip())
                return redirect(url_for("events.index"))
    return render_template("setup.html")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | str | tuple[str, int]:
    if request.method == "POST":
        name = request.form.get("name", "")
        refused = security.refusal(name)
        if refused:
            return render_template("login.html", error=refused), 429
        me = security.check_login(name, request.form.get("password", ""))
        if me is not None:
            security.sign_in(me.id, me.name)  # a fresh session on login: no fixation
            return redirect(local_path(request.args.get("next", ""))
                            or url_for("events.index"))
        return render_template("login.html", error="Wrong name or password."), 401
    return render_template("login.html")


@bp.route("/logout", methods=["POST"])
def logout() -> Response:
    security.sign_out()
    return redirect(url_for("auth.login"))


@bp.route("/account/password", methods=["GET", "POST"])
@security.director_required
def password() -> Response | str | tuple[str, int]:
    """The signed-in director changes the password; every other session ends."""
    if request.method == "POST":
        me = security.current_director()
        assert me is not None  # director_required
        if security.limited():
            minutes = current_app.config["LOGIN_WINDOW_MINUTES"]
            return render_template("password.html", error=(
                f"Too many wrong passwords from this device. Wait {minutes} minutes.")), 429
        new = request.form.get("new", "")
        if new != request.form.get("again", ""):
            return render_template("password.html",
                                   error="The two new passwords differ."), 400
        try:
            security.change_password(me, request.form.get("current", ""), new)
        except ValueError as exc:
            return render_template("password.html", error=f"Not changed: {exc}."), 400
        security.sign_in(me.id, me.name)  # this browser goes on with a new session
        flash("Password changed. Every other browser signed in as you is signed out.", "ok")
        return redirect(url_for("events.index"))
    return render_template("password.html")
