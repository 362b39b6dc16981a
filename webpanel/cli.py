"""``boardwright serve``: the panel on a local address (werkzeug's threaded server).

For a club night on one laptop this is enough: ``serve --lan`` binds to the
laptop's address on the club's Wi-Fi (or a phone's hotspot) and prints it with
a QR code; the table cards' QR codes open the same address. ``--https`` adds
a self-signed certificate made on first run (its fingerprint is printed), or
``--cert``/``--key`` give one. Behind a reverse proxy or for many tables run
it under gunicorn: ``gunicorn -c python:webpanel.gunicorn_config 'webpanel:create_app()'``.
See docs/club-night.md.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path

from dealer.cli._io import port_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the director's panel and the table pages")
    p.add_argument("--host", default=None,
                   help="address to bind (default 127.0.0.1, this computer only)")
    p.add_argument("--lan", action="store_true",
                   help="serve the phones on this computer's network (the club's Wi-Fi or a "
                        "phone's hotspot): bind to its address, print it and a QR code")
    p.add_argument("--port", type=port_arg, default=5000)
    p.add_argument("--public-url", help="the address phones use, on the table cards (a "
                   "reverse proxy, a fixed name); default: the setting public_url, else the "
                   "address served")
    p.add_argument("--https", action="store_true",
                   help="serve HTTPS with a self-signed certificate made on first run in the "
                        "instance folder (its fingerprint is printed)")
    p.add_argument("--cert", help="serve HTTPS with this certificate (PEM; with --key)")
    p.add_argument("--key", help="the certificate's private key (PEM)")
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


def _url(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = (scheme, port) in (("http", 80), ("https", 443))
    return f"{scheme}://{shown}" + ("" if default else f":{port}")


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import run_simple

    from dealer.config import Settings, check_public_url
    from webpanel import create_app
    from webpanel.lan import (
        LanError,
        check_certificate,
        fingerprint,
        lan_address,
        self_signed,
        terminal_qr,
    )

    if args.lan and args.host:
        raise LanError("give --lan or --host, not both")
    if bool(args.cert) != bool(args.key):
        raise LanError("--cert and --key go together")
    settings = Settings.load()
    host = lan_address() if args.lan else (args.host or "127.0.0.1")
    scheme = "https" if args.https or args.cert else "http"
    served = _url(scheme, host, args.port)
    public = (check_public_url(args.public_url, "--public-url") if args.public_url
              else settings.public_url)
    ssl_context: tuple[str, str] | None = None
    fp = ""
    if args.cert:
        cert, key = Path(args.cert), Path(args.key)
        check_certificate(cert, key)
        ssl_context = (str(cert), str(key))
        fp = fingerprint(cert.read_bytes())
    elif args.https:
        names = [host] + ([h] if public and (h := _host(public)) else [])
        cert, key, made = self_signed(settings.instance, names)
        ssl_context = (str(cert), str(key))
        fp = fingerprint(cert.read_bytes())
        if made:
            print(f"Made a self-signed certificate for {', '.join(names)}: {cert}", flush=True)
    # The options over the settings files: instance/webpanel.cfg (TRUSTED_PROXIES behind a
    # proxy, CLUB_NAME for the results export) counts as it does under gunicorn.
    app = create_app(overrides={"DATABASE_URL": args.database, "RIG_MACHINE": args.machine,
                                "RIG_CAMERA": args.camera,
                                "PUBLIC_URL": public or (served if args.lan else None)})
    phones = public or served
    lines = [f"The panel: {served}/  (Ctrl+C stops it)"]
    if args.demo:
        password = secrets.token_urlsafe(9)
        with app.app_context():
            from webpanel.security import set_password
            set_password("demo", password)
        lines = [f"\n7. The panel: {served}/  (log in as 'demo', password {password})",
                 "   Ctrl+C stops it."]
    else:
        with app.app_context():
            from webpanel import setup_code
            from webpanel.security import has_director
            if not has_director():
                # Only who sees this terminal may become the first director (not the Wi-Fi).
                lines += [f"First run: open {served}/setup and give the one-time setup code",
                          f"Setup code: {setup_code.new_code()}",
                          "   (`flask --app webpanel setup-code` prints a new one)"]
    if args.lan or public:
        lines.append(f"Phones and table cards: {phones}/")
    if fp:
        lines.append(f"Certificate SHA-256 fingerprint (a phone shows it before trusting):\n"
                     f"  {fp}")
    print("\n".join(lines), flush=True)
    if args.lan or public:
        print("Scan to open the panel on a phone (same Wi-Fi):", flush=True)
        terminal_qr(phones + "/", sys.stdout)
        sys.stdout.flush()
    elif args.demo:
        print("   From a phone on the same Wi-Fi: `boardwright serve --lan --demo` serves the "
              f"panel on this computer's network ({_lan_hint()}); see docs/club-night.md.",
              flush=True)
    run_simple(host, args.port, app, threaded=True, use_reloader=False,
               ssl_context=ssl_context)
    return 0


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or ""


def _lan_hint() -> str:
    from webpanel.lan import LanError, lan_address

    try:
        return f"now http://{lan_address()}:5000/"
    except LanError:
        return "no network now: join the club's Wi-Fi first"
