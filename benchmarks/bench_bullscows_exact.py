"""Bulls-and-Cows solved exactly, response by response after 0123, from an empty table.

For each response to the first guess 0123 (smallest set first) and each criterion — the exact total
Λ within 7 guesses (published 26274 over the whole game) and the exact count of 7-movers Φ_7
(published 50) — one fresh searcher (empty transposition table, kernels already compiled) solves the
position and the time, nodes, value and best second guess are printed beside the published figure.
Responses that take under ``--repeat-under`` seconds are timed ``--runs`` times (median).

The big responses can take long.  ``--budget-s`` skips every response whose *projected* time
exceeds it; the projection is a least-squares fit of log(seconds) against log(candidates) over
the responses measured so far (at least 100 candidates each), and the JSON reports measured and
projected seconds apart, with the sum for the whole game (both criteria, one core, and ideally
shared by two processes).

    python benchmarks/bench_bullscows_exact.py                       # everything (long)
    python benchmarks/bench_bullscows_exact.py --budget-s 120        # skip what would take > 2 min
    python benchmarks/bench_bullscows_exact.py --criteria total --responses 0.0,1.2,1.0
    python benchmarks/bench_bullscows_exact.py --criteria total --position "0123 0.1, 1245 0.2"

``--position`` times any positions instead (separated by ``;``), with no published figure beside them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

from solver.game import Game
from solver.search import Searcher, SolveOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLISHED = os.path.join(ROOT, "..", "shared", "reference", "published.json")
CRITERIA = {
    "total": SolveOptions("total", max_guesses=7),
    "kmovers": SolveOptions("kmovers", max_guesses=7),
}


def published(pub: dict[str, Any], criterion: str, response: str) -> int | None:
    """The published exact figure of one response after 0123."""
    if criterion == "total":
        table = pub["min_total"]["bulls-cows"]["by_response_after_0123"]
        return int(table[response][table["_columns"].index("exact")])
    row = pub["min_kmovers"]["bulls-cows"]["by_first_response"]["exact"]
    return int(row.get(response, 0))


def fit(points: list[tuple[int, float]]) -> tuple[float, float] | None:
    """(a, b) of log(seconds) = a + b log(candidates), least squares; None below two points."""
    pts = [(math.log(n), math.log(max(s, 1e-3))) for n, s in points if n >= 100]
    if len(pts) < 2:
        return None
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return my - b * mx, b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--criteria", default="total,kmovers")
    ap.add_argument("--responses", default="", help="responses after 0123 (default: all, smallest first)")
    ap.add_argument("--budget-s", type=float, default=math.inf,
                    help="skip a response whose projected time exceeds this (default: never skip)")
    ap.add_argument("--position", default="",
                    help="time these histories instead of the responses after 0123 (';' between them)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat-under", type=float, default=10.0,
                    help="responses faster than this are timed --runs times (median)")
    args = ap.parse_args()
    with open(PUBLISHED, encoding="utf-8") as fh:
        pub = json.load(fh)
    sizes: dict[str, int] = pub["partition_after_0123_bulls_cows"]
    responses = [r for r in args.responses.split(",") if r] or sorted(sizes, key=lambda r: sizes[r])
    positions = [p.strip() for p in args.position.split(";") if p.strip()]
    if positions:
        responses = positions
    game = Game.from_spec("bulls-cows")
    Searcher(Game(2, 3, repetition=True), SolveOptions("kmovers", max_guesses=4)).solve()  # compile
    out: dict[str, Any] = {"benchmark": "bullscows_exact", "machine": machine(), "criteria": {}}
    for criterion in [c for c in args.criteria.split(",") if c]:
        options = CRITERIA[criterion]
        rows: dict[str, Any] = {}
        measured: list[tuple[int, float]] = []
        for resp in responses:
            if resp == "4.0" and not positions:
                continue  # 0123 itself: the game is over after one guess (value 1), nothing to search
            history = game.parse_history(resp) if positions else [game.parse_turn(f"0123 {resp}")]
            n = int(game.candidates(history).shape[0])
            model = fit(measured)
            projected = None if model is None else math.exp(model[0] + model[1] * math.log(n))
            if projected is not None and projected > args.budget_s:
                rows[resp] = {"candidates": n, "skipped": True, "projected_s": round(projected, 1),
                              "published": None if positions else published(pub, criterion, resp)}
                print(f"# {criterion} {resp}: skipped, projected {projected:.0f} s", file=sys.stderr, flush=True)
                continue
            times: list[float] = []
            res = None
            while True:
                searcher = Searcher(game, options)
                t0 = time.perf_counter()
                res = searcher.solve(history)
                times.append(time.perf_counter() - t0)
                if len(times) >= args.runs or times[0] >= args.repeat_under:
                    break
            seconds = statistics.median(times)
            measured.append((n, seconds))
            want = None if positions else published(pub, criterion, resp)
            rows[resp] = {
                "candidates": n, "value": res.value, "published": want, "match": res.value == want,
                "exact": res.exact, "median_s": round(seconds, 3), "runs": len(times), "nodes": res.nodes,
                "best_guess": None if res.best_guess is None else game.format_code(res.best_guess),
            }
            label = resp if positions else f"0123 {resp}"
            print(f"# {criterion} {label}: {res.value} (published {want}) {seconds:.1f} s, "
                  f"{res.nodes} nodes", file=sys.stderr, flush=True)
        model = fit(measured)
        done_s = sum(r.get("median_s", 0.0) for r in rows.values())
        projected_s = sum(r.get("projected_s", 0.0) for r in rows.values())
        out["criteria"][criterion] = {
            "responses": rows,
            "measured_s": round(done_s, 1),
            "projected_s": round(projected_s, 1),
            "fit_log_seconds_vs_log_candidates": None if model is None else [round(v, 4) for v in model],
        }
    whole = sum(c["measured_s"] + c["projected_s"] for c in out["criteria"].values())
    out["whole_game_one_core_s"] = round(whole, 1)
    out["whole_game_two_processes_s_ideal"] = round(whole / 2, 1)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
