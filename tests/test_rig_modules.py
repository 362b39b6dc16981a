"""The rig stays one small wiring module; what it wires lives with its concern.

See docs/architecture.md ("The rig"). The import rules themselves are checked
by tests/test_architecture.py; this checks the split: the rig's size, that the
old names still come from ``rig``, that the moved modules' examples hold, and
that the emulator's cameras and operator work with the real emulator through
their protocols (no adapter imports another).
"""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import rig
from dealer import rig_job, rig_report
from dealer import session_notices as say
from dealer.cards import Card
from dealer.generate import random_dealset
from dealer.session import DealingSession, MemoryJournal
from dealer.session_plan import Plan
from firmware_bridge import events as ev
from firmware_bridge import operator
from firmware_bridge.emulator import Emulator
from firmware_bridge.physical import PhysicalCard
from vision import picture_feed, rig_sources

ROOT = Path(__file__).resolve().parents[1]


def test_the_rig_is_one_small_module() -> None:
    lines = len((ROOT / "rig.py").read_text(encoding="utf-8").splitlines())
    assert lines <= 500, f"rig.py has {lines} lines: move what is not wiring to its package"


@pytest.mark.parametrize("name, module", [
    ("EmulatorCamera", rig_sources), ("TruthCamera", rig_sources), ("FolderCamera", rig_sources),
    ("LiveCamera", rig_sources), ("folder_writer", rig_sources), ("sighting_from", rig_sources),
    ("PictureFeed", picture_feed), ("ConsoleOperator", operator),
    ("EmulatedOperator", operator), ("Scenario", operator), ("BoardCheck", operator),
    ("RigReport", rig_report), ("Display", rig_report), ("RigError", rig_report),
    ("summary", rig_report), ("open_job", rig_job),
])
def test_the_moved_names_are_still_the_rigs(name: str, module: object) -> None:
    assert getattr(rig, name) is getattr(module, name)
    assert name in rig.__all__


@pytest.mark.parametrize("module", [rig_job, rig_report, rig_sources, picture_feed, operator])
def test_the_moved_modules_examples_hold(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_importing_the_rig_loads_no_opencv() -> None:
    # `boardwright deal --camera truth` (soaks) and every other CLI command load rig.py
    # through its entry point: the cameras import OpenCV only when they render or read.
    p = subprocess.run([sys.executable, "-c", "import sys, rig; print('cv2' in sys.modules)"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False"


def test_the_truth_camera_sees_the_real_emulators_gate() -> None:
    # The camera knows the emulator only as a GateEmulator: the real one must fit it.
    with Emulator(pty=True, seed=1) as emu:  # not started: only its camera hook is used
        cam = rig_sources.TruthCamera()
        cam.attach(emu)
        assert emu.camera == cam.hook
        ace, joker = PhysicalCard(Card.parse("SA"), "1"), PhysicalCard.make_joker("1")
        cam.smudged.add(ace)
        emu.camera(3, ace)
        assert cam.look((emu.boot_id, 3)).problem == "unreadable"  # smudged: once
        emu.camera(4, ace)
        seen = cam.look((emu.boot_id, 4))
        assert seen.card == Card.parse("SA") and seen.deck == "1"
        emu.camera(5, joker)
        assert cam.look((emu.boot_id, 5)).problem == "joker"
        assert cam.cards[(emu.boot_id, 5)] is joker


def test_a_bad_fault_names_the_kinds() -> None:
    with pytest.raises(rig.RigError, match="jelly@3"):
        rig.Scenario.parse("jam@2,jelly@3")
    with pytest.raises(rig.RigError, match="KIND@BOARD"):
        operator.Scenario.parse("jam")


def test_the_notices_a_session_answers_a_returned_card_with_reach_the_operator() -> None:
    # Every machine event's handler tells what the session answers. CardReturned's threw
    # its answer away (the sessions answer [] today, so nothing was lost yet).
    session = DealingSession(Plan.build(random_dealset([1])), MemoryJournal())
    session.card_returned = lambda key: [say.power_cut()]  # type: ignore[method-assign]
    told: list[str] = []
    op = operator.ConsoleOperator()
    op.handle = lambda notice, host: told.append(notice.code)  # type: ignore[method-assign]
    r = rig.Rig(None, None, session, op)  # type: ignore[arg-type]  # neither is used here
    r.on_event(ev.CardReturned(gate_id=5, boot_id=1))
    assert told == ["power_cut"] and r.report.notices["power_cut"] == 1


def test_a_refused_cards_reason_reaches_the_operator_whole_words_only() -> None:
    # The reader's reason is kept to a line on the operator's screen: it was cut at 120
    # characters, mid-word ("... are its codes cov"), in the demo's unreadable card.
    from vision.barcode import BarcodeReader
    from vision.render import render_card_frame

    frame = render_card_frame(Card.parse("S7"), design="qr", deck_id=1, seed=3, distortions="codes-covered!")
    outcome = BarcodeReader("zxing", "qr", deck_id=1).read(frame)
    assert not outcome.accepted
    seen = rig_sources.sighting_from(outcome)
    assert seen.problem == "unreadable"
    assert seen.detail.endswith("are its codes covered, or out of focus?"), seen.detail
    notice = str(say.unreadable("board 8", seen.detail))
    assert "codes covered, or out of focus?)" in notice
    long = rig_sources.sighting_from(type(outcome)(outcome.reason, "word " * 60))
    assert len(long.detail) <= rig_sources.SIGHTING_DETAIL and long.detail.endswith(" …")
    assert "wor …" not in long.detail
