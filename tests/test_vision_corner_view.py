"""vision/corner_view.py on a real dealing machine's feeder camera (zpigula/pp_2021, Apache-2.0:
tests/data/feeder/SOURCES.md): one corner of each card in view. The deck is learned from one
frame of each card and the other frames are read right, never wrong; the frames with no card, a
suit cut by the frame's edge, and a garbled frame are clear rejects."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer.cards import Card
from vision.corner_view import CornerReader, Pass, learn_corners, learning_pass
from vision.decision import Read, Reason, Reject
from vision.learn import LearnError, bridge_order
from vision.photos import card_of_name

DATA = Path(__file__).parent / "data" / "feeder"


def _frames(sub: str) -> list[tuple[Path, Card | None]]:
    return [(p, card_of_name(p.name)) for p in sorted((DATA / sub).glob("*.jpg"))]


@pytest.fixture(scope="module")
def learned() -> Pass:
    by_card: dict[Card, list[Path]] = {}
    for p, card in _frames("pass"):
        assert card is not None
        by_card.setdefault(card, []).append(p)
    return learning_pass("pp2021", by_card)


@pytest.fixture(scope="module")
def reader(learned: Pass) -> CornerReader:
    return CornerReader(learned.design)


def test_the_pass_is_learned_and_the_unusable_frame_shown_again(learned: Pass) -> None:
    # ♠3's first frame has its suit cut by the frame's edge: the learner names it, the next is used.
    assert len(learned.taught) == 52
    assert len(learned.reshown) == 1 and learned.reshown[0].startswith("S3: 3S-318c287e")
    assert "rank and suit could not be told apart" in learned.reshown[0]
    assert "3S-318c287e-6f2b-11eb-b576-48b02d15dbd4.jpg" not in learned.taught


def test_other_frames_are_read_right_never_wrong(reader: CornerReader) -> None:
    got = {}
    for p, card in _frames("read"):
        out = reader.read(cv2.imread(str(p)))
        got[p.name] = out.label
        assert isinstance(out, Read), (p.name, out)
        assert out.card == card, p.name
        assert out.evidence["corners"] == 1 and out.evidence["rank_score"] >= 0.90
    assert len(got) == 32


def test_doubtful_frames_are_rejected_not_guessed(reader: CornerReader) -> None:
    for p, card in _frames("hard"):
        out = reader.read(cv2.imread(str(p)))
        assert not (isinstance(out, Read) and out.card != card), (p.name, out)
        assert isinstance(out, Reject) and out.reason is Reason.NOT_THIS_DECK, (p.name, out)


def test_a_suit_cut_by_the_frames_edge_is_index_cut_off(reader: CornerReader) -> None:
    for p, _ in _frames("cut"):
        out = reader.read(cv2.imread(str(p)))
        assert isinstance(out, Reject) and out.reason is Reason.CUT_OFF, (p.name, out)


def test_frames_with_no_card_are_rejected(reader: CornerReader) -> None:
    frames = _frames("none")
    assert len(frames) == 3 and all(c is None for _, c in frames)
    for p, _ in frames:
        out = reader.read(cv2.imread(str(p)))
        assert isinstance(out, Reject) and out.reason is Reason.NO_CARD, (p.name, out)


@pytest.mark.parametrize("frame", [
    None,
    np.zeros((0, 0, 3), np.uint8),
    np.zeros((224, 224, 3), np.float32),
    np.zeros((224,), np.uint8),
    np.zeros((8, 8, 3), np.uint8),
    np.full((224, 224, 3), 255, np.uint8),
    np.random.default_rng(7).integers(0, 256, (224, 224, 3), dtype=np.uint8),
    cv2.imdecode(np.frombuffer(b"\xff\xd8\xff garbled jpeg", np.uint8), cv2.IMREAD_COLOR),
    b"not an image",
], ids=["none", "empty", "float", "1-d", "tiny", "white", "noise", "garbled-jpeg", "bytes"])
def test_garbled_or_empty_frames_are_a_clear_reject(reader: CornerReader, frame: object) -> None:
    out = reader.read(frame)  # type: ignore[arg-type]
    assert isinstance(out, Reject) and out.reason is Reason.NO_CARD
    assert out.detail


def test_a_grey_or_four_channel_frame_is_read_or_rejected_never_wrong(reader: CornerReader) -> None:
    for p, card in _frames("read")[:8]:
        img = cv2.imread(str(p))
        for frame in (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)):
            out = reader.read(frame)
            assert not (isinstance(out, Read) and out.card != card), (p.name, frame.shape, out)
        assert reader.read(cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)).label == str(card)


def test_a_pass_with_no_card_in_a_frame_names_that_frame() -> None:
    frames = [(p.name, cv2.imread(str(p))) for p, _ in _frames("pass")][:52]
    with pytest.raises(LearnError, match="ended after 10 frames"):
        learn_corners("x", frames[:10], sorted(Card.all(), key=str))
    none = _frames("none")[0][0]
    frames[5] = (none.name, cv2.imread(str(none)))
    with pytest.raises(LearnError, match=f"frame {none.name} .*no card found"):
        learn_corners("x", frames, sorted(Card.all(), key=str))
    with pytest.raises(LearnError, match="each of the 52 cards once"):
        learn_corners("x", frames, bridge_order()[:51])


def test_a_pass_whose_cards_are_not_those_named_is_refused(learned: Pass) -> None:
    # A corner shows no pips, so the order is not inferred but checked: two cards swapped
    # (♥7 and ♣7: the same rank, another suit and ink) are named, not learned.
    by_card = {card: p for p, card in _frames("pass") if p.name in learned.taught}
    order = bridge_order()
    frames = [(by_card[c].name, cv2.imread(str(by_card[c]))) for c in order]
    assert learn_corners("ok", frames).name == "ok"
    i, j = order.index(Card.parse("H7")), order.index(Card.parse("C7"))
    frames[i], frames[j] = frames[j], frames[i]
    with pytest.raises(LearnError, match=r"frame 7C-.* \(H7\): its suit glyph is nearer the other frames' ♣"):
        learn_corners("swapped", frames)


def test_the_bench_reports_a_feeders_deck_as_its_own_condition(tmp_path: Path) -> None:
    # bench/vision.py reads a feeder camera's frames (one folder per deck) as
    # "<deck> feeder corner", with the figures of the photographs' decks.
    import shutil

    from vision.benchmark import photo_results

    deck = tmp_path / "pp2021"
    deck.mkdir()
    for sub in ("pass", "read", "none"):
        for p in (DATA / sub).glob("*.jpg"):
            shutil.copy(p, deck / p.name)
    got = photo_results("", "", str(tmp_path))["pp2021 feeder corner"]
    assert got["learned"] and got["accepted_wrong"] == 0, got
    assert got["accepted_right"] >= 0.9 * got["tested"] > 0, got
    assert got["no_card_outcomes"] == {"no card found": len(list((DATA / "none").glob("*.jpg")))}
    assert sum(got["courts"]) and sum(got["numbers"])


def test_a_card_on_a_washed_out_floor_is_background_too_light(reader: CornerReader) -> None:
    # The card is there, its edge lost in a floor as light as its paper: the reason says
    # so, and an empty feeder is still "no card found".
    for p in sorted((DATA / "light").glob("*.jpg")):
        out = reader.read(cv2.imread(str(p)))
        assert isinstance(out, Reject) and out.reason is Reason.BACKGROUND_LIGHT, (p.name, out)
    for p, _ in _frames("none"):
        out = reader.read(cv2.imread(str(p)))
        assert isinstance(out, Reject) and out.reason is Reason.NO_CARD, (p.name, out)
