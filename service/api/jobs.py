"""``/v1/jobs``: long solves as durable jobs, run by ``bullscows worker`` processes.

``POST /v1/jobs`` submits (an identical active or finished job is reused), ``GET /v1/jobs`` lists,
``GET /v1/jobs/{id}`` shows status, progress and result, ``DELETE /v1/jobs/{id}`` cancels.  The web
tier only reads and writes rows here; it never runs a job's search.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response, current_app, json, request, url_for

from service import auth
from service.api import parse
from service.config import Settings
from service.jobs import manage
from service.jobs.plan import JobRequest
from service.problems import ProblemException, problem
from service.schemas import JobIn, JobList, JobOut
from service.store.jobs import JobStore
from service.store.models import Job
from solver.game import Game, Turn
from solver.search import SolveOptions, require_response_table

bp = APIBlueprint("jobs", __name__, tag="jobs", url_prefix="/v1")

STATUSES = ("queued", "planning", "running", "done", "failed", "cancelled")


def store() -> JobStore:
    """The app's job store."""
    jobs: JobStore = current_app.extensions["bullscows_jobs"]
    return jobs


def wait_budget(settings: Settings, asked: int | None, default: int) -> float:
    """Seconds to wait for a job, clamped to the configured maximum."""
    ms = default if asked is None else asked
    return min(max(ms, 0), settings.max_wait_ms) / 1000.0


def submit(game: Game, history: list[Turn], options: SolveOptions, wait_s: float) -> Job:
    """Submit (or find) the job for this question and wait up to ``wait_s`` for it."""
    options.validate(game, len(history) + 1)
    require_response_table(game)  # refused now rather than failing at planning
    jobs = store()
    req = JobRequest.of(game, history, options)
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
    """202 with the job's view and where to follow it."""
    body = manage.view(store(), job)
    resp = Response(json.dumps(body), status=202, mimetype="application/json")
    resp.headers["Location"] = url_for("jobs.get_job", job_id=job.id)
    resp.headers["Retry-After"] = "1"
    return resp


@bp.post("/jobs")
@bp.input(JobIn, location="json", arg_name="body")
@bp.output(JobOut, status_code=200)
@bp.doc(responses={200: "The job is already done", 202: "Accepted: follow Location"})
def post_job(body: JobIn) -> Any:
    """Submit a long solve.  Answers 200 when the job is already done (or finishes within
    ``wait_ms``), else 202 with ``Location: /v1/jobs/{id}``."""
    settings: Settings = current_app.config["SETTINGS"]
    game = parse.game_of(body.game, settings)
    history, _ = parse.history_of(game, body.history, settings)
    options = SolveOptions(body.criterion, body.max_guesses, body.depth_count, body.mde, body.from_set_only)
    job = submit(game, history, options, wait_budget(settings, body.wait_ms, 0))
    if job.status != "done":
        return accepted(job)
    return manage.view(store(), job)


@bp.get("/jobs")
@bp.output(JobList)
def list_jobs() -> Any:
    """Jobs, newest first (``status``, ``limit`` ≤ 200, ``offset`` as query parameters)."""
    settings: Settings = current_app.config["SETTINGS"]
    status = request.args.get("status")
    if status is not None and status not in STATUSES:
        return problem(400, "invalid-query", "Invalid query", f"status must be one of {', '.join(STATUSES)}")
    try:
        limit = int(request.args.get("limit", 50))
        offset = int(request.args.get("offset", 0))
    except ValueError:
        return problem(400, "invalid-query", "Invalid query", "limit and offset must be integers")
    if not 1 <= limit <= 200 or offset < 0:
        return problem(400, "invalid-query", "Invalid query", "limit must be 1..200 and offset >= 0")
    jobs = store()
    return {"jobs": [manage.view(jobs, j) for j in jobs.list_jobs(status, limit, offset)],
            "workers_alive": len(jobs.live_workers(settings.worker_live_s))}


def _not_found(job_id: str) -> Response:
    return problem(404, "job-not-found", "No such job", f"there is no job {job_id!r}")


@bp.get("/jobs/<job_id>")
@bp.output(JobOut)
def get_job(job_id: str) -> Any:
    """Status, progress (units, nodes, best value so far, lower bound, ETA) and result of a job;
    ``?units=true`` lists its units."""
    jobs = store()
    job = jobs.get(job_id[:32])
    if job is None:
        return _not_found(job_id)
    return manage.view(jobs, job, units=request.args.get("units", "").lower() in ("1", "true", "yes"))


@bp.delete("/jobs/<job_id>")
@bp.output(JobOut)
def cancel_job(job_id: str) -> Any:
    """Cancel a job: queued units are dropped, running ones stop at their next heartbeat.
    A finished job cannot be cancelled (409)."""
    jobs = store()
    job = jobs.get(job_id[:32])
    if job is None:
        return _not_found(job_id)
    status, changed = jobs.cancel(job.id)
    if not changed:
        return problem(409, "job-finished", "Job already finished",
                       f"job {job.id} is {status}; only queued or running jobs can be cancelled")
    from service.metrics import record_job

    record_job("cancelled")
    job = jobs.get(job.id)
    assert job is not None
    return manage.view(jobs, job)
