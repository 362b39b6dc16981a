"""The instance folder and the settings read from it.

The instance folder holds everything a club's installation owns: the SQLite
database, generated files, and ``boardwright.toml`` with local settings. It is
``$BOARDWRIGHT_INSTANCE`` when set, else ``./instance``.

Settings come, first match wins, from the environment (``BOARDWRIGHT_<NAME>``),
then ``boardwright.toml`` in the instance folder, then the defaults below.

>>> s = Settings.load(Path("/tmp/nowhere"), environ={})
>>> s.database_url
'sqlite:////tmp/nowhere/boardwright.sqlite'
>>> Settings.load(Path("/x"), environ={"BOARDWRIGHT_DATABASE_URL": "postgresql+psycopg://h/db"}).database_url
'postgresql+psycopg://h/db'
>>> Settings.load(Path("/x"), environ={"BOARDWRIGHT_PUBLIC_URL": "https://bridge.example.org/"}).public_url
'https://bridge.example.org'
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from dealer.errors import BoardwrightError

CONFIG_NAME = "boardwright.toml"
DATABASE_NAME = "boardwright.sqlite"


class ConfigError(BoardwrightError):
    """The settings file could not be read or holds a bad value."""


def instance_path(environ: Mapping[str, str] | None = None) -> Path:
    """The instance folder (not created here)."""
    env = os.environ if environ is None else environ
    return Path(env.get("BOARDWRIGHT_INSTANCE") or "instance").resolve()


@dataclass(frozen=True)
class Settings:
    """Local settings of one installation.

    ``database_url`` is an SQLAlchemy URL: SQLite in the instance folder by
    default, or e.g. ``postgresql+psycopg://user:pw@host/dbname``.
    ``public_url`` is the address phones use to reach the panel (a reverse
    proxy's name, a fixed name on the club's network); ``None``: the address
    the panel is served on. It is what the table cards' QR codes open.
    """

    instance: Path
    database_url: str
    public_url: str | None = None

    @classmethod
    def load(cls, instance: Path | None = None,
             environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        folder = instance if instance is not None else instance_path(env)
        file_values = _read_file(folder / CONFIG_NAME)
        url = (env.get("BOARDWRIGHT_DATABASE_URL")
               or file_values.get("database_url")
               or f"sqlite:///{folder / DATABASE_NAME}")
        if not isinstance(url, str):
            raise ConfigError(f"{folder / CONFIG_NAME}: database_url must be a string")
        public = env.get("BOARDWRIGHT_PUBLIC_URL") or file_values.get("public_url")
        where = ("BOARDWRIGHT_PUBLIC_URL" if env.get("BOARDWRIGHT_PUBLIC_URL")
                 else f"{folder / CONFIG_NAME}: public_url")
        return cls(instance=folder, database_url=url,
                   public_url=check_public_url(public, where) if public else None)


def check_public_url(value: object, where: str = "public_url") -> str:
    """``http(s)://host[:port][/path]`` without a trailing slash, or a one-line error.

    >>> check_public_url("http://192.168.1.20:5000/")
    'http://192.168.1.20:5000'
    >>> check_public_url("192.168.1.20:5000")
    Traceback (most recent call last):
    ...
    dealer.config.ConfigError: public_url: '192.168.1.20:5000' must start with http:// or https://
    """
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string")
    text = value.strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 -- raises ValueError for a bad port
    except ValueError as exc:
        raise ConfigError(f"{where}: {value!r} is not an address: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError(f"{where}: {value!r} must start with http:// or https://")
    if not parts.hostname or parts.query or parts.fragment or parts.username:
        raise ConfigError(f"{where}: {value!r} must be http(s)://host[:port][/path], "
                          "without a user, query or fragment")
    return text.rstrip("/")


def _read_file(path: Path) -> dict[str, object]:
    """The top-level keys of ``boardwright.toml``, or nothing if there is no file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the settings file: {exc.strerror}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not a valid TOML settings file: {exc}") from None
