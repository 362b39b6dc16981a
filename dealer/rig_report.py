"""What a dealing run did, and the terminal line that shows it while it runs.

Pure Python, shared by the rig (``rig.py``) and the adapters it wires: the
notice groups the rig and the simulated operator act on (:data:`CONTINUE`,
:data:`ROUTINE`, :data:`DONE`), :class:`RigError`, the run's
:class:`RigReport` with its one-line :func:`summary`, and the live console
:class:`Display`. Moved here from ``rig.py`` so the adapters can use them
without importing the rig. The console is for people only: a program that
follows a job reads its row in the store (``dealer.rig_ports.JobLink``).

>>> r = RigReport(boards_total=2, boards_done=2, cards=104, seconds=30.0,
...               decision_ms=[1.0, 2.0, 3.0])
>>> summary(r)
'2 of 2 boards dealt, 104 cards, 4.0 boards/min; decision p50 2.00 ms, p99 3.00 ms'
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dealer.errors import BoardwrightError
from dealer.session_notices import Notice

#: After these notices the operator has done something physical and says "continue".
CONTINUE = {"missing", "stuck_card", "refeed", "double_feed", "hopper_empty", "resume", "power_cut", "start"}
#: Steps of a job that go well: shown in the status line only.
ROUTINE = {"start", "insert", "board_done", "resume", "verified", "recorded", "play_scanned"}
#: A board is finished (dealt, or scanned): the operator takes it out.
DONE = {"board_done", "verified", "verify_failed", "recorded", "play_scanned", "play_failed"}


class RigError(BoardwrightError):
    """The rig could not go on (no events from the machine, a camera that cannot open)."""



@dataclass
class RigReport:
    """What a run did; the CLI prints it, tests and the bench check it."""

    boards_total: int = 0
    boards_done: int = 0
    cards: int = 0
    seconds: float = 0.0
    decision_ms: list[float] = field(default_factory=list)
    notices: Counter[str] = field(default_factory=Counter)
    misdealt: int = 0
    checked: int = 0
    stopped: str | None = None
    run_id: int | None = None
    injected: Counter[str] = field(default_factory=Counter)
    line: dict[str, int] = field(default_factory=dict)
    scan: dict[int, Any] = field(default_factory=dict)  # scan modes: ScanResult per board

    @property
    def boards_per_minute(self) -> float:
        return 60.0 * self.boards_done / self.seconds if self.seconds else 0.0

    def latency(self, q: float) -> float:
        if not self.decision_ms:
            return 0.0
        s = sorted(self.decision_ms)
        return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Display:
    """The live terminal line: board x of y, cards, boards/minute, current error."""

    def __init__(self, out: Any = None, quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.quiet = quiet
        self.tty = hasattr(self.out, "isatty") and self.out.isatty()
        self._last = ""
        self._shown = 0.0

    def notice(self, n: Notice) -> None:
        # Routine steps only show in the status line; problems get a line of their own,
        # written for the person at the terminal. No program reads these lines: the job's
        # status goes through its JobLink (dealer.rig_ports) to the store.
        if self.quiet or n.code in ROUTINE:
            return
        self._clear()
        print(f"STOP: {n}" if n.stop else str(n), file=self.out, flush=True)

    def progress(self, rig: Any, force: bool = False) -> None:
        # ``rig``: the running rig (its ``session`` and start time ``_t0``); duck
        # typed, because the core may not import rig.py.
        if self.quiet:
            return
        now = time.monotonic()
        if not force and now - self._shown < (0.2 if self.tty else 5.0):
            return
        self._shown = now
        s = rig.session
        which, placed = s.progress()
        board = f"board {min(s.boards_done + 1, s.boards_total)} of {s.boards_total}"
        if which:
            board += f" ({which})"
        cards = f"{placed}/52 cards"
        minutes = (now - rig._t0) / 60
        rate = f"{s.boards_done / minutes:.1f} boards/min" if s.boards_done and minutes else "-- boards/min"
        ins = s.instruction
        err = f" | {ins}" if ins is not None and (ins.stop or ins.code not in ROUTINE) else ""
        line = f"{board} · {cards} · {rate}{err}"
        if self.tty:
            print("\r" + line[:150].ljust(len(self._last)), end="", file=self.out, flush=True)
        elif line != self._last:
            print(line, file=self.out, flush=True)
        self._last = line

    def _clear(self) -> None:
        if self.tty and self._last:
            print("\r" + " " * len(self._last) + "\r", end="", file=self.out)
            self._last = ""



def summary(r: RigReport) -> str:
    """The run in one line: boards, cards, rate, decision latency, boards checked."""
    p50 = statistics.median(r.decision_ms) if r.decision_ms else 0.0
    out = (f"{r.boards_done} of {r.boards_total} boards dealt, {r.cards} cards, "
           f"{r.boards_per_minute:.1f} boards/min; decision p50 {p50:.2f} ms, "
           f"p99 {r.latency(0.99):.2f} ms")
    if r.checked:
        out += f"; {r.checked} boards checked, {r.misdealt} mis-dealt"
    return out
