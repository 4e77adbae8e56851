"""``bullscows worker``: claims jobs and units from the database and runs the units on Dask.

One loop per worker process: heartbeat, re-queue units whose worker went silent, plan queued jobs,
keep every Dask thread busy with a claimed unit (β computed at claim time from what the job's
finished units proved), and refresh a job each time one of its units ends.  One-step tree units
(seconds each) run on a lane of their own, a thread of this process, so that searches holding every
Dask process never keep a page waiting for a tree.  The database holds
all state, so any number of workers on any number of machines can share the same jobs, and
killing one at any moment loses at most its units in flight.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import socket
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from service.jobs import manage
from service.jobs.kinds import kind_of, side_units, unit_kind
from service.jobs.plan import JobRequest
from service.jobs.runner import run_unit
from service.jobs.unit_kit import database
from service.store.db import StorageError
from service.store.jobs import Claim, JobStore
from service.store.positions import PositionStore
from solver.search import Searcher


@dataclass(frozen=True)
class WorkerConfig:
    """Timing of the worker loop (seconds)."""

    heartbeat_s: float = 2.0
    """How often a running unit reports; a unit silent for ``stale_after_s`` is re-queued."""
    stale_after_s: float = 60.0
    max_attempts: int = 3
    """A unit failing (or being lost) this many times fails its job."""
    poll_s: float = 0.2
    """Idle poll interval."""
    sweep_s: float = 2.0
    """How often every running job is refreshed (finishes jobs whose last unit another worker ran)."""
    checkpoint_s: float | None = 300.0
    """How often a running search unit saves the positions it proved (None = only when it ends)."""
    only_job: str | None = None
    """Run that job's units alone (None: any job's).  Why: a command that runs one campaign starts a worker for
    it, which must not spend its time on whatever else the database holds."""
    max_units: int | None = None
    """Take at most this many units, then stop once they are done (None: run until stopped).  Why: a command
    that runs a campaign's units a few at a time (``atlas bounds --campaign --max-units``) starts a worker that
    does exactly that share, whatever the units' lengths."""


class Coordinator:
    """The loop of one ``bullscows worker``."""

    def __init__(self, url: str, client: Any, config: WorkerConfig, *, name: str | None = None,
                 scheduler: str | None = None, log: Any = None) -> None:
        self.url = url
        self.client = client
        self.config = config
        self.db = database(url)
        self.jobs = JobStore(self.db)
        self.positions = PositionStore(self.db)
        host = socket.gethostname()
        self.id = name or f"{host}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.host = host
        self.scheduler = scheduler
        self.in_flight: dict[Any, Claim] = {}
        self.side: dict[concurrent.futures.Future[dict[str, Any]], Claim] = {}
        """Units on the side lane (:func:`service.jobs.kinds.side_units`), one at a time."""
        self._side_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="side-lane")
        self.stop = threading.Event()
        self._planners: OrderedDict[tuple[Any, ...], Searcher] = OrderedDict()
        self._log = log or (lambda *a, **k: None)
        self.units_finished = 0
        self.units_taken = 0

    def slots(self) -> int:
        """Units to keep in flight: one per Dask thread (more would weaken the β of later units)."""
        try:
            return max(1, int(sum(self.client.nthreads().values())))
        except Exception:
            return 1

    def _planner(self, req: JobRequest, k: int | None) -> Searcher:
        key = (req.game, req.alphabet, req.criterion, k, req.mde, req.from_set_only)
        s = self._planners.get(key)
        if s is None:
            s = Searcher(req.game_obj(), req.options(k))
            self._planners[key] = s
            while len(self._planners) > 4:
                self._planners.popitem(last=False)
        return s

    def plan_one(self) -> bool:
        """Plan one queued job, if any."""
        job = self.jobs.claim_for_planning(self.id, self.config.stale_after_s, only=self.config.only_job)
        if job is None:
            return False
        try:
            req = JobRequest.from_json(job.request)
            planner = self._planner(req, job.phase or None) if kind_of(req).needs_searcher else None
            ok = manage.plan_job(self.jobs, self.positions, job, self.id, planner)
            self._log("job planned", job=job.id, phase=job.phase, ok=ok)
            if ok:
                manage.refresh(self.jobs, self.positions, job.id)
        except Exception as err:
            self.jobs.fail_job(job.id, f"planning failed: {type(err).__name__}: {err}")
            self._log("job planning failed", job=job.id, error=str(err))
        return True

    def _share_left(self, wanted: int) -> int:
        """How many of ``wanted`` more units this worker may take (:attr:`WorkerConfig.max_units`)."""
        if self.config.max_units is None:
            return wanted
        return max(0, min(wanted, self.config.max_units - self.units_taken))

    def fill_side(self) -> int:
        """Claim a side-lane unit when the lane is free, and run it in this process."""
        if self.side or not self._share_left(1):
            return 0
        claims = self.jobs.claim_units(self.id, 1, kinds=side_units(), only=self.config.only_job)
        self.units_taken += len(claims)
        for c in claims:
            fut = self._side_pool.submit(run_unit, self.url, c.unit_id, c.lease, self.config.heartbeat_s,
                                         self.config.max_attempts)
            self.side[fut] = c
        return len(claims)

    def fill(self) -> int:
        """Claim units for the free slots and submit them."""
        free = self._share_left(self.slots() - len(self.in_flight))
        if free <= 0:
            return 0
        claims = self.jobs.claim_units(self.id, free, other_than=side_units(), only=self.config.only_job)
        self.units_taken += len(claims)
        outcomes: dict[str, Any] = {}
        for c in claims:
            beta = self._beta(c, outcomes)
            self.jobs.set_beta(c.unit_id, c.lease, beta)
            fut = self.client.submit(run_unit, self.url, c.unit_id, c.lease, self.config.heartbeat_s,
                                     self.config.max_attempts, self.config.checkpoint_s,
                                     key=f"unit-{c.unit_id}-{c.lease}", pure=False)
            self.in_flight[fut] = c
        return len(claims)

    def _beta(self, c: Claim, outcomes: dict[str, Any]) -> int | None:
        """The unit's β from its job's current state, as its kind reads it (:meth:`service.jobs.kinds.JobKind.beta`;
        the state computed once per job and batch of claims)."""
        kind = unit_kind(c.kind)
        if not kind.wants_beta(c):
            return None
        if c.job_id not in outcomes:
            job = self.jobs.get(c.job_id)
            outcomes[c.job_id] = None if job is None or job.plan is None else manage.outcome_of(self.jobs, job)[1]
        outcome = outcomes[c.job_id]
        return None if outcome is None else kind.beta(c, outcome)

    def collect(self) -> int:
        """Handle the futures that ended (Dask's and the side lane's); refresh their jobs."""
        ended = [(f, self.in_flight) for f in self.in_flight if f.done()]
        ended += [(f, self.side) for f in self.side if f.done()]
        touched: set[str] = set()
        for f, where in ended:
            c = where.pop(f)
            try:
                report = f.result()
                self._log("unit ended", **report)
            except Exception as err:  # the task itself died (e.g. its process was killed too often)
                self.jobs.release_unit(c.unit_id, c.lease, f"{type(err).__name__}: {err}", self.config.max_attempts)
                self._log("unit crashed", unit=c.unit_id, error=str(err))
            self.units_finished += 1
            touched.add(c.job_id)
        for job_id in touched:
            manage.refresh(self.jobs, self.positions, job_id)
        return len(ended)

    def sweep(self) -> None:
        """Periodic duties: heartbeat, stale units, every running job refreshed."""
        self.jobs.beat_worker(self.id)
        n = self.jobs.requeue_stale(self.config.stale_after_s, self.config.max_attempts)
        if n:
            self._log("stale units re-queued", count=n)
        for job in self.jobs.running_jobs():
            manage.refresh(self.jobs, self.positions, job.id)

    def run(self, *, until_idle: bool = False, max_seconds: float | None = None) -> None:
        """Loop until :attr:`stop` is set (or, with ``until_idle``, until nothing is left to do)."""
        self.jobs.register_worker(self.id, self.host, os.getpid(), self.slots(), self.scheduler)
        self._log("worker started", worker=self.id, slots=self.slots(), scheduler=self.scheduler)
        t_end = None if max_seconds is None else time.monotonic() + max_seconds
        last_sweep = last_vouch = 0.0
        try:
            while not self.stop.is_set():
                now = time.monotonic()
                try:
                    if now - last_sweep >= self.config.sweep_s:
                        self.sweep()
                        last_sweep = now
                    if now - last_vouch >= self.config.heartbeat_s:
                        self.jobs.vouch([(c.unit_id, c.lease)
                                         for c in (*self.in_flight.values(), *self.side.values())])
                        last_vouch = now
                    busy = self.plan_one()
                    busy = self.fill_side() > 0 or busy
                    busy = self.fill() > 0 or busy
                    busy = self.collect() > 0 or busy
                except StorageError as err:
                    # The database busy or away for a moment (SQLite's one writer held by a unit's
                    # long save, a PostgreSQL restart): the units keep running, the loop tries again.
                    self._log("storage unavailable", worker=self.id, error=err.detail)
                    self.stop.wait(max(self.config.poll_s, 1.0))
                    continue
                if until_idle and not self.in_flight and not self.side and not busy and not self._pending():
                    break
                if t_end is not None and now > t_end:
                    break
                if (self.config.max_units is not None and self.units_taken >= self.config.max_units
                        and not self.in_flight and not self.side):
                    break  # its share done
                if not busy:
                    self._idle()
        finally:
            for f in list(self.in_flight):
                f.cancel()
            self._side_pool.shutdown(wait=False, cancel_futures=True)
            self._release_all()
            self.jobs.stop_worker(self.id)
            self._log("worker stopped", worker=self.id, units=self.units_finished)

    def _release_all(self) -> None:
        """Give back the units this worker holds as it stops (queued again, no attempt counted as failed): another
        worker, or this one started again, takes them at once instead of after ``stale_after_s``.  Their tasks,
        if still running somewhere, can no longer record them (the lease is gone)."""
        for c in [*self.in_flight.values(), *self.side.values()]:
            with contextlib.suppress(Exception):  # the database away: the units go stale and are re-queued anyway
                self.jobs.release_unit(c.unit_id, c.lease, None, self.config.max_attempts)
        self.in_flight.clear()
        self.side.clear()

    def _idle(self) -> None:
        """Sleep until a unit ends (or the poll interval passes): short units are collected and
        replaced at once instead of at the next tick."""
        if not self.in_flight:
            if self.side:
                concurrent.futures.wait(list(self.side), timeout=self.config.poll_s,
                                        return_when=concurrent.futures.FIRST_COMPLETED)
            else:
                self.stop.wait(self.config.poll_s)
            return
        from distributed import wait

        with contextlib.suppress(TimeoutError):
            wait(list(self.in_flight), timeout=self.config.poll_s,  # type: ignore[no-untyped-call]
                 return_when="FIRST_COMPLETED")

    def _pending(self) -> bool:
        return bool(self.jobs.list_jobs("queued", limit=1) or self.jobs.running_jobs()
                    or self.jobs.list_jobs("planning", limit=1))


def serve(url: str, *, processes: int | None = None, scheduler: str | None = None,
          config: WorkerConfig | None = None, name: str | None = None, log: Any = None) -> None:
    """Start (or join) a Dask cluster and run a :class:`Coordinator` until SIGTERM/SIGINT."""
    from distributed import Client

    from service.jobs.runner import local_cluster, warm_process

    cfg = config or WorkerConfig()
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler)  # type: ignore[no-untyped-call]
        except OSError as exc:  # Dask's "timed out trying to connect": said in one line by the command
            raise ConnectionError(f"the Dask scheduler {scheduler} cannot be reached ({exc})") from None
    else:
        n = processes or os.cpu_count() or 1
        cluster = local_cluster(n)
        client = Client(cluster)  # type: ignore[no-untyped-call]
    coord = Coordinator(url, client, cfg, name=name, scheduler=scheduler, log=log)

    # Load the kernels here (planning searches) and in every Dask process before claiming any
    # unit: on a fresh machine numba compiles them first, which takes longer than a heartbeat.
    warm_process()
    client.run(warm_process)

    def _stop(_sig: int, _frame: Any) -> None:
        coord.stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        coord.run()
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()
        from service.jobs.unit_kit import dispose_all

        dispose_all()
