"""Two costs of every set the lower bound refines, each against what it replaced.  Prints JSON.

- **Numbering of the responses.**  ``solver.lowerbound`` counts every guess's parts of a set in a
  guesses × responses matrix and scores each row.  With the game's own encoding (``bulls * (positions + 1) +
  cows``) 7×7 has 57 slots for the 7 responses that occur; ``solver.bounds.compact_responses`` numbers them
  densely.  Timed: ``one_ply_bounds`` (count and score every canonical guess) on each table.
- **Ordering the guesses.**  Each refined set walks its guesses best one-ply bound first.  Timed: a merge
  sort (``np.argsort(kind="mergesort")``, what the kernels called before) against the counting sort
  ``_ascending`` that replaced it, on the bounds ``one_ply_bounds`` gave.

Both pairs are run on the same sets and must agree exactly (the same scores, the same order).  The sets are
what a refinement meets a few plies down: the codes that answer a random response to each of ``--moves``
random guesses (so the sizes spread from a few codes to hundreds).  Median of ``--runs`` timings per band of
sizes, in microseconds per set, and the ratios.

    python benchmarks/bench_refine_tables.py                         # 7x7, three random guesses
    python benchmarks/bench_refine_tables.py --game 6,7,0 --moves 2 --sets 200 --runs 5
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine


@njit(cache=True)
def merge_order(bound):  # type: ignore[no-untyped-def]
    """The reference: the kernels' order as it was before."""
    return np.argsort(bound, kind="mergesort")


def order_all(order: Callable[[np.ndarray], np.ndarray], bounds: list[np.ndarray]) -> None:
    for b in bounds:
        order(b)


def median_us(fn: Callable[[], object], runs: int, count: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) / count)
    return round(statistics.median(times) * 1e6, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="7,7,0")
    ap.add_argument("--moves", type=int, default=3, help="random guesses (and responses) that make each set")
    ap.add_argument("--sets", type=int, default=150)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from solver.boundkernels import _ascending, _canonical_guesses, one_ply_bounds
    from solver.bounds import compact_responses, lower_bound_tables
    from solver.game import Game
    from solver.table import MMAX

    game = Game.from_spec(args.game)
    arrays = game.search_arrays()
    raw = (arrays.table, game.n_responses, game.all_bulls)
    dense = compact_responses(game, arrays.table)
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, 0, MMAX])
    rng = np.random.default_rng(args.seed)
    sets: list[tuple[np.ndarray, np.ndarray]] = []
    tries = 0
    while len(sets) < args.sets and tries < 100 * args.sets:
        tries += 1
        s = np.arange(game.size, dtype=np.int32)
        called = 0
        for g in (int(x) for x in rng.integers(0, game.size, args.moves)):
            r = arrays.table[g][s]
            s = np.ascontiguousarray(s[r == rng.choice(r)])
            called |= int(arrays.masks[g])
        if s.shape[0] > 2:
            sets.append((s, _canonical_guesses(arrays.codes, arrays.masks, s, called, game.symbols)))
    if not sets:
        raise SystemExit("no set of three codes or more: fewer --moves")

    def one_ply(numbering: tuple[Any, int, int], chosen: list[Any]) -> list[np.ndarray]:
        table, n_resp, win = numbering
        outs = []
        for s, guesses in chosen:
            out = np.empty(guesses.shape[0], dtype=np.int64)
            one_ply_bounds(table, s, guesses, lb0, n_resp, win, out)
            outs.append(out)
        return outs

    one_ply(raw, sets[:1]), one_ply(dense, sets[:1])  # load or compile before timing
    bounds = one_ply(raw, sets)
    if any(not np.array_equal(a, b) for a, b in zip(bounds, one_ply(dense, sets), strict=True)):
        raise SystemExit("the two numberings score some guess differently")
    merge_order(bounds[0]), _ascending(bounds[0])
    if any(not np.array_equal(merge_order(b), _ascending(b)) for b in bounds):
        raise SystemExit("the two orders differ")

    bands: list[dict[str, Any]] = []
    for lo, hi in ((3, 10), (10, 40), (40, 150), (150, 1 << 30)):
        picked = [i for i, (s, _) in enumerate(sets) if lo <= s.shape[0] < hi]
        if not picked:
            continue
        chosen = [sets[i] for i in picked]
        their = [bounds[i] for i in picked]
        row: dict[str, Any] = {"sizes": [lo, hi if hi < 1 << 30 else None], "sets": len(chosen),
                               "mean_size": round(float(np.mean([s.shape[0] for s, _ in chosen])), 1),
                               "mean_guesses": round(float(np.mean([g.shape[0] for _, g in chosen])), 1)}
        row["one_ply_raw_us"] = median_us(functools.partial(one_ply, raw, chosen), args.runs, len(chosen))
        row["one_ply_dense_us"] = median_us(functools.partial(one_ply, dense, chosen), args.runs, len(chosen))
        row["numbering_speedup"] = round(row["one_ply_raw_us"] / row["one_ply_dense_us"], 2)
        row["merge_sort_us"] = median_us(functools.partial(order_all, merge_order, their), args.runs, len(chosen))
        row["counting_sort_us"] = median_us(functools.partial(order_all, _ascending, their), args.runs, len(chosen))
        row["order_speedup"] = round(row["merge_sort_us"] / row["counting_sort_us"], 2)
        bands.append(row)
    print(json.dumps({"game": game.spec, "responses": {"encoding": game.n_responses, "dense": dense[1]},
                      "moves": args.moves, "sets": len(sets), "runs": args.runs, "bands": bands,
                      "machine": machine()}, indent=1))


if __name__ == "__main__":
    main()
