"""Bad input to the panel's flask commands (``flask --app webpanel CMD``): click's one
``Error: ...`` line naming the file, setting, field or database, status 1 (2 for a bad
argument), never a traceback, never lost data, never a hang.

Each case marked *before* was a Python traceback (or worse) until this sweep: every
error raised while the app is built (a bad database URL, a broken settings file, an
instance folder that is a file), a database that refuses the change, a non-UTF-8 name,
and PAD_EXPIRY_DAYS of 0 or less, which deleted every score pad.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

import pytest
from click.testing import Result
from sqlalchemy import func, select

from dealer.store import Store, pads
from dealer.store.panel_models import Director
from tests.web_helpers import make_app
from webpanel.db import store

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "longpassword"


def flask(instance: Path | None, *args: str | bytes, cwd: Path = ROOT,
          input: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``flask --app webpanel ARGS`` in a process of its own, as a director would run it
    (``instance`` None: no $BOARDWRIGHT_INSTANCE, the folder ./instance of ``cwd``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("BOARDWRIGHT_")}
    if instance is not None:
        environ["BOARDWRIGHT_INSTANCE"] = str(instance)
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "flask", "--app", "webpanel", *args],
                          cwd=cwd, env=environ, input=input, capture_output=True, text=True,
                          errors="replace", timeout=120)


def one_error(out: subprocess.CompletedProcess[str], *needles: str, status: int = 1) -> str:
    """The one ``Error:`` line on stderr, and nothing else there."""
    assert "Traceback" not in out.stderr, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == status and len(lines) == 1, (out.returncode, out.stderr)
    assert lines[0].startswith("Error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def usage_error(out: subprocess.CompletedProcess[str], *needles: str) -> str:
    """click's refusal of an argument: its usage, then one ``Error:`` line, status 2."""
    assert "Traceback" not in out.stderr and out.returncode == 2, (out.returncode, out.stderr)
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: "), out.stderr
    for needle in needles:
        assert needle in last, (needle, last)
    return last


def cli_error(result: Result, *needles: str, status: int = 1) -> str:
    """The same through Flask's CliRunner: a clean exit with one ``Error:`` line."""
    assert isinstance(result.exception, SystemExit), result.exception  # not a traceback
    assert result.exit_code == status, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: "), result.output
    for needle in needles:
        assert needle in last, (needle, last)
    return last


@pytest.fixture
def instance(tmp_path: Path) -> Path:
    return tmp_path / "instance"


# ----------------------------------------------------------------------- the database
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("url", "needles"), [
    # before: tracebacks of StoreError (all), and of int() for the port (with the password)
    ("not a url", ["bad database URL 'not a url'"]),
    ("postgresql+psycopg://ann:s3cret@db:notaport/bw",
     ["'postgresql+psycopg://ann:***@db:notaport/bw'", "its port is not a number"]),
    ("foo://x/y", ["unsupported database URL 'foo://x/y'"]),
    pytest.param("postgresql+psycopg://ann:s3cret@127.0.0.1:{port}/bw",
                 ["cannot open the database postgresql+psycopg://ann:***@127.0.0.1:", "refused"],
                 marks=pytest.mark.skipif(find_spec("psycopg") is None, reason="no psycopg")),
    ("sqlite:///{tmp}/a-file/db/bw.sqlite", ["cannot create the folder", "a-file/db"]),
    ("sqlite:///{tmp}/text.sqlite", ["text.sqlite: file is not a database"]),
    ("sqlite:///{tmp}", ["cannot open the database sqlite:///", "unable to open"]),
])
def test_a_bad_database_url_is_one_line(url: str, needles: list[str], tmp_path: Path,
                                        instance: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "text.sqlite").write_text("hello, not a database\n")
    url = url.format(tmp=tmp_path, port=_free_port())
    line = one_error(flask(instance, "init-db", BOARDWRIGHT_DATABASE_URL=url), *needles)
    assert "s3cret" not in line


def test_a_postgresql_server_that_never_answers_does_not_hang(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # before: libpq waited for ever on a host that takes the connection and says nothing
    # (a wrong port, a firewall): every command hung.
    pytest.importorskip("psycopg")
    from dealer.store import engine
    from dealer.store.engine import StoreError
    monkeypatch.setattr(engine, "PG_CONNECT_TIMEOUT", 1)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    errors: list[Exception] = []

    def open_it() -> None:
        try:
            Store.open(f"postgresql+psycopg://ann@127.0.0.1:{port}/bw")
        except Exception as exc:  # noqa: BLE001 -- the test looks at what it was
            errors.append(exc)

    started = time.monotonic()
    opener = threading.Thread(target=open_it, daemon=True)
    opener.start()
    opener.join(20)
    listener.close()
    assert not opener.is_alive(), "still waiting for the server after 20 s"
    assert time.monotonic() - started < 15
    assert len(errors) == 1 and isinstance(errors[0], StoreError), errors
    assert "timeout" in str(errors[0])


# ------------------------------------------------------ the instance folder and settings
def test_an_instance_folder_that_is_a_file_is_named(tmp_path: Path) -> None:
    # before: a ConfigError traceback
    folder = tmp_path / "instance"
    folder.write_text("a file, not a folder")
    one_error(flask(folder, "init-db"), str(folder / "boardwright.toml"), "Not a directory")


def test_one_instance_folder_for_the_database_settings_secret_and_setup_code(
        tmp_path: Path) -> None:
    # before: run from another folder than the project's (or with the package installed),
    # the database was made in ./instance but the session secret and the setup code went
    # to Flask's folder beside the package, and ./instance/webpanel.cfg was never read:
    # its PAD_EXPIRY_DAYS = 0 was ignored without a word.
    club = tmp_path / "club"
    (club / "instance").mkdir(parents=True)
    out = flask(None, "setup-code", cwd=club)
    assert out.returncode == 0 and "Setup code: " in out.stdout, out.stderr
    assert {"boardwright.sqlite", "secret_key", "setup_code"} <= {
        p.name for p in (club / "instance").iterdir()}
    (club / "instance" / "webpanel.cfg").write_text("PAD_EXPIRY_DAYS = 0\n")
    one_error(flask(None, "expire-pads", cwd=club),
              f"{club / 'instance' / 'webpanel.cfg'}: PAD_EXPIRY_DAYS must be a whole number")


@pytest.mark.parametrize(("content", "needles"), [
    # before: tracebacks of SyntaxError and NameError out of Flask's from_pyfile
    ("PAD_EXPIRY_DAYS = (\n", ["webpanel.cfg, line 1: not a valid settings file"]),
    ("CLUB_NAME = 'Bridge'\nPAD_EXPIRY_DAYS = thirty\n",
     ["webpanel.cfg, line 2", "NameError: name 'thirty' is not defined"]),
    # before: a ConfigError traceback; it said only "public_url"
    ("PUBLIC_URL = 'ftp://bridge'\n", ["webpanel.cfg: PUBLIC_URL: 'ftp://bridge' must start"]),
    # before: a ValueError traceback (TRUSTED_PROXIES is read when the app is built)
    ("TRUSTED_PROXIES = 'two'\n", ["webpanel.cfg: TRUSTED_PROXIES must be a whole number"]),
])
def test_a_broken_webpanel_cfg_is_named_with_its_line(
        content: str, needles: list[str], instance: Path) -> None:
    instance.mkdir()
    (instance / "webpanel.cfg").write_text(content)
    one_error(flask(instance, "init-db"), str(instance / "webpanel.cfg"), *needles)


@pytest.mark.parametrize("content", ["PAD_EXPIRY_DAYS = 0\n", "PAD_EXPIRY_DAYS = (\n",
                                     "PUBLIC_URL = 'ftp://bridge'\n"])
def test_the_help_with_a_broken_webpanel_cfg_is_one_error_line_then_the_help(
        content: str, instance: Path) -> None:
    # before: `flask --app webpanel --help` printed Flask's traceback of the ClickException
    # (the app is built to list its commands), then the help.
    instance.mkdir()
    (instance / "webpanel.cfg").write_text(content)
    out = flask(instance, "--help")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"Error: {instance / 'webpanel.cfg'}"), lines
    assert out.stdout.startswith("Usage: ") and "Commands:" in out.stdout
    # A command still gets the one line alone (status 1), its own --help too.
    for args in (["init-db"], ["init-db", "--help"], ["routes"]):
        one_error(flask(instance, *args), str(instance / "webpanel.cfg"))


@pytest.mark.parametrize(("write", "needles"), [
    # before: ConfigError tracebacks
    (lambda inst: (inst / "boardwright.toml").write_text("database_url = [\n"),
     ["boardwright.toml: not a valid TOML settings file"]),
    (lambda inst: (inst / "boardwright.toml").write_text("database_url = 5\n"),
     ["boardwright.toml: database_url must be a string"]),
    # before: IsADirectoryError and UnicodeDecodeError tracebacks
    (lambda inst: (inst / "secret_key").mkdir(),
     ["secret_key: cannot read the session secret: Is a directory"]),
    (lambda inst: (inst / "secret_key").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe"),
     ["secret_key: cannot read the session secret: not a text file"]),
])
def test_a_broken_file_in_the_instance_folder_is_named(
        write: Callable[[Path], object], needles: list[str], instance: Path) -> None:
    instance.mkdir()
    write(instance)
    one_error(flask(instance, "init-db"), str(instance), *needles)


def test_a_bad_public_url_in_the_environment_is_named(instance: Path) -> None:
    # before: a ConfigError traceback
    one_error(flask(instance, "setup-code", BOARDWRIGHT_PUBLIC_URL="bridge.local"),
              "BOARDWRIGHT_PUBLIC_URL: 'bridge.local' must start with http://")


# --------------------------------------------------------------------- PAD_EXPIRY_DAYS
def _pads(instance: Path, n: int) -> str:
    url = f"sqlite:///{instance / 'boardwright.sqlite'}"
    with Store.open(url) as st:
        for i in range(n):
            pads.create(st, "rubber", f"pad {i}", {})
    return url


def _count(url: str) -> int:
    with Store.open(url) as st:
        return len(pads.all_pads(st))


@pytest.mark.parametrize("value", ["-5", "0", "'thirty'", "2.5", "True", "None", "10**30",
                                   "''"])
def test_a_bad_pad_expiry_setting_deletes_nothing(value: str, instance: Path) -> None:
    # before: -5 and 0 deleted every pad ("0 score pads ..." on the next run), 2.5 was 2 and
    # True was "1 days"; 'thirty', None and 10**30 were tracebacks (ValueError, TypeError,
    # OverflowError).
    url = _pads(instance, 2)
    (instance / "webpanel.cfg").write_text(f"PAD_EXPIRY_DAYS = {value}\n")
    one_error(flask(instance, "expire-pads"),
              f"{instance / 'webpanel.cfg'}: PAD_EXPIRY_DAYS must be a whole number from 1 to")
    assert _count(url) == 2


def test_expire_pads_keeps_the_recent_pads_and_says_days_right(instance: Path) -> None:
    url = _pads(instance, 1)
    (instance / "webpanel.cfg").write_text("PAD_EXPIRY_DAYS = '1'\n")  # a number as text
    out = flask(instance, "expire-pads")
    assert out.returncode == 0 and "0 score pads unused for 1 day deleted" in out.stdout
    assert _count(url) == 1


# -------------------------------------------------------------------------- setup-code
def test_setup_code_says_which_file_it_cannot_write(instance: Path) -> None:
    # before: an IsADirectoryError traceback, and the temporary file left behind
    (instance / "setup_code").mkdir(parents=True)
    one_error(flask(instance, "setup-code"),
              f"{instance / 'setup_code'}: cannot write the setup code: Is a directory")
    assert not [p for p in instance.iterdir() if p.name.startswith(".setup_code")]


def test_no_flask_command_logs_no_director_yet(instance: Path) -> None:
    # before: every command (setup-code itself, init-db, --help ...) logged "No director
    # yet: `flask --app webpanel setup-code` prints the one-time code", a line about
    # serving the panel, while there was no director.
    for args in (["setup-code"], ["init-db"], ["expire-pads"], ["--help"], ["routes"]):
        out = flask(instance, *args)
        assert out.returncode == 0 and out.stderr == "", (args, out.stderr)


def test_the_panel_says_no_director_yet_when_it_serves(tmp_path: Path, monkeypatch,
                                                       caplog) -> None:
    # The app as gunicorn and `flask run` build it (the settings files, no options): once,
    # at its first request, while there is no director; never once there is one.
    from webpanel import create_app
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "instance"))
    app = create_app()
    assert "No director yet" not in caplog.text
    c = app.test_client()
    assert c.get("/pads/").status_code == 200 and c.get("/setup").status_code == 200
    assert caplog.text.count("No director yet: `flask --app webpanel setup-code`") == 1
    with app.app_context():
        from webpanel.security import create_director
        create_director("ann", PASSWORD)
    caplog.clear()
    again = create_app()
    assert again.test_client().get("/pads/").status_code == 200
    assert "No director yet" not in caplog.text


def test_setup_code_when_a_director_exists_is_refused(tmp_path: Path) -> None:
    # already one line: kept so
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["create-director", "ann", "--password", PASSWORD]).exit_code == 0
    cli_error(runner.invoke(args=["setup-code"]), "there is a director already")


# ------------------------------------------------------- names and passwords (CliRunner)
@pytest.mark.parametrize(("args", "needles"), [
    # already one line: kept so
    (["create-director", ""], ["the name must be 1 to 100 characters"]),
    (["create-director", "   "], ["the name must be 1 to 100 characters"]),
    (["create-director", "x" * 101], ["the name must be 1 to 100 characters"]),
    (["create-director", "x" * 100_000], ["the name must be 1 to 100 characters"]),
    (["create-director", "ann"], ["there is already a director called 'ann'"]),
    (["create-director", " ann "], ["there is already a director called 'ann'"]),
    (["create-director", "bob", "--password", "short"], ["at least 8 characters"]),
    (["create-director", "bob", "--password", ""], ["at least 8 characters"]),
    (["create-director", "bob", "--password", "p" * 201], ["at most 200 characters"]),
    (["reset-password", "nobody"], ["there is no director called 'nobody'"]),
    (["reset-password", "ann", "--password", "short"], ["at least 8 characters"]),
    # before: the unknown name repeated in full (100,000 characters)
    (["reset-password", "y" * 100_000], ["there is no director called 'yyyy", "y…'"]),
    # before: accepted; a name with a line break can never be typed into the login form
    (["create-director", "ann\nmarie"], ["'ann\\nmarie' has a control character"]),
    (["create-director", "tab\tname"], ["has a control character"]),
])
def test_a_refused_name_or_password_is_one_line(args: list[str], needles: list[str],
                                                tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["create-director", "ann", "--password", PASSWORD]).exit_code == 0
    if "--password" not in args:
        args = [*args, "--password", PASSWORD]
    cli_error(runner.invoke(args=args), *needles)
    with app.app_context(), store().read() as s:  # ann alone, as before
        assert s.scalar(select(func.count()).select_from(Director)) == 1


@pytest.mark.parametrize("command", ["create-director", "reset-password"])
def test_a_name_that_is_not_utf8_is_refused_before_the_password(command: str,
                                                                 instance: Path) -> None:
    # before: "Error: 'utf-8' codec can't encode character '\udce9' in position 3:
    # surrogates not allowed", after asking for the password twice
    out = flask(instance, command, b"caf\xe9", input="")  # no password typed: not asked
    usage_error(out, "Invalid value for 'NAME': b'caf\\xe9' is not UTF-8 text")
    assert "Password" not in out.stdout + out.stderr


# ------------------------------------------------- a database that refuses the change
def test_a_read_only_database_is_one_line_naming_it(tmp_path: Path) -> None:
    # before: tracebacks of OperationalError (create-director and reset-password: with the
    # new password's hash printed in the traceback's parameters) and StoreError.
    db = tmp_path / "bw.sqlite"
    rw = make_app(f"sqlite:///{db}")
    assert rw.test_cli_runner().invoke(
        args=["create-director", "ann", "--password", PASSWORD]).exit_code == 0
    with Store.open(f"sqlite:///{db}") as st:
        pads.create(st, "rubber", "kept", {})
    ro = make_app(f"sqlite:///file:{db}?mode=ro&uri=true").test_cli_runner()
    for args in (["create-director", "bob", "--password", PASSWORD],
                 ["reset-password", "ann", "--password", PASSWORD],
                 ["expire-pads"]):
        result = ro.invoke(args=args)
        line = cli_error(result, "bw.sqlite", "attempt to write a readonly database")
        assert "scrypt" not in result.output and len(line) < 300, line
    out = rw.test_cli_runner().invoke(args=["setup-code"])
    assert "there is a director already" in out.output  # ann is there, bob is not


def test_reset_password_takes_the_name_as_the_login_form_does(tmp_path: Path) -> None:
    # create-director and the login form strip the name's spaces; reset-password did not,
    # so ' ann ' was "no director called ' ann '".
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["create-director", "ann", "--password", PASSWORD]).exit_code == 0
    out = runner.invoke(args=["reset-password", " ann ", "--password", PASSWORD + "2"])
    assert out.exit_code == 0, out.output
