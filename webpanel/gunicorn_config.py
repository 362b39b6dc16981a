"""Gunicorn settings for the panel on a club machine, as ``bench/panel_load.py`` measures it.

    gunicorn -c python:webpanel.gunicorn_config 'webpanel:create_app()'

Command-line options override these (``--bind``, ``--workers`` ...).

Why these values (measured with 100 simulated tables on 2 cores):

- ``gthread`` workers keep each phone's connection alive between entries and
  serve several at once while one waits on the database.
- Two workers by default: one per core. SQLite still has one writer at a
  time; the store's writer turn (``dealer.store.engine.writer_turn``) queues
  them without SQLite's sleeping busy handler.
- After a worker has loaded the app, its long-lived objects (routes,
  templates, SQLAlchemy's metadata and compiled statements) are frozen out of
  the garbage collector's way, so a full collection no longer walks them in
  the middle of somebody's request.
"""

from __future__ import annotations

import gc
import os
from typing import Any

bind = os.environ.get("BOARDWRIGHT_BIND", "127.0.0.1:5000")
worker_class = "gthread"
workers = int(os.environ.get("BOARDWRIGHT_WORKERS", "2"))
threads = int(os.environ.get("BOARDWRIGHT_THREADS", "4"))
keepalive = 30  # seconds: a table's phone sends its next entry within minutes, often seconds
loglevel = "warning"


def post_worker_init(worker: Any) -> None:
    gc.collect()
    gc.freeze()
