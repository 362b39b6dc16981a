"""The wire format and the reliability rules, without any I/O."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"

EXAMPLES = [
    p.Hello(),
    p.GetState(),
    p.Route(0xDEADBEEF, 17, 3),
    p.Route(1, 2, p.REJECT),
    p.Pause(),
    p.Resume(),
    p.Abort(),
    p.SetSpeed(3),
    p.BoardEvent(1, 17),
    p.HopperEmptyEvent(),
    p.CardAtGateEvent(42),
    p.CardDroppedEvent(42, 1, 3, 4, 2, 3, 0),
    p.MisfeedEvent(1),
    p.DoubleFeedEvent(2, 2),
    p.JamEvent(1),
    p.CoverEvent(0),
    p.Heartbeat(7, 2, 1234),
    p.Ack(),
    p.Nak(),
]


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_through_a_frame(msg):
    wire = p.encode_frame(p.Frame(msg.TYPE, 513, msg.pack()))
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    (frame,) = p.FrameDecoder().feed(wire)
    assert isinstance(frame, p.Frame)
    assert (frame.type, frame.seq) == (msg.TYPE, 513)
    assert frame.message() == msg


def test_hello_and_state_bodies_round_trip_and_tolerate_appended_fields():
    info = p.HelloInfo(0, 0xCAFEF00D, 9, 4, 3, 3, 2, "fw 2.1", "DM-000123")
    assert p.HelloInfo.unpack(info.pack() + b"\x01\x02") == info  # a newer minor adds bytes
    state = p.StateInfo(5, 2, 2, 1, 17, 0, (3, 4, 2, 3), 1, 13, p.UNROUTED, 12, 0, 40)
    assert p.StateInfo.unpack(state.pack() + b"\xff") == state
    reply = p.Reply(p.MsgType.GET_STATE, p.Status.OK, state.pack())
    assert p.Reply.unpack(reply.pack()) == reply
    with pytest.raises(p.ProtocolError, match="STATE reply is 3 bytes"):
        p.StateInfo.unpack(b"abc")
    with pytest.raises(p.ProtocolError, match="Route payload is 2 bytes, needs 9"):
        p.Route.unpack(b"ab")


def test_the_crc_catches_every_single_byte_error():
    body = p.frame_body(p.Frame(p.MsgType.ROUTE, 300, p.Route(77, 12, 2).pack()))
    for i in range(len(body)):
        for v in range(256):
            if v == body[i]:
                continue
            bad = body[:i] + bytes([v]) + body[i + 1 :]
            item = p.decode_body(cobs.encode(bad))
            assert isinstance(item, p.BadFrame), (i, v)


def test_frames_from_another_major_version_are_refused_and_named():
    body = p.frame_body(p.Frame(p.MsgType.HEARTBEAT, 0, b"\x00" * 9, version=2))
    item = p.decode_body(cobs.encode(body))
    assert isinstance(item, p.BadFrame) and item.version == 2
    assert item.reason == "frame from protocol version 2, this side speaks 1"


def test_truncated_and_overlong_input_is_reported_not_raised():
    wire = p.encode_frame(p.Frame(p.MsgType.CARD_AT_GATE, 1, p.CardAtGateEvent(5).pack()))
    d = p.FrameDecoder()
    out = d.feed(wire[:5] + b"\x00")
    assert [type(x) for x in out] == [p.BadFrame]
    out = d.feed(b"\x07" * 700)
    assert len(out) == 1 and out[0].reason == "over-long run without a delimiter"
    assert isinstance(d.feed(wire)[0], p.Frame)  # and the next good frame is read


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_never_raise(data):
    d = p.FrameDecoder()
    for item in d.feed(data) + d.feed(b"\x00"):
        assert isinstance(item, (p.Frame, p.BadFrame))
        if isinstance(item, p.Frame):
            try:
                item.message()
            except p.ProtocolError:
                pass  # a valid frame with a malformed payload is reported, never raised further


def test_unknown_types_follow_the_sequenced_bit():
    assert p.is_sequenced(0xBE) and not p.is_request(0xBE) and p.is_event(0xBE)
    assert not p.is_sequenced(0x3F)
    with pytest.raises(p.ProtocolError, match="unknown message type 0xbe"):
        p.Frame(0xBE, 1, b"").message()


def test_sequence_numbers_wrap():
    assert p.seq_after(0, 0xFFFF) and p.seq_after(5, 3) and not p.seq_after(3, 5)
    assert not p.seq_after(7, 7)


@pytest.mark.parametrize("seed", range(8))
def test_go_back_n_delivers_every_event_once_in_order_over_a_lossy_line(seed):
    rng = random.Random(seed)
    sender = p.EventSender(rto=0.01, window=4, next_seq=0xFFF0)  # crosses the wrap
    receiver = p.EventReceiver(expected=0xFFF0)
    delivered: list[int] = []
    now = 0.0
    for i in range(60):
        sender.queue(p.CardAtGateEvent(i))
    while len(delivered) < 60:
        now += 0.002
        for wire in sender.sendable(now):
            if rng.random() < 0.3:
                continue  # lost on the way
            (frame,) = p.FrameDecoder().feed(wire)
            ok, ack = receiver.accept(frame.seq)
            if ok:
                delivered.append(frame.message().gate_id)
            if ack is not None and rng.random() > 0.3:  # ACKs get lost too
                sender.on_ack(ack)
        assert now < 60, "stalled"
    assert delivered == list(range(60))
    assert sender.retransmissions > 0 and receiver.duplicates + receiver.out_of_order > 0


def test_the_hex_examples_in_the_spec_decode_as_described():
    text = DOC.read_text(encoding="utf-8")
    examples = re.findall(r"^wire: ([0-9a-f ]+)\n+decoded: (.+)$", text, flags=re.M)
    assert len(examples) >= 6
    for hexes, described in examples:
        items = p.FrameDecoder().feed(bytes.fromhex(hexes))
        assert len(items) == 1 and isinstance(items[0], p.Frame), hexes
        frame = items[0]
        got = f"{p.MsgType(frame.type).name} seq={frame.seq} {frame.message()!r}"
        assert got == described.strip(), (got, described)
