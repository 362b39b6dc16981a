"""``boardwright vision``: read, learn, bench, print-deck and render.

Examples::

    boardwright vision learn standard --source synthetic:design=standard
    boardwright vision read synthetic:cards=shuffled --design standard --json
    boardwright vision read frames/ --barcode qr --deck 7 --json
    boardwright vision print-deck -o deck.pdf --deck 7 --symbology code128
    boardwright vision render synthetic:design=dutch,distortions=glare -o /tmp/look
    boardwright vision bench --frames 2000
    boardwright vision watch example1.lin --board 1 --pbn play.pbn --lin play.lin

``read`` prints one JSON object per frame: ``{"frame": ..., "card": "SA"}`` or
``{"frame": ..., "reject": "blurred", "detail": ...}``; a frame that could not
be decoded at all gets ``"error"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dealer.cli._io import (
    check_not_overwriting,
    check_output,
    check_outputs,
    positive_int,
    whole_number,
)
from dealer.errors import BoardwrightError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vision", help="read cards by camera: barcodes or corner indices")
    vs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    r = vs.add_parser("read", help="read every frame of SOURCE; one line (or JSON object) each")
    r.add_argument("source", help="folder, image, video, camera:N, URL or synthetic:...")
    how = r.add_mutually_exclusive_group(required=True)
    how.add_argument("--barcode", nargs="?", const="qr", choices=("qr", "code128"),
                     help="read barcoded cards (default symbology qr)")
    how.add_argument("--design", help="read corner indices against this learned design (name or .npz)")
    r.add_argument("--backend", choices=("zxing", "zbar"), default="zxing")
    r.add_argument("--deck", type=int, help="accept only cards of this deck id (barcodes)")
    r.add_argument("--boards", action="store_true", help="read board-number stickers, not cards")
    r.add_argument("--faces", nargs="?", const="printed", metavar="LAYOUT",
                   help="where the deck's codes lie, so that at the gate codes lying closer together "
                   "are two cards stuck together: 'printed' (print-deck --faces, the default), "
                   "'rendered' (synthetic frames), or a sticker deck's layout learned with "
                   "'vision learn-codes' (its name or .json file)")
    r.add_argument("--limit", type=positive_int, help="stop after this many frames (any source)")
    r.add_argument("--json", action="store_true", help="one JSON object per line")
    kind = r.add_mutually_exclusive_group()
    kind.add_argument("--photo", action="store_true",
                      help="read every frame as a photograph of a card on a table: no card can lie "
                      "under it (default for image files not of the gate's 640x480)")
    kind.add_argument("--gate", action="store_true",
                      help="read every frame as the gate's: a card under the card is a double feed "
                      "(default for cameras, videos, synthetic frames and 640x480 image files)")
    r.set_defaults(func=_read)

    learn = vs.add_parser("learn", help="learn a deck design from one pass of a sorted deck",
                          description="Show the 52 cards sorted suit by suit (any suit order; ranks "
                          "A..2, 2..A, A 2..K or K..2 A, the same in every suit), then the jokers, "
                          "then the back (--back), then the three check cards "
                          + " ".join(c.symbol for c in _check_cards()) + ". The order is inferred "
                          "from the cards and stated; a pass whose order cannot be established is "
                          "refused, and nothing is saved unless the three check cards read right.")
    learn.add_argument("name", help="design name, stored in the instance folder")
    learn.add_argument("--source", required=True,
                       help="frames: 52 sorted cards, jokers, back, then "
                       + " ".join(c.symbol for c in _check_cards()))
    learn.add_argument("--jokers", type=whole_number(0, None, "a whole number of 0 or more"), default=0, help="joker frames after the 52")
    learn.add_argument("--back", action="store_true", help="one frame of the card back after the jokers")
    learn.add_argument("--replace", action="store_true", help="overwrite a design of that name")
    learn.add_argument("--patience", type=positive_int, default=None,
                       help="frames to wait for each check card (default 1 for files, 300 for cameras)")
    learn.add_argument("-o", "--output", help="store here instead of the instance folder")
    learn.set_defaults(func=_learn)

    lc = vs.add_parser("learn-codes", help="learn where a barcoded deck's codes lie, card by card (stickers)",
                       description="Show the 52 cards of a barcoded deck, each once, on its own, in any "
                       "order (each code names its card). Where each card's two codes lie is saved, "
                       "and 'vision read --faces NAME' refuses a card whose codes lie closer together "
                       "than that: two cards stuck together.")
    lc.add_argument("name", help="layout name, stored in the instance folder")
    lc.add_argument("--source", required=True, help="frames of the 52 cards")
    lc.add_argument("--barcode", default="qr", choices=("qr", "code128"), help="the deck's symbology")
    lc.add_argument("--backend", choices=("zxing", "zbar"), default="zxing")
    lc.add_argument("--deck", type=int, help="accept only cards of this deck id")
    lc.add_argument("--replace", action="store_true", help="overwrite a layout of that name")
    lc.add_argument("-o", "--output", help="store here instead of the instance folder")
    lc.set_defaults(func=_learn_codes)

    b = vs.add_parser("bench", help="run the recognisers over rendered frames (bench/vision.py)")
    b.add_argument("--frames", type=positive_int, default=2000, help="frames per recogniser")
    b.add_argument("--workers", type=positive_int, default=2)
    b.set_defaults(func=_bench)

    pd = vs.add_parser("print-deck", help="PDF of barcode stickers or faces for a deck")
    pd.add_argument("-o", "--output", required=True)
    pd.add_argument("--deck", type=int, default=0, help="deck id 0..999")
    pd.add_argument("--symbology", choices=("qr", "code128"), default="qr")
    pd.add_argument("--faces", action="store_true", help="whole card faces instead of stickers")
    pd.add_argument("--boards", help="also board stickers, e.g. 1-36")
    pd.add_argument("--jokers", type=int, choices=range(3), default=0,
                    help="joker stickers: 0, 1 or 2")
    pd.set_defaults(func=_print_deck)

    w = vs.add_parser("watch", help="record the play from the table camera (emulated from a file)")
    w.add_argument("file", help="PBN or LIN file with the recorded play to replay at the table")
    w.add_argument("--board", type=int, help="board number (default: the first with play)")
    w.add_argument("--no-deal", action="store_true", help="watch with the rules alone")
    w.add_argument("--source", help="read these frames (folder, video, camera:N) instead "
                   "of the emulated camera")
    w.add_argument("--design", help="learned deck design (default: learn at the emulated table)")
    w.add_argument("--calm", action="store_true", help="no disturbances in the emulated camera")
    w.add_argument("--seed", type=int, default=1)
    w.add_argument("--pbn", help="write the watched play as PBN here")
    w.add_argument("--lin", help="write the watched play as LIN here")
    w.add_argument("--json", action="store_true", help="one JSON object per event")
    w.add_argument("--unseal", action="store_true",
                   help="write the hands of a board from a sealed set (said on stderr)")
    w.set_defaults(func=_watch)

    rd = vs.add_parser("render", help="write a synthetic source's frames as PNG files")
    rd.add_argument("source", help="synthetic:... (see 'vision read')")
    rd.add_argument("-o", "--output", required=True, help="folder for the PNG files")
    rd.set_defaults(func=_render)


def _check_cards():
    from vision.learn import CHECK_CARDS

    return CHECK_CARDS


def _reader(args: argparse.Namespace, *, photo: bool = False):
    if args.barcode:
        from vision.barcode import BarcodeReader, layout_for

        layout = layout_for(args.faces, args.barcode) if args.faces else None
        return BarcodeReader(args.backend, args.barcode, deck_id=args.deck,
                             expect="board" if args.boards else "card", photo=photo, layout=layout)
    from vision.index import IndexReader
    from vision.learn import LearnedDesign, design_path

    return IndexReader(LearnedDesign.load(design_path(args.design)), photo=photo)


def _read(args: argparse.Namespace) -> int:
    import cv2

    from vision.photos import read_photo
    from vision.sources import IMAGE_SUFFIXES, open_source

    reader_of_all = _reader(args, photo=args.photo)
    # A photograph of a card on a table is no gate frame: the guards against a card
    # under the card (a double feed) do not apply to it (docs/vision.md §3).
    photo_reader = reader_of_all if args.photo or args.gate else _reader(args, photo=True)
    source = open_source(args.source, limit=args.limit)
    photos: dict[str, Path] = getattr(source, "photos", {})
    counts = {"read": 0, "rejected": 0, "errors": 0}
    noted = False
    for name, frame in source:
        reader = photo_reader if name in photos else reader_of_all
        design = getattr(reader, "design", None)
        if not noted and not reader.photo and design is not None and design.rank_places is None:
            noted = True  # said once, for the first frame read as the gate's
            print(f"note: design {design.name!r} was learned before the reader learned where its "
                  "indices lie: a card stuck under another is not looked for at the gate (learn it "
                  f"again: vision learn {design.name} --replace)", file=sys.stderr)
        if args.limit is not None and sum(counts.values()) >= args.limit:
            break
        if frame is None:
            out = {"frame": name, "error": "the image could not be decoded"}
            counts["errors"] += 1
        else:
            outcome = reader.read(frame)
            if name in photos and not outcome.accepted and not args.barcode and not args.gate:
                # A photograph's other views, when the gate's view of it is refused.
                whole = cv2.imread(str(photos[name]), cv2.IMREAD_COLOR)
                if whole is not None:
                    outcome = read_photo(reader, whole, frame, outcome)
            out = {"frame": name, **outcome.to_json()}
            counts["read" if outcome.accepted else "rejected"] += 1
        if args.json:
            print(json.dumps(out, ensure_ascii=False), flush=True)
        elif "error" in out:
            print(f"{name}: error: {out['error']}")
        elif "reject" in out:
            print(f"{name}: REJECT {out['reject']}: {out.get('detail', '')}")
        else:
            print(f"{name}: {out.get('card', out.get('board'))}")
    if sum(counts.values()) == 0:
        raise BoardwrightError(f"{args.source}: no frames to read (an empty folder, or no image "
                               f"files in it: {', '.join(sorted(IMAGE_SUFFIXES))})")
    if not args.json:
        print(f"{counts['read']} read, {counts['rejected']} rejected, {counts['errors']} unreadable",
              file=sys.stderr)
    return 0


def _learn(args: argparse.Namespace) -> int:
    from vision.index import check_cards
    from vision.learn import CHECK_CARDS, design_path, learn
    from vision.sources import CaptureSource, open_source

    path = _save_path(args, design_path(args.name), "design")
    source = open_source(args.source)
    frames = iter(source)
    design = learn(args.name, frames, jokers=args.jokers, back=args.back, source=args.source)
    print(f"inferred order: {design.order}")
    patience = args.patience or (300 if isinstance(source, CaptureSource) else 1)
    print("now show the check cards: " + " ".join(c.symbol for c in CHECK_CARDS), file=sys.stderr)
    for line in check_cards(design, frames, CHECK_CARDS, patience=patience):
        print(line)
    design.save(path)
    extra = ((f", {args.jokers} joker(s)" if args.jokers else "") + (", the back" if args.back else "")
             # (a photographed court whose edge is lost is then sought by its frame)
             + (", the courts' picture frame" if design.picture_frame is not None else ""))
    print(f"learned design {args.name!r} from 52 cards{extra} -> {path}")
    return 0


def _save_path(args: argparse.Namespace, stored: Path, what: str) -> Path:
    """Where a learning pass saves (``-o``, else ``stored``), checked before the pass: saving
    over a folder would lose it, and an earlier one is kept unless ``--replace``."""
    path = Path(args.output) if args.output else stored
    if path.is_dir():
        raise BoardwrightError(f"{path}: cannot save the {what}: that is a folder; give a file name")
    if path.exists() and not args.replace:
        raise BoardwrightError(f"{what} {args.name!r} already exists at {path}; "
                               "give --replace to learn it again over the old one")
    return path


def _learn_codes(args: argparse.Namespace) -> int:
    from vision.barcode import learn_layout
    from vision.learn import layout_path
    from vision.sources import open_source

    path = _save_path(args, layout_path(args.name), "layout")
    layout = learn_layout(args.name, open_source(args.source), symbology=args.barcode, backend=args.backend,
                          deck_id=args.deck)
    layout.save(path)
    outers = list((layout.per_card or {}).values())
    print(f"learned where the codes of the 52 cards of {args.name!r} lie ({min(outers):.0f} to "
          f"{max(outers):.0f} px apart) -> {path}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from vision.benchmark import main as bench_main

    return bench_main(["--frames", str(args.frames), "--workers", str(args.workers)])


def _parse_boards(text: str | None) -> list[int]:
    if not text:
        return []
    out: list[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            out += list(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise BoardwrightError(f"--boards {text!r}: use numbers and ranges like 1-36,40") from None
    return out


def _print_deck(args: argparse.Namespace) -> int:
    from vision.printdeck import print_deck

    check_output(args.output, "PDF")
    n = print_deck(args.output, deck_id=args.deck, symbology=args.symbology, faces=args.faces,
                   boards=_parse_boards(args.boards), jokers=args.jokers)
    print(f"wrote {n} {args.symbology} symbols for deck {args.deck} to {args.output}")
    return 0


def _render(args: argparse.Namespace) -> int:
    import cv2

    from vision.sources import SyntheticSource, open_source

    source = open_source(args.source)
    if not isinstance(source, SyntheticSource):
        raise BoardwrightError("vision render needs a synthetic:... source")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise BoardwrightError(f"{out}: cannot write the frames there: it is a file, "
                               "not a folder")
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, frame in source:
        if frame is not None:  # (a synthetic source always renders its frame)
            cv2.imwrite(str(out / f"{name}.png"), frame)
            n += 1
    print(f"wrote {n} frames to {out}")
    return 0


def _watch(args: argparse.Namespace) -> int:
    from dealer import formats
    from dealer.board import DealSet
    from dealer.formats.sealing import is_sealed
    from dealer.play_record import PlayRecordError, beer_card, board_play, to_board
    from vision.index import IndexReader
    from vision.learn import LearnedDesign, design_path
    from vision.table_render import CALM, STANDARD, TableCamera, bridge_layout, frames, play_scenes
    from vision.table_watch import TableWatcher, bridge_record, learn_at_table

    # The outputs are checked before the watching, and never over the file watched.
    check_outputs((args.pbn, "PBN file"), (args.lin, "LIN file"))
    check_not_overwriting((args.file,), (args.pbn, "PBN file"), (args.lin, "LIN file"))
    ds = formats.read(args.file)
    board = None
    for b in ds.boards:
        if (args.board is None and "Play" in b.sections) or b.number == args.board:
            board = b
            break
    if board is None:
        what = f"board {args.board}" if args.board is not None else "a board with recorded play"
        raise BoardwrightError(f"{args.file}: no {what}")
    try:
        contract, tricks = board_play(board)
    except PlayRecordError as e:
        raise BoardwrightError(f"{args.file}: {e}") from None
    lay = bridge_layout()
    design = (LearnedDesign.load(design_path(args.design)) if args.design
              else learn_at_table(TableCamera(lay, seed=424242, disturbances=CALM)))
    deal = None if args.no_deal else board.deal
    watcher = TableWatcher(lay, IndexReader(design), bridge_record(contract, deal))
    if args.source:
        from vision.sources import open_source

        stream = (f for _, f in open_source(args.source))
    else:
        assert contract.declarer is not None and board.deal is not None
        dummy = contract.declarer.partner
        scenes = play_scenes(tricks, 4, dummy=(int(dummy), board.deal.hand(dummy).cards),
                             seed=args.seed, disturbances=CALM if args.calm else STANDARD)
        stream = (f for f, _ in frames(scenes, TableCamera(lay, seed=args.seed)))
    for frame in stream:
        for ev in watcher.feed(frame):
            if args.json:
                print(json.dumps(ev.to_json(), ensure_ascii=False), flush=True)
            else:
                seat = watcher.record.names[ev.seat] if ev.seat is not None else ""
                print(f"trick {ev.trick:>2} {ev.kind:<11} {seat:<6} {ev.card or ''} {ev.detail}".rstrip())
    rec = watcher.record
    named = sum(1 for _, e in rec.entries() if e.card is not None)
    open_cards = rec.unconfirmed()
    print(f"board {board.number}: {named} cards read, {len(open_cards)} unconfirmed, "
          f"{len(rec.revokes())} revoke(s), {watcher.frame_no} frames", file=sys.stderr)
    note = beer_card(rec, contract)
    if note:
        print(note, file=sys.stderr)
    # A board of a sealed set stays sealed: its writers withhold or refuse the hands
    # unless --unseal (dealer.formats.sealing).
    out = DealSet([to_board(rec, board, contract)], dict(ds.meta), sealed=is_sealed(ds))
    for path, fmt in ((args.pbn, "pbn"), (args.lin, "lin")):
        if path:
            formats.write(out, path, format=fmt, unseal=args.unseal)
            print(f"wrote the play to {path}", file=sys.stderr)
            if args.unseal and out.sealed:
                print(f"boardwright: unsealed: the hands of sealed set {args.file} were written "
                      f"to {path} (--unseal)", file=sys.stderr)
    return 0
