"""The table's busy forms served without Flask's request machinery.

On a club night almost every request is a phone sending a result, East-West's
acceptance of it, or a change of it, and each answer is a redirect. For these
three forms Flask's own work (the request and app contexts, the URL map, the
form parser, the session, the response object) cost about as much as the
entry itself: :class:`TableFastPath` sits in front of the app as WSGI
middleware, does the same checks with the same functions
(:func:`webpanel.tables.do_enter`, :func:`~webpanel.tables.do_accept`,
:func:`~webpanel.tables.do_fix`) and answers the redirect itself.

Anything else goes to Flask unchanged: another page, a form whose token does
not check, a card that is unknown, replaced or closed, a body that is not a
small plain ASCII form, and every form that did not go through (an error, a
conflict, a confirmation to ask). Those have written nothing, so Flask doing
them again from the start shows exactly the page it always showed.
"""

from __future__ import annotations

import hmac
import io
import re
from collections.abc import Callable, Iterable
from html import escape
from typing import Any
from urllib.parse import parse_qsl

from dealer.errors import BoardwrightError
from dealer.store import Store
from webpanel import tables

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: The three forms: ``/t/<token>/enter``, ``/t/<token>/accept/<board>``, ``/t/<token>/fix/<board>``.
_PATH = re.compile(r"/t/([A-Za-z0-9_-]{1,64})/(enter|accept/([1-9][0-9]{0,5})|fix/([1-9][0-9]{0,5}))")
#: A mount prefix the redirect may carry as it is (empty, or ``/club`` and the like).
_ROOT = re.compile(r"(/[A-Za-z0-9._~-]+)*")
#: A table's form is a few hundred bytes; anything larger goes through Flask's limits.
_MAX_BODY = 16 * 1024
#: The headers every answer of the panel carries (Flask's through ``create_app``'s
#: ``after_request``, the fast path's here). No inline script is used: a strict policy
#: keeps injected markup inert. Tokens live in URLs, so no other site may see one;
#: same-origin, not no-referrer: over HTTPS Flask-WTF refuses a form without a Referer.
SECURITY_HEADERS = [
    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                                "script-src 'self'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
]


class TableFastPath:
    """WSGI middleware: the three table forms answered directly, the rest by ``app``.

    ``secret_key`` signs the table forms' tokens (:func:`webpanel.tables.table_csrf`);
    ``store`` is the panel's store.
    """

    def __init__(self, app: WSGIApp, store: Store, secret_key: object) -> None:
        self.app = app
        self.store = store
        self.secret_key = secret_key

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST":
            return self.app(environ, start_response)
        m = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        # Mounted under a prefix (a proxy's X-Forwarded-Prefix): the redirect carries it,
        # as Flask's does, without its trailing slash; anything but a plain path is Flask's.
        root = environ.get("SCRIPT_NAME", "").rstrip("/")
        if m is None or not _ROOT.fullmatch(root):
            return self.app(environ, start_response)
        body = self._body(environ)
        if body is None:
            return self.app(environ, start_response)
        done = self._handle(m, body)
        if done is None:
            # Flask does it again from the start, and shows the page it always shows.
            environ["wsgi.input"] = io.BytesIO(body)
            return self.app(environ, start_response)
        location = done.location(root)
        page = _redirect_page(location)
        start_response("302 FOUND", [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", str(len(page))),
            ("Location", location),
            *SECURITY_HEADERS,
        ])
        return [page]

    @staticmethod
    def _body(environ: dict[str, Any]) -> bytes | None:
        """The body of a small URL-encoded form, or ``None`` (Flask reads it then)."""
        ctype = environ.get("CONTENT_TYPE", "").split(";", 1)[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return None
        raw = environ.get("CONTENT_LENGTH", "")
        if not raw.isdigit() or int(raw) > _MAX_BODY:
            return None
        body = environ["wsgi.input"].read(int(raw))
        if len(body) != int(raw):
            # A short read: give Flask what came, and let it say the form is incomplete.
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            return None
        return body

    def _handle(self, m: re.Match[str], body: bytes) -> Any:
        if not body.isascii():
            return None
        form: dict[str, str] = {}
        for key, value in parse_qsl(body.decode("ascii"), keep_blank_values=True,
                                    errors="replace"):
            if "\ufffd" in value or "\ufffd" in key:
                return None  # bytes that are not UTF-8: Flask's parser says what it says
            form.setdefault(key, value)  # the first value, as Flask's request.form.get
        token = m.group(1)
        sent = form.get("csrf_token", "")
        if not sent or not hmac.compare_digest(sent, tables.table_csrf_for(self.secret_key, token)):
            return None
        try:
            ctx = tables.table_of(self.store, token)
            if ctx is None:
                return None
            if m.group(2) == "enter":
                out = tables.do_enter(self.store, ctx, form)
            elif m.group(3):
                out = tables.do_accept(self.store, ctx, int(m.group(3)), form)
            else:
                out = tables.do_fix(self.store, ctx, int(m.group(4)), form)
        except BoardwrightError:
            return None  # a database failure: nothing was written; Flask shows it
        return out if isinstance(out, tables.Done) else None


def _redirect_page(location: str) -> bytes:
    # The body Werkzeug's redirect() writes, for a browser that does not follow it.
    href = escape(location)
    return ("<!doctype html>\n<html lang=en>\n<title>Redirecting...</title>\n"
            "<h1>Redirecting...</h1>\n<p>You should be redirected automatically to the target "
            f'URL: <a href="{href}">{href}</a>. If not, click the link.\n').encode()


def install(app: Any) -> None:
    """Put the fast path in front of ``app``'s WSGI callable (before any proxy fix-up)."""
    app.wsgi_app = TableFastPath(app.wsgi_app, app.extensions["bw_store"], app.secret_key)
