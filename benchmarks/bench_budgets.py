"""Budgets kept over HTTP: next-move latency against its ``time_budget_ms``, on small and big games.

Runs the service the way a server does (gunicorn loading ``service.wsgi:app``: every shipped tree loaded before
it forks, one worker) on a fresh SQLite database, and measures, client side:

1. ``off_tree``: ``POST /v1/next-move`` with a 30 ms budget over random positions off the shipped trees (a random
   secret, one to three random guesses, as people play) of Mastermind, Mastermind with five pegs (5x6 with
   repetition) and Super Mastermind (5x8): p50, p99 and the largest latency, the p99's overhead over the budget,
   where the answers came from, and whether asking the same questions again gave the same guesses.  Each game's
   positions are asked ``--runs`` times; the figures are the medians of the runs.
2. ``two_symbols``: games of two symbols and 9 to 15 positions (512 to 32768 codes), with a 500 ms budget: the
   first question (empty history) and a random position, and the worker's peak memory afterwards.

    python benchmarks/bench_budgets.py [--positions 200] [--runs 3] [--budget-ms 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_service import ROOT, pct, post, served
from common import machine


def random_history(spec: str, rng: random.Random) -> list[str]:
    """One to three random guesses against a random secret (none of them the secret)."""
    from solver.game import Game

    game = Game.from_spec(spec, max_codes=1 << 20)
    secret = rng.randrange(game.size)
    turns = []
    for _ in range(rng.randint(1, 3)):
        guess = rng.randrange(game.size)
        if guess != secret:
            turns.append(f"{game.format_code(guess)} {game.format_response(game.response(guess, secret))}")
    return turns


def worker_peak_mb(server_pid: int) -> float:
    """The largest peak resident memory (VmHWM) among the server's processes."""
    out = subprocess.run(["ps", "-o", "pid=", "--sid", str(server_pid)], capture_output=True, text=True).stdout
    peak = 0.0
    for pid in out.split():
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as fh:
                m = re.search(r"VmHWM:\s+(\d+) kB", fh.read())
        except OSError:
            continue
        if m:
            peak = max(peak, int(m.group(1)) / 1024)
    return round(peak, 1)


def off_tree(port: int, spec: str, positions: int, runs: int, budget_ms: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    histories = [random_history(spec, rng) for _ in range(positions)]
    per_run: list[dict[str, float]] = []
    sources: dict[str, int] = {}
    guesses: list[list[str | None]] = []
    failures = 0
    for _ in range(runs):
        ms: list[float] = []
        got: list[str | None] = []
        for history in histories:
            status, elapsed, out = post(port, "/v1/next-move", {"game": spec, "history": history,
                                                                 "time_budget_ms": budget_ms})
            failures += status != 200
            ms.append(elapsed * 1000)
            got.append(out.get("guess"))
            sources[out.get("source", f"status {status}")] = sources.get(out.get("source", f"status {status}"), 0) + 1
        guesses.append(got)
        per_run.append({"p50_ms": pct(ms, 0.5), "p99_ms": pct(ms, 0.99), "max_ms": max(ms)})
    med = {k: round(statistics.median(r[k] for r in per_run), 2) for k in per_run[0]}
    # the first run meets each game's search cold (made once per process, in the background): later runs are warm
    same = sum(1 for i in range(positions) if len({g[i] for g in guesses[1:]}) == 1) if runs > 2 else None
    return {**med, "budget_ms": budget_ms, "p99_overhead_ms": round(med["p99_ms"] - budget_ms, 2),
            "runs": [{k: round(v, 2) for k, v in r.items()} for r in per_run], "positions": positions,
            "sources": sources, "errors": failures,
            "same_guess_in_warm_runs": None if same is None else f"{same}/{positions}"}


def two_symbols(port: int, server_pid: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for p in (9, 10, 11, 12, 13, 14, 15):
        spec = f"{p},2,1"
        row: dict[str, Any] = {"codes": 2 ** p}
        for label, history in (("empty", []), ("random", random_history(spec, rng))):
            status, elapsed, ans = post(port, "/v1/next-move", {"game": spec, "history": history,
                                                                 "time_budget_ms": 500})
            row[label] = {"status": status, "ms": round(elapsed * 1000, 1), "source": ans.get("source")}
        out[spec] = row
    out["worker_peak_mb"] = worker_peak_mb(server_pid)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budget-ms", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
               "BULLSCOWS_INSTANCE_PATH": tmp, "BULLSCOWS_RATE_LIMIT_MOVES": "100000000/minute"}
        t0 = time.perf_counter()
        with served(env) as (proc, port):
            ready_s = round(time.perf_counter() - t0, 1)
            result: dict[str, Any] = {"benchmark": "budgets", "machine": machine(), "ready_s": ready_s,
                                      "off_tree": {}, "cwd": os.path.relpath(ROOT)}
            for spec in ("mastermind", "5,6,1", "5,8,1"):
                result["off_tree"][spec] = off_tree(port, spec, args.positions, args.runs, args.budget_ms, args.seed)
            result["two_symbols_500ms"] = two_symbols(port, proc.pid, args.seed)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
