"""The sweep (``solver.sweep``: a position's guesses evaluated best refined bound first) against the exact search
alone, on the same positions.  Prints JSON.

For each position: its candidates, the value each method proves and its wall-clock and CPU seconds (median of
``--runs``, each in a fresh searcher so that no table carries over), the search cut at ``--cap`` seconds (its
result is then only "not finished").  One warm-up call on a small position comes first, so that neither pays
for loading the kernels.

    python benchmarks/bench_sweep.py                                      # 6x7: a 99-candidate set
    python benchmarks/bench_sweep.py --game 6,7,0 --history "012345 0.5, 120456 0.6" --cap 300 --runs 1
    python benchmarks/bench_sweep.py --game 4,7,0 --history "0123 0.2" --kernel-at-most 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine


def timed(call: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="6,7,0")
    ap.add_argument("--history", default="012345 1.5, 012453 0.6")
    ap.add_argument("--max-guesses", type=int, default=None)
    ap.add_argument("--kernel-at-most", type=int, default=60)
    ap.add_argument("--cap", type=float, default=600.0, help="seconds before the exact search alone is stopped")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    from solver.game import Game
    from solver.search import Searcher, SolveOptions
    from solver.sweep import Sweeper

    game = Game.from_spec(args.game)
    turns = game.parse_history(args.history) if args.history else []
    n = len(game.candidates(turns))
    options = SolveOptions("total", args.max_guesses)
    Searcher(game, options).solve(turns, cands=game.candidates(turns)[:8])  # warm-up: kernels loaded

    sweeps, searches = [], []
    for _ in range(args.runs):
        sweeper = Sweeper(game, max_guesses=args.max_guesses, kernel_at_most=args.kernel_at_most)
        res, wall, cpu = timed(lambda sweeper=sweeper: sweeper.value(turns))
        sweeps.append({"value": res.value, "exact": res.exact, "guesses": res.guesses, "wall_s": wall, "cpu_s": cpu})
        searcher = Searcher(game, options, table_capacity=1 << 22)
        ref, wall, cpu = timed(lambda searcher=searcher: searcher.solve_within(turns, args.cap, options=options))
        searches.append({"value": ref.value if ref.exact else None, "finished": not ref.cut, "nodes": ref.nodes,
                         "wall_s": wall, "cpu_s": cpu})

    def median(rows: list[dict[str, Any]], key: str) -> float:
        return round(statistics.median(r[key] for r in rows), 2)

    sweep = {"value": sweeps[0]["value"], "exact": all(r["exact"] for r in sweeps), "guesses": sweeps[0]["guesses"],
             "wall_s": median(sweeps, "wall_s"), "cpu_s": median(sweeps, "cpu_s")}
    search = {"value": searches[0]["value"], "finished": all(r["finished"] for r in searches),
              "nodes": searches[0]["nodes"], "wall_s": median(searches, "wall_s"), "cpu_s": median(searches, "cpu_s"),
              "cap_s": args.cap}
    agree = None if not search["finished"] else search["value"] == sweep["value"]
    print(json.dumps({"game": game.spec, "history": args.history, "candidates": n, "max_guesses": args.max_guesses,
                      "kernel_at_most": args.kernel_at_most, "runs": args.runs, "sweep": sweep, "search": search,
                      "agree": agree,
                      # the search cut at the cap: its time is only a floor, and so is the ratio
                      ("speedup" if search["finished"] else "speedup_at_least"):
                          round(search["wall_s"] / sweep["wall_s"], 2) if sweep["wall_s"] else None,
                      "machine": machine()}, indent=1))


if __name__ == "__main__":
    main()
