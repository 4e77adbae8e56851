"""Our exact search side by side with a public C solver of the same question, arfst23/Mastermind.

That solver finds the strategy of fewest guesses in all (its "average" criterion) for Mastermind with four pegs,
its number of colours and its depth limit set by ``#define`` at the top of ``mastermind.c``.  This script takes the
path of a checkout of it (a folder holding ``mastermind.c`` and its ``Makefile``, or a bare git repository, whose
``HEAD`` is exported), copies it into a scratch folder outside the project, sets ``COLORS`` and ``DEPTH_MAX`` there,
builds ``mastermind`` with its own Makefile (gcc, its flags), and runs it; the project keeps none of it.  Ours is
``Searcher(game, SolveOptions("total", limit)).solve()`` from nothing (no shipped tree, table or database), in a
child process whose kernels are loaded before the clock starts, as ``bullscows solve -g 4,N,1 --search`` reports
it.  The two alternate run by run.

    python benchmarks/bench_peer.py --peer PATH [--games 4x6,4x7] [--runs 3] [--peer-runs 1]

Prints JSON: per game, each side's median seconds (the peer's own CPU figure and its wall time; ours, the solve's
wall time on one thread), both values (guesses in all over every secret, which must agree) and the ratio
peer / ours.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GAMES: dict[str, tuple[int, int]] = {"4x6": (6, 6), "4x7": (7, 6), "4x8": (8, 7)}
"""Game name: (colours, depth limit): the configurations the peer's source lists (4 6 6, 4 7 6, 4 8 6 or 7); each
limit is at least the game's optimal strategy's worst case, so both sides answer the unlimited optimum."""

OURS = """
import json, sys, time
from solver.game import Game
from solver.search import Searcher, SolveOptions
colours, limit = json.loads(sys.argv[1])
Searcher(Game(2, 3, True), SolveOptions("total")).solve(())  # load (or compile) the kernels: not timed
game = Game(4, colours, repetition=True)
t0 = time.perf_counter()
res = Searcher(game, SolveOptions("total", limit)).solve(())
print(json.dumps({"value": res.value, "exact": res.exact, "nodes": res.nodes,
                  "seconds": time.perf_counter() - t0}))
"""


def peer_source(path: str, into: str) -> None:
    """The peer's files in ``into``: copied from a checkout, or exported from a bare repository's HEAD."""
    if os.path.exists(os.path.join(path, "mastermind.c")):
        shutil.copytree(path, into, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
        return
    archive = subprocess.run(["git", f"--git-dir={path}", "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    if not os.path.exists(os.path.join(into, "mastermind.c")):
        raise SystemExit(f"{path}: no mastermind.c there (give a checkout of arfst23/Mastermind)")


def build_peer(path: str, scratch: str, colours: int, limit: int) -> str:
    """The peer's ``mastermind`` built for ``colours`` and ``limit`` in a folder of ``scratch``; its path."""
    folder = os.path.join(scratch, f"peer-4-{colours}-{limit}")
    os.makedirs(folder)
    peer_source(path, folder)
    source = os.path.join(folder, "mastermind.c")
    with open(source, encoding="utf-8") as fh:
        text = fh.read()
    for name, value in (("COLORS", colours), ("DEPTH_MAX", limit)):
        text, n = re.subn(rf"^#define {name} \d+$", f"#define {name} {value}", text, count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"{source}: no '#define {name} N' line to set")
    with open(source, "w", encoding="utf-8") as fh:
        fh.write(text)
    subprocess.run(["make", "mastermind"], cwd=folder, check=True, capture_output=True)
    return os.path.join(folder, "mastermind")


COLUMNS = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (2, 2),
           (3, 0), (4, 0)]
"""The peer's response columns (``---- O--- OO-- … XXX- XXXX``) as (black, white) pegs."""


def pegs(guess: str, secret: str) -> tuple[int, int]:
    """(black, white) of ``secret`` against ``guess`` (codes as digit strings), counted here, not by either solver."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(guess.count(d), secret.count(d)) for d in set(guess))
    return black, common - black


def peer_total(out: str, colours: int) -> tuple[int, int]:
    """(guesses in all, secrets) of the strategy the peer prints, played through every secret: one line per
    position (``row guess-number guess``, then per response column ``>row`` for the position it leads to, ``----``
    for none, or the one code left, guessed next).  Played, not summed from the lines, so that a strategy that
    misses a secret fails here rather than being counted."""
    rows = {f[0]: f for f in (line.split() for line in out.splitlines())
            if len(f) == 3 + len(COLUMNS) and re.fullmatch(r"\d{3}", f[0])}
    total = secrets = 0
    for code in itertools.product(map(str, range(colours)), repeat=4):
        secret, row = "".join(code), "000"
        while True:
            fields = rows[row]
            turn, guess = int(fields[1]), fields[2]
            response = pegs(guess, secret)
            if response == (4, 0):
                total += turn
                break
            cell = fields[3 + COLUMNS.index(response)]
            if cell.startswith(">"):
                row = cell[1:]
                continue
            if cell != secret:
                raise SystemExit(f"the peer's strategy does not find {secret} (row {row}: {cell})")
            total += turn + 1
            break
        secrets += 1
    return total, secrets


def run_peer(binary: str, colours: int) -> dict[str, Any]:
    """One run of the peer: its wall time, the CPU seconds it reports, and its strategy's total."""
    t0 = time.perf_counter()
    out = subprocess.run([binary], capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    cpu = re.search(r"cpu=(\d+)\.(\d)s", out)
    total, secrets = peer_total(out, colours)
    return {"wall_s": wall, "cpu_s": None if cpu is None else int(cpu.group(1)) + int(cpu.group(2)) / 10,
            "value": total, "secrets": secrets}


def run_ours(colours: int, limit: int) -> dict[str, Any]:
    """One run of ours in a child process (its seconds are the solve's alone)."""
    out = subprocess.run([sys.executable, "-c", OURS, json.dumps([colours, limit])], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", required=True, help="a checkout of arfst23/Mastermind (or its bare git repository)")
    ap.add_argument("--games", default="4x6,4x7", help=f"comma-separated, of {', '.join(GAMES)}")
    ap.add_argument("--runs", type=int, default=3, help="runs of ours per game (median)")
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of the peer per game (median)")
    args = ap.parse_args()
    out: dict[str, Any] = {"benchmark": "peer", "peer": "arfst23/Mastermind", "machine": machine(), "games": {}}
    scratch = tempfile.mkdtemp(prefix="bullscows-peer-")  # outside the project: nothing of the peer is kept
    try:
        for name in args.games.split(","):
            colours, limit = GAMES[name.strip()]
            binary = build_peer(args.peer, scratch, colours, limit)
            peer_runs: list[dict[str, Any]] = []
            ours_runs: list[dict[str, Any]] = []
            for i in range(max(args.runs, args.peer_runs)):  # alternating, so that both see the same machine
                if i < args.peer_runs:
                    peer_runs.append(run_peer(binary, colours))
                if i < args.runs:
                    ours_runs.append(run_ours(colours, limit))
            peer_cpu = statistics.median(r["cpu_s"] for r in peer_runs if r["cpu_s"] is not None)
            ours_s = statistics.median(r["seconds"] for r in ours_runs)
            out["games"][name] = {
                "positions": 4, "colours": colours, "max_guesses": limit,
                "peer": {"cpu_s_median": peer_cpu,
                         "wall_s_median": round(statistics.median(r["wall_s"] for r in peer_runs), 2),
                         "runs": len(peer_runs), "value": peer_runs[0]["value"],
                         "secrets": peer_runs[0]["secrets"]},
                "ours": {"seconds_median": round(ours_s, 3), "runs": len(ours_runs),
                         "value": ours_runs[0]["value"], "exact": ours_runs[0]["exact"],
                         "nodes": ours_runs[0]["nodes"]},
                "values_agree": peer_runs[0]["value"] == ours_runs[0]["value"],
                "ratio_peer_cpu_over_ours": round(peer_cpu / ours_s, 1) if ours_s else None,
            }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
