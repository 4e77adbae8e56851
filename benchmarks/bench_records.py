"""The records games' best-known trees played through the public next-move endpoint.  Prints JSON.

Runs ``bullscows serve`` the README's way (gunicorn, SQLite in a fresh instance folder) and, for each
records game with a shipped best-known tree (``service/data/records.json``), plays secrets as a bot would:
the bot opens with a relabelled image of the tree's first guess (one random renaming of the symbols and
the positions per game), then asks ``POST /v1/next-move`` with its history until the secret is found.  The
relabelling being one symmetry for every secret, the secrets map one to one onto the tree's, so over every
secret (the default) the total is the shipped tree's, played end to end over HTTP.  It reports the total and
worst case over the secrets played, where the answers came from, and the latency of the answers (p50, p99,
max; the first answer of a game loads and checks its tree).

    python benchmarks/bench_records.py                     # every secret of both games (minutes)
    python benchmarks/bench_records.py --secrets 2000 --games 5,8,1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_answers import startup, summary
from benchmarks.bench_service import post
from benchmarks.common import machine


def play_all(port: int, spec: str, secrets: int | None, rng: random.Random) -> dict[str, Any]:
    from service.trees import TreeLibrary
    from solver.game import Game
    from solver.symmetry import Relabelling
    from solver.vocabulary import BEST_KNOWN

    game = Game.from_spec(spec)
    stored = TreeLibrary().get(game, BEST_KNOWN, None)
    if stored is None:
        return {"game": spec, "skipped": "no best-known tree shipped"}
    chosen = list(range(game.size)) if secrets is None else rng.sample(range(game.size), secrets)
    total, worst, latencies, sources = 0, 0, [], Counter()
    tree_total = 0
    perm, sym = list(range(game.positions)), list(range(game.symbols))
    rng.shuffle(perm)
    rng.shuffle(sym)
    psi = Relabelling(tuple(perm), tuple(sym))
    for secret in chosen:
        hidden = psi.apply(game, secret)
        guess = psi.apply(game, stored.tree.root.guess)
        history: list[str] = []
        while True:
            response = game.response(guess, hidden)
            history.append(f"{game.format_code(guess)} {game.format_response(response)}")
            if response == game.all_bulls:
                break
            status, seconds, body = post(port, "/v1/next-move", {"game": spec, "history": history})
            if status != 200:
                raise RuntimeError(f"next-move answered {status}: {body}")
            latencies.append(seconds)
            sources[body["source"]] += 1
            guess = game.parse_code(body["guess"])
        total += len(history)
        worst = max(worst, len(history))
        tree_total += len(stored.tree.play(secret))
    return {"game": spec, "secrets": len(chosen), "total": total, "tree_total_of_these": tree_total,
            "average": round(total / len(chosen), 5), "worst_case": worst, "shipped_total": stored.meta["total"],
            "sources": dict(sources), "latency": summary(latencies)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=["5,8,1", "5,10,0"])
    ap.add_argument("--secrets", type=int, default=None, help="secrets per game (default: every one)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    result: dict[str, Any] = {"benchmark": "records", "machine": machine(), "games": []}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": tmp, "BULLSCOWS_RATE_LIMIT_EXPENSIVE": "1000000/minute",
               "BULLSCOWS_RATE_LIMIT_MOVES": "1000000/minute"}
        env.pop("DATABASE_URL", None)
        proc, port, result["startup"] = startup(env, os.path.join(tmp, "service.log"))
        try:
            for spec in args.games:
                result["games"].append(play_all(port, spec, args.secrets, rng))
        finally:
            os.killpg(proc.pid, 15)
            proc.wait(30)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
