"""Scripts of Hans van Staveren's ``dealer`` (Debian's ``dealer`` package), as they are.

``boardwright deals teach --file SCRIPT`` runs a ``dealer`` input file:

* comments ``# ...`` to the end of the line and ``/* ... */``;
* variables ``name = expression``, usable in later expressions;
* the statements ``condition``, ``produce``, ``generate``, ``predeal``
  (``predeal north SAQ542, HKJ87, D32, CAK``, several seats in a row),
  ``dealer``, ``vulnerable``, ``pointcount`` (a new table for ``hcp``) and
  ``action`` (read and checked for balance, but its statistics are ``dealer``'s
  business: a teaching set is the deals themselves);
* expressions with C's operators and ``dealer``'s precedence: ``?:``, ``||``
  ``or``, ``&&`` ``and``, ``== !=``, ``< <= > >=``, ``+ -``, ``* / %``, ``!``
  ``not``, unary ``-``; conditions are numbers (0 is false), as in C;
* the functions ``hcp``, ``spades`` ``hearts`` ``diamonds`` ``clubs``,
  ``control``/``controls``, ``loser``/``losers``, ``shape`` (patterns joined
  by ``+``, ``-`` or commas, ``any``, ``x``), ``hascard(west, 2C)`` (also
  ``AS``, ``10S``, ``TS``), ``aces`` ``kings`` ``queens`` ``jacks`` ``tens``,
  ``top2`` .. ``top5`` and ``c13``, each with an optional suit.

Double-dummy functions (``tricks``, ``score``, ``imps``) and the Kaplan-Rubens
``cccc``/``quality`` are refused with a clear message naming the line.

>>> s = parse_script("# 1NT opener\\nnt = hcp(east) >= 15 && hcp(east) <= 17\\n"
...                  "condition nt and shape(east, any 4333, any 4432)\\nproduce 10\\n")
>>> s.produce, s.condition is not None
(10, True)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from dealer.cards import Card
from dealer.errors import CardError
from dealer.hand import Hand
from dealer.hand_features import _LOSERS, Batch, ConstraintError, shape_table
from dealer.seats import Seat, Vulnerability

Fn = Callable[[Batch], Any]

_SEATS = {"north": 0, "east": 1, "south": 2, "west": 3}
_SUITS = {"spades": 3, "hearts": 2, "diamonds": 1, "clubs": 0}
_STATEMENTS = ("condition", "produce", "generate", "predeal", "dealer", "vulnerable",
               "pointcount", "action", "seed", "altcount")
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"[^"]*")
  | (?P<word>\d+[A-Za-z_]\w*|[A-Za-z_]\w*)
  | (?P<num>\d+)
  | (?P<op>&&|\|\||==|!=|<=|>=|[<>!()+\-*/%?:,=])
""", re.X)
# Ranks from the ace down: bit r of a suit holding is rank r+2, so the ace is bit 12.
_TOP = {"aces": (12,), "kings": (11,), "queens": (10,), "jacks": (9,), "tens": (8,),
        "top2": (12, 11), "top3": (12, 11, 10), "top4": (12, 11, 10, 9),
        "top5": (12, 11, 10, 9, 8)}
_C13 = {12: 6, 11: 4, 10: 2, 9: 1}
_DEFAULT_POINTS = (4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # A K Q J T 9 ... 2


@dataclass
class Script:
    """What a ``dealer`` script asks for."""

    source: str = "<script>"
    condition: Fn | None = None
    produce: int | None = None
    generate: int | None = None
    dealer: Seat | None = None
    vulnerable: Vulnerability | None = None
    predeal: dict[Seat, Hand] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    variables: dict[str, Fn] = field(default_factory=dict)

    def mask(self, batch: Batch) -> np.ndarray:
        if self.condition is None:
            return np.ones(batch.n, dtype=bool)
        got = np.asarray(self.condition(batch))
        return np.broadcast_to(got != 0, (batch.n,))


def _strip_comments(text: str) -> str:
    """Comments become blanks of the same length, so positions (and lines) stay right."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group())
    return re.sub(r"/\*.*?\*/|#[^\n]*", blank, text, flags=re.S)


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.tokens: list[tuple[str, str, int]] = []
        clean = _strip_comments(text)
        pos = 0
        while pos < len(clean):
            m = _TOKEN.match(clean, pos)
            if not m:
                self.fail(f"unexpected character {clean[pos]!r}", pos)
            kind = m.lastgroup or "op"
            if kind != "space":
                self.tokens.append((kind, m.group(), pos))
            pos = m.end()
        self.i = 0
        self.points = _DEFAULT_POINTS
        self.script = Script(source=source)

    # plumbing ------------------------------------------------------------------
    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        line = self.text.count("\n", 0, pos) + 1
        raise ConstraintError(f"{self.source}, line {line}: {message}")

    def peek(self, ahead: int = 0) -> str | None:
        j = self.i + ahead
        return self.tokens[j][1].lower() if j < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        if self.i >= len(self.tokens):
            self.fail(f"expected {expected!r}, but the script ended" if expected
                      else "the script ended too early")
        tok = self.tokens[self.i]
        if expected is not None and tok[1].lower() != expected:
            self.fail(f"expected {expected!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def number(self) -> int:
        kind, text, pos = self.take()
        if kind != "num":
            self.fail(f"expected a number, found {text!r}", pos)
        return int(text)

    # statements ----------------------------------------------------------------
    def parse(self) -> Script:
        s = self.script
        while self.i < len(self.tokens):
            kind, text, pos = self.tokens[self.i]
            word = text.lower()
            if kind == "word" and self.peek(1) == "=":
                self.i += 2
                if word in _STATEMENTS or word in _SEATS:
                    self.fail(f"{text!r} is a reserved word, not a variable name", pos)
                s.variables[word] = self.expression()
            elif word == "condition":
                self.i += 1
                if s.condition is not None:
                    self.fail("a second 'condition' (dealer takes one)", pos)
                s.condition = self.expression()
            elif word in ("produce", "generate", "seed"):
                self.i += 1
                value = self.number()
                if word != "seed":
                    setattr(s, word, value)
            elif word == "dealer":
                self.i += 1
                s.dealer = Seat(self.seat())
            elif word == "vulnerable":
                self.i += 1
                _, vtext, vpos = self.take()
                vul = {"none": "None", "ns": "NS", "ew": "EW", "all": "All", "both": "All"}
                if vtext.lower() not in vul:
                    self.fail(f"{vtext!r} is not a vulnerability (none, NS, EW, all)", vpos)
                s.vulnerable = Vulnerability(vul[vtext.lower()])
            elif word == "predeal":
                self.i += 1
                self.predeal()
            elif word == "pointcount":
                self.i += 1
                values = []
                while self.i < len(self.tokens) and self.tokens[self.i][0] == "num":
                    values.append(self.number())
                if not values or len(values) > 13:
                    self.fail("pointcount takes 1 to 13 numbers (ace first)", pos)
                self.points = tuple(values) + (0,) * (13 - len(values))  # type: ignore[assignment]
            elif word == "altcount":
                self.fail("'altcount' is not supported (use pointcount)", pos)
            elif word == "action":
                self.i += 1
                self.action()
            else:
                self.fail(f"unexpected {text!r} (a statement such as condition, produce, "
                          "predeal, action, or a variable 'name = ...')", pos)
        return s

    def seat(self) -> int:
        _, text, pos = self.take()
        seat = _SEATS.get(text.lower())
        if seat is None:
            self.fail(f"{text!r} is not a seat (north, east, south, west)", pos)
        return seat  # type: ignore[return-value]

    def predeal(self) -> None:
        while self.peek() in _SEATS:
            seat = Seat(self.seat())
            cards: list[Card] = []
            while True:
                _, text, pos = self.take()
                suit, ranks = text[:1].upper(), text[1:].upper().replace("10", "T")
                if suit not in "SHDC" or not ranks:
                    self.fail(f"{text!r} is not a holding such as SAQ542", pos)
                for r in ranks:
                    try:
                        cards.append(Card.parse(suit + r))
                    except CardError as exc:
                        self.fail(f"{text!r}: {exc}", pos)
                if self.peek() != ",":
                    break
                self.take(",")
            hand = Hand(cards)
            if len(hand) != len(cards):
                self.fail(f"a card is predealt twice to {seat.name.title()}")
            self.script.predeal[seat] = self.script.predeal.get(seat, Hand()) | hand

    def action(self) -> None:
        """Skip the action list, keeping the names of its actions (printpbn, average ...)."""
        depth = 0
        expect_name = True
        while self.i < len(self.tokens):
            kind, text, pos = self.tokens[self.i]
            word = text.lower()
            if depth == 0 and (word in _STATEMENTS or (kind == "word" and self.peek(1) == "=")):
                return
            if text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
            elif text == "," and depth == 0:
                expect_name = True
                self.i += 1
                continue
            if expect_name and kind == "word":
                self.script.actions.append(word)
                expect_name = False
            self.i += 1
        if depth:
            self.fail("unbalanced parentheses in the action list")

    # expressions -----------------------------------------------------------------
    def expression(self) -> Fn:
        return self.ternary()

    def ternary(self) -> Fn:
        cond = self.binary(0)
        if self.peek() == "?":
            self.take()
            yes = self.ternary()
            self.take(":")
            no = self.ternary()
            return lambda b: np.where(np.asarray(cond(b)) != 0, yes(b), no(b))
        return cond

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("||", "or"), ("&&", "and"), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"),
        ("*", "/", "%"))

    def binary(self, level: int) -> Fn:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in self._LEVELS[level]:
            op = self.take()[1].lower()
            right = self.binary(level + 1)
            left = _OPS[op](left, right)
        return left

    def unary(self) -> Fn:
        word = self.peek()
        if word in ("!", "not"):
            self.take()
            inner = self.unary()
            return lambda b: (np.asarray(inner(b)) == 0).astype(np.int32)
        if word == "-":
            self.take()
            inner = self.unary()
            return lambda b: -np.asarray(inner(b), dtype=np.int32)
        return self.atom()

    def atom(self) -> Fn:
        kind, text, pos = self.take()
        word = text.lower()
        if kind == "num":
            value = int(text)
            return lambda b: value
        if text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if kind == "word" and self.peek() == "(":
            return self.call(word, pos)
        if kind == "word" and word in self.script.variables:
            return self.script.variables[word]
        if kind == "word":
            self.fail(f"unknown name {text!r} (a variable must be defined before it is used)", pos)
        self.fail(f"unexpected {text!r}", pos)
        raise AssertionError  # fail() raises

    def suit_arg(self) -> int | None:
        if self.peek() != ",":
            return None
        self.take(",")
        _, text, pos = self.take()
        suit = _SUITS.get(text.lower())
        if suit is None:
            self.fail(f"{text!r} is not a suit (spades, hearts, diamonds, clubs)", pos)
        return suit

    def call(self, name: str, pos: int) -> Fn:
        self.take("(")
        result: Fn
        if name in ("tricks", "score", "imps", "cccc", "quality", "shdc", "rnd"):
            self.fail(f"{name}() is not supported in boardwright's teaching sets", pos)
        seat = self.seat()
        if name == "hcp":
            result = self._points(seat, self.suit_arg())
        elif name in _SUITS:
            suit_i = _SUITS[name]
            result = lambda b: b.length(seat, suit_i).astype(np.int32)  # noqa: E731
        elif name in ("control", "controls"):
            result = self._ranks(seat, self.suit_arg(), {12: 2, 11: 1})
        elif name in ("loser", "losers"):
            suit = self.suit_arg()
            suits = range(4) if suit is None else (suit,)
            result = lambda b: sum(_LOSERS[b.suit_mask(seat, s)].astype(np.int32)  # noqa: E731
                                   for s in suits)
        elif name in _TOP:
            result = self._ranks(seat, self.suit_arg(), dict.fromkeys(_TOP[name], 1))
        elif name == "c13":
            result = self._ranks(seat, self.suit_arg(), _C13)
        elif name == "shape":
            self.take(",")
            start = self.i
            depth = 0
            while self.i < len(self.tokens) and not (self.tokens[self.i][1] == ")" and depth == 0):
                depth += {"(": 1, ")": -1}.get(self.tokens[self.i][1], 0)
                self.i += 1
            # dealer joins patterns with commas as well as "+": a comma adds one.
            pattern = " ".join("+" if t[1] == "," else t[1] for t in self.tokens[start:self.i])
            try:
                table = shape_table(pattern)
            except ConstraintError as exc:
                self.fail(str(exc), self.tokens[start][2] if start < len(self.tokens) else None)
            result = lambda b: b.shape_in(seat, table).astype(np.int32)  # noqa: E731
        elif name == "hascard":
            self.take(",")
            _, text, cpos = self.take()
            try:
                card = int(Card.parse(text))
            except CardError as exc:
                self.fail(f"{text!r} is not a card such as AS, 2C or 10S ({exc})", cpos)
            result = lambda b: b.holds(seat, card).astype(np.int32)  # noqa: E731
        else:
            self.fail(f"unknown function {name!r}", pos)
        self.take(")")
        return result

    def _points(self, seat: int, suit: int | None) -> Fn:
        if self.points == _DEFAULT_POINTS:
            return lambda b: b.hcp(seat, suit).astype(np.int32)
        table = {12 - i: p for i, p in enumerate(self.points) if p}
        return self._ranks(seat, suit, table)

    @staticmethod
    def _ranks(seat: int, suit: int | None, weights: dict[int, int]) -> Fn:
        suits = range(4) if suit is None else (suit,)

        def run(b: Batch) -> np.ndarray:
            total = np.zeros(b.n, dtype=np.int32)
            for s in suits:
                for rank, w in weights.items():
                    total += (b.owners[s * 13 + rank] == seat) * np.int32(w)
            return total
        return run


def _c_div(a: Any, b: Any) -> Any:
    """C's integer division (toward zero); a division by zero gives 0 instead of a crash."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
    return np.where(b == 0, 0, q)


def _c_mod(a: Any, b: Any) -> Any:
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    return np.where(b == 0, 0, a - _c_div(a, b) * b)


def _truth(x: Any) -> Any:
    return np.asarray(x) != 0


def _op(fn: Callable[[Any, Any], Any]) -> Callable[[Fn, Fn], Fn]:
    return lambda left, right: (lambda b: fn(left(b), right(b)))


_OPS: dict[str, Callable[[Fn, Fn], Fn]] = {
    "||": _op(lambda x, y: (_truth(x) | _truth(y)).astype(np.int32)),
    "&&": _op(lambda x, y: (_truth(x) & _truth(y)).astype(np.int32)),
    "==": _op(lambda x, y: (np.asarray(x) == np.asarray(y)).astype(np.int32)),
    "!=": _op(lambda x, y: (np.asarray(x) != np.asarray(y)).astype(np.int32)),
    "<": _op(lambda x, y: (np.asarray(x) < np.asarray(y)).astype(np.int32)),
    "<=": _op(lambda x, y: (np.asarray(x) <= np.asarray(y)).astype(np.int32)),
    ">": _op(lambda x, y: (np.asarray(x) > np.asarray(y)).astype(np.int32)),
    ">=": _op(lambda x, y: (np.asarray(x) >= np.asarray(y)).astype(np.int32)),
    "+": _op(lambda x, y: np.add(x, y, dtype=np.int64)),
    "-": _op(lambda x, y: np.subtract(x, y, dtype=np.int64)),
    "*": _op(lambda x, y: np.multiply(x, y, dtype=np.int64)),
    "/": _op(_c_div),
    "%": _op(_c_mod),
}
_OPS["or"], _OPS["and"] = _OPS["||"], _OPS["&&"]


def parse_script(text: str, source: str = "<script>") -> Script:
    """Parse a ``dealer`` script; a mistake is a :class:`ConstraintError` naming the line."""
    return _Parser(text, source).parse()


def read_script(path: str) -> Script:
    from pathlib import Path

    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConstraintError(f"{path}: cannot open the script: {exc.strerror}") from None
    return parse_script(text, source=path)
