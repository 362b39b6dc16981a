"""``flask --app webpanel ...``: init-db, create-director, reset-password, setup-code,
expire-pads. Whoever runs them is on the server itself, which is what makes them trusted."""

from __future__ import annotations

import click
from flask import Flask, current_app


def register_commands(app: Flask) -> None:
    @app.cli.command("init-db")
    def init_db() -> None:
        """Create or migrate the database (opening the store does it)."""
        from webpanel.db import store
        click.echo(f"database ready: {store().engine.url.render_as_string(hide_password=True)}")

    @app.cli.command("create-director")
    @click.argument("name")
    @click.password_option()
    def create_director(name: str, password: str) -> None:
        """Add a director who may log in."""
        from webpanel import setup_code
        from webpanel.security import create_director as make
        try:
            make(name, password)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        setup_code.forget()  # there is a director now: /setup is closed
        click.echo(f"director {name} created")

    @app.cli.command("reset-password")
    @click.argument("name")
    @click.password_option(prompt="New password")
    def reset_password(name: str, password: str) -> None:
        """Give a director a new password: every session of theirs ends, the lock lifts."""
        from webpanel.security import reset_password as reset
        try:
            reset(name, password)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"director {name}: new password set; every session of theirs is ended")

    @app.cli.command("setup-code")
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
    def expire_pads() -> None:
        """Delete the score pads with no new entry for PAD_EXPIRY_DAYS days."""
        from dealer.store import pads
        from webpanel.db import store
        days = int(current_app.config["PAD_EXPIRY_DAYS"])
        gone = pads.expire(store(), days)
        click.echo(f"{gone} score pad{'s' if gone != 1 else ''} unused for {days} days deleted")
