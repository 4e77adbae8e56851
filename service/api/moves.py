"""``POST /v1/next-move``: the next guess of a strategy after a history."""

from __future__ import annotations

import time
from typing import Any

import structlog
from apiflask import APIBlueprint
from flask import current_app, url_for

from service import engine
from service.api import jobs as jobs_api
from service.api.solve import budget
from service.config import Settings
from service.jobs.plan import JobRequest
from service.schemas import NextMoveIn, NextMoveOut
from service.store.db import StorageError
from service.store.models import Job
from service.trees import tree_note
from solver.game import Game, Turn
from solver.search import SolveOptions

bp = APIBlueprint("moves", __name__, tag="moves", url_prefix="/v1")

HANDOFF = "service:next-move"
"""Submitter of the jobs next moves hand off (see :func:`_hand_off`)."""


@bp.post("/next-move")
@bp.input(NextMoveIn, location="json", arg_name="body")
@bp.output(NextMoveOut)
def next_move(body: NextMoveIn) -> dict[str, Any]:
    """The next guess.  Optimal strategies answer from the stored tree while the history follows it,
    else from the cache, else by a search within ``time_budget_ms`` (wall-clock), else (``exact:
    false``, with a ``note``) by their criterion's heuristic; a question the budget cut short, or
    that found every search busy, is handed to a job (``job``, ``job_url``), after which the same
    question is answered exactly from the cache.  Games too large for exact search get the
    heuristic too.  One-step strategies score within the same budget: past it they answer with the
    best guess scored so far, and a ``note`` says so."""
    t0 = time.perf_counter()
    settings: Settings = current_app.config["SETTINGS"]
    game = engine.game_of(body.game, settings)
    history, cands = engine.history_of(game, body.history, settings)
    expected: float | None = None
    worst: int | None = None
    note: str | None = None
    job: Job | None = None
    stored = None
    if body.strategy.startswith("optimal-"):
        stored = current_app.extensions["bullscows_trees"].get(game, body.strategy, body.max_guesses)
    found = stored.lookup(history) if stored is not None else None
    if stored is not None and found is not None:
        node, (secrets, remaining, worst) = found
        guess, exact, source = node.guess, stored.answers(body.max_guesses), "tree"
        expected = remaining / secrets
        note = tree_note(stored, body.max_guesses)
    elif body.strategy.startswith("optimal-"):
        move = engine.optimal_move(
            current_app.extensions["bullscows_pool"], game, history, cands, body.strategy, body.max_guesses,
            budget(settings, body.time_budget_ms))
        guess, exact, source, expected, note = move.guess, move.exact, move.source, move.expected, move.note
        if move.unfinished and cands.shape[0] > 1:
            job = _hand_off(game, history, body.strategy, body.max_guesses)
    else:
        guess, note = engine.heuristic_move(game, cands, body.strategy, body.seed, history,
                                            budget(settings, body.time_budget_ms))
        exact, source = False, "heuristic"
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
        "note": note,
        "job": None if job is None else job.id,
        "job_url": None if job is None else url_for("jobs.get_job", job_id=job.id),
    }


def _hand_off(game: Game, history: list[Turn], strategy: str, max_guesses: int | None) -> Job | None:
    """The job that finishes this optimal question: an identical one is reused, else one is queued
    while fewer than ``BULLSCOWS_HANDOFF_JOBS`` handed-off jobs are active (they are the service's,
    not the client's: its free job budget is not spent).  None when none can be queued; the move is
    answered either way."""
    settings: Settings = current_app.config["SETTINGS"]
    options = SolveOptions("total" if strategy == "optimal-total" else "kmovers", max_guesses)
    jobs = jobs_api.store()
    req = JobRequest.of(game, history, options)
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
