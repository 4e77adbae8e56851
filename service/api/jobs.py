"""``/v1/jobs``: long solves as durable jobs, run by ``bullscows worker`` processes.

``POST /v1/jobs`` submits (an identical active or finished job is reused), ``GET /v1/jobs`` lists,
``GET /v1/jobs/{id}`` shows status, progress and result, ``DELETE /v1/jobs/{id}`` cancels.  The web
tier only reads and writes rows here; it never runs a job's search.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response

from service import calls
from service.api import parse
from service.api.accepted import accepted
from service.problems import problem
from service.rules import max_guesses_of
from service.schemas.jobs import JobIn, JobList, JobListQuery, JobOut, JobQuery
from service.services import services
from solver.search import SolveOptions

bp = APIBlueprint("jobs", __name__, tag="jobs", url_prefix="/v1")


@bp.post("/jobs")
@bp.input(JobIn, location="json", arg_name="body")
@bp.output(JobOut, status_code=200)
@bp.doc(responses={200: "The job is already done", 202: "Accepted: follow Location"})
def post_job(body: JobIn) -> Any:
    """Submit a long solve.  Answers 200 when the job is already done (or finishes within
    ``wait_ms``), else 202 with ``Location: /v1/jobs/{id}``."""
    settings = services().settings
    game = parse.game_of(body.game, settings)
    history, _ = parse.history_of(game, body.history, settings)
    criterion = parse.criterion_named(body.criterion)
    max_guesses = max_guesses_of(game, criterion, body.max_guesses)
    options = SolveOptions(criterion, max_guesses, body.depth_count, body.mde, body.from_set_only)
    job = calls.submit(game, history, options, calls.wait_budget(body.wait_ms, 0))
    return accepted(calls.view_of(job)) if job.status != "done" else calls.view_of(job)


@bp.get("/jobs")
@bp.input(JobListQuery, location="query", arg_name="query")
@bp.output(JobList)
def list_jobs(query: JobListQuery) -> Any:
    """Jobs, newest first (``status``, ``limit`` ≤ 200, ``offset`` as query parameters)."""
    return calls.job_list(query.status, query.limit, query.offset)


def _not_found(job_id: str) -> Response:
    return problem("job-not-found", f"there is no job {job_id!r}")


@bp.get("/jobs/<job_id>")
@bp.input(JobQuery, location="query", arg_name="query")
@bp.output(JobOut)
def get_job(job_id: str, query: JobQuery) -> Any:
    """Status, progress (units, nodes, best value so far, lower bound, ETA) and result of a job;
    ``?units=true`` lists its units."""
    view = calls.job_view(job_id, units=query.units)
    return _not_found(job_id) if view is None else view


@bp.delete("/jobs/<job_id>")
@bp.output(JobOut)
def cancel_job(job_id: str) -> Any:
    """Cancel a job: queued units are dropped, running ones stop at their next heartbeat.
    A finished job cannot be cancelled (409)."""
    view, finished = calls.cancel_job(job_id)
    if view is not None:
        return view
    if finished is None:
        return _not_found(job_id)
    return problem("job-finished", f"job {job_id[:32]} is {finished}; only queued or running jobs can be cancelled")
