"""Double-dummy speed, the list100 agreement, and hand-record rendering time.

1. Solves 36 fresh random deals (no cache): seconds per board, wall and CPU.
2. Solves all 100 deals of DDS's list100.txt and checks every table and par.
3. Renders 36 boards of hand records (PDF + HTML) with the analysis cached:
   cache lookup + par + drawing. Goal: at most 3 s.
4. Renders curtain cards and deal sheets for the same 36 boards.

Run: ``.venv/bin/python bench/records.py [--skip-list100]``. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer import Deal, Seat, Strain, Vulnerability  # noqa: E402
from dealer.curtains import curtain_cards_pdf, deal_sheets_pdf  # noqa: E402
from dealer.dd import DDCache, analyse, par, solve  # noqa: E402
from dealer.generate import random_dealset  # noqa: E402
from dealer.records import records_html, records_pdf  # noqa: E402

LIST100 = ROOT.parent / "shared" / "corpus" / "dds" / "list100.txt"
_VUL = {0: Vulnerability.NONE, 1: Vulnerability.BOTH, 2: Vulnerability.NS, 3: Vulnerability.EW}
_ORDER = (Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS, Strain.NOTRUMP)


def check_list100() -> tuple[int, int, float]:
    recs: list[dict] = []
    for line in LIST100.read_text().splitlines():
        w = shlex.split(line)
        if w and w[0] == "PBN":
            recs.append({"dealer": int(w[1]), "vul": int(w[2]), "deal": w[5]})
        elif w and w[0] == "TABLE":
            recs[-1]["table"] = [int(x) for x in w[1:]]
        elif w and w[0] == "PAR2":
            recs[-1]["par2"] = w[1:]
    start = time.perf_counter()
    tables = solve([Deal.from_pbn(r["deal"]) for r in recs], progress=True)
    seconds = time.perf_counter() - start
    tables_ok = pars_ok = 0
    for r, t in zip(recs, tables, strict=True):
        tables_ok += [t.tricks(Seat(s), st) for st in _ORDER for s in range(4)] == r["table"]
        p = par(t, _VUL[r["vul"]], Seat(r["dealer"]))
        pars_ok += (str(p.score) == r["par2"][0]
                    and sorted(c.dds_text() for c in p.contracts) == sorted(r["par2"][1:]))
    return tables_ok, pars_ok, seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-list100", action="store_true")
    args = ap.parse_args()
    result: dict[str, object] = {"bench": "records"}
    with tempfile.TemporaryDirectory() as tmp:
        ds = random_dealset(range(1, 37), event="Bench Pairs")
        cache = DDCache(Path(tmp) / "dd.sqlite")
        cpu0, wall0 = time.process_time(), time.perf_counter()
        analyse(ds, cache=cache, progress=True)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        print(f"double-dummy, 36 fresh deals: {wall / 36:.3f} s/board wall "
              f"({cpu / 36:.3f} s/board CPU over all DDS threads)")
        result.update(dd_seconds_per_board_wall=round(wall / 36, 3),
                      dd_seconds_per_board_cpu=round(cpu / 36, 3))

        start = time.perf_counter()
        analysis = dict(zip(ds.numbers, analyse(ds, cache=cache), strict=True))
        pages = records_pdf(ds, Path(tmp) / "records.pdf", analysis=analysis,
                            club="Bench BC", event="Bench Pairs", date="2026.11.22")
        html = records_html(ds, analysis=analysis)
        render = time.perf_counter() - start
        size = (Path(tmp) / "records.pdf").stat().st_size
        print(f"hand records, 36 boards, analysis cached: {render:.2f} s "
              f"({pages} pages, {size // 1024} KiB PDF, {len(html) // 1024} KiB HTML); goal <= 3 s")
        result.update(records_36_render_s=round(render, 2), records_goal_met=render <= 3.0)

        start = time.perf_counter()
        curtain_cards_pdf(ds, Path(tmp) / "curtains.pdf")
        deal_sheets_pdf(ds, Path(tmp) / "sheets.pdf")
        other = time.perf_counter() - start
        print(f"curtain cards + deal sheets, 36 boards: {other:.2f} s")
        result.update(curtains_and_sheets_36_s=round(other, 2))
        cache.close()

    if not args.skip_list100 and LIST100.is_file():
        tables_ok, pars_ok, seconds = check_list100()
        print(f"list100: {tables_ok}/100 tables and {pars_ok}/100 pars agree "
              f"({seconds:.1f} s, {seconds / 100:.3f} s/deal)")
        result.update(list100_tables_ok=tables_ok, list100_pars_ok=pars_ok,
                      list100_seconds=round(seconds, 1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
