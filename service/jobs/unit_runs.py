"""The runs of the units that answer a position or build a strategy tree, each in a worker process under a lease:
a solve's unit (the whole position, a part after its first guess, or one second guess under a β) searched with a
warm per-process searcher, and a tree job's tree built.  What they prove goes to the persistent table before the
unit is recorded, so that a crash between the two loses nothing: the unit runs again and finds its positions.

Why apart from :mod:`service.jobs.runner` (the Dask task, which reads a unit and hands it to its kind) and from
:mod:`service.jobs.campaign_units` (the campaigns' units): these two are the kinds the HTTP API asks for.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from service.config import Settings
from service.engine import warm_searcher
from service.jobs.compute import Checkpoints, compute_tree, compute_unit
from service.jobs.plan import JobRequest
from service.jobs.unit_kit import Heartbeat, cached_searcher, unit_ended, unit_failed
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from service.store.strategies import StrategyStore, tree_params
from solver.game import Turn
from solver.search import Searcher
from solver.table import Entry
from solver.tree import to_compact
from solver.vocabulary import criterion_of


def searcher_for(positions: PositionStore, req: JobRequest, k: int | None, *, capacity: int = 1 << 20,
                 threshold: int | None = None) -> Searcher:
    """A warm searcher for the question of ``req`` at depth limit ``k`` (LRU per process).  Entries
    that cost at least ``threshold`` nodes (default ``BULLSCOWS_EXPORT_THRESHOLD``) are persisted."""
    key = (req.game, req.alphabet, req.criterion, k, req.mde, req.from_set_only)
    return cached_searcher(key, lambda: warm_searcher(
        positions, req.game_obj(), req.options(k), capacity,
        Settings().export_threshold if threshold is None else threshold))


def run_search_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                    max_attempts: int, checkpoint_s: float | None = None) -> dict[str, Any]:
    """Search a solve's unit (``root``, ``part`` or ``guess``) to the end, or until told to stop.  With
    ``checkpoint_s``, what it proved is saved every ``checkpoint_s`` seconds
    (:class:`service.jobs.compute.Checkpoints`), so that its worker dying loses no more."""
    jobs = JobStore(db)
    positions = PositionStore(db)
    unit_id = unit.id
    k = job.phase or None
    history = [Turn(int(g), int(r)) for g, r in orjson.loads(unit.history)]
    holder: list[tuple[Searcher, int]] = []  # (searcher, its node count at start) once warm
    # Beats from the start: loading the table and the kernels can outlast a heartbeat.
    beat = Heartbeat(jobs, unit_id, lease, heartbeat_s,
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
        return unit_failed(jobs, unit_id, lease, err, max_attempts)
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
    return unit_ended(unit, job, ok, result.nodes)


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
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: placed[0])

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
        return unit_failed(jobs, unit.id, lease, err, max_attempts)
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
    return unit_ended(unit, job, ok, stats.nodes)
