"""Exact-search benchmark: Mastermind optima from an empty table, Bulls-and-Cows hybrid columns.

Prints one JSON document.  Mastermind rows are the median of ``--runs`` runs, each with a fresh
searcher (empty transposition table; kernels already compiled by a warm-up run).  Bulls-and-Cows rows
solve each response after 0123 under one column's parameters (one run each — they are long), with
the published figure beside ours.  Targets (issue 3): Mastermind 5625 under 3 s, 5626 and 539 under
5 s on one core.

    python benchmarks/bench_search.py [--runs 3] [--columns avg45,fso,crush45] [--responses 2.1,3.0]
    python benchmarks/bench_search.py --skip-mastermind --columns crush35 --max-candidates 800
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine, timed

from solver.game import Game
from solver.search import Searcher, SolveOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLISHED = os.path.join(ROOT, "..", "shared", "reference", "published.json")

MASTERMIND = {
    "total_unlimited": SolveOptions("total"),
    "total_at_most_5": SolveOptions("total", max_guesses=5),
    "five_movers": SolveOptions("kmovers", max_guesses=5),
}

COLUMNS = {
    # minimal total (max 7 guesses), article section 5.2.1
    "avg35": SolveOptions("total", max_guesses=7, mde=2),
    "avg45": SolveOptions("total", max_guesses=7, mde=3),
    "fso": SolveOptions("total", max_guesses=7, mde=3, from_set_only=True),
    "avg5": SolveOptions("total", max_guesses=7, mde=4),
    "exact_total": SolveOptions("total", max_guesses=7),
    # minimal 7-movers, article section 5.1.1
    "crush35": SolveOptions("kmovers", max_guesses=7, mde=2),
    "crush45": SolveOptions("kmovers", max_guesses=7, mde=3),
    "crush5": SolveOptions("kmovers", max_guesses=7, mde=4),
    "exact_kmovers": SolveOptions("kmovers", max_guesses=7),
}


def published_value(pub: dict[str, Any], column: str, response: str) -> int | None:
    if column in ("crush35", "crush45", "crush5", "exact_kmovers"):
        key = "exact" if column == "exact_kmovers" else column
        row = pub["min_kmovers"]["bulls-cows"]["by_first_response"][key]
        return row.get(response, row.get("other"))  # type: ignore[no-any-return]
    table = pub["min_total"]["bulls-cows"]["by_response_after_0123"]
    key = "exact" if column == "exact_total" else column
    return table[response][table["_columns"].index(key)]  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-mastermind", action="store_true")
    ap.add_argument("--columns", default="avg45,fso,crush45")
    ap.add_argument("--responses", default="", help="responses after 0123 (default: all)")
    ap.add_argument("--max-candidates", type=int, default=100000,
                    help="skip responses leaving more candidates than this")
    args = ap.parse_args()
    with open(PUBLISHED, encoding="utf-8") as fh:
        pub = json.load(fh)
    out: dict[str, Any] = {"benchmark": "search", "machine": machine()}

    if not args.skip_mastermind:
        mm = Game.from_spec("mastermind")
        Searcher(mm, SolveOptions("kmovers", max_guesses=5)).solve()  # compile the kernels
        rows = {}
        for name, options in MASTERMIND.items():
            t = timed(lambda options=options: Searcher(mm, options).solve(), runs=args.runs, warmup=0)
            res = t.pop("result")
            rows[name] = {**t, "value": res.value, "best_guess": mm.format_code(res.best_guess),
                          "nodes": res.nodes}
        out["mastermind"] = rows

    bc = Game.from_spec("bulls-cows")
    responses = [r for r in args.responses.split(",") if r] or sorted(
        pub["partition_after_0123_bulls_cows"], key=lambda r: pub["partition_after_0123_bulls_cows"][r])
    cols: dict[str, Any] = {}
    for column in [c for c in args.columns.split(",") if c]:
        options = COLUMNS[column]
        searcher = Searcher(bc, options)
        rows = {}
        for resp in responses:
            history = [bc.parse_turn(f"0123 {resp}")]
            n = int(bc.candidates(history).shape[0])
            if n > args.max_candidates or resp == "4.0":
                continue
            t0 = time.perf_counter()
            res = searcher.solve(history)
            seconds = time.perf_counter() - t0
            want = published_value(pub, column, resp)
            rows[resp] = {"candidates": n, "value": res.value, "published": want,
                          "match": res.value == want, "seconds": round(seconds, 3), "nodes": res.nodes,
                          "best_guess": None if res.best_guess is None else bc.format_code(res.best_guess)}
            print(f"# {column} 0123 {resp}: {res.value} (published {want}) {seconds:.1f} s",
                  file=sys.stderr, flush=True)
        cols[column] = rows
    out["bulls_cows_after_0123"] = cols
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
