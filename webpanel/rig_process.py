"""Start the rig for a dealing job the director created: ``boardwright deal`` in a child process.

The panel may not import the rig (an adapter never imports another adapter
or the rig), so it runs the command line the rig registers, as a director
would in a terminal, naming the job (``--job N``). From then on the job's row
in the store is the only channel between them: the rig publishes progress,
notices, the card at the gate and the camera's picture there, and takes the
director's pause, resume and abort from there, which it sends to the machine
as the protocol's PAUSE, RESUME and ABORT. The child's output goes to a log
file for people (``INSTANCE/logs/dealing-job-N.log``); nothing reads it.

With ``RIG_MACHINE = "emulator"`` (the default) the rig deals on the real
emulator of ``firmware_bridge`` with its simulated operator, as
``boardwright deal --machine emulator`` does.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from dealer.store import dealing
from dealer.store.repository import Store


def command_line(store: Store, job_id: int, config: dict[str, Any]) -> list[str]:
    """The ``boardwright deal`` command that carries out job ``job_id``."""
    job = dealing.get(store, job_id)
    url = store.engine.url.render_as_string(hide_password=False)
    cmd = [sys.executable, "-m", "dealer", "deal", str(job.deal_set_id),
           "--machine", str(config.get("RIG_MACHINE", "emulator")),
           "--camera", str(config.get("RIG_CAMERA", "emulator")),
           "--time-scale", str(config.get("RIG_TIME_SCALE", 0.05)),
           "--db", url, "--new", "--job", str(job_id)]
    if config.get("RIG_FAULTS"):
        cmd += ["--faults", str(config["RIG_FAULTS"])]
    return cmd


def launch(store: Store, job_id: int, config: dict[str, Any], logs: Path) -> subprocess.Popen:
    """Start the rig for ``job_id``; a thread waits for it so it never lingers as a zombie."""
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"dealing-job-{job_id}.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(command_line(store, job_id, config), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    threading.Thread(target=_wait, args=(store, job_id, proc, log_path), daemon=True,
                     name=f"rig-{job_id}").start()
    return proc


def _wait(store: Store, job_id: int, proc: subprocess.Popen, log_path: Path) -> None:
    rc = proc.wait()
    # The rig says how its job ended in the row. One that died before it could (killed,
    # or failed to start) would leave the row as it was: say so there.
    dealing.ended(store, job_id, f"the rig ended without finishing the job (exit {rc}); "
                  f"its log: {log_path}")
