"""A member, a national number, and the keys names are searched by.

A national number is a *scheme* (the national body: EBU, ACBL, NBB ...) and
the number it gave the player. Each value is checked as it was given: a value
too long or of the wrong kind is refused with the field named, never cut.

>>> check_number(" 12345 "), check_scheme("ebu")
('12345', 'EBU')
>>> search_key("José  Müller-Łęcki"), search_key("O'Brien")
('jose muller lecki', 'obrien')
>>> parse_choice("Ann Smith (EBU 12345)"), parse_choice("Ann Smith")
(('Ann Smith', 'EBU', '12345'), ('Ann Smith', '', ''))
>>> pair_label([PlayerName("Ann Smith"), PlayerName("Bob Jones")])
'Ann Smith & Bob Jones'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from dealer.errors import BoardwrightError

#: The longest a name, a scheme, a number and an email may be (the columns' widths).
NAME_MAX, SCHEME_MAX, NUMBER_MAX, EMAIL_MAX = 100, 10, 20, 254

#: National bodies offered on the forms; any 2 to 10 letters are accepted.
SCHEMES = ("EBU", "ACBL", "NBB", "ABF", "FFB", "DBV", "SBU", "WBU", "NIBU", "CBAI", "NZB",
           "FIGB", "KBBB")


class PlayerError(BoardwrightError, ValueError):
    """A member's or player's value that cannot be kept; ``field`` names it."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class PlayerName:
    """A player of a pair as an event keeps it: a member (``member_id``) or a visitor.

    The name and number are the ones at the time of the event: a later change
    to the member list does not rewrite old results.
    """

    name: str
    scheme: str = ""
    number: str = ""
    member_id: int | None = None

    @property
    def national_id(self) -> str:
        """The national number alone (USEBIO's ``NATIONAL_ID_NUMBER``)."""
        return self.number

    def label(self) -> str:
        """The name with its number, as the member search offers it."""
        nid = national_id(self.scheme, self.number)
        return f"{self.name} ({nid})" if nid else self.name


@dataclass(frozen=True)
class MemberIn:
    """A member as typed on a form or read from a CSV line (``line``: 0 for a form)."""

    name: str
    scheme: str = ""
    number: str = ""
    email: str = ""
    line: int = 0


_SPACE = re.compile(r"\s+")
_SCHEME = re.compile(r"[A-Z]{2,10}")
_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9./-]*")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_CHOICE = re.compile(r"(?P<name>.*?\S)\s*\((?:(?P<scheme>[A-Za-z]{2,10})\s+)?"
                     r"(?P<number>[A-Za-z0-9][A-Za-z0-9./-]{0,19})\)")
# Letters that Unicode does not decompose into a base letter and a mark.
_FOLD = str.maketrans({"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe",
                       "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "þ": "th",
                       "ı": "i", "’": "", "'": "", "‘": "", "-": " ", "‐": " ", ".": " "})


def clean_name(text: str) -> str:
    """A name as kept: composed Unicode (NFC), white space collapsed and trimmed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def check_name(text: str, field: str = "name", *, required: bool = True) -> str:
    """The cleaned name; refused when empty (if ``required``), too long or not printable."""
    name = clean_name(text)
    if not name:
        if required:
            raise PlayerError(f"{field}: empty (a name is needed)", field)
        return ""
    if len(name) > NAME_MAX:
        raise PlayerError(f"{field}: at most {NAME_MAX} characters ({len(name)} were given)",
                          field)
    if not all(ch.isprintable() for ch in name):
        raise PlayerError(f"{field}: {name[:40]!r} holds a control character", field)
    return name


def check_scheme(text: str, field: str = "scheme") -> str:
    """A national body's short name in capitals (``ebu`` is ``EBU``); empty is allowed."""
    scheme = text.strip().upper()
    if scheme and not _SCHEME.fullmatch(scheme):
        shown = scheme if len(scheme) <= 20 else scheme[:20] + "..."
        raise PlayerError(f"{field}: a national body is 2 to {SCHEME_MAX} letters "
                          f"(EBU, ACBL, NBB ...), not {shown!r}", field)
    return scheme


def check_number(text: str, field: str = "number") -> str:
    """A national number: letters, digits, ``-``, ``/`` and ``.``; empty is allowed."""
    number = text.strip()
    if not number:
        return ""
    if len(number) > NUMBER_MAX:
        raise PlayerError(f"{field}: at most {NUMBER_MAX} characters ({len(number)} were "
                          "given)", field)
    if not _NUMBER.fullmatch(number):
        raise PlayerError(f"{field}: {number!r} is not a membership number (letters and "
                          "digits)", field)
    return number


def check_email(text: str, field: str = "email") -> str:
    """An email address, or empty; refused when it cannot be one."""
    email = text.strip()
    if not email:
        return ""
    if len(email) > EMAIL_MAX:
        raise PlayerError(f"{field}: at most {EMAIL_MAX} characters ({len(email)} were given)",
                          field)
    if not _EMAIL.fullmatch(email):
        shown = email if len(email) <= 40 else email[:40] + "..."
        raise PlayerError(f"{field}: {shown!r} is not an email address", field)
    return email


def search_key(text: str) -> str:
    """What a name is searched by: lower case, no accents, no apostrophes, single spaces.

    "José" is found by "jose", "Müller" by "muller", "O'Brien" by "obrien".
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACE.sub(" ", bare.casefold().translate(_FOLD)).strip()


def national_id(scheme: str, number: str) -> str:
    """``EBU 12345``; the number alone when the scheme is not known; empty without one."""
    if not number:
        return ""
    return f"{scheme} {number}" if scheme else number


def parse_choice(text: str) -> tuple[str, str, str]:
    """A name as the member search offers it, ``Ann Smith (EBU 12345)``: (name, scheme,
    number). Text that is not in that form is a name alone."""
    m = _CHOICE.fullmatch(text.strip())
    if m is None:
        return clean_name(text), "", ""
    return (clean_name(m.group("name")), (m.group("scheme") or "").upper(),
            m.group("number"))


def pair_label(players: Iterable[PlayerName], sep: str = " & ") -> str:
    """The names of a pair, in seat order: ``Ann Smith & Bob Jones``."""
    return sep.join(p.name for p in players if p.name)
