"""``boardwright serve``: the panel on a local address (waitress-free: werkzeug or gunicorn)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the director's panel and the table pages")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--database", help="database URL (default: the instance folder's SQLite)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    serve(args.host, args.port, args.database)
    return 0


def serve(host: str = "127.0.0.1", port: int = 5000, database: str | None = None) -> None:
    from werkzeug.serving import run_simple

    from webpanel import create_app

    # Plain http on this machine only: a Secure cookie would never be sent back.
    local = host in ("127.0.0.1", "localhost", "::1")
    app = create_app({"DATABASE_URL": database, "SESSION_COOKIE_SECURE": not local})
    run_simple(host, port, app, threaded=True, use_reloader=False)
