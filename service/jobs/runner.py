"""The Dask task: run one claimed unit inside a worker process, heartbeating as it goes.

A task reads its unit and job from the database, searches with a warm per-process searcher (its
transposition table loaded from the persistent one on first use and kept between units), writes
what it proved to the persistent table, and then records the unit — positions first, so that a
crash between the two loses nothing: the unit runs again and finds its positions.  A watcher
thread heartbeats while the kernel runs (the kernel releases the GIL) and stops the search when
the unit's lease was lost or its job cancelled.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import orjson

from service.config import Settings
from service.engine import warm_searcher
from service.jobs.campaign_units import (
    run_atlas_unit,
    run_bound_unit,
    run_polish_unit,
    run_rollout_unit,
    run_root_search_unit,
    run_scan_unit,
)
from service.jobs.compute import Checkpoints, compute_tree, compute_unit
from service.jobs.plan import (
    ATLAS_KINDS,
    BOUND_KINDS,
    CHECK_KINDS,
    POLISH_KINDS,
    ROLLOUT_KINDS,
    SCAN_KINDS,
    TREE_KINDS,
    JobRequest,
)
from service.jobs.unit_kit import (
    _cached_searcher,
    _ended,
    _failed,
    _Heartbeat,
    database,
)
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from service.store.strategies import StrategyStore, tree_params
from solver.game import Game, Turn
from solver.lowerbound import root_lower_bound
from solver.search import Searcher, SolveOptions
from solver.table import Entry
from solver.tree import to_compact
from solver.vocabulary import Criterion, criterion_of


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








def searcher_for(positions: PositionStore, req: JobRequest, k: int | None, *, capacity: int = 1 << 20,
                 threshold: int | None = None) -> Searcher:
    """A warm searcher for the question of ``req`` at depth limit ``k`` (LRU per process).  Entries
    that cost at least ``threshold`` nodes (default ``BULLSCOWS_EXPORT_THRESHOLD``) are persisted."""
    key = (req.game, req.alphabet, req.criterion, k, req.mde, req.from_set_only)
    return _cached_searcher(key, lambda: warm_searcher(
        positions, req.game_obj(), req.options(k), capacity,
        Settings().export_threshold if threshold is None else threshold))








def run_unit(url: str, unit_id: int, lease: str, heartbeat_s: float = 2.0, max_attempts: int = 3,
             checkpoint_s: float | None = None) -> dict[str, Any]:
    """Run a claimed unit to the end (or until told to stop); returns a small status report.  With
    ``checkpoint_s``, a search unit saves what it proved every ``checkpoint_s`` seconds
    (:class:`service.jobs.compute.Checkpoints`), so that its worker dying loses no more."""
    db = database(url)
    jobs = JobStore(db)
    positions = PositionStore(db)
    got = jobs.unit(unit_id)
    if got is None:
        return {"unit": unit_id, "status": "missing"}
    unit, job = got
    if unit.lease != lease or unit.status != "running":
        return {"unit": unit_id, "status": "lost"}
    req = JobRequest.from_json(job.request)
    if unit.kind in TREE_KINDS:
        return run_tree_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in BOUND_KINDS:
        return run_bound_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in ROLLOUT_KINDS:
        return run_rollout_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in POLISH_KINDS:
        return run_polish_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in ATLAS_KINDS:
        return run_atlas_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in SCAN_KINDS:
        return run_scan_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)
    if unit.kind in CHECK_KINDS:
        return run_root_search_unit(db, unit, job, req, lease, heartbeat_s, max_attempts, checkpoint_s)
    k = job.phase or None
    history = [Turn(int(g), int(r)) for g, r in orjson.loads(unit.history)]
    holder: list[tuple[Searcher, int]] = []  # (searcher, its node count at start) once warm
    # Beats from the start: loading the table and the kernels can outlast a heartbeat.
    beat = _Heartbeat(jobs, unit_id, lease, heartbeat_s,
                      lambda: int(holder[0][0].nodes) - holder[0][1] if holder else 0)
    searcher: Searcher | None = None
    try:
        searcher = searcher_for(positions, req, k)
        searcher.clear_stop()
        holder.append((searcher, int(searcher.nodes)))
        beat.searchers.append(searcher)
        if beat.lost.is_set():  # told to stop while warming up
            return {"unit": unit_id, "status": "lost"}
        beta = None if unit.beta is None else int(unit.beta)

        def save(entries: list[Entry], nodes: int) -> bool:
            positions.save_entries(entries, source=f"job:{job.id}", atomic=False)
            return jobs.checkpoint(unit_id, lease, nodes)

        checkpoints = None if not checkpoint_s else Checkpoints(checkpoint_s, save, beat.lost.is_set)
        result = compute_unit(searcher, req, unit.kind, unit.g2, history, k, beta, checkpoints)
    except Exception as err:
        beat.stop()
        return _failed(jobs, unit_id, lease, err, max_attempts)
    finally:
        beat.stop()
        if searcher is not None:
            searcher.clear_stop()
    positions.save_entries(result.entries, source=f"job:{job.id}")
    if result.aborted:
        status = jobs.release_unit(unit_id, lease, None, max_attempts)
        return {"unit": unit_id, "status": status or "lost", "nodes": result.nodes}
    ok = jobs.finish_unit(unit_id, lease, result.value, result.exact, result.possible, result.best_guess,
                          result.nodes, result.seconds, result.per_response if unit.kind == "root" else None)
    return _ended(unit, job, ok, result.nodes)


class _Stopped(Exception):
    """Raised inside a tree's build when its unit must stop (lease lost, or job cancelled)."""


def run_tree_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                  max_attempts: int) -> dict[str, Any]:
    """Build a tree job's tree, heartbeating the number of secrets placed so far (the job's progress),
    store it in the ``strategies`` table under the key ``GET /v1/strategies`` reads, then record the
    unit with the tree's total as its value and its histogram of game lengths as ``per_response``.
    The tree is stored before the unit is recorded: a crash between the two only builds it again."""
    jobs = JobStore(db)
    placed = [0]
    beat = _Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: placed[0])

    def on_solved(k: int) -> None:
        placed[0] += k
        if beat.lost.is_set():
            raise _Stopped

    def searcher() -> Searcher:
        s = searcher_for(PositionStore(db), req, job.phase or None)
        s.clear_stop()
        beat.searchers.append(s)
        return s

    started = time.perf_counter()
    try:
        tree = compute_tree(req, searcher, on_solved)
    except _Stopped:
        return {"unit": unit.id, "status": "lost"}
    except Exception as err:
        beat.stop()
        return _failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    assert req.strategy is not None
    # an optimal tree's searches proved positions: kept for every later search, as a solve's are
    PositionStore(db).save_entries([e for s in beat.searchers for t in s.tables for e in t.export()],
                                   source=f"job:{job.id}")
    stats = tree.stats()
    StrategyStore(db).put(req.game, req.strategy, tree_params(req.max_guesses, None), to_compact(tree), stats.total,
                          stats.nodes, exact=criterion_of(req.strategy) is not None)
    histogram: dict[int, int | None] = {int(k): int(v) for k, v in stats.histogram.items()}
    ok = jobs.finish_unit(unit.id, lease, stats.total, True, True, tree.root.guess, stats.nodes,
                          time.perf_counter() - started, histogram)
    return _ended(unit, job, ok, stats.nodes)






















