"""What every CLI verb does with files: read a set with clean warnings, check outputs first.

* A reader's warnings and notes come out as ``boardwright: warning: ...`` lines,
  never as Python's ``file.py:123: FormatWarning`` with a source path.
* :func:`check_outputs` is called before any work that cannot be undone (a
  secret drawn and recorded, a set dealt): a missing folder or a directory
  given as an output file is one clear line, not a traceback after the fact.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dealer import formats
from dealer.board import DealSet
from dealer.errors import BoardwrightError, FormatNote, FormatWarning


@contextmanager
def reported_warnings() -> Iterator[list[tuple[str, str]]]:
    """Collect format warnings and notes as ``(kind, text)`` pairs, in order."""
    out: list[tuple[str, str]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FormatWarning)
        warnings.simplefilter("always", FormatNote)
        yield out
    for w in caught:
        if issubclass(w.category, FormatNote):
            out.append(("note", str(w.message)))
        elif issubclass(w.category, FormatWarning):
            out.append(("warning", str(w.message)))
        else:  # anything else still reaches the user, as one plain line
            out.append(("warning", f"{w.category.__name__}: {w.message}"))


def print_warnings(found: list[tuple[str, str]]) -> None:
    for kind, text in found:
        print(f"boardwright: {kind}: {text}", file=sys.stderr)


def read_set(path: str, fmt: str | None = None, *, strict: bool = False,
             first_board: int | None = None) -> DealSet:
    """Read a deal file, printing its warnings as plain lines on stderr."""
    with reported_warnings() as found:
        ds = formats.read(path, format=fmt, strict=strict, first_board=first_board)
    print_warnings(found)
    return ds


def check_output(path: str | Path | None, what: str = "file") -> None:
    """Refuse an output path that cannot be written, before anything is done."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise BoardwrightError(f"{p}: cannot write the {what}: that is a folder; "
                               "give a file name")
    parent = p.parent
    if not parent.exists():
        raise BoardwrightError(f"{p}: cannot write the {what}: the folder {parent} "
                               "does not exist")
    if not parent.is_dir():
        raise BoardwrightError(f"{p}: cannot write the {what}: {parent} is not a folder")


def check_outputs(*paths: tuple[str | Path | None, str]) -> None:
    for path, what in paths:
        check_output(path, what)


def check_not_overwriting(inputs: tuple[str | Path, ...],
                          *outputs: tuple[str | Path | None, str]) -> None:
    """Refuse an output that is one of the command's inputs, or another of its outputs.

    ``records SET.pbn -o SET.pbn`` would put a PDF where the deals were, and
    ``curtains SET -o c.pdf --sheets c.pdf`` the sheets over the curtain cards.
    """
    given = [(Path(p), what) for p, what in outputs if p is not None]
    for i, (out, what) in enumerate(given):
        for source in inputs:
            if out.exists() and Path(source).exists() and out.samefile(source):
                raise BoardwrightError(f"{out}: cannot write the {what} over {source}, which "
                                       "it is made from; give another name")
        for other, other_what in given[:i]:
            if out.resolve() == other.resolve():
                raise BoardwrightError(f"{out}: the {other_what} and the {what} would be the "
                                       "same file; give two names")


def read_json_text(path: str | Path, what: str, missing: str) -> str:
    """The text of a JSON file the command reads (``what``: "secret record"); ``missing``
    says what to do when it is not there. A folder, a file that cannot be read, or one
    that is not text (a picture, random bytes) is one clear line naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BoardwrightError(f"{path}: {missing}") from None
    except OSError as exc:  # a folder, no permission
        raise BoardwrightError(f"{path}: cannot read the {what}: {exc.strerror}") from None
    except UnicodeDecodeError:  # a picture, a DUP file, random bytes
        raise BoardwrightError(f"{path}: not a {what} (it is not JSON text)") from None


def write_text(path: str | Path, text: str) -> None:
    """Write a text file; an OS failure is one clear line."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BoardwrightError(f"{path}: cannot write the file: {exc.strerror}") from None


def positive_int(value: str) -> int:
    """An argparse type for counts such as ``--boards-per-round``: a whole number of 1 or more."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def whole_number(low: int, high: int | None, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (no upper bound if ``None``);
    ``what`` says what is wanted."""
    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
            raise argparse.ArgumentTypeError(f"{text!r}: {what}")
        return int(text)
    return parse


def time_scale_arg(text: str) -> float:
    """``--time-scale`` of an emulated machine: 0 (no mechanical delays at all) or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < float("inf"):  # NaN is refused too
        raise argparse.ArgumentTypeError(f"the time scale must be 0 or more, not {text}")
    return value


def port_arg(value: str) -> int:
    """An argparse type for a TCP port: 0 (any free port) to 65535."""
    if not value.isdigit() or int(value) > 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a TCP port (0-65535)")
    return int(value)


def first_board_arg(value: str) -> int:
    """``--first-board``: a board number of 1 or more."""
    if not value.isdigit() or int(value) < 1 or len(value) > 6:
        raise argparse.ArgumentTypeError(f"{value!r} is not a board number (1-999999)")
    return int(value)


def add_unseal(p: argparse.ArgumentParser, what: str = "write") -> None:
    """``--unseal``: the only way a command writes (or shows) a sealed set's hands."""
    p.add_argument("--unseal", action="store_true",
                   help=f"{what} a sealed set's hands (said on stderr and, for a stored set, "
                        "in the audit log); without it a sealed set's hands are never "
                        f"{'shown' if what == 'show' else 'written'}")


def unsealing(ds: DealSet, unseal: bool) -> bool:
    """True when ``--unseal`` lets a sealed set's hands out (a set holding any hand)."""
    from dealer.formats.sealing import is_sealed

    return unseal and is_sealed(ds) and any(b.deal is not None for b in ds)


def say_unsealed(source: str, target: str) -> None:
    """The line on stderr that a sealed set's hands went out, by ``--unseal``."""
    print(f"boardwright: unsealed: the hands of sealed set {source} were written to {target} "
          "(--unseal)", file=sys.stderr)


def log_unseal(store: object, set_id: int, detail: str) -> None:
    """An ``unseal`` line in the store's audit log, for a CLI verb that worked on the store."""
    from dealer.store import audit

    audit.record(store, who=audit.cli_user(), action="unseal",  # type: ignore[arg-type]
                 subject=f"deal set {set_id}", detail=detail)
