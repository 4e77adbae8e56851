"""The Dask task: run one claimed unit inside a worker process, and what a worker process needs around it.

A task reads its unit and job from the database and hands the unit to its kind (:mod:`service.jobs.kinds`), which
runs it under its lease, heartbeating as it goes, and keeps what it proved in the database before recording the
unit.  Beside it: the local Dask cluster a campaign starts, the signal handling that lets a campaign's ``finally``
blocks run, and the warm-up that loads every kernel before the first unit.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from service.jobs.kinds import unit_kind
from service.jobs.plan import JobRequest
from service.jobs.unit_kit import database
from service.store.jobs import JobStore
from solver.game import Game
from solver.lowerbound import root_lower_bound
from solver.search import Searcher, SolveOptions
from solver.vocabulary import Criterion


def local_cluster(processes: int) -> Any:
    """A Dask ``LocalCluster`` of ``processes`` one-thread processes, without a dashboard.  Its scheduler's
    HTTP server takes any free port: on its default (8787) a second cluster on the machine (another campaign,
    a worker) would be warned off it, and the tests take warnings for errors."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=processes, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                        dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"})


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises ``SystemExit`` (as Ctrl-C raises ``KeyboardInterrupt``), so that
    ``finally`` blocks run: a campaign's ``LocalCluster`` is then closed with its worker processes, instead
    of leaving them orphaned, still refining a unit nobody waits for.  (The main thread only; elsewhere,
    nothing changes.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextlib.contextmanager
def signals_deferred() -> Iterator[list[int]]:
    """Within the block, Ctrl-C and SIGTERM are noted (in the list yielded) instead of acted on: what must not be
    cut half-way (a campaign's last write of its progress file, and keeping its bound) ends first, and the caller
    then stops as asked.  (The main thread only; elsewhere, nothing changes.)"""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    def note(signum: int, _frame: Any) -> None:
        got.append(signum)

    before = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield got
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def warm_process() -> None:
    """Load every search kernel in this process (numba's cache, or a compile on a fresh machine)
    by solving a tiny game with both criteria and bounding one, so that the first real unit starts at once."""
    game = Game(2, 3, repetition=True)
    Searcher(game, SolveOptions(Criterion.TOTAL)).solve()
    Searcher(game, SolveOptions(Criterion.KMOVERS, max_guesses=4)).solve()
    root_lower_bound(Game(3, 3, repetition=True), (), 2)  # the bound jobs' kernels


def run_unit(url: str, unit_id: int, lease: str, heartbeat_s: float = 2.0, max_attempts: int = 3,
             checkpoint_s: float | None = None) -> dict[str, Any]:
    """Run a claimed unit to the end (or until told to stop), as its kind runs one (:mod:`service.jobs.kinds`);
    returns a small status report.  With ``checkpoint_s``, a search unit saves what it proved every
    ``checkpoint_s`` seconds (:class:`service.jobs.compute.Checkpoints`), so that its worker dying loses no more."""
    db = database(url)
    jobs = JobStore(db)
    got = jobs.unit(unit_id)
    if got is None:
        return {"unit": unit_id, "status": "missing"}
    unit, job = got
    if unit.lease != lease or unit.status != "running":
        return {"unit": unit_id, "status": "lost"}
    req = JobRequest.from_json(job.request)
    return unit_kind(unit.kind).run(db, unit, job, req, lease, heartbeat_s, max_attempts, checkpoint_s)
