"""The unsolved atlas games' brackets of T, and what each depth of the refined lower bound
(``solver.lowerbound``, ``bullscows atlas bounds``) costs and buys.  Prints JSON.

For each game and each depth: the proven lower bound, the bracket it leaves with the game's best
known upper bound (the shipped atlas's: its hybrid or one-step trees, each played through every
secret), the bracket's width ((upper - lower) / lower), and the wall-clock and CPU seconds of the
bound (median of ``--runs``; the first call of a process also compiles or loads the kernels, so warm-up
calls on a small game come first).  Depth 0 is the size-only bound the atlas had before.

    python benchmarks/bench_atlas_bounds.py                          # the six games, depths 1 to 3
    python benchmarks/bench_atlas_bounds.py --games 6,7,0 --depths 4 --runs 1
    python benchmarks/bench_atlas_bounds.py --games 4,6,1 --depths 4 --target 5625   # only: is T >= 5625?
    python benchmarks/bench_atlas_bounds.py --games 7,7,0 --depths 4 --target 31900 --runs 1 --third-ply both
    python benchmarks/bench_atlas_bounds.py --games 6,7,0 --history "012345 0.6" --depths 2 3 --branching both
    python benchmarks/bench_atlas_bounds.py --shipped    # the brackets as shipped, and what each side cost
    git show 6188f38:service/data/atlas.json > /tmp/before.json
    python benchmarks/bench_atlas_bounds.py --shipped --file /tmp/before.json     # as they were at a commit

``--third-ply both`` refines each depth twice, the third ply trying one guess per class of the
transformations fixing the guesses above it (``classes``, the default) and every code (``every``), and
gives the ratio of their CPU seconds: the bounds are the same.

``--leaves both`` refines each depth twice, the last ply's parts valued by their own codes' partitions
(``own``, the default) and by their size alone (``size``), and gives both bounds and their CPU seconds.

``--branching both`` refines each depth twice, each set's parts valued by the size-only bound of the set's own
branching (``on``, the default: the most non-winning parts any code makes of it) and by the game's response
count (``off``), and gives the ratio of their CPU seconds.  ``--history`` bounds a position instead of the
game (a root part: ``--history "012345 0.6"``); its bound is then game-level, the history's guesses counted.

``--shipped`` computes nothing: it prints each game's bracket of T as ``service/data/atlas.json`` has it, its
width, and the recorded time and command of each side (the lower bound's refinement, the upper bound's tree
with its chain of commands), so that a bracket before and after a change can be compared from the files.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine

SIX = ["6,7,0", "7,7,0", "5,8,0", "4,9,1", "8,3,1", "5,6,1"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=SIX)
    ap.add_argument("--depths", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--target", type=int, default=None,
                    help="ask each depth only whether T reaches this (one game: atlas bounds --target)")
    ap.add_argument("--third-ply", choices=["classes", "every", "both"], default="classes",
                    help="the third ply's guesses: one per class (default), every code, or both side by side")
    ap.add_argument("--leaves", choices=["own", "size", "both"], default="own",
                    help="the last ply's parts valued by their own codes (default), by their size, or both")
    ap.add_argument("--branching", choices=["on", "off", "both"], default="on",
                    help="each set valued by its own branching (default), by the game's response count, or both")
    ap.add_argument("--history", default=None,
                    help="bound this position of each game instead ('012345 0.6'; guesses and responses)")
    ap.add_argument("--shipped", action="store_true", help="print the shipped brackets only (no computation)")
    ap.add_argument("--file", default=None, help="with --shipped: another atlas file (an older commit's, say)")
    args = ap.parse_args()

    from service import atlas

    if args.shipped:
        print(json.dumps(shipped_brackets(atlas.load(args.file or atlas.ATLAS_FILE), args.games), indent=1))
        return
    from solver.bounds import lower_bound_tables
    from solver.game import Game
    from solver.lowerbound import root_lower_bound
    from solver.table import MMAX

    shipped = atlas.load()
    for warm in (True, False):  # kernels compiled or loaded from numba's cache, either way
        root_lower_bound(Game.from_spec("3,4,1"), (), 3, branching=warm)
    out: dict[str, Any] = {"machine": machine(), "runs": args.runs, "games": {}}
    for spec in args.games:
        game = Game.from_spec(spec)
        upper = shipped[spec]["values"]["total"]["upper"]
        size_only = int(lower_bound_tables(game, game.size)[0, 0, MMAX, game.size])
        rows: list[dict[str, Any]] = [{"depth": 0, "lower": size_only, "wall_s": 0.0, "cpu_s": 0.0,
                                       "width": round((upper - size_only) / size_only, 5)}]
        history = game.parse_history(args.history.split(",")) if args.history else []
        if history:  # a position's bound: no bracket (the upper bound is the game's), its size-only bound as depth 0
            n = len(game.candidates(history))
            size_only = int(lower_bound_tables(game, game.size)[0, 0, MMAX, n]) + n * len(history)
            rows = [{"depth": 0, "lower": size_only, "wall_s": 0.0, "cpu_s": 0.0}]
        root_lower_bound(game, history, 1)  # the game's arrays and tables, made once per process, are not timed
        thirds = ["classes", "every"] if args.third_ply == "both" else [args.third_ply]
        leaves = ["own", "size"] if args.leaves == "both" else [args.leaves]
        branchings = ["on", "off"] if args.branching == "both" else [args.branching]
        for depth in args.depths:
            cpu_of: dict[tuple[str, str, str], float] = {}
            for way in thirds:
                for leaf in leaves:
                    for br in branchings:
                        walls, cpus, value, work = [], [], 0, 0
                        for _ in range(args.runs):
                            w0, c0 = time.perf_counter(), time.process_time()
                            got = root_lower_bound(game, history, depth, target=args.target,
                                                   third_ply_classes=way == "classes", leaf_scan=leaf == "own",
                                                   branching=br == "on")
                            walls.append(time.perf_counter() - w0)
                            cpus.append(time.process_time() - c0)
                            value, work = got.value, got.work
                        cpu_of[(way, leaf, br)] = statistics.median(cpus)
                        rows.append({"depth": depth, **({} if args.target is None else {"target": args.target}),
                                     "third_ply": way, "leaves": leaf, "branching": br, "lower": value,
                                     "sets_refined": work, "wall_s": round(statistics.median(walls), 3),
                                     "cpu_s": round(cpu_of[(way, leaf, br)], 3),
                                     **({} if history else {"width": round((upper - value) / value, 5)})})
                        if way == "every" and ("classes", leaf, br) in cpu_of:
                            rows[-1]["cpu_ratio_every_to_classes"] = round(
                                cpu_of[(way, leaf, br)] / max(cpu_of[("classes", leaf, br)], 1e-9), 2)
                        if br == "off" and (way, leaf, "on") in cpu_of:
                            rows[-1]["cpu_ratio_off_to_on"] = round(
                                cpu_of[(way, leaf, br)] / max(cpu_of[(way, leaf, "on")], 1e-9), 2)
                        print(json.dumps({"game": spec, **rows[-1]}), file=sys.stderr, flush=True)
        out["games"][spec] = {"codes": game.size, "upper": upper, "bounds": rows,
                              **({"history": args.history} if history else {})}
    print(json.dumps(out, indent=1))


def shipped_brackets(entries: dict[str, dict[str, Any]], games: list[str]) -> dict[str, Any]:
    """Each game's bracket of T as shipped, with the recorded cost and command of each side."""
    out: dict[str, Any] = {"source": "service/data/atlas.json", "games": {}}
    for spec in games:
        entry = entries[spec]
        total = entry["values"]["total"]
        lower, upper = total["lower"], total["upper"]
        bound, tree = entry.get("lower_bound") or {}, entry.get("hybrid") or {}
        out["games"][spec] = {
            "lower": lower, "upper": upper, "width": round((upper - lower) / lower, 5),
            "under_1_percent": (upper - lower) / lower < 0.01,
            "lower_bound": {k: bound.get(k) for k in ("depth", "seconds", "command")},
            "upper_bound": {k: tree.get(k) for k in ("total", "worst_case", "seconds", "command")},
        }
    return out


if __name__ == "__main__":
    main()
