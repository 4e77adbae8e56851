"""Job bookkeeping shared by the worker, the HTTP API and the CLI: planning a phase, refreshing a
job from its units (skips, β, completion, the next phase of a chain) and the public view of a job.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import orjson
import structlog

from service.jobs.compute import next_phase, phase_entries
from service.jobs.kinds import Finished, kind_of, unit_kind
from service.jobs.plan import JobRequest, Outcome, Plan, aggregate
from service.store.db import StorageError
from service.store.jobs import JobStore, as_aware
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from solver.game import Game, Turn
from solver.search import INF, Searcher, SolveOptions
from solver.vocabulary import Criterion, criterion_of


def plan_job(jobs: JobStore, positions: PositionStore, job: Job, worker: str, searcher: Searcher | None) -> bool:
    """Cut the job's current phase into units and start it (the caller holds it in ``planning``).
    A kind that :attr:`~service.jobs.kinds.JobKind.needs_searcher` is given one of its game (asked the phase's
    question call by call); the other kinds need none."""
    req = JobRequest.from_json(job.request)
    plan, units = kind_of(req).plan(req, job.phase or None, searcher, positions, job.id)
    return jobs.save_plan(job.id, worker, job.phase, plan.to_json(), units, plan.nodes)


def outcome_of(jobs: JobStore, job: Job, units: list[JobUnit] | None = None) -> tuple[Plan, Outcome, list[JobUnit]]:
    """The current phase's plan, its combined state, and its units."""
    assert job.plan is not None
    plan = Plan.from_json(job.plan)
    units = jobs.units(job.id, job.phase) if units is None else units
    target = JobRequest.from_json(job.request).target
    return plan, aggregate(plan, [jobs.state_of(u) for u in units], target), units


def refresh(jobs: JobStore, positions: PositionStore, job_id: str) -> str | None:
    """Bring a running job up to date with its units: skip units that can no longer matter, record
    progress, and finish the phase when it is done (result, or the next phase of a chain).
    Idempotent; any worker may call it.  Returns the job's status."""
    job = jobs.get(job_id)
    if job is None or job.status != "running" or job.plan is None:
        return None if job is None else job.status
    plan, outcome, units = outcome_of(jobs, job)
    if outcome.dominated:
        jobs.skip_units(job.id, job.phase, outcome.dominated)
    done = sum(1 for u in units if u.status in ("done", "skipped"))
    if any(u.status == "failed" for u in units):
        jobs.fail_job(job.id, "a unit failed")
        return "failed"
    if not outcome.finished:
        if done != job.units_done:
            jobs.touch_progress(job.id, done)
        return "running"
    req = JobRequest.from_json(job.request)
    game = req.game_obj()
    positions.save_entries(phase_entries(req, plan, outcome, game), source=f"job:{job.id}")
    chain: dict[str, int | None] = {}
    if job.result:
        chain = dict(orjson.loads(job.result).get("chain", {}))
    if req.criterion == Criterion.KMOVERS and plan.k is not None:
        chain[str(plan.k)] = outcome.value
    unit_nodes = sum(int(u.nodes) for u in units)
    nk = next_phase(req, plan, outcome)
    if nk is not None:
        jobs.requeue_job(job.id, nk, unit_nodes, orjson.dumps({"chain": chain}).decode())
        return "queued"
    started = as_aware(job.started_at) or as_aware(job.created_at) or datetime.now(UTC)
    seconds = (datetime.now(UTC) - started).total_seconds()
    result = kind_of(req).result(Finished(game, req, plan, outcome, units, seconds, chain, int(job.nodes) + unit_nodes))
    jobs.finish_job(job.id, orjson.dumps(result).decode(), unit_nodes)
    return "done"


def _share_done(u: JobUnit) -> float:
    """How much of a running share of a position's guesses (a check's, search's or scan's unit) is done, by the
    progress it keeps (0 for other units): the guesses of its position tried, of how many."""
    if not unit_kind(u.kind).shared or not u.output:
        return 0.0
    kept = orjson.loads(u.output)
    state = kept.get("search") or kept  # a check's or search's root progress, or a scan's own
    done, of = state.get("done", state.get("next")), state.get("guesses")
    return 0.0 if not of or done is None else min(1.0, int(done) / int(of))


def _iso(ts: datetime | None) -> str | None:
    ts = as_aware(ts)
    return None if ts is None else ts.isoformat()


def view(jobs: JobStore, job: Job, *, units: bool = False) -> dict[str, Any]:
    """The public form of a job: status, progress (units, nodes, best value so far and whether it
    is proven, lower bound, ETA), and the result once done."""
    req = JobRequest.from_json(job.request)
    kind = kind_of(req)
    game = req.game_obj()
    out: dict[str, Any] = {
        "id": job.id,
        "status": job.status,
        "request": {
            "game": req.game if req.alphabet is None else {"spec": req.game, "alphabet": req.alphabet},
            "history": [game.format_turn(t) for t in req.turns()],
            "criterion": req.criterion, "max_guesses": req.max_guesses, "depth_count": req.depth_count,
            "mde": req.mde, "from_set_only": req.from_set_only, "strategy": req.strategy,
            **kind.request_view(game, req),
        },
        "created_at": _iso(job.created_at),
        "started_at": _iso(job.started_at),
        "finished_at": _iso(job.finished_at),
        "error": job.error,
        "result": None,
    }
    phase_units: list[JobUnit] = []
    progress: dict[str, Any] = {"phase": job.phase or None, "units_total": 0, "units_done": 0, "units_running": 0,
                                "nodes": int(job.nodes), "best_value": None, "best_exact": False,
                                "lower_bound": None, "eta_seconds": None, "fraction": None}
    if job.status == "done" and job.result:
        out["result"] = orjson.loads(job.result)
        if not kind.answers_position:  # a bound, a tree's parts...: no position's value
            progress.update(lower_bound=out["result"]["value"] if kind.bounded else None, fraction=1.0)
        else:
            progress.update(best_value=out["result"]["value"], best_exact=True, lower_bound=out["result"]["value"],
                            fraction=1.0)
    if job.plan is not None and job.status != "done":
        _plan, outcome, phase_units = outcome_of(jobs, job)
        done = [u for u in phase_units if u.status in ("done", "skipped")]
        progress.update(
            units_total=len(phase_units), units_done=len(done),
            units_running=sum(1 for u in phase_units if u.status == "running"),
            nodes=int(job.nodes) + sum(int(u.nodes) for u in phase_units),
            best_value=outcome.upper, best_exact=False,
            lower_bound=None if outcome.lower >= INF or not kind.bounded else outcome.lower,
        )
        cost_all = sum(int(u.expected_cost) for u in phase_units if u.status != "cancelled")
        if kind.counts_secrets:
            # A tree unit's heartbeat counts the secrets its tree has placed so far (its expected
            # cost is the number of secrets): the part of the tree built, not search nodes.
            cost_done = sum(min(int(u.nodes), int(u.expected_cost)) if u.status == "running" else
                            int(u.expected_cost) * (u.status in ("done", "skipped")) for u in phase_units)
            progress["nodes"] = int(job.nodes)
        else:
            cost_done = sum(int(u.expected_cost) for u in done)
            cost_done += sum(int(int(u.expected_cost) * _share_done(u)) for u in phase_units if u.status == "running")
        if cost_all:
            progress["fraction"] = round(cost_done / cost_all, 4)
        started = as_aware(job.started_at)
        if job.status == "running" and not progress["units_running"] and len(done) < len(phase_units):
            # its units queued again (its worker stopped or died): no ETA while none runs
            out["note"] = "no unit of it is running: it waits for a worker (`bullscows worker`)"
        elif job.status == "running" and started is not None and 0 < cost_done < cost_all:
            elapsed = (datetime.now(UTC) - started).total_seconds()
            progress["eta_seconds"] = round(elapsed * (cost_all - cost_done) / cost_done, 1)
    elif job.status == "done":
        phase_units = jobs.units(job.id, job.phase)
        progress.update(units_total=len(phase_units),
                        units_done=sum(1 for u in phase_units if u.status in ("done", "skipped")))
    out["progress"] = progress
    if units:
        out["units"] = [{
            "id": int(u.id), "kind": u.kind, "status": u.status, "attempts": u.attempts,
            "first_guess": None if u.g1 is None else game.format_code(u.g1),
            "response": None if u.response is None else game.format_response(u.response),
            **unit_kind(u.kind).unit_view(game, req, u),
            "candidates": u.size, "value": u.value, "exact": u.exact, "beta": u.beta, "nodes": int(u.nodes),
            "seconds": round(float(u.seconds), 3), "worker": u.worker,
            "checkpoints": int(u.checkpoints or 0), "saved_nodes": int(u.saved_nodes or 0),
        } for u in (phase_units or jobs.units(job.id, job.phase))]
    return out


def wait_for(jobs: JobStore, job_id: str, timeout_s: float, poll_s: float = 0.05) -> Job | None:
    """Poll until the job is final or the timeout passes; the job as last seen."""
    deadline = time.monotonic() + timeout_s
    job = jobs.get(job_id)
    while job is not None and job.status not in ("done", "failed", "cancelled") and time.monotonic() < deadline:
        time.sleep(min(poll_s, max(0.0, deadline - time.monotonic())))
        job = jobs.get(job_id)
    return job


HANDOFF = "service:next-move"
"""Submitter of the jobs next moves hand off (:func:`hand_off`): the service's, not a client's."""


def hand_off(jobs: JobStore, game: Game, history: list[Turn], strategy: str, max_guesses: int | None,
             limit: int) -> Job | None:
    """The job that finishes an optimal question a next move could not: an identical one is reused, else one is
    queued while fewer than ``limit`` (``BULLSCOWS_HANDOFF_JOBS``) handed-off jobs are active (they are the
    service's, not the client's: its free job budget is not spent).  None when none can be queued; the move is
    answered either way, so a storage failure is logged, not raised."""
    criterion = criterion_of(strategy)
    assert criterion is not None
    req = JobRequest.of(game, history, SolveOptions(criterion, max_guesses))
    try:
        found = jobs.find(req)
        if found is not None:
            return found
        if jobs.active_count(HANDOFF) >= limit:
            structlog.get_logger().info("next move not handed to a job", reason="handed-off jobs at their limit")
            return None
        job, created = jobs.submit(req, HANDOFF)
    except StorageError as exc:
        structlog.get_logger().warning("next move not handed to a job", reason=exc.detail)
        return None
    from service.metrics import record_job

    record_job("handed-off" if created else "reused")
    return job
