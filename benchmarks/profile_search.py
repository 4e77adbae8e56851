"""Where an exact search's work goes: nodes, and what each node costs in the kernel.

A sampling profiler sees one opaque numba frame, so the kernel counts its own work
(:meth:`solver.search.Searcher.work`): nodes expanded, the candidates' rows read to count every code's
parts, and the guesses whose responses it read, with how many, candidates and other codes apart.
Prints JSON: the counts, seconds (median of ``--runs`` fresh searches) and the per-node figures that
show which loop a speed-up has to shrink.

    python benchmarks/profile_search.py [--questions bc-1.0-total,bc-0.2-total] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

from solver.game import Game
from solver.search import Searcher, SolveOptions

QUESTIONS: dict[str, tuple[str, list[str], str, int | None]] = {
    "mastermind-total": ("mastermind", [], "total", None),
    "bc-1.0-total": ("bulls-cows", ["0123 1.0"], "total", None),
    "bc-1.1-total": ("bulls-cows", ["0123 1.1"], "total", None),
    "bc-0.2-total": ("bulls-cows", ["0123 0.2"], "total", None),
    "bc-0.1-7movers": ("bulls-cows", ["0123 0.1"], "kmovers", 7),
}


def profile(name: str, runs: int) -> dict[str, Any]:
    spec, history, criterion, k = QUESTIONS[name]
    game = Game.from_spec(spec)
    turns = game.parse_history(history)
    seconds = []
    work: dict[str, int] = {}
    value = None
    for _ in range(runs):
        searcher = Searcher(game, SolveOptions(criterion, k))
        t0 = time.perf_counter()
        result = searcher.solve(turns)
        seconds.append(time.perf_counter() - t0)
        work, value = searcher.work(), result.value  # deterministic: the same counts every run
    expanded = max(1, work["expanded"])
    median = statistics.median(seconds)
    return {
        "value": value, "seconds": round(median, 3), "runs": runs, **work,
        "per_expanded_node": {
            "microseconds": round(median * 1e6 / expanded, 1),
            "mask_rows": round(work["mask_rows"] / expanded, 1),
            "scanned_others": round(work["scanned_others"] / expanded, 1),
            "reads_others": round(work["reads_others"] / expanded, 1),
            "scanned_candidates": round(work["scanned_candidates"] / expanded, 1),
            "reads_candidates": round(work["reads_candidates"] / expanded, 1),
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", default="mastermind-total,bc-1.0-total",
                    help=f"comma-separated, from: {', '.join(QUESTIONS)}")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    names = [q for q in args.questions.split(",") if q]
    unknown = [q for q in names if q not in QUESTIONS]
    if unknown:
        ap.error(f"unknown questions: {', '.join(unknown)}")
    Searcher(Game(2, 3, True), SolveOptions("total")).solve(())  # load (or compile) the kernels: not timed
    out = {"benchmark": "search-profile", "machine": machine(), "questions": {q: profile(q, args.runs) for q in names}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
