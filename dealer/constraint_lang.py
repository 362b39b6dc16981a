"""A small constraint language in the spirit of Hans van Staveren's ``dealer``.

Expressions::

    hcp(north) >= 15 and hcp(north) <= 17 and shape(north, any 4333 + any 4432 + any 5332)
    spades(south) >= 5 && controls(south) >= 3 || losers(west) <= 6
    not balanced(east) and hascard(west, SA)

Functions: ``hcp(seat)``, ``hcp(seat, suit)``, ``spades/hearts/diamonds/clubs(seat)``,
``controls(seat)`` (A=2, K=1), ``losers(seat)`` (losing-trick count),
``shape(seat, PATTERN)``, ``balanced(seat)``, ``hascard(seat, CARD)``.
Operators: ``and or not`` (also ``&& || !``), comparisons, ``+ - *``.

Seat clauses, separated by ``;``, say the same more briefly::

    north: 15-17 hcp, balanced; south: 5+ spades, 0-7 hcp

Every clause and expression must hold. Each is compiled to a function of a
:class:`~dealer.hand_features.Batch` that returns a boolean vector.

>>> fn, bounds = compile_expr("north: 15-17 hcp, balanced")
>>> bounds[("hcp", 0)]
[15, 17]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from dealer.cards import Card, Suit
from dealer.errors import CardError
from dealer.hand_features import Batch, ConstraintError, shape_table

Fn = Callable[[Batch], Any]

_SEATS = {"north": 0, "east": 1, "south": 2, "west": 3, "n": 0, "e": 1, "s": 2, "w": 3}
_SUITS = {"spades": 3, "hearts": 2, "diamonds": 1, "clubs": 0,
          "spade": 3, "heart": 2, "diamond": 1, "club": 0,
          "♠": 3, "♥": 2, "♦": 1, "♣": 0}
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?![\dx]))|(?P<pat>[\dx]{4}(?![\w]))"
                    r"|(?P<word>[A-Za-z_♠♥♦♣][A-Za-z0-9_]*)"
                    r"|(?P<op>&&|\|\||==|!=|<=|>=|[<>!()+\-*,]))")


class _Parser:
    def __init__(self, text: str, offset: int = 0) -> None:
        self.text = text
        self.offset = offset
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                self.fail(f"unexpected {text[pos:].strip()[:10]!r}", pos + len(text[pos:]) - len(text[pos:].lstrip()))
            kind = m.lastgroup or "op"
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0
        self.bounds: dict[tuple, list[int]] = {}

    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        raise ConstraintError(f"constraint {self.text.strip()!r}, column {pos + 1 + self.offset}: {message}")

    def peek(self) -> str | None:
        return self.tokens[self.i][1].lower() if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        if self.i >= len(self.tokens):
            self.fail(f"expected {expected!r} but the constraint ended" if expected
                      else "the constraint ended too early")
        tok = self.tokens[self.i]
        if expected is not None and tok[1].lower() != expected:
            self.fail(f"expected {expected!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    # grammar ------------------------------------------------------------------
    def parse(self) -> Fn:
        fn, kind = self.or_expr(top=True)
        if self.i < len(self.tokens):
            self.fail(f"unexpected {self.tokens[self.i][1]!r}")
        if kind != "bool":
            self.fail("the constraint must be a condition (a comparison, shape or balanced), "
                      "not a number", 0)
        return fn

    def or_expr(self, top: bool = False) -> tuple[Fn, str]:
        left, kind = self.and_expr(top)
        while self.peek() in ("or", "||"):
            self.take()
            right, rkind = self.and_expr(False)
            self._need_bool(kind, rkind, "or")
            left, kind = _bin(np.logical_or, left, right), "bool"
        return left, kind

    def and_expr(self, top: bool) -> tuple[Fn, str]:
        # Only top-level conjuncts give static bounds: under "or" they need not hold.
        start = self.i
        left, kind = self.not_expr(top)
        while self.peek() in ("and", "&&"):
            self.take()
            right, rkind = self.not_expr(top)
            self._need_bool(kind, rkind, "and")
            left, kind = _bin(np.logical_and, left, right), "bool"
        if top and self.peek() in ("or", "||"):
            self._drop_bounds_from(start)
        return left, kind

    def _drop_bounds_from(self, start: int) -> None:
        self.bounds = {k: v for k, v in self.bounds.items() if v[2] < start}  # type: ignore[misc]

    def _need_bool(self, a: str, b: str, op: str) -> None:
        if a != "bool" or b != "bool":
            self.fail(f"'{op}' joins conditions, not numbers")

    def not_expr(self, top: bool) -> tuple[Fn, str]:
        if self.peek() in ("not", "!"):
            self.take()
            inner, kind = self.not_expr(False)
            if kind != "bool":
                self.fail("'not' needs a condition")
            return (lambda b: np.logical_not(inner(b))), "bool"
        return self.comparison(top)

    def comparison(self, top: bool) -> tuple[Fn, str]:
        start = self.i
        left, kind = self.sum_expr()
        op = self.peek()
        if op in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            rstart = self.i
            right, rkind = self.sum_expr()
            if kind != "int" or rkind != "int":
                self.fail(f"'{op}' compares numbers")
            if top:
                self._record_bound(start, rstart, op)
            return _bin(_COMPARE[op], left, right), "bool"
        return left, kind

    def _record_bound(self, start: int, rstart: int, op: str) -> None:
        """Remember ``feature(seat) OP number`` so impossible requests fail fast."""
        toks = self.tokens[start:rstart - 1]
        rhs = self.tokens[rstart:self.i]
        if len(rhs) != 1 or rhs[0][0] != "num" or len(toks) not in (4, 6):
            return
        name = toks[0][1].lower()
        seat = _SEATS.get(toks[2][1].lower())
        if seat is None:
            return
        n = int(rhs[0][1])
        lo, hi = {"==": (n, n), ">=": (n, 99), ">": (n + 1, 99), "<=": (-99, n),
                  "<": (-99, n - 1)}.get(op, (-99, 99))
        if name == "hcp" and len(toks) == 4:
            key: tuple = ("hcp", seat)
        elif name in _SUITS and len(toks) == 4:
            key = ("len", seat, _SUITS[name])
        else:
            return
        old = self.bounds.get(key, [-99, 99, start])
        self.bounds[key] = [max(old[0], lo), min(old[1], hi), old[2]]

    def sum_expr(self) -> tuple[Fn, str]:
        left, kind = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            right, rkind = self.term()
            if kind != "int" or rkind != "int":
                self.fail(f"'{op}' adds numbers, not conditions")
            left = _bin(np.add if op == "+" else np.subtract, left, right)
        return left, kind

    def term(self) -> tuple[Fn, str]:
        left, kind = self.unary()
        while self.peek() == "*":
            self.take()
            right, rkind = self.unary()
            if kind != "int" or rkind != "int":
                self.fail("'*' multiplies numbers")
            left = _bin(np.multiply, left, right)
        return left, kind

    def unary(self) -> tuple[Fn, str]:
        if self.peek() == "-":
            self.take()
            inner, kind = self.unary()
            return (lambda b: -inner(b)), kind
        return self.atom()

    def atom(self) -> tuple[Fn, str]:
        kind, text, pos = self.take()
        low = text.lower()
        if kind in ("num", "pat") and text.isdigit():
            value = int(text)
            return (lambda b: value), "int"
        if low == "(":
            inner = self.or_expr()
            self.take(")")
            return inner
        if low in ("true", "false"):
            value_b = low == "true"
            return (lambda b: value_b), "bool"
        if kind == "word" and self.peek() == "(":
            return self.call(low, pos)
        self.fail(f"unexpected {text!r}", pos)
        raise AssertionError  # unreachable; fail() raises

    def seat_arg(self) -> int:
        kind, text, pos = self.take()
        seat = _SEATS.get(text.lower())
        if seat is None:
            self.fail(f"{text!r} is not a seat (north, east, south, west)", pos)
        return seat  # type: ignore[return-value]

    def call(self, name: str, pos: int) -> tuple[Fn, str]:
        self.take("(")
        seat = self.seat_arg()
        result: tuple[Fn, str]
        if name == "hcp":
            if self.peek() == ",":
                self.take()
                _, stext, spos = self.take()
                suit = _SUITS.get(stext.lower())
                if suit is None:
                    self.fail(f"{stext!r} is not a suit", spos)
                result = (lambda b: b.hcp(seat, suit)), "int"
            else:
                result = (lambda b: b.hcp(seat)), "int"
        elif name in _SUITS:
            suit_i = _SUITS[name]
            result = (lambda b: b.length(seat, suit_i)), "int"
        elif name == "controls":
            result = (lambda b: b.controls(seat)), "int"
        elif name == "losers":
            result = (lambda b: b.losers(seat)), "int"
        elif name == "balanced":
            table = shape_table("balanced")
            result = (lambda b: b.shape_in(seat, table)), "bool"
        elif name == "shape":
            self.take(",")
            start = self.i
            while self.i < len(self.tokens) and self.tokens[self.i][1] != ")":
                self.i += 1
            pattern = " ".join(t[1] for t in self.tokens[start:self.i])
            try:
                table = shape_table(pattern)
            except ConstraintError as exc:
                self.fail(str(exc), self.tokens[start][2] if start < len(self.tokens) else None)
            result = (lambda b: b.shape_in(seat, table)), "bool"
        elif name == "hascard":
            self.take(",")
            _, ctext, cpos = self.take()
            try:
                card = int(Card.parse(ctext))
            except CardError as exc:
                self.fail(str(exc), cpos)
            result = (lambda b: b.holds(seat, card)), "bool"
        else:
            self.fail(f"unknown function {name!r} (hcp, spades, hearts, diamonds, clubs, "
                      "controls, losers, shape, balanced, hascard)", pos)
        self.take(")")
        return result


_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
            ">": np.greater, ">=": np.greater_equal}


def _bin(op: Callable[[Any, Any], Any], left: Fn, right: Fn) -> Fn:
    return lambda b: op(left(b), right(b))


# --------------------------------------------------------------------------- seat clauses
_RANGE = re.compile(r"^(\d+)\s*(?:-\s*(\d+)|(\+)|(-))?\s+(\w+|[♠♥♦♣])$")


def _seat_clause(seat_name: str, body: str, full: str) -> tuple[str, dict[tuple, list[int]]]:
    """Translate ``15-17 hcp, balanced, 5+ spades`` into the expression language."""
    seat = seat_name.lower()
    parts: list[str] = []
    bounds: dict[tuple, list[int]] = {}
    for item in (p.strip() for p in body.split(",")):
        if not item:
            continue
        m = _RANGE.match(item)
        if m:
            lo_s, hi_s, plus, minus, what = m.groups()
            lo, hi = int(lo_s), int(hi_s) if hi_s else int(lo_s)
            if plus:
                hi = 99
            if minus:
                lo, hi = 0, int(lo_s)
            what = what.lower()
            key: tuple[str, int] | tuple[str, int, int] | None
            if what in ("hcp", "points", "hcps"):
                feature, key = f"hcp({seat})", ("hcp", _SEATS[seat])
            elif what in _SUITS:
                name = [k for k, v in _SUITS.items() if v == _SUITS[what]][0]
                feature, key = f"{name}({seat})", ("len", _SEATS[seat], _SUITS[what])
            elif what in ("controls", "losers"):
                feature, key = f"{what}({seat})", None
            else:
                raise ConstraintError(f"constraint {full.strip()!r}: {item!r}: unknown feature "
                                      f"{what!r} (hcp, controls, losers or a suit)")
            conds = []
            if lo > 0:
                conds.append(f"{feature} >= {lo}")
            if hi < 99:
                conds.append(f"{feature} <= {hi}")
            parts.extend(conds)
            if key:
                bounds[key] = [lo, hi, -1]
        elif item.lower() == "balanced":
            parts.append(f"balanced({seat})")
        elif item.lower() in ("unbalanced", "not balanced"):
            parts.append(f"not balanced({seat})")
        else:
            shape_table(item)  # raises a clear message if it is not a pattern
            parts.append(f"shape({seat}, {item})")
    return " and ".join(parts) or "true", bounds


def compile_expr(text: str) -> tuple[Fn, dict[tuple, list[int]]]:
    """Compile constraints text; returns the batch function and static bounds.

    Bounds map ``("hcp", seat)`` and ``("len", seat, suit)`` to ``[lo, hi]`` as
    implied by top-level ``and`` conditions; they let impossible requests
    (say 41 HCP in total) fail before any dealing.
    """
    if not text.strip():
        raise ConstraintError("the constraint is empty")
    fns: list[Fn] = []
    bounds: dict[tuple, list[int]] = {}
    for stmt in _split_statements(text):
        m = re.match(r"^\s*(north|east|south|west|[nesw])\s*:(.*)$", stmt, re.I | re.S)
        if m:
            expr, b = _seat_clause(m.group(1), m.group(2), text)
            p = _Parser(expr)
            p.bounds = {}
        else:
            p = _Parser(stmt, offset=text.find(stmt))
            b = {}
        fns.append(p.parse())
        for key, (lo, hi, *_rest) in list(p.bounds.items()) + list(b.items()):
            old = bounds.get(key, [-99, 99])
            bounds[key] = [max(old[0], lo), min(old[1], hi)]
    for key, (lo, hi) in bounds.items():
        bounds[key] = [max(lo, 0), min(hi, 37 if key[0] == "hcp" else 13)]

    def run(batch: Batch) -> np.ndarray:
        ok = np.ones(batch.n, dtype=bool)
        for fn in fns:
            ok &= np.broadcast_to(np.asarray(fn(batch), dtype=bool), ok.shape)
        return ok

    return run, bounds


def _split_statements(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == ";" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [s for s in out if s.strip()]


__all__ = ["compile_expr", "Suit"]
