"""Bulls-and-Cows hybrid tables (crush45, avg45, fso) as jobs: wall time, CPU time and the speed-up
from one to two Dask worker processes.  Prints JSON.

Every run starts from an empty SQLite database and a fresh LocalCluster, so no run profits from
another's persistent or in-memory transposition table.  CPU time is that of the Dask worker
processes (reaped children) plus the coordinator's own.

    python benchmarks/bench_jobs.py                       # positions after 0123 1.1, 1 and 2 processes
    python benchmarks/bench_jobs.py --history "" --repeats 3   # the whole game (long)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine

TABLES = {
    "crush45": dict(criterion="kmovers", max_guesses=7, mde=3),
    "avg45": dict(criterion="total", max_guesses=7, mde=3),
    "fso": dict(criterion="total", max_guesses=7, mde=3, from_set_only=True),
}


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def run_once(table: str, history: str, processes: int) -> dict[str, Any]:
    from distributed import Client, LocalCluster

    from service.jobs.coordinator import Coordinator, WorkerConfig
    from service.jobs.plan import JobRequest
    from service.store.db import Database
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade
    from solver.game import Game
    from solver.search import SolveOptions

    folder = tempfile.mkdtemp(prefix="bench-jobs-")
    url = f"sqlite:///{folder}/jobs.sqlite3"
    upgrade(url)
    bc = Game.from_spec("bulls-cows")
    jobs = JobStore(Database(url))
    job, _ = jobs.submit(JobRequest.of(bc, bc.parse_history(history), SolveOptions(**TABLES[table])), "bench")
    cpu_children0, cpu_self0 = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF)
    cluster = LocalCluster(n_workers=processes, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    t0 = time.perf_counter()
    coord = Coordinator(url, client, WorkerConfig(poll_s=0.05))
    coord.run(until_idle=True)
    wall = time.perf_counter() - t0
    client.close()
    cluster.close()
    cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu_children0 + _cpu(resource.RUSAGE_SELF) - cpu_self0
    done = jobs.get(job.id)
    assert done is not None and done.status == "done", done and done.error
    result = json.loads(done.result or "{}")
    units = jobs.units(job.id)
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "value": result["value"], "nodes": result["nodes"],
            "units": len(units), "unit_seconds": round(sum(float(u.seconds) for u in units), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default="0123 1.1", help="Position of the jobs ('' = the whole game).")
    ap.add_argument("--tables", nargs="*", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--processes", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    out: dict[str, Any] = {"benchmark": "jobs", "machine": machine(), "history": args.history,
                           "repeats": args.repeats, "tables": {}}
    for table in args.tables:
        row: dict[str, Any] = {}
        for p in args.processes:
            runs = [run_once(table, args.history, p) for _ in range(args.repeats)]
            values = {r["value"] for r in runs}
            assert len(values) == 1, f"{table}: runs disagree {values}"
            row[f"{p}_processes"] = {
                "value": runs[0]["value"], "units": runs[0]["units"],
                "wall_median_s": round(statistics.median(r["wall_s"] for r in runs), 3),
                "cpu_median_s": round(statistics.median(r["cpu_s"] for r in runs), 3),
                "nodes_median": statistics.median(r["nodes"] for r in runs),
                "runs": runs,
            }
        if len(args.processes) >= 2:
            a, b = args.processes[0], args.processes[-1]
            row["speedup"] = round(row[f"{a}_processes"]["wall_median_s"] / row[f"{b}_processes"]["wall_median_s"], 3)
        out["tables"][table] = row
        print(json.dumps({table: row}), file=sys.stderr)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
