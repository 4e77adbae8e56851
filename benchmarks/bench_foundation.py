"""Foundation benchmark: whole one-step strategy trees, optionally side by side with a peer solver.

Prints one JSON document: machine info, then per game and strategy the median seconds (of
``--runs`` runs) of building the strategy's whole tree on one core, with its total and worst case
as a check.  Set-up that a game needs once (code enumeration, the response table or factor tables)
is timed apart, as ``setup_s``, and done before the trees; caches a tree fills (symbol-class pools,
history symmetry) are emptied before every run, so each run starts as a fresh process would.

Each tree is timed twice when ``--first`` is given or a peer answers: ``own`` lets the strategy pick
its first guess too, ``first`` forces the peer's (the peer does not time its own first choice).

    NUMBA_NUM_THREADS=1 python benchmarks/bench_foundation.py [--runs 3]
        [--games mastermind,bulls-cows,5,8,1,6,7,1] [--strategies minimax,most-parts,...]
        [--peer DIR]

``--peer DIR`` runs, interleaved with the project's runs (same sitting, same load), executables
``DIR/mm_<p>p<c>c_<Algo>`` (Algo one of Knuth, MostParts, Entropy, ExpectedSize) of
mikemag/Mastermind's CPU solver, each configured to play that one game with that one strategy,
from DIR (where its ``valid_solutions.json`` must be); its ``mastermind_run_stats.json`` gives the
peer's time and total.  The peer is never part of this repository: build it from its public
source, outside the project.  ``ratio`` is project seconds over peer seconds for the same first
guess (below 1.0: the project is faster).

To time an older version of the solver with the same script, put its checkout first:
``PYTHONPATH=/path/to/old/checkout python benchmarks/bench_foundation.py --games "5,8,1" --runs 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

from solver import heuristics, symmetry
from solver.game import Game
from solver.heuristics import get_strategy
from solver.tree import build_tree, strategy_chooser

PEER_ALGOS = {"minimax": "Knuth", "most-parts": "MostParts", "entropy": "Entropy",
              "expected-size": "ExpectedSize"}
"""The peer's name of each strategy it plays."""


def _label(game: Game) -> str:
    return f"{game.positions}p{game.symbols}c" + ("" if game.repetition else "-distinct")


def _peer(peer_dir: Path, game: Game, strategy: str) -> dict[str, Any] | None:
    """One run of the peer: seconds, total, first guess (in the project's alphabet), or None."""
    exe = peer_dir / f"mm_{game.positions}p{game.symbols}c_{PEER_ALGOS.get(strategy, '-')}"
    if not game.repetition or not exe.is_file():
        return None
    stats = peer_dir / "mastermind_run_stats.json"
    stats.unlink(missing_ok=True)
    proc = subprocess.run([str(exe)], cwd=peer_dir, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not stats.is_file():
        raise SystemExit(f"peer {exe} failed ({proc.returncode}): {proc.stderr[-500:]}")
    runs = [r["run"] for r in json.loads(stats.read_text()) if "run" in r]
    run = runs[-1]
    # the peer writes colours 1..c; the project's alphabet starts at 0
    first = "".join(game.alphabet[int(ch, 16) - 1] for ch in run["Initial Guess"])
    return {"seconds": float(run["Elapsed (s)"]), "total": int(run["Total Turns"]),
            "worst_case": int(run["Max Turns"]), "first_guess": first}


def _project(game: Game, strategy: str, first: str | None) -> dict[str, Any]:
    """One whole tree, from an empty cache of symmetry classes."""
    # (getattr: the script also times older solvers, put first on PYTHONPATH, which lack them)
    for cache in (getattr(heuristics, "_canonical", None), getattr(symmetry, "position_classes", None)):
        if cache is not None:
            cache.cache_clear()
    arrays = game.arrays(table=True)
    strat = get_strategy(strategy)
    t0 = time.perf_counter()
    tree = build_tree(game, strategy_chooser(game, strat, arrays), strategy=strategy, arrays=arrays,
                      first=None if first is None else game.parse_code(first))
    seconds = time.perf_counter() - t0
    st = tree.stats()
    return {"seconds": seconds, "total": st.total, "worst_case": st.worst_case, "nodes": st.nodes,
            "first_guess": st.first_guess}


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = [r["seconds"] for r in runs]
    out = {k: v for k, v in runs[-1].items() if k != "seconds"}
    out.update(median_s=round(statistics.median(times), 4), min_s=round(min(times), 4),
               max_s=round(max(times), 4), runs=len(times))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", default="mastermind;bulls-cows;5,8,1;6,7,1",
                    help="';'-separated presets or P,S,R specs")
    ap.add_argument("--strategies", default="minimax,most-parts,entropy,expected-size")
    ap.add_argument("--peer", type=Path, default=None, help="folder of the peer's executables")
    ap.add_argument("--first", default=None,
                    help="also time each tree from this first guess (default: the peer's, if any)")
    args = ap.parse_args()

    # compile every kernel once, on a small game, before anything is timed
    warm = Game.from_spec("3,4,1")
    for name in args.strategies.split(","):
        build_tree(warm, strategy_chooser(warm, get_strategy(name)), strategy=name)

    out: dict[str, Any] = {"benchmark": "foundation", "numba_threads": os.environ["NUMBA_NUM_THREADS"],
                           "machine": machine(), "games": {}}
    for spec in args.games.split(";"):
        game = Game.from_spec(spec)
        t0 = time.perf_counter()
        arrays = game.arrays(table=True)
        factors = game.factors() if hasattr(game, "factors") else None
        setup = time.perf_counter() - t0
        entry: dict[str, Any] = {"codes": game.size, "setup_s": round(setup, 4),
                                 "responses": "table" if arrays.table.shape[0] else
                                 ("factor tables" if factors is not None and factors.keys.shape[0] else "computed"),
                                 "trees": {}}
        for name in args.strategies.split(","):
            own: list[dict[str, Any]] = []
            forced: list[dict[str, Any]] = []
            peer: list[dict[str, Any]] = []
            for _ in range(args.runs):
                p = _peer(args.peer, game, name) if args.peer else None
                if p is not None:
                    peer.append(p)
                first = args.first or (p["first_guess"] if p else None)
                if first is not None:
                    forced.append(_project(game, name, first))
                own.append(_project(game, name, None))
            row: dict[str, Any] = {"own": _summary(own)}
            if forced:
                row["first"] = _summary(forced)
            if peer:
                row["peer"] = _summary(peer)
                row["ratio"] = round(row["first"]["median_s"] / row["peer"]["median_s"], 3)
                row["ratio_own_first_guess"] = round(row["own"]["median_s"] / row["peer"]["median_s"], 3)
            entry["trees"][name] = row
            print(f"{spec} {name}: " + json.dumps({k: v.get("median_s", v) if isinstance(v, dict) else v
                                                   for k, v in row.items()}), file=sys.stderr)
        out["games"][_label(game)] = entry
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
