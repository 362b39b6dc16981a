"""``boardwright vision``: read, learn, bench, print-deck and render.

Examples::

    boardwright vision learn standard --source synthetic:design=standard
    boardwright vision read synthetic:cards=shuffled --design standard --json
    boardwright vision read frames/ --barcode qr --deck 7 --json
    boardwright vision print-deck -o deck.pdf --deck 7 --symbology code128
    boardwright vision render synthetic:design=dutch,distortions=glare -o /tmp/look
    boardwright vision bench --frames 2000

``read`` prints one JSON object per frame: ``{"frame": ..., "card": "SA"}`` or
``{"frame": ..., "reject": "blurred", "detail": ...}``; a frame that could not
be decoded at all gets ``"error"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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
    r.add_argument("--limit", type=int, help="stop after this many frames (cameras)")
    r.add_argument("--json", action="store_true", help="one JSON object per line")
    r.set_defaults(func=_read)

    learn = vs.add_parser("learn", help="learn a deck design from one pass of a sorted deck")
    learn.add_argument("name", help="design name, stored in the instance folder")
    learn.add_argument("--source", required=True,
                       help="frames of the 52 cards in order ♣2..♣A ♦ ♥ ♠ (then jokers)")
    learn.add_argument("--jokers", type=int, default=0, help="joker frames after the 52")
    learn.add_argument("-o", "--output", help="store here instead of the instance folder")
    learn.set_defaults(func=_learn)

    b = vs.add_parser("bench", help="run the recognisers over rendered frames (bench/vision.py)")
    b.add_argument("--frames", type=int, default=2000, help="frames per recogniser")
    b.add_argument("--workers", type=int, default=2)
    b.set_defaults(func=_bench)

    pd = vs.add_parser("print-deck", help="PDF of barcode stickers or faces for a deck")
    pd.add_argument("-o", "--output", required=True)
    pd.add_argument("--deck", type=int, default=0, help="deck id 0..999")
    pd.add_argument("--symbology", choices=("qr", "code128"), default="qr")
    pd.add_argument("--faces", action="store_true", help="whole card faces instead of stickers")
    pd.add_argument("--boards", help="also board stickers, e.g. 1-36")
    pd.add_argument("--jokers", type=int, default=0)
    pd.set_defaults(func=_print_deck)

    rd = vs.add_parser("render", help="write a synthetic source's frames as PNG files")
    rd.add_argument("source", help="synthetic:... (see 'vision read')")
    rd.add_argument("-o", "--output", required=True, help="folder for the PNG files")
    rd.set_defaults(func=_render)


def _reader(args: argparse.Namespace):
    if args.barcode:
        from vision.barcode import BarcodeReader

        return BarcodeReader(args.backend, args.barcode, deck_id=args.deck,
                             expect="board" if args.boards else "card")
    from vision.index import IndexReader
    from vision.learn import LearnedDesign, design_path

    return IndexReader(LearnedDesign.load(design_path(args.design)))


def _read(args: argparse.Namespace) -> int:
    from vision.sources import open_source

    reader = _reader(args)
    source = open_source(args.source, limit=args.limit)
    counts = {"read": 0, "rejected": 0, "errors": 0}
    for name, frame in source:
        if frame is None:
            out = {"frame": name, "error": "the image could not be decoded"}
            counts["errors"] += 1
        else:
            outcome = reader.read(frame)
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
    if not args.json:
        print(f"{counts['read']} read, {counts['rejected']} rejected, {counts['errors']} unreadable",
              file=sys.stderr)
    return 0


def _learn(args: argparse.Namespace) -> int:
    from vision.learn import design_path, learn
    from vision.sources import open_source

    design = learn(args.name, open_source(args.source), jokers=args.jokers, source=args.source)
    path = design.save(Path(args.output) if args.output else design_path(args.name))
    print(f"learned design {args.name!r} from {52 + args.jokers} frames -> {path}")
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
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, frame in source:
        cv2.imwrite(str(out / f"{name}.png"), frame)
        n += 1
    print(f"wrote {n} frames to {out}")
    return 0
