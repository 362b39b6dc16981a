"""Rankings with ties, one or two winners, and personal score cards.

Ties are decided on the figure as published (percentages to 2 decimals by
default), so float noise never splits a real tie. Tied pairs share the
place, written ``2=`` (or ``2-3`` with ``tie_style="range"``); the next
place skips as many as were tied.

>>> [(p.place, p.key) for p in rank({"a": 55.0, "b": 60.0, "c": 55.0, "d": 40.0})]
[('1', 'b'), ('2=', 'a'), ('2=', 'c'), ('4', 'd')]
>>> [p.place for p in rank({"a": 1, "b": 1}, tie_style="range")]
['1-2', '1-2']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer.events.matchpoints import MatchpointEvent, ScoredLine, pair_keys
from dealer.events.model import EventError, PairKey
from dealer.events.movements import Movement


@dataclass(frozen=True, slots=True)
class Placing:
    """A ranked entry: ``position`` is the first place it shares (1-based)."""

    place: str
    position: int
    key: Any  # what was ranked: a pair, a team (any hashable key)
    score: float
    tied: bool


def rank(scores: Mapping[Any, float], *, decimals: int = 2, higher_is_better: bool = True,
         tie_style: str = "equals") -> list[Placing]:
    """Order ``scores`` and give each its place, ties sharing."""
    if tie_style not in ("equals", "range"):
        raise EventError(f"unknown tie style {tie_style!r} (use equals or range)")
    sign = -1 if higher_is_better else 1
    items = sorted(scores.items(), key=lambda kv: (sign * round(kv[1], decimals), str(kv[0])))
    out: list[Placing] = []
    i = 0
    while i < len(items):
        j = i
        value = round(items[i][1], decimals)
        while j + 1 < len(items) and round(items[j + 1][1], decimals) == value:
            j += 1
        tied = j > i
        if not tied:
            place = str(i + 1)
        else:
            place = f"{i + 1}=" if tie_style == "equals" else f"{i + 1}-{j + 1}"
        out.extend(Placing(place, i + 1, k, s, tied) for k, s in items[i:j + 1])
        i = j + 1
    return out


def lines_of(event: MatchpointEvent, movement: Movement | None = None) -> dict[PairKey, str]:
    """The line (``"NS"``/``"EW"``) each pair played, or ``""`` for pairs that played both.

    With ``by_line`` numbering the key says it. Otherwise the movement, or
    failing that the results, tell which direction each pair sat.
    """
    if event.options.numbering == "by_line":  # a pair that sat the wrong way keeps its line
        return {k: k.line for ln in event.lines for k in _keys(event, ln)}
    seen: dict[PairKey, set[str]] = {}
    for ln in event.lines:
        ns, ew = _keys(event, ln)
        seen.setdefault(ns, set()).add("NS")
        seen.setdefault(ew, set()).add("EW")
    if movement is not None and event.options.numbering == "unique":
        for s in movement.sittings:
            for num, line in ((s.ns, "NS"), (s.ew, "EW")):
                if num:
                    seen.setdefault(PairKey(movement.section, "", num), set()).add(line)
    return {k: (next(iter(v)) if len(v) == 1 else "") for k, v in seen.items()}


def _keys(event: MatchpointEvent, ln: ScoredLine) -> tuple[PairKey, PairKey]:
    return pair_keys(ln.result, event.options.numbering)


def rank_event(event: MatchpointEvent, movement: Movement | None = None, *,
               winners: int | None = None, decimals: int = 2,
               tie_style: str = "equals") -> dict[str, list[Placing]]:
    """Rank the pairs by percentage: ``{"": [...]}`` for one winner, or
    ``{"NS": [...], "EW": [...]}`` for two (a Mitchell without an arrow switch).

    ``winners`` defaults to 2 when every pair kept one direction throughout.
    """
    lines = lines_of(event, movement)
    if winners is None:
        winners = 2 if lines and all(lines.values()) else 1
    if winners not in (1, 2):
        raise EventError(f"an event has one or two winners, not {winners}")
    pct = {k: t.percent for k, t in event.totals.items()}
    if winners == 1:
        return {"": rank(pct, decimals=decimals, tie_style=tie_style)}
    mixed = sorted(str(k) for k, v in lines.items() if not v)
    if mixed:
        raise EventError("two winners need every pair to keep one direction, but "
                         f"{', '.join(mixed)} played both")
    return {line: rank({k: v for k, v in pct.items() if lines[k] == line}, decimals=decimals,
                       tie_style=tie_style) for line in ("NS", "EW")}


# ------------------------------------------------------------------ score cards


@dataclass(frozen=True, slots=True)
class CardLine:
    """One board on a pair's personal score card, from that pair's side."""

    board: int
    round: int | None
    table: int | None
    direction: str
    opponents: int
    contract: str
    tricks: int | None
    score: int | None
    mp: float | None
    top: float
    note: str = ""

    @property
    def percent(self) -> float | None:
        return None if self.mp is None or not self.top else 100.0 * self.mp / self.top


def score_card(event: MatchpointEvent, pair: PairKey) -> list[CardLine]:
    """A pair's personal score card, board by board."""
    out = []
    for ln in event.lines:
        r = ln.result
        ns, ew = _keys(event, ln)
        if pair not in (ns, ew):
            continue
        is_ns = pair == ns
        contract = "" if r.contract is None else str(r.contract)
        note = {"artificial": "adjusted", "not_played": "not played",
                "weighted": "weighted"}.get(r.kind, "")
        if r.kind == "artificial":
            adj = r.ns_artificial if is_ns else r.ew_artificial
            contract = getattr(adj, "code", f"{adj}%")
        score = None if r.score is None else (r.score if is_ns else -r.score)
        out.append(CardLine(r.board, r.round, r.table, "NS" if is_ns else "EW",
                            r.ew if is_ns else r.ns, contract, r.tricks, score,
                            ln.ns_mp if is_ns else ln.ew_mp, ln.top, note))
    if not out:
        raise EventError(f"pair {pair} has no results in this event")
    return sorted(out, key=lambda c: (c.round or 0, c.board))


def format_score_card(event: MatchpointEvent, pair: PairKey) -> str:
    """The score card as text, with the pair's total and percentage at the foot.

    One line per board: board, direction, opponents, contract, tricks, score, MP/top, %.
    """
    rows = [f"Score card: pair {pair}",
            f"{'Bd':>3} {'Dir':<3} {'Opp':>3} {'Contract':<9} {'Tr':>2} {'Score':>6} "
            f"{'MP':>6}/{'Top':<5} {'%':>6}"]
    for c in score_card(event, pair):
        pct = "" if c.percent is None else f"{c.percent:6.2f}"
        mp = "" if c.mp is None else f"{c.mp:6.2f}"
        rows.append(f"{c.board:>3} {c.direction:<3} {c.opponents:>3} {c.contract or c.note:<9} "
                    f"{'' if c.tricks is None else c.tricks:>2} "
                    f"{'' if c.score is None else c.score:>6} {mp:>6}/{c.top:<5g} {pct:>6}")
    total = event.totals[pair]
    rows.append(f"Total {total.mp:.2f} of {total.top:g} = {total.percent:.2f}% "
                f"over {total.boards} boards")
    return "\n".join(rows)
