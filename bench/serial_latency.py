"""Round-trip latency of a ROUTE command over a pty. Goal: p99 <= 5 ms.

Run: ``.venv/bin/python bench/serial_latency.py [--routes 2000] [--machine emulator|firmware]``

``--machine firmware`` runs the reference firmware on a simulated ATmega2560
(simavr, UART0 at 115,200 baud) instead of the Python emulator, and adds the
firmware's side in simulated cycles: from the last byte of a request handed to
the simulated UART to the first byte of the firmware's answer (so it includes
the request's own time on the wire at 115,200 baud).

The emulator runs as its own process (``boardwright emulator --pty``), as a
real machine would, with many decks in the hopper; the host routes every card
that reaches the gate and times each ``Machine.route()`` call from the first
byte written to the reply decoded. A second figure times GET_STATE. Timings
are wall time on a shared machine, so they include scheduling noise. Ends with
one JSON line.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import events as ev  # noqa: E402
from firmware_bridge.driver import Machine  # noqa: E402


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, default=2000)
    ap.add_argument("--time-scale", type=float, default=0.001)
    ap.add_argument("--machine", choices=["emulator", "firmware"], default="emulator")
    args = ap.parse_args()
    decks = args.routes // 52 + 2
    fw = None
    if args.machine == "firmware":
        from firmware_bridge.physical import standard_deck
        from firmware_bridge.simboard import FirmwareMachine

        fw = FirmwareMachine.start(pty=True, time_scale=args.time_scale)
        fw.insert_board(1, [c for _ in range(decks) for c in standard_deck()])
        proc = None
    else:
        exe = Path(sys.executable).parent / "boardwright"
        proc = subprocess.Popen(
            [str(exe), "emulator", "--pty", "--time-scale", str(args.time_scale),
             "--board", "1", "--decks", str(decks)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
    try:
        url = fw.url if fw is not None else proc.stdout.readline().split()[-1]  # type: ignore[union-attr]
        routes: list[float] = []
        states: list[float] = []
        with Machine.open(url, rto=0.05) as m:
            m.resume()
            pocket = 0
            while len(routes) < args.routes:
                e = m.next_event(5.0)
                if e is None:
                    raise SystemExit("no event from the emulator for 5 s")
                if isinstance(e, ev.CardAtGate):
                    t0 = time.perf_counter()
                    m.route(e.gate_id, pocket)
                    routes.append((time.perf_counter() - t0) * 1000)
                    pocket = (pocket + 1) % 4
                    if len(routes) % 10 == 0:
                        t0 = time.perf_counter()
                        m.state()
                        states.append((time.perf_counter() - t0) * 1000)
            retrans = m.stats.retransmissions
        cycles = fw.request_latency() if fw is not None else {}
    finally:
        if fw is not None:
            fw.close()
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=10)
    p50, p99, worst = pct(routes, 0.5), pct(routes, 0.99), max(routes)
    print(f"ROUTE round trip over a pty, {len(routes)} commands: "
          f"p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {worst:.3f} ms, mean {statistics.mean(routes):.3f} ms")
    print(f"GET_STATE round trip, {len(states)} queries: p50 {pct(states, 0.5):.3f} ms, "
          f"p99 {pct(states, 0.99):.3f} ms")
    if cycles:
        us = {k: round(v / 16, 1) for k, v in cycles.items() if k != "requests"}  # 16 MHz
        print(f"firmware side, {cycles['requests']} requests, simulated cycles: p50 {cycles['p50']} "
              f"({us['p50']} us), p99 {cycles['p99']} ({us['p99']} us), max {cycles['max']}")
    print(f"retransmissions: {retrans}; goal p99 <= 5 ms: {'met' if p99 <= 5 else 'NOT met'}")
    print(json.dumps({
        "bench": "serial_latency", "machine": args.machine, "link": "pty", "routes": len(routes),
        "firmware_cycles": cycles,
        "route_p50_ms": round(p50, 3), "route_p99_ms": round(p99, 3), "route_max_ms": round(worst, 3),
        "state_p50_ms": round(pct(states, 0.5), 3), "state_p99_ms": round(pct(states, 0.99), 3),
        "retransmissions": retrans, "goal_p99_ms": 5.0, "goal_met": p99 <= 5.0,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
