"""What the page's new calls cost, over HTTP against the README's server: why a guess is good
(``POST /v1/explain``) and a whole tree taken away (``GET …/tree?format=json|lengths&download=true``).

1. ``explain``: positions of real games (a secret drawn at random, the default strategy's guesses along
   it, 0 to 3 turns in), each asked about the strategy's own next guess and about a candidate drawn at
   random; per game, the latency (p50, p99, max) and how often the optimal values came back (the rest say
   why in ``optimal.note``).
2. ``downloads``: each shipped tree's two files, the first request (the tree loaded in the worker) and
   the median of ``--runs`` more; bytes, and a check that the lengths add up to the tree's total.

    python benchmarks/bench_play.py [--positions 40] [--runs 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_service import pct, served
from common import machine

EXPLAIN_GAMES = ["mastermind", "bulls-cows", "super-mastermind"]
TREES = [("mastermind", "optimal-total"), ("bulls-cows", "optimal-total"), ("super-mastermind", "best-known"),
         ("bulls-cows-5", "best-known")]


def request(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, float, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        t0 = time.perf_counter()
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, time.perf_counter() - t0, data
    finally:
        conn.close()


def explain(port: int, spec: str, positions: int, rng: random.Random) -> dict[str, Any]:
    from solver.game import Game

    game = Game.from_spec(spec, max_codes=1 << 20)
    ms: list[float] = []
    known = errors = 0
    for _ in range(positions):
        secret = rng.randrange(game.size)
        history: list[str] = []
        for _turn in range(rng.randrange(4)):
            status, _, data = request(port, "POST", "/v1/next-move", {"game": spec, "history": history})
            move = json.loads(data)
            if status != 200 or move.get("guess") is None or game.parse_code(move["guess"]) == secret:
                break
            guess = game.parse_code(move["guess"])
            history.append(f"{move['guess']} {game.format_response(game.response(guess, secret))}")
        status, _, data = request(port, "POST", "/v1/next-move", {"game": spec, "history": history})
        own = json.loads(data)["guess"]
        cands = game.candidates(game.parse_history(history))
        other = game.format_code(int(cands[rng.randrange(len(cands))]))
        for asked in (own, other):
            body = {"game": spec, "history": history, "guess": asked}
            status, took, data = request(port, "POST", "/v1/explain", body)
            ms.append(took * 1000)
            out = json.loads(data)
            if status != 200 or sum(p["candidates"] for p in out["parts"]) != len(cands):
                errors += 1
            elif out["optimal"]["guess"] is not None:
                known += 1
    return {"questions": len(ms), "errors": errors, "values_known": known, "p50_ms": round(pct(ms, 0.5), 1),
            "p99_ms": round(pct(ms, 0.99), 1), "max_ms": round(max(ms), 1)}


def download(port: int, spec: str, strategy: str, runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    stats = json.loads(request(port, "GET", f"/v1/strategies/{spec}/{strategy}")[2])
    for fmt in ("lengths", "json"):
        path = f"/v1/strategies/{spec}/{strategy}/tree?format={fmt}&download=true"
        status, first, data = request(port, "GET", path)
        assert status == 200, (path, status, data[:300])
        times = [request(port, "GET", path)[1] for _ in range(runs)]
        entry = {"bytes": len(data), "first_s": round(first, 3), "median_s": round(statistics.median(times), 3)}
        if fmt == "lengths":
            lines = [ln.split() for ln in data.decode().splitlines() if ln and not ln.startswith("#")]
            entry["secrets"] = len(lines)
            entry["sum_matches_total"] = sum(int(n) for _, n in lines) == stats["total"]
        out[fmt] = entry
    out["total"] = stats["total"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=40, help="positions asked about per game (two guesses each)")
    ap.add_argument("--runs", type=int, default=3, help="timed repeats of each download after the first")
    args = ap.parse_args()
    rng = random.Random(57)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
               "BULLSCOWS_INSTANCE_PATH": tmp, "BULLSCOWS_RATE_LIMIT_MOVES": "100000000/minute",
               "BULLSCOWS_RATE_LIMIT_EXPENSIVE": "100000000/minute"}
        with served(env) as (_, port):
            result: dict[str, Any] = {"benchmark": "play", "machine": machine(), "explain": {}, "downloads": {}}
            for spec in EXPLAIN_GAMES:
                result["explain"][spec] = explain(port, spec, args.positions, rng)
                print(json.dumps({spec: result["explain"][spec]}), file=sys.stderr, flush=True)
            for spec, strategy in TREES:
                result["downloads"][f"{spec}/{strategy}"] = download(port, spec, strategy, args.runs)
                print(json.dumps({spec: result["downloads"][f"{spec}/{strategy}"]}), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
