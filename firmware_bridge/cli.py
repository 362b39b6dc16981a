"""``boardwright emulator`` and ``boardwright machine``: the virtual machine and a quick check.

Examples::

    boardwright emulator --pty                 # prints /dev/pts/N, runs until Ctrl-C
    boardwright emulator --tcp 7070 --board 1  # socket://127.0.0.1:7070, a shuffled deck loaded
    boardwright emulator --firmware --pty      # the reference firmware on a simulated ATmega2560
    boardwright machine status /dev/ttyACM0    # handshake and state of a real machine
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from typing import TYPE_CHECKING

from dealer.cli._io import port_arg, positive_int, time_scale_arg, whole_number
from firmware_bridge.driver import Machine
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.physical import standard_deck
from firmware_bridge.protocol import Mode

if TYPE_CHECKING:
    from firmware_bridge.simboard import VirtualMachine


#: Board numbers travel as 16 bits in the protocol (docs/protocol.md).
_BOARD = whole_number(1, 65535, "a board number here is 1 to 65535")


def _rate(text: str) -> float:
    """``--jam-rate`` and the others: a probability."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"a rate is a probability from 0 to 1, not {text}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("emulator", help="run a virtual dealing machine on a pty or TCP port")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal (default)")
    where.add_argument("--tcp", type=port_arg, metavar="PORT", help="serve on 127.0.0.1:PORT (0: any)")
    p.add_argument("--firmware", action="store_true",
                   help="run the reference firmware (firmware_bridge/firmware) on a simulated "
                        "ATmega2560 (simavr) instead of the Python emulator")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed for the fault dice")
    p.add_argument("--time-scale", type=time_scale_arg, default=1.0, help="0.1 runs 10 times faster")
    p.add_argument("--byte-error-rate", type=_rate, default=0.0)
    p.add_argument("--frame-drop-rate", type=_rate, default=0.0)
    p.add_argument("--misfeed-rate", type=_rate, default=0.0)
    p.add_argument("--double-feed-rate", type=_rate, default=0.0)
    p.add_argument("--jam-rate", type=_rate, default=0.0)
    p.add_argument("--stuck-pair-rate", type=_rate, default=0.0,
                   help="two cards stuck together that the thickness sensor misses: the "
                        "camera sees the top one, both fall into its pocket")  # fmt: skip
    p.add_argument("--board", type=_BOARD, help="insert this board with a shuffled deck in the hopper")
    p.add_argument("--decks", type=positive_int, default=1, help="decks to load with --board (default 1)")
    p.set_defaults(func=cmd_emulator)

    m = sub.add_parser("machine", help="talk to a dealing machine")
    msub = m.add_subparsers(dest="verb", metavar="VERB", required=True)
    s = msub.add_parser("status", help="handshake and print the machine's identity and state")
    s.add_argument("url", help="/dev/ttyACM0, a pty path, socket://host:port")
    s.add_argument("--timeout", type=float, default=2.0)
    s.set_defaults(func=cmd_status)


def cmd_emulator(args: argparse.Namespace) -> int:
    plan = FaultPlan(
        seed=args.seed,
        byte_error_rate=args.byte_error_rate,
        frame_drop_rate=args.frame_drop_rate,
        misfeed_rate=args.misfeed_rate,
        double_feed_rate=args.double_feed_rate,
        jam_rate=args.jam_rate,
        stuck_pair_rate=args.stuck_pair_rate,
    )
    where = {"tcp_port": args.tcp} if args.tcp is not None else {"pty": True}
    # It serves until interrupted: Ctrl-C (SIGINT) must stop it even when it was started
    # from a script's background job, which starts with SIGINT ignored (a test run so left
    # emulators serving for good).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    emu: VirtualMachine
    if args.firmware:
        from firmware_bridge.simboard import FirmwareError, FirmwareMachine

        try:
            emu = FirmwareMachine.start(faults=plan, time_scale=args.time_scale, **where)
        except FirmwareError as exc:
            print(f"boardwright emulator --firmware: {exc}", file=sys.stderr)
            return 2
    else:
        emu = Emulator.start(faults=plan, time_scale=args.time_scale, **where)
    try:
        print(f"dealing machine emulator ready at {emu.url}", flush=True)
        if args.board is not None:
            rng = random.Random(args.seed)
            cards = []
            for _ in range(max(1, args.decks)):
                deck = standard_deck()
                rng.shuffle(deck)
                cards += deck
            emu.insert_board(args.board, cards)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("emulator stopped", flush=True)
        return 0
    finally:
        emu.close()


def cmd_status(args: argparse.Namespace) -> int:
    with Machine.open(args.url, answer_timeout=args.timeout) as m:
        info, st = m.info, m.state()
        assert info is not None
        print(f"machine   {info.serial} ({info.firmware}) on {args.url}")
        print(f"protocol  1.{info.minor}, boot {info.boot_id:08x}")
        caps = [f"{info.pockets} pockets"]
        caps += ["reject tray"] if info.reject_tray else []
        caps += ["board-number reader"] if info.board_reader else []
        caps += [f"speed {info.speed}/{info.speed_levels}"]
        print(f"can       {', '.join(caps)}")
        board = f"board {st.board_number or '?'}" if st.board_present else "no board"
        counts = "/".join(map(str, st.counts))
        try:
            mode = Mode(st.mode).name.lower().replace("_", " ")
        except ValueError:
            mode = f"mode {st.mode}"
        print(f"state     {mode}, {board}, pockets {counts}, {st.rejects} rejected")
    return 0
