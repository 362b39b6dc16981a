"""Accuracy and latency of every recogniser over rendered frames.

Each frame is rendered once and handed to every recogniser that applies to
it: the barcode frames (QR and Code128 decks) to zxing-cpp and to zbar, the
ordinary frames (seven learned designs) to the index reader. Frames are
spread over the distortion conditions of :data:`vision.render.CONDITIONS`,
with extra weight on "normal", plus out-of-envelope sets (names ending in
"!"): heavy glare, heavy blur, tiny cards, double feeds, card backs, jokers
and, for the index, typefaces that were never learned.

Work is split over processes. Latency is reported twice per ``read`` call:
wall time (inflated whenever other load on the machine preempts the worker)
and the worker's CPU time (``time.process_time``, OpenCV held to one thread),
which is what the read costs on a free core.
Run it as ``python bench/vision.py [--frames N] [--workers W]``; the last
line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dealer.cards import Card
from vision.barcode import BarcodeReader
from vision.code_layout import rendered
from vision.decision import Read
from vision.index import IndexReader
from vision.learn import LearnedDesign, LearnError, bridge_order, learn
from vision.render import CONDITIONS, GATE_LIKE, render_card_frame

#: Where a real-photograph corpus is looked for (``--photos`` or ``$BOARDWRIGHT_PHOTOS`` overrides).
DEFAULT_PHOTOS = Path.home() / ".cache" / "boardwright" / "photos"
DEFAULT_AS_SHOT = Path.home() / ".cache" / "boardwright" / "photos-raw"
#: Feeder cameras' frames, one folder per deck (bench/feeder_fetch.py; ``--feeder`` overrides).
DEFAULT_FEEDER = Path.home() / ".cache" / "boardwright" / "feeder"
SYNTHETIC_DESIGNS = ("standard", "classic", "jumbo", "dutch", "german", "french", "swedish")
#: Real decks drawn by other people (Debian's SVG decks, see vision/real_decks.py).
REAL_DESIGNS = ("dondorf", "bonded", "nicu-white", "xskat-french", "tigullio")  # paris: its ♣A is cut wrongly off the sheet
INDEX_DESIGNS = SYNTHETIC_DESIGNS + REAL_DESIGNS
NOT_LEARNED: dict[str, str] = {}  # real decks whose learning pass was refused, and why
UNLEARNED = ("script", "italic")  # read against the "standard" design
BARCODE_DESIGNS = ("qr", "code128")
DECK = 7
EXTRA = ("face-down!", "joker!")
# Frames on which any card read is wrong: a double feed must be refused, not read as its top card.
NOT_ONE_CARD = EXTRA + ("double-feed!", "stuck-pair!")


@dataclass(frozen=True)
class Spec:
    kind: str  # "barcode" or "index"
    condition: str
    design: str
    card: int
    seed: int


def conditions(kind: str) -> list[tuple[str, int]]:
    """(condition, weight): normal counts four times."""
    out = [(c, 4 if c == "normal" else 1) for c in CONDITIONS]
    out += [(c, 1) for c in EXTRA]
    if kind == "index":
        out.append(("unlearned!", 1))
    return out


def plan(kind: str, n: int, seed: int = 1) -> list[Spec]:
    conds = conditions(kind)
    total = sum(w for _, w in conds)
    rng = np.random.default_rng(seed + (0 if kind == "barcode" else 7))
    specs: list[Spec] = []
    for cond, w in conds:
        k = round(n * w / total)
        for _ in range(k):
            if kind == "barcode":
                design = BARCODE_DESIGNS[int(rng.integers(0, 2))]
            elif cond == "unlearned!":
                design = UNLEARNED[int(rng.integers(0, 2))]
            elif cond == "joker!":  # the real decks are rendered without their jokers
                design = SYNTHETIC_DESIGNS[int(rng.integers(0, len(SYNTHETIC_DESIGNS)))]
            else:
                usable = [d for d in INDEX_DESIGNS if d not in NOT_LEARNED]
                design = usable[int(rng.integers(0, len(usable)))]
            specs.append(Spec(kind, cond, design, int(rng.integers(0, 52)),
                              int(rng.integers(0, 2**31 - 1))))
    return specs


def render(spec: Spec) -> np.ndarray:
    dist = spec.condition if spec.condition in CONDITIONS else "normal"
    return render_card_frame(
        Card(spec.card), design=spec.design, deck_id=DECK, seed=spec.seed, distortions=dist,
        face_up=spec.condition != "face-down!", joker=spec.condition == "joker!")


_STATE: dict[str, Any] = {}


def _init(designs: dict[str, LearnedDesign]) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and reports
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _STATE["index"] = {name: IndexReader(d) for name, d in designs.items()}
    _STATE["barcode"] = {(b, s): BarcodeReader(b, s, deck_id=DECK, layout=rendered(s))
                         for b in ("zxing", "zbar") for s in BARCODE_DESIGNS}


def _run(chunk: list[Spec]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: {"ok": 0, "wrong": 0, "rejects": Counter(), "lat": [], "cpu": [],
                 "wrong_examples": [], "designs": defaultdict(lambda: [0, 0, 0, 0, 0])})
    for spec in chunk:
        frame = render(spec)
        if spec.kind == "barcode":
            readers = [(f"barcode-{b}", _STATE["barcode"][(b, spec.design)]) for b in ("zxing", "zbar")]
        else:
            design = "standard" if spec.condition == "unlearned!" else spec.design
            readers = [("index", _STATE["index"][design])]
        for name, reader in readers:
            c0, t0 = time.process_time(), time.perf_counter()
            outcome = reader.read(frame)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            cell = out[(name, spec.condition)]
            cell["lat"].append(dt)
            cell["cpu"].append(dc)
            truth_ok = spec.condition not in NOT_ONE_CARD
            # per design: frames, correct, wrong, court frames, courts correct
            court = 11 <= Card(spec.card).rank <= 13
            tally = cell["designs"][spec.design]
            tally[0] += 1
            tally[3] += court
            if outcome.accepted:
                if truth_ok and outcome.card == Card(spec.card):
                    cell["ok"] += 1
                    tally[1] += 1
                    tally[4] += court
                else:
                    tally[2] += 1
                    cell["wrong"] += 1
                    cell["wrong_examples"].append((spec.design, spec.seed, str(Card(spec.card)),
                                                   outcome.label))
            else:
                cell["rejects"][outcome.reason.value] += 1
    return {k: {**v, "designs": dict(v["designs"])} for k, v in out.items()}


def learn_designs(seed: int = 900_000) -> dict[str, LearnedDesign]:
    """One learning pass per design, on frames the bench never reads.

    Synthetic designs are shown in boardwright's order, real decks in bridge
    order with their back (the order is inferred either way).
    """
    out = {}
    for name in INDEX_DESIGNS:
        real = name in REAL_DESIGNS
        cards = bridge_order() if real else list(Card.all())
        frames = [(str(c), render_card_frame(c, design=name, seed=seed + i)) for i, c in enumerate(cards)]
        if real:
            frames.append(("back", render_card_frame(Card(0), design=name, face_up=False, seed=seed)))
        try:
            out[name] = learn(name, frames, back=real)
        except LearnError as e:  # reported, and the deck is left out of the run
            print(f"CANNOT LEARN {name}: {e}", file=sys.stderr, flush=True)
            NOT_LEARNED[name] = str(e)
            continue
        print(f"learned {name}: {out[name].order}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=50_000, help="frames per recogniser")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--photos", default=os.environ.get("BOARDWRIGHT_PHOTOS", str(DEFAULT_PHOTOS)),
                    help="folder of real photographs, one sub-folder per deck (see vision/photos.py); "
                         "read as the condition 'real photos' when it exists")
    ap.add_argument("--as-shot", default=os.environ.get("BOARDWRIGHT_PHOTOS_AS_SHOT", str(DEFAULT_AS_SHOT)),
                    help="folder of real photographs as the camera took them, one sub-folder per deck "
                         "(bench/photos_fetch.py --raw), read as '<deck> as shot'; every photo is "
                         "shown as the gate would show its card (vision.gate_view.gate_view)")
    ap.add_argument("--feeder", default=os.environ.get("BOARDWRIGHT_FEEDER", str(DEFAULT_FEEDER)),
                    help="folder of a feeder camera's frames, one sub-folder per deck "
                         "(bench/feeder_fetch.py), read by the corner-view reader as "
                         "'<deck> feeder corner' (vision/corner_view.py)")
    ap.add_argument("--sticker-frames", type=int, default=40,
                    help="frames per condition and back-end of a sticker deck read with its learned "
                         "layout (0: none)")
    args = ap.parse_args(argv)
    import cv2

    # One OpenCV thread: the workers are the parallelism, and a thread pool
    # started before fork() can deadlock the forked workers.
    cv2.setNumThreads(1)
    t0 = time.time()
    args.load_start = [round(x, 2) for x in os.getloadavg()]  # the machine is shared: say how busy
    designs = learn_designs()
    specs = plan("barcode", args.frames, args.seed) + plan("index", args.frames, args.seed)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(specs))  # mix kinds so both workers see similar load
    specs = [specs[i] for i in order]
    chunks = [specs[i : i + 100] for i in range(0, len(specs), 100)]
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    done = 0
    interrupted = False
    import signal

    def _stop(signum: int, frame: object) -> None:  # kill PID: stop and report, like Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)  # even when started in the background
    pool = mp.get_context("fork").Pool(args.workers, _init, (designs,))
    try:
        for part in pool.imap_unordered(_run, chunks):
            for key, c in part.items():
                acc = cells.setdefault(key, {"ok": 0, "wrong": 0, "rejects": Counter(), "lat": [],
                                             "cpu": [], "wrong_examples": [],
                                             "designs": defaultdict(lambda: [0, 0, 0, 0, 0])})
                for dname, t in c["designs"].items():
                    acc["designs"][dname] = [a + b for a, b in zip(acc["designs"][dname], t, strict=True)]
                acc["cpu"] += c["cpu"]
                acc["ok"] += c["ok"]
                acc["wrong"] += c["wrong"]
                acc["rejects"].update(c["rejects"])
                acc["lat"] += c["lat"]
                acc["wrong_examples"] += c["wrong_examples"]
            done += 1
            if done % 50 == 0:
                print(f"... {done * 100} of {len(specs)} frames, {time.time() - t0:.0f} s",
                      file=sys.stderr, flush=True)
        pool.close()
    except KeyboardInterrupt:  # report what was read so far, marked as interrupted
        interrupted = True
        pool.terminate()
    pool.join()
    args.interrupted = interrupted
    args.real_photos = photo_results(args.photos, args.as_shot, args.feeder) if not interrupted else {}
    args.stickers = sticker_results(args.sticker_frames, args.seed) if not interrupted and args.sticker_frames else {}
    elapsed = time.time() - t0
    return report(cells, elapsed, args)


#: A sticker deck (stickers put on by hand, vision.render's ``qr-stickers``): read with the
#: layout learned from one pass of it (vision learn-codes), apart from the plan, whose rows
#: it leaves as they were.
STICKER_DESIGN = "qr-stickers"


def sticker_results(per_condition: int, seed: int) -> dict[str, dict[str, dict[str, int]]]:
    """Per back-end and condition: frames, read right, read wrong, of a sticker deck read with
    its learned layout. Every condition of :data:`vision.render.CONDITIONS`; a frame of a
    condition ending in "!" other than a covered code's is never one card to be read."""
    from vision.barcode import learn_layout

    layout = learn_layout(STICKER_DESIGN, [(str(c), render_card_frame(c, design=STICKER_DESIGN, deck_id=DECK,
                                                                     seed=seed + 7_000 + int(c)))
                                           for c in Card.all()], deck_id=DECK)
    rng = np.random.default_rng(seed + 11)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for backend in ("zxing", "zbar"):
        reader = BarcodeReader(backend, "qr", deck_id=DECK, layout=layout)
        out[backend] = {}
        for cond in CONDITIONS:
            cell = out[backend].setdefault(cond, {"frames": 0, "correct": 0, "wrong": 0})
            for _ in range(per_condition):
                card = Card(int(rng.integers(0, 52)))
                got = reader.read(render_card_frame(card, design=STICKER_DESIGN, deck_id=DECK,
                                                   seed=int(rng.integers(0, 2**31 - 1)), distortions=cond))
                cell["frames"] += 1
                if isinstance(got, Read):
                    right = got.card == card and cond not in NOT_ONE_CARD
                    cell["correct" if right else "wrong"] += 1
    return out


def photo_results(folder: str, as_shot: str = "", feeder: str = "") -> dict[str, Any]:
    """The real-photograph condition, per deck (an empty dict when there is no corpus); the
    photos as shot, per deck, as ``"<deck> as shot"``; and a feeder camera's frames of one
    corner, per deck, as ``"<deck> feeder corner"``."""
    from vision.photos import bench_deck, bench_photos

    out: dict[str, Any] = {}
    if not folder or not Path(folder).is_dir():
        print(f"real photos: no corpus at {folder!r} (see vision/photos.py)", file=sys.stderr, flush=True)
    else:
        out = {name: r.as_dict() for name, r in bench_photos(folder).items()}
    if as_shot and Path(as_shot).is_dir():
        for deck in sorted(d for d in Path(as_shot).iterdir() if d.is_dir()):
            out[f"{deck.name} as shot"] = bench_deck(deck).as_dict()
    if feeder and Path(feeder).is_dir():
        from vision.corner_view import bench_folder

        for deck in sorted(d for d in Path(feeder).iterdir() if d.is_dir()):
            out[f"{deck.name} feeder corner"] = bench_folder(deck)
    return out


def per_design(cells: dict[tuple[str, str], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Index figures per design: gate-like conditions, and all in-envelope ones."""
    acc: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"gate": [0] * 5, "env": [0] * 5})
    for (rec, cond), c in cells.items():
        if rec != "index" or cond.endswith("!"):
            continue
        for name, t in c["designs"].items():
            for key in (("gate", "env") if cond in GATE_LIKE else ("env",)):
                acc[name][key] = [a + b for a, b in zip(acc[name][key], t, strict=True)]
    out = {}
    for name in sorted(acc, key=lambda n: (n not in REAL_DESIGNS, n)):
        g, e = acc[name]["gate"], acc[name]["env"]
        numbers = g[0] - g[3]
        out[name] = {
            "real": name in REAL_DESIGNS,
            "gate_frames": g[0], "gate_accepted_pct": round(100 * (g[1] + g[2]) / max(1, g[0]), 2),
            "gate_wrong": g[2],
            "gate_courts_pct": round(100 * g[4] / max(1, g[3]), 2),
            "gate_numbers_pct": round(100 * (g[1] - g[4]) / max(1, numbers), 2),
            "envelope_frames": e[0], "envelope_accepted_pct": round(100 * (e[1] + e[2]) / max(1, e[0]), 2),
            "envelope_wrong": e[2],
        }
    return out


def report(cells: dict[tuple[str, str], dict[str, Any]], elapsed: float, args: argparse.Namespace) -> int:
    summary: dict[str, Any] = {"bench": "vision", "frames_per_recogniser": args.frames,
                               "workers": args.workers, "elapsed_s": round(elapsed, 1),
                               "load_average_start": getattr(args, "load_start", None),
                               "load_average_end": [round(x, 2) for x in os.getloadavg()],
                               "interrupted": getattr(args, "interrupted", False),
                               "recognisers": {}}
    total_wrong = 0
    for rec in ("barcode-zxing", "barcode-zbar", "index"):
        print(f"\n== {rec}")
        print(f"{'condition':<14} {'frames':>6} {'correct':>8} {'rejected':>9} {'WRONG':>6} "
              f"{'p50 ms':>7} {'p99 ms':>7} {'cpu p50':>7} {'cpu p99':>7}  top reject reasons")
        lat_all: list[float] = []
        cpu_all: list[float] = []
        n_all = 0
        rec_wrong = 0
        per_cond = {}
        for (r, cond), c in sorted(cells.items(), key=lambda kv: (kv[0][1].endswith("!"), kv[0][1])):
            if r != rec:
                continue
            n = len(c["lat"])
            rej = sum(c["rejects"].values())
            lat = np.array(c["lat"]) * 1000
            p50, p99 = float(np.percentile(lat, 50)), float(np.percentile(lat, 99))
            cpu = np.array(c["cpu"]) * 1000
            c50, c99 = float(np.percentile(cpu, 50)), float(np.percentile(cpu, 99))
            reasons = ", ".join(f"{k} {v}" for k, v in c["rejects"].most_common(3))
            print(f"{cond:<14} {n:>6} {c['ok']:>8} {rej:>9} {c['wrong']:>6} {p50:>7.2f} {p99:>7.2f} "
                  f"{c50:>7.2f} {c99:>7.2f}  {reasons}")
            for ex in c["wrong_examples"][:3]:
                print(f"    WRONG: design {ex[0]} seed {ex[1]}: {ex[2]} read as {ex[3]}")
            per_cond[cond] = {"frames": n, "correct": c["ok"], "rejected": rej, "wrong": c["wrong"],
                              "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
                              "cpu_p50_ms": round(c50, 2), "cpu_p99_ms": round(c99, 2)}
            rec_wrong += c["wrong"]
            if not cond.endswith("!"):
                lat_all += c["lat"]
                cpu_all += c["cpu"]
            n_all += n
        if not per_cond:
            continue
        la = np.array(lat_all) * 1000
        normal = per_cond.get("normal", {"frames": 0, "rejected": 0})
        summary["recognisers"][rec] = {
            "frames": n_all, "normal_frames": normal["frames"], "accepted_wrong": rec_wrong,
            "normal_reject_pct": round(100 * normal["rejected"] / max(1, normal["frames"]), 3),
            "in_envelope_p50_ms": round(float(np.percentile(la, 50)), 2),
            "in_envelope_p99_ms": round(float(np.percentile(la, 99)), 2),
            "in_envelope_cpu_p50_ms": round(float(np.percentile(np.array(cpu_all) * 1000, 50)), 2),
            "in_envelope_cpu_p99_ms": round(float(np.percentile(np.array(cpu_all) * 1000, 99)), 2),
            "conditions": per_cond,
        }
        total_wrong += rec_wrong
    photos = getattr(args, "real_photos", {})
    if photos:
        print("\n== index, real photos (learned from 52 photos of each deck, the others read as photographs; "
              "'as shot': the photos as the camera took them; 'feeder corner': a dealing machine's "
              "feeder camera, one corner in view)")
        print(f"{'deck':<22} {'photos':>6} {'tested':>6} {'right':>6} {'WRONG':>6} {'accepted':>9} "
              f"{'courts':>9} {'numbers':>9}  rejected (reasons) / not learned")
        for name, d in photos.items():
            if not d["learned"]:
                print(f"{name:<22} {d['photos']:>6} {'-':>6} {'-':>6} {'-':>6} {'-':>9} {'-':>9} {'-':>9}  "
                      f"NOT LEARNED: {d['not_learned']}")
                continue
            courts = f"{d['courts'][1]}/{d['courts'][0]}"
            numbers = f"{d['numbers'][1]}/{d['numbers'][0]}"
            reasons = ", ".join(f"{k} {v}" for k, v in sorted(d["rejected"].items(), key=lambda kv: -kv[1]))
            print(f"{name:<22} {d['photos']:>6} {d['tested']:>6} {d['accepted_right']:>6} "
                  f"{d['accepted_wrong']:>6} {d['accepted_pct']:>8.1f}% {courts:>9} {numbers:>9}  {reasons}")
            for ex in d["wrong_examples"][:3]:
                print(f"    WRONG: {ex}")
            total_wrong += d["accepted_wrong"]
    summary["real_photos"] = photos
    stickers = getattr(args, "stickers", {})
    if stickers:
        print(f"\n== barcode, a sticker deck ({STICKER_DESIGN}: stickers put on by hand) read with its "
              "learned layout: read right / read wrong of frames, per back-end")
        for cond in CONDITIONS:
            cells_ = [stickers[b][cond] for b in stickers]
            print(f"{cond:<14} " + "  ".join(f"{b} {c['correct']}/{c['wrong']} of {c['frames']}"
                                             for b, c in zip(stickers, cells_, strict=True)))
        total_wrong += sum(c["wrong"] for b in stickers.values() for c in b.values())
    summary["sticker_deck"] = stickers
    summary["accepted_wrong"] = total_wrong
    summary["index_designs"] = per_design(cells)
    summary["not_learned"] = NOT_LEARNED
    for name, why in NOT_LEARNED.items():
        print(f"not learned: {name}: {why}")
    print("\n== index, per design: gate-like frames (" + ", ".join(GATE_LIKE) + ") and all in-envelope")
    print(f"{'design':<14} {'gate':>6} {'accepted':>9} {'WRONG':>6} {'courts':>8} {'numbers':>8} "
          f"{'all env':>8} {'accepted':>9} {'WRONG':>6}")
    for name, d in summary["index_designs"].items():
        print(f"{name:<14} {d['gate_frames']:>6} {d['gate_accepted_pct']:>8.1f}% {d['gate_wrong']:>6} "
              f"{d['gate_courts_pct']:>7.1f}% {d['gate_numbers_pct']:>7.1f}% {d['envelope_frames']:>8} "
              f"{d['envelope_accepted_pct']:>8.1f}% {d['envelope_wrong']:>6}")
    print(f"\n{sum(v['frames'] for v in summary['recognisers'].values())} reads in {elapsed:.0f} s "
          f"({args.workers} workers); accepted-wrong: {total_wrong}; load average (1, 5, 15 min) "
          f"{summary['load_average_start']} at the start, {summary['load_average_end']} at the end")
    print(json.dumps(summary, separators=(",", ":")))
    return 0
