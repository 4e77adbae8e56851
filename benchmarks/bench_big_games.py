"""The exact search on games beyond 8192 codes: what its response table costs, what computing responses
instead would cost, and how long exact searches of small positions take.  Prints JSON.

For each game (by default Super Mastermind, 5x8 with repetition, 32768 codes, and five-digit
Bulls-and-Cows, 5 of 10 distinct, 30240 codes):

- ``table``: seconds to build the n² response table, its bytes, and the process's peak memory after a
  :class:`solver.search.Searcher` (table, workspaces, lower-bound tables) exists;
- ``partition``: the search's inner step, counting how a set splits under every guess
  (``kernels.partition_matrix``), on a set of ``--set-size`` codes against ``--guesses`` guesses, read from
  the table and computed from the codes; their ratio is why the search keeps the table;
- ``searches``: exact optimal totals of positions after two guesses whose candidates number about
  ``--targets`` codes, with nodes and seconds (one run each: the table they fill is reused);
- ``root_split``: ``--positions`` positions of 21-30 candidates after two guesses of the game's shipped tree,
  solved with the root split guess by guess (as games up to 8192 codes are) and in one kernel call (the
  default beyond): why small sets of big games skip the split.

    python benchmarks/bench_big_games.py
    python benchmarks/bench_big_games.py --games 5,8,1 --targets 20 40
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine, timed

SECOND = {"5,8,1": ("00112", "33456"), "5,10,0": ("01234", "56789")}
"""The first two guesses of the searched positions, per game (a standard opening and a disjoint one)."""


def _peak_gb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024, 3)


def bench_game(spec: str, set_size: int, n_guesses: int, targets: list[int], runs: int,
               positions: int) -> dict[str, Any]:
    import numpy as np

    from solver import kernels
    from solver.game import Game, Turn
    from solver.search import Searcher, SolveOptions

    game = Game.from_spec(spec)
    out: dict[str, Any] = {"game": game.spec, "codes": game.size}
    t0 = time.perf_counter()
    arrays = game.search_arrays()
    out["table"] = {"build_s": round(time.perf_counter() - t0, 3), "bytes": int(arrays.table.nbytes)}
    t0 = time.perf_counter()
    searcher = Searcher(game, SolveOptions("total"), table_capacity=1 << 22)
    out["table"]["searcher_s"] = round(time.perf_counter() - t0, 3)
    out["table"]["peak_rss_gb"] = _peak_gb()

    rng = np.random.default_rng(1)
    cands = np.sort(rng.choice(game.size, size=set_size, replace=False)).astype(np.int32)
    guesses = rng.choice(game.size, size=n_guesses, replace=False).astype(np.int32)
    empty = np.zeros((0, 0), dtype=np.uint8)
    with_table = timed(lambda: kernels.partition_matrix(arrays.table, arrays.codes, arrays.masks, arrays.counts,
                                                        guesses, cands, game.n_responses), runs=runs)
    computed = timed(lambda: kernels.partition_matrix(empty, arrays.codes, arrays.masks, arrays.counts,
                                                      guesses, cands, game.n_responses), runs=runs)
    same = bool(np.array_equal(with_table.pop("result"), computed.pop("result")))
    pairs = set_size * n_guesses
    out["partition"] = {
        "set_size": set_size, "guesses": n_guesses, "same_counts": same,
        "table": {**with_table, "ns_per_response": round(with_table["median_s"] / pairs * 1e9, 2)},
        "computed": {**computed, "ns_per_response": round(computed["median_s"] / pairs * 1e9, 2)},
        "computed_over_table": round(computed["median_s"] / with_table["median_s"], 2),
    }

    first, second = (game.parse_code(c) for c in SECOND[spec])
    after_first = game.candidates(())
    row1 = arrays.table[first, after_first]
    searches = []
    for target in targets:
        best: tuple[int, int, int] | None = None
        for r1 in np.unique(row1):
            s1 = after_first[row1 == r1]
            row2 = arrays.table[second, s1]
            for r2 in np.unique(row2):
                size = int((row2 == r2).sum())
                if best is None or abs(size - target) < abs(best[0] - target):
                    best = (size, int(r1), int(r2))
        assert best is not None
        history = (Turn(first, best[1]), Turn(second, best[2]))
        before = searcher.nodes
        t0 = time.perf_counter()
        result = searcher.solve(history)
        searches.append({
            "history": ", ".join(f"{game.format_code(t.guess)} {game.format_response(t.response)}" for t in history),
            "candidates": best[0], "value": result.value, "exact": result.exact,
            "nodes": searcher.nodes - before, "seconds": round(time.perf_counter() - t0, 3)})
    out["searches"] = searches
    out["root_split"] = root_split(game, positions)
    out["peak_rss_gb"] = _peak_gb()
    return out


def root_split(game: Any, count: int) -> dict[str, Any]:
    """Positions of 21-30 candidates after two guesses of the game's shipped best-known tree (what its hybrid
    searches), solved from an empty table with the root split guess by guess (the atlas's way,
    ``SPLIT_ROOT_MAX_CODES`` raised) and in one kernel call (the default past 8192 codes)."""
    import solver.search as search
    from service.trees import TreeLibrary
    from solver.game import Turn
    from solver.vocabulary import BEST_KNOWN

    stored = TreeLibrary().get(game, BEST_KNOWN, None)
    if stored is None:
        return {"skipped": "no best-known tree shipped"}
    root = stored.tree.root
    histories = [(Turn(root.guess, r1), Turn(c1.guess, r2)) for r1, c1 in sorted(root.children.items())
                 for r2, c2 in sorted(c1.children.items()) if 21 <= c2.size <= 30][:count]
    out: dict[str, Any] = {"positions": len(histories)}
    default = search.SPLIT_ROOT_MAX_CODES
    for mode, limit in (("split", 1 << 30), ("kernel", default)):
        search.SPLIT_ROOT_MAX_CODES = limit
        try:
            s = search.Searcher(game, search.SolveOptions("total"), table_capacity=1 << 22)
            t0 = time.perf_counter()
            values = [s.solve(list(h)).value for h in histories]
            out[mode] = {"seconds": round(time.perf_counter() - t0, 3), "nodes": s.nodes, "total": sum(values)}
        finally:
            search.SPLIT_ROOT_MAX_CODES = default
    out["split_over_kernel"] = round(out["split"]["seconds"] / max(out["kernel"]["seconds"], 1e-9), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=["5,8,1", "5,10,0"], choices=sorted(SECOND))
    ap.add_argument("--set-size", type=int, default=2000)
    ap.add_argument("--guesses", type=int, default=4000)
    ap.add_argument("--targets", type=int, nargs="+", default=[15, 30, 60])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--positions", type=int, default=8, help="positions of the root-split comparison")
    args = ap.parse_args()
    results = [bench_game(g, args.set_size, args.guesses, args.targets, args.runs, args.positions)
               for g in args.games]
    print(json.dumps({"benchmark": "big_games", "machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
