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
    # dumps(dealset, *, unseal=False): every writer honours a sealed set (sealing.py).
    dumps: Callable[..., bytes] | None
    binary: bool = False
    description: str = ""
    aliases: tuple[str, ...] = field(default=())


_registry: dict[str, Format] | None = None

#: Formats whose files cannot say which board comes first (see ``loads``'s ``first_board``).
UNNUMBERED = ("bri", "dge", "dup")


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


def _utf16(data: bytes) -> str | None:
    """The codec of a UTF-16 text file (what Windows PowerShell writes), or None.

    With a byte-order mark it is certain; without one, a file whose first 64
    bytes alternate printable ASCII and NUL is taken as UTF-16 too. No binary
    deal file looks like that (DGE's NULs come after 68 card bytes).
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    head = data[:64]
    if len(head) >= 8 and len(head) % 2 == 0:
        for codec, text, nul in (("utf-16-le", head[0::2], head[1::2]),
                                 ("utf-16-be", head[1::2], head[0::2])):
            if not nul.strip(b"\x00") and all(32 <= c < 127 or c in (9, 10, 13) for c in text):
                return codec
    return None


def as_utf8(data: bytes, *, source: str = "<data>") -> bytes:
    """Text files in UTF-16 or with a UTF-8 byte-order mark, as plain UTF-8 bytes.

    Every text format is read from UTF-8 (or its own declared charset), so
    converting here lets each reader and sniffer see the same bytes whatever
    editor saved the file.
    """
    codec = _utf16(data)
    if codec is not None:
        try:
            data = data.decode(codec).lstrip("\ufeff").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(f"the file starts as UTF-16 text but byte {exc.start} is not "
                              "valid UTF-16", path=source) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data


def loads(data: bytes, *, format: str | None = None, source: str = "<data>",
          strict: bool = False, first_board: int | None = None) -> DealSet:
    """Read deal-file bytes.

    ``first_board`` numbers the boards of a file that cannot say where its set
    starts (BRI, DGE, and Big Deal's DUP); given for a format that numbers its
    boards, it must agree with the file.
    """
    data = as_utf8(data, source=source)
    fmt = get(format) if format else detect(data, source=source)
    options = {} if first_board is None or fmt.name not in UNNUMBERED else {
        "first_board": first_board}
    try:
        ds = fmt.loads(data, source=source, strict=strict, **options)
    except FormatError as exc:
        raise exc.located(path=source, format=fmt.name) from None
    except (ValueError, IndexError, KeyError, UnicodeDecodeError) as exc:
        # A reader bug or an input it did not foresee: still a clear message, never a traceback.
        raise FormatError(f"cannot read this {fmt.name} file: {exc}", path=source) from None
    if first_board is not None and not options and ds.boards \
            and ds.boards[0].number != first_board:
        raise FormatError(f"the file numbers its boards from {ds.boards[0].number}, not from "
                          f"{first_board}; leave out --first-board", path=source,
                          format=fmt.name)
    return ds


def read(path: str | Path, *, format: str | None = None, strict: bool = False,
         first_board: int | None = None) -> DealSet:
    """Read a deal file, detecting its format from the content."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise FormatError(f"cannot open the file: {exc.strerror}", path=str(p)) from None
    return loads(data, format=format, source=str(p), strict=strict, first_board=first_board)


def dumps(dealset: DealSet, format: str, *, unseal: bool = False) -> bytes:
    """Deal-file bytes; a sealed set's hands only with ``unseal`` (see :mod:`.sealing`)."""
    fmt = get(format)
    if fmt.dumps is None:
        raise FormatError(f"{fmt.name} is a read-only format in boardwright")
    return fmt.dumps(dealset, unseal=unseal)


def writable() -> list[str]:
    """The names of the formats boardwright can write (every one honours a seal)."""
    return [name for name, fmt in registry().items() if fmt.dumps is not None]


def write(dealset: DealSet, path: str | Path, *, format: str | None = None,
          unseal: bool = False) -> Format:
    """Write a deal file; the format comes from ``format`` or the file's extension.

    A sealed set is written without its hands or refused (:mod:`dealer.formats.sealing`)
    unless ``unseal`` is given. Nothing is written when the writer refuses.
    """
    p = Path(path)
    fmt = get(format) if format else get(p.suffix or "?")
    try:
        data = dumps(dealset, fmt.name, unseal=unseal)
    except FormatError as exc:
        raise exc.located(path=str(p)) from None
    try:
        p.write_bytes(data)
    except OSError as exc:
        raise FormatError(f"cannot write the file: {exc.strerror}", path=str(p)) from None
    return fmt
