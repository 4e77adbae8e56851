"""The worst-case search (`bullscows feasible`, :mod:`solver.feasible`) against the exact search's answer to
the same question (``Searcher.fits``: the optimal total within the limit, finite or not).  Prints JSON.

Each case is a position and a limit; both answers are timed (median of ``--runs`` after one warm-up run)
and must agree.  Each run makes its searches anew (the worst-case search's proofs come from an exact search
it keeps, and that keeps a table): a run never answers from the one before.  ``--big`` adds the 340
five-digit Bulls-and-Cows candidates after 01234 0.2, 10567 0.2, 08149 0.2, with four guesses left (a yes;
the exact search took 1217 s there in an earlier session: use ``--runs 1``, it can take half an hour).

    python benchmarks/bench_feasible.py
    python benchmarks/bench_feasible.py --big --runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine, timed

CASES = [
    ("4,6,1", "", 5),
    ("4,6,1", "", 4),
    ("4,6,1", "0011 0.0", 5),
    ("4,10,0", "0123 0.2, 1045 0.1", 7),
    ("4,10,0", "0123 0.2, 1045 0.1", 6),
    ("4,10,0", "0123 0.1, 1456 0.1", 6),
]
"""Yes and no, with five guesses left (Mastermind's whole game) and four (after one or two turns)."""
BIG = [("5,10,0", "01234 0.2, 10567 0.2, 08149 0.2", 7)]


def run_case(spec: str, text: str, limit: int, runs: int) -> dict[str, Any]:
    from solver.feasible import Feasibility
    from solver.game import Game
    from solver.search import Searcher, SolveOptions

    game = Game.from_spec(spec, search_max_codes=65536)
    history = game.parse_history(text)
    cands = game.candidates(history)
    left = limit - len(history)
    # a fresh Feasibility each run too: the exact search it asks for proofs keeps a table
    ours = timed(lambda: Feasibility(game).witness(cands, left, history=history).possible, runs=runs)
    exact = timed(lambda: Searcher(game, SolveOptions("total")).fits(history, cands, limit), runs=runs,
                  warmup=1 if runs > 1 else 0)
    assert ours["result"] is exact["result"], (spec, text, limit)
    return {
        "game": spec, "history": text, "max_guesses": limit, "candidates": int(cands.shape[0]),
        "possible": ours["result"],
        "feasible_s": ours["median_s"], "exact_search_s": exact["median_s"],
        "ratio": round(exact["median_s"] / max(ours["median_s"], 1e-9), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--big", action="store_true", help="Add five-digit Bulls-and-Cows (a 1 GB table, minutes).")
    args = ap.parse_args()
    cases = CASES + (BIG if args.big else [])
    out = {"machine": machine(), "cases": [run_case(*c, runs=args.runs) for c in cases]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
