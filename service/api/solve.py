"""``POST /v1/solve``: the value of a position under a criterion (parse, ask the chain, format)."""

from __future__ import annotations

from typing import Any

import orjson
from apiflask import APIBlueprint
from flask import current_app

from service.api import parse
from service.api import submit as jobs
from service.config import Settings
from service.jobs.plan import JobRequest
from service.rules import max_guesses_of
from service.schemas.moves import SolveIn, SolveOut
from service.services import services
from service.store.models import Job
from solver.errors import GameTooLargeError
from solver.game import Game, Turn
from solver.search import SolveOptions

bp = APIBlueprint("solve", __name__, tag="solve", url_prefix="/v1")


def _from_job(job: Job, options: SolveOptions) -> dict[str, Any]:
    out = dict(orjson.loads(job.result or "{}"))
    out.update(source="job", complete=True, job=job.id)
    return _echoed(out, options)


def _echoed(out: dict[str, Any], options: SolveOptions) -> dict[str, Any]:
    """An answer with the depth limit it was answered under (``max_guesses``: asked, or the rule's default)."""
    return {**out, "max_guesses": options.max_guesses}


def _as_job(settings: Settings, game: Game, history: list[Turn], options: SolveOptions, wait_ms: int | None) -> Any:
    """The job's answer if it is (or gets) done within ``wait_ms``, else 202 with its Location."""
    job = jobs.submit(game, history, options, jobs.wait_budget(settings, wait_ms, settings.solve_wait_ms))
    return _from_job(job, options) if job.status == "done" else jobs.accepted(job)


@bp.post("/solve")
@bp.input(SolveIn, location="json", arg_name="body")
@bp.output(SolveOut)
@bp.doc(responses={200: "The answer", 202: "Too long for the request: continued as a job (follow Location)"})
def solve(body: SolveIn) -> Any:
    """Value, best guess and per-response values of a position.

    ``source`` says which step answered: ``tree`` when a proven tree holds the position (or a
    relabelling of it), ``cache`` when the table knew it (then ``nodes`` is 0), ``search`` when this
    request searched it within ``time_budget_ms``, ``job`` when a job computed it.  Past the budget
    the question becomes a job: the answer is 202 with ``Location: /v1/jobs/{id}`` unless the job
    ends within ``wait_ms``.  With ``job: false`` (and always for ``guess`` or ``upper_bound``
    questions) it answers ``complete: false`` with no value instead.  ``search: true`` skips the trees
    and the table.
    """
    settings: Settings = current_app.config["SETTINGS"]
    game = parse.game_of(body.game, settings)
    history, cands = parse.history_of(game, body.history, settings)
    criterion = parse.criterion_named(body.criterion)
    options = SolveOptions(criterion, max_guesses_of(game, criterion, body.max_guesses),
                           body.depth_count, body.mde, body.from_set_only, body.upper_bound)
    guess = game.parse_code(body.guess) if body.guess is not None else None
    chain = services().answers
    if game.won(history):  # a finished game is valued at once, whatever its size: no search, no job
        return _echoed(chain.solve(game, history, cands, options, None, guess).as_dict(game), options)
    options.validate(game, len(history) + 1)
    as_job = body.job and guess is None and body.upper_bound is None
    # a position of a game past this deployment's exact search: what is known, else a job's search, never this one's
    big = bool(history) and jobs.big_position(game)
    if as_job or big:
        known = None if body.search else chain.known(game, history, cands, options)
        if known is not None:
            return _echoed(known.as_dict(game), options)
        if big and not as_job:
            raise GameTooLargeError(
                f"game {game.spec} has {game.size} codes, more than the {game.search_max_codes} this service searches "
                "within a request; its positions are searched by jobs: ask without guess, upper_bound or job: false")
        if big:
            return _as_job(settings, game, history, options, body.wait_ms)
        # a job already under way (or done) for this question answers instead of a new search
        if jobs.store().find(JobRequest.of(game, history, options)) is not None:
            return _as_job(settings, game, history, options, body.wait_ms)
    answer = chain.solve(game, history, cands, options, parse.budget(settings, body.time_budget_ms), guess,
                         lookup=not as_job, fresh=body.search)
    if not answer.complete and as_job:
        return _as_job(settings, game, history, options, body.wait_ms)
    return _echoed(answer.as_dict(game), options)
