"""The lower bound's innermost kernel (``solver.boundkernels.one_ply_bounds``: every guess's one-ply bound of a set)
against the way it counted before, guess by guess.  Prints JSON.

Why: a refinement several plies deep spends nearly all its time there (each set refined scores every
canonical guess against every code of the set), so the kernel's speed is the bound's speed.  The shipped
kernel counts code by code, every guess at once (a response is symmetric, so a code's row of the table
gives its response to every guess); the reference below, kept here only to measure against, counts guess by
guess, each guess's counts in one small array.  Both are run on the same sets and must agree exactly.

The sets are what a refinement meets two plies down: the part of a random guess's response, split again by
another random guess (so the sizes spread from a few codes to hundreds).  Median of ``--runs`` timings per
band of sizes, in microseconds per set, and the ratio.

    python benchmarks/bench_one_ply.py                    # 5x6 with repetition (Mastermind with 5 pegs)
    python benchmarks/bench_one_ply.py --game 8,3,1 --sets 200 --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine
from solver.question import INF


@njit(cache=True)
def guess_by_guess(table, S, guesses, lb0, n_resp, win, out):  # type: ignore[no-untyped-def]
    """The reference: each guess's parts counted alone (the kernel as it was before)."""
    n = S.shape[0]
    cnt = np.zeros(n_resp, dtype=np.int64)
    for i in range(guesses.shape[0]):
        row = table[guesses[i]]
        cnt[:] = 0
        for k in range(n):
            cnt[row[S[k]]] += 1
        s = n
        for r in range(n_resp):
            if r == win:
                continue
            c = cnt[r]
            if c == n:
                s = INF
                break
            s += lb0[c]
        out[i] = s if s < INF else INF


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="5,6,1")
    ap.add_argument("--sets", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from solver.boundkernels import _canonical_guesses, one_ply_bounds
    from solver.bounds import kernel_responses, lower_bound_tables
    from solver.game import Game
    from solver.table import MMAX

    game = Game.from_spec(args.game)
    arrays = game.search_arrays()
    table, n_resp, win = kernel_responses(game, arrays.table)
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, 0, MMAX])
    everything = np.arange(game.size, dtype=np.int32)
    rng = np.random.default_rng(args.seed)
    sets = []
    while len(sets) < args.sets:
        g1, g2 = (int(x) for x in rng.integers(0, game.size, 2))
        r1 = table[g1][everything]
        s1 = everything[r1 == rng.choice(r1)]
        r2 = table[g2][s1]
        s2 = np.ascontiguousarray(s1[r2 == rng.choice(r2)])
        if s2.shape[0] > 2:
            called = int(arrays.masks[g1] | arrays.masks[g2])
            sets.append((s2, _canonical_guesses(arrays.codes, arrays.masks, s2, called, game.symbols)))

    kernels = {"guess_by_guess": guess_by_guess, "code_by_code": one_ply_bounds}
    for fn in kernels.values():  # load or compile both before timing
        fn(table, sets[0][0], sets[0][1], lb0, n_resp, win, np.empty(sets[0][1].shape[0], dtype=np.int64))
    for s, guesses in sets:  # the same bounds, or the comparison means nothing
        a, b = (np.empty(guesses.shape[0], dtype=np.int64) for _ in range(2))
        guess_by_guess(table, s, guesses, lb0, n_resp, win, a)
        one_ply_bounds(table, s, guesses, lb0, n_resp, win, b)
        if not np.array_equal(a, b):
            raise SystemExit("the two kernels disagree")

    bands: list[dict[str, Any]] = []
    for lo, hi in ((3, 10), (10, 40), (40, 150), (150, 1 << 30)):
        chosen = [(s, g) for s, g in sets if lo <= s.shape[0] < hi]
        if not chosen:
            continue
        row: dict[str, Any] = {"sizes": [lo, hi if hi < 1 << 30 else None], "sets": len(chosen),
                               "mean_size": round(float(np.mean([s.shape[0] for s, _ in chosen])), 1),
                               "mean_guesses": round(float(np.mean([g.shape[0] for _, g in chosen])), 1)}
        for name, fn in kernels.items():
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                for s, guesses in chosen:
                    fn(table, s, guesses, lb0, n_resp, win, np.empty(guesses.shape[0], dtype=np.int64))
                times.append((time.perf_counter() - t0) / len(chosen))
            row[f"{name}_us_per_set"] = round(statistics.median(times) * 1e6, 1)
        row["speedup"] = round(row["guess_by_guess_us_per_set"] / row["code_by_code_us_per_set"], 2)
        bands.append(row)
    print(json.dumps({"game": game.spec, "sets": len(sets), "runs": args.runs, "bands": bands,
                      "machine": machine()}, indent=1))


if __name__ == "__main__":
    main()
