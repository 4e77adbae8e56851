"""``POST /v1/solve``: the value of a position under a criterion, from the cache or by search."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import current_app

from service import engine
from service.config import Settings
from service.schemas import SolveIn, SolveOut
from solver.search import SolveOptions

bp = APIBlueprint("solve", __name__, tag="solve", url_prefix="/v1")


def budget(settings: Settings, asked: int | None) -> int:
    """The time budget of a request, clamped to the configured maximum."""
    return min(asked or settings.default_time_budget_ms, settings.max_time_budget_ms)


@bp.post("/solve")
@bp.input(SolveIn, location="json", arg_name="body")
@bp.output(SolveOut)
def solve(body: SolveIn) -> dict[str, Any]:
    """Value, best guess and per-response values of a position.

    ``source`` is ``cache`` when the database already knew the position (then ``nodes`` is 0).  A
    search that runs out of ``time_budget_ms`` answers ``complete: false`` with no value.
    """
    settings: Settings = current_app.config["SETTINGS"]
    game = engine.game_of(body.game, settings)
    history, cands = engine.history_of(game, body.history, settings)
    options = SolveOptions(body.criterion, body.max_guesses, body.depth_count, body.mde, body.from_set_only,
                           body.upper_bound)
    guess = game.parse_code(body.guess) if body.guess is not None else None
    result, source, complete = engine.solve(current_app.extensions["bullscows_pool"], game, history, cands,
                                            options, budget(settings, body.time_budget_ms), guess)
    out = result.as_dict(game)
    out["source"] = source
    out["complete"] = complete
    if not complete:
        out.update(value=None, exact=False, best_guess=None, per_response={})
    return out
