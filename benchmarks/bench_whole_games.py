"""Every secret played to its end over HTTP, then its won history sent again: what a bot does, game by game.

Runs the README's server (``bullscows serve``, SQLite in a fresh instance folder, one worker) and, for each game
asked, plays every secret through ``POST /v1/next-move`` with the default strategy: ask, answer the guess with the
secret's response (computed here), until the answer is the winning one; then sends the whole won history once
more, which must come back as a finished game (``finished``, the ``secret``, ``guess`` null, ``guesses`` equal to
the game's length).  Prints, per game: secrets played, errors (any non-200, any guess that is not a code of the
game, a game longer than 20 guesses, a won history not answered as finished), the total and worst case of the
strategy played (each secret's length, summed), the sources, and the request latency (p50, p99).

    python benchmarks/bench_whole_games.py [-g mastermind -g bulls-cows ...] [--limit N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_service import pct, served
from common import machine

GAMES = ["mastermind", "bulls-cows", "4,7,1", "4,7,0", "5,8,1", "5,10,0"]


class Client:
    """One kept-alive connection (the server's threads keep it open), reopened if the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, float, dict[str, Any]]:
        data = json.dumps(body)
        for attempt in range(2):
            try:
                t0 = time.perf_counter()
                self.conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
                resp = self.conn.getresponse()
                payload = resp.read()
                return resp.status, time.perf_counter() - t0, json.loads(payload) if payload else {}
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def play(client: Client, spec: str, limit: int | None) -> dict[str, Any]:
    from solver.game import Game

    game = Game.from_spec(spec, max_codes=1 << 20)
    secrets = range(game.size) if limit is None else range(0, game.size, max(1, game.size // limit))
    errors: list[str] = []
    lengths: dict[int, int] = {}
    sources: dict[str, int] = {}
    ms: list[float] = []
    total = 0
    for secret in secrets:
        history: list[str] = []
        won = False
        while len(history) < 20:
            status, took, out = client.post("/v1/next-move", {"game": spec, "history": history})
            ms.append(took * 1000)
            if status != 200 or out.get("guess") is None:
                errors.append(f"{game.format_code(secret)} after {history}: {status} {out}")
                break
            sources[out["source"]] = sources.get(out["source"], 0) + 1
            guess = game.parse_code(out["guess"])
            history.append(f"{out['guess']} {game.format_response(game.response(guess, secret))}")
            if guess == secret:
                won = True
                break
        if not won:
            if not errors or not errors[-1].startswith(game.format_code(secret)):
                errors.append(f"{game.format_code(secret)}: not found within 20 guesses")
            continue
        status, took, out = client.post("/v1/next-move", {"game": spec, "history": history})
        ms.append(took * 1000)
        if status != 200 or (out.get("finished"), out.get("guess"), out.get("secret"), out.get("guesses")) != (
                True, None, game.format_code(secret), len(history)):
            errors.append(f"won history {history}: {status} {out}")
        lengths[len(history)] = lengths.get(len(history), 0) + 1
        total += len(history)
    return {"secrets": len(secrets), "errors": len(errors), "first_errors": errors[:5], "total": total,
            "worst_case": max(lengths) if lengths else None, "lengths": dict(sorted(lengths.items())),
            "sources": sources, "requests": len(ms), "p50_ms": round(pct(ms, 0.5), 2),
            "p99_ms": round(pct(ms, 0.99), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-g", "--game", action="append", dest="games", help=f"a game (default: {', '.join(GAMES)})")
    ap.add_argument("--limit", type=int, default=None, help="play about this many secrets per game, evenly spread")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
               "BULLSCOWS_INSTANCE_PATH": tmp, "BULLSCOWS_RATE_LIMIT_MOVES": "100000000/minute"}
        with served(env) as (_, port):
            client = Client(port)
            result: dict[str, Any] = {"benchmark": "whole_games", "machine": machine(), "games": {}}
            for spec in args.games or GAMES:
                t0 = time.perf_counter()
                result["games"][spec] = {**play(client, spec, args.limit),
                                         "seconds": round(time.perf_counter() - t0, 1)}
                print(json.dumps({spec: result["games"][spec]}), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
