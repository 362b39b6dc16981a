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
- The access log, when one is asked for (``--access-logfile -``), never
  holds a table's or a pad's token: :class:`RedactingLogger` replaces them in
  every field of the line (the request, the path, the Referer), as
  :mod:`webpanel.redact` does for ``boardwright serve``.
"""

from __future__ import annotations

import gc
import os
from typing import Any

from gunicorn.glogging import Logger

from webpanel.redact import redact

bind = os.environ.get("BOARDWRIGHT_BIND", "127.0.0.1:5000")
worker_class = "gthread"
workers = int(os.environ.get("BOARDWRIGHT_WORKERS", "2"))
threads = int(os.environ.get("BOARDWRIGHT_THREADS", "4"))
# The workers' heartbeat file is touched on every turn of the event loop: in memory,
# not on the laptop's disk (gunicorn's own advice).
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
keepalive = 30  # seconds: a table's phone sends its next entry within minutes, often seconds
loglevel = "warning"


class RedactingLogger(Logger):
    """Gunicorn's logger, with the tokens taken out of every access-log field."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        return {k: redact(v) if isinstance(v, str) else v
                for k, v in super().atoms(resp, req, environ, request_time).items()}


logger_class = RedactingLogger


#: The pages every table opens at the start of a night, compiled before the first phone
#: asks (a hundred phones opening their page at once would otherwise wait on it).
WARM_TEMPLATES = ("tables/entry.html", "tables/players.html", "error.html")


def post_worker_init(worker: Any) -> None:
    app = getattr(worker, "wsgi", None)
    env = getattr(app, "jinja_env", None)
    if env is not None:
        for name in WARM_TEMPLATES:
            env.get_template(name)
    gc.collect()
    gc.freeze()
