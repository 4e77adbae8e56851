"""A rollout campaign run as a job (`bullscows campaign run SPEC` of a rollout spec: a worker, every subtree in an
SQLite database, the progress file written from it) by a worker of one process, then of two.  Prints JSON: the wall
time of each (median of ``--runs``, interleaved), the units' own time added up, their ratio, and whether the trees
are the same.

Each run starts from nothing (a new folder: no progress file, no database), and both times include what the
command pays to start (the worker, its Dask cluster, the database), as a user running the command would.

    python benchmarks/bench_rollout_campaign.py                       # 5x6 Mastermind's rollout, 1 and 2 processes
    python benchmarks/bench_rollout_campaign.py --game 4,7,1 --exact-at-most 30 --width 4 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_run(spec: str, plan: dict[str, Any], processes: int) -> dict[str, Any]:
    from service import rollouts
    from solver.game import Game
    from solver.rollout import RolloutPlan
    from solver.tree import to_compact

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rollout.campaign.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"format": "bullscows-campaign", "version": 1, "kind": "rollout", "game": spec, "plan": plan,
                       "progress": "rollout.json"}, fh)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "service.cli", "campaign", "run", path, "--processes", str(processes),
                        "--url", f"sqlite:///{os.path.join(tmp, 'jobs.sqlite3')}", "--json"],
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        doc = rollouts.read(os.path.join(tmp, "rollout.json")) or {}
        tree = rollouts.tree_of(Game.from_spec(spec), RolloutPlan(**plan), doc)
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
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from solver.rollout import RolloutPlan

    plan = RolloutPlan(args.strategy, args.exact_at_most, args.width, args.levels,
                       args.min_size or args.exact_at_most, args.from_turn, args.max_guesses).as_dict()
    rows: dict[str, list[dict[str, Any]]] = {"1": [], "2": []}
    for _ in range(args.runs):  # interleaved, so that the machine's load weighs on both alike
        for processes in (1, 2):
            rows[str(processes)].append(one_run(args.game, plan, processes))
    trees = {r.pop("tree") for runs in rows.values() for r in runs}
    results = {p: {"wall_s": statistics.median(r["wall_s"] for r in runs),
                   "units_s": statistics.median(r["units_s"] for r in runs),
                   "units": runs[0]["units"], "total": runs[0]["total"], "runs": runs} for p, runs in rows.items()}
    print(json.dumps({
        "benchmark": "rollout_campaign", "game": args.game, "plan": plan,
        "processes": results,
        "speedup": round(results["1"]["wall_s"] / results["2"]["wall_s"], 3),
        "same_tree": len(trees) == 1,
        "machine": machine(),
    }, indent=1))


if __name__ == "__main__":
    main()
