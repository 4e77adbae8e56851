"""A lower-bound campaign run two ways on two processes: with its own progress file and Dask driver
(`bullscows atlas bounds --campaign`'s ``bound_campaigns.run``), and as a job of the job system
(`bullscows campaign run SPEC`: a worker of two processes, every proof in an SQLite database, the progress file
written from it at the end).  Prints JSON: the wall time of each (median of ``--runs``), their ratio, and the bound
each proved (they must agree).

Each run starts from nothing (a new folder: no progress file, no database), and both times include what each way
pays to start (its Dask cluster, the worker's database and warm-up), as a user running the command would.

    python benchmarks/bench_bound_jobs.py                         # 4x7 with repetition, 4 plies (five first guesses)
    python benchmarks/bench_bound_jobs.py --game 4,8,0 --depth 5  # one class of first guess: the job cuts it in parts
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
FILE_WAY = ("import sys, json; from service import bound_campaigns as b; "
            "print(json.dumps(b.run(sys.argv[1], int(sys.argv[2]), None, sys.argv[3], processes=2)))")


def file_way(spec: str, depth: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", FILE_WAY, spec, str(depth), os.path.join(tmp, "bounds.json")],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True,
                             check=True)
        wall = time.perf_counter() - started
        return wall, int(json.loads(out.stdout.strip().splitlines()[-1])["value"])


def job_way(spec: str, depth: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bounds.campaign.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"format": "bullscows-campaign", "version": 1, "kind": "bound", "game": spec, "depth": depth,
                       "target": None, "progress": "bounds.json"}, fh)
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "service.cli", "campaign", "run", path, "--processes", "2",
                              "--url", f"sqlite:///{os.path.join(tmp, 'jobs.sqlite3')}", "--json"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        return wall, int(json.loads(out.stdout.strip().splitlines()[-1])["value"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="4,7,1")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    file_way(args.game, 2)  # numba's cache loaded, in both ways' processes alike
    rows: dict[str, list[float]] = {"file": [], "job": []}
    values: set[int] = set()
    for _ in range(args.runs):  # interleaved, so that the machine's load weighs on both alike
        for name, way in (("file", file_way), ("job", job_way)):
            wall, value = way(args.game, args.depth)
            rows[name].append(round(wall, 2))
            values.add(value)
    if len(values) != 1:
        raise SystemExit(f"the two ways proved different bounds: {sorted(values)}")
    med = {k: statistics.median(v) for k, v in rows.items()}
    out: dict[str, Any] = {"benchmark": "bound_jobs", "game": args.game, "depth": args.depth, "bound": values.pop(),
                           "processes": 2, "runs": args.runs, "file_seconds": rows["file"], "job_seconds": rows["job"],
                           "file_median": med["file"], "job_median": med["job"],
                           "job_over_file": round(med["job"] / med["file"], 3), "machine": machine()}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
