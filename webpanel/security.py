"""Director login: hashed passwords, server-side sessions, login limits, ``director_required``.

- **Sessions live in the store** (``director_sessions``). The signed cookie
  holds a random secret; the store keeps only its SHA-256. Log-out revokes
  the row, so a copied cookie stops working; a password change revokes
  every session of the director (the browser that changed it gets a new
  one); ``flask --app webpanel reset-password`` revokes them all.
- **Two login limits**, counted in the store so they hold across gunicorn
  workers and restarts: per client address (``LOGIN_LIMIT`` failures in
  ``LOGIN_WINDOW_MINUTES``) and per director name tried
  (``ACCOUNT_LOGIN_LIMIT``), since behind a reverse proxy every club member
  has the proxy's address and a guesser can also change address.
- **No name is told by timing**: an unknown name is checked against a dummy
  hash made by the same hasher.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache, wraps
from typing import Any, NamedTuple

from flask import current_app, g, redirect, request, session, url_for
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

from dealer.store.panel_models import Director, DirectorSession, LoginFailure
from webpanel.db import store

MAX_PASSWORD = 200
SEEN_EVERY = timedelta(minutes=10)  # last_seen_at is written at most this often


class SignedIn(NamedTuple):
    """The director of this request's session."""

    id: int
    name: str


def has_director() -> bool:
    with store().session() as s:
        return s.execute(select(func.count()).select_from(Director)).scalar_one() > 0


def check_password_rule(password: str) -> None:
    if len(password) < 8:
        raise ValueError("the password needs at least 8 characters")
    if len(password) > MAX_PASSWORD:
        raise ValueError(f"the password may have at most {MAX_PASSWORD} characters")


def create_director(name: str, password: str) -> int:
    """A new director; returns its id."""
    check_password_rule(password)
    if not name.strip() or len(name) > 100:
        raise ValueError("the name must be 1 to 100 characters")
    if any(unicodedata.category(c) == "Cc" for c in name):
        # A tab or a line break: a login form's one line could never give the name back.
        raise ValueError(f"the name {name!r} has a control character (a tab, a line break)")
    try:
        with store().session() as s, s.begin():
            d = Director(name=name.strip(), password_hash=generate_password_hash(password))
            s.add(d)
            s.flush()
            return d.id
    except IntegrityError:
        raise ValueError(f"there is already a director called {name.strip()!r}") from None


def reset_password(name: str, password: str, *, create: bool = False) -> None:
    """Give ``name`` a new password, end all its sessions and lift its login lock.

    ``create``: make the director if there is none of that name (the demo's).
    """
    check_password_rule(password)
    name = name.strip()  # as create_director and the login form keep it
    with store().session() as s, s.begin():
        d = s.scalars(select(Director).where(Director.name == name)).first()
        if d is None:
            if not create:
                shown = name if len(name) <= 100 else name[:100] + "…"  # (no name is longer)
                raise ValueError(f"there is no director called {shown!r}")
            s.add(Director(name=name, password_hash=generate_password_hash(password)))
        else:
            d.password_hash = generate_password_hash(password)
            _revoke(s, d.id)
        s.execute(delete(LoginFailure).where(LoginFailure.account == _account(name)))


def set_password(name: str, password: str) -> None:
    """Create the director ``name`` or give it a new password (the demo's director)."""
    reset_password(name, password, create=True)


# -- sessions ---------------------------------------------------------------------------

def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _revoke(s: Any, director_id: int) -> None:
    s.execute(update(DirectorSession)
              .where(DirectorSession.director_id == director_id,
                     DirectorSession.revoked_at.is_(None))
              .values(revoked_at=datetime.now(UTC)))


def sign_in(director_id: int, name: str) -> None:
    """A new session for the director (a fresh cookie: no fixation)."""
    secret = secrets.token_urlsafe(32)
    with store().write() as s:
        s.add(DirectorSession(id=_digest(secret), director_id=director_id, client=client()))
    session.clear()
    session["director"] = name
    session["sid"] = secret
    g.bw_director = SignedIn(director_id, name)


def current_director() -> SignedIn | None:
    """The director whose live session this request carries, else None (cached per request)."""
    if "bw_director" in g:
        return g.bw_director  # type: ignore[no-any-return]
    found: SignedIn | None = None
    secret = session.get("sid")
    if isinstance(secret, str) and secret:
        sid = _digest(secret)
        with store().read() as s:
            row = s.execute(
                select(DirectorSession.director_id, Director.name, DirectorSession.last_seen_at)
                .join(Director, Director.id == DirectorSession.director_id)
                .where(DirectorSession.id == sid, DirectorSession.revoked_at.is_(None))).first()
        if row is not None:
            found = SignedIn(row[0], row[1])
            seen = row[2] if row[2].tzinfo else row[2].replace(tzinfo=UTC)  # SQLite: naive
            if datetime.now(UTC) - seen > SEEN_EVERY:
                with store().write() as s:
                    s.execute(update(DirectorSession).where(DirectorSession.id == sid)
                              .values(last_seen_at=datetime.now(UTC)))
    g.bw_director = found
    return found


def sign_out() -> None:
    """End this browser's session: its row is revoked, so a copy of the cookie is dead too."""
    secret = session.get("sid")
    if isinstance(secret, str) and secret:
        with store().write() as s:
            s.execute(update(DirectorSession)
                      .where(DirectorSession.id == _digest(secret),
                             DirectorSession.revoked_at.is_(None))
                      .values(revoked_at=datetime.now(UTC)))
    session.clear()
    g.bw_director = None


def change_password(me: SignedIn, current: str, new: str) -> None:
    """Check ``current``, store ``new``, end every session of this director.

    The caller signs the browser in again (:func:`sign_in`): the one that
    changed the password goes on with a new session, every other one is out.
    """
    check_password_rule(new)
    with store().session() as s, s.begin():
        d = s.get(Director, me.id)
        right = (d is not None and len(current) <= MAX_PASSWORD
                 and check_password_hash(d.password_hash, current[:MAX_PASSWORD]))
        if d is not None and right:
            d.password_hash = generate_password_hash(new)
            _revoke(s, d.id)
    if not right:
        # A stolen session must not try passwords freely: the login limits count these.
        record_failure(_account(me.name))
        raise ValueError("the current password is wrong")


# -- login and its limits ---------------------------------------------------------------

def client() -> str:
    return (request.remote_addr or "?")[:100]


def _account(name: str) -> str:
    return name.strip()[:100]


def _since() -> datetime:
    return datetime.now(UTC) - timedelta(minutes=current_app.config["LOGIN_WINDOW_MINUTES"])


def failures(who: str) -> int:
    """Failed logins from the client address ``who`` within the window."""
    with store().session() as s:
        return s.scalar(select(func.count()).select_from(LoginFailure).where(
            LoginFailure.client == who, LoginFailure.at >= _since())) or 0


def account_failures(name: str) -> int:
    """Failed logins for the director name ``name`` within the window, from any address."""
    with store().session() as s:
        return s.scalar(select(func.count()).select_from(LoginFailure).where(
            LoginFailure.account == _account(name), LoginFailure.at >= _since())) or 0


def limited() -> bool:
    return failures(client()) >= current_app.config["LOGIN_LIMIT"]


def refusal(name: str) -> str | None:
    """Why a login for ``name`` is refused before its password is looked at, or None."""
    minutes = current_app.config["LOGIN_WINDOW_MINUTES"]
    if limited():
        return (f"Too many failed logins from this device. Wait {minutes} minutes and try "
                "again.")
    if account_failures(name) >= current_app.config["ACCOUNT_LOGIN_LIMIT"]:
        # Said for any name, known or not, so the lock tells nobody which names exist.
        return (f"Too many failed logins for the name {_account(name)!r} (from any device): "
                f"its logins are locked for up to {minutes} minutes. `flask --app webpanel "
                "reset-password NAME` on the server unlocks it at once.")
    return None


def record_failure(account: str) -> None:
    """Count a failure for this client and ``account``; forget failures older than the window."""
    with store().session() as s, s.begin():
        s.execute(delete(LoginFailure).where(LoginFailure.at < _since()))
        s.add(LoginFailure(client=client(), account=account[:100]))


@cache
def _dummy_hash() -> str:
    # An unknown name is checked against this, so that it is refused as slowly as a
    # known name with a wrong password: the time taken tells no one which names exist.
    return generate_password_hash(secrets.token_urlsafe(16))


def check_login(name: str, password: str) -> SignedIn | None:
    """The director if ``name`` and ``password`` match (failures are counted), else None."""
    with store().session() as s:
        d = s.scalars(select(Director).where(Director.name == name.strip()[:100])).first()
        stored = d.password_hash if d is not None else _dummy_hash()
        ok = check_password_hash(stored, password[:MAX_PASSWORD])
        found = SignedIn(d.id, d.name) if d is not None else None
    if ok and found is not None and len(password) <= MAX_PASSWORD:
        with store().session() as s, s.begin():
            s.execute(delete(LoginFailure).where(LoginFailure.client == client()))
        return found
    record_failure(_account(name))
    return None


def director_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_director() is None:
            if session:
                session.clear()  # a revoked or old cookie: nothing of it is kept
            return redirect(url_for("auth.login", next=request.path))
        return view(*args, **kwargs)
    return wrapped


def who() -> str:
    me = current_director()
    return "director " + (me.name if me else "?")
