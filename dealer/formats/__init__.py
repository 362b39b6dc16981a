"""Deal-file formats: one module per format, one registry.

Each format module defines a :class:`Format` instance named ``FORMAT`` with

* ``name`` (``"pbn"``), ``extensions`` and ``binary``;
* ``sniff(data: bytes) -> int``: how sure it is that ``data`` is this format,
  0 (no) to 100 (certain), judged from the content, never the file name;
* ``loads(data: bytes, *, source: str, strict: bool) -> DealSet``;
* ``dumps(dealset: DealSet) -> bytes`` (``None`` for read-only formats).

Reading is lenient by default: deviations from a format's standard that do not
change the deals are accepted and collected as warnings. ``strict=True`` turns
each of them into a :class:`~dealer.errors.FormatError`.

>>> 'pbn' in names()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dealer.board import DealSet
from dealer.errors import FormatError

_MODULES = ("pbn", "lin", "dup", "dlm", "bri", "dge", "bigdeal_csv")


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]
    sniff: Callable[[bytes], int]
    loads: Callable[..., DealSet]
    dumps: Callable[[DealSet], bytes] | None
    binary: bool = False
    description: str = ""
    aliases: tuple[str, ...] = field(default=())


_registry: dict[str, Format] | None = None


def registry() -> dict[str, Format]:
    global _registry
    if _registry is None:
        found: dict[str, Format] = {}
        for mod in _MODULES:
            try:
                module = importlib.import_module(f"dealer.formats.{mod}")
            except ModuleNotFoundError as exc:
                if exc.name != f"dealer.formats.{mod}":
                    raise
                continue
            fmt: Format = module.FORMAT
            found[fmt.name] = fmt
        _registry = found
    return _registry


def names() -> list[str]:
    return list(registry())


def get(name: str) -> Format:
    key = name.lower().lstrip(".")
    reg = registry()
    for fmt in reg.values():
        if key == fmt.name or key in fmt.aliases or key in fmt.extensions:
            return fmt
    raise FormatError(f"unknown format {name!r}; known formats: {', '.join(sorted(reg))}")


def detect(data: bytes, *, source: str = "<data>") -> Format:
    """The format whose sniffer is surest of ``data``."""
    best: tuple[int, Format] | None = None
    for fmt in registry().values():
        try:
            score = fmt.sniff(data)
        except Exception:  # a sniffer must never make detection fail
            score = 0
        if score and (best is None or score > best[0]):
            best = (score, fmt)
    if best is None:
        if not data.strip():
            raise FormatError("the file is empty", path=source)
        raise FormatError(
            "cannot tell which deal-file format this is "
            f"(known: {', '.join(sorted(registry()))}); give --format", path=source)
    return best[1]


def loads(data: bytes, *, format: str | None = None, source: str = "<data>",
          strict: bool = False) -> DealSet:
    fmt = get(format) if format else detect(data, source=source)
    try:
        return fmt.loads(data, source=source, strict=strict)
    except FormatError as exc:
        raise exc.located(path=source, format=fmt.name) from None
    except (ValueError, IndexError, KeyError, UnicodeDecodeError) as exc:
        # A reader bug or an input it did not foresee: still a clear message, never a traceback.
        raise FormatError(f"cannot read this {fmt.name} file: {exc}", path=source) from None


def read(path: str | Path, *, format: str | None = None, strict: bool = False) -> DealSet:
    """Read a deal file, detecting its format from the content."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise FormatError(f"cannot open the file: {exc.strerror}", path=str(p)) from None
    return loads(data, format=format, source=str(p), strict=strict)


def dumps(dealset: DealSet, format: str) -> bytes:
    fmt = get(format)
    if fmt.dumps is None:
        raise FormatError(f"{fmt.name} is a read-only format in boardwright")
    return fmt.dumps(dealset)


def write(dealset: DealSet, path: str | Path, *, format: str | None = None) -> Format:
    """Write a deal file; the format comes from ``format`` or the file's extension."""
    p = Path(path)
    fmt = get(format) if format else get(p.suffix or "?")
    data = dumps(dealset, fmt.name)
    try:
        p.write_bytes(data)
    except OSError as exc:
        raise FormatError(f"cannot write the file: {exc.strerror}", path=str(p)) from None
    return fmt
