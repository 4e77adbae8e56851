"""Soak and overload: gunicorn with the production limits, driven at and beyond capacity for minutes.

A mix of calls from client processes on the same machine (their threads are the concurrency):
``next-move`` (70 %: the shipped Mastermind tree, and the one-step strategies minimax and entropy,
which compute), ``solve`` (20 %: Mastermind positions after one or two turns, searched the first
time and cached after; ``job: false`` so that no job is queued without a worker), and matches
(10 %: a new secret and one guess).  Each phase runs ``--seconds`` at a concurrency of
``--levels``; the gunicorn processes' resident memory is sampled every second throughout.

Reported per phase and endpoint: requests, status counts, p50 / p99 / max latency of the answered
(2xx) requests.  The claims it checks: no status but 2xx, 429 (rate limited) and 503; latency stays
bounded; RSS does not grow after the first phase (caches full).  ``--no-limits`` lifts the rate
limits to measure raw capacity.

    python benchmarks/bench_soak.py [--seconds 60] [--levels 4,16,64] [--workers 2] [--no-limits]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_service import pct, post, start_server, tree_histories
from common import machine


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its children (gunicorn master and workers), KiB."""
    total = 0
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="utf-8") as fh:
            pids += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/status", encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def _one(port: int, rng: random.Random, histories: list[list[str]]) -> tuple[str, int, float]:
    roll = rng.random()
    if roll < 0.7:
        strategy = rng.choice(["optimal-total", "optimal-total", "minimax", "entropy"])
        status, t, _ = post(port, "/v1/next-move", {"game": "mastermind", "strategy": strategy,
                                                    "history": rng.choice(histories)})
        return "next-move", status, t
    if roll < 0.9:
        history = rng.choice(histories[:400])[:2] or ["0011 0.1"]
        status, t, _ = post(port, "/v1/solve", {"game": "mastermind", "history": history, "job": False,
                                                "max_guesses": rng.choice([None, 6]), "time_budget_ms": 500})
        return "solve", status, t
    status, t, body = post(port, "/v1/matches", {"game": "mastermind"})
    if status == 201:
        s2, t2, _ = post(port, "/v1/matches/guess", {"token": body["token"], "guess": "0011"})
        return "match", s2, t + t2
    return "match", status, t


def _client(port: int, threads: int, seconds: float, seed: int, queue: Any) -> None:
    histories = tree_histories(2000, seed)
    out: list[tuple[str, int, float]] = []
    lock = threading.Lock()
    stop = time.time() + seconds

    def run(k: int) -> None:
        rng = random.Random(seed * 1000 + k)
        mine = []
        while time.time() < stop:
            try:
                mine.append(_one(port, rng, histories))
            except OSError as exc:
                mine.append(("connection", -1, 0.0))
                print(f"connection error: {exc}", file=sys.stderr)
        with lock:
            out.extend(mine)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    queue.put(out)


def phase(port: int, concurrency: int, seconds: float, seed: int) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = 2
    ps = [ctx.Process(target=_client, args=(port, max(1, concurrency // procs), seconds, seed + i, queue))
          for i in range(procs)]
    for p in ps:
        p.start()
    results = [r for _ in ps for r in queue.get()]
    for p in ps:
        p.join()
    by: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for name, status, t in results:
        by[name].append((status, t))
    out: dict[str, Any] = {"concurrency": concurrency, "seconds": seconds}
    for name, rows in sorted(by.items()):
        ok = [t for s, t in rows if 200 <= s < 300]
        out[name] = {
            "requests": len(rows), "per_s": round(len(rows) / seconds, 1),
            "status": dict(sorted(Counter(str(s) for s, _ in rows).items())),
            "p50_ms": round(pct(ok, 0.5) * 1000, 1) if ok else None,
            "p99_ms": round(pct(ok, 0.99) * 1000, 1) if ok else None,
            "max_ms": round(max(ok) * 1000, 1) if ok else None,
        }
    out["unexpected_statuses"] = sum(1 for _, s, _ in results if not (200 <= s < 300 or s in (429, 503)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--levels", default="4,16,64")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-limits", action="store_true", help="Lift the rate limits (raw capacity).")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    out: dict[str, Any] = {"benchmark": "soak", "machine": machine(), "workers": args.workers,
                           "rate_limits": "off" if args.no_limits else "production defaults", "phases": []}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": tmp}
        env.pop("DATABASE_URL", None)
        if args.no_limits:
            env.update(BULLSCOWS_RATE_LIMIT_EXPENSIVE="1000000/minute", BULLSCOWS_RATE_LIMIT_MOVES="1000000/minute")
        proc, port = start_server(env, args.workers)
        samples: list[tuple[float, int]] = []
        done = threading.Event()

        def sample() -> None:
            t0 = time.time()
            while not done.wait(1.0):
                samples.append((round(time.time() - t0, 1), rss_kib(proc.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        try:
            post(port, "/v1/next-move", {"game": "mastermind"})
            start_rss = rss_kib(proc.pid)
            sampler.start()
            marks = []
            for i, level in enumerate(levels):
                out["phases"].append(phase(port, level, args.seconds, seed=10 * i))
                marks.append(len(samples))
                print(json.dumps(out["phases"][-1]), file=sys.stderr)
        finally:
            done.set()
            proc.terminate()
            proc.wait(30)
    rss = [r for _, r in samples]
    after_first = rss[marks[0]:] if marks and len(rss) > marks[0] else rss
    out["rss_kib"] = {
        "before_load": start_rss,
        "end_of_first_phase": rss[marks[0] - 1] if marks and marks[0] else None,
        "max": max(rss) if rss else None,
        "last": rss[-1] if rss else None,
        "growth_after_first_phase": (after_first[-1] - after_first[0]) if len(after_first) > 1 else None,
        "samples": len(rss),
    }
    out["unexpected_statuses"] = sum(p["unexpected_statuses"] for p in out["phases"])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
