"""Durable jobs: the ``jobs``, ``job_units`` and ``workers`` tables.

Every state change is one short transaction guarded by a compare-and-set ``UPDATE … WHERE``
(status, lease), which works the same on SQLite (writers serialised) and PostgreSQL (row locks): two
workers can never both claim a unit, a unit re-queued after its worker vanished can never be
recorded twice, and a job finishes exactly once.  Clocks are the workers' own (UTC); keep machines
NTP-synchronised, as the stale-unit timeout compares them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from service.store.db import Database
from service.store.job_records import JobRequest, UnitSpec, UnitState
from service.store.models import Job, JobUnit, WorkerRow

ACTIVE = ("queued", "planning", "running")
FINAL = ("done", "failed", "cancelled")


def _now() -> datetime:
    """The stores' default clock: wall-clock UTC.  Leases and heartbeats are compared across workers,
    so every store of a deployment must read the same (NTP-synchronised) time."""
    return datetime.now(UTC)


Clock = Callable[[], datetime]


def _aware(ts: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; they were written in UTC."""
    if ts is None or ts.tzinfo is not None:
        return ts
    return ts.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Queue:
    """The job queue at one moment (:meth:`JobStore.queue`)."""

    jobs: dict[str, int]
    """Jobs by status (only the statuses some job has)."""
    units: dict[str, int]
    """Units of every job by status (only the statuses some unit has)."""
    workers_alive: int
    """Workers heard from within the store's live window (:meth:`JobStore.live_workers`)."""
    heartbeats: dict[str, datetime]
    """Each worker still registered and recently heard from, by id: its last heartbeat (aware, UTC)."""


@dataclass(frozen=True)
class Claim:
    """A unit this worker now holds."""

    unit_id: int
    job_id: str
    lease: str
    kind: str
    g1: int | None
    response: int | None


class JobStore:
    """Jobs and their units.

    ``clock`` stamps every row (created, heartbeat, lease, finished) and decides what is stale; tests
    give one they advance by hand instead of waiting for leases to age.  By default it is this module's
    ``_now``, looked up at each call, so a test can also move the clock of stores made elsewhere (a
    worker's).
    """

    def __init__(self, db: Database, clock: Clock | None = None) -> None:
        self.db = db
        self._clock = clock

    def _now(self) -> datetime:
        return (self._clock or _now)()

    # -- jobs ------------------------------------------------------------------------------------

    def submit(self, req: JobRequest, submitted_by: str) -> tuple[Job, bool]:
        """(job, created): an active or finished job asking the same is reused (not a failed or
        cancelled one, which a new submission retries)."""
        digest = req.digest
        existing = self.find(req)
        if existing is not None:
            return existing, False
        job = Job(id=uuid.uuid4().hex, request=req.to_json(), request_hash=digest, game=req.game,
                  status="queued", phase=req.first_phase(), units_total=0, units_done=0, nodes=0,
                  submitted_by=submitted_by[:64], created_at=self._now(), updated_at=self._now())
        try:
            with self.db.session() as s:
                s.add(job)
        except IntegrityError:  # an identical submission won the race: share its job
            existing = self.find(req)
            if existing is None:
                raise
            return existing, False
        return job, True

    def active_count(self, submitted_by: str) -> int:
        """Jobs of this submitter still queued, planning or running (the free budget counts them)."""
        with self.db.session() as s:
            n = s.scalar(select(func.count()).select_from(Job)
                         .where(Job.submitted_by == submitted_by[:64], Job.status.in_(ACTIVE)))
            return int(n or 0)

    def find(self, req: JobRequest) -> Job | None:
        """The newest active or finished job asking ``req`` (not failed or cancelled ones)."""
        with self.db.session() as s:
            return s.scalars(
                select(Job).where(Job.request_hash == req.digest, Job.status.in_((*ACTIVE, "done")))
                .order_by(Job.created_at.desc()).limit(1)
            ).first()

    def get(self, job_id: str) -> Job | None:
        with self.db.session() as s:
            return s.get(Job, job_id)

    def submitted(self, submitted_by: str, game: str) -> list[Job]:
        """Every job of one submitter on one game, oldest first (a campaign's earlier runs)."""
        with self.db.session() as s:
            return list(s.scalars(select(Job).where(Job.submitted_by == submitted_by[:64], Job.game == game)
                                  .order_by(Job.created_at, Job.id)).all())

    def list_jobs(self, status: str | None = None, limit: int = 50, offset: int = 0) -> list[Job]:
        """Newest first."""
        with self.db.session() as s:
            q = select(Job).order_by(Job.created_at.desc(), Job.id).limit(limit).offset(offset)
            if status is not None:
                q = q.where(Job.status == status)
            return list(s.scalars(q).all())

    def cancel(self, job_id: str, reason: str | None = None) -> tuple[str | None, bool]:
        """Cancel an active job: its queued units are dropped, its running units see the status at
        their next heartbeat and stop; ``reason`` is kept as its error (a campaign's job superseded by
        another, say).  Returns (the job's status afterwards (None: no such job), whether this call
        cancelled it)."""
        with self.db.session() as s:
            res = s.execute(update(Job).where(Job.id == job_id, Job.status.in_(ACTIVE))
                            .values(status="cancelled", finished_at=self._now(), updated_at=self._now(),
                                    **({} if reason is None else {"error": reason[:4000]})))
            changed = bool(res.rowcount)  # type: ignore[attr-defined]
            if changed:
                s.execute(update(JobUnit).where(JobUnit.job_id == job_id, JobUnit.status == "queued")
                          .values(status="cancelled"))
            job = s.get(Job, job_id)
            return (None if job is None else job.status), changed

    def supersede(self, earlier: list[Job], job: Job) -> None:
        """Cancel the ``earlier`` jobs of a campaign still under way for its new ``job``, which goes on from what
        they kept (their progress is in the campaign's file or database by then); each says by which job."""
        for old in earlier:
            if old.status not in FINAL and old.id != job.id:
                self.cancel(old.id, f"superseded by job {job.id}, which goes on from what it kept")

    def claim_for_planning(self, worker: str, stale_after: float, *, only: str | None = None) -> Job | None:
        """Take a queued job to plan (or one whose planner vanished mid-plan); ``only``: that job alone."""
        cutoff = self._now() - timedelta(seconds=stale_after)
        with self.db.session() as s:
            q = select(Job.id).where((Job.status == "queued")
                                     | ((Job.status == "planning") & (Job.updated_at < cutoff)))
            if only is not None:
                q = q.where(Job.id == only)
            ids = s.scalars(q.order_by(Job.created_at).limit(5)).all()
            for job_id in ids:
                res = s.execute(
                    update(Job).where(Job.id == job_id, (Job.status == "queued")
                                      | ((Job.status == "planning") & (Job.updated_at < cutoff)))
                    .values(status="planning", planner=worker[:128], updated_at=self._now(),
                            started_at=func.coalesce(Job.started_at, self._now()))
                )
                if res.rowcount:  # type: ignore[attr-defined]
                    s.commit()
                    return s.get(Job, job_id)
        return None

    def save_plan(self, job_id: str, worker: str, phase: int, plan_json: str, units: Sequence[UnitSpec],
                  nodes: int) -> bool:
        """Store a phase's plan and units and start running it (only by the worker planning it)."""
        import orjson

        with self.db.session() as s:
            res = s.execute(update(Job).where(Job.id == job_id, Job.status == "planning", Job.planner == worker)
                            .values(status="running", phase=phase, plan=plan_json, updated_at=self._now(),
                                    units_total=len(units), units_done=0, nodes=Job.nodes + nodes))
            if not res.rowcount:  # type: ignore[attr-defined]
                return False
            s.add_all(JobUnit(job_id=job_id, phase=phase, kind=u.kind, g1=u.g1, response=u.response, g2=u.g2,
                              history=orjson.dumps([list(t) for t in u.history]).decode(), size=u.size,
                              lower_bound=u.lower_bound, expected_cost=u.expected_cost, priority=u.priority,
                              status="queued", nodes=0, seconds=0.0, attempts=0) for u in units)
        return True

    def requeue_job(self, job_id: str, phase: int, nodes: int, chain_json: str) -> bool:
        """Queue the next phase of a k-movers chain (the previous phase's result kept in ``result``)."""
        with self.db.session() as s:
            res = s.execute(update(Job).where(Job.id == job_id, Job.status == "running")
                            .values(status="queued", phase=phase, plan=None, result=chain_json,
                                    nodes=Job.nodes + nodes, updated_at=self._now()))
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def finish_job(self, job_id: str, result_json: str, nodes: int) -> bool:
        """Record the result of a running job, once."""
        with self.db.session() as s:
            res = s.execute(update(Job).where(Job.id == job_id, Job.status == "running")
                            .values(status="done", result=result_json, nodes=Job.nodes + nodes,
                                    finished_at=self._now(), updated_at=self._now()))
            if res.rowcount:  # type: ignore[attr-defined]  # what is still queued is no longer needed
                s.execute(update(JobUnit).where(JobUnit.job_id == job_id, JobUnit.status == "queued")
                          .values(status="skipped"))
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def fail_job(self, job_id: str, error: str) -> bool:
        with self.db.session() as s:
            res = s.execute(update(Job).where(Job.id == job_id, Job.status.in_(ACTIVE))
                            .values(status="failed", error=error[:4000], finished_at=self._now(),
                                    updated_at=self._now()))
            if res.rowcount:  # type: ignore[attr-defined]
                s.execute(update(JobUnit).where(JobUnit.job_id == job_id, JobUnit.status == "queued")
                          .values(status="cancelled"))
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def touch_progress(self, job_id: str, units_done: int) -> None:
        with self.db.session() as s:
            s.execute(update(Job).where(Job.id == job_id, Job.status == "running")
                      .values(units_done=units_done, updated_at=self._now()))

    def running_jobs(self) -> list[Job]:
        with self.db.session() as s:
            return list(s.scalars(select(Job).where(Job.status == "running").order_by(Job.created_at)).all())

    def statuses(self, job_ids: Iterable[str]) -> dict[str, str]:
        ids = list(set(job_ids))
        if not ids:
            return {}
        with self.db.session() as s:
            return dict(s.execute(select(Job.id, Job.status).where(Job.id.in_(ids))).tuples().all())

    # -- units -----------------------------------------------------------------------------------

    def units(self, job_id: str, phase: int | None = None) -> list[JobUnit]:
        with self.db.session() as s:
            q = select(JobUnit).where(JobUnit.job_id == job_id).order_by(JobUnit.id)
            if phase is not None:
                q = q.where(JobUnit.phase == phase)
            return list(s.scalars(q).all())

    def unit(self, unit_id: int) -> tuple[JobUnit, Job] | None:
        with self.db.session() as s:
            u = s.get(JobUnit, unit_id)
            if u is None:
                return None
            job = s.get(Job, u.job_id)
            assert job is not None
            return u, job

    @staticmethod
    def state_of(u: JobUnit) -> UnitState:
        per = None if u.per_response is None else {int(r): v for r, v in orjson.loads(u.per_response).items()}
        return UnitState(u.kind, u.g1, u.response, u.g2, u.status, int(u.lower_bound), u.value, u.exact,
                         u.best_guess, int(u.nodes), int(u.expected_cost), int(u.id), per)

    def claim_units(self, worker: str, limit: int, *, kinds: Sequence[str] | None = None,
                    other_than: Sequence[str] = (), only: str | None = None) -> list[Claim]:
        """Up to ``limit`` queued units of running jobs, highest priority first (oldest job first
        among equals), each taken with a compare-and-set so no two workers hold one unit.  Only units
        of ``kinds`` (default: any), none of ``other_than``, and with ``only`` those of that job."""
        out: list[Claim] = []
        if limit <= 0:
            return out
        with self.db.session() as s:
            q = (select(JobUnit.id, JobUnit.job_id, JobUnit.kind, JobUnit.g1, JobUnit.response)
                 .join(Job, Job.id == JobUnit.job_id)
                 .where(JobUnit.status == "queued", Job.status == "running", JobUnit.phase == Job.phase))
            if only is not None:
                q = q.where(JobUnit.job_id == only)
            if kinds is not None:
                q = q.where(JobUnit.kind.in_(kinds))
            if other_than:
                q = q.where(JobUnit.kind.not_in(other_than))
            rows = s.execute(q.order_by(Job.created_at, JobUnit.priority.desc(), JobUnit.id).limit(limit * 4)).all()
            for uid, job_id, kind, g1, resp in rows:
                lease = uuid.uuid4().hex[:16]
                now = self._now()
                res = s.execute(update(JobUnit).where(JobUnit.id == uid, JobUnit.status == "queued")
                                .values(status="running", lease=lease, worker=worker[:128], heartbeat_at=now,
                                        started_at=now, attempts=JobUnit.attempts + 1))
                if res.rowcount:  # type: ignore[attr-defined]
                    s.commit()
                    out.append(Claim(int(uid), job_id, lease, kind, g1, resp))
                    if len(out) >= limit:
                        break
        return out

    def set_beta(self, unit_id: int, lease: str, beta: int | None) -> None:
        with self.db.session() as s:
            s.execute(update(JobUnit).where(JobUnit.id == unit_id, JobUnit.lease == lease).values(beta=beta))

    def heartbeat(self, unit_id: int, lease: str, nodes: int) -> bool:
        """Refresh a running unit; False when it should stop (lease lost, or its job is over)."""
        return self._touch(unit_id, lease, nodes=nodes)

    def checkpoint(self, unit_id: int, lease: str, nodes: int) -> bool:
        """A running unit saved its proven positions at ``nodes`` nodes into its attempt (counted, and
        its heartbeat refreshed); False when it should stop (lease lost, or its job is over)."""
        return self._touch(unit_id, lease, nodes=nodes, saved_nodes=nodes, checkpoints=JobUnit.checkpoints + 1)

    def keep_output(self, unit_id: int, lease: str, output: str) -> bool:
        """A running unit's output as it stands (a check unit's search progress), kept with it so that its next
        attempt, on any worker, goes on from there; False when it should stop (lease lost, or its job is over)."""
        return self._touch(unit_id, lease, output=output)

    def _touch(self, unit_id: int, lease: str, **values: Any) -> bool:
        """Update a running unit held by ``lease`` (and its heartbeat); whether it should go on."""
        with self.db.session() as s:
            res = s.execute(update(JobUnit).where(JobUnit.id == unit_id, JobUnit.lease == lease,
                                                  JobUnit.status == "running")
                            .values(heartbeat_at=self._now(), **values))
            if not res.rowcount:  # type: ignore[attr-defined]
                return False
            status = s.scalar(select(Job.status).join(JobUnit, JobUnit.job_id == Job.id)
                              .where(JobUnit.id == unit_id))
            return status == "running"

    def vouch(self, claims: list[tuple[int, str]]) -> int:
        """The worker holding these leases is alive: refresh their heartbeat (not their node count).

        Covers the moments a unit's own task cannot beat yet (queued in Dask, process starting)."""
        if not claims:
            return 0
        n = 0
        with self.db.session() as s:
            now = self._now()
            for unit_id, lease in claims:
                res = s.execute(update(JobUnit).where(JobUnit.id == unit_id, JobUnit.lease == lease,
                                                      JobUnit.status == "running").values(heartbeat_at=now))
                n += res.rowcount  # type: ignore[attr-defined]
        return n

    def finish_unit(self, unit_id: int, lease: str, value: int | None, exact: bool, possible: bool,
                    best_guess: int | None, nodes: int, seconds: float,
                    per_response: dict[int, int | None] | None = None, output: str | None = None) -> bool:
        """Record a unit's result (``output``: what it made beyond its value, a rollout unit's subtree), only by
        the holder of its lease (so at most once)."""
        per = None if per_response is None else orjson.dumps({str(r): v for r, v in per_response.items()}).decode()
        with self.db.session() as s:
            res = s.execute(update(JobUnit).where(JobUnit.id == unit_id, JobUnit.lease == lease,
                                                  JobUnit.status == "running")
                            .values(status="done", value=value, exact=exact, possible=possible,
                                    best_guess=best_guess, per_response=per, nodes=nodes, seconds=seconds,
                                    output=output, finished_at=self._now(), heartbeat_at=self._now()))
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def release_unit(self, unit_id: int, lease: str, error: str | None, max_attempts: int) -> str | None:
        """Give a unit back after an error or a stop: queued again while attempts remain, else
        failed (and its job with it).  Returns the new status (None if the lease was lost)."""
        with self.db.session() as s:
            u = s.get(JobUnit, unit_id)
            if u is None or u.lease != lease or u.status != "running":
                return None
            job = s.get(Job, u.job_id)
            if job is not None and job.status == "cancelled":
                u.status = "cancelled"
            elif job is not None and job.status in ("done", "failed"):
                u.status = "skipped"  # its job ended without it (a first guess that could not win)
            elif error is not None and u.attempts >= max_attempts:
                u.status = "failed"
                u.error = error[:4000]
            else:
                u.status = "queued"
                u.error = None if error is None else error[:4000]
            u.lease = None
            status = u.status
        if status == "failed":
            self.fail_job(u.job_id, f"unit {unit_id} failed {max_attempts} times: {error}")
        return status

    def requeue_stale(self, stale_after: float, max_attempts: int) -> int:
        """Units whose worker stopped heartbeating go back to the queue (or fail past the cap); those
        of a job that has ended meanwhile are skipped (or cancelled) instead."""
        cutoff = self._now() - timedelta(seconds=stale_after)
        with self.db.session() as s:
            stale = s.execute(select(JobUnit.id, JobUnit.job_id, JobUnit.attempts, Job.status)
                              .join(Job, Job.id == JobUnit.job_id)
                              .where(JobUnit.status == "running", JobUnit.heartbeat_at < cutoff)).all()
            n = 0
            failed: list[tuple[int, str]] = []
            for uid, job_id, attempts, job_status in stale:
                if job_status == "cancelled":
                    new = "cancelled"
                elif job_status in ("done", "failed"):
                    new = "skipped"  # its job ended without it: nothing to run again
                else:
                    new = "failed" if attempts >= max_attempts else "queued"
                res = s.execute(update(JobUnit).where(JobUnit.id == uid, JobUnit.status == "running",
                                                      JobUnit.heartbeat_at < cutoff)
                                .values(status=new, lease=None,
                                        error="worker stopped heartbeating" if new == "failed" else None))
                n += res.rowcount  # type: ignore[attr-defined]
                if new == "failed" and res.rowcount:  # type: ignore[attr-defined]
                    failed.append((uid, job_id))
        for uid, job_id in failed:
            self.fail_job(job_id, f"unit {uid} was lost {max_attempts} times (its worker stopped)")
        return n

    def skip_units(self, job_id: str, phase: int, g1s: Iterable[int]) -> int:
        """Queued units under first guesses that can no longer win are not worth running."""
        g1s = list(g1s)
        if not g1s:
            return 0
        with self.db.session() as s:
            res = s.execute(update(JobUnit).where(JobUnit.job_id == job_id, JobUnit.phase == phase,
                                                  JobUnit.status == "queued", JobUnit.g1.in_(g1s))
                            .values(status="skipped"))
            return int(res.rowcount)  # type: ignore[attr-defined]

    # -- workers ---------------------------------------------------------------------------------

    def register_worker(self, worker: str, host: str, pid: int, processes: int, scheduler: str | None) -> None:
        with self.db.session() as s:
            s.merge(WorkerRow(id=worker[:128], host=host[:128], pid=pid, processes=processes,
                              scheduler=scheduler, started_at=self._now(), heartbeat_at=self._now(), stopped_at=None))

    def beat_worker(self, worker: str) -> None:
        with self.db.session() as s:
            s.execute(update(WorkerRow).where(WorkerRow.id == worker).values(heartbeat_at=self._now()))

    def stop_worker(self, worker: str) -> None:
        with self.db.session() as s:
            s.execute(update(WorkerRow).where(WorkerRow.id == worker).values(stopped_at=self._now()))

    def live_workers(self, within: float) -> list[WorkerRow]:
        cutoff = self._now() - timedelta(seconds=within)
        with self.db.session() as s:
            return list(s.scalars(select(WorkerRow).where(WorkerRow.heartbeat_at >= cutoff,
                                                          WorkerRow.stopped_at.is_(None))).all())

    def queue(self, live_within: float, seen_within: float) -> Queue:
        """How the queue stands now, for an operator's scrape: jobs and units counted by status (two grouped counts,
        whatever the number of rows), the workers alive as :meth:`live_workers` counts them, and the last heartbeat
        of every worker that has not stopped and was heard from within ``seen_within`` seconds: a worker killed
        without stopping stays listed, its heartbeat ageing, for that long."""
        now = self._now()
        cutoff = now - timedelta(seconds=max(seen_within, live_within))
        with self.db.session() as s:
            jobs = {str(k): int(n) for k, n in s.execute(select(Job.status, func.count()).group_by(Job.status))}
            units = {str(k): int(n) for k, n in s.execute(select(JobUnit.status, func.count())
                                                           .group_by(JobUnit.status))}
            beats = {str(w): _aware(t) or t for w, t in s.execute(
                select(WorkerRow.id, WorkerRow.heartbeat_at).where(WorkerRow.heartbeat_at >= cutoff,
                                                                   WorkerRow.stopped_at.is_(None)))}
        alive = sum(1 for t in beats.values() if t >= now - timedelta(seconds=live_within))
        return Queue(jobs, units, alive, beats)


def as_aware(ts: datetime | None) -> datetime | None:
    """Timestamps from either backend as aware UTC datetimes."""
    return _aware(ts)


def counts(units: Sequence[JobUnit]) -> dict[str, Any]:
    """Unit counts by status."""
    out: dict[str, int] = {}
    for u in units:
        out[u.status] = out.get(u.status, 0) + 1
    return out
