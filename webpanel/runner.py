"""The emulated dealing machine the panel drives when no rig is connected.

It goes through the boards of a set card by card at a set pace, writing
progress to the store exactly as the rig does, and obeys pause, resume and
abort. ``DEALING_FAULT = (board, card)`` makes it stop once with an unreadable
card and an instruction, as a real camera would, so the error path can be
seen and tested.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from dealer.store import dealing
from dealer.store.repository import Store


def start(store: Store, job_id: int, config: dict[str, Any]) -> threading.Thread:
    t = threading.Thread(target=_run, args=(store, job_id, dict(config)), daemon=True,
                         name=f"dealing-{job_id}")
    t.start()
    return t


def _run(store: Store, job_id: int, config: dict[str, Any]) -> None:
    pace = float(config.get("DEALING_CARD_SECONDS", 0.03))
    fault = config.get("DEALING_FAULT")
    st = dealing.status(store, job_id)
    ds = store.load(st["deal_set_id"])
    paused = False
    error: dict[str, str] | None = None  # the camera's complaint, shown until Resume
    cards = 0
    faulted = False
    for i, board in enumerate(ds.boards):
        card = 0
        while card < 52:
            if fault and not faulted and (board.number, card + 1) == tuple(fault):
                faulted = True
                error = {
                    "message": f"board {board.number}, card {card + 1}: the camera could not "
                               "read the card",
                    "instruction": "Take the card from the reject tray, put it face down on "
                                   "top of the hopper and press Resume."}
            if error is not None:
                cmd = dealing.update(store, job_id, state="error", current_board=board.number,
                                     **error)
            elif paused:
                cmd = dealing.update(store, job_id, state="paused", current_board=board.number,
                                     message="paused by the director",
                                     instruction="Press Resume to go on.")
            else:
                cmd = dealing.update(store, job_id, state="running", current_board=board.number,
                                     boards_done=i, cards_done=cards, message="",
                                     instruction="")
            if cmd == "abort":
                dealing.update(store, job_id, state="aborted", message="aborted by the director",
                               instruction="Take the boards out of the machine.")
                return
            if cmd == "pause":
                paused = True
            elif cmd == "resume":
                paused, error = False, None
            if paused or error is not None:
                time.sleep(max(pace, 0.05))
                continue
            time.sleep(pace)
            card += 1
            cards += 1
    dealing.update(store, job_id, state="done", boards_done=len(ds.boards), cards_done=cards,
                   current_board=None, message=f"{len(ds.boards)} boards dealt", instruction="")
