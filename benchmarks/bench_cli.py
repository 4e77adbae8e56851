"""How long the ``bullscows`` command takes to answer, process start included: what a script or a bot calling it
once per move waits for.

Each case is the installed console script, run ``--runs`` times as a fresh process (after one run that warms the
file cache): wall-clock seconds (median, min, max) and the CPU seconds the process used (user + system, median).
On a busy machine the wall time includes waiting for a core; the CPU time does not.

- ``next``: ``bullscows next -g mastermind 0012 1.0``, answered from the shipped optimal tree;
- ``solve``: ``bullscows solve -g mastermind 0012 1.0``, the value of that position, from the same tree;
- ``help``: ``bullscows --help``.

    python benchmarks/bench_cli.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

CASES: dict[str, list[str]] = {
    "next": ["next", "-g", "mastermind", "0012", "1.0"],
    "solve": ["solve", "-g", "mastermind", "0012", "1.0"],
    "help": ["--help"],
}


def command() -> list[str]:
    """The console script beside this interpreter (a virtual environment's), else ``python -m service.cli``."""
    script = os.path.join(os.path.dirname(sys.executable), "bullscows")
    if os.path.exists(script):
        return [script]
    found = shutil.which("bullscows")
    return [found] if found else [sys.executable, "-m", "service.cli"]


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one run of ``argv`` as a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def measure(argv: list[str], runs: int, env: dict[str, str]) -> dict[str, Any]:
    run_once(argv, env)  # the file cache, and numba's or Python's caches if anything is still to write
    walls, cpus, out = [], [], ""
    for _ in range(runs):
        wall, cpu, out = run_once(argv, env)
        walls.append(wall)
        cpus.append(cpu)
    return {
        "median_s": round(statistics.median(walls), 4),
        "min_s": round(min(walls), 4),
        "max_s": round(max(walls), 4),
        "cpu_median_s": round(statistics.median(cpus), 4),
        "runs": runs,
        "answer": out.strip().splitlines()[0] if out.strip() else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = command()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}  # no table: the answer is the shipped tree's
    results = {name: {"command": " ".join(["bullscows", *argv]), **measure(base + argv, args.runs, env)}
               for name, argv in CASES.items()}
    print(json.dumps({"benchmark": "cli", "machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
