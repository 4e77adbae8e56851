"""The symmetry classes of a history (``solver.symmetry.equivalence_set``), by game and number of moves.
Prints JSON.

Why: an exact search of a short history splits its root guess by guess, and asks for the classes of every
guess's history; in a rolled-out tree of a 6- or 7-position game that bookkeeping was nearly all of the time
(py-spy, ``atlas hybrid -g 6,7,0 --rollout-width 8``: 87 % in ``_transforms``, which tried all p! position
permutations in Python).  Run it at two commits to compare; the histories are the same at each (seeded).

    python benchmarks/bench_symmetry.py
    python benchmarks/bench_symmetry.py --games 6,7,0 7,7,0 --histories 8 --runs 5
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine, timed
from solver.game import Game
from solver.symmetry import equivalence_set


def _classes(game: Game, histories: list[list[int]]) -> int:
    """Classes of every history, summed (the result, the same at every commit)."""
    return sum(int(equivalence_set(game, h).shape[0]) for h in histories)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["4,6,1", "4,10,0", "5,8,0", "6,7,0", "7,7,0"])
    parser.add_argument("--moves", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--histories", type=int, default=4, help="Random histories per game and length.")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for spec in args.games:
        game = Game.from_spec(spec)
        for k in args.moves:
            rng = random.Random(f"{spec}/{k}")
            histories = [[rng.randrange(game.size) for _ in range(k)] for _ in range(args.histories)]
            t = timed(functools.partial(_classes, game, histories), runs=args.runs)
            rows.append({"game": spec, "moves": k, "histories": len(histories), "classes": t["result"],
                         "ms_per_history": round(1000 * t["median_s"] / len(histories), 2),
                         "min_ms": round(1000 * t["min_s"] / len(histories), 2),
                         "max_ms": round(1000 * t["max_s"] / len(histories), 2)})
    print(json.dumps({"benchmark": "symmetry classes of a history", "runs": args.runs, "rows": rows,
                      "machine": machine()}, indent=1))


if __name__ == "__main__":
    main()
