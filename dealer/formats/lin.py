"""BBO LIN: reader and writer.

LIN has no public specification ("BBO has never made the format public"); this
follows what BBO, Big Deal and endplay write. A file is a run of ``key|value|``
pairs. The keys read are:

* ``md|3S...,S...,S...,|``: the dealer digit (1=S, 2=W, 3=N, 4=E), then the
  South, West and North hands (``S``/``H``/``D``/``C`` each followed by ranks);
  East is implied when the other three are complete, and may also be given;
* ``sv|o|`` vulnerability (``o``/``0``/``-`` none, ``n``, ``e``, ``b``);
* ``ah|Board 7|`` and ``qx|o7|`` (open or closed room, board 7): the number;
* ``pn|S,W,N,E|`` player names (eight names in vugraph files: open room first);
* ``mb|1N!|`` calls (``!`` = alerted) and ``an|...|`` their explanations;
* ``pc|SJ|`` cards played, ``pg||`` after each trick, ``mc|9|`` a claim
  (declarer's total tricks);
* ``vg``, ``rs``, ``pw``, ``bn``, ``st``, ``rh``, ``nt``: vugraph headers and
  chat, accepted; any other key is kept out and warned about once.

A file may hold one board per line (Big Deal, BBO hand records) or one long
vugraph record; a board starts at ``qx``, or at a second ``md``/``pn``/``ah``.

The auction and play become the PBN representation used everywhere in
boardwright: ``tags["Auction"]`` (the dealer) with ``sections["Auction"]``
(calls four to a line, ``=n=`` note references, ``Note`` tags ``"n:text"``),
``tags["Play"]`` (the opening leader) with ``sections["Play"]`` (one trick per
line, in seat order from the leader, as PBN 2.1 section 3.10 lays it out), and
``Contract``, ``Declarer`` and ``Result`` worked out from them, so LIN to PBN
keeps them. The writer turns that representation back into ``mb``/``an`` and
``pc``/``pg`` pairs.

>>> ds = loads(b"qx|o1|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|rh||ah|Board 1|sv|0|pg||\\n")
>>> b = ds.boards[0]
>>> b.number, b.dealer.letter, b.vulnerability.value, b.deal[Seat.NORTH].to_pbn()
(1, 'N', 'None', 'AKT2.5.K854.AQ43')
>>> dumps(ds).decode()
'qx|o1|md|3SQJ9HT643DT7632C6,S76543H987DAJC875,SAKT2H5DK854CAQ43|rh||ah|Board 1|sv|0|pg||\\n'
"""

from __future__ import annotations

import re
import warnings

from dealer.auction import Auction, AuctionError, Call
from dealer.board import MAX_BOARD, Board, DealSet
from dealer.cards import Card, Strain
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError, FormatWarning
from dealer.formats import Format
from dealer.formats.pbn import Reader, check_masks, decode
from dealer.formats.sealing import for_writing
from dealer.play import Play
from dealer.play_section import pbn_play_sequence, write_play
from dealer.seats import Seat, Vulnerability

__all__ = ["FORMAT", "loads", "dumps", "sniff"]

KNOWN_KEYS = frozenset("pn qx md sv ah mb an pc pg mc rh st vg rs pw bn nt sk".split())
_PAIR = re.compile(r"([A-Za-z]{2})\|([^|]*)\|")
_SNIFF = re.compile(rb"^\s*(?:[a-z]{2}\|[^|\n]*\|)*(?:md|qx|pn|vg|ah|sv)\|", re.I)

# md's dealer digit and hand order.
_DEALER_BY_DIGIT = {"1": Seat.SOUTH, "2": Seat.WEST, "3": Seat.NORTH, "4": Seat.EAST}
_DIGIT_BY_DEALER = {s: d for d, s in _DEALER_BY_DIGIT.items()}
_MD_ORDER = (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
_VUL_BY_SV = {"o": Vulnerability.NONE, "0": Vulnerability.NONE, "-": Vulnerability.NONE,
              "n": Vulnerability.NS, "e": Vulnerability.EW, "b": Vulnerability.BOTH}
# Big Deal writes 0 for none; BBO reads it as well as o.
_SV_BY_VUL = {Vulnerability.NONE: "0", Vulnerability.NS: "n", Vulnerability.EW: "e",
              Vulnerability.BOTH: "b"}
_SUIT_SHIFT = {"C": 0, "D": 13, "H": 26, "S": 39}
_RANK_INDEX = {c: i for i, c in enumerate("23456789TJQKA")}


def sniff(data: bytes) -> int:
    """How sure we are that ``data`` is LIN: it opens with ``xx|...|`` pairs.

    >>> sniff(b"qx|o1|md|3S..."), sniff(b"pn|a,b,c,d|st||md|1"), sniff(b'[Event "x"]')
    (90, 90, 0)
    """
    return 90 if _SNIFF.match(data[:4096].lstrip(b"\xef\xbb\xbf")) else 0


# --------------------------------------------------------------------------- reading


def loads(data: bytes, *, source: str = "<data>", strict: bool = False) -> DealSet:
    """Read LIN bytes into a :class:`DealSet` (see the module docstring)."""
    r = Reader(decode(data, source, strict), source, strict)
    records: list[list[tuple[str, str, int]]] = []
    current: list[tuple[str, str, int]] = []
    keys: set[str] = set()
    header: list[tuple[str, str, int]] = []
    text = r.text
    pos = 0
    for m in _PAIR.finditer(text):
        gap = text[pos:m.start()]
        if gap.strip():
            r.deviation(f"text that is not a key|value| pair ignored: {gap.strip()[:30]!r}",
                        pos, once="gap")
        pos = m.end()
        key = m.group(1).lower()
        value = m.group(2)
        if key not in KNOWN_KEYS:
            r.deviation(f"unknown LIN key {key!r} ignored", m.start(), field=key,
                        once=f"key:{key}")
            continue
        if "md" in keys and (key == "qx" or (key in ("md", "pn", "ah") and key in keys)):
            records.append(current)
            current, keys = [], set()
        if key in ("vg", "rs", "pw", "bn") and "md" not in keys:
            header.append((key, value, m.start()))
            continue
        current.append((key, value, m.start()))
        keys.add(key)
    rest = text[pos:]
    if rest.strip():
        m2 = re.match(r"\s*([A-Za-z]{2})\|", rest)
        hint = _number_hint(current)
        if m2:
            raise r.error(f"the value of {m2.group(1)!r} has no closing '|' "
                          "(the file may be truncated)", pos, board=hint, field=m2.group(1))
        raise r.error(f"text that is not a key|value| pair: {rest.strip()[:30]!r} "
                      "(the file may be truncated)", pos, board=hint)
    if current:
        records.append(current)
    ds = DealSet()
    names: list[str] | None = None
    for key, value, _ in header:
        ds.meta[f"lin.{key}"] = value
        if key == "vg" and value.split(",")[0].strip():
            ds.meta["Event"] = value.split(",")[0].strip()
    for rec in records:
        board, names = _board(r, rec, ds.boards, names)
        if board is not None:
            ds.boards.append(board)
    return ds


def _number_hint(rec: list[tuple[str, str, int]]) -> str | None:
    for key, value, _ in rec:
        if key in ("ah", "qx"):
            m = re.search(r"\d+", value)
            if m:
                return m.group()
    return None


def _board(r: Reader, rec: list[tuple[str, str, int]], boards: list[Board],
           names: list[str] | None) -> tuple[Board | None, list[str] | None]:
    first: dict[str, tuple[str, int]] = {}
    for key, value, p in rec:
        first.setdefault(key, (value, p))
    if "md" not in first:
        if any(k in first for k in ("mb", "pc")):
            r.deviation("a record with calls or cards but no deal (md) was skipped",
                        rec[0][2], board=_number_hint(rec), field="md")
        return None, [n.strip() for n in first["pn"][0].split(",")] if "pn" in first else names
    number = None
    room = None
    if "qx" in first:
        qx = first["qx"][0].strip()
        room = {"o": "Open", "c": "Closed"}.get(qx[:1].lower())
        m = re.search(r"\d+", qx)
        if m and int(m.group()) >= 1:
            number = int(m.group())
    if "ah" in first:
        m = re.search(r"\d+", first["ah"][0])
        if m and int(m.group()) >= 1:
            number = int(m.group())
    if number is not None and number > MAX_BOARD:
        raise r.error(f"board number {number} is too large (at most {MAX_BOARD:,})",
                      rec[0][2], field="ah" if "ah" in first else "qx")
    if number is None:
        number = boards[-1].number + 1 if boards else 1
        r.deviation(f"no board number (ah or qx); numbered {number} by its place",
                    rec[0][2], board=number, field="ah")
    md, md_pos = first["md"]
    dealer, deal = _parse_md(r, md, md_pos, number)
    vul = None
    if "sv" in first:
        sv, sv_pos = first["sv"]
        vul = _VUL_BY_SV.get(sv.strip().lower())
        if vul is None:
            r.deviation(f"unknown vulnerability {sv!r}; the board number's is used", sv_pos,
                        board=number, field="sv")
    tags: dict[str, str] = {}
    sections: dict[str, str] = {}
    if "pn" in first:
        names = [n.strip() for n in first["pn"][0].split(",")]
    if names:
        four = names[4:8] if room == "Closed" and len(names) >= 8 else names[:4]
        by_seat = dict(zip(_MD_ORDER, four, strict=False))
        for seat in (Seat.WEST, Seat.NORTH, Seat.EAST, Seat.SOUTH):  # PBN's tag order
            if by_seat.get(seat):
                tags[seat.title] = by_seat[seat]
    board = Board(number, deal, dealer, vul, tags, sections)
    _auction_and_play(r, rec, board)
    if room is not None:
        tags["Room"] = room
    return board, names


def _parse_md(r: Reader, md: str, pos: int, number: int) -> tuple[Seat | None, Deal | None]:
    s = md.strip()
    dealer = _DEALER_BY_DIGIT.get(s[:1])
    if s[:1].isdigit():
        s = s[1:]
        if dealer is None:
            r.deviation(f"dealer digit {md[:1]!r} is not 1-4", pos, board=number, field="md")
    hands = s.split(",")
    masks = [0, 0, 0, 0]
    given = [False] * 4
    try:
        if len(hands) > 4 and any(h.strip() for h in hands[4:]):
            raise ValueError(f"it has {len(hands)} hands")
        for seat, hand in zip(_MD_ORDER, hands, strict=False):
            hand = hand.strip().upper().replace("10", "T")
            if not hand:
                continue
            given[seat] = True
            shift = None
            mask = 0
            for ch in hand:
                if ch in _SUIT_SHIFT:
                    shift = _SUIT_SHIFT[ch]
                elif ch in _RANK_INDEX and shift is not None:
                    bit = 1 << (shift + _RANK_INDEX[ch])
                    if mask & bit:
                        raise ValueError(f"{seat.title} holds {_card_name(bit)} twice")
                    mask |= bit
                else:
                    raise ValueError(f"{ch!r} in {seat.title}'s hand {hand!r}")
            masks[seat] = mask
        check_masks(masks)
        counts = [m.bit_count() for m in masks]
        if not any(given):
            return dealer, None
        missing = [i for i in range(4) if not given[i]]
        if len(missing) == 1 and sum(counts) == 39:  # East (or any one hand) implied
            masks[missing[0]] = ((1 << 52) - 1) & ~(masks[0] | masks[1] | masks[2] | masks[3])
        bits = masks[0] | masks[1] << 52 | masks[2] << 104 | masks[3] << 156
        partial = any(m.bit_count() != 13 for m in masks)
        return dealer, Deal.from_bits(bits, partial=partial, validate=False)
    except (ValueError, BoardwrightError) as exc:
        raise r.error(f"bad deal {md!r}: {exc}", pos, board=number, field="md") from None


def _card_name(bit: int) -> str:
    i = bit.bit_length() - 1
    return "CDHS"[i // 13] + "23456789TJQKA"[i % 13]


def _pbn_call(r: Reader, call: str, pos: int, number: int) -> str:
    try:
        return str(Call.parse(call))
    except AuctionError:
        r.deviation(f"unknown call {call!r}", pos, board=number, field="mb")
        return call.strip().upper() or "-"


def _auction_and_play(r: Reader, rec: list[tuple[str, str, int]], board: Board) -> None:
    calls: list[str] = []
    notes: list[str] = []  # "n:text", in order
    refs: dict[int, int] = {}  # call index -> note number
    call_pos: list[int] = []
    cards: list[tuple[Card, int]] = []
    claim = None
    for key, value, p in rec:
        if key == "mb":
            alerted = "!" in value
            calls.append(_pbn_call(r, value.replace("!", ""), p, board.number))
            call_pos.append(p)
            if alerted:
                notes.append("alert")
                refs[len(calls) - 1] = len(notes)
        elif key == "an" and calls:
            text = value.strip()
            if len(calls) - 1 in refs:
                notes[refs[len(calls) - 1] - 1] = text or "alert"
            else:
                notes.append(text)
                refs[len(calls) - 1] = len(notes)
        elif key == "pc":
            try:
                cards.append((Card(_parse_card(value)), p))
            except ValueError:
                raise r.error(f"bad card {value!r}", p, board=board.number,
                              field="pc") from None
        elif key == "mc":
            claim = value.strip()
    dealer = board.dealer if board.dealer is not None else Seat.NORTH
    tags, sections = board.tags, board.sections
    contract = _contract(r, dealer, calls, call_pos, board.number)
    # Tags go in PBN's export order: Declarer, Contract, Result, then the sections.
    if contract is not None:
        tags["Declarer"] = contract.declarer.letter if contract.declarer is not None else ""
        tags["Contract"] = "Pass" if contract.is_passed_out else contract.pbn
    play: Play | None = None
    if claim is not None and claim.isdigit():
        tags["Result"] = claim
    if cards and contract is not None and contract.declarer is not None:
        # Through the rules of play: each card stays where the record puts it, and
        # what is wrong with one (played twice, by a seat that does not hold it) is said.
        play = Play(contract, board.deal, enforce=False)
        for card, p in cards:
            if play.record(card) is not None:
                r.deviation(f"{play.faults[-1]} (kept as the file has it)", p,
                            board=board.number, field="pc")
        if "Result" not in tags and len(play.completed_tricks) == 13:
            tags["Result"] = str(play.declarer_tricks)
    elif cards:
        r.deviation(f"{len(cards)} cards played (pc), but the auction names no declarer, "
                    "so the play has no opening leader and is not kept", cards[0][1],
                    board=board.number, field="pc")
    if calls:
        tags["Auction"] = dealer.letter
        words = [c + (f" ={refs[i]}=" if i in refs else "") for i, c in enumerate(calls)]
        sections["Auction"] = "\n".join(" ".join(words[i:i + 4])
                                        for i in range(0, len(words), 4))
        for n, text in enumerate(notes, 1):
            tags["Note" if n == 1 else f"Note#{n}"] = f"{n}:{text}"
    if play is not None:
        tags["Play"] = play.opening_leader.letter
        sections["Play"] = write_play(play)


def _contract(r: Reader, dealer: Seat, calls: list[str], positions: list[int],
              number: int) -> Contract | None:
    """The final contract, through :class:`~dealer.auction.Auction` (the one declarer rule);
    ``None`` while unfinished, or when a call breaks the rules (said, and kept as written)."""
    if not calls:
        return None
    auction = Auction(dealer)
    for text, p in zip(calls, positions, strict=True):
        try:
            auction.call(text)
        except AuctionError as e:
            r.deviation(f"{e} (the calls are kept as written; no contract is worked out)", p,
                        board=number, field="mb")
            return None
    return auction.contract


def _parse_card(text: str) -> int:
    t = text.strip().upper().replace("10", "T")
    if len(t) != 2 or t[0] not in _SUIT_SHIFT or t[1] not in _RANK_INDEX:
        raise ValueError(text)
    return _SUIT_SHIFT[t[0]] + _RANK_INDEX[t[1]]


# --------------------------------------------------------------------------- writing


def _md(board: Board) -> str:
    digit = _DIGIT_BY_DEALER[board.dealer] if board.dealer is not None else ""
    deal = board.deal
    if deal is None:
        return digit
    seats = _MD_ORDER[:3] if not deal.partial else _MD_ORDER
    out = []
    for seat in seats:
        mask = deal[seat].mask
        parts = []
        for suit, shift in (("S", 39), ("H", 26), ("D", 13), ("C", 0)):
            ranks = "".join("23456789TJQKA"[i] for i in range(12, -1, -1)
                            if mask >> (shift + i) & 1)
            parts.append(suit + ranks)
        out.append("".join(parts))
    return digit + ",".join(out)


def _pbn_tokens(section: str) -> list[str]:
    section = re.sub(r"\{[^}]*\}|;[^\n]*", " ", section)
    return section.split()


def _lin_calls(board: Board) -> list[str]:
    text = board.sections.get("Auction")
    if not text:
        return []
    notes: dict[str, str] = {}
    for key, value in board.tags.items():
        if key.split("#", 1)[0] == "Note":
            num, _, note = value.partition(":")
            notes[num.strip()] = note.strip()
    out: list[str] = []
    for tok in _pbn_tokens(text):
        m = re.fullmatch(r"=(\d+)=", tok)
        if m and out:
            note = notes.get(m.group(1), "")
            if not out[-1].endswith("!|"):
                out[-1] = out[-1][:-1] + "!|"
            if note and note != "alert":
                out.append(f"an|{note.replace('|', '/')}|")
            continue
        if tok.upper() == "AP":
            out.extend(["mb|p|"] * 3)
            continue
        if tok in ("-", "+", "*") or re.fullmatch(r"\$\d+|[!?]+", tok):
            continue  # no call: a filler, the end mark, NAGs and suffix annotations
        try:
            call = Call.parse(tok)
        except AuctionError:
            continue
        out.append(f"mb|{_lin_call(call)}{'!' if tok.endswith('!') else ''}|")
    return out


def _lin_call(call: Call) -> str:
    if call.kind == "bid":
        assert call.strain is not None
        return f"{call.level}{'N' if call.strain is Strain.NOTRUMP else call.strain.letter}"
    return {"pass": "p", "double": "d", "redouble": "r"}[call.kind]


def _lin_play(board: Board) -> tuple[list[str], int]:
    """``pc`` pairs in the order played (``pg`` after each trick), through the PBN play codec."""
    text = board.sections.get("Play")
    leader_text = board.tags.get("Play", "").strip()
    if not text or not leader_text:
        return [], 0
    try:
        leader = Seat.parse(leader_text)
        contract = Contract.parse(board.tags.get("Contract", ""))
        trump = contract.strain.suit if contract.strain is not None else None
    except BoardwrightError:
        trump = None
    try:
        cards = pbn_play_sequence(leader, text, trump)
    except BoardwrightError as e:
        warnings.warn(FormatWarning(f"board {board.number}: the play is not written: {e}"),
                      stacklevel=3)
        return [], 0
    out: list[str] = []
    for i, c in enumerate(cards, start=1):
        out.append(f"pc|{c}|")
        if i % 4 == 0:
            out.append("pg||")
    return out, len(cards)


def dumps(dealset: DealSet, *, unseal: bool = False) -> bytes:
    """Write one LIN line per board: ``qx``, names, ``md``, ``ah``, ``sv``, calls, play.

    A board with neither calls nor cards comes out as Big Deal writes it:
    ``qx|o1|md|3...|rh||ah|Board 1|sv|0|pg||``.
    """
    # A sealed set: no hands (PBN) or a refusal, unless told to unseal (sealing.py).
    dealset = for_writing(dealset, "lin", unseal=unseal)
    lines = []
    for board in dealset.boards:
        room = "c" if board.tags.get("Room", "").lower().startswith("c") else "o"
        parts = [f"qx|{room}{board.number}|"]
        # "?" is PBN's unknown, not a name
        names = [board.tags.get(s.title, "").replace("?", "") for s in _MD_ORDER]
        if any(names):
            parts.append("pn|" + ",".join(n.replace("|", "/").replace(",", " ")
                                          for n in names) + "|")
        parts.append(f"md|{_md(board)}|rh||ah|Board {board.number}|")
        if board.vulnerability is not None:
            parts.append(f"sv|{_SV_BY_VUL[board.vulnerability]}|")
        parts.extend(_lin_calls(board))
        parts.append("pg||")
        play, count = _lin_play(board)
        parts.extend(play)
        result = board.tags.get("Result", "").strip()
        # A result with no cards played is a claim from the start (mc with no pc), as BBO
        # writes a board settled before the lead: dropping it would lose the result.
        if count < 52 and result.isdigit():
            parts.append(f"mc|{result}|")
        lines.append("".join(parts))
    return "".join(line + "\n" for line in lines).encode("utf-8")


FORMAT = Format(
    name="lin",
    extensions=("lin",),
    sniff=sniff,
    loads=loads,
    dumps=dumps,
    description="Bridge Base Online LIN",
)
