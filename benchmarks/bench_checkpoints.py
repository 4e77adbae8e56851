"""What a unit's checkpoints cost, and what resuming from one costs.  Prints JSON.

One unit (by default Bulls-and-Cows after 0123 0.1, 1456 0.2: one root unit of about 3.1 M nodes) is
computed in this process by :func:`service.jobs.compute.compute_unit`, from an empty table:

- ``reference``: without checkpoints;
- ``checkpointed``: saving every ``--every`` seconds (the saves are kept in memory, as a stand-in for
  the positions table), with the extra nodes that stopping and starting again cost;
- ``resumed``: for a few of those saves, a fresh searcher loaded with everything saved up to it (a new
  worker after a kill) finishes the unit; ``walk_back`` is what it searched beyond what was left.

    python benchmarks/bench_checkpoints.py
    python benchmarks/bench_checkpoints.py --history "0123 0.1, 4567 0.2" --every 2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="bulls-cows")
    ap.add_argument("--history", default="0123 0.1, 1456 0.2")
    ap.add_argument("--every", type=float, default=1.0)
    args = ap.parse_args()

    from service.jobs.compute import Checkpoints, compute_unit
    from service.jobs.plan import JobRequest
    from solver.game import Game
    from solver.search import Searcher, SolveOptions
    from solver.table import Entry

    g = Game.from_spec(args.game)
    history = list(g.parse_history(args.history))
    req = JobRequest.of(g, history, SolveOptions("total"))
    opts = req.options(None)
    ref = compute_unit(Searcher(g, opts), req, "root", None, history, None, None)
    saves: list[tuple[int, list[Entry]]] = []

    def save(entries: list[Entry], nodes: int) -> bool:
        saves.append((nodes, list(entries)))
        return True

    cp = compute_unit(Searcher(g, opts), req, "root", None, history, None, None,
                      Checkpoints(args.every, save, lambda: False))
    assert cp.value == ref.value
    resumed: list[dict[str, Any]] = []
    for k in sorted({1, len(saves) // 2, len(saves) - 2} & set(range(len(saves)))):
        fresh = Searcher(g, opts)
        fresh.table_for(opts).load([e for _, es in saves[:k + 1] for e in es])
        again = compute_unit(fresh, req, "root", None, history, None, None)
        assert again.value == ref.value
        saved = saves[k][0]
        resumed.append({"after_checkpoint": k + 1, "saved_nodes": saved, "resumed_nodes": again.nodes,
                        "walk_back": saved + again.nodes - ref.nodes})
    print(json.dumps({
        "machine": machine(), "game": g.spec, "history": args.history, "every_s": args.every, "value": ref.value,
        "reference": {"nodes": ref.nodes, "seconds": round(ref.seconds, 2)},
        "checkpointed": {"nodes": cp.nodes, "seconds": round(cp.seconds, 2), "checkpoints": len(saves),
                         "extra_nodes": cp.nodes - ref.nodes,
                         "extra_fraction": round((cp.nodes - ref.nodes) / ref.nodes, 4)},
        "resumed": resumed,
    }, indent=1))


if __name__ == "__main__":
    main()
