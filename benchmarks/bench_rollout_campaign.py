"""A rollout campaign (``service.rollouts``) run with one process and with several: wall-clock time, the units'
own time added up, and whether the trees are the same.  Prints JSON.

Each run starts from a new progress file in a temporary folder (no run profits from another's units).  With
more than one process the units go to a Dask ``LocalCluster`` started for the run (its start-up and the
kernels' warm-up are in the wall time: that is what a user waits for).

    python benchmarks/bench_rollout_campaign.py                       # 5x6 Mastermind's rollout, 1 and 2 processes
    python benchmarks/bench_rollout_campaign.py --game 4,7,1 --exact-at-most 30 --width 4 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine


def one_run(spec: str, plan: Any, processes: int) -> dict[str, Any]:
    from service import rollouts
    from solver.tree import to_compact

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "progress.json")
        started = time.perf_counter()
        tree = rollouts.run(spec, plan, path, processes=processes)
        wall = time.perf_counter() - started
        doc = rollouts.read(path) or {}
        assert tree is not None
        return {"wall_s": round(wall, 2), "units_s": round(rollouts.seconds(doc), 2), "units": len(doc["units"]),
                "total": tree.stats().total, "tree": to_compact(tree)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="5,6,1")
    parser.add_argument("--strategy", default="entropy")
    parser.add_argument("--exact-at-most", type=int, default=60)
    parser.add_argument("--width", type=int, default=2)
    parser.add_argument("--from-turn", type=int, default=2)
    parser.add_argument("--levels", type=int, default=2)
    parser.add_argument("--min-size", type=int, default=None)
    parser.add_argument("--max-guesses", type=int, default=None)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()

    from service.jobs.runner import warm_process
    from solver.rollout import RolloutPlan

    warm_process()
    plan = RolloutPlan(args.strategy, args.exact_at_most, args.width, args.levels,
                       args.min_size or args.exact_at_most, args.from_turn, args.max_guesses)
    results: dict[str, Any] = {}
    trees = set()
    for p in args.processes:
        runs = [one_run(args.game, plan, p) for _ in range(args.runs)]
        trees.update(r.pop("tree") for r in runs)
        results[str(p)] = {"wall_s": statistics.median(r["wall_s"] for r in runs),
                           "units_s": statistics.median(r["units_s"] for r in runs),
                           "units": runs[0]["units"], "total": runs[0]["total"], "runs": runs}
    base = results[str(args.processes[0])]["wall_s"]
    print(json.dumps({
        "benchmark": "rollout_campaign", "game": args.game, "plan": plan.as_dict(),
        "processes": results,
        "speedup": {p: round(base / r["wall_s"], 2) for p, r in results.items()},
        "same_tree": len(trees) == 1,
        "machine": machine(),
    }, indent=1))


if __name__ == "__main__":
    main()
