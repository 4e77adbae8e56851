"""The answer chain over HTTP (issue 17): where answers come from, and how fast.

Runs ``bullscows serve`` the README's way (SQLite in a fresh instance folder, a job worker beside it)
and measures:

1. ``startup``: seconds from the command to "Listening" and to ``/readyz`` 200, the first next-move's
   latency after that, and the resident memory of the server's processes (the shipped trees loaded).
2. ``latency``: p50/p99 over HTTP of ``POST /v1/solve`` answered from a tree (histories along the shipped
   Bulls-and-Cows tree), from a tree under symmetry (the same histories randomly relabelled), from the
   table (relabellings of off-tree Mastermind positions searched once before), and by a search (the
   off-tree positions themselves, the first time).
3. ``random``: for random histories of 1, 2 and 3 arbitrary guesses (a random secret, random guesses,
   as people play) of Bulls-and-Cows and Mastermind, the share that ``next-move`` answers exactly
   within a 1000 ms budget, and the sources.

    python benchmarks/bench_answers.py [--samples 40] [--random 20] [--seed 1]
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

from bench_service import ROOT, VENV_BIN, free_port, get, pct, post, wait_ready
from common import machine


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory in MB (from /proc) of the server's processes: gunicorn's master and workers, and
    the job worker with its own processes."""
    out = subprocess.run(["ps", "-o", "pid=,ppid=,args=", "--sid", str(pid)], capture_output=True,
                         text=True).stdout
    sums: dict[str, float] = {"gunicorn": 0.0, "job_worker": 0.0}
    for line in out.splitlines():
        p, _, args = line.strip().split(None, 2)
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as fh:
                m = re.search(r"VmRSS:\s+(\d+) kB", fh.read())
        except OSError:
            continue
        kind = "gunicorn" if "gunicorn" in args else "job_worker"
        sums[kind] += int(m.group(1)) / 1024 if m else 0
    return {k: round(v, 1) for k, v in sums.items()}


def summary(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50_ms": round(pct(ms, 0.5), 2), "p99_ms": round(pct(ms, 0.99), 2),
            "max_ms": round(max(ms), 2)}


def relabel(game: Any, history: list[str], rng: random.Random) -> list[str]:
    """The same position under a random permutation of symbols and positions."""
    perm = list(range(game.positions))
    sym = list(range(game.symbols))
    rng.shuffle(perm)
    rng.shuffle(sym)
    alphabet = game.alphabet[: game.symbols]
    out = []
    for turn in history:
        code, response = turn.split()
        syms = [alphabet.index(ch) for ch in code]
        out.append("".join(alphabet[sym[syms[p]]] for p in perm) + " " + response)
    return out


def tree_histories(game_name: str, count: int, rng: random.Random) -> list[list[str]]:
    from service.trees import TreeLibrary
    from solver.game import Game

    game = Game.from_spec(game_name)
    stored = TreeLibrary().get(game, "optimal-total", None)
    assert stored is not None
    out = []
    for _ in range(count):
        secret = rng.randrange(game.size)
        guesses = stored.tree.play(secret)
        cut = rng.randrange(1, len(guesses)) if len(guesses) > 1 else 0
        out.append([f"{game.format_code(g)} {game.format_response(game.response(g, secret))}" for g in guesses[:cut]])
    return out


def random_history(game: Any, turns: int, rng: random.Random) -> list[str]:
    secret = rng.randrange(game.size)
    out = []
    while len(out) < turns:
        g = rng.randrange(game.size)
        if g != secret:
            out.append(f"{game.format_code(g)} {game.format_response(game.response(g, secret))}")
    return out


def startup(env: dict[str, str], log: str) -> tuple[subprocess.Popen[bytes], int, dict[str, Any]]:
    """Start the service, its log going to the file ``log`` (a pipe nobody reads would fill up and
    stop the server), and time it."""
    port = free_port()
    t0 = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen([os.path.join(VENV_BIN, "bullscows"), "serve", "--with-worker", "--bind",
                                 f"127.0.0.1:{port}"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=out, start_new_session=True)
    listening = None
    while listening is None and time.perf_counter() - t0 < 120 and proc.poll() is None:
        with open(log, "rb") as fh:
            if b"Listening at" in fh.read():
                listening = time.perf_counter() - t0
        time.sleep(0.02)
    if not wait_ready(port, 120):
        raise RuntimeError("the service did not become ready")
    ready = time.perf_counter() - t0
    status, first, body = post(port, "/v1/next-move", {"game": "bulls-cows", "history": ["0123 0.1"]})
    assert status == 200 and body["source"] == "tree", body
    return proc, port, {"listening_s": round(listening or float("nan"), 2), "ready_s": round(ready, 2),
                        "first_next_move_ms": round(first * 1000, 1), "rss_mb": rss_mb(proc.pid)}


def latency(port: int, samples: int, rng: random.Random) -> dict[str, Any]:
    from solver.game import Game

    bc, mm = Game.from_spec("bulls-cows"), Game.from_spec("mastermind")
    out: dict[str, Any] = {}
    for name, histories in (("tree", tree_histories("bulls-cows", samples, rng)),
                            ("symmetric_image", [relabel(bc, h, rng) for h in tree_histories("bulls-cows", samples,
                                                                                              rng)])):
        times, sources = [], set()
        for h in histories:
            status, t, body = post(port, "/v1/solve", {"game": "bulls-cows", "history": h})
            assert status == 200, body
            times.append(t)
            sources.add(body["source"])
        out[name] = {**summary(times), "sources": sorted(sources)}
    # off-tree Mastermind positions: searched once, then their relabellings come from the table
    searched, cached, s_src, c_src = [], [], set(), set()
    for _ in range(samples):
        h = random_history(mm, 2, rng)
        status, t, body = post(port, "/v1/solve", {"game": "mastermind", "history": h, "time_budget_ms": 20000})
        assert status == 200, body
        searched.append(t)
        s_src.add(body["source"])
        status, t, again = post(port, "/v1/solve", {"game": "mastermind", "history": relabel(mm, h, rng)})
        assert status == 200 and again["value"] == body["value"], (body, again)
        cached.append(t)
        c_src.add(again["source"])
    out["table_relabelled"] = {**summary(cached), "sources": sorted(c_src)}
    out["searched_mastermind_2_guesses"] = {**summary(searched), "sources": sorted(s_src)}
    return out


def random_share(port: int, count: int, rng: random.Random) -> dict[str, Any]:
    from solver.game import Game

    out: dict[str, Any] = {}
    for name in ("bulls-cows", "mastermind"):
        game = Game.from_spec(name)
        for turns in (1, 2, 3):
            exact, times, sources = 0, [], {}
            for _ in range(count):
                h = random_history(game, turns, rng)
                status, t, body = post(port, "/v1/next-move", {"game": name, "history": h, "time_budget_ms": 1000})
                assert status == 200, body
                times.append(t)
                exact += bool(body["exact"]) and t <= 1.0 + 0.25
                sources[body["source"]] = sources.get(body["source"], 0) + 1
            out[f"{name}_{turns}_guesses"] = {"exact_within_1s": round(exact / count, 2),
                                              "p50_ms": round(statistics.median(times) * 1000, 1),
                                              "sources": sources}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=40, help="positions per latency class")
    ap.add_argument("--random", type=int, default=20, help="random histories per game and length")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    result: dict[str, Any] = {"benchmark": "answers", "machine": machine()}
    with tempfile.TemporaryDirectory() as tmp:
        # a benchmark is one client asking many questions: no per-client rate limit
        env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": tmp, "BULLSCOWS_RATE_LIMIT_EXPENSIVE": "1000000/minute",
               "BULLSCOWS_RATE_LIMIT_MOVES": "1000000/minute"}
        env.pop("DATABASE_URL", None)
        proc, port, result["startup"] = startup(env, os.path.join(tmp, "service.log"))
        try:
            assert get(port, "/healthz")[0] == 200
            result["latency"] = latency(port, args.samples, rng)
            result["random_histories"] = random_share(port, args.random, rng)
        finally:
            os.killpg(proc.pid, 15)
            proc.wait(30)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
