"""Trees too big for a request, built by jobs: how long the page waits for them the first time, and the
second.  Prints JSON.

For each game, its best one-step strategy (an unsolved atlas game's, else entropy: the tree the explorer
builds by job for it, where the game ships no hybrid tree, and the kind it builds to compare with):

- ``build_s``: the tree built in this process, nothing else (median of ``--runs``);
- ``first_s``: ``POST /v1/strategies/{game}/{strategy}`` until its job is done and the statistics are read,
  through the real app and a real ``bullscows worker`` (one Dask process) on a new SQLite database, the
  worker already running: what the page waits the first time;
- ``second_s``: the same POST again (the tree is kept): what every later visitor waits;
- ``other_process_s``: the statistics from a new app on the same database (another server process:
  the tree is read from the table and verified);
- with ``--busy``, ``first_busy_s``: the first time while an exact search of 5 of 6 (repetition) holds the
  worker's only Dask process (the side lane at work).

    python benchmarks/bench_tree_jobs.py                      # the atlas's unsolved games too big for a request
    python benchmarks/bench_tree_jobs.py --games 5,8,1 5,10,0 --runs 1 --busy
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
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine, timed

DEFAULT_GAMES = ["4,9,1", "8,3,1", "5,8,0", "5,6,1"]


def strategy_for(spec: str) -> str:
    from service import atlas
    from solver.atlas import OneStep, best_one_step

    entry = atlas.shipped().get(spec)
    if entry is None or "one_step" not in entry:
        return "entropy"
    return best_one_step({name: OneStep(**t) for name, t in entry["one_step"].items()})


def build_once(spec: str, strategy: str) -> int:
    from solver.game import Game
    from solver.heuristics import get_strategy
    from solver.tree import build_tree, strategy_chooser

    game = Game.from_spec(spec)
    arrays = game.arrays(table=True)
    return build_tree(game, strategy_chooser(game, get_strategy(strategy), arrays), arrays=arrays).stats().total


def _wait_done(client: Any, location: str, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        job: dict[str, Any] = client.get(location).json
        if job["status"] == "done":
            return job
        if job["status"] in ("failed", "cancelled") or time.monotonic() > deadline:
            raise RuntimeError(f"job {job['id']} {job['status']}: {job.get('error')}")
        time.sleep(0.05)


def through_jobs(specs: list[tuple[str, str]], busy: bool) -> dict[str, dict[str, Any]]:
    """first / second / other-process times per game, one worker for all of them."""
    from service.app import create_app
    from service.store.migrate import upgrade

    folder = tempfile.mkdtemp(prefix="bench-tree-jobs-")
    url = f"sqlite:///{folder}/trees.sqlite3"
    upgrade(url)
    config = {"DATABASE_URL": url, "RATE_LIMIT_EXPENSIVE": "1000000/minute", "SECRET_KEY": "bench"}
    app = create_app(config, warm_in_background=False)
    client = app.test_client()
    log = open(os.path.join(folder, "worker.log"), "wb")  # noqa: SIM115 (closed with the worker)
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--processes", "1", "--url", url,
                               "--no-migrate"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                              env={**os.environ, "BULLSCOWS_JOB_HEARTBEAT_S": "0.5"})
    out: dict[str, dict[str, Any]] = {}
    try:
        while client.get("/v1/jobs?limit=1").json["workers_alive"] < 1:
            time.sleep(0.1)
        long = None
        if busy:
            long = client.post("/v1/jobs", json={"game": "5,6,1", "criterion": "total"}).json["id"]
            while client.get(f"/v1/jobs/{long}").json["progress"]["units_running"] < 1:
                time.sleep(0.1)
        for spec, strategy in specs:
            path = f"/v1/strategies/{spec}/{strategy}"
            t0 = time.perf_counter()
            resp = client.post(path, json={})
            if resp.status_code == 202:
                job = _wait_done(client, resp.headers["Location"])
                stats = client.get(path).json
                jobs_used = 1
            else:
                stats, job, jobs_used = resp.json, None, 0
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            again = client.post(path, json={})
            second = time.perf_counter() - t0
            assert again.status_code == 200 and again.json["total"] == stats["total"]
            other = create_app(config, warm_in_background=False).test_client()
            t0 = time.perf_counter()
            elsewhere = other.get(path)
            other_s = time.perf_counter() - t0
            assert elsewhere.status_code == 200 and elsewhere.json["total"] == stats["total"]
            key = "first_busy_s" if busy else "first_s"
            out[spec] = {"strategy": strategy, "total": stats["total"], "worst_case": stats["worst_case"],
                         "jobs": jobs_used, key: round(first, 3), "second_s": round(second, 4),
                         "other_process_s": round(other_s, 4),
                         "job_unit_s": None if job is None else job["result"]["seconds"]}
        if long is not None:
            client.delete(f"/v1/jobs/{long}")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
        log.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="*", default=DEFAULT_GAMES)
    ap.add_argument("--runs", type=int, default=3, help="Runs of each in-process build (median).")
    ap.add_argument("--busy", action="store_true", help="Also measure the first time with a search running.")
    args = ap.parse_args()
    specs = [(g, strategy_for(g)) for g in args.games]
    out: dict[str, Any] = {"benchmark": "tree_jobs", "machine": machine(), "runs": args.runs, "games": {}}
    for spec, strategy in specs:
        t = timed(lambda spec=spec, strategy=strategy: build_once(spec, strategy), runs=args.runs, warmup=1)
        out["games"][spec] = {"strategy": strategy, "total": t.pop("result"), "build": t}
        print(json.dumps({spec: out["games"][spec]}), file=sys.stderr)
    for spec, row in through_jobs(specs, busy=False).items():
        out["games"][spec].update(row)
    if args.busy:
        for spec, row in through_jobs(specs, busy=True).items():
            out["games"][spec]["first_busy_s"] = row["first_busy_s"]
    first = [g["first_s"] for g in out["games"].values()]
    second = [g["second_s"] for g in out["games"].values()]
    out["median_first_s"] = round(statistics.median(first), 3)
    out["median_second_s"] = round(statistics.median(second), 4)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
