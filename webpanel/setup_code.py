"""The one-time setup code: while no director exists, ``/setup`` asks for it.

Without it, whoever opened ``/setup`` first became the director, even a
stranger on the club's Wi-Fi when the panel was served with ``--lan``. The
code is made by whoever starts the panel on the machine itself:
``boardwright serve`` prints one when there is no director yet, and
``flask --app webpanel setup-code`` prints a new one (for gunicorn, or a lost
terminal). Each new code replaces the last. Only its SHA-256 is kept, in the
instance folder beside the session secret (``setup_code``, mode 0600), and it
is deleted once the first director exists. Wrong codes count as failed
logins of the client address, so they cannot be tried quickly.

``SETUP_CODE`` in the app's settings fixes the code instead (tests).

>>> len(make()), normalise(" abcd-efgh jkmn ") == "ABCDEFGHJKMN"
(14, True)
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from flask import current_app

from dealer.config import ConfigError

# No 0/O, 1/I/L: a code read off a terminal and typed on a phone.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def make() -> str:
    """A fresh code: 12 letters and digits in three groups, about 59 bits."""
    return "-".join("".join(secrets.choice(ALPHABET) for _ in range(4)) for _ in range(3))


def normalise(code: str) -> str:
    """As typed: case, spaces and dashes do not matter."""
    return "".join(code.split()).replace("-", "").upper()[:64]


def _digest(code: str) -> str:
    return hashlib.sha256(normalise(code).encode()).hexdigest()


def path() -> Path:
    return Path(current_app.instance_path) / "setup_code"


def new_code() -> str:
    """Make a code, keep its hash in the instance folder (replacing any), return it."""
    code = make()
    folder = path().parent
    tmp = folder / f".setup_code.{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(_digest(code) + "\n")
        os.replace(tmp, path())  # a server reading it meanwhile sees the old code or the new
    except OSError as exc:  # a folder of that name, an instance folder that is a file
        with contextlib.suppress(OSError):
            tmp.unlink()  # not left behind beside the code it did not replace
        raise ConfigError(f"{path()}: cannot write the setup code: {exc.strerror}") from None
    return code


def is_set() -> bool:
    """Whether a code has been made (or is fixed in the settings)."""
    return bool(current_app.config.get("SETUP_CODE")) or path().is_file()


def check(code: str) -> bool:
    """Whether ``code`` is the current setup code (compared in constant time)."""
    fixed = current_app.config.get("SETUP_CODE")
    if fixed:
        wanted = _digest(str(fixed))
    else:
        try:
            wanted = path().read_text().strip()
        except OSError:
            return False
    return bool(normalise(code)) and hmac.compare_digest(_digest(code), wanted)


def forget() -> None:
    """The first director exists: the code is spent."""
    # /setup is closed by the director's existence alone: a code file that cannot be
    # removed (a folder of that name) must not turn the director's creation into an error.
    with contextlib.suppress(OSError):
        path().unlink(missing_ok=True)
