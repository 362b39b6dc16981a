"""The camera's latest picture for the panel's dealing page, off the dealing loop.

:class:`PictureFeed` downscales and JPEG-encodes the frames the rig offers
(OpenCV) and hands the bytes to a ``publish`` callable; the rig injects its
job's link (``JobLink.picture``, see ``dealer.rig_ports``), so this adapter
knows nothing of the store or the panel.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from dealer.rig_report import RigError


class PictureFeed:
    """The camera's latest picture for the panel, published off the dealing loop.

    The rig offers each frame it has read (:meth:`offer`: it only keeps a
    reference and wakes the feed's thread, so a card at the gate never waits
    for a picture). The thread downscales the newest frame to ``width`` pixels,
    encodes it as JPEG with OpenCV and hands the bytes to ``publish`` (for the
    panel: the job link's ``picture``), at most ``per_second``
    times a second; frames in between are skipped, not queued.

    The frame of a card sent to the reject tray (unreadable, a joker, a second
    copy...) is the one the operator needs beside the error, so it goes out at
    once, under a red banner naming the reason, and later frames do not
    replace it until the rig calls :meth:`release` (the machine goes on after
    the stop, or the board is done) and ``hold`` seconds have passed.

    >>> import numpy as np
    >>> got = []
    >>> with PictureFeed(got.append) as feed:
    ...     feed.offer(np.zeros((480, 640, 3), np.uint8))
    >>> len(got), got[0][:3] == b"\\xff\\xd8\\xff"
    (1, True)
    """

    def __init__(self, publish: Callable[[bytes], None], *, per_second: float = 2.0,
                 width: int = 320, hold: float = 2.0, quality: int = 80) -> None:
        self.publish = publish
        self.interval = 1.0 / per_second
        self.width, self.hold, self.quality = width, hold, quality
        self.sent = 0
        self.failed = 0
        self.error = ""  # the last publishing error: pictures are optional, dealing goes on
        self._cond = threading.Condition()
        self._pending: tuple[Any, str | None] | None = None  # (frame, reject reason)
        self._sticky = False   # a rejected card's picture is showing
        self._sticky_until = 0.0
        self._last = -1e9
        self._closed = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="picture-feed")
        self._thread.start()

    def offer(self, frame: Any, rejected: str | None = None) -> None:
        """The camera's frame of a card; ``rejected`` names why it went to the reject tray."""
        with self._cond:
            if rejected is None and (self._sticky or time.monotonic() < self._sticky_until):
                return  # keep the rejected card on screen
            if rejected is not None:
                self._sticky, self._sticky_until = True, time.monotonic() + self.hold
            self._pending = (frame, rejected)
            self._cond.notify()

    def release(self) -> None:
        """The stop is over: later frames may replace a rejected card's (after ``hold``)."""
        with self._cond:
            self._sticky = False

    def close(self) -> None:
        """Publish what is still pending, then end the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=5.0)

    def __enter__(self) -> PictureFeed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self) -> tuple[Any, str | None] | None:
        with self._cond:
            while True:
                if self._pending is not None:
                    frame, reason = self._pending
                    wait = 0.0 if reason is not None or self._closed else (
                        self._last + self.interval - time.monotonic())
                    if wait <= 0:
                        self._pending = None
                        return frame, reason
                    self._cond.wait(wait)
                elif self._closed:
                    return None
                else:
                    self._cond.wait()

    def _run(self) -> None:
        while (item := self._next()) is not None:
            self._last = time.monotonic()
            try:
                self.publish(self.encode(*item))
                self.sent += 1
            except Exception as exc:  # noqa: BLE001 - a lost picture must never stop dealing
                self.failed += 1
                self.error = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__

    def encode(self, frame: Any, reason: str | None = None) -> bytes:
        """``frame`` at most ``width`` wide as JPEG; a rejected card's under a red banner."""
        import cv2

        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        h, w = frame.shape[:2]
        if w > self.width:
            frame = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))),
                               interpolation=cv2.INTER_AREA)
        if reason is not None:
            red = (40, 40, 200)  # BGR
            frame = cv2.copyMakeBorder(frame, 26, 4, 4, 4, cv2.BORDER_CONSTANT, value=red)
            cv2.putText(frame, f"reject tray: {reason}"[:40], (8, 19), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5, (255, 255, 255), 1, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise RigError("the camera picture could not be encoded")
        return buf.tobytes()

