"""Score pads: a game's log of entries replayed into the rules' own objects.

A pad is stored as its setup and the list of entries the table typed (see
:mod:`dealer.store.pads`); replaying the log through the game classes of
:mod:`dealer.scoring` and :mod:`dealer.games` gives the sheet, so a reload
never loses anything and the rules live in one place. :func:`apply` tries a
new entry on a replayed copy first: an entry the rules refuse is never
stored.

>>> v = replay("bugger", {"players": ["Ann", "Bob", "Cy"]}, [
...     {"op": "start", "turned": "SA"},
...     {"op": "bid", "player": "Bob", "tricks": 1}, {"op": "bid", "player": "Cy", "tricks": 0},
...     {"op": "bid", "player": "Ann", "tricks": 0},
...     {"op": "tricks", "tricks": {"Ann": 0, "Bob": 1, "Cy": 0}}])
>>> v.totals, v.rows[0]["label"]
({'Ann': 10, 'Bob': 11, 'Cy': 10}, '1')
>>> replay("rubber", {}, [{"contract": "4S", "declarer": "N", "tricks": 10}]).totals
{'WE': 120, 'THEY': 0}

An undo is an entry of the log too (``{"op": "undo", "sid": ...}``): it takes
back the entry before it, so a resent undo (its ``sid`` already in the log) is
recognised like any resent form and takes back one entry, not two.

>>> effective([{"contract": "2H", "sid": "a"}, {"contract": "3C", "sid": "b"},
...            {"op": "undo", "sid": "c"}])
[{'contract': '2H', 'sid': 'a'}]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.games.bugger import BuggerGame
from dealer.games.minibridge import minibridge_score
from dealer.games.tigerbridge import TigerGame
from dealer.scoring.chicago import ChicagoGame
from dealer.scoring.rubber import Entry as SheetEntry
from dealer.scoring.rubber import RubberSheet, Team
from dealer.seats import Seat, Side

KINDS = ("rubber", "chicago", "minibridge", "tigerbridge", "bugger")


class PadError(BoardwrightError, ValueError):
    """An entry the game's rules refuse, or a pad that cannot be set up."""


@dataclass
class PadView:
    """What a pad page shows: rows of the sheet, running totals, and what comes next."""

    kind: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, int | float] = field(default_factory=dict)
    over: bool = False
    state: dict[str, Any] = field(default_factory=dict)  # the next step (bugger round, ...)


def check_setup(kind: str, setup: dict[str, Any]) -> dict[str, Any]:
    """A clean setup for ``kind``, or a :class:`PadError`."""
    if kind not in KINDS:
        raise PadError(f"unknown pad {kind!r} (one of {', '.join(KINDS)})")
    if kind == "bugger":
        players = [str(p).strip()[:30] for p in setup.get("players", []) if str(p).strip()]
        BuggerGame(players, int(setup.get("first_dealer", 0)))  # 3-10 distinct names
        return {"players": players, "first_dealer": int(setup.get("first_dealer", 0))}
    if kind == "chicago":
        scoring = str(setup.get("scoring", "chicago"))
        vul = str(setup.get("vulnerability", "modern"))
        if vul not in CHICAGO_VULNERABILITY:
            raise PadError(f"Chicago vulnerability {vul!r} is not one of "
                           f"{', '.join(CHICAGO_VULNERABILITY)}")
        ChicagoGame(scoring=scoring)
        return {"scoring": scoring, "deals": int(setup.get("deals", 4) or 4),
                "vulnerability": vul}
    return {}


#: Chicago's vulnerability on deals 2 and 3 (seed 002): the non-dealing side in the
#: modern scheme, the dealing side in the original one. Deal 1 is none, deal 4 both.
CHICAGO_VULNERABILITY = {
    "modern": "deals 2 and 3: the side that did not deal is vulnerable",
    "original": "deals 2 and 3: the dealing side is vulnerable (the original Chicago)",
}


def effective(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log with each undo applied: an undo takes back the entry before it."""
    out: list[dict[str, Any]] = []
    for e in entries:
        if e.get("op") == "undo":
            if not out:
                raise PadError("there is nothing to undo")
            out.pop()
        else:
            out.append(e)
    return out


def replay(kind: str, setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    """The pad after every entry; a :class:`PadError` names the entry the rules refuse."""
    fn = _REPLAY.get(kind)
    if fn is None:
        raise PadError(f"unknown pad {kind!r}")
    try:
        return fn(setup, effective(entries))
    except PadError:
        raise
    except (BoardwrightError, KeyError, TypeError, ValueError) as exc:
        n = len(entries)
        raise PadError(f"entry {n}: {exc}") from None


def apply(kind: str, setup: dict[str, Any], entries: list[dict[str, Any]],
          entry: dict[str, Any]) -> PadView:
    """Replay with ``entry`` added; raises :class:`PadError` (so it is not stored) if refused."""
    try:
        return _REPLAY[kind](setup, effective([*entries, entry]))
    except PadError:
        raise
    except (BoardwrightError, KeyError, TypeError, ValueError) as exc:
        raise PadError(str(exc).strip("'\"")) from None


def _contract(e: dict[str, Any]) -> tuple[Contract, int]:
    text = str(e.get("contract", "")).strip()
    c = Contract.parse(text, None if Contract.parse(text).is_passed_out
                       else Seat.parse(str(e.get("declarer", "")) or "?"))
    tricks = int(e.get("tricks") or 0)
    if not 0 <= tricks <= 13:
        raise PadError(f"{tricks} tricks is impossible (0 to 13)")
    return c, tricks


#: Honours claimed on a rubber deal: the form's value -> (team, points).
HONOURS = {"WE100": (Team.WE, 100), "WE150": (Team.WE, 150),
           "THEY100": (Team.THEY, 100), "THEY150": (Team.THEY, 150)}


def _honours(e: dict[str, Any], c: Contract) -> tuple[Team, int] | None:
    """The honours claimed on a deal (seed 002 "Honours"), checked against the contract."""
    raw = str(e.get("honours", "") or "")
    if not raw:
        return None
    if raw not in HONOURS:
        raise PadError(f"honours {raw[:10]!r}: none, or 100 or 150 for WE or THEY")
    if c.is_passed_out:
        raise PadError("a passed-out deal has no honours")
    team, points = HONOURS[raw]
    if c.strain is not None and c.strain.suit is None and points != 150:
        raise PadError("at no trumps only four aces in one hand count as honours: 150")
    return team, points


def _sheet(sheet: RubberSheet) -> dict[str, Any]:
    """A rubber's WE/THEY sheet as drawn: the figures above the line stacked upwards
    from it (the latest on top), then each game below the line, ruled off."""
    def column(items: list[SheetEntry]) -> list[tuple[str, str]]:
        cols = {t: [str(x.points) for x in items if x.team is t] for t in Team}
        height = max((len(v) for v in cols.values()), default=0)
        return [tuple(cols[t][i] if i < len(cols[t]) else "" for t in Team)  # type: ignore[misc]
                for i in range(height)]
    above = column([x for x in sheet.entries if not x.below])
    games = sorted({x.game for x in sheet.entries if x.below})
    below = [column([x for x in sheet.entries if x.below and x.game == g]) for g in games]
    totals = sheet.totals()
    return {"above": list(reversed(above)), "games": below,
            "won": [t.value for t in sheet.games],
            "totals": (totals[Team.WE], totals[Team.THEY])}


def _rubber(setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    """Rubbers one after another on one pad: ``{"op": "new"}`` starts the next one
    once the current rubber is over (won, or ended unfinished)."""
    sheet = RubberSheet()
    done: list[dict[str, Any]] = []
    v = PadView("rubber", ["deal", "contract", "WE", "THEY"])
    deal = 0
    for e in entries:
        op = e.get("op")
        if op == "new":
            if not sheet.is_over:
                raise PadError("this rubber is not over: play it out, or end it unfinished "
                               "first")
            done.append(_rubber_total(len(done) + 1, sheet))
            sheet, deal = RubberSheet(), 0
            v.rows.append({"label": "", "contract": f"rubber {len(done) + 1}", "WE": "",
                           "THEY": "", "notes": "new rubber"})
            continue
        if op == "finish":
            new = sheet.finish()
            label, contract = "", "ended unfinished"
        else:
            c, t = _contract(e)
            new = sheet.record(c, t, honours=_honours(e, c))
            deal += 1
            label, contract = str(deal), str(e.get("contract", ""))
        v.rows.append({"label": label, "contract": contract,
                       "WE": sum(x.points for x in new if x.team is Team.WE),
                       "THEY": sum(x.points for x in new if x.team is Team.THEY),
                       "notes": ", ".join(x.label for x in new)})
    v.totals = {t.value: p for t, p in sheet.totals().items()}
    v.over = sheet.is_over
    if sheet.is_over:
        over = [*done, _rubber_total(len(done) + 1, sheet)]
    else:
        over = done
    net = sum(r["net"] for r in over)
    v.state = {"games": {t.name: sheet.games_won(t) for t in Team}, "sheet": _sheet(sheet),
               "rubber": len(done) + 1, "rubbers": over,
               "net": net, "vulnerable": [t.value for t in Team if sheet.vulnerable(t)]}
    return v


def _rubber_total(number: int, sheet: RubberSheet) -> dict[str, Any]:
    """A finished rubber in one line: its totals and WE's net (negative: THEY won)."""
    totals = sheet.totals()
    net = totals[Team.WE] - totals[Team.THEY]
    return {"number": number, "WE": totals[Team.WE], "THEY": totals[Team.THEY], "net": net,
            "said": ("WE win by " if net > 0 else "THEY win by " if net < 0 else "level")
            + (str(abs(net)) if net else "")}


def _chicago(setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    g = ChicagoGame(scoring=setup.get("scoring", "chicago"), deals=int(setup.get("deals", 4)),
                    original=setup.get("vulnerability") == "original")
    v = PadView("chicago", ["deal", "contract", "NS", "EW"])
    for e in entries:
        c, t = _contract(e)
        hcp = e.get("hcp_ns")
        r = g.record(c, t, hcp_ns=None if hcp in (None, "") else int(hcp))
        if r is None:
            v.rows.append({"label": "redeal", "contract": "passed out", "NS": 0, "EW": 0,
                           "notes": "same dealer deals again"})
        else:
            v.rows.append({"label": str(r.number), "contract": str(c), "NS": r.ns, "EW": r.ew,
                           "notes": f"{r.vulnerability.value} vul; " + ", ".join(r.notes)})
    v.totals = {s.value: p for s, p in g.totals().items()}
    v.over = g.is_over
    if not g.is_over:
        n = g.next_deal
        v.state = {"deal": n, "dealer": g.dealer(n).title,
                   "vulnerability": g.vulnerability(n).value}
    return v


def _minibridge(setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    v = PadView("minibridge", ["deal", "contract", "NS", "EW"])
    tot = {"NS": 0, "EW": 0}
    for i, e in enumerate(entries, 1):
        side = str(e.get("side", "")).upper()
        if side not in tot:
            raise PadError("say which side declared: NS or EW")
        tricks = int(e.get("tricks") or 0)
        pts = minibridge_score(str(e.get("kind", "")), str(e.get("strain", "")), tricks)
        other = "EW" if side == "NS" else "NS"
        got = {side: max(pts, 0), other: max(-pts, 0)}
        for k in tot:
            tot[k] += got[k]
        v.rows.append({"label": str(i), "contract": f"{e['kind']} {e['strain']} by {side}",
                       "NS": got["NS"], "EW": got["EW"], "notes": f"{tricks} tricks"})
    v.totals = dict(tot)
    return v


def _tiger(setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    g = TigerGame()
    v = PadView("tigerbridge", ["deal", "proclaimed", "NS", "EW"])
    for i, e in enumerate(entries, 1):
        side = Side.NS if str(e.get("side", "")).upper() == "NS" else Side.EW
        if str(e.get("side", "")).upper() not in ("NS", "EW"):
            raise PadError("say which side proclaimed: NS or EW")
        note = g.record(side, int(e["bid"]), int(e["taken"]))
        v.rows.append({"label": str(i), "contract": f"{e['bid']} by {side.value}",
                       "NS": g.set_points[Side.NS], "EW": g.set_points[Side.EW],
                       "notes": note or ""})
    v.totals = {s.value: p for s, p in g.game_points.items()}
    v.over = g.is_over
    return v


def _bugger(setup: dict[str, Any], entries: list[dict[str, Any]]) -> PadView:
    g = BuggerGame(setup["players"], int(setup.get("first_dealer", 0)))
    v = PadView("bugger", ["round", *g.players])
    for e in entries:
        op = e.get("op")
        if op == "start":
            g.start_round(e.get("turned") or None)
        elif op == "bid":
            g.bid(str(e["player"]), int(e["tricks"]))
        elif op == "tricks":
            g.record_tricks({p: int(e["tricks"][p]) for p in g.players})
        elif op == "penalty":
            g.penalty(str(e["player"]), str(e.get("reason", "revoke")))
        else:
            raise PadError(f"unknown Bugger Bridge entry {op!r}")
    for r, row in zip(g.rounds, g.running_totals(), strict=True):
        v.rows.append({"label": str(r.spec), **{p: row[p] for p in g.players},
                       "bids": dict(r.bids), "tricks": dict(r.tricks or {})})
    v.totals = dict[str, int | float](g.totals())
    v.over = g.is_over
    if not g.is_over:
        cur = g.current
        spec = g.next_spec if cur is None else cur.spec
        st: dict[str, Any] = {"round": spec.number, "spec": str(spec), "cards": spec.cards,
                              "no_trump": spec.no_trump, "started": cur is not None,
                              "dealer": g.players[g._dealer],
                              "order": g.bidding_order()}
        if cur is not None:
            st["bids"] = dict(cur.bids)
            st["trump"] = cur.trump.name.title() if cur.trump is not None else "no trumps"
            st["to_bid"] = [p for p in g.bidding_order(cur.dealer) if p not in cur.bids]
            if not st["to_bid"]:
                st["announcement"] = g.announcement()
        v.state = st
    return v


_REPLAY = {"rubber": _rubber, "chicago": _chicago, "minibridge": _minibridge,
           "tigerbridge": _tiger, "bugger": _bugger}
