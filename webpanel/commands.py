"""``flask --app webpanel init-db`` and ``create-director``."""

from __future__ import annotations

import click
from flask import Flask


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
        from webpanel.security import create_director as make
        try:
            make(name, password)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"director {name} created")
