"""boardwright adapter: webpanel, the director's panel and the table pages (Flask).

``create_app`` is the application factory; ``flask --app webpanel run``
serves it, ``boardwright serve`` too. The instance folder holds the SQLite
database (unless a URL is configured) and the session secret.

>>> app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
>>> sorted(app.blueprints)[:3]
['auth', 'dealing', 'dealsets']
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import secrets
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from flask import Config, Flask, render_template, request
from flask.cli import FlaskGroup, NoAppException
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask.wrappers import Request
from flask_wtf.csrf import CSRFError, CSRFProtect

from dealer.config import ConfigError
from dealer.errors import BoardwrightError

try:  # POSIX: workers take turns making the session secret; elsewhere os.link alone
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

csrf = CSRFProtect()


def _read_secret(path: Path) -> str:
    """The kept session secret, or "" when there is none (no file, or a blank one)."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:  # a folder of that name, a binary file
        why = exc.strerror if isinstance(exc, OSError) else "not a text file"
        raise ConfigError(f"{path}: cannot read the session secret: {why}") from None


@contextmanager
def _instance_turn(instance: Path) -> Iterator[None]:
    """One process (or thread) at a time making the instance folder's secret."""
    if fcntl is None:  # pragma: no cover - Windows: os.link below still keeps the first key
        yield
        return
    fd = os.open(instance, os.O_RDONLY)  # an flock on the folder: no lock file left behind
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (releases the lock)


def _secret_key(instance: Path, log: logging.Logger) -> str:
    """One random key per installation, kept in the instance folder (``secret_key``), so
    sessions survive restarts; made on first start.

    Two gunicorn workers start at once: both may find no key, and each used to write
    its own, so a form signed by one worker was "expired" in the other. Whoever comes
    second now waits its turn and reads the first one's key. A blank file (a full disk,
    a copy gone wrong, ``touch``) was taken as an empty key, with which nothing can be
    signed: it is replaced by a new key, and the log says so.
    """
    path = instance / "secret_key"
    key = _read_secret(path)
    if key:
        return key
    tmp = instance / f".secret_key.{os.getpid()}.{threading.get_ident()}"
    try:
        instance.mkdir(parents=True, exist_ok=True)
        with _instance_turn(instance):
            key = _read_secret(path)  # made while this one waited for its turn
            if key:
                return key
            blank = path.exists()
            key = secrets.token_hex(32)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(key + "\n")
                f.flush()
                os.fsync(f.fileno())
            # Whole or not at all: a worker reading meanwhile never sees half a key. A
            # new file is linked (it fails if the file appeared: then that key is the key).
            try:
                if blank:
                    os.replace(tmp, path)
                else:
                    os.link(tmp, path)
            except FileExistsError:  # made meanwhile by a process that took no turn
                theirs = _read_secret(path)
                if theirs:
                    key = theirs
                else:
                    os.replace(tmp, path)
            except OSError:  # a file system without hard links (a FAT stick): renamed
                os.replace(tmp, path)
    except OSError as exc:  # the instance folder is a file, or may not be written
        raise ConfigError(f"{path}: cannot make the session secret: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    if blank:
        log.warning("%s was empty: made a new session secret (nobody could be signed in "
                    "with the empty one).", path)
    return key


class _SchemeSessions(SecureCookieSessionInterface):
    """The session cookie is Secure exactly when the page came over HTTPS.

    A fixed Secure flag breaks plain http on the club's network: the browser
    drops the cookie, so the login form's CSRF token never comes back ("Form
    expired"). ``SESSION_COOKIE_SECURE`` True or False still forces it.
    """

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:  # type: ignore[override]
        # A phone at a table sends no cookie at all: an empty session, without building
        # the signing serializer that Flask makes first (a tenth of a table's entry).
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)

    def get_cookie_secure(self, app: Flask) -> bool:
        setting = app.config["SESSION_COOKIE_SECURE"]
        if setting == "auto":
            return bool(request) and request.is_secure
        return bool(setting)


class _FirstRunHint:
    """WSGI wrapper: when the panel serves its first request, the first-run hint.

    Under gunicorn or ``flask run`` nobody prints a setup code, so the log says how to
    get one while there is no director. Said once a process, when it serves: not when
    the app is built, since every ``flask --app webpanel`` command (``setup-code``
    itself) builds it and serves nothing.
    """

    def __init__(self, app: Flask, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.pending = True
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.pending:
            with self.lock:
                if self.pending:
                    self.pending = False
                    self.hint()
        return self.wsgi_app(environ, start_response)

    def hint(self) -> None:
        from sqlalchemy.exc import SQLAlchemyError

        from webpanel import security
        try:
            with self.app.app_context():
                if security.has_director():
                    return
        except (BoardwrightError, SQLAlchemyError):  # the request itself says what is wrong
            return
        self.app.logger.warning("No director yet: `flask --app webpanel setup-code` prints "
                                "the one-time code that /setup asks for.")


def create_app(test_config: dict[str, Any] | None = None, *,
               overrides: dict[str, Any] | None = None) -> Flask:
    """Build the panel. ``test_config`` replaces the settings files (tests, bench);
    ``overrides`` are laid over them (``boardwright serve``'s options; a ``None`` there
    leaves the setting as the files say), so ``instance/webpanel.cfg`` still counts.

    A bad setting, settings file or database is a :class:`BoardwrightError`; under
    ``flask --app webpanel CMD`` it is click's one ``Error:`` line instead, status 1.
    """
    try:
        return _build(test_config, overrides or {})
    except BoardwrightError as exc:
        if click.get_current_context(silent=True) is None:
            raise  # boardwright serve, gunicorn, the tests: theirs to report
        # The flask command builds the app inside click, and Flask reports only its own
        # NoAppException plainly: anything else was a traceback.
        if _listing_commands():
            # `flask --app webpanel --help` (or no command, or shell completion) builds
            # the app to list its commands: a NoAppException is Flask's one "Error:" line
            # above the help. A command's own lookup must not get one: Flask would add
            # "No such command" to it.
            raise NoAppException(str(exc)) from None
        raise click.ClickException(str(exc)) from None


def _listing_commands() -> bool:
    """Whether Flask's ``FlaskGroup.list_commands`` is what builds the app now."""
    listing = getattr(getattr(FlaskGroup, "list_commands", None), "__code__", None)
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code is listing:
            return True
        frame = frame.f_back
    return False


#: The whole-number settings, each with its least and greatest sensible value.
#: PAD_EXPIRY_DAYS of 0 or less deleted every pad at once; a minute or day count
#: beyond these overflowed the date arithmetic.
WHOLE_NUMBER_SETTINGS = {
    "TRUSTED_PROXIES": (0, 10),
    "LOGIN_LIMIT": (1, 100_000),
    "ACCOUNT_LOGIN_LIMIT": (1, 100_000),
    "LOGIN_WINDOW_MINUTES": (1, 100_000),
    "PAD_LIMIT": (1, 100_000),
    "PAD_WINDOW_MINUTES": (1, 100_000),
    "PAD_EXPIRY_DAYS": (1, 36_500),
}


def _check_numbers(config: Config, where: str) -> None:
    """Each of WHOLE_NUMBER_SETTINGS in range, made an int (``"30"`` from a file is 30)."""
    for name, (low, high) in WHOLE_NUMBER_SETTINGS.items():
        value = config[name]
        text = str(value).strip() if isinstance(value, int | str) else ""
        if isinstance(value, bool) or not text.isdigit() or not low <= int(text) <= high:
            raise ConfigError(f"{where}{name} must be a whole number from {low} to {high}, "
                              f"not {value!r}")
        config[name] = int(text)


def _read_cfg(app: Flask) -> None:
    """The instance folder's ``webpanel.cfg`` (Python: ``NAME = value`` lines), if any."""
    path = Path(app.instance_path) / "webpanel.cfg"
    try:
        app.config.from_pyfile(path.name, silent=True)
    except Exception as exc:  # the file is run as Python: any error at all may come out
        if isinstance(exc, SyntaxError):
            line, why = exc.lineno, exc.msg
        else:
            frames = [f for f in traceback.extract_tb(exc.__traceback__)
                      if f.filename == str(path)]
            line = frames[-1].lineno if frames else None
            why = (exc.strerror or str(exc) if isinstance(exc, OSError)
                   else f"{type(exc).__name__}: {exc}")
        at = f", line {line}" if line else ""
        raise ConfigError(f"{path}{at}: not a valid settings file: {why}") from None


def _build(test_config: dict[str, Any] | None, overrides: dict[str, Any]) -> Flask:
    from dealer.config import instance_path
    # The store's instance folder ($BOARDWRIGHT_INSTANCE, else ./instance), not Flask's
    # default beside the package: run from another folder (or installed), the database
    # was in ./instance while webpanel.cfg was looked for, and the session secret and the
    # setup code kept, in a folder of Flask's choosing.
    app = Flask(__name__, instance_path=str(instance_path()), instance_relative_config=True)
    app.config.from_mapping(
        DATABASE_URL=None,  # None: the store's settings (instance/boardwright.sqlite)
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE="auto",  # follows the scheme: see _SchemeSessions
        PUBLIC_URL=None,           # the address on the table cards; None: the request's
        TRUSTED_PROXIES=0,         # reverse proxies in front whose X-Forwarded-* to believe
        WTF_CSRF_TIME_LIMIT=None,  # a table's page stays open all evening
        LOGIN_LIMIT=5,             # failed logins per client address ...
        ACCOUNT_LOGIN_LIMIT=10,    # ... and per director name tried (from any address) ...
        LOGIN_WINDOW_MINUTES=15,   # ... in this many minutes
        SETUP_CODE=None,           # None: the first-run code in the instance folder (setup_code)
        PAD_LIMIT=20,              # score pads one client address may start ...
        PAD_WINDOW_MINUTES=60,     # ... in this many minutes
        PAD_EXPIRY_DAYS=30,        # a pad with no new entry for this long is deleted
        MAX_CONTENT_LENGTH=4 * 1024 * 1024,
        RIG_MACHINE="emulator",  # where the rig deals: a pyserial URL, or the emulator
        RIG_CAMERA="emulator",
        RIG_TIME_SCALE=0.05,     # the emulator's pace (1.0: a real machine's)
        CLUB_NAME="",            # the club, in the USEBIO results export (webpanel.cfg)
        CLUB_ID_NUMBER="",       # the club's number with its national body, likewise
        FAST_TABLE_FORMS=True,   # a table's entry, acceptance and change: webpanel.fastpath
        CHECKPOINT_IN_BACKGROUND=None,  # SQLite's log copied by a thread (None: unless TESTING)
        DD_AHEAD=None,  # a deal set's double dummy solved by a thread on arrival (None: unless TESTING)
    )
    if test_config is None:
        from dealer.config import Settings
        app.config["PUBLIC_URL"] = Settings.load().public_url
        _read_cfg(app)
    else:
        app.config.from_mapping(test_config)
    app.config.from_mapping({k: v for k, v in overrides.items() if v is not None})
    where = f"{Path(app.instance_path) / 'webpanel.cfg'}: " if test_config is None else ""
    if app.config["PUBLIC_URL"]:
        from dealer.config import check_public_url
        app.config["PUBLIC_URL"] = check_public_url(app.config["PUBLIC_URL"],
                                                    f"{where}PUBLIC_URL")
    _check_numbers(app.config, where)
    app.session_interface = _SchemeSessions()
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path), app.logger)
    csrf.init_app(app)
    # Table and pad tokens are keys: the request log and the app's own log never write one.
    from webpanel import redact
    redact.install("werkzeug")
    redact.install(app.logger.name)

    from webpanel import db
    from webpanel.converters import BoundedInt
    db.init_app(app)
    if app.config["FAST_TABLE_FORMS"]:
        from webpanel import fastpath
        fastpath.install(app)
    if app.config["TRUSTED_PROXIES"]:
        # Behind a proxy that ends TLS, the scheme (for the Secure cookie) and the
        # client's address (for the login limit) come from its X-Forwarded-* headers.
        # Outermost, so the fast path sees the prefix and scheme as Flask does.
        from werkzeug.middleware.proxy_fix import ProxyFix
        n = int(app.config["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n,  # type: ignore[method-assign]
                                x_prefix=n)
    app.url_map.converters["int"] = BoundedInt  # before any rule: ids stay in range

    from webpanel import (
        auth,
        dealing,
        dealsets,
        desk,
        events,
        members,
        pads,
        players,
        publish,
        tables,
    )
    for bp in (auth.bp, events.bp, dealsets.bp, dealing.bp, desk.bp, tables.bp, pads.bp,
               publish.bp, publish.public, members.bp, players.bp, players.table_bp):
        app.register_blueprint(bp)
    csrf.exempt(tables.bp)  # table forms carry a token bound to the table (tables.table_csrf)
    csrf.exempt(players.table_bp)  # likewise the players' names entered at a table
    # A pad's forms and the form that starts one need no cookie either (pads.pad_csrf);
    # the director's pad pages keep the session's token.
    csrf.exempt(pads.new)
    csrf.exempt(pads.add)

    @app.context_processor
    def _signed_in() -> dict[str, Any]:
        # A function, so only pages that show the director's menu look the session up.
        from webpanel.security import current_director
        return {"signed_in": current_director}

    if test_config is None and not overrides:  # (`boardwright serve` prints the code itself)
        # Outermost: the first request of any kind, the table forms' fast path's too.
        app.wsgi_app = _FirstRunHint(app, app.wsgi_app)  # type: ignore[method-assign]

    @app.errorhandler(CSRFError)
    def _csrf(e: CSRFError) -> tuple[str, int]:
        return render_template("error.html", title="Form expired",
                               message="The form was missing its security token or it has "
                               "expired. Reload the page and enter it again."), 400

    @app.errorhandler(BoardwrightError)
    def _bad(e: BoardwrightError) -> tuple[str, int]:
        return render_template("error.html", title="Cannot do that", message=str(e)), 400

    @app.errorhandler(404)
    def _missing(e: Exception) -> tuple[str, int]:
        return render_template("error.html", title="Not found",
                               message="There is no such page."), 404

    @app.errorhandler(413)
    def _too_big(e: Exception) -> tuple[str, int]:
        return render_template("error.html", title="Too large",
                               message="That upload or form is too large."), 413

    from webpanel.fastpath import SECURITY_HEADERS  # the fast path's answers carry them too

    @app.after_request
    def _headers(resp):  # type: ignore[no-untyped-def]
        for name, value in SECURITY_HEADERS:
            resp.headers.setdefault(name, value)
        return resp

    from webpanel.commands import register_commands
    register_commands(app)
    return app
