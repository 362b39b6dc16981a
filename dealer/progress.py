"""A one-line progress bar on stderr, drawn only when stderr is a terminal.

A bar redraws itself with ``\\r``; written to a log file or a pipe, those
carriage returns turn into one long garbled line, so off a terminal the bar
writes nothing at all (the command's own summary line says what was done).

>>> import io
>>> log = io.StringIO()
>>> bar = Progress("checking", 10, stream=log)
>>> bar.update(5); bar.close()
>>> log.getvalue()
''
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def is_terminal(stream: TextIO | None = None) -> bool:
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


class Progress:
    """``label: done/total`` with a bar, redrawn at most every ``every`` seconds.

    ``after`` keeps quick jobs quiet: nothing is drawn until that many seconds
    have passed.
    """

    WIDTH = 30

    def __init__(self, label: str, total: int, *, stream: TextIO | None = None,
                 after: float = 0.5, every: float = 0.1) -> None:
        self.label, self.total = label, total
        self.stream = sys.stderr if stream is None else stream
        self.enabled = is_terminal(self.stream)
        self.after, self.every = after, every
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def update(self, done: int, extra: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.after or (self.shown and now - self.last < self.every
                                             and done < self.total):
            return
        self.shown, self.last = True, now
        full = int(self.WIDTH * done / max(self.total, 1))
        bar = "#" * full + "." * (self.WIDTH - full)
        self.stream.write(f"\r{self.label}: [{bar}] {done}/{self.total}"
                          f"{', ' + extra if extra else ''}, {now - self.start:.0f}s\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
