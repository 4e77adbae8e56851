"""``POST /v1/solve``: the value of a position under a criterion, from the cache or by search."""

from __future__ import annotations

from typing import Any

import orjson
from apiflask import APIBlueprint
from flask import current_app

from service import engine
from service.api import jobs as jobs_api
from service.config import Settings
from service.jobs.plan import JobRequest
from service.schemas import SolveIn, SolveOut
from service.store.models import Job
from solver.game import Game, Turn
from solver.search import SolveOptions

bp = APIBlueprint("solve", __name__, tag="solve", url_prefix="/v1")


def budget(settings: Settings, asked: int | None) -> int:
    """The time budget of a request, clamped to the configured maximum."""
    return min(asked or settings.default_time_budget_ms, settings.max_time_budget_ms)


def _from_job(job: Job) -> dict[str, Any]:
    out = dict(orjson.loads(job.result or "{}"))
    out.update(source="job", complete=True, job=job.id)
    return out


def _as_job(settings: Settings, game: Game, history: list[Turn], options: SolveOptions, wait_ms: int | None) -> Any:
    """The job's answer if it is (or gets) done within ``wait_ms``, else 202 with its Location."""
    job = jobs_api.submit(game, history, options, jobs_api.wait_budget(settings, wait_ms, settings.solve_wait_ms))
    return _from_job(job) if job.status == "done" else jobs_api.accepted(job)


@bp.post("/solve")
@bp.input(SolveIn, location="json", arg_name="body")
@bp.output(SolveOut)
@bp.doc(responses={200: "The answer", 202: "Too long for the request: continued as a job (follow Location)"})
def solve(body: SolveIn) -> Any:
    """Value, best guess and per-response values of a position.

    ``source`` is ``cache`` when the database already knew the position (then ``nodes`` is 0),
    ``search`` when this request searched it within ``time_budget_ms``, ``job`` when a job computed
    it.  Past the budget the question becomes a job: the answer is 202 with ``Location:
    /v1/jobs/{id}`` unless the job ends within ``wait_ms``.  With ``job: false`` (and always for
    ``guess`` or ``upper_bound`` questions) it answers ``complete: false`` with no value instead.
    """
    settings: Settings = current_app.config["SETTINGS"]
    game = engine.game_of(body.game, settings)
    history, cands = engine.history_of(game, body.history, settings)
    options = SolveOptions(body.criterion, body.max_guesses, body.depth_count, body.mde, body.from_set_only,
                           body.upper_bound)
    guess = game.parse_code(body.guess) if body.guess is not None else None
    as_job = body.job and guess is None and body.upper_bound is None
    pool = current_app.extensions["bullscows_pool"]
    if as_job:
        options.validate(game, len(history) + 1)
        hit = engine.cached_solve(pool.store, game, history, options, cands)
        if hit is not None:
            from service.metrics import record_solve

            record_solve("cache", 0)
            return {**hit.as_dict(game), "source": "cache", "complete": True}
        # a job already under way (or done) for this question answers instead of a new search
        if jobs_api.store().find(JobRequest.of(game, history, options)) is not None:
            return _as_job(settings, game, history, options, body.wait_ms)
    result, source, complete = engine.solve(pool, game, history, cands, options,
                                            budget(settings, body.time_budget_ms), guess, cache=not as_job)
    if not complete and as_job:
        return _as_job(settings, game, history, options, body.wait_ms)
    out = result.as_dict(game)
    out["source"] = source
    out["complete"] = complete
    if not complete:
        out.update(value=None, exact=False, best_guess=None, per_response={})
    return out
