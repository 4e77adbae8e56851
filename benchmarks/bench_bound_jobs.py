"""A lower-bound campaign run as a job (`bullscows campaign run SPEC`: a worker, every proof in an SQLite database,
the progress file written from it at the end) by a worker of one process, then of two.  Prints JSON: the wall
time of each (median of ``--runs``), their ratio, and the bound each proved (they must agree).

Each run starts from nothing (a new folder: no progress file, no database), and both times include what the
command pays to start (the worker, its Dask cluster, the database), as a user running the command would.

    python benchmarks/bench_bound_jobs.py                         # 4x7 with repetition, 4 plies (five first guesses)
    python benchmarks/bench_bound_jobs.py --game 5,7,0 --depth 4  # one class of first guess: the job cuts it in parts
    python benchmarks/bench_bound_jobs.py --game 6,7,0 --depth 4 --parts 1.5  # one part of 264 codes: a unit per
                                                                                # second guess
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


def job_way(spec: str, depth: int, processes: int, parts: list[str]) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bounds.campaign.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"format": "bullscows-campaign", "version": 1, "kind": "bound", "game": spec, "depth": depth,
                       "target": None, "parts": parts, "progress": "bounds.json"}, fh)
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "service.cli", "campaign", "run", path, "--processes",
                              str(processes), "--url", f"sqlite:///{os.path.join(tmp, 'jobs.sqlite3')}", "--json"],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True,
                             check=True)
        wall = time.perf_counter() - started
        return wall, int(json.loads(out.stdout.strip().splitlines()[-1])["value"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="4,7,1")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parts", default="", help="Refine only these parts of each first guess ('1.5,0.6').")
    args = ap.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    job_way(args.game, 2, 1, [])  # numba's cache loaded
    rows: dict[str, list[float]] = {"one": [], "two": []}
    values: set[int] = set()
    for _ in range(args.runs):  # interleaved, so that the machine's load weighs on both alike
        for name, processes in (("one", 1), ("two", 2)):
            wall, value = job_way(args.game, args.depth, processes, parts)
            rows[name].append(round(wall, 2))
            values.add(value)
    if len(values) != 1:
        raise SystemExit(f"the two runs proved different bounds: {sorted(values)}")
    med = {k: statistics.median(v) for k, v in rows.items()}
    out: dict[str, Any] = {"benchmark": "bound_jobs", "game": args.game, "depth": args.depth, "parts": parts,
                           "bound": values.pop(),
                           "runs": args.runs, "one_process_seconds": rows["one"], "two_processes_seconds": rows["two"],
                           "one_process_median": med["one"], "two_processes_median": med["two"],
                           "speed_up": round(med["one"] / med["two"], 3), "machine": machine()}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
