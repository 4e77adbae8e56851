"""``POST /v1/next-move``: the next guess of a strategy after a history (parse, ask the chain, format)."""

from __future__ import annotations

import time
from typing import Any

from apiflask import APIBlueprint
from flask import url_for

from service import calls
from service.api import parse
from service.rules import max_guesses_of
from service.schemas.moves import NextMoveIn, NextMoveOut
from service.services import services
from solver.vocabulary import criterion_of

bp = APIBlueprint("moves", __name__, tag="moves", url_prefix="/v1")


@bp.post("/next-move")
@bp.input(NextMoveIn, location="json", arg_name="body")
@bp.output(NextMoveOut)
def next_move(body: NextMoveIn) -> Any:
    """The next guess.  Optimal strategies answer from a proven tree while the history follows it
    (under any relabelling of its symbols and positions), else from the table, else by a search within
    ``time_budget_ms`` (wall-clock), else (``exact: false``, with a ``note``) by their criterion's
    heuristic; with ``job: true`` a question the budget cut short, or that found every search busy, is
    handed to a job (``job``, ``job_url``, ``Location``), after which the same question is answered exactly
    from the table.  Games too large for exact search get the heuristic too.  One-step strategies score
    within the same budget: past it they answer with the best guess scored so far, and a ``note`` says so.
    A history that ends in the winning response is a finished game: ``finished``, the ``secret``, no
    ``guess``, nothing searched."""
    t0 = time.perf_counter()
    settings = services().settings
    game = parse.game_of(body.game, settings)
    history, cands = parse.history_of(game, body.history, settings)
    max_guesses = max_guesses_of(game, criterion_of(body.strategy), body.max_guesses)
    move, job = calls.next_move(game, history, cands, body.strategy, max_guesses=max_guesses,
                                budget_ms=parse.budget(settings, body.time_budget_ms), seed=body.seed,
                                from_set_only=body.from_set_only, job=body.job)
    out = move.as_dict(game, history, cands, body.strategy, (time.perf_counter() - t0) * 1000)
    out.update(max_guesses=max_guesses)
    if job is None:
        out.update(job=None, job_url=None)
        return out
    out.update(job=job.id, job_url=url_for("jobs.get_job", job_id=job.id))
    return out, 200, {"Location": out["job_url"]}
