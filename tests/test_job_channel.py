"""One status channel per dealing job: the rig, the job's row in the store, and the panel.

With the real emulator (a real pty, the real driver, the real protocol): the
director pauses a job on the panel, the emulator is sent PAUSE and feeds no
more; on resume the boards complete and are checked card by card. A job
started in a terminal shows on the panel's Dealing page. An emulator that
fails says so as a machine fault, with its traceback in the log. The feed
roller's card cannot be taken from under it.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import csrf, director, make_app

import rig
from dealer.cli import main
from dealer.generate import random_dealset
from dealer.rig_ports import Command, JobChannel, JobState, JobStatus, NoLink
from dealer.store import Store, dealing
from firmware_bridge import events as ev
from firmware_bridge import protocol as p
from firmware_bridge.driver import Machine, MachineError
from firmware_bridge.emulator import Emulator
from firmware_bridge.physical import standard_deck
from webpanel.db import store as panel_store


def _wait_until(cond: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _gates(emu: Emulator) -> int:
    return sum(isinstance(m, p.CardAtGateEvent) for m in list(emu.event_log))


def _sent(emu: Emulator, kind: type) -> int:
    return sum(isinstance(m, kind) for m in list(emu.request_log))


def _command(client: Any, job: int, what: str) -> None:
    tok = csrf(client, f"/dealing/{job}")
    r = client.post(f"/dealing/{job}/command", data={"csrf_token": tok, "command": what})
    assert r.status_code == 302, r.get_data(as_text=True)


# --------------------------------------------------------------------------- pause on the panel
def test_the_panel_pauses_a_job_and_the_emulator_is_sent_pause(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'bw.sqlite'}"
    app = make_app(db)
    client = app.test_client()
    director(client)
    with app.app_context():
        st = panel_store()
        set_id = st.save(random_dealset([1, 2]), name="pause")
        job = dealing.create(st, set_id, machine="emulator")
    emus: list[Emulator] = []
    out: dict[str, Any] = {}

    def deal() -> None:
        with Store.open(db) as store:
            try:
                out["report"] = rig.run_emulated(
                    str(set_id), db, camera="truth", time_scale=0.2, quiet=True,
                    link=dealing.StoreJobLink(store, job), on_emulator=emus.append)
            except Exception as exc:  # pragma: no cover - shown by the assertion below
                out["error"] = exc

    t = threading.Thread(target=deal, daemon=True)
    t.start()
    with app.app_context():
        _wait_until(lambda: emus and _gates(emus[0]) >= 10, 60, "ten cards at the gate")
        emu = emus[0]
        assert client.get(f"/dealing/{job}/status.json").get_json()["state"] == "running"
        _command(client, job, "pause")
        _wait_until(lambda: dealing.get(panel_store(), job).state == "paused", 10, "paused")
        assert _sent(emu, p.Pause) >= 1  # the machine protocol's own PAUSE
        _wait_until(lambda: emu.phase == "idle", 5, "the card in hand to land")
        time.sleep(0.3)
        gates, pockets = _gates(emu), sum(map(len, emu.pockets))
        time.sleep(1.0)  # at this pace the machine feeds ~5 cards a second when running
        assert (_gates(emu), sum(map(len, emu.pockets))) == (gates, pockets)
        assert not emu.running and emu.mode == p.Mode.IDLE
        page = client.get(f"/dealing/{job}/status.json").get_json()
        assert page["state"] == "paused" and "paused by the director" in page["message"]
        assert page["cards_done"] == pockets and " → " in page["card"]
        resumes = _sent(emu, p.Resume)
        _command(client, job, "resume")
        t.join(timeout=120)
        assert not t.is_alive() and "error" not in out, out
        assert _sent(emu, p.Resume) > resumes
        report = out["report"]
        assert (report.boards_done, report.checked, report.misdealt) == (2, 2, 0)
        page = client.get(f"/dealing/{job}/status.json").get_json()
    assert (page["state"], page["boards_done"], page["cards_done"]) == ("done", 2, 104)
    assert "all 2 boards are dealt and checked" in page["message"]


def test_abort_sends_abort_and_leaves_the_journal_to_resume(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'a.sqlite'}"
    with Store.open(db) as store:
        set_id = store.save(random_dealset([1, 2, 3]))
        job = dealing.create(store, set_id)
        emus: list[Emulator] = []

        def abort_soon(emu: Emulator) -> None:
            emus.append(emu)
            threading.Timer(0.8, dealing.command, (store, job, "abort")).start()

        report = rig.run_emulated(str(set_id), db, camera="truth", time_scale=0.1, quiet=True,
                                  link=dealing.StoreJobLink(store, job), on_emulator=abort_soon)
        row = dealing.get(store, job)
    assert report.stopped == rig.ABORTED and report.boards_done < 3
    assert _sent(emus[0], p.Abort) == 1
    assert row.state == "aborted" and "take the boards out" in row.instruction
    with pytest.raises(Exception, match="is aborted"):
        with Store.open(db) as store:
            dealing.command(store, job, "resume")  # a final job takes no more commands


# --------------------------------------------------------------------------- a terminal job
def test_a_job_started_in_a_terminal_shows_on_the_dealing_page(tmp_path: Path,
                                                                capsys: Any) -> None:
    db = f"sqlite:///{tmp_path / 't.sqlite'}"
    with Store.open(db) as store:
        set_id = store.save(random_dealset([1, 2]), name="terminal")
    assert main(["deal", str(set_id), "--machine", "emulator", "--camera", "truth",
                 "--time-scale", "0.02", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "dealing job 1 (the panel's Dealing page shows it" in out
    # Nothing of the console is read by anyone: no line-prefix protocol in it either.
    assert not any(line.startswith(("!", "·")) for line in out.splitlines())
    app = make_app(db)
    client = app.test_client()
    director(client)
    page = client.get("/dealing/").get_data(as_text=True)
    assert '<a href="/dealing/1">1</a>' in page and "<td>done</td>" in page
    st = client.get("/dealing/1/status.json").get_json()
    assert (st["deal_set_id"], st["machine"], st["boards_done"]) == (set_id, "emulator", 2)


# --------------------------------------------------------------------------- machine faults
def test_a_failed_emulator_reports_a_machine_fault_with_its_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def short_the_camera_line(emu: Emulator) -> None:
        camera = emu.camera
        assert camera is not None

        def hook(gate_id: int, card: Any) -> None:
            if gate_id == 30:
                raise RuntimeError("the camera trigger line shorted")
            camera(gate_id, card)
        emu.camera = hook

    caplog.set_level(logging.ERROR, logger="firmware_bridge.emulator")
    db = f"sqlite:///{tmp_path / 'f.sqlite'}"
    with Store.open(db) as store:
        set_id = store.save(random_dealset([1, 2]))
        job = dealing.create(store, set_id)
        t0 = time.monotonic()
        report = rig.run_emulated(str(set_id), db, camera="truth", time_scale=0.05, quiet=True,
                                  link=dealing.StoreJobLink(store, job),
                                  on_emulator=short_the_camera_line)
        row = dealing.get(store, job)
    assert time.monotonic() - t0 < 20  # said at once, not found by an idle timeout
    assert report.stopped and "stopped itself" in report.stopped
    assert "RuntimeError: the camera trigger line shorted" in report.stopped
    assert report.notices["machine_fault"] == 1
    assert row.state == "error" and "switch the machine off and on" in row.instruction
    logged = [r for r in caplog.records if r.name == "firmware_bridge.emulator"]
    assert logged and logged[0].exc_info is not None
    assert "the camera trigger line shorted" in caplog.text and "Traceback" in caplog.text


def test_a_failed_emulator_refuses_resume_until_it_restarts() -> None:
    def broken(gate_id: int, card: Any) -> None:
        raise IndexError("pop from empty list")

    with Emulator.start(pty=True, time_scale=0.05, heartbeat=0.05, camera=broken) as emu, \
            Machine.open(emu.url, rto=0.02, link_timeout=0.5) as m:
        emu.insert_board(1, standard_deck())
        m.resume()
        got = None
        end = time.monotonic() + 10
        while got is None and time.monotonic() < end:
            e = m.next_event(0.1)
            if isinstance(e, ev.MachineFault):
                got = e
        assert got is not None and got.text == "IndexError: pop from empty list"
        assert m.state().mode == p.Mode.FAULT and emu.failure is not None
        with pytest.raises(MachineError):
            m.resume()
        time.sleep(0.3)
        assert m.state().mode == p.Mode.FAULT  # the line stays up: heartbeats, answers


# --------------------------------------------------------------------------- the feed race
def test_the_card_in_the_feeder_is_not_on_the_hopper() -> None:
    """The soak's ``IndexError: pop from empty list``: an operator lifting the hopper while
    the roller feeds. The card in the roller still comes to the gate; nothing fails."""
    with Emulator.start(pty=True, time_scale=1.0, heartbeat=0.05) as emu, \
            Machine.open(emu.url, rto=0.02, link_timeout=0.5) as m:
        deck = standard_deck()[:3]
        emu.insert_board(1, deck)
        m.resume()
        _wait_until(lambda: emu.phase == "feeding", 5, "the feeder to start")
        lifted = emu.take_hopper()
        assert len(lifted) == 2 and lifted == deck[1:] and emu.in_feeder == deck[:1]
        assert not m.state().faults & p.Fault.HOPPER_EMPTY  # a card is still in the machine
        gate = None
        while gate is None:
            e = m.next_event(2.0)
            assert e is not None, "the fed card never reached the gate"
            gate = e if isinstance(e, ev.CardAtGate) else None
        assert emu.gate_card == deck[0] and emu.failure is None
        m.route(gate.gate_id, 0)
        _wait_until(lambda: emu.pockets[0] == deck[:1], 5, "the card to land")
        _wait_until(lambda: any(isinstance(x, p.HopperEmptyEvent) for x in emu.event_log), 5,
                    "hopper empty")
        emu.put_on_hopper(lifted)  # the operator puts them back: they are fed in order
        m.resume()
        _wait_until(lambda: emu.phase == "at_gate" and emu.gate_card == deck[1], 5, "card 2")
        assert emu.failure is None


# --------------------------------------------------------------------------- the channel
def test_the_channel_publishes_changes_throttled_and_commands_once(tmp_path: Path) -> None:
    from dealer.session import DealingSession, MemoryJournal
    from dealer.session_plan import Plan

    class Recording:
        def __init__(self) -> None:
            self.sent: list[JobStatus] = []
            self.pending: list[Command] = [Command.PAUSE]

        def publish(self, status: JobStatus) -> None:
            self.sent.append(status)

        def command(self) -> Command | None:
            return self.pending.pop() if self.pending else None

        def picture(self, data: bytes) -> None:
            pass

    session = DealingSession(Plan.build(random_dealset([1])), MemoryJournal())
    link = Recording()
    ch = JobChannel(link)
    ch.publish(session, force=True)
    ch.publish(session)  # unchanged and soon after: not sent again
    ch.card = "♠A → North"
    ch.publish(session)  # changed, but within POLL seconds
    assert len(link.sent) == 1
    time.sleep(JobChannel.POLL)
    ch.publish(session)
    assert [s.card for s in link.sent] == ["", "♠A → North"]
    assert ch.poll() is Command.PAUSE and ch.poll() is None  # POLL again only after a while
    ch.paused = True
    assert ch.status(session).state is JobState.PAUSED and ch.holding
    # A run nobody watches costs nothing: no status is even built.
    quiet = JobChannel(NoLink())
    assert not quiet.watched and quiet.poll() is None
