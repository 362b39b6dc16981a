"""Drive the rig from the panel: ``boardwright deal`` in a child process.

The panel may not import the rig (an adapter never imports another adapter
or the rig), so it runs the command line the rig registers, exactly as a
director would in a terminal, and watches two things: the rig's journal in
the store (cards routed, boards finished) and the rig's notices on its
standard output (a line starting ``!`` is a stop with an instruction). The
rig is told the job (``--job``) and stores the camera's latest picture in it
(:class:`rig.PictureFeed`), which the dealing page shows.
Pause and resume stop and continue the child process (the emulated machine
lives inside it); abort ends it, and its journal lets a later run resume.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from dealer.store import dealing
from dealer.store.repository import Store


def start(store: Store, job_id: int, config: dict[str, Any]) -> threading.Thread:
    st = dealing.status(store, job_id)
    url = store.engine.url.render_as_string(hide_password=False)
    cmd = [sys.executable, "-m", "dealer", "deal", str(st["deal_set_id"]), "--machine",
           config.get("RIG_MACHINE", "emulator"), "--camera", config.get("RIG_CAMERA", "emulator"),
           "--db", url, "--new", "--time-scale", str(config.get("RIG_TIME_SCALE", 0.05)),
           "--job", str(job_id)]  # the rig stores the camera's latest picture in the job
    if config.get("RIG_FAULTS"):
        cmd += ["--faults", str(config["RIG_FAULTS"])]
    before = dealing.newest_run(store)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1, start_new_session=True)
    notice: dict[str, str] = {"message": "", "instruction": ""}
    reader = threading.Thread(target=_read, args=(proc, notice), daemon=True)
    reader.start()
    t = threading.Thread(target=_watch, args=(store, job_id, st, proc, notice, before),
                         daemon=True, name=f"rig-{job_id}")
    t.start()
    return t


def _read(proc: subprocess.Popen, notice: dict[str, str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.strip()
        if line.startswith("!"):
            text = line[1:].strip()
            what, _, todo = text.partition(": ")
            notice["message"], notice["instruction"] = text[:300], todo[:300]
        elif line.startswith("·"):
            notice["message"], notice["instruction"] = "", ""
            notice["last"] = line[1:].strip()[:300]
        elif line.startswith("boardwright:"):
            notice["message"] = line[:300]


def _watch(store: Store, job_id: int, st: dict[str, Any], proc: subprocess.Popen,
           notice: dict[str, str], before: int) -> None:
    paused = False
    while True:
        rc = proc.poll()
        prog = dealing.rig_progress(store, st["deal_set_id"], before, mode="deal") or {}
        values: dict[str, Any] = {
            "boards_done": prog.get("boards_done", 0), "cards_done": prog.get("cards_done", 0),
            "current_board": None if prog.get("current_slot") is None
            else prog["current_slot"] + 1,
            "message": notice.get("message", ""), "instruction": notice.get("instruction", "")}
        if rc is not None:
            done = rc == 0 and prog.get("boards_done", 0) >= st["boards_total"]
            dealing.update(store, job_id, state="done" if done else "error",
                           **{**values, "message": notice.get("last", "") if done
                              else values["message"] or f"the rig stopped (exit {rc})"})
            return
        state = "paused" if paused else ("error" if values["message"] else "running")
        cmd = dealing.update(store, job_id, state=state, **values)
        if cmd == "pause" and not paused:
            os.killpg(proc.pid, signal.SIGSTOP)
            paused = True
        elif cmd == "resume" and paused:
            os.killpg(proc.pid, signal.SIGCONT)
            paused = False
        elif cmd == "abort":
            if paused:
                os.killpg(proc.pid, signal.SIGCONT)
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
            dealing.update(store, job_id, state="aborted", message="aborted by the director",
                           instruction="Take the boards out; dealing this set again resumes "
                                       "where the journal stopped.")
            return
        time.sleep(0.2)
