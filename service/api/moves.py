"""``POST /v1/next-move``: the next guess of a strategy after a history (parse, ask the chain, format)."""

from __future__ import annotations

import time
from typing import Any

import structlog
from apiflask import APIBlueprint
from flask import current_app, url_for

from service.api import parse
from service.config import Settings
from service.jobs.plan import JobRequest
from service.rules import max_guesses_of
from service.schemas import NextMoveIn, NextMoveOut
from service.services import services
from service.store.db import StorageError
from service.store.models import Job
from solver.game import Game, Turn
from solver.search import SolveOptions
from solver.vocabulary import criterion_of

bp = APIBlueprint("moves", __name__, tag="moves", url_prefix="/v1")

HANDOFF = "service:next-move"
"""Submitter of the jobs next moves hand off (see :func:`_hand_off`)."""


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
    settings: Settings = current_app.config["SETTINGS"]
    game = parse.game_of(body.game, settings)
    history, cands = parse.history_of(game, body.history, settings)
    max_guesses = max_guesses_of(game, criterion_of(body.strategy), body.max_guesses)
    move = services().answers.next_move(game, history, cands, body.strategy, max_guesses=max_guesses,
                                        budget_ms=parse.budget(settings, body.time_budget_ms), seed=body.seed,
                                        from_set_only=body.from_set_only)
    job = _hand_off(game, history, body.strategy, max_guesses) if move.unfinished and body.job else None
    out = move.as_dict(game, history, cands, body.strategy, (time.perf_counter() - t0) * 1000)
    out.update(max_guesses=max_guesses)
    if job is None:
        out.update(job=None, job_url=None)
        return out
    out.update(job=job.id, job_url=url_for("jobs.get_job", job_id=job.id))
    return out, 200, {"Location": out["job_url"]}


def _hand_off(game: Game, history: list[Turn], strategy: str, max_guesses: int | None) -> Job | None:
    """The job that finishes this optimal question: an identical one is reused, else one is queued
    while fewer than ``BULLSCOWS_HANDOFF_JOBS`` handed-off jobs are active (they are the service's,
    not the client's: its free job budget is not spent).  None when none can be queued; the move is
    answered either way."""
    settings: Settings = current_app.config["SETTINGS"]
    criterion = criterion_of(strategy)
    assert criterion is not None
    jobs = services().jobs
    req = JobRequest.of(game, history, SolveOptions(criterion, max_guesses))
    try:
        found = jobs.find(req)
        if found is not None:
            return found
        if jobs.active_count(HANDOFF) >= settings.handoff_jobs:
            structlog.get_logger().info("next move not handed to a job", reason="handed-off jobs at their limit")
            return None
        job, created = jobs.submit(req, HANDOFF)
    except StorageError as exc:
        structlog.get_logger().warning("next move not handed to a job", reason=exc.detail)
        return None
    from service.metrics import record_job

    record_job("handed-off" if created else "reused")
    return job
