"""Seeded, deterministic fault injection for the emulator.

Two independent random streams keep runs repeatable:

* the *mechanical* stream is drawn once per feed attempt (misfeed, double
  feed, jam) and once per power cut, so the same seed gives the same card
  events at any ``time_scale``;
* the *line* stream is drawn per frame and per byte (dropped frames, flipped
  bytes), in both directions.

Line noise flips bits inside a frame but never creates or removes a ``0x00``
delimiter, so every damaged frame stays one damaged frame and the host's count
of rejected frames can be checked against the emulator's count of damaged ones.
Noise that hits delimiters is covered by the garbage tests instead.

>>> noise = LineNoise(FaultPlan(seed=3, byte_error_rate=0.5))
>>> noise.apply(b"\\x05abcd\\x00") != b"\\x05abcd\\x00", noise.corrupted
(True, 1)
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class FaultPlan:
    """Fault rates. All default to zero: a perfect machine on a perfect cable."""

    seed: int = 0
    byte_error_rate: float = 0.0  # chance that each byte of a frame is flipped
    frame_drop_rate: float = 0.0  # chance that a whole frame vanishes
    misfeed_rate: float = 0.0  # per feed attempt: the roller slips, card stays
    double_feed_rate: float = 0.0  # per feed attempt: two cards go to the reject tray
    jam_rate: float = 0.0  # per feed attempt: a card sticks in the feed path
    #: per feed attempt: two cards stuck together, so well aligned that the thickness
    #: sensor misses them; the camera sees the top one and both fall into its pocket
    stuck_pair_rate: float = 0.0
    power_cut_drop_chance: float = 0.5  # a card falling at a power cut still lands


class MechanicalDice:
    """Draws for the card path, in a fixed order per feed attempt."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self._rng = random.Random(f"mech/{plan.seed}")

    def feed(self) -> str:
        """One of ``ok``, ``misfeed``, ``double``, ``jam``, ``stuck_pair``.

        Three draws each time; a fourth only when the plan has a stuck-pair rate,
        so the plans and seeds of before give the same runs as they did.
        """
        a, b, c = self._rng.random(), self._rng.random(), self._rng.random()
        d = self._rng.random() if self.plan.stuck_pair_rate else 1.0
        if a < self.plan.jam_rate:
            return "jam"
        if b < self.plan.misfeed_rate:
            return "misfeed"
        if c < self.plan.double_feed_rate:
            return "double"
        if d < self.plan.stuck_pair_rate:
            return "stuck_pair"
        return "ok"

    def lands_at_power_cut(self) -> bool:
        return self._rng.random() < self.plan.power_cut_drop_chance

    def boot_id(self) -> int:
        return self._rng.getrandbits(32) or 1


class LineNoise:
    """Damage or drop whole frames (each given with its trailing delimiter)."""

    def __init__(self, plan: FaultPlan, stream: str = "out") -> None:
        self.plan = plan
        self._rng = random.Random(f"line/{stream}/{plan.seed}")
        self.corrupted = 0
        self.dropped = 0

    def apply(self, frame: bytes) -> bytes | None:
        """The frame as it arrives, or ``None`` if it is lost."""
        rng = self._rng
        if self.plan.frame_drop_rate and rng.random() < self.plan.frame_drop_rate:
            self.dropped += 1
            return None
        rate = self.plan.byte_error_rate
        if not rate:
            return frame
        out = bytearray(frame)
        hit = False
        for i in range(len(out) - 1):  # the last byte is the delimiter
            if out[i] and rng.random() < rate:
                flipped = out[i] ^ (1 << rng.randrange(8))
                out[i] = flipped if flipped else out[i] ^ 0xFF  # never forge a delimiter
                hit = True
        if hit:
            self.corrupted += 1
        return bytes(out)


def split_frames(buffer: bytearray, data: bytes) -> list[bytes]:
    """Append ``data`` to ``buffer`` and pop every complete chunk (with its ``0x00``).

    >>> buf = bytearray()
    >>> split_frames(buf, b"ab\\x00c"), bytes(buf)
    ([b'ab\\x00'], b'c')
    """
    buffer += data
    out = []
    while (end := buffer.find(0)) >= 0:
        out.append(bytes(buffer[: end + 1]))
        del buffer[: end + 1]
    return out
