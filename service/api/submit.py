"""Questions handed to durable jobs from a request: the client's free budget, waiting for the result,
and the ``202 Accepted`` answer.  Shared by ``/v1/jobs`` and ``/v1/solve`` (so that no blueprint imports
another); the job's own life is :mod:`service.jobs`.
"""

from __future__ import annotations

from flask import Response, current_app, json, url_for

from service import auth
from service.config import Settings
from service.jobs import manage
from service.jobs.plan import JobRequest
from service.problems import ProblemException
from service.services import services
from service.store.jobs import JobStore
from service.store.models import Job
from solver.game import SEARCH_MAX_CODES, Game, Turn
from solver.search import InvalidSearchError, SolveOptions, require_searchable, searchable


def store() -> JobStore:
    """The app's job store."""
    return services().jobs


def wait_budget(settings: Settings, asked: int | None, default: int) -> float:
    """Seconds to wait for a job, clamped to the configured maximum."""
    ms = default if asked is None else asked
    return min(max(ms, 0), settings.max_wait_ms) / 1000.0


def submit(game: Game, history: list[Turn], options: SolveOptions, wait_s: float) -> Job:
    """Submit (or find) the job for this question and wait up to ``wait_s`` for it.

    :raises InvalidSearchError: a finished game (nothing to search), or parameters that make no sense."""
    if game.won(history):
        raise InvalidSearchError(f"the game was won at guess {len(history)}: there is nothing to search "
                                 "(POST /v1/solve values a finished game at once)")
    options.validate(game, len(history) + 1)
    if not (history and big_position(game)):
        require_searchable(game)  # refused now rather than failing at planning
    return submit_request(JobRequest.of(game, history, options), wait_s)


def big_position(game: Game) -> bool:
    """Whether a position of ``game`` (after one turn or more) is searched by a job although the whole game is past
    the deployment's exact search: the game is within ``position_search_max_codes`` (see its setting)."""
    settings: Settings = current_app.config["SETTINGS"]
    return not searchable(game) and game.size <= min(settings.position_search_max_codes, SEARCH_MAX_CODES)


def submit_request(req: JobRequest, wait_s: float) -> Job:
    """Submit (or find) the job of a validated request, within the client's free budget of jobs, and
    wait up to ``wait_s`` for it."""
    jobs = store()
    client = auth.client_id()
    settings: Settings = current_app.config["SETTINGS"]
    if jobs.find(req) is None and auth.token_for("jobs") is None and jobs.active_count(client) >= settings.free_jobs:
        raise ProblemException(auth.unauthorized(
            f"this client already has {settings.free_jobs} jobs queued or running, the free budget; "
            "wait for them to finish, or send a bearer token with the 'jobs' scope"))
    job, created = jobs.submit(req, client)
    from service.metrics import record_job

    record_job("submitted" if created else "reused")
    if wait_s > 0 and job.status not in ("done", "failed", "cancelled"):
        job = manage.wait_for(jobs, job.id, wait_s) or job
    return job


def accepted(job: Job) -> Response:
    """202 with the job's view and where to follow it, and a note when no worker is there to run it (the job is
    kept, and runs when one starts)."""
    body = manage.view(store(), job)
    settings: Settings = current_app.config["SETTINGS"]
    if not store().live_workers(settings.worker_live_s):
        body["note"] = ("no job worker is running on this service's database: the job waits until one starts "
                        "(`bullscows worker`, or `bullscows serve --with-worker`)")
    resp = Response(json.dumps(body), status=202, mimetype="application/json")
    resp.headers["Location"] = url_for("jobs.get_job", job_id=job.id)
    resp.headers["Retry-After"] = "1"
    return resp
