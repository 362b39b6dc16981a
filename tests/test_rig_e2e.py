"""End to end on a virtual rig: the emulator on a real pty, rendered card frames read
by the real barcode recogniser (zxing-cpp), a real SQLite journal, and the session.

* a 32-board set is dealt and every board's pockets are checked against the deal,
  card by card, when the simulated operator takes it out;
* every fault a club meets is injected, and its notice, instruction and the final
  pockets are checked;
* a journal that cannot be written stops the machine with no unrecorded route;
* the rig runs as a subprocess (``boardwright deal``) that is killed with SIGKILL
  mid-board, restarted, resumes from the journal, and finishes with correct boards.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rig
from dealer.generate import random_dealset
from dealer.store import Store, make_engine
from dealer.store.journal import JournalStore
from firmware_bridge.emulator import Emulator
from firmware_bridge.physical import owner_pocket, standard_deck

SCALE = 0.005  # 25 ms of machine time per deck; the host, not the machine, sets the pace


def _journal(url: str, run_id: int):
    return JournalStore(make_engine(url)).entries(run_id)


def test_a_32_board_set_is_dealt_and_every_board_matches_its_deal(tmp_path):
    url = f"sqlite:///{tmp_path}/deal.sqlite"
    ds = random_dealset(range(1, 33), event="e2e")
    report = rig.run_emulated(ds, url, camera="emulator:variants=1", time_scale=SCALE, quiet=True)
    assert report.stopped is None
    assert report.boards_done == 32 and report.checked == 32
    assert report.misdealt == 0
    assert report.cards == 32 * 52
    entries = _journal(url, report.run_id)
    drops = [e for e in entries if e.kind == "drop" and e.pocket is not None]
    assert len(drops) == 32 * 52
    # The journal alone reproduces every deal: each drop's pocket is the card's owner.
    by_slot = {}
    for e in drops:
        by_slot.setdefault(e.slot, {})[e.card] = e.pocket
    for slot, owners in by_slot.items():
        deal = ds.board(slot + 1).deal
        assert owners == {c: int(deal.owner(c)) for c in range(52)}
    assert report.latency(0.5) < 10


def _run(tmp_path, faults: str, boards: int, **kw):
    url = f"sqlite:///{tmp_path}/faults.sqlite"
    ds = random_dealset(range(1, boards + 1))
    sc = rig.Scenario.parse(faults)
    sc.at_card = 10
    return rig.run_emulated(ds, url, camera="emulator:variants=1", scenario=sc, time_scale=SCALE,
                            quiet=True, **kw)


def test_every_card_fault_gives_its_instruction_and_boards_still_match(tmp_path):
    r = _run(tmp_path, "duplicate@1,missing@2,joker@3,face_down@4,other_deck@5,unreadable@6,"
             "same_back@7,wrong_board@8", 8)
    assert r.stopped is None and r.boards_done == 8
    assert r.checked == 8 and r.misdealt == 0
    for code in ("duplicate", "missing", "joker", "face_down", "other_deck", "unreadable",
                 "same_back", "wrong_board", "refeed"):
        assert r.notices[code] >= 1, code


def test_every_machine_fault_is_surfaced_and_recovered(tmp_path):
    r = _run(tmp_path, "jam@1,cover@2,double@3,misfeed@4,power_cut@5,unplug@6", 6)
    assert r.stopped is None and r.boards_done == 6
    assert r.checked == 6 and r.misdealt == 0
    for code in ("jam", "cover_open", "double_feed", "misfeed", "power_cut", "link_lost"):
        assert r.notices[code] >= 1, code


def test_instruction_wording_for_faults():
    from dealer import session_notices as say

    assert say.jam().instruction.startswith("open the cover, pull the card out")
    assert say.cover_open().instruction == "close the cover to continue"
    assert say.double_feed(2).stop and "put them back on top of the hopper" in say.double_feed(2).instruction
    assert say.hopper_empty("board 4").message == "board 4: the hopper is empty"
    assert say.wrong_board(7, "board 5", 5).instruction == "take it out and insert board 5"


class LockingOperator(rig.EmulatedOperator):
    """After 15 cards another program takes an exclusive lock on the database."""

    def __init__(self, *a, db: str, **kw) -> None:
        super().__init__(*a, **kw)
        self.db = db
        self.locker: sqlite3.Connection | None = None

    def after_drop(self, r) -> None:
        super().after_drop(r)
        if self.drops == 15 and self.locker is None:
            self.locker = sqlite3.connect(self.db, isolation_level=None, timeout=5)
            self.locker.execute("BEGIN EXCLUSIVE")


def test_a_locked_journal_stops_the_machine_and_nothing_unrecorded_is_routed(tmp_path):
    db = tmp_path / "locked.sqlite"
    url = f"sqlite:///{db}"
    ds = random_dealset([1, 2])
    session, runs, run_id, _ = rig.open_job(url, str(Store.open(url).save(ds)), options={})
    with Emulator.start(pty=True, seed=3, time_scale=SCALE, heartbeat=0.05) as emu:
        cam = rig.make_camera("truth", emu)
        op = LockingOperator(emu, cam, db=str(db))
        with rig.Machine.open(emu.url, rto=0.02, link_timeout=0.5) as m:
            report = rig.Rig(m, cam, session, op, idle_timeout=3.0).run()
            time.sleep(0.2)
            state = m.state()
        pockets = [list(p) for p in emu.pockets]
    op.locker.rollback()
    op.locker.close()
    assert report.stopped is not None and "locked" in report.stopped
    assert session.state == "stopped"
    assert session.notices[-1].code == "journal_failed"
    assert "no card was routed that is not recorded" in session.notices[-1].message
    assert state.mode != 2  # not RUNNING: the machine was paused
    # Every card in a pocket has a journalled route to that pocket.
    entries = JournalStore(make_engine(url)).entries(run_id)
    routed = {(e.card, e.pocket) for e in entries if e.kind == "route"}
    for seat, cards in enumerate(pockets):
        for pc in cards:
            assert (int(pc.card), seat) in routed
    assert sum(map(len, pockets)) >= 15


def _wait(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_sigkill_mid_board_then_restart_resumes_from_the_journal(tmp_path):
    db = f"sqlite:///{tmp_path}/kill.sqlite"
    ds = random_dealset([1, 2, 3])
    with Store.open(db) as store:
        set_id = store.save(ds)
    exe = Path(sys.executable).parent / "boardwright"
    with Emulator.start(pty=True, seed=5, time_scale=0.02, heartbeat=0.05) as emu:
        rig.folder_writer(emu, tmp_path / "frames")
        cmd = [str(exe), "deal", str(set_id), "--machine", emu.url, "--camera",
               f"dir:{tmp_path / 'frames'}", "--db", db, "--quiet"]

        def start() -> subprocess.Popen:
            return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env={**os.environ})

        proc = start()
        kills = {1: 20, 2: 45}  # board -> kill after this many cards in its pockets
        results = []
        rng = random.Random(5)
        try:
            for board in (1, 2, 3):
                deck = standard_deck("1")
                rng.shuffle(deck)
                emu.insert_board(board, deck)
                if board in kills:
                    _wait(lambda k=kills[board]: sum(map(len, emu.pockets)) >= k, 60, "cards")
                    os.kill(proc.pid, signal.SIGKILL)  # mid-board, whatever it was doing
                    proc.wait(10)
                    assert proc.returncode == -signal.SIGKILL
                    proc = start()
                _wait(lambda: sum(map(len, emu.pockets)) == 52 and emu.phase == "idle", 60,
                      f"board {board} to fill")
                time.sleep(0.05)
                pockets = emu.remove_board()
                emu.return_rejects()
                emu.take_hopper()
                deal = ds.board(board).deal
                results.append(all(owner_pocket(deal, pc) == seat
                                   for seat, cards in enumerate(pockets) for pc in cards)
                               and all(len(c) == 13 for c in pockets))
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert results == [True, True, True]
    assert proc.returncode == 0, err
    assert "3 of 3 boards dealt" in out
    runs = JournalStore(make_engine(db))
    assert runs.open_run(set_id) is None  # finished
    entries = [e for e in runs.entries(1) if e.kind == "drop" and e.pocket is not None]
    assert len({(e.slot, e.card) for e in entries}) == 3 * 52


def test_the_deal_command_reports_bad_input_in_one_line(tmp_path, capsys):
    from dealer.cli import main

    db = f"sqlite:///{tmp_path}/x.sqlite"
    assert main(["deal", str(tmp_path / "nope.pbn"), "--machine", "emulator", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boardwright: ") and "nope.pbn" in err and len(err.splitlines()) == 1
    assert main(["deal", "1", "--machine", "emulator", "--faults", "gremlin@2", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "gremlin@2" in err and "Traceback" not in err


@pytest.mark.parametrize("faults", ["jam@1,duplicate@2"])
def test_the_deal_command_on_the_emulator_prints_progress_and_a_summary(tmp_path, faults):
    from dealer import formats

    path = tmp_path / "set.pbn"
    formats.write(random_dealset([1, 2]), path, format="pbn")
    exe = Path(sys.executable).parent / "boardwright"
    p = subprocess.run([str(exe), "deal", str(path), "--machine", "emulator", "--camera", "truth",
                        "--time-scale", "0.005", "--faults", faults,
                        "--db", f"sqlite:///{tmp_path}/cli.sqlite"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "a card is jammed in the feed path: open the cover" in p.stdout
    assert "this deck has two" in p.stdout
    assert "2 of 2 boards dealt" in p.stdout and "0 mis-dealt" in p.stdout


def test_verify_record_and_play_scan_on_the_virtual_rig(tmp_path):
    from dealer.contract import Contract
    from dealer.play import Play

    url = f"sqlite:///{tmp_path}/scan.sqlite"
    ds = random_dealset([1, 2])
    for b in ds:
        b.tags["Contract"], b.tags["Declarer"] = "3NT", "S"
    swapped = {}

    def hands_back(number: int):
        hands = [list(ds.board(number).deal.hand(seat).cards) for seat in range(4)]
        if number == 2:  # a player put one card in the wrong hand
            hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
            swapped["card"] = hands[1][0]
        return hands

    r = rig.run_emulated(ds, url, camera="emulator:variants=1", time_scale=SCALE, quiet=True,
                         mode="verify", hands=hands_back,
                         scenario=rig.Scenario.parse("unreadable@1"))
    assert r.scan[1].ok and not r.scan[2].ok
    assert f"{swapped['card'].symbol} was in East's hand; the record has it in North's" in r.scan[2].differences
    assert r.notices["verify_failed"] == 1 and r.notices["refeed"] == 1 and r.misdealt == 0

    r = rig.run_emulated(ds, url, camera="emulator:variants=1", time_scale=SCALE, quiet=True,
                         mode="record")
    assert [r.scan[n].deal for n in (1, 2)] == [ds.board(1).deal, ds.board(2).deal]

    plays = {}

    def played(number: int):
        p = Play(Contract.parse("3NT S"), ds.board(number).deal)
        rng = random.Random(number)
        while not p.is_complete:
            p.play(rng.choice(p.legal_cards()))
        plays[number] = p
        return [p.played_by(seat) for seat in range(4)]

    r = rig.run_emulated(ds, url, camera="emulator:variants=1", time_scale=SCALE, quiet=True,
                         mode="play", hands=played)
    for n in (1, 2):
        assert r.scan[n].play.card_sequence() == plays[n].card_sequence()
        assert r.scan[n].play.declarer_tricks == plays[n].declarer_tricks


def test_a_set_is_dealt_with_a_sticker_deck_whose_codes_were_learned(tmp_path):
    # Issue 15, fourteenth pass: the emulated camera with stickers put on by hand (each a
    # millimetre or two from its place) learns where each card's codes lie, as the
    # operator does once per deck (vision learn-codes), and every card of every board is
    # read through that check: none refused for where its stickers are.
    url = f"sqlite:///{tmp_path}/deal.sqlite"
    ds = random_dealset(range(1, 5), event="stickers")
    report = rig.run_emulated(ds, url, camera="emulator:design=qr-stickers,variants=1", time_scale=SCALE, quiet=True)
    assert report.stopped is None
    assert report.boards_done == 4 and report.checked == 4 and report.misdealt == 0
    assert report.cards == 4 * 52
    # no card refused, none re-fed: only the notices of every run (and, on a loaded host, a
    # link the driver heard nothing on for 2 s and took up again: seen once under make
    # test's two workers, dealt right; not what this test is about)
    assert set(report.notices) - {"link_lost", "resume"} <= {"insert", "start", "board_done", "finished"}, \
        report.notices
    from dataclasses import replace

    from dealer.cards import Card
    from vision.render import NORMAL, render_card_frame
    from vision.rig_sources import EmulatorCamera

    reader = EmulatorCamera("qr-stickers").reader
    assert reader.layout is not None and len(reader.layout.per_card) == 52
    stuck = replace(NORMAL, second_card=True, stuck=(10.0, 10.0))
    outs = [reader.read(render_card_frame(Card(c), design="qr-stickers", seed=c, distortions=stuck)) for c in range(0, 52, 5)]
    assert all(not o.accepted and o.label == "two cards" for o in outs), outs
