"""Faults on the machine and on the line: every one is reported and no card goes astray.

Real parts only: the emulator runs the protocol over a real pty or TCP socket
and the driver opens it with pyserial.
"""

from __future__ import annotations

import random
import time

import pytest

from firmware_bridge import events as ev
from firmware_bridge import protocol as p
from firmware_bridge.driver import Machine
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.harness import Harness, random_deal

FAST = dict(time_scale=0.01, heartbeat=0.05, rto=0.02)
DRIVER = dict(rto=0.02, link_timeout=0.4, answer_timeout=1.0)


def _endpoint(kind: str) -> dict:
    return {"pty": True} if kind == "pty" else {"tcp_port": 0}


@pytest.fixture(params=["pty", "tcp"])
def link(request):
    return request.param


def _run_board(emu: Emulator, m: Machine, number: int = 1, **kw) -> tuple[Harness, object]:
    h = Harness(emu, m, idle_timeout=5.0)
    res = h.deal_board(number, random_deal(random.Random(number)), **kw)
    return h, res


@pytest.mark.parametrize("fault", ["misfeed", "double", "jam"])
def test_feed_faults_are_reported_and_the_board_is_right(link, fault):
    with Emulator.start(seed=3, **FAST, **_endpoint(link)) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            injected = []

            def inject(n: int) -> None:
                if n in (5, 30):
                    emu.inject(fault)
                    injected.append(n)

            h, res = _run_board(emu, m, after_drop=inject)
    assert res.ok, res
    assert len(injected) == 2
    name = {"misfeed": "Misfeed", "double": "DoubleFeed", "jam": "Jam"}[fault]
    expected = 2 if fault != "jam" else 4  # a jam reports its start and its clearing
    assert res.events[name] == expected
    assert emu.stats.faults[{"double": "double_feed"}.get(fault, fault)] == 2


def test_three_misfeeds_in_a_row_become_a_jam():
    with Emulator.start(seed=3, pty=True, **FAST) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            h, res = _run_board(emu, m, after_drop=lambda n: n == 10 and [emu.inject("misfeed") for _ in range(3)])
    assert res.ok
    assert res.events["Misfeed"] == 2 and res.events["Jam"] == 2


def test_cover_open_stops_feeding_and_resume_is_refused_until_closed():
    with Emulator.start(seed=4, pty=True, **FAST) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            emu.open_cover()
            e = next(x for x in m.events(timeout=2) if isinstance(x, ev.Cover))
            assert e.open
            with pytest.raises(Exception, match=f"on {emu.url} refused RESUME: the cover is open"):
                m.resume()
            emu.close_cover()
            e = next(x for x in m.events(timeout=2) if isinstance(x, ev.Cover))
            assert not e.open
            h, res = _run_board(emu, m, after_drop=lambda n: n == 20 and emu.open_cover())
    assert res.ok
    assert res.events["Cover"] == 2


def test_unplugged_cable_is_reported_and_resynchronised(link):
    with Emulator.start(seed=5, **FAST, **_endpoint(link)) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            h, res = _run_board(emu, m, after_drop=lambda n: n in (12, 40) and emu.unplug(0.6))
            # The last cards may be routed by retransmission before the supervisor's
            # handshake completes (a loaded machine): the reconnect follows the board.
            assert _settled(lambda: m.stats.reconnects, 2) >= 2
            assert m.stats.link_lost >= 2
            late = [type(e).__name__ for e in m.events(timeout=0.2)]
    assert res.ok, res
    assert res.events["LinkLost"] + late.count("LinkLost") >= 2
    assert res.events["Connected"] + late.count("Connected") >= 2
    assert emu.stats.faults["unplug"] == 2


@pytest.mark.parametrize("lands", [True, False])
def test_power_cut_keeps_pocket_counts_and_reconciles_the_card_in_flight(link, lands):
    plan = FaultPlan(seed=6, power_cut_drop_chance=1.0 if lands else 0.0)
    with Emulator.start(faults=plan, **FAST, **_endpoint(link)) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            boots = []

            def cut(n: int) -> None:
                if n in (10, 33):
                    boots.append(emu.boot_id)
                    emu.power_cut(when="dropping")  # while the next card is falling
                if n == 20:
                    boots.append(emu.boot_id)
                    emu.power_cut(when="at_gate")  # while a card waits to be routed

            h, res = _run_board(emu, m, after_drop=cut)
            assert m.stats.power_cuts == 3
    assert res.ok, res
    assert len(set(boots)) == 3 and emu.boot_id not in boots
    assert res.events["Connected"] >= 3
    # The host was told what became of each card in flight.
    if lands:
        assert res.events["InferredDrop"] == 2 and res.events["CardReturned"] == 1
    else:
        assert res.events["InferredDrop"] == 0 and res.events["CardReturned"] == 3


def test_garbage_on_the_line_never_crashes_the_driver(link):
    rng = random.Random(7)
    newer = p.frame_body(p.Frame(p.MsgType.HEARTBEAT, 0, b"\x00" * 9, version=2))
    good = p.encode_frame(p.Frame(p.MsgType.HEARTBEAT, 0, p.Heartbeat(1, 1, 1).pack()))
    with Emulator.start(seed=7, **FAST, **_endpoint(link)) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            emu.inject_raw(bytes(rng.randrange(256) for _ in range(3000)) + b"\x00")
            emu.inject_raw(good[: len(good) // 2] + b"\x00")  # a truncated frame
            from cobs import cobs

            emu.inject_raw(cobs.encode(newer) + b"\x00")  # a frame from protocol version 2
            emu.emit_raw_event(0xBE, b"future")  # a sequenced event type we do not know
            h, res = _run_board(emu, m)
            stats = m.stats
    assert res.ok
    assert stats.bad_total >= 3
    assert stats.other_version == 1
    assert stats.unknown_events == 1
    assert res.events["LineError"] + res.events["UnknownMessage"] >= 1
    assert any("version 2" in r for r in stats.bad_frames)


def _settled(read, target: int, limit: float = 10.0) -> int:
    """``read()`` once it reaches ``target`` (a loaded reader may lag), or after ``limit`` s."""
    deadline = time.monotonic() + limit
    while read() < target and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.05)  # and nothing more trickles in
    return read()


def test_short_soak_noise_drops_and_unplugs(link):
    plan = FaultPlan(seed=8, byte_error_rate=0.01, frame_drop_rate=0.005)
    boards = 12
    with Emulator.start(faults=plan, **FAST, **_endpoint(link)) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            h = Harness(emu, m, idle_timeout=5.0)
            results = []
            with emu.hold():
                # Frames sent before the driver opened the port were never seen: start counting now.
                base_sent, base_seen = emu.noise_out.corrupted, m.stats.bad_total
            for b in range(1, boards + 1):
                unplug = (lambda n: n == 26 and emu.unplug(0.6)) if b % 6 == 0 else None
                results.append(h.deal_board(b, random_deal(random.Random(b)), after_drop=unplug))
            with emu.hold():  # nothing half-way down the cable while we compare counts
                stats = m.stats
                damaged_sent = emu.noise_out.corrupted - base_sent
                cut_off = emu.endpoint.discarded_frames  # TCP: frames lost with the cable
                bad_seen = _settled(lambda: stats.bad_total - base_seen, damaged_sent - cut_off)
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert sum(r.drops for r in results) >= 52 * boards
    # Every damaged frame sent to the host was caught by the CRC and reported.
    assert damaged_sent > 0
    assert damaged_sent - cut_off <= bad_seen <= damaged_sent, stats
    # The machine reports every damaged frame (plus any frame an unplug cut in two).
    assert 0 < emu.noise_in.corrupted <= emu.stats.bad_frames_in
    assert stats.link_lost >= 2


def test_power_cut_while_a_reject_falls_is_reconciled_by_the_reject_count():
    from firmware_bridge.physical import PhysicalCard, standard_deck

    plan = FaultPlan(seed=9, power_cut_drop_chance=1.0)
    deck = standard_deck()
    random.Random(9).shuffle(deck)
    joker = PhysicalCard.make_joker()
    with Emulator.start(faults=plan, pty=True, **FAST) as emu:
        with Machine.open(emu.url, **DRIVER) as m:
            emu.power_cut(when="dropping")  # armed: the first card to fall is the joker
            h = Harness(emu, m)
            res = h.deal_board(4, random_deal(random.Random(4)), [joker, *deck])
            assert m.stats.power_cuts == 1
    assert res.ok, res
    assert res.rejected == [joker]
    assert res.events["InferredDrop"] == 1
