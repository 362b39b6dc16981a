"""Driver against emulator over a real pty and a real TCP socket: the normal path."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer.cards import Card
from firmware_bridge import events as ev
from firmware_bridge.driver import (
    Machine,
    MachineError,
    MachineRefused,
    MachineTimeout,
    RouteResult,
)
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.harness import Harness, random_deal
from firmware_bridge.physical import PhysicalCard, standard_deck

ROOT = Path(__file__).resolve().parents[1]
FAST = dict(time_scale=0.01, heartbeat=0.05, rto=0.02)
DRIVER = dict(rto=0.02, link_timeout=0.4, answer_timeout=1.0)


@pytest.fixture(params=["pty", "tcp"])
def emu(request):
    where = {"pty": True} if request.param == "pty" else {"tcp_port": 0}
    with Emulator.start(seed=1, **FAST, **where) as e:
        yield e


def _first(m: Machine, kind: type, timeout: float = 2.0):
    for e in m.events(timeout=timeout):
        if isinstance(e, kind):
            return e
    raise AssertionError(f"no {kind.__name__} event")


def test_handshake_reports_identity_and_capabilities(emu):
    with Machine.open(emu.url, **DRIVER) as m:
        first = m.next_event(1.0)
        info = m.info
    assert isinstance(first, ev.Connected) and not first.reconnect
    assert info is not None
    assert (info.serial, info.firmware) == ("BW-EMU-0001", "boardwright-emulator 0.1")
    assert info.pockets == 4 and info.reject_tray and info.board_reader
    assert info.speed_levels == 3 and info.boot_id == emu.boot_id
    assert first.state.board_present == 0 and first.state.counts == (0, 0, 0, 0)


def test_full_deck_goes_into_four_pockets_of_thirteen(emu):
    deal = random_deal(random.Random(11))
    with Machine.open(emu.url, **DRIVER) as m:
        h = Harness(emu, m)
        hopper = standard_deck()
        random.Random(3).shuffle(hopper)
        res = h.deal_board(7, deal, list(hopper))
    assert res.ok and res.drops == 52
    assert res.events["BoardInserted"] == 1 and res.events["CardDropped"] == 52
    # The camera saw every card once, in hopper order.
    assert [h.seen[k] for k in sorted(h.seen)] == hopper


def test_pockets_hold_exactly_the_hands(emu):
    deal = random_deal(random.Random(5))
    with Machine.open(emu.url, **DRIVER) as m:
        h = Harness(emu, m)
        got: list[list[PhysicalCard]] = []
        original = emu.remove_board

        def spy():
            got.extend(original())
            return got

        emu.remove_board = spy  # type: ignore[method-assign]
        assert h.deal_board(1, deal).ok
    for seat in range(4):
        assert len(got[seat]) == 13
        assert {int(pc.card) for pc in got[seat]} == {int(c) for c in deal.hand(seat)}


def test_board_number_and_removal_are_events(emu):
    with Machine.open(emu.url, **DRIVER) as m:
        emu.insert_board(23, [])
        assert _first(m, ev.BoardInserted).number == 23
        emu.remove_board()
        _first(m, ev.BoardRemoved)
        emu.insert_board(None, [])
        assert _first(m, ev.BoardInserted).number is None
        m.resume()
        _first(m, ev.HopperEmpty)


def test_route_is_idempotent_and_stale_ids_are_refused(emu):
    with Machine.open(emu.url, **DRIVER) as m:
        emu.insert_board(1, standard_deck()[:2])
        m.resume()
        gate = _first(m, ev.CardAtGate)
        assert m.route(gate.gate_id, 2) == RouteResult.ACCEPTED
        assert m.route(gate.gate_id, 2) == RouteResult.DUPLICATE
        with pytest.raises(MachineRefused, match=f"on {emu.url} refused to route card 1 to pocket 3"):
            m.route(gate.gate_id, 3)
        assert m.route(999, 1) == RouteResult.STALE
        drop = _first(m, ev.CardDropped)
        assert (drop.gate_id, drop.pocket, drop.counts) == (gate.gate_id, 2, (0, 0, 1, 0))
        assert m.route(gate.gate_id, 2) == RouteResult.DUPLICATE  # after the drop too
        nxt = _first(m, ev.CardAtGate)
        assert m.route(nxt.gate_id, None) == RouteResult.ACCEPTED
        drop = _first(m, ev.CardDropped)
        assert drop.pocket is None and drop.rejects == 1
    assert [len(x) for x in emu.pockets] == [0, 0, 1, 0] and len(emu.rejects) == 1


def test_pause_abort_speed_and_state(emu):
    with Machine.open(emu.url, **DRIVER) as m:
        m.set_speed(3)
        assert m.state().speed == 3
        with pytest.raises(MachineRefused, match="SET_SPEED 9"):
            m.set_speed(9)
        emu.insert_board(4, standard_deck()[:5])
        m.resume()
        gate = _first(m, ev.CardAtGate)
        st = m.state()
        assert st.mode == 2 and st.gate_id == gate.gate_id and st.board_number == 4
        m.abort()  # the waiting card goes to the reject tray
        drop = _first(m, ev.CardDropped)
        assert drop.pocket is None and drop.gate_id == gate.gate_id
        time.sleep(0.05)
        assert m.state().mode == 1 and len(emu.hopper) == 4  # nothing more was fed
        m.pause()


def test_wrong_decks_are_rejected_or_reported(emu):
    deal = random_deal(random.Random(9))
    deck = standard_deck("A")
    odd = [
        PhysicalCard.make_joker("A"),
        PhysicalCard(Card.parse("SA"), "A", face_up=False),
        PhysicalCard(Card.parse("HK"), "B"),  # a stray from the blue deck
        PhysicalCard(Card.parse("D7"), "A"),  # a duplicate ♦7
    ]
    missing = deck.pop(17)  # and one card missing
    hopper = odd[:2] + deck[:30] + odd[2:] + deck[30:]
    with Machine.open(emu.url, **DRIVER) as m:
        h = Harness(emu, m)
        res = h.deal_board(2, deal, hopper)
    assert not res.misrouted and not res.duplicated and not res.host_disagrees
    assert [int(c) for c in res.lost] == [int(missing.card)]
    assert sorted(map(repr, res.rejected)) == sorted(map(repr, odd))


def test_same_seed_gives_same_events_at_any_time_scale():
    plan = FaultPlan(seed=21, misfeed_rate=0.05, double_feed_rate=0.03, jam_rate=0.02)

    def run(scale: float) -> list[str]:
        with Emulator.start(pty=True, faults=plan, time_scale=scale, heartbeat=0.05) as e:
            with Machine.open(e.url, **DRIVER) as m:
                Harness(e, m).deal_board(3, random_deal(random.Random(3)))
            return [type(x).__name__ + str(getattr(x, "__dict__", "")) for x in e.event_log]

    fast, slower = run(0.005), run(0.03)
    assert fast == slower
    assert any("Misfeed" in x or "Jam" in x or "DoubleFeed" in x for x in fast)


def test_loop_url_opens_but_nobody_answers():
    t0 = time.monotonic()
    with pytest.raises(MachineTimeout, match=r"no answer from the dealing machine on loop:// for 0\.3 s"):
        Machine.open("loop://", answer_timeout=0.3, rto=0.05)
    assert time.monotonic() - t0 < 2


def test_missing_port_names_the_port():
    with pytest.raises(MachineError, match="/dev/ttyNOPE"):
        Machine.open("/dev/ttyNOPE")


@pytest.mark.parametrize("mode", [["--pty"], ["--tcp", "0"]])
def test_cli_emulator_prints_url_and_serves_until_interrupted(mode):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "boardwright"), "emulator", *mode, "--time-scale", "0.01"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        url = line.strip().split()[-1]
        assert url.startswith("/dev/pts/") or url.startswith("socket://127.0.0.1:"), line
        with Machine.open(url, **DRIVER) as m:
            assert m.info is not None and m.info.pockets == 4
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_a_deck_takes_about_five_seconds_scaled():
    # Duplimate Mk 4.5: ~5 s per deck. At time_scale 0.05 that is ~0.25 s of mechanics.
    with Emulator.start(pty=True, seed=1, time_scale=0.05, heartbeat=0.05) as e:
        with Machine.open(e.url, **DRIVER) as m:
            h = Harness(e, m)
            t0 = time.monotonic()
            assert h.deal_board(1, random_deal(random.Random(1))).ok
            elapsed = time.monotonic() - t0
    assert 52 * 0.096 * 0.05 <= elapsed < 2.0
