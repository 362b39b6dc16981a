"""Director login: hashed passwords, rate limiting, the login-required decorator.

Failed logins are counted per client address in the store, so the limit
holds across gunicorn workers and restarts.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache, wraps
from typing import Any

from flask import current_app, redirect, request, session, url_for
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

from dealer.store.panel_models import Director, LoginFailure
from webpanel.db import store


def has_director() -> bool:
    with store().session() as s:
        return s.scalar(select(func.count()).select_from(Director)) > 0


def create_director(name: str, password: str) -> None:
    if len(password) < 8:
        raise ValueError("the password needs at least 8 characters")
    if not name.strip() or len(name) > 100:
        raise ValueError("the name must be 1 to 100 characters")
    try:
        with store().session() as s, s.begin():
            s.add(Director(name=name.strip(), password_hash=generate_password_hash(password)))
    except IntegrityError:
        raise ValueError(f"there is already a director called {name.strip()!r}") from None


def set_password(name: str, password: str) -> None:
    """Create the director ``name`` or give it a new password (the demo's director)."""
    with store().session() as s, s.begin():
        d = s.scalars(select(Director).where(Director.name == name)).first()
        if d is None:
            s.add(Director(name=name, password_hash=generate_password_hash(password)))
        else:
            d.password_hash = generate_password_hash(password)


def client() -> str:
    return (request.remote_addr or "?")[:100]


def failures(who: str) -> int:
    since = datetime.now(UTC) - timedelta(minutes=current_app.config["LOGIN_WINDOW_MINUTES"])
    with store().session() as s:
        return s.scalar(select(func.count()).select_from(LoginFailure).where(
            LoginFailure.client == who, LoginFailure.at >= since)) or 0


def limited() -> bool:
    return failures(client()) >= current_app.config["LOGIN_LIMIT"]


@cache
def _dummy_hash() -> str:
    # An unknown name is checked against this, so that it is refused as slowly as a
    # known name with a wrong password: the time taken tells no one which names exist.
    return generate_password_hash(secrets.token_urlsafe(16))


def check_login(name: str, password: str) -> bool:
    with store().session() as s:
        d = s.scalars(select(Director).where(Director.name == name[:100])).first()
        stored = d.password_hash if d is not None else _dummy_hash()
        ok = check_password_hash(stored, password[:200]) and d is not None
    with store().session() as s, s.begin():
        if ok:
            s.execute(delete(LoginFailure).where(LoginFailure.client == client()))
        else:
            s.add(LoginFailure(client=client()))
    return ok


def director_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not session.get("director"):
            return redirect(url_for("auth.login", next=request.path))
        return view(*args, **kwargs)
    return wrapped


def who() -> str:
    return "director " + str(session.get("director", "?"))
