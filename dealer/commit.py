"""Verifiable deal sets, in the manner of Hans van Staveren's SquareDeal.

1. Before the event the organiser runs :func:`make_commitment`: it draws a
   256-bit secret from the OS CSPRNG and publishes a :class:`PublicFile`
   (event, sessions and board ranges, ``SHA-256(secret)``, and a *description*
   of a public value nobody knows yet, such as "Dow Jones close on 2026-12-01").
2. When the value is public, :func:`generate` derives every board from the
   secret, the public file and the value.
3. After the event the secret is revealed and anyone runs :func:`verify`.

Each session's key is ``HMAC-SHA256(secret, canonical JSON of scheme, event,
description, public value, session name and boards)``; boards come from
:func:`dealer.generate.deal_for_board`. Unlike SquareDeal, the description of
the public value is covered too, so it cannot be changed afterwards.

>>> pub, secret = make_commitment("Club Pairs", [Session("1", [1, 2])], "DJI close 2026-12-01",
...                               registry=None)
>>> ds = generate(pub, secret, "44901.92", "1")
>>> verify(pub, secret, "44901.92", ds).ok
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from dealer.board import MAX_BOARD, DealSet
from dealer.errors import BoardwrightError
from dealer.generate import (
    GENERATOR_NAME,
    SecretRegistry,
    deal_for_board,
    keyed_dealset,
    new_secret,
)

SCHEME = "boardwright-commit-v1"


class VerifyError(BoardwrightError):
    """The deals do not follow from the public file, the secret and the public value."""


def parse_boards(text: str) -> list[int]:
    """``"1-24"``, ``"1-12,25-36"`` or ``"7"`` as a list of board numbers.

    >>> parse_boards("1-3,7")
    [1, 2, 3, 7]
    """
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise BoardwrightError(f"board range {text!r}: {part!r} is not a number or a range like 1-24")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo < 1 or hi < lo:
            raise BoardwrightError(f"board range {text!r}: {part!r} must run upwards from 1")
        if hi > MAX_BOARD:  # before the range is made: 1-99999999999 would fill the memory
            raise BoardwrightError(f"board range {text!r}: board {hi} is too large "
                                   f"(at most {MAX_BOARD:,})")
        out.extend(range(lo, hi + 1))
    if len(set(out)) != len(out):
        raise BoardwrightError(f"board range {text!r} names a board twice")
    return out


def format_boards(numbers: list[int]) -> str:
    """The inverse of :func:`parse_boards`: ``[1, 2, 3, 7]`` -> ``"1-3,7"``."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ",".join(parts)


@dataclass
class Session:
    name: str
    boards: list[int]


@dataclass
class PublicFile:
    """What is published before the event."""

    event: str
    sessions: list[Session]
    public_value: str  # the description of the value, not the value
    commitment: str  # SHA-256 of the secret's hex text
    created: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    scheme: str = SCHEME

    def to_json(self) -> str:
        return json.dumps({
            "scheme": self.scheme,
            "event": self.event,
            "sessions": [{"name": s.name, "boards": format_boards(s.boards)} for s in self.sessions],
            "public_value": self.public_value,
            "commitment_sha256": self.commitment,
            "created": self.created,
            "generator": GENERATOR_NAME,
            "how_to_verify": "boardwright deals verify THIS_FILE --secret SECRET "
                             "--public-value VALUE DEALFILE",
        }, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "public file") -> PublicFile:
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise VerifyError(f"{source}: not a boardwright public file (the JSON is not "
                                  "an object)")
            if data.get("scheme") != SCHEME:
                raise VerifyError(f"{source}: scheme {data.get('scheme')!r} is not {SCHEME!r}")
            sessions = [Session(str(s["name"]), parse_boards(str(s["boards"])))
                        for s in data["sessions"]]
            return cls(event=str(data["event"]), sessions=sessions,
                       public_value=str(data["public_value"]),
                       commitment=str(data["commitment_sha256"]).lower(),
                       created=str(data.get("created", "")))
        except json.JSONDecodeError as exc:
            raise VerifyError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
        except (KeyError, TypeError) as exc:
            raise VerifyError(f"{source}: missing or malformed field {exc}") from None

    def session(self, name: str) -> Session:
        for s in self.sessions:
            if s.name == name:
                return s
        raise VerifyError(f"the public file has no session {name!r} "
                          f"(it has {', '.join(s.name for s in self.sessions)})")


def commitment_of(secret_hex: str) -> str:
    return hashlib.sha256(secret_hex.encode("ascii")).hexdigest()


def parse_secret(text: str) -> str:
    """Normalise a revealed secret: 64 hex digits, spaces ignored."""
    s = "".join(text.split()).lower()
    if not re.fullmatch(r"[0-9a-f]{64}", s):
        raise VerifyError("the secret must be 64 hexadecimal digits (as written by 'deals commit')")
    return s


def normalise_value(value: str) -> str:
    """The public value as used: outer spaces removed, inner runs of spaces made one."""
    v = " ".join(value.split())
    if not v:
        raise VerifyError("the public value is empty")
    return v


def make_commitment(event: str, sessions: list[Session], public_value_description: str, *,
                    registry: SecretRegistry | None) -> tuple[PublicFile, str]:
    """A new public file and its secret (hex). The secret is claimed in ``registry``."""
    if not sessions:
        raise BoardwrightError("a commitment needs at least one session with its boards")
    if not public_value_description.strip():
        raise BoardwrightError("describe the public value (for example 'DJI close on 2026-12-01')")
    secret = new_secret()
    if registry is not None:
        registry.claim(secret, f"commit {event}")
    secret_hex = secret.hex()
    return PublicFile(event, sessions, public_value_description.strip(),
                      commitment_of(secret_hex)), secret_hex


def session_key(pub: PublicFile, secret_hex: str, public_value: str, session: Session) -> bytes:
    material = json.dumps([SCHEME, pub.event, pub.public_value, normalise_value(public_value),
                           session.name, session.boards], ensure_ascii=False, separators=(",", ":"))
    return hmac.new(bytes.fromhex(secret_hex), material.encode("utf-8"), hashlib.sha256).digest()


def _check_secret(pub: PublicFile, secret_text: str) -> str:
    secret_hex = parse_secret(secret_text)
    if commitment_of(secret_hex) != pub.commitment:
        raise VerifyError(
            "wrong secret: its SHA-256 does not match the commitment in the public file "
            f"({commitment_of(secret_hex)[:16]}… against {pub.commitment[:16]}…)")
    return secret_hex


def generate(pub: PublicFile, secret_text: str, public_value: str, session_name: str) -> DealSet:
    """The session's boards, derived from the secret and the public value."""
    secret_hex = _check_secret(pub, secret_text)
    session = pub.session(session_name)
    ds = keyed_dealset(session_key(pub, secret_hex, public_value, session), session.boards,
                       event=pub.event)
    ds.meta["Stage"] = f"session {session.name}"
    return ds


@dataclass
class VerifyReport:
    ok: bool
    session: str
    boards: int
    message: str


def verify(pub: PublicFile, secret_text: str, public_value: str, dealset: DealSet, *,
           session_name: str | None = None, source: str = "the deal file") -> VerifyReport:
    """Check every board of ``dealset`` against the derivation; raise :class:`VerifyError`.

    The session is the one named, or else the one whose boards are the file's.
    """
    secret_hex = _check_secret(pub, secret_text)
    numbers = dealset.numbers
    if session_name is not None:
        candidates = [pub.session(session_name)]
    else:
        candidates = [s for s in pub.sessions if set(numbers) <= set(s.boards)] or pub.sessions
    failures: list[str] = []
    for session in candidates:
        key = session_key(pub, secret_hex, public_value, session)
        problems = _compare(session, key, dealset, source)
        if not problems:
            return VerifyReport(True, session.name, len(numbers),
                                f"all {len(numbers)} boards of {source} match session {session.name} "
                                f"of {pub.event!r}")
        failures.append(f"session {session.name}: {problems[0]}"
                        + (f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""))
    hint = ""
    if failures and all("differs" in f for f in failures) and len(candidates) == 1:
        bad = _compare(candidates[0], session_key(pub, secret_hex, public_value, candidates[0]),
                       dealset, source)
        if len(bad) == len(numbers):
            hint = "; every board differs, so the public value is probably wrong"
    raise VerifyError("verification failed: " + "; ".join(failures) + hint)


def _compare(session: Session, key: bytes, dealset: DealSet, source: str) -> list[str]:
    problems: list[str] = []
    for b in dealset:
        if b.number not in session.boards:
            problems.append(f"board {b.number} of {source} is not in the session's boards")
            continue
        if b.deal is None:
            problems.append(f"board {b.number} of {source} has no deal (is the set sealed?)")
            continue
        if b.deal != deal_for_board(key, b.number):
            problems.append(f"board {b.number} of {source} differs from the derived deal")
    missing = sorted(set(session.boards) - set(dealset.numbers))
    if missing and not problems:
        return []  # a file may hold part of a session; the boards it holds all match
    return problems
