"""``POST /v1/next-move``: the next guess of a strategy after a history."""

from __future__ import annotations

import time
from typing import Any

from apiflask import APIBlueprint
from flask import current_app

from service import engine
from service.api.solve import budget
from service.config import Settings
from service.schemas import NextMoveIn, NextMoveOut

bp = APIBlueprint("moves", __name__, tag="moves", url_prefix="/v1")


@bp.post("/next-move")
@bp.input(NextMoveIn, location="json", arg_name="body")
@bp.output(NextMoveOut)
def next_move(body: NextMoveIn) -> dict[str, Any]:
    """The next guess.  Optimal strategies answer from the stored tree while the history follows it,
    else from the cache, else by a search within ``time_budget_ms``, else (``exact: false``) by their
    criterion's heuristic."""
    t0 = time.perf_counter()
    settings: Settings = current_app.config["SETTINGS"]
    game = engine.game_of(body.game, settings)
    history, cands = engine.history_of(game, body.history, settings)
    expected: float | None = None
    worst: int | None = None
    stored = None
    if body.strategy.startswith("optimal-"):
        stored = current_app.extensions["bullscows_trees"].get(game, body.strategy, body.max_guesses)
    found = stored.lookup(history) if stored is not None else None
    if stored is not None and found is not None:
        node, (secrets, remaining, worst) = found
        guess, exact, source = node.guess, bool(stored.meta["exact"]), "tree"
        expected = remaining / secrets
    elif body.strategy.startswith("optimal-"):
        guess, exact, source, expected = engine.optimal_move(
            current_app.extensions["bullscows_pool"], game, history, cands, body.strategy, body.max_guesses,
            budget(settings, body.time_budget_ms))
    else:
        guess, exact, source = engine.heuristic_move(game, cands, body.strategy, body.seed), False, "heuristic"
    n = int(cands.shape[0])
    if n == 1:
        exact, expected = True, 1.0
    return {
        "guess": game.format_code(guess),
        "candidates": n,
        "candidate_list": game.format_codes(cands) if n <= 20 else None,
        "solved": n == 1,
        "exact": exact,
        "value": {"expected": expected, "worst_case": 1 if n == 1 else worst},
        "source": source,
        "strategy": body.strategy,
        "elapsed_ms": round((time.perf_counter() - t0) * 1000, 3),
    }
