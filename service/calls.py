"""What the HTTP API's calls do, once their input is read: a position solved or handed to a job, a next move and the
job a cut one is handed to, jobs submitted within a client's free budget, shown, listed and cancelled, a tree built
by a job.

Why here and not in the routes: a route parses its input (:mod:`service.api.parse`, the schemas), calls one function
of this module and writes its answer; how the answer chain, the job store and the job engine are combined for a
call, and what the service's settings allow, is said once here, where the CLI or a test can call it too.  The app's
objects are its :class:`~service.services.Services`, the caller is the request's (:func:`service.auth.client_id`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from service import auth
from service.answers import Move
from service.jobs import manage
from service.problems import ProblemException
from service.services import services
from service.store.job_records import JobRequest
from service.store.models import Job
from solver.errors import GameTooLargeError
from solver.game import SEARCH_MAX_CODES, CandidateSet, Code, Game, Turn
from solver.position import Position
from solver.search import InvalidSearchError, SolveOptions, require_searchable, searchable
from solver.vocabulary import Criterion


def wait_budget(asked: int | None, default: int) -> float:
    """Seconds to wait for a job, ``asked`` in milliseconds (``default`` when not asked), at most the
    configured maximum."""
    ms = default if asked is None else asked
    return min(max(ms, 0), services().settings.max_wait_ms) / 1000.0


def big_position(game: Game) -> bool:
    """Whether a position of ``game`` (after one turn or more) is searched by a job although the whole game is past
    the deployment's exact search: the game is within ``position_search_max_codes`` (see its setting)."""
    return not searchable(game) and game.size <= min(services().settings.position_search_max_codes, SEARCH_MAX_CODES)


def submit_request(req: JobRequest, wait_s: float) -> Job:
    """Submit (or find) the job of a validated request, within the client's free budget of jobs, and
    wait up to ``wait_s`` for it."""
    jobs = services().jobs
    client = auth.client_id()
    free = services().settings.free_jobs
    if jobs.find(req) is None and auth.token_for("jobs") is None and jobs.active_count(client) >= free:
        raise ProblemException(auth.unauthorized(
            f"this client already has {free} jobs queued or running, the free budget; "
            "wait for them to finish, or send a bearer token with the 'jobs' scope"))
    job, created = jobs.submit(req, client)
    from service.metrics import record_job

    record_job("submitted" if created else "reused")
    if wait_s > 0 and job.status not in ("done", "failed", "cancelled"):
        job = manage.wait_for(jobs, job.id, wait_s) or job
    return job


def submit(game: Game, history: list[Turn], options: SolveOptions, wait_s: float) -> Job:
    """Submit (or find) the job for this question and wait up to ``wait_s`` for it.

    :raises InvalidSearchError: a finished game (nothing to search), or parameters that make no sense."""
    if game.won(history):
        raise InvalidSearchError(f"the game was won at guess {len(history)}: there is nothing to search "
                                 "(POST /v1/solve values a finished game at once)")
    options.validate(game, Position.of(game, history).turn)
    if not (history and big_position(game)):
        require_searchable(game)  # refused now rather than failing at planning
    return submit_request(JobRequest.of(game, history, options), wait_s)


def job_answer(job: Job) -> dict[str, Any]:
    """A finished solve job's answer as ``POST /v1/solve`` gives it."""
    return {**orjson.loads(job.result or "{}"), "source": "job", "complete": True, "job": job.id}


@dataclass(frozen=True)
class Solved:
    """What ``POST /v1/solve`` answers: the answer, or the view of the job that will (``answer`` None: 202)."""

    answer: dict[str, Any] | None
    job: dict[str, Any] | None = None


def solve(game: Game, history: list[Turn], cands: CandidateSet, options: SolveOptions, *, guess: Code | None,
          job: bool, fresh: bool, budget_ms: int, wait_ms: int | None) -> Solved:
    """A position's value under ``options`` (``guess``: that guess's instead of the best one's), by the answer
    chain within ``budget_ms``; past it, with ``job``, the question becomes a job, answered if it ends within
    ``wait_ms``.  ``fresh`` skips the trees and the table.  Each answer echoes the depth limit it holds for.

    A finished game is valued at once, whatever its size; a position of a game past this deployment's exact search
    (:func:`big_position`) is answered from what is known, else by a job's search, never by this request's.

    :raises GameTooLargeError: such a position asked without a job."""
    chain = services().answers
    limit = {"max_guesses": options.max_guesses}

    def as_job() -> Solved:
        found = submit(game, history, options, wait_budget(wait_ms, services().settings.solve_wait_ms))
        return Solved({**job_answer(found), **limit}) if found.status == "done" else Solved(None, view_of(found))

    if game.won(history):
        return Solved({**chain.solve(game, history, cands, options, None, guess).as_dict(game), **limit})
    options.validate(game, Position(game, tuple(history), cands).turn)
    asks_job = job and guess is None and options.upper_bound is None
    big = bool(history) and big_position(game)
    if asks_job or big:
        known = None if fresh else chain.known(game, history, cands, options)
        if known is not None:
            return Solved({**known.as_dict(game), **limit})
        if big and not asks_job:
            raise GameTooLargeError(
                f"game {game.spec} has {game.size} codes, more than the {game.search_max_codes} this service searches "
                "within a request; its positions are searched by jobs: ask without guess, upper_bound or job: false")
        # a job already under way (or done) for this question answers instead of a new search
        if big or services().jobs.find(JobRequest.of(game, history, options)) is not None:
            return as_job()
    answer = chain.solve(game, history, cands, options, budget_ms, guess, lookup=not asks_job, fresh=fresh)
    if not answer.complete and asks_job:
        return as_job()
    return Solved({**answer.as_dict(game), **limit})


def next_move(game: Game, history: list[Turn], cands: CandidateSet, strategy: str, *, max_guesses: int | None,
              budget_ms: int, seed: int, from_set_only: bool, job: bool) -> tuple[Move, Job | None]:
    """The next guess of ``strategy`` by the answer chain, and, with ``job``, the job an optimal question cut short
    is handed to (:func:`service.jobs.manage.hand_off`, within ``handoff_jobs``), after which the same question is
    answered exactly from the table."""
    move = services().answers.next_move(game, history, cands, strategy, max_guesses=max_guesses, budget_ms=budget_ms,
                                        seed=seed, from_set_only=from_set_only)
    handed = (manage.hand_off(services().jobs, game, history, strategy, max_guesses, services().settings.handoff_jobs)
              if move.unfinished and job else None)
    return move, handed


def tree_job(game: Game, strategy: str, options: SolveOptions | None, max_guesses: int | None,
             wait_ms: int | None) -> Job:
    """The job that builds ``strategy``'s whole tree of ``game`` (an optimal one answering ``options``' criterion,
    the game within the exact search), waited for up to ``wait_ms``."""
    if options is not None:
        require_searchable(game)
    req = JobRequest.tree(game, strategy, Criterion.TOTAL if options is None else options.criterion, max_guesses)
    return submit_request(req, wait_budget(wait_ms, 0))


def job_view(job_id: str, *, units: bool = False) -> dict[str, Any] | None:
    """A job's public view (:func:`service.jobs.manage.view`), None when there is no such job."""
    jobs = services().jobs
    job = jobs.get(job_id[:32])
    return None if job is None else manage.view(jobs, job, units=units)


def view_of(job: Job) -> dict[str, Any]:
    """The public view of a job in hand."""
    return manage.view(services().jobs, job)


def job_list(status: str | None, limit: int, offset: int) -> dict[str, Any]:
    """Jobs, newest first, and how many workers are alive."""
    jobs = services().jobs
    return {"jobs": [manage.view(jobs, j) for j in jobs.list_jobs(status, limit, offset)],
            "workers_alive": len(jobs.live_workers(services().settings.worker_live_s))}


def workers_alive() -> bool:
    """Whether a job worker is running on this service's database."""
    return bool(services().jobs.live_workers(services().settings.worker_live_s))


def cancel_job(job_id: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the job's view once cancelled, None) when it was queued or running; (None, its status) when it had finished;
    (None, None) when there is no such job."""
    jobs = services().jobs
    job = jobs.get(job_id[:32])
    if job is None:
        return None, None
    status, changed = jobs.cancel(job.id)
    if not changed:
        return None, status
    from service.metrics import record_job

    record_job("cancelled")
    done = jobs.get(job.id)
    assert done is not None
    return manage.view(jobs, done), None
