"""``/v1/jobs``: long solves as durable jobs, run by ``bullscows worker`` processes.

``POST /v1/jobs`` submits (an identical active or finished job is reused), ``GET /v1/jobs`` lists,
``GET /v1/jobs/{id}`` shows status, progress and result, ``DELETE /v1/jobs/{id}`` cancels.  The web
tier only reads and writes rows here; it never runs a job's search.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response, current_app, request

from service.api import parse
from service.api.submit import accepted, store, submit, wait_budget
from service.config import Settings
from service.jobs import manage
from service.problems import problem
from service.schemas import JobIn, JobList, JobOut
from solver.search import SolveOptions

bp = APIBlueprint("jobs", __name__, tag="jobs", url_prefix="/v1")

STATUSES = ("queued", "planning", "running", "done", "failed", "cancelled")


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
