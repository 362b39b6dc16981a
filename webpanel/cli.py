"""``boardwright serve``: the panel on a local address (werkzeug's threaded server).

For a club night on one laptop this is enough; behind a reverse proxy or for
many tables run it under gunicorn:
``gunicorn -c python:webpanel.gunicorn_config 'webpanel:create_app()'``.
"""

from __future__ import annotations

import argparse
import secrets


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the director's panel and the table pages")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--database", help="database URL (default: the instance folder's SQLite)")
    p.add_argument("--machine", default="emulator",
                   help="the dealing machine the rig deals on: a pyserial URL (/dev/ttyACM0, "
                   "socket://host:port) or 'emulator' (the default)")
    p.add_argument("--camera", default="emulator",
                   help="the rig's camera: 'emulator' (the default, with --machine emulator) "
                   "or a camera source such as camera:0")
    p.add_argument("--demo", action="store_true",
                   help="(re)set the password of the director 'demo' and print it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import run_simple

    from webpanel import create_app

    # Plain http on this machine only: a Secure cookie would never come back over http.
    local = args.host in ("127.0.0.1", "localhost", "::1")
    app = create_app({"DATABASE_URL": args.database, "SESSION_COOKIE_SECURE": not local,
                      "RIG_MACHINE": args.machine, "RIG_CAMERA": args.camera})
    if args.demo:
        password = secrets.token_urlsafe(9)
        with app.app_context():
            from webpanel.security import set_password
            set_password("demo", password)
        print(f"\n7. The panel: http://{args.host}:{args.port}/  (log in as 'demo', "
              f"password {password})\n   Ctrl+C stops it.", flush=True)
    else:
        print(f"The panel: http://{args.host}:{args.port}/  (Ctrl+C stops it)", flush=True)
    run_simple(args.host, args.port, app, threaded=True, use_reloader=False)
    return 0
