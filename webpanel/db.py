"""The store of the running panel: opened (and migrated) once per app."""

from __future__ import annotations

from flask import Flask, current_app

from dealer.store import Store


def init_app(app: Flask) -> None:
    store = Store.open(app.config["DATABASE_URL"])
    app.extensions["bw_store"] = store


def store() -> Store:
    """The app's store (its engine pools connections for every request)."""
    return current_app.extensions["bw_store"]
