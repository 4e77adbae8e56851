"""Exact-search benchmark: side by side with a baseline commit, or Mastermind optima and the hybrid columns.

**Side by side** (``--baseline REV``): the same questions are solved from nothing (a new searcher: no
tree, knowledge or database) by a checkout of REV and by the working tree, each in a child process of
its own, alternating baseline and current run by run.  Prints each side's median seconds and nodes, the
values (which must agree: only the time to reach them may change) and the ratio current / baseline.
The default baseline is the commit before the search-speed work (issue 19).

    python benchmarks/bench_search.py --baseline 1f7369d --runs 3 --questions mastermind-total,bc-1.1-total

**Columns** (no ``--baseline``): Mastermind rows are the median of ``--runs`` runs, each with a fresh
searcher; Bulls-and-Cows rows solve each response after 0123 under one column's parameters (one run
each), with the published figure beside ours.

    python benchmarks/bench_search.py [--runs 3] [--columns avg45,fso,crush45] [--responses 2.1,3.0]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine, timed

from solver.game import Game
from solver.search import Searcher, SolveOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLISHED = os.path.join(ROOT, "tests", "data", "published.json")

BASELINE = "1f7369d"
"""The commit before the search-speed work: what its ratios are measured against by default."""

# name: (game, history, criterion, max_guesses).  From nothing, so each is a whole exact search.
QUESTIONS: dict[str, tuple[str, list[str], str, int | None]] = {
    "mastermind-total": ("mastermind", [], "total", None),
    "bc-1.1-total": ("bulls-cows", ["0123 1.1"], "total", None),
    "bc-0.2-total": ("bulls-cows", ["0123 0.2"], "total", None),
    "bc-0.1-7movers": ("bulls-cows", ["0123 0.1"], "kmovers", 7),
    "mastermind-4x7-total": ("4,7,1", [], "total", None),
    # parts of bracketed atlas games: what their whole-game proofs are made of
    "atlas-4x9-0012-2.0": ("4,9,1", ["0012 2.0"], "total", None),
    "atlas-5x8-01234-1.1": ("5,8,0", ["01234 1.1"], "total", None),
}

CHILD = """
import json, sys, time
from solver.game import Game
from solver.search import Searcher, SolveOptions
spec, history, criterion, k = json.loads(sys.argv[1])
Searcher(Game(2, 3, True), SolveOptions("total")).solve(())  # load (or compile) the kernels: not timed
game = Game.from_spec(spec)
turns = game.parse_history(history)
options = SolveOptions(criterion, k)
t0 = time.perf_counter()
res = Searcher(game, options).solve(turns)
print(json.dumps({"value": res.value, "exact": res.exact, "nodes": res.nodes,
                  "seconds": time.perf_counter() - t0}))
"""


def _checkout(rev: str) -> str:
    """A detached worktree of ``rev`` in a temporary folder (removed at exit)."""
    import atexit
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="bullscows-baseline-")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", folder, rev], check=True,
                   capture_output=True)
    atexit.register(lambda: subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", folder],
                                           capture_output=True))
    return folder


def _child(checkout: str, question: tuple[str, list[str], str, int | None]) -> dict[str, Any]:
    import subprocess

    env = {**os.environ, "PYTHONPATH": checkout}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(question)], cwd=checkout, env=env,
                         capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def side_by_side(baseline: str, names: list[str], runs: int) -> dict[str, Any]:
    import statistics

    sides = {"baseline": _checkout(baseline), "current": ROOT}
    for checkout in sides.values():  # compile both sides' kernels into their caches, untimed
        _child(checkout, ("mastermind", ["0123 0.0"], "total", None))
    rows: dict[str, Any] = {}
    for name in names:
        got: dict[str, list[dict[str, Any]]] = {"baseline": [], "current": []}
        for _ in range(runs):
            for side, checkout in sides.items():  # interleaved: the machine's load falls on both
                got[side].append(_child(checkout, QUESTIONS[name]))
                print(f"# {name} {side}: {got[side][-1]}", file=sys.stderr, flush=True)
        row: dict[str, Any] = {}
        for side, results in got.items():
            row[side] = {"seconds": round(statistics.median(r["seconds"] for r in results), 3),
                         "nodes": int(statistics.median(r["nodes"] for r in results)),
                         "values": sorted({r["value"] for r in results}), "runs": len(results)}
        row["same_value"] = row["baseline"]["values"] == row["current"]["values"]
        row["ratio"] = round(row["current"]["seconds"] / row["baseline"]["seconds"], 3)
        row["node_ratio"] = round(row["current"]["nodes"] / max(1, row["baseline"]["nodes"]), 3)
        rows[name] = row
    return {"benchmark": "search-side-by-side", "baseline": baseline, "machine": machine(), "questions": rows}

MASTERMIND = {
    "total_unlimited": SolveOptions("total"),
    "total_at_most_5": SolveOptions("total", max_guesses=5),
    "five_movers": SolveOptions("kmovers", max_guesses=5),
}

COLUMNS = {
    # minimal total (max 7 guesses), article section 5.2.1
    "avg35": SolveOptions("total", max_guesses=7, mde=2),
    "avg45": SolveOptions("total", max_guesses=7, mde=3),
    "fso": SolveOptions("total", max_guesses=7, mde=3, from_set_only=True),
    "avg5": SolveOptions("total", max_guesses=7, mde=4),
    "exact_total": SolveOptions("total", max_guesses=7),
    # minimal 7-movers, article section 5.1.1
    "crush35": SolveOptions("kmovers", max_guesses=7, mde=2),
    "crush45": SolveOptions("kmovers", max_guesses=7, mde=3),
    "crush5": SolveOptions("kmovers", max_guesses=7, mde=4),
    "exact_kmovers": SolveOptions("kmovers", max_guesses=7),
}


def published_value(pub: dict[str, Any], column: str, response: str) -> int | None:
    if column in ("crush35", "crush45", "crush5", "exact_kmovers"):
        key = "exact" if column == "exact_kmovers" else column
        row = pub["min_kmovers"]["bulls-cows"]["by_first_response"][key]
        return row.get(response, row.get("other"))  # type: ignore[no-any-return]
    table = pub["min_total"]["bulls-cows"]["by_response_after_0123"]
    key = "exact" if column == "exact_total" else column
    return table[response][table["_columns"].index(key)]  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", nargs="?", const=BASELINE, default=None,
                    help=f"side by side with this commit (default when given bare: {BASELINE})")
    ap.add_argument("--questions", default="mastermind-total,bc-1.1-total",
                    help=f"side-by-side questions, comma-separated: {', '.join(QUESTIONS)}")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-mastermind", action="store_true")
    ap.add_argument("--columns", default="avg45,fso,crush45")
    ap.add_argument("--responses", default="", help="responses after 0123 (default: all)")
    ap.add_argument("--max-candidates", type=int, default=100000,
                    help="skip responses leaving more candidates than this")
    args = ap.parse_args()
    if args.baseline is not None:
        names = [q for q in args.questions.split(",") if q]
        unknown = [q for q in names if q not in QUESTIONS]
        if unknown:
            ap.error(f"unknown questions {unknown}; choose from {', '.join(QUESTIONS)}")
        json.dump(side_by_side(args.baseline, names, args.runs), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    with open(PUBLISHED, encoding="utf-8") as fh:
        pub = json.load(fh)
    out: dict[str, Any] = {"benchmark": "search", "machine": machine()}

    if not args.skip_mastermind:
        mm = Game.from_spec("mastermind")
        Searcher(mm, SolveOptions("kmovers", max_guesses=5)).solve()  # compile the kernels
        rows = {}
        for name, options in MASTERMIND.items():
            t = timed(lambda options=options: Searcher(mm, options).solve(), runs=args.runs, warmup=0)
            res = t.pop("result")
            rows[name] = {**t, "value": res.value, "best_guess": mm.format_code(res.best_guess),
                          "nodes": res.nodes}
        out["mastermind"] = rows

    bc = Game.from_spec("bulls-cows")
    responses = [r for r in args.responses.split(",") if r] or sorted(
        pub["partition_after_0123_bulls_cows"], key=lambda r: pub["partition_after_0123_bulls_cows"][r])
    cols: dict[str, Any] = {}
    for column in [c for c in args.columns.split(",") if c]:
        options = COLUMNS[column]
        searcher = Searcher(bc, options)
        rows = {}
        for resp in responses:
            history = [bc.parse_turn(f"0123 {resp}")]
            n = int(bc.candidates(history).shape[0])
            if n > args.max_candidates or resp == "4.0":
                continue
            t0 = time.perf_counter()
            res = searcher.solve(history)
            seconds = time.perf_counter() - t0
            want = published_value(pub, column, resp)
            rows[resp] = {"candidates": n, "value": res.value, "published": want,
                          "match": res.value == want, "seconds": round(seconds, 3), "nodes": res.nodes,
                          "best_guess": None if res.best_guess is None else bc.format_code(res.best_guess)}
            print(f"# {column} 0123 {resp}: {res.value} (published {want}) {seconds:.1f} s",
                  file=sys.stderr, flush=True)
        cols[column] = rows
    out["bulls_cows_after_0123"] = cols
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
