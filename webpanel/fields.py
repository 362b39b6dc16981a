"""Form fields read exactly: a value too long or not of its kind is refused, never cut.

A cut value changes what the person typed without telling them: ``N' --``
cut to one letter was recorded as declarer N, ``4S      X`` cut to eight
characters as 4S. Every reader here raises an :class:`~dealer.store.results.EntryError`
naming the field instead, which the pages answer with a 400 saying which
field and why.

>>> text({"lead": "SQ"}, "lead", 3)
'SQ'
>>> text({"lead": "SQX!"}, "lead", 3)
Traceback (most recent call last):
...
dealer.store.results.common.EntryError: lead: at most 3 characters (4 were sent)
>>> number({"tricks": "1_0"}, "tricks", 0, 13)
Traceback (most recent call last):
...
dealer.store.results.common.EntryError: tricks: a whole number 0 to 13, not '1_0'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from dealer.store import results as rs

_DIGITS = re.compile(r"[0-9]{1,9}")


def text(form: Mapping[str, str], name: str, limit: int, default: str = "") -> str:
    """The field as sent (``default`` when absent), refused when longer than ``limit``."""
    value = form.get(name, default)
    if len(value) > limit:
        raise rs.EntryError(f"{name}: at most {limit} characters ({len(value)} were sent)",
                            name)
    return value


def number(form: Mapping[str, str], name: str, lo: int, hi: int,
           default: int | None = None) -> int | None:
    """A whole number ``lo``..``hi`` in plain digits; ``default`` when absent or empty.

    ``int()`` alone takes ``" 1_0 "`` or Arabic-Indic digits as 10: those are
    refused here, as is anything out of range (never clamped into it).
    """
    raw = form.get(name, "")
    if raw == "":
        return default
    if not _DIGITS.fullmatch(raw) or not lo <= int(raw) <= hi:
        shown = raw if len(raw) <= 20 else raw[:20] + "..."
        raise rs.EntryError(f"{name}: a whole number {lo} to {hi}, not {shown!r}", name)
    return int(raw)
