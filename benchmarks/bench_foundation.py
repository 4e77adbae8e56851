"""Foundation benchmark: response tables and every one-step strategy's full tree, both presets.

Prints one JSON document: machine info, then per game the median seconds (of ``--runs`` runs, after
a warm-up that compiles the kernels) of building the response table and of building each strategy's
whole tree from the empty position, with the tree's total as a check.  Targets (issue 2): a table of
5040 codes under 0.1 s; any one-step Bulls-and-Cows tree under 2 s on one core.

    python benchmarks/bench_foundation.py [--runs 3] [--games bulls-cows,mastermind]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine, timed

from solver import kernels
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy
from solver.tree import build_tree, strategy_chooser


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", default="bulls-cows,mastermind")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    args = ap.parse_args()
    out: dict[str, object] = {"benchmark": "foundation", "machine": machine(), "games": {}}
    for name in args.games.split(","):
        game = Game.from_spec(name)
        base = game.arrays(table=False)
        table = timed(lambda base=base: kernels.response_table(base.codes, base.masks, base.counts).shape,
                      runs=max(args.runs, 5))
        arrays = game.arrays(table=True)
        trees = {}
        for sname in args.strategies.split(","):
            strat = get_strategy(sname)
            t = timed(lambda strat=strat, sname=sname, game=game, arrays=arrays: build_tree(
                game, strategy_chooser(game, strat, arrays), strategy=sname, arrays=arrays).stats(),
                runs=args.runs)
            stats = t.pop("result")
            trees[sname] = {**t, "total": stats.total, "average": round(stats.average, 4),
                            "worst_case": stats.worst_case, "nodes": stats.nodes}
        table.pop("result")
        out["games"][name] = {"codes": game.size, "response_table": table, "trees": trees}  # type: ignore[index]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
