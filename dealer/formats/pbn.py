"""PBN 2.1 (Portable Bridge Notation): reader and writer.

The reader follows the PBN 2.1 standard (https://www.tistis.nl/pbn/pbn_v21.txt):

* tag pairs ``[Name "value"]`` with the string escapes ``\\"`` and ``\\\\``;
* comments ``{...}`` (may span lines) and ``;`` to the end of the line;
* ``%`` directive lines (``% PBN 2.1``, ``% EXPORT``), kept in
  ``DealSet.meta["%"]`` so a write reproduces them; boardwright's own
  ``% boardwright copies N`` is also read into ``DealSet.meta["Copies"]``
  (and written from it);
* games separated by empty lines, any number per file;
* value inheritance: ``"#"`` is the previous game's value of the same tag, and
  ``"##text"`` means ``text`` here *and* in every following game that omits
  the tag (our reading of the standard's "##", as in Tis Veugen's reference
  checker);
* sections: the text after a tag (``Auction``, ``Play``, and the table tags
  ``OptimumResultTable``, ``ScoreTable``, ``TotalScoreTable`` ...) is kept raw
  in ``Board.sections[tag]`` while the tag's own value (the first seat, or the
  table's column header) stays in ``Board.tags``.

``Board``, ``Dealer``, ``Vulnerable`` and ``Deal`` map to the model. Every
other tag is kept in ``Board.tags`` in file order; a repeated tag (``Note``)
is keyed ``Note#2``, ``Note#3`` ... so none is lost. Event-level tags that are
the same in every game that has them (``Event``, ``Site``, ``Date`` ...) are
also put in ``DealSet.meta``.

A game without a ``Board`` tag and without a ``Deal`` (as rpbridge.net files
write the second table of a board) is read as another table's play of the
previous game's board: it takes that board's number, deal, dealer and
vulnerability, with one warning per file.

>>> ds = loads(b'[Board "3"]\\n[Deal "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"]\\n')
>>> b = ds.boards[0]
>>> b.number, b.dealer.letter, b.vulnerability.value
(3, 'S', 'EW')
>>> print(dumps(ds).decode().splitlines()[0])
[Board "3"]
"""

from __future__ import annotations

import codecs
import re
import warnings
from collections.abc import Iterator

from dealer.board import MAX_BOARD, Board, DealSet
from dealer.cards import Card
from dealer.deal import Deal
from dealer.errors import BoardwrightError, FormatError, FormatWarning
from dealer.formats import Format
from dealer.formats.sealing import PBN_COMMENT, for_writing
from dealer.seats import Seat, Vulnerability

__all__ = ["FORMAT", "loads", "dumps", "sniff", "check_masks", "KNOWN_TAGS", "MANDATORY_TAGS"]

#: The 15 tags of PBN's export format, in export order.
MANDATORY_TAGS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South",
                  "Dealer", "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result")

#: Tags the PBN 2.1 standard defines, plus the Bridge Composer extensions in wide use.
KNOWN_TAGS = frozenset(MANDATORY_TAGS + (
    "Annotator", "AnnotatorNA", "Auction", "BidSystemEW", "BidSystemNS", "Competition",
    "Description", "EastNA", "EastType", "EventDate", "EventSponsor", "FrenchMP", "Generator",
    "Hidden", "HomeTeam", "Mode", "NorthNA", "NorthType", "Note", "Play", "Room", "Round",
    "Score", "ScoreIMP", "ScoreMP", "ScorePercentage", "ScoreRubber", "ScoreRubberHistory",
    "Section", "SouthNA", "SouthType", "Stage", "Table", "Termination", "Time", "TimeCall",
    "TimeCard", "TimeControl", "UTCDate", "UTCTime", "VisitTeam", "WestNA", "WestType",
    "Application", "DealId", "PairEW", "PairNS",
    "ActionTable", "AuctionTimeTable", "InstantScoreTable", "PlayTimeTable", "ScoreTable",
    "TotalScoreTable", "OptimumScore", "OptimumPlayTable", "OptimumResultTable",
    # Bridge Composer / Ruter / Big Deal extensions seen in real files
    "DoubleDummyTricks", "ParContract", "OptimumContract", "BCFlags",
    # boardwright's own: a sealed set (dealer/generate.py writes it)
    "Sealed",
))

#: Event-level tags copied to DealSet.meta when every game that has them agrees.
EVENT_TAGS = ("Generator", "Event", "Site", "Date", "EventDate", "EventSponsor", "Scoring",
              "Competition", "Application")

_MODEL_TAGS = frozenset(("Board", "Dealer", "Vulnerable", "Deal"))
_DEFAULT_DIRECTIVES = "% PBN 2.1\n% EXPORT"

# One token per match; the first character says which kind (see _parse).
#   tag:      [Name "value"]
#   comment:  {...} (may span lines) or ; to end of line
#   newline:  one or more line ends; two or more mean an empty line (game end)
#   percent:  a % directive, only at the start of a line
#   text:     section text, several lines at once while no line starts a tag/comment
#   other:    a lone [ { or " that starts nothing valid (an error)
_TOKEN = re.compile(
    r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\\n]|\\.)*)"\s*\]'
    r'|\{[^}]*\}'
    r'|;[^\n]*'
    r'|\n(?:[ \t\r]*\n)*[ \t\r]*'
    r'|(?:(?<=\n)|^)%[^\n]*'
    r'|[^\[\{;\n][^\[\{;\n]*(?:\n[ \t]*[^\s\[\{;%][^\[\{;\n]*)*'
    r'|.',
    re.S,
)
_UNESCAPE = re.compile(r'\\([\\"])')  # only \\ and \" are escapes; "\2R" stays as it is
_RANK_BIT = {c: 1 << i for i, c in enumerate("23456789TJQKA")}
_RANK_BIT.update({c.lower(): b for c, b in _RANK_BIT.items()})
_HOLDING_CACHE: dict[str, int] = {"": 0}


def sniff(data: bytes) -> int:
    """How sure we are that ``data`` is PBN: ``% PBN`` or tag-pair lines.

    >>> sniff(b'% PBN 2.1\\n'), sniff(b'[Event "x"]\\n'), sniff(b'qx|o1|')
    (100, 90, 0)
    """
    head = data[:4096].lstrip(b"\xef\xbb\xbf")
    if re.search(rb"(?m)^%\s*PBN\b", head):
        return 100
    if re.search(rb'(?m)^\s*\[[A-Za-z0-9_]+\s+"', head):
        return 90
    return 0


# --------------------------------------------------------------------------- reading


class Reader:
    """State of one read: the text, where it came from, and what to do with deviations.

    Shared with the LIN reader, so both report lines and deviations alike.
    """

    def __init__(self, text: str, source: str, strict: bool) -> None:
        self.text = text
        self.source = source
        self.strict = strict
        self.warned: set[str] = set()

    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def error(self, message: str, pos: int | None = None, *, board: object = None,
              field: str | None = None) -> FormatError:
        return FormatError(message, path=self.source,
                           line=None if pos is None else self.line_of(pos),
                           board=board, field=field)  # type: ignore[arg-type]

    def deviation(self, message: str, pos: int | None = None, *, board: object = None,
                  field: str | None = None, once: str | None = None) -> None:
        """A departure from the standard: an error when strict, else a warning."""
        err = self.error(message, pos, board=board, field=field)
        if self.strict:
            raise err
        if once is not None:
            if once in self.warned:
                return
            self.warned.add(once)
        warnings.warn(str(err), FormatWarning, stacklevel=4)


_CHARSET = re.compile(rb"(?im)^%[^\n]*\bcharset\s*=\s*\"?([A-Za-z0-9_.:-]+)")


def declared_charset(data: bytes) -> str | None:
    """The codec named by a ``%Content-type: ...; charset=X`` line (Bridge Composer's), if any.

    >>> declared_charset(b"% PBN 2.1\\n%Content-type: text/plain; charset=ISO-8859-1\\n")
    'iso8859-1'
    """
    m = _CHARSET.search(data[:2048])
    if not m:
        return None
    try:
        return codecs.lookup(m.group(1).decode("ascii")).name
    except LookupError:
        return None


def decode(data: bytes, source: str, strict: bool) -> str:
    """UTF-8 text (BOM dropped, CRLF made LF); latin-1 with a warning if not UTF-8.

    A ``charset=`` directive other than UTF-8 is honoured (Bridge Composer writes
    ``%Content-type: text/plain; charset=ISO-8859-1``).
    """
    charset = declared_charset(data)
    if charset is not None and charset != "utf-8":
        try:
            text = data.decode(charset)
        except UnicodeDecodeError as exc:
            raise FormatError(f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not "
                              f"valid {charset}, which the file's charset line declares",
                              path=source, line=data.count(b"\n", 0, exc.start) + 1) from None
        return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        msg = (f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8")
        if strict:
            raise FormatError(msg, path=source, line=line) from None
        warnings.warn(str(FormatError(msg + "; read the file as Latin-1", path=source,
                                      line=line)), FormatWarning, stacklevel=3)
        text = data.decode("latin-1")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def loads(data: bytes, *, source: str = "<data>", strict: bool = False) -> DealSet:
    """Read PBN bytes into a :class:`DealSet` (see the module docstring)."""
    r = Reader(decode(data, source, strict), source, strict)
    return _parse(r)


def _parse(r: Reader) -> DealSet:
    text = r.text
    directives: list[str] = []
    games: list[list[list]] = []  # game -> items [name, value, tag_pos, sect_start, sect_end]
    items: list[list] = []
    last: list | None = None  # the item whose section text is being collected
    for m in _TOKEN.finditer(text):
        start = m.start()
        c = text[start]
        if c == "[":
            name = m.group(1)
            if name is None:
                _bad_bracket(r, start, items)
            if last is not None:
                last[4] = start
            value = m.group(2)
            if "\\" in value:
                value = _UNESCAPE.sub(r"\1", value)
            last = [name, value, start, m.end(), m.end()]
            items.append(last)
        elif c == "\n":
            if last is not None:
                last[4] = start
            if m.group().count("\n") > 1 and items:  # an empty line ends the game
                games.append(items)
                items = []
                last = None
        elif c == "{" or c == ";":
            if c == "{" and not m.group().endswith("}"):
                raise r.error("unterminated comment: '{' has no closing '}'", start,
                              board=_board_hint(items))
            if last is not None:
                last[4] = m.end()
        elif c == "%" and (start == 0 or text[start - 1] == "\n"):
            if last is not None:
                # An escape line inside a game stays where it is, in the raw text after
                # the tag before it, so a write puts it back in that game.
                last[4] = m.end()
            else:
                directives.append(m.group())
        else:
            if c == "{":
                raise r.error("unterminated comment: '{' has no closing '}'", start,
                              board=_board_hint(items))
            if c == '"' or c == "]":
                r.deviation(f"stray {c!r} outside a tag", start, board=_board_hint(items))
            if last is None:
                if m.group().strip():
                    r.deviation(f"text outside any tag ignored: {m.group().strip()[:30]!r}",
                                start, board=_board_hint(items), once="stray")
            else:
                last[4] = m.end()
    if items:
        games.append(items)
    boards = _build_boards(r, games)
    ds = DealSet(boards=boards)
    # "" records that the file had no directives, so a write adds none.
    ds.meta["%"] = "\n".join(directives)
    _fill_meta(ds)
    copies = _copies_directive(directives)
    if copies is not None:
        ds.meta["Copies"] = copies
    # PBN cannot hide hands, so boardwright writes a sealed set without them and
    # tags each board [Sealed "Yes"]; reading such a file gives a sealed set again.
    ds.sealed = bool(boards) and all(b.tags.get("Sealed") == "Yes" for b in boards)
    return ds


def _board_hint(items: list[list]) -> str | None:
    for it in items:
        if it[0] == "Board":
            return it[1]
    return None


def _bad_bracket(r: Reader, pos: int, items: list[list]) -> None:
    """A '[' that does not start a well-formed tag pair: say why, precisely."""
    rest = r.text[pos:pos + 200].split("\n", 1)[0]
    board = _board_hint(items)
    m = re.match(r'\[[ \t]*([A-Za-z0-9_]+)[ \t]*"((?:[^"\\]|\\.)*)$', rest)
    if m:
        raise r.error("unterminated string (the file may be truncated)", pos, board=board,
                      field=m.group(1))
    m = re.match(r'\[[ \t]*([A-Za-z0-9_]+)[ \t]*"(?:[^"\\]|\\.)*"[ \t]*$', rest)
    if m:
        raise r.error("tag pair has no closing ']' (the file may be truncated)", pos,
                      board=board, field=m.group(1))
    raise r.error(f"malformed tag pair {rest[:40]!r}", pos, board=board)


def _section(r: Reader, item: list) -> str | None:
    raw = r.text[item[3]:item[4]]
    if not raw or raw.isspace():
        return None
    if raw[0] == "\n":
        raw = raw[1:]
    # A section that starts on the tag's own line (a comment after the tag) keeps its
    # leading blank, so the writer puts it back on that line.
    return raw.rstrip("\n")


def _build_boards(r: Reader, games: list[list[list]]) -> list[Board]:
    boards: list[Board] = []
    previous: dict[str, str] = {}  # the previous game's values, for "#"
    carried: dict[str, str] = {}  # "##" values carried into later games that omit the tag
    headless: list[int] = []
    for items in games:
        values: dict[str, str] = {}
        tags: dict[str, str] = {}
        sections: dict[str, str] = {}
        model: dict[str, tuple[str, int]] = {}
        board_hint = _board_hint(items)
        for item in items:
            name, value, pos = item[0], item[1], item[2]
            if value == "#":
                if name not in previous:
                    r.deviation(f'"#" but no earlier game has a {name} tag', pos,
                                board=board_hint, field=name)
                value = previous.get(name, "")
            elif value.startswith("##"):
                value = value[2:]
                carried[name] = value
            if name not in KNOWN_TAGS:
                r.deviation(f"unknown tag {name!r} (kept as it is)", pos, board=board_hint,
                            field=name, once=f"tag:{name}")
            key = name
            if key in values:
                if name != "Note":
                    r.deviation(f"tag {name} appears twice in one game", pos,
                                board=board_hint, field=name, once=f"dup:{name}")
                n = 2
                while f"{name}#{n}" in values:
                    n += 1
                key = f"{name}#{n}"
            values[key] = value
            sect = _section(r, item)
            if name in _MODEL_TAGS and key == name:
                model[name] = (value, pos)
            else:
                tags[key] = value
            if sect is not None:
                sections[key] = sect
        for name, value in carried.items():
            if name not in values:
                values[name] = value
                if name in _MODEL_TAGS:
                    model[name] = (value, items[0][2])
                else:
                    tags[name] = value
        previous = values
        board = _make_board(r, model, tags, sections, boards, items[0][2], headless)
        boards.append(board)
    if headless:
        r.deviation(f"{len(headless)} game(s) have no Board tag; each was read as another "
                    "table's play of the board before it", headless[0], field="Board")
    return boards


def _make_board(r: Reader, model: dict[str, tuple[str, int]], tags: dict[str, str],
                sections: dict[str, str], boards: list[Board], game_pos: int,
                headless: list[int]) -> Board:
    prev = boards[-1] if boards else None
    number: int | None = None
    if "Board" in model:
        value, pos = model["Board"]
        digits = value.strip()
        if digits.isdigit() and len(digits) > len(str(MAX_BOARD)) or \
                digits.isdigit() and int(digits) > MAX_BOARD:
            raise r.error(f"board number {digits[:30]} is too large (at most {MAX_BOARD:,})",
                          pos, field="Board")
        if digits.isdigit() and int(digits) >= 1:
            number = int(digits)
        elif digits not in ("", "?"):
            m = re.match(r"\s*(\d+)", value)
            r.deviation(f"board number {value!r} is not a whole number of 1 or more", pos,
                        field="Board")
            if m and int(m.group(1)) >= 1:
                number = int(m.group(1))
    inherit = False
    if number is None:
        if prev is not None and "Deal" not in model:
            number, inherit = prev.number, True
        else:
            number = prev.number + 1 if prev is not None else 1
        headless.append(game_pos)
    deal: Deal | None = None
    if "Deal" in model:
        value, pos = model["Deal"]
        deal = _parse_deal(r, value, pos, number)
    elif inherit and prev is not None:
        deal = prev.deal
    dealer: Seat | None = None
    if "Dealer" in model:
        value, pos = model["Dealer"]
        v = value.strip()
        if v and v != "?":
            try:
                dealer = Seat.parse(v)
            except BoardwrightError:
                r.deviation(f"unknown dealer {value!r}; the board number's dealer is used",
                            pos, board=number, field="Dealer")
    elif inherit and prev is not None:
        dealer = prev.dealer
    vul: Vulnerability | None = None
    if "Vulnerable" in model:
        value, pos = model["Vulnerable"]
        v = value.strip()
        if v and v != "?":
            try:
                vul = Vulnerability.parse(v)
            except BoardwrightError:
                r.deviation(f"unknown vulnerability {value!r}; the board number's is used",
                            pos, board=number, field="Vulnerable")
    elif inherit and prev is not None:
        vul = prev.vulnerability
    return Board(number, deal, dealer, vul, tags, sections)


def _holding_bits(h: str) -> int:
    bits = _HOLDING_CACHE.get(h)
    if bits is None:
        bits = 0
        for ch in h:
            b = _RANK_BIT.get(ch)
            if b is None:
                raise ValueError(f"{ch!r} is not a rank")
            if bits & b:
                raise ValueError(f"rank {ch.upper()} twice in one suit")
            bits |= b
        if len(_HOLDING_CACHE) < 50000:
            _HOLDING_CACHE[h] = bits
    return bits


def check_masks(masks: list[int]) -> None:
    """Raise ValueError naming the fault if four hand masks (N, E, S, W) cannot be a deal:
    a card in two hands, a hand over 13 cards, more than 52 cards.

    >>> check_masks([1, 1, 0, 0])
    Traceback (most recent call last):
    ValueError: ♣2 is in two hands (North and East)
    """
    counts = [m.bit_count() for m in masks]
    union = masks[0] | masks[1] | masks[2] | masks[3]
    if union.bit_count() != sum(counts):
        for i in range(4):
            for j in range(i + 1, 4):
                clash = masks[i] & masks[j]
                if clash:
                    card = Card((clash & -clash).bit_length() - 1)
                    raise ValueError(f"{card.symbol} is in two hands "
                                     f"({Seat(i).title} and {Seat(j).title})")
    total = sum(counts)
    if total > 52 or max(counts) > 13:
        over = [f"{Seat(i).title} has {c}" for i, c in enumerate(counts) if c > 13]
        raise ValueError(f"{total} cards" + (f" ({', '.join(over)})" if over else "")
                         + "; a deal has 52, 13 in each hand")


def _parse_deal(r: Reader, value: str, pos: int, number: int) -> Deal | None:
    """A PBN deal string to a Deal: full, partial (``-`` hands, short hands) or None."""
    s = value.strip()
    if not s or s == "?":
        return None
    err = None
    try:
        first = Seat.parse(s[0]) if len(s) > 1 and s[1] == ":" else None
        if first is None:
            raise ValueError("it must start with the first seat and a colon, like 'N:'")
        hands = s[2:].split()
        if len(hands) != 4:
            raise ValueError(f"it has {len(hands)} hands, not 4")
        masks = [0, 0, 0, 0]
        unknown = []
        for i, hand in enumerate(hands):
            seat = (first + i) % 4
            if hand == "-":
                unknown.append(seat)
                continue
            suits = hand.replace("10", "T").split(".")
            if len(suits) != 4:
                raise ValueError(f"{Seat(seat).title}'s hand {hand!r} does not have "
                                 "four suits separated by dots")
            try:
                m = (_holding_bits(suits[0]) << 39 | _holding_bits(suits[1]) << 26
                     | _holding_bits(suits[2]) << 13 | _holding_bits(suits[3]))
            except ValueError as exc:
                raise ValueError(f"{Seat(seat).title}'s hand {hand!r}: {exc}") from None
            masks[seat] = m
        check_masks(masks)
        total = sum(m.bit_count() for m in masks)
        if len(unknown) == 1 and total == 39:  # PBN lets the fourth hand be implied
            masks[unknown[0]] = ((1 << 52) - 1) & ~(masks[0] | masks[1] | masks[2] | masks[3])
            unknown = []
        bits = masks[0] | masks[1] << 52 | masks[2] << 104 | masks[3] << 156
        partial = bool(unknown) or any(m.bit_count() != 13 for m in masks)
        # check_masks did Deal.validate's work, faster; a big file has thousands of deals.
        return Deal.from_bits(bits, partial=partial, validate=False)
    except BoardwrightError as exc:
        err = str(exc)
    except ValueError as exc:
        err = str(exc)
    raise r.error(f"bad deal {value!r}: {err}", pos, board=number, field="Deal")


#: boardwright's own directive: how many copies of each board to deal. PBN has no
#: tag for it, and a directive is per file (as copies are) and ignored by other
#: programs, which skip ``%`` lines they do not know (PBN 2.1's escape mechanism).
_COPIES = re.compile(r"%\s*boardwright\s+copies\s+(\d+)\s*$", re.IGNORECASE)


def _copies_directive(directives: list[str]) -> str | None:
    """``meta["Copies"]`` from a ``% boardwright copies N`` line (the last one wins)."""
    found = None
    for line in directives:
        m = _COPIES.match(line.strip())
        if m:
            found = str(int(m.group(1)))
    return found


_CHARSET_TEXT = re.compile(r"(?i)charset\s*=\s*\"?[A-Za-z0-9_.:-]+\"?")


def _directives(dealset: DealSet) -> str:
    """The directive lines to write: the set's own, with its copies directive kept current."""
    # The writer writes UTF-8, so a charset line read from the file is made to say so.
    lines = [_CHARSET_TEXT.sub("charset=UTF-8", line)
             for line in dealset.meta.get("%", _DEFAULT_DIRECTIVES).split("\n")
             if line and not _COPIES.match(line.strip()) and line.strip() != PBN_COMMENT]
    copies = dealset.meta.get("Copies")
    if copies is not None:
        lines.append(f"% boardwright copies {copies}")
    if dealset.sealed:
        # Said where a person opening the file looks first (PBN has no sealed tag).
        lines.append(PBN_COMMENT)
    return "\n".join(lines)


def _fill_meta(ds: DealSet) -> None:
    for name in EVENT_TAGS:
        seen: set[str] = set()
        for b in ds.boards:
            v = b.tags.get(name)
            if v is not None:
                seen.add(v)
                if len(seen) > 1:
                    break
        if len(seen) == 1:
            ds.meta[name] = seen.pop()


# --------------------------------------------------------------------------- writing


def escape(value: str) -> str:
    r"""A tag value with ``"`` escaped, and ``\`` doubled where it would be misread.

    PBN files write table headers as ``Result\2R`` with one backslash, so a
    backslash is doubled only before ``\``, ``"`` or the end of the value.

    >>> print(escape('say "hi"'), escape('Result\\2R'), escape('a\\'))
    say \"hi\" Result\2R a\\
    """
    if "\\" in value:
        value = _BACKSLASH.sub(r"\\\\", value)
    if '"' in value:
        value = value.replace('"', '\\"')
    return value


_BACKSLASH = re.compile(r'\\(?=[\\"]|$)')


def _model_value(board: Board, name: str) -> str | None:
    if name == "Board":
        return str(board.number)
    if name == "Dealer":
        return board.dealer.letter if board.dealer is not None else None
    if name == "Vulnerable":
        return board.vulnerability.value if board.vulnerability is not None else None
    if board.deal is None:
        return None
    return deal_to_pbn(board.deal)


_HOLDING_TEXT = ["".join("23456789TJQKA"[i] for i in range(12, -1, -1) if bits >> i & 1)
                 for bits in range(1 << 13)]


def deal_to_pbn(deal: Deal) -> str:
    """``deal.to_pbn()`` from North, by table look-up: writing big files stays quick.

    >>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
    >>> deal_to_pbn(d) == d.to_pbn()
    True
    """
    bits, text = deal.bits, _HOLDING_TEXT
    hands = []
    for seat in range(4):
        m = bits >> (52 * seat) & ((1 << 52) - 1)
        if not m and deal.partial:
            hands.append("-")
            continue
        hands.append(f"{text[m >> 39 & 8191]}.{text[m >> 26 & 8191]}."
                     f"{text[m >> 13 & 8191]}.{text[m & 8191]}")
    return "N:" + " ".join(hands)


_CANON = {name: i for i, name in enumerate(MANDATORY_TAGS)}


def _ordered(board: Board, meta: dict[str, str], fill: bool
             ) -> Iterator[tuple[str, str, str | None]]:
    """(name, value, section) in the board's tag order, with the model's tags (and, when
    ``fill``, the missing mandatory tags) slotted in where PBN's export order puts them."""
    pending = [n for n in MANDATORY_TAGS if n in _MODEL_TAGS or (fill and n not in board.tags)]
    for key, value in board.tags.items():
        name = key.split("#", 1)[0]
        rank = _CANON.get(name)
        if rank is not None:
            while pending and _CANON[pending[0]] < rank:
                yield from _pending(board, meta, pending.pop(0))
        yield name, value, board.sections.get(key)
    while pending:
        yield from _pending(board, meta, pending.pop(0))
    if fill:
        # Event-level facts that PBN has a tag for (Generator, EventDate ...) travel
        # with every game, as Big Deal writes them.
        for name in EVENT_TAGS:
            if name not in _CANON and name in meta and name not in board.tags:
                yield name, meta[name], None


def _pending(board: Board, meta: dict[str, str], name: str
             ) -> Iterator[tuple[str, str, str | None]]:
    if name in _MODEL_TAGS:
        value = _model_value(board, name)
        if value is not None:
            yield name, value, board.sections.get(name)
    else:
        yield name, meta.get(name, "?"), None


def dumps(dealset: DealSet, *, unseal: bool = False) -> bytes:
    """Write PBN 2.1: the directives, then one game per board, each ended by an empty line.

    Every tag a board holds is written, in its order, with ``Board``,
    ``Dealer``, ``Vulnerable`` and ``Deal`` from the model. A set that was not
    read from PBN (no ``meta["%"]``) is written in export format: each board
    also gets the mandatory tags it lacks, from ``dealset.meta`` or ``"?"``, as
    the standard asks. A set read from PBN is written with just its own tags.
    The deal is written from North.
    """
    # A sealed set: no hands (PBN) or a refusal, unless told to unseal (sealing.py).
    dealset = for_writing(dealset, "pbn", unseal=unseal)
    fill = "%" not in dealset.meta
    directives = _directives(dealset)
    out: list[str] = [directives] if directives else []
    for board in dealset.boards:
        for name, value, section in _ordered(board, dealset.meta, fill):
            tag = f'[{name} "{escape(value)}"]'
            if section is None:
                out.append(tag)
            elif section[:1] in (" ", "\t"):  # it began on the tag's own line
                out.append(tag + section)
            else:
                out.append(tag)
                out.append(section)
        out.append("")
    return ("\n".join(out) + "\n").encode("utf-8")


FORMAT = Format(
    name="pbn",
    extensions=("pbn",),
    sniff=sniff,
    loads=loads,
    dumps=dumps,
    description="Portable Bridge Notation 2.1",
)
