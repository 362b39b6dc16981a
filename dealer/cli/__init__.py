"""The ``boardwright`` command line, grouped by noun.

Each noun is a module with ``register(subparsers)`` that adds its parser and
sets ``func`` on it. Nouns are found through the ``boardwright.commands``
entry-point group, so adapters (``vision``, ``firmware_bridge``, ``webpanel``)
add their own commands without ``dealer`` importing them.

Every :class:`~dealer.errors.BoardwrightError` is printed as one plain line
and the exit status is 2; a traceback is never shown for bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from dealer.errors import BoardwrightError

# Nouns that ship with the core; entry points may add more.
_BUILTIN = ("dealer.cli.deals", "dealer.cli.demo", "dealer.cli.generation", "dealer.events.cli",
            "dealer.cli.members")


def build_parser(noun: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the ``noun`` about to run, adapters are loaded only if needed.

    Adapter nouns import Flask, OpenCV or pyserial, which costs most of a second;
    ``boardwright deals show`` should not pay that when a core noun was asked for.
    """
    parser = argparse.ArgumentParser(
        prog="boardwright",
        description="boardwright: deal, record and score bridge boards at a real table.",
    )
    parser.add_argument("--version", action="version", version="boardwright 0.1.0")
    sub = parser.add_subparsers(dest="noun", metavar="COMMAND")
    seen: set[str] = set()
    import importlib

    for modname in _BUILTIN:
        importlib.import_module(modname).register(sub)
        seen.add(modname)
    if noun is not None and noun in sub.choices:
        return parser  # a core noun: no adapter is needed to run it
    for ep in sorted(entry_points(group="boardwright.commands"), key=lambda e: e.name):
        if ep.value.split(":")[0] in seen:
            continue
        try:
            register = ep.load()
        except ImportError as exc:  # an optional adapter whose extras are not installed
            p = sub.add_parser(ep.name, help=f"(unavailable: {exc.name} is not installed)")
            p.set_defaults(func=_unavailable(ep.name, str(exc)))
            continue
        register(sub)
        seen.add(ep.value.split(":")[0])
    return parser


def _unavailable(name: str, why: str):
    def run(args: argparse.Namespace) -> int:
        raise BoardwrightError(f"'boardwright {name}' needs an optional package: {why}")

    return run


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(first)
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    try:
        return int(args.func(args) or 0)
    except BoardwrightError as exc:
        print(f"boardwright: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("boardwright: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
