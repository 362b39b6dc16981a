"""Read barcoded cards and board stickers, with a zxing-cpp or a zbar back-end.

Both back-ends sit behind one interface and are restricted to the one
symbology the deck is printed with. A frame is accepted only when every
symbol in it decodes to the *same* payload, that payload parses (CRC, kind,
range: see :mod:`vision.payload`) and, if a deck id is expected, carries it.
Any second distinct text, valid or not, is a reject: the research found every
ghost payload either invalid or beside the true one.

A card turned 180° reads the same: the code is printed on both ends and both
decoders find symbols in any orientation, so "upside down" never applies to
barcoded cards (see docs/vision.md).

>>> from dealer.cards import Card
>>> from vision.render import render_card_frame
>>> f = render_card_frame(Card.parse("TD"), design="qr", deck_id=7, seed=1)
>>> BarcodeReader("zxing", "qr", deck_id=7).read(f).label
'DT'
>>> BarcodeReader("zxing", "qr", deck_id=8).read(f).label
'not a card of this deck'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import cv2
import numpy as np

from dealer.cards import Card
from dealer.errors import BoardwrightError
from vision import payload
from vision.code_layout import CodeLayout
from vision.decision import Outcome, Read, Reason, Reject
from vision.locate import FACE_H, FACE_W, Located, locate

BACKENDS = ("zxing", "zbar")
SYMBOLOGIES = ("qr", "code128")


#: A decoded symbol: its text, and its centre (x, y) in the frame.
Symbol = tuple[str, tuple[float, float]]


def _zxing(symbology: str) -> Callable[[np.ndarray, bool | None], list[Symbol]]:
    import zxingcpp

    fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode if symbology == "qr"
                                  else zxingcpp.BarcodeFormat.Code128)

    def read(img: np.ndarray, transposed: bool) -> list[Symbol]:
        # Our symbols are dark on light, so the inverted pass is wasted time; and at
        # the gate a symbol is never so large that a downscaled copy reads better.
        found = zxingcpp.read_barcodes(img, formats=fmt, try_invert=False, try_rotate=False,
                                       try_downscale=False, text_mode=zxingcpp.TextMode.Plain)
        out = []
        for b in found:
            if b.valid:
                p = b.position
                x = (p.top_left.x + p.top_right.x + p.bottom_right.x + p.bottom_left.x) / 4
                y = (p.top_left.y + p.top_right.y + p.bottom_right.y + p.bottom_left.y) / 4
                out.append((b.text, (float(y), float(x)) if transposed else (float(x), float(y))))
        return out

    def decode(grey: np.ndarray, landscape: bool | None = None) -> list[Symbol]:
        if symbology == "qr":  # a QR symbol is found at any angle in one pass
            return read(grey, False)
        # A 1D code is scanned along rows, and printed across each end of the card,
        # so it runs across the card's long side. A card lying long side across the
        # frame (the gate) is read on the transposed frame, one standing up as it is;
        # when the outline is unknown, transposed first and then as it is. zxing's
        # own try_rotate scans both every time, for three times the cost.
        if landscape is True:
            return read(cv2.transpose(grey), True)
        if landscape is False:
            return read(grey, False)
        return read(cv2.transpose(grey), True) or read(grey, False)

    return decode


def _zbar(symbology: str) -> Callable[[np.ndarray, bool | None], list[Symbol]]:
    from pyzbar import pyzbar

    sym = pyzbar.ZBarSymbol.QRCODE if symbology == "qr" else pyzbar.ZBarSymbol.CODE128

    def decode(grey: np.ndarray, landscape: bool | None = None) -> list[Symbol]:
        if symbology == "code128":
            # zbar's 1D scanner is noise-limited; a 1 px blur restores it (research §3.2).
            grey = cv2.GaussianBlur(grey, (0, 0), 1.0)
        out: list[Symbol] = []
        for r in pyzbar.decode(grey, symbols=[sym]):
            if r.polygon:
                centre = (float(np.mean([q.x for q in r.polygon])), float(np.mean([q.y for q in r.polygon])))
            else:
                centre = (r.rect.left + r.rect.width / 2, r.rect.top + r.rect.height / 2)
            try:
                out.append((r.data.decode("ascii"), centre))
            except UnicodeDecodeError:
                out.append((repr(r.data), centre))  # still a distinct (invalid) payload
        return out

    return decode


#: px of the 300×420 face along the card: the sum of a QR face's two symbols' middles may
#: be this far from the face's length (rendered single cards: 3 at most; a thumb over a
#: code, 14; two cards stuck together 8-60 px apart: 36 typically).
QR_OFF_CENTRE = 20.0
#: px of the face along the card: how far a Code128 face's two codes' bars may lie from
#: each other's place (see :meth:`BarcodeReader._bars_apart`). Rendered single cards: 2 at
#: most; a thumb over a long edge, which pulls the outline askew, 23 at most in 490; two cards
#: stuck together 8-60 px apart: 29 typically (issue 15, eighth pass).
BARS_APART = 26.0
#: px of the face along the card: how much closer together a face's two codes may lie
#: than its layout prints them (:meth:`BarcodeReader._closer`; vision.code_layout).
CODES_CLOSER = 2.0
#: px of the face: the half-width of a QR symbol's middle columns looked at for its rows,
#: how far from where it is printed a code not decoded is sought, and the light rows that
#: are its quiet zone.
QR_MIDDLE, QR_SOUGHT, QR_QUIET_ROWS = 24, 130, 10
#: px of the face: the half-width of the face's middle searched for a code's bars, and
#: the fewest rows a run of bars has (a code's bars are 60 rows long).
BAR_WINDOW, BAR_MIN_ROWS = 60, 20


class BarcodeReader:
    """Read one frame: a :class:`Read` of a card (or board) or a :class:`Reject`.

    ``expect`` is ``"card"`` at the dealing gate or ``"board"`` for board stickers.
    """

    def __init__(self, backend: str = "zxing", symbology: str = "qr", *,
                 deck_id: int | None = None, expect: str = "card", photo: bool = False,
                 layout: CodeLayout | None = None) -> None:
        """``photo``: the frames are photographs of a card on a table, not the gate's
        (:func:`vision.locate.locate`): no card can lie under the card there.
        ``layout``: where the deck's faces print their codes (:mod:`vision.code_layout`:
        print-deck's faces, the renderer's, or a sticker deck's learned card by card with
        :func:`learn_layout`); at the gate, a card whose codes lie closer together than
        that is two cards stuck together. ``None``: not checked."""
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
        if symbology not in SYMBOLOGIES:
            raise ValueError(f"symbology must be one of {SYMBOLOGIES}, not {symbology!r}")
        self.backend, self.symbology, self.deck_id, self.expect = backend, symbology, deck_id, expect
        self.photo = photo
        self.layout = layout
        self.method = f"barcode/{symbology}/{backend}"
        self._decode = (_zxing if backend == "zxing" else _zbar)(symbology)

    def texts(self, frame: np.ndarray, grey: np.ndarray | None = None,
              landscape: bool | None = None) -> list[str]:
        """Every decoded text in the frame, as the back-end returned it.

        ``landscape`` (the card's long side across the frame, or not) tells a 1D
        code's direction when the card's outline is known.
        """
        return [text for text, _ in self.symbols(frame, grey, landscape)]

    def symbols(self, frame: np.ndarray, grey: np.ndarray | None = None,
                landscape: bool | None = None) -> list[Symbol]:
        """Every decoded symbol in the frame: its text, and its centre (x, y) in the frame."""
        if grey is None:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return self._decode(np.ascontiguousarray(grey), landscape)

    def read(self, frame: np.ndarray) -> Outcome:
        return self.judge(*self.look(frame))

    def look(self, frame: np.ndarray) -> tuple[Located | Reject, list[Symbol]]:
        """The card's outline and the symbols decoded in ``frame``: what :meth:`judge` reads."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        # The outline first: it says which way a card lies (a Code128 is then read
        # in one direction only), and whether a second card is on the gate.
        found = locate(frame, grey, photo=self.photo)  # the outline only: the face is never warped here
        landscape = None
        if isinstance(found, Located):
            w, h = np.ptp(found.quad, axis=0)
            landscape = bool(w > h)
        return found, self.symbols(frame, grey, landscape)

    def judge(self, found: Located | Reject, symbols: list[Symbol]) -> Outcome:
        """The read of a frame whose outline and symbols :meth:`look` gave."""
        texts = [text for text, _ in symbols]
        distinct = sorted(set(texts))
        if not distinct:
            return _why_unread(found)
        parsed = [payload.parse(t) for t in distinct]
        valid = [p for p in parsed if p is not None]
        if len(distinct) > 1:
            if len(valid) > 1:
                return Reject(Reason.TWO_PAYLOADS, f"{len(valid)} different payloads in one frame: "
                              + ", ".join(distinct))
            return Reject(Reason.AMBIGUOUS, "a second, invalid payload beside "
                          + ", ".join(repr(t) for t in distinct))
        p = valid[0] if valid else None
        if p is None:
            return Reject(Reason.NOT_THIS_DECK, f"payload {distinct[0]!r} is not a boardwright code")
        if self.deck_id is not None and p.deck_id != self.deck_id:
            return Reject(Reason.NOT_THIS_DECK, f"card of deck {p.deck_id}, expected deck {self.deck_id}")
        ev = {"payload": distinct[0], "symbols": len(texts), "deck_id": p.deck_id,
              "backend": self.backend, "symbology": self.symbology}
        if self.expect == "board":
            if p.board is None:
                return Reject(Reason.NOT_THIS_DECK, "a card's code, not a board sticker")
            return Read(None, self.method, ev, board=p.board)
        if p.is_joker:
            return Reject(Reason.JOKER, f"joker of deck {p.deck_id}")
        if p.card is None:
            return Reject(Reason.NOT_THIS_DECK, f"board sticker {p.board}, not a card")
        # A second card whose codes are hidden under the first is still a second
        # card: the outline decides (issue 15: 27 of 70 such frames were read). The
        # code is taken only when the outline is one card's (or one card's too small to
        # read its index, which the codes do not need). An outline that is not one
        # card's may be two: a second card reaching past the frame's edge leaves an L
        # too small to be called two cards (issue 15, seventh pass: three double feeds
        # read as their top card at bench seed 41).
        if isinstance(found, Reject) and found.reason is Reason.TWO_CARDS:
            return Reject(Reason.TWO_CARDS, f"{p.card} decoded, but the outline shows two cards "
                          f"({found.detail})")
        if isinstance(found, Reject) and found.reason is not Reason.TOO_SMALL:
            return Reject(found.reason, f"{p.card} decoded, but its outline is not one card's, so a "
                          f"second card cannot be ruled out ({found.detail})")
        if isinstance(found, Located) and (off := self._off_centre(found, symbols)) is not None:
            return Reject(Reason.TWO_CARDS, f"{p.card} decoded, but its two codes are not placed as one "
                          f"card's: their middle is {off:.0f} px off the outline's along the card "
                          "(another card under this one?)")
        closer = self._closer(found, symbols, int(p.card)) if isinstance(found, Located) else None
        if closer is not None:
            ev["codes_closer_px"] = round(closer, 1)
        if closer is not None and closer > CODES_CLOSER:
            return Reject(Reason.TWO_CARDS, f"{p.card} decoded, but its two codes lie {closer:.0f} px closer "
                          f"together than {self.layout.name if self.layout else 'its layout'} print them: the "
                          "outline is longer than one card (another card stuck under this one?)")
        if isinstance(found, Located) and (apart := self._bars_apart(found)) is not None:
            # Not "two cards": an outline drawn wide of the card (heavy glare at its edge)
            # places the codes off too, and this cannot tell the two apart.
            return Reject(Reason.DISAGREE, f"{p.card} decoded, but its two codes are not placed as one "
                          f"card's: their bars lie {apart:.0f} px off each other's place along the card, "
                          "so the outline is not one card's (another card under this one, or glare at "
                          "its edge?)")
        return Read(p.card, self.method, ev)

    def _closer(self, found: Located, symbols: list[Symbol], card: int) -> float | None:
        """How much closer together, along the card, the two codes' outer rows lie than
        :attr:`layout` prints them for ``card`` (px of the face; < 0: further apart).
        ``None`` unless at the gate, with a layout that knows the card, and both codes'
        rows measured."""
        if self.layout is None or self.photo or (expected := self.layout.outer_of(card)) is None:
            return None
        outer = self.outer(found, symbols)
        return None if outer is None else float(expected - outer)

    def outer(self, found: Located, symbols: list[Symbol]) -> float | None:
        """How far apart, along the card, the outer rows of the face's two codes' dark
        modules lie (px of the face; :class:`vision.code_layout.CodeLayout`), or ``None``
        when both cannot be measured."""
        if self.symbology == "code128":
            blocks = _bar_blocks(found)
            if len(blocks) != 2:
                return None
            return float(blocks[1][1] - blocks[0][0] + 1)
        if len(symbols) not in (1, 2):
            return None
        pts = np.array([[c for _, c in symbols]], np.float32)
        middles = [(float(x), float(y)) for x, y in cv2.perspectiveTransform(pts, found.face_transform)[0]]
        rows = [_qr_rows(found, x, y) for x, y in middles]
        if len(middles) == 1:  # the other code, not decoded (blur), is sought where it is printed
            rows.append(_qr_rows(found, FACE_W - middles[0][0], FACE_H - middles[0][1], reach=QR_SOUGHT))
        if rows[0] is None or rows[1] is None:
            return None
        near, far = sorted((rows[0], rows[1]))
        return float(far[1] - near[0] + 1)

    def _bars_apart(self, found: Located) -> float | None:
        """How far a Code128 face's two codes lie from each other's place along the card
        (px of the 300×420 face), when more than :data:`BARS_APART`; else ``None``.

        Both ends of a card carry the same code, placed alike about its middle: the
        bars of the one turned 180° start where the other's end, measured from the
        card's other end. Two cards stuck together, all but aligned, make one
        card-shaped outline of both, and the top card's bars lie off their place in it
        by how far the cards are apart. The bars' rows are measured in the face
        (:func:`_bar_blocks`), not taken from the decoder: a thumb over part of a code
        moves the row the decoder reads, and zbar reports the two codes as one symbol.
        The first rows are compared, and the last, and the nearer taken: a thumb over
        the end of a code's bars shortens them at one end only. Not two runs of bars
        (a code covered, or glare across one), or two not alike and apart: no check."""
        if self.symbology != "code128":
            return None
        blocks = _bar_blocks(found)
        if len(blocks) != 2:
            return None
        a, b = blocks
        if b[0] - a[1] < BAR_MIN_ROWS or min(a[1] - a[0], b[1] - b[0]) < 0.6 * max(a[1] - a[0], b[1] - b[0]):
            return None  # not two codes apart, alike (glare across one splits it in two)
        mirrored = (FACE_H - 1 - b[1], FACE_H - 1 - b[0])
        apart = min(abs(a[0] - mirrored[0]), abs(a[1] - mirrored[1]))
        return float(apart) if apart > BARS_APART else None

    def _off_centre(self, found: Located, symbols: list[Symbol]) -> float | None:
        """How far the middle of a face's two QR symbols lies from the middle of the
        outline along the card's long side (px of the 300×420 face), when that is more
        than :data:`QR_OFF_CENTRE`; else ``None``.

        Both ends of a card carry the same code, placed the same way about the card's
        middle, so the middle of the two is the card's. Two cards stuck together, all
        but aligned, make an outline of both: the middle of the top card's codes is then
        off the outline's by half how far the cards are apart (issue 15, seventh pass).
        Only for QR: a Code128's decoded extent shrinks under a thumb, and so does its
        middle move."""
        if self.symbology != "qr" or len(symbols) != 2:
            return None
        pts = np.array([[c for _, c in symbols]], np.float32)
        face = cv2.perspectiveTransform(pts, found.face_transform)[0]
        off = abs(float(face[:, 1].sum()) - FACE_H)
        return off if off > QR_OFF_CENTRE else None


def _qr_rows(found: Located, x: float, y: float, reach: int = 70) -> tuple[int, int] | None:
    """The first and last rows of the face (along the card) that hold dark modules of the
    QR symbol whose middle is at (``x``, ``y``) of the face, or near it (within ``reach``
    rows): from there outward, to the last row before its quiet zone. Only the symbol's
    middle columns are looked at (its neighbours on the face lie beside it, not above
    it); ``None`` when the symbol runs off the face or no quiet zone is found. Dark is
    darker than halfway between the region's ink and its paper: low contrast greys the
    modules, it does not lose them."""
    x0 = int(round(x)) - QR_MIDDLE
    y0, y1 = max(0, int(round(y)) - reach), min(FACE_H, int(round(y)) + reach)
    if x0 < 0 or x0 + 2 * QR_MIDDLE > FACE_W or y1 - y0 < 2 * QR_QUIET_ROWS:
        return None
    region = found.region(x0, y0, 2 * QR_MIDDLE, y1 - y0)
    grey = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    ink, paper = np.percentile(grey, (5, 95))
    dark = (grey < (ink + paper) / 2).mean(axis=1) >= 0.04
    # A run of light rows as deep as the quiet zone's start ends the symbol: the dark rows
    # nearest the middle, between two such runs, are the symbol's.
    quiet = np.convolve((~dark).astype(np.int32), np.ones(QR_QUIET_ROWS, np.int32), "valid") == QR_QUIET_ROWS
    inked = np.flatnonzero(dark)
    if inked.size == 0:
        return None
    mid = int(round(y)) - y0
    start = int(inked[np.argmin(np.abs(inked - mid))])  # the symbol's dark row nearest its middle
    starts = np.flatnonzero(quiet)  # row k: rows k .. k + QR_QUIET_ROWS - 1 are light
    above, below = starts[starts + QR_QUIET_ROWS <= start], starts[starts > start]
    if above.size == 0 or below.size == 0:
        return None
    return y0 + int(above[-1]) + QR_QUIET_ROWS, y0 + int(below[0]) - 1


def _bar_blocks(found: Located) -> list[tuple[int, int]]:
    """The runs of rows (first, last; face pixels along the card) where a Code128's bars
    cross the middle of the face: rows whose bars' edges, across :data:`BAR_WINDOW` px
    each side of the middle, are at least a quarter as strong as the strongest row's,
    runs at least :data:`BAR_MIN_ROWS` long, each ended where its edges fall to half
    their own strength. A thumb over part of a code weakens its rows' edges there; it
    does not end them."""
    x0 = FACE_W // 2 - BAR_WINDOW
    region = found.region(x0, 0, 2 * BAR_WINDOW, FACE_H)
    grey = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    energy = np.abs(np.diff(grey.astype(np.float32), axis=1)).mean(axis=1)
    strong = energy >= energy.max() / 4 if energy.max() > 0 else np.zeros(FACE_H, bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], strong.astype(np.int8), [0]])))
    out = []
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        if b - a < BAR_MIN_ROWS:
            continue
        # Each run's ends where its own bars' edges fall to half their strength: glare
        # over one code lowers its contrast, and a share of the strongest row's would
        # cut it short at both ends.
        rows = np.flatnonzero(energy[a:b] >= np.median(energy[a:b]) / 2)
        out.append((int(a + rows[0]), int(a + rows[-1])))
    return out


def _why_unread(found: Located | Reject) -> Reject:
    """No symbol decoded: no card, a back, or a face whose codes are covered or unreadable."""
    if isinstance(found, Reject):
        return found
    share = paper_share(found)
    if share < 0.25:
        return Reject(Reason.FACE_DOWN, f"card back: no barcode and only {share:.0%} of the face is paper")
    return Reject(Reason.UNREADABLE, f"a card is on the gate ({share:.0%} of its face is paper) but "
                  "no barcode could be decoded: are its codes covered, or out of focus?")


def paper_share(face: np.ndarray | Located) -> float:
    """Share of the whole inner face (a face, or a located card's) as light as the card's margin.

    A barcoded face is mostly paper around its codes, even with a thumb over
    each code; a back is patterned to its margin.
    """
    if isinstance(face, Located):  # only the pixels used are warped
        inner = face.region(30, 40, 240, 340, step=2).min(axis=2)
        margin = float(np.median(face.region(3, 150, 6, 120).min(axis=2)))
    else:
        inner = face[40:380:2, 30:270:2].min(axis=2)
        margin = float(np.median(face[150:270, 3:9].min(axis=2)))
    return float(np.mean(inner > margin * 0.75))


def layout_for(faces: str, symbology: str | None = None) -> CodeLayout:
    """The layout ``--faces`` names: 'printed' (print-deck's faces), 'rendered' (the
    renderer's), else a layout learned with ``vision learn-codes`` (its name or file), which
    must be of ``symbology`` when that is given; else :class:`~dealer.errors.BoardwrightError`."""
    from vision import code_layout
    from vision.learn import layout_path

    if faces in ("printed", "rendered"):
        return getattr(code_layout, faces)(symbology or "qr")  # type: ignore[no-any-return]
    layout = code_layout.CodeLayout.load(layout_path(faces))
    if symbology and layout.symbology and layout.symbology != symbology:
        raise BoardwrightError(f"--faces {faces}: learned for {layout.symbology} codes, not {symbology}")
    return layout


def learn_layout(name: str, frames: Iterable[tuple[str, np.ndarray | None]], *, symbology: str = "qr",
                 backend: str = "zxing", deck_id: int | None = None) -> CodeLayout:
    """Each card's codes' outer extent (:class:`~vision.code_layout.CodeLayout`) from one pass
    of a barcoded deck through the gate, in any order: a sticker deck's stickers lie each
    where they were put, so its cards are learned one by one. Every one of the 52 cards
    must be read on its own and measured; a card seen twice must measure alike. Else
    :class:`~dealer.errors.BoardwrightError`, naming the frame or the card."""
    reader = BarcodeReader(backend, symbology, deck_id=deck_id)
    seen: dict[int, list[float]] = {}
    for frame_name, frame in frames:
        if frame is None:
            raise BoardwrightError(f"{frame_name}: the image could not be decoded")
        found, symbols = reader.look(frame)  # (once: read and measured from the same outline and codes)
        out = reader.judge(found, symbols)
        if isinstance(out, Reject) or out.card is None:
            why = f"{out.label}: {out.detail}" if isinstance(out, Reject) else "a board sticker"
            raise BoardwrightError(f"{frame_name}: not read ({why}); every card of the pass must be read "
                                   "on its own")
        outer = reader.outer(found, symbols) if isinstance(found, Located) else None
        if outer is None:
            raise BoardwrightError(f"{frame_name}: {out.card} read, but its two codes could not be measured "
                                   "(show it again, in focus, whole)")
        seen.setdefault(int(out.card), []).append(outer)
    missing = [str(c) for c in Card.all() if int(c) not in seen]
    if missing:
        raise BoardwrightError(f"the pass lacks {len(missing)} card(s): {' '.join(missing)}")
    for k, outers in seen.items():
        if max(outers) - min(outers) > 2 * CODES_CLOSER:
            raise BoardwrightError(f"{Card(k)} was seen {len(outers)} times, its codes "
                                   f"{min(outers):.0f} to {max(outers):.0f} px apart: was one of them two cards "
                                   "stuck together? Show each card once, on its own")
    per_card = {k: float(np.median(v)) for k, v in seen.items()}
    return CodeLayout(f"the learned {name!r} deck's codes", 0.0, per_card, symbology)
