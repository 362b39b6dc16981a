"""``flask --app webpanel ...``: init-db, create-director, reset-password, setup-code,
expire-pads. Whoever runs them is on the server itself, which is what makes them trusted.

Bad input is click's one ``Error: ...`` line and status 1, never a traceback: a refused
name or password, and a database that refuses the change (a read-only file, one owned
by the panel's own user), which is said with the database's URL.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click
from flask import Flask, current_app
from sqlalchemy.exc import SQLAlchemyError

from dealer.errors import BoardwrightError
from dealer.store.engine import StoreError


def _one_line(command: Callable[..., None]) -> Callable[..., None]:
    """The command's refusals and database errors as one line (click's ``Error:``)."""
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except (StoreError, SQLAlchemyError) as exc:
            from webpanel.db import store
            url = store().engine.url.render_as_string(hide_password=True)
            why = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise click.ClickException(f"{url}: {why}") from None
        except (BoardwrightError, ValueError) as exc:  # security's refusals are ValueErrors
            raise click.ClickException(str(exc)) from None
    return run


def _utf8_name(_ctx: click.Context, _param: click.Parameter, name: str) -> str:
    # A name typed in a terminal that is not UTF-8 arrives with undecodable bytes, which
    # the database driver cannot store ("surrogates not allowed"): said before the password.
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise click.BadParameter(f"{name.encode('utf-8', 'surrogateescape')!r} is not UTF-8 "
                                 "text (is the terminal set to UTF-8?)") from None
    return name


def register_commands(app: Flask) -> None:
    @app.cli.command("init-db")
    @_one_line
    def init_db() -> None:
        """Create or migrate the database (opening the store does it)."""
        from webpanel.db import store
        click.echo(f"database ready: {store().engine.url.render_as_string(hide_password=True)}")

    @app.cli.command("create-director")
    @click.argument("name", callback=_utf8_name)
    @click.password_option()
    @_one_line
    def create_director(name: str, password: str) -> None:
        """Add a director who may log in."""
        from webpanel import setup_code
        from webpanel.security import create_director as make
        make(name, password)
        setup_code.forget()  # there is a director now: /setup is closed
        click.echo(f"director {name.strip()} created")

    @app.cli.command("reset-password")
    @click.argument("name", callback=_utf8_name)
    @click.password_option(prompt="New password")
    @_one_line
    def reset_password(name: str, password: str) -> None:
        """Give a director a new password: every session of theirs ends, the lock lifts."""
        from webpanel.security import reset_password as reset
        reset(name, password)
        click.echo(f"director {name}: new password set; every session of theirs is ended")

    @app.cli.command("setup-code")
    @_one_line
    def setup_code_command() -> None:
        """Print a new one-time code for the first-run page /setup (the last one stops)."""
        from webpanel import setup_code
        from webpanel.security import has_director
        if has_director():
            raise click.ClickException("there is a director already: /setup is closed "
                                       "(`create-director` adds another, `reset-password` "
                                       "sets a forgotten password)")
        click.echo(f"Setup code: {setup_code.new_code()}")
        click.echo("Open /setup on the panel and enter it with the first director's name.")

    @app.cli.command("expire-pads")
    @_one_line
    def expire_pads() -> None:
        """Delete the score pads with no new entry for PAD_EXPIRY_DAYS days."""
        from dealer.store import pads
        from webpanel.db import store
        days = int(current_app.config["PAD_EXPIRY_DAYS"])  # checked by create_app: 1 or more
        gone = pads.expire(store(), days)
        click.echo(f"{gone} score pad{'s' if gone != 1 else ''} unused for {days} "
                   f"day{'s' if days != 1 else ''} deleted")
