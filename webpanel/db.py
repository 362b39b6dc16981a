"""The store of the running panel: opened (and migrated) once per app."""

from __future__ import annotations

from flask import Flask, current_app

from dealer.store import Store
from dealer.store.engine import checkpoint_in_background


def init_app(app: Flask) -> None:
    store = Store.open(app.config["DATABASE_URL"])
    app.extensions["bw_store"] = store
    # A panel runs all evening: SQLite's log is copied back by a thread of its own, not
    # by a table's entry while every other table waits (dealer.store.engine).
    background = app.config.get("CHECKPOINT_IN_BACKGROUND")
    if background or (background is None and not app.testing):
        checkpoint_in_background(store.engine)


def store() -> Store:
    """The app's store (its engine pools connections for every request)."""
    return current_app.extensions["bw_store"]
