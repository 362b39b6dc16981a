"""Soak: many emulated boards over a noisy, sometimes unplugged link.

Run: ``.venv/bin/python bench/serial_soak.py [--boards 1000] [--link pty|tcp]
[--machine emulator|firmware]``

``--machine firmware`` runs the reference firmware on a simulated ATmega2560
(simavr) instead of the Python emulator; its defaults follow issue 18: 200
boards, the same noise, and a power cut (a reset) every 50 boards instead of
the unplugs. The firmware's own counters are read from its RAM.

Defaults follow issue 5: 1,000 boards, 1 % byte corruption and 0.5 % dropped
frames in both directions, and the cable unplugged (0.8 s) every 50 boards,
at a random card. Each board is a random deal of a shuffled deck; a tiny host
loop routes every card by what the emulator's camera hook saw. After each
board the pockets are checked card by card.

Goal: 0 cards lost, duplicated or misrouted; every fault reported, that is
every damaged frame counted by the side that received it, and every unplug
seen by the driver as a lost link followed by a resynchronisation.
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.driver import Machine  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from firmware_bridge.faults import FaultPlan  # noqa: E402
from firmware_bridge.harness import Harness, random_deal  # noqa: E402
from firmware_bridge.simboard import FirmwareMachine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", choices=["emulator", "firmware"], default="emulator")
    ap.add_argument("--boards", type=int, default=None, help="default 1000 (firmware: 200)")
    ap.add_argument("--link", choices=["pty", "tcp"], default="pty")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--byte-error-rate", type=float, default=0.01)
    ap.add_argument("--frame-drop-rate", type=float, default=0.005)
    ap.add_argument("--unplug-every", type=int, default=None, help="default 50 (firmware: 0)")
    ap.add_argument("--unplug-seconds", type=float, default=0.8)
    ap.add_argument("--power-cut-every", type=int, default=None,
                    help="default 0, no power cuts (issue 5); firmware: 50 (issue 18)")
    ap.add_argument("--time-scale", type=float, default=None, help="default 0.002 (firmware: 0.01)")
    args = ap.parse_args()
    fw = args.machine == "firmware"
    for name, emulator_default, firmware_default in (
        ("boards", 1000, 200), ("unplug_every", 50, 0), ("power_cut_every", 0, 50),
        ("time_scale", 0.002, 0.01),
    ):  # fmt: skip
        if getattr(args, name) is None:
            setattr(args, name, firmware_default if fw else emulator_default)
    # The firmware's heartbeat and RTO are fixed (250 ms, 50 ms): the host waits longer.
    driver = dict(rto=0.05, link_timeout=1.2, answer_timeout=2.0) if fw else \
        dict(rto=0.02, link_timeout=0.4, answer_timeout=1.0)
    machine_class = FirmwareMachine if fw else Emulator

    plan = FaultPlan(seed=args.seed, byte_error_rate=args.byte_error_rate,
                     frame_drop_rate=args.frame_drop_rate)  # fmt: skip
    where = {"pty": True} if args.link == "pty" else {"tcp_port": 0}
    rng = random.Random(args.seed)
    lost = duplicated = misrouted = disagree = drops = 0
    bad_boards: list[int] = []
    t0 = time.monotonic()
    with machine_class.start(faults=plan, time_scale=args.time_scale, heartbeat=0.05, rto=0.02,
                             **where) as emu:  # fmt: skip
        with Machine.open(emu.url, **driver) as m:
            h = Harness(emu, m, idle_timeout=10.0)
            with emu.hold():
                # Frames sent before the driver opened the port were never seen: count from here.
                base_sent, base_seen = emu.noise_out.corrupted, m.stats.bad_total
            for b in range(1, args.boards + 1):
                actions: dict[int, object] = {}
                if args.unplug_every and b % args.unplug_every == 0:
                    actions[rng.randrange(1, 51)] = lambda: emu.unplug(args.unplug_seconds)
                if args.power_cut_every and b % args.power_cut_every == 0:
                    when = rng.choice(["dropping", "at_gate", None])
                    actions[rng.randrange(1, 51)] = lambda when=when: emu.power_cut(when=when)

                def hook(n: int, actions: dict = actions) -> None:
                    if n in actions:
                        actions[n]()  # type: ignore[operator]
                deal = random_deal(rng)
                res = h.deal_board(b, deal, shuffle=rng, after_drop=hook)
                drops += res.drops
                lost += len(res.lost)
                duplicated += len(res.duplicated)
                misrouted += len(res.misrouted)
                disagree += res.host_disagrees
                if not res.ok:
                    bad_boards.append(b)
                    print(f"board {b} is wrong: {res}", flush=True)
                if b % 100 == 0 or b == args.boards:
                    print(f"board {b}: {drops} drops, {time.monotonic() - t0:.0f} s, "
                          f"bad frames {m.stats.bad_total}, link lost {m.stats.link_lost}",
                          flush=True)  # fmt: skip
            # Read outside hold(): the firmware's answer comes through the relay that hold() stops.
            counters = emu.firmware_counters() if fw else {}
            with emu.hold():  # nothing half-way down the cable while counters are read
                st = m.stats
                damaged_to_host = emu.noise_out.corrupted - base_sent
                cut_off = emu.endpoint.discarded_frames
                deadline = time.monotonic() + 10  # a loaded reader may still be decoding
                while (st.bad_total - base_seen < damaged_to_host - cut_off
                       and time.monotonic() < deadline):  # fmt: skip
                    time.sleep(0.02)
                host_bad = st.bad_total - base_seen
                if fw:  # the firmware's own counters, read from its RAM (they restart at a reset)
                    c = counters
                    machine_bad, machine_retrans, machine_dups = (
                        c.get("bad_frames", 0), c.get("retransmissions", 0), c.get("duplicate_requests", 0))
                else:
                    machine_bad = emu.stats.bad_frames_in
                    machine_retrans, machine_dups = emu.sender.retransmissions, emu.stats.duplicate_requests
                damaged_to_machine = emu.noise_in.corrupted
                summary = {
                    "driver_retransmissions": st.retransmissions,
                    "machine_retransmissions": machine_retrans,
                    "duplicate_events_suppressed": st.duplicate_events,
                    "duplicate_requests_suppressed": machine_dups,
                    "frames_dropped_to_host": emu.noise_out.dropped,
                    "frames_dropped_to_machine": emu.noise_in.dropped,
                }
                link_lost, reconnects = st.link_lost, st.reconnects
                power_cuts_seen = st.power_cuts
            unplugs = emu.stats.faults.get("unplug", 0)
            power_cuts = emu.stats.faults.get("power_cut", 0)
    elapsed = time.monotonic() - t0
    expected = 52 * args.boards
    # A damaged frame still queued when the cable was pulled never reached the host.
    # The firmware's counters live in RAM and restart at each power cut: only the host side
    # can be compared in full there.
    machine_ok = machine_bad >= damaged_to_machine or (fw and args.power_cut_every)
    # A reset of the firmware may cut the frame it was sending: one more bad frame each.
    truncated_by_resets = power_cuts if fw else 0
    all_reported = (damaged_to_host - cut_off <= host_bad <= damaged_to_host + truncated_by_resets
                    and machine_ok
                    and link_lost >= unplugs and reconnects >= unplugs
                    and power_cuts_seen == power_cuts)  # fmt: skip
    print(f"{args.boards} boards over {args.link} in {elapsed:.0f} s: {drops} cards dropped "
          f"(expected {expected}), lost {lost}, duplicated {duplicated}, misrouted {misrouted}, "
          f"host view differs {disagree}")  # fmt: skip
    print(f"damaged frames to host {damaged_to_host}, reported by driver {host_bad}; "
          f"to machine {damaged_to_machine}, reported by machine {machine_bad}; "
          f"frames cut off unsent by unplugs {cut_off}")
    print(f"unplugs {unplugs}, link lost reported {link_lost}, resynchronised {reconnects}; "
          f"power cuts {power_cuts}, reported {power_cuts_seen}")
    print(", ".join(f"{k} {v}" for k, v in summary.items()))
    ok = lost == duplicated == misrouted == disagree == 0 and drops == expected
    print(f"goal (0 lost/duplicated/misrouted, every fault reported): "
          f"{'met' if ok and all_reported else 'NOT met'}")
    print(json.dumps({
        "bench": "serial_soak", "machine": args.machine, "link": args.link, "boards": args.boards, "seconds": round(elapsed, 1),
        "byte_error_rate": args.byte_error_rate, "frame_drop_rate": args.frame_drop_rate,
        "unplugs": unplugs, "power_cuts": power_cuts, "power_cuts_reported": power_cuts_seen,
        "cards_dropped": drops, "cards_expected": expected,
        "lost": lost, "duplicated": duplicated, "misrouted": misrouted, "host_view_differs": disagree,
        "bad_boards": bad_boards[:20], "damaged_frames_to_host": damaged_to_host,
        "reported_by_driver": host_bad, "damaged_frames_to_machine": damaged_to_machine,
        "reported_by_machine": machine_bad, "frames_cut_off_by_unplug": cut_off, "link_lost_reported": link_lost,
        "resyncs": reconnects, **summary, "all_faults_reported": all_reported,
        "goal_met": ok and all_reported,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
