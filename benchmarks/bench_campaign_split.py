"""One part of a lower-bound campaign refined by one process, then by two sharing its progress file: the
wall time of each and the ratio.  Prints JSON.

A no-repetition game has a single class of first guess, so a campaign on it is one unit, and with ``--parts``
one part: before second guesses were claimed one at a time, a second process on the same file found that part
claimed and waited for it, so two processes took as long as one.  Each run starts from a new progress file (no
run profits from another's proven bounds) and times the processes (``bound_campaigns.run`` with ``only_parts``,
each a ``python -c`` of its own, the second started ``--stagger`` seconds after the first) from the first's
start to the last's end; the part's bound must come out the same.  The kernels are loaded from numba's cache
by a warm-up run first.

    python benchmarks/bench_campaign_split.py               # 6x7, part 1.5 (264 codes, 29 second guesses), 4 plies
    python benchmarks/bench_campaign_split.py --game 4,9,0 --parts 0.2 --depth 5 --runs 3

The part must be one the last pass refines one second guess at a time (256 codes or more), and long enough that
the last pass outweighs what each process does alone (start-up, the shallow passes): 4x8's and 4x9's big parts
take a few seconds, 6x7's part 1.5 about fifty.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CODE = ("import sys; from service import bound_campaigns as b; "
        "b.run(sys.argv[1], int(sys.argv[2]), None, sys.argv[3], only_parts=sys.argv[4].split(','))")


def one_run(spec: str, depth: int, parts: str, processes: int, stagger: float) -> dict[str, Any]:
    """The part refined by ``processes`` processes on a new progress file: wall seconds and the part's bound."""
    from service import bound_campaigns
    from solver.game import Game

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bounds.json")
        env = {**os.environ, "PYTHONPATH": ROOT}
        started = time.perf_counter()
        procs = []
        for i in range(processes):
            if i:
                time.sleep(stagger)
            procs.append(subprocess.Popen([sys.executable, "-c", CODE, spec, str(depth), path, parts], cwd=ROOT,
                                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        errors = [p.communicate()[1] for p in procs]
        wall = time.perf_counter() - started
        if any(p.returncode for p in procs):
            raise SystemExit(f"a campaign process failed: {errors}")
        game = Game.from_spec(spec)
        doc = bound_campaigns.read(path) or {}
        bounds = bound_campaigns.ledger_bounds(game, doc)
        wanted = {game.parse_response(r) for r in parts.split(",")}
        got = {game.format_response(r): list(v) for (_, r), v in bounds.items() if r in wanted}
        seconds = bound_campaigns.ledger_seconds(game, doc)
    return {"wall_seconds": round(wall, 2), "parts": got, "second_guesses_kept": len(seconds)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="6,7,0")
    ap.add_argument("--parts", default="1.5", help="responses to the first guess, comma-separated")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--stagger", type=float, default=0.5, help="seconds between the two processes' starts")
    args = ap.parse_args()

    one_run(args.game, args.depth, args.parts, 1, 0.0)  # warm-up: numba's cache, the OS's file cache
    results: dict[str, Any] = {}
    for processes in (1, 2):
        runs = [one_run(args.game, args.depth, args.parts, processes, args.stagger) for _ in range(args.runs)]
        if len({json.dumps(r["parts"], sort_keys=True) for r in runs}) != 1:
            raise SystemExit(f"the part's bound differs between runs: {runs}")
        results[f"{processes}_process"] = {"wall_seconds_median": statistics.median(r["wall_seconds"] for r in runs),
                                            "runs": runs}
    one, two = (results[k]["wall_seconds_median"] for k in ("1_process", "2_process"))
    if results["1_process"]["runs"][0]["parts"] != results["2_process"]["runs"][0]["parts"]:
        raise SystemExit("one and two processes proved different bounds")
    print(json.dumps({"benchmark": "campaign_split", "game": args.game, "parts": args.parts, "depth": args.depth,
                      "results": results, "speedup_two_over_one": round(one / two, 2), "machine": machine()},
                     indent=2))


if __name__ == "__main__":
    main()
