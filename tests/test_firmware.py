"""The same driver tests on two machines: the Python emulator and the reference
firmware running unchanged on a simulated ATmega2560 (simavr).

Where the two differ, docs/protocol.md decides. The firmware's heartbeat and
RTO are fixed (250 ms, 50 ms), so the driver's link timeout here is 1.2 s.
"""

from __future__ import annotations

import os
import random
import subprocess
import time

import pytest

from firmware_bridge import events as ev
from firmware_bridge import protocol as p
from firmware_bridge.driver import Machine, MachineRefused, RouteResult
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.harness import Harness, random_deal
from firmware_bridge.physical import standard_deck
from firmware_bridge.simboard import BUILD, FirmwareMachine, build, firmware_available

DRIVER = dict(rto=0.05, link_timeout=1.2, answer_timeout=2.0)
SCALE = 0.05

needs_firmware = pytest.mark.skipif(
    not firmware_available(), reason="gcc-avr, avr-libc and libsimavr-dev are not installed"
)


def start(kind: str, **kw):
    kw.setdefault("time_scale", SCALE)
    kw.setdefault("pty", True)
    if kind == "emulator":
        return Emulator.start(heartbeat=0.05, rto=0.02, **kw)
    return FirmwareMachine.start(**kw)


MACHINES = ["emulator", pytest.param("firmware", marks=needs_firmware)]


@pytest.fixture(params=MACHINES)
def kind(request) -> str:
    return request.param


def deal(machine, m: Machine, number: int = 1, **kw):
    h = Harness(machine, m, idle_timeout=8.0)
    return h.deal_board(number, random_deal(random.Random(number)), **kw)


def test_handshake_names_the_machine(kind):
    with start(kind, seed=1) as mach, Machine.open(mach.url, **DRIVER) as m:
        info, st = m.info, m.state()
        assert info is not None and info.pockets == 4 and info.speed_levels == 3
        assert info.reject_tray and info.board_reader
        assert info.boot_id == mach.boot_id == st.boot_id
        assert st.mode == p.Mode.IDLE and st.counts == (0, 0, 0, 0)
        if kind == "firmware":
            assert info.firmware == "boardwright-avr 1.0"


def test_a_full_deck_goes_into_four_pockets_of_thirteen(kind):
    with start(kind, seed=1) as mach, Machine.open(mach.url, **DRIVER) as m:
        res = deal(mach, m)
        assert res.ok, res
        assert res.events["CardDropped"] == 52
        st = m.state()
    assert st.last_drop_gate == 52


@pytest.mark.parametrize("fault", ["misfeed", "double", "jam"])
def test_feed_faults_are_reported_and_the_board_is_right(kind, fault):
    with start(kind, seed=3) as mach, Machine.open(mach.url, **DRIVER) as m:
        res = deal(mach, m, after_drop=lambda n: n in (5, 30) and mach.inject(fault))
    assert res.ok, res
    name = {"misfeed": "Misfeed", "double": "DoubleFeed", "jam": "Jam"}[fault]
    assert res.events[name] == (4 if fault == "jam" else 2)  # a jam: its start and its clearing
    assert mach.stats.faults[{"double": "double_feed"}.get(fault, fault)] == 2


def test_three_misfeeds_in_a_row_become_a_jam(kind):
    with start(kind, seed=3) as mach, Machine.open(mach.url, **DRIVER) as m:
        res = deal(mach, m, after_drop=lambda n: n == 10 and [mach.inject("misfeed") for _ in range(3)])
    assert res.ok, res
    assert res.events["Misfeed"] == 2 and res.events["Jam"] == 2


def test_cover_open_stops_feeding_and_resume_is_refused_until_closed(kind):
    with start(kind, seed=4) as mach, Machine.open(mach.url, **DRIVER) as m:
        mach.open_cover()
        assert isinstance(next(e for e in m.events(timeout=3) if isinstance(e, ev.Cover)), ev.Cover)
        with pytest.raises(MachineRefused, match="cover is open"):
            m.resume()
        mach.close_cover()
        res = deal(mach, m, after_drop=lambda n: n == 20 and mach.open_cover())
    assert res.ok, res
    assert res.events["Cover"] == 3  # closed before the board; opened and closed at card 20


def test_unplugging_the_cable_resynchronises_with_nothing_lost(kind):
    with start(kind, seed=5) as mach, Machine.open(mach.url, **DRIVER) as m:
        res = deal(mach, m, after_drop=lambda n: n in (12, 40) and mach.unplug(1.5))
        assert m.stats.reconnects >= 2
    assert res.ok, res


@pytest.mark.parametrize("lands", [True, False])
def test_power_cut_keeps_pocket_counts_and_reconciles_the_card_in_flight(kind, lands):
    plan = FaultPlan(seed=6, power_cut_drop_chance=1.0 if lands else 0.0)
    with start(kind, faults=plan) as mach, Machine.open(mach.url, **DRIVER) as m:
        boots: list[int] = []

        def cut(n: int) -> None:
            if n in (10, 33):
                boots.append(mach.boot_id)
                mach.power_cut(when="dropping")
            if n == 20:
                boots.append(mach.boot_id)
                mach.power_cut(when="at_gate")

        res = deal(mach, m, after_drop=cut)
        assert m.stats.power_cuts == 3
    assert res.ok, res
    assert len(set(boots)) == 3 and mach.boot_id not in boots
    if lands:
        assert res.events["InferredDrop"] == 2 and res.events["CardReturned"] == 1
    else:
        assert res.events["InferredDrop"] == 0 and res.events["CardReturned"] == 3


def test_garbage_both_ways_never_misdeals(kind):
    rng = random.Random(7)
    newer = p.frame_body(p.Frame(p.MsgType.HEARTBEAT, 0, b"\x00" * 9, version=2))
    from cobs import cobs

    with start(kind, seed=7) as mach, Machine.open(mach.url, **DRIVER) as m:
        mach.inject_raw(bytes(rng.randrange(256) for _ in range(2000)) + b"\x00")  # to the host
        mach.inject_raw(cobs.encode(newer) + b"\x00")
        # ... and to the machine: a second writer on the pty, as line noise would be.
        fd = os.open(mach.url, os.O_WRONLY | os.O_NOCTTY)
        try:
            os.write(fd, bytes(rng.randrange(1, 256) for _ in range(600)) + b"\x00")
            bad_route = p.encode_frame(p.Frame(p.MsgType.ROUTE, 9, p.Route(mach.boot_id, 77, 2).pack()))
            os.write(fd, bad_route[:-3] + b"\x00")  # a truncated route: must not move a card
        finally:
            os.close(fd)
        res = deal(mach, m)
        stats = m.stats
    assert res.ok, res
    assert stats.other_version == 1 and stats.bad_total >= 2


def test_pause_stops_feeding_and_resume_finishes_the_board(kind):
    with start(kind, seed=8) as mach, Machine.open(mach.url, **DRIVER) as m:
        mach.insert_board(4, standard_deck()[:6])
        next(e for e in m.events(timeout=3) if isinstance(e, ev.BoardInserted))
        m.resume()
        gate = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardAtGate))
        m.pause()  # the card in hand is finished, no more are fed
        assert m.route(gate.gate_id, 0) in (RouteResult.ACCEPTED, RouteResult.DUPLICATE)
        next(e for e in m.events(timeout=3) if isinstance(e, ev.CardDropped))
        time.sleep(0.6)  # ten feed times: a machine that ignored PAUSE would have fed more
        st = m.state()
        assert st.mode == p.Mode.IDLE and len(mach.hopper) == 5 and st.counts[0] == 1
        m.resume()
        dropped = 1
        for e in m.events(timeout=5):
            if isinstance(e, ev.CardAtGate):
                m.route(e.gate_id, dropped % 4)
            elif isinstance(e, ev.CardDropped):
                dropped += 1
                if dropped == 6:
                    break
        assert sum(len(x) for x in mach.pockets) == 6 and not mach.hopper


def test_route_is_idempotent_and_stale_ids_are_refused(kind):
    with start(kind, seed=9) as mach, Machine.open(mach.url, **DRIVER) as m:
        mach.insert_board(1, standard_deck()[:2])
        m.resume()
        gate = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardAtGate))
        assert m.route(gate.gate_id, 2) == RouteResult.ACCEPTED
        assert m.route(gate.gate_id, 2) == RouteResult.DUPLICATE
        with pytest.raises(MachineRefused, match="refused to route card 1 to pocket 3"):
            m.route(gate.gate_id, 3)
        assert m.route(999, 1) == RouteResult.STALE
        drop = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardDropped))
        assert (drop.gate_id, drop.pocket, drop.counts) == (gate.gate_id, 2, (0, 0, 1, 0))
        assert m.route(gate.gate_id, 2) == RouteResult.DUPLICATE  # after the drop too
        nxt = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardAtGate))
        assert m.route(nxt.gate_id, None) == RouteResult.ACCEPTED
        drop = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardDropped))
        assert drop.pocket is None and drop.rejects == 1
    assert [len(x) for x in mach.pockets] == [0, 0, 1, 0] and len(mach.rejects) == 1


def test_a_stuck_pair_passes_the_thickness_sensor_and_both_cards_fall_into_one_pocket(kind):
    """Two cards stuck together, aligned: no DOUBLE_FEED, the camera sees the top one, the
    pocket's sensor count grows by two, and the card under it was never at the gate."""
    seen: list = []
    with start(kind, seed=9, camera=lambda gate, pc: seen.append(pc)) as mach, \
            Machine.open(mach.url, **DRIVER) as m:
        deck = standard_deck()[:3]
        mach.insert_board(1, deck)
        mach.inject("stuck_pair")
        m.resume()
        gate = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardAtGate))
        assert m.route(gate.gate_id, 2) == RouteResult.ACCEPTED
        drop = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardDropped))
        assert (drop.pocket, drop.counts) == (2, (0, 0, 2, 0))
        assert m.state().faults & p.Fault.DOUBLE_FEED == 0  # the thickness sensor missed it
        nxt = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardAtGate))
        assert nxt.gate_id == gate.gate_id + 1
        m.route(nxt.gate_id, 0)
        drop = next(e for e in m.events(timeout=3) if isinstance(e, ev.CardDropped))
        assert drop.counts == (1, 0, 2, 0)
        assert any(isinstance(e, ev.HopperEmpty) for e in m.events(timeout=2))
        assert [pc.card for pc in seen] == [deck[0].card, deck[2].card]  # deck[1] never seen
        assert mach.pockets[2] == deck[:2] and mach.pockets[0] == deck[2:]
        assert mach.stats.faults["stuck_pair"] == 1
        # The operator takes the unread card out of the pocket: its sensor count drops.
        assert mach.take_from_pocket(2, [deck[1]]) == [deck[1]]
        time.sleep(0.1)
        assert m.state().counts == (1, 0, 1, 0)


def test_a_stuck_pair_at_the_gate_goes_back_on_the_hopper_at_a_power_cut(kind):
    with start(kind, seed=9) as mach, Machine.open(mach.url, **DRIVER) as m:
        deck = standard_deck()[:3]
        mach.insert_board(1, deck)
        mach.inject("stuck_pair")
        mach.power_cut(when="at_gate")
        m.resume()
        assert any(isinstance(e, ev.Connected) and e.power_cut for e in m.events(timeout=5))
        time.sleep(0.2)
        assert mach.hopper == deck and m.state().counts == (0, 0, 0, 0)


@needs_firmware
def test_firmware_fits_with_a_quarter_of_ram_free():
    out = subprocess.run(["avr-size", "-A", str(build() / "boardwright.elf")],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    sizes = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
             if line.startswith(".")}  # fmt: skip
    static = sizes.get(".data", 0) + sizes.get(".bss", 0)
    with FirmwareMachine.start(pty=True, seed=1, time_scale=SCALE) as fw:
        with Machine.open(fw.url, **DRIVER) as m:
            assert deal(fw, m).ok
        untouched = fw.stack_report()
    assert untouched is not None
    used = 8192 - untouched
    assert static < used and used <= 0.75 * 8192, (static, used)
    assert (BUILD / "boardwright.hex").exists()


@needs_firmware
def test_the_rig_deals_a_short_set_on_the_firmware_and_every_board_is_checked(tmp_path):
    import rig
    from dealer.generate import random_dealset

    url = f"sqlite:///{tmp_path}/deal.sqlite"
    ds = random_dealset(range(1, 5), event="firmware")
    report = rig.run_emulated(ds, url, camera="emulator:variants=1", time_scale=0.02,
                              quiet=True, machine="firmware")  # fmt: skip
    assert report.stopped is None
    assert report.boards_done == 4 and report.checked == 4 and report.misdealt == 0
    assert report.cards == 4 * 52
