"""One exact job shared by separate worker processes, each in a working folder of its own (standing in
for machines), through one PostgreSQL database: the wall time with one worker and with two, and how
the units were split.  Prints JSON.

Each run starts from a new database (dropped and created again: no run profits from another's proven
positions), submits the job, starts the workers (``bullscows worker --processes 1``, each with its own
temporary folder as working directory and its own name) and times from submission to the job's end.

    python benchmarks/bench_two_workers.py                                   # Bulls-and-Cows after 0123 0.2
    python benchmarks/bench_two_workers.py --game mastermind --history "" --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"


def fresh_database(name: str) -> str:
    """Drop and create ``name`` on the machine's PostgreSQL; its migrated URL."""
    import sqlalchemy as sa

    from service.store.migrate import upgrade

    admin = sa.create_engine(f"{SERVER}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = f"{SERVER}/{name}"
    upgrade(url)
    return url


def run_once(workers: int, game: str, history: str, database: str) -> dict[str, Any]:
    from service.jobs.plan import JobRequest
    from service.store.db import Database
    from service.store.jobs import JobStore
    from solver.game import Game
    from solver.search import SolveOptions

    url = fresh_database(database)
    db = Database(url)
    jobs = JobStore(db)
    g = Game.from_spec(game)
    job, _ = jobs.submit(JobRequest.of(g, g.parse_history(history), SolveOptions("total")), "bench")
    folders = [tempfile.mkdtemp(prefix=f"worker{i}-") for i in range(workers)]
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--processes", "1", "--name",
                               f"w{i}", "--url", url, "--no-migrate"], cwd=folders[i], start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for i in range(workers)]
    try:
        while True:
            got = jobs.get(job.id)
            if got is not None and got.status in ("done", "failed"):
                break
            time.sleep(0.2)
        wall = time.perf_counter() - t0
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
    assert got is not None and got.status == "done", got.error if got else "vanished"
    units = jobs.units(job.id)
    result = json.loads(got.result or "{}")
    db.dispose()
    return {"wall_s": round(wall, 2), "value": result.get("value"), "nodes": result.get("nodes"),
            "units_by_worker": dict(Counter(u.worker for u in units if u.status == "done")),
            "nodes_by_worker": {w: sum(int(u.nodes) for u in units if u.worker == w and u.status == "done")
                                for w in sorted({u.worker for u in units if u.worker})}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="bulls-cows")
    ap.add_argument("--history", default="0123 0.2")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--database", default="bullscows_bench")
    args = ap.parse_args()
    out: dict[str, Any] = {"machine": machine(), "game": args.game, "history": args.history, "runs": args.runs}
    for n in (1, 2):
        runs = [run_once(n, args.game, args.history, args.database) for _ in range(args.runs)]
        out[f"workers_{n}"] = {"wall_s": statistics.median(r["wall_s"] for r in runs), "runs": runs}
        print(json.dumps({"workers": n, **runs[-1]}), file=sys.stderr, flush=True)
    out["speedup"] = round(out["workers_1"]["wall_s"] / out["workers_2"]["wall_s"], 3)
    assert out["workers_1"]["runs"][0]["value"] == out["workers_2"]["runs"][0]["value"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
