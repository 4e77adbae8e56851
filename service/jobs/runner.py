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
import os
import signal
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from service.config import Settings
from service.engine import warm_searcher
from service.jobs.campaign_plans import polish_parts, polish_tree_of, rollout_plan_of
from service.jobs.compute import Checkpoints, compute_tree, compute_unit
from service.jobs.ledger import StoreLedger, UnitStopped
from service.jobs.plan import BOUND_KINDS, CHECK_KINDS, POLISH_KINDS, ROLLOUT_KINDS, TREE_KINDS, JobRequest
from service.record_checks import CHECK_PROGRESS_EVERY_S, SEARCH_KEY, part_candidates, search_share, share_key
from service.store.bound_parts import BoundPartStore, PartBounds
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from service.store.polish_positions import PolishPositionStore
from service.store.positions import PositionStore
from service.store.strategies import StrategyStore, tree_params
from solver.boundmemo import new_memo
from solver.game import Game, Turn
from solver.lowerbound import LEAVES, root_lower_bound
from solver.polish import PolishParams, Settled, settled_from_json, settled_to_json
from solver.rollout import branch_tree
from solver.search import Searcher, SolveOptions
from solver.secondbound import Memo, second_guess_bound
from solver.sweep import Sweeper
from solver.table import Entry
from solver.tree import to_compact
from solver.vocabulary import Criterion, criterion_of

_DBS: dict[tuple[str, int], Database] = {}
_SEARCHERS: OrderedDict[tuple[Any, ...], Searcher] = OrderedDict()
_LOCK = threading.Lock()
_PART_MEMO: dict[tuple[str, int, int], Memo] = {}
MAX_SEARCHERS = 4


def database(url: str) -> Database:
    """One engine per process and URL (Dask runs many tasks in one worker process)."""
    key = (url, os.getpid())  # never share pooled connections with a forked parent
    with _LOCK:
        db = _DBS.get(key)
        if db is None:
            db = _DBS[key] = Database(url)
        return db


def dispose_all() -> None:
    """Close this process's pooled connections (tests, and a worker that shuts down cleanly)."""
    with _LOCK:
        for db in _DBS.values():
            db.dispose()
        _DBS.clear()


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


def _cached_searcher(key: tuple[Any, ...], make: Callable[[], Searcher]) -> Searcher:
    """The process's searcher under ``key`` (LRU of :data:`MAX_SEARCHERS`), made by ``make`` when there is none:
    made outside the lock, since making one takes a while."""
    with _LOCK:
        s = _SEARCHERS.get(key)
        if s is not None:
            _SEARCHERS.move_to_end(key)
            return s
    s = make()
    with _LOCK:
        _SEARCHERS[key] = s
        while len(_SEARCHERS) > MAX_SEARCHERS:
            _SEARCHERS.popitem(last=False)
    return s


def bound_searcher(game: Game) -> Searcher:
    """The game's searcher that bound units refine with (its arrays and pools; in :func:`searcher_for`'s LRU):
    made once per process rather than once per unit, which for a second guess's unit of a big game costs as much
    as the unit."""
    return _cached_searcher(("bound", game.spec, game.alphabet), lambda: Searcher(game, SolveOptions(Criterion.TOTAL)))


def part_memo(job_id: str, guess: int, response: int) -> tuple[Memo, bool]:
    """The refinement memo of one part of a bound job in this process (the last one asked: a worker process claims
    a part's second guesses one after another), shared by the units of its second guesses, and whether it is new
    (then the unit warms it: :func:`solver.secondbound.second_guess_bound`)."""
    key = (job_id, guess, response)
    with _LOCK:
        held = _PART_MEMO.get(key)
        if held is not None:
            return held, False
        _PART_MEMO.clear()  # one part's at a time: 24 MB each
        held = _PART_MEMO[key] = new_memo()
        return held, True


def searcher_for(positions: PositionStore, req: JobRequest, k: int | None, *, capacity: int = 1 << 20,
                 threshold: int | None = None) -> Searcher:
    """A warm searcher for the question of ``req`` at depth limit ``k`` (LRU per process).  Entries
    that cost at least ``threshold`` nodes (default ``BULLSCOWS_EXPORT_THRESHOLD``) are persisted."""
    key = (req.game, req.alphabet, req.criterion, k, req.mde, req.from_set_only)
    return _cached_searcher(key, lambda: warm_searcher(
        positions, req.game_obj(), req.options(k), capacity,
        Settings().export_threshold if threshold is None else threshold))


class _Heartbeat:
    """A running unit's heartbeat: a thread that reports the unit's work (``count()``) every
    ``every`` seconds from its start, and, when the store says the unit must stop (its lease was lost,
    or its job is over), sets :attr:`lost` and asks every searcher in :attr:`searchers` to stop."""

    def __init__(self, jobs: JobStore, unit_id: int, lease: str, every: float, count: Callable[[], int]) -> None:
        self.lost = threading.Event()
        self.searchers: list[Searcher] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(jobs, unit_id, lease, every, count),
                                        name=f"heartbeat-{unit_id}", daemon=True)
        self._thread.start()

    def _beat(self, jobs: JobStore, unit_id: int, lease: str, every: float, count: Callable[[], int]) -> None:
        while not self._done.wait(every):
            try:
                keep = jobs.heartbeat(unit_id, lease, count())
            except Exception:  # a database hiccup must not kill the work; the next beat retries
                continue
            if not keep:
                self.lost.set()
                for s in self.searchers:
                    s.request_stop()
                return

    def stop(self) -> None:
        """Stop beating (idempotent)."""
        self._done.set()
        self._thread.join()

    def end(self) -> None:
        """Stop beating, and clear the stop asked of its searchers: they are the process's, kept for its next unit."""
        self.stop()
        for s in self.searchers:
            s.clear_stop()


def _failed(jobs: JobStore, unit_id: int, lease: str, err: Exception, max_attempts: int) -> dict[str, Any]:
    """Give back a unit whose computation raised (queued again while attempts remain, else failed), with the
    error and its traceback kept on the unit; the report of it."""
    status = jobs.release_unit(unit_id, lease, f"{type(err).__name__}: {err}\n{traceback.format_exc()}", max_attempts)
    return {"unit": unit_id, "status": status or "lost", "error": str(err)}


def _given_back(jobs: JobStore, unit_id: int, lease: str, max_attempts: int) -> dict[str, Any]:
    """Give back a unit told to stop (queued again, or ended with its cancelled job), what it wrote kept; the report
    of it."""
    status = jobs.release_unit(unit_id, lease, None, max_attempts)
    return {"unit": unit_id, "status": status or "lost"}


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
    return {"unit": unit_id, "job": job.id, "status": "done" if ok else "lost", "nodes": result.nodes}


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
    return {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost", "nodes": stats.nodes}


def run_bound_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                   max_attempts: int) -> dict[str, Any]:
    """Refine a bound job's first guess (the unit's ``g1``), or only its part ``response`` when the unit has one,
    to the job's depth, every part's bound written to the ``bound_parts`` table as it is proven
    (:class:`service.jobs.ledger.StoreLedger`), and record the guess's bound (or the part's) as the unit's value
    (``exact``: the full bound at that depth, not one cut at the unit's β, the least bound its job had when it was
    claimed, or its target).  The heartbeat counts the bounds that rose.

    A worker killed mid-unit loses only what its ledger had not written (every ``BULLSCOWS_BOUND_FLUSH_S``
    seconds; each write counts as one of the unit's checkpoints); the unit, re-queued, starts again from every
    part's bound written, its own and every other unit's."""
    jobs = JobStore(db)
    holder: list[StoreLedger] = []
    beat = _Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: holder[0].proofs if holder else 0)
    assert req.depth is not None and unit.g1 is not None
    game = req.game_obj()
    beta = None if unit.beta is None else int(unit.beta)
    try:
        ledger = StoreLedger(BoundPartStore(db), game, f"job:{job.id}", every=Settings().bound_flush_s,
                             stopped=beat.lost.is_set, on_flush=lambda proofs: jobs.checkpoint(unit.id, lease, proofs))
        holder.append(ledger)
        started = time.perf_counter()
        if unit.g2 is not None:  # one second guess of a part
            assert unit.response is not None
            memo, fresh = part_memo(job.id, int(unit.g1), int(unit.response))
            second = second_guess_bound(game, req.turns(), int(unit.g1), int(unit.response), int(unit.g2),
                                        req.depth, beta=beta, ledger=ledger, searcher=bound_searcher(game),
                                        memo=memo, warm=fresh)
            value, full, work = max(int(unit.lower_bound), second.value), second.full, second.work
        else:
            parts = None if unit.response is None else [int(unit.response)]
            got = root_lower_bound(game, req.turns(), req.depth, target=beta, guesses=[int(unit.g1)], ledger=ledger,
                                   only_parts=parts, searcher=bound_searcher(game))
            full, work = beta is None or got.value < beta, got.work
            # a part's unit: the part's own bound (what the guess's is made of), at least its size-only one
            value = got.value if unit.response is None else max(int(unit.lower_bound),
                                                                 ledger.get(int(unit.g1), int(unit.response))[0])
        ledger.flush()
    except UnitStopped:  # its job is over (cancelled: the unit ends so), or its lease was lost (then nothing)
        return _given_back(jobs, unit.id, lease, max_attempts)
    except Exception as err:
        beat.stop()
        return _failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.stop()
    ok = jobs.finish_unit(unit.id, lease, value, full, True, int(unit.g1), work, time.perf_counter() - started, None)
    if ok and unit.g2 is not None:
        _close_part(jobs, BoundPartStore(db), job, req, unit)
    return {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost", "nodes": work}


def _close_part(jobs: JobStore, store: BoundPartStore, job: Job, req: JobRequest, unit: JobUnit) -> None:
    """Once every second guess of the unit's part is done, the part's bound (the least of theirs) goes to the
    ``bound_parts`` table as the part's own, at ``depth - 1`` plies when the least is a full bound (not one cut at
    its β), as a whole refinement of the part would have put it; whichever worker ends the last one writes it (two
    at once write the same: a bound only rises)."""
    assert req.depth is not None
    siblings = [u for u in jobs.units(job.id) if (u.g1, u.response) == (unit.g1, unit.response) and u.g2 is not None]
    if not siblings or any(u.status != "done" or u.value is None for u in siblings):
        return
    least = min(siblings, key=lambda u: (int(u.value or 0), not u.exact))  # of equal ones, a full bound
    plies = req.depth - 1 if least.exact else 0
    store.raise_bounds(req.game, PartBounds({(int(unit.g1 or 0), int(unit.response or 0)): (int(least.value or 0),
                                                                                             plies)}),
                       LEAVES, f"job:{job.id}")


def run_rollout_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                     max_attempts: int) -> dict[str, Any]:
    """Build a rollout job's subtree below the unit's response to its first guess, and record it as the unit's
    ``output`` (compact text), with its total guesses (the first included) as the value and its secrets as the
    unit's count.  The build decides each position from its path alone, so whichever worker builds it, and
    however often (a worker killed mid-unit: the unit is re-queued), it is the same subtree."""
    jobs = JobStore(db)
    beat = _Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: 0)
    assert unit.g1 is not None and unit.response is not None
    started = time.perf_counter()
    try:
        tree = branch_tree(req.game_obj(), rollout_plan_of(req), int(unit.g1), int(unit.response))
    except Exception as err:
        beat.stop()
        return _failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.stop()
    stats = tree.stats()
    ok = jobs.finish_unit(unit.id, lease, stats.total, False, True, int(unit.g1), stats.secrets,
                          time.perf_counter() - started, None, to_compact(tree))  # a strategy's: not exact
    return {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost", "nodes": stats.secrets}


POLISH_TABLE = 1 << 22
"""The transposition table of the searcher a polish searches with (entries): a polish's positions are of a few
hundred candidates, each searched for a minute or more."""


def polish_searcher(game: Game) -> Searcher:
    """The game's searcher polish units search with (in :func:`searcher_for`'s LRU): its table warm from one
    position to the next, and from one unit to the next."""
    return _cached_searcher(("polish", game.spec, game.alphabet),
                            lambda: Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=POLISH_TABLE))


def run_polish_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                    max_attempts: int) -> dict[str, Any]:
    """Polish a polish job's part (the unit's ``response`` to the tree's first guess; the whole tree when it has
    none): :func:`solver.polish.polish` with the job's parameters, each position written to the
    ``polish_positions`` table as soon as it is settled, every position settled before (by this unit's earlier
    attempts, other units, earlier runs, the progress file) taken as it was.  Records the guesses saved as the
    unit's value and what it did (:meth:`solver.polish.PolishReport.counts`) as its ``output``; the heartbeat
    counts the positions settled.

    A worker killed mid-unit loses only the position it was searching.  A unit told to stop (its lease lost, or
    its job over) writes nothing more: the search it stops is cut short, not out of its budget."""
    jobs, store = JobStore(db), PolishPositionStore(db)
    settled = [0]
    beat = _Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: settled[0])
    game = req.game_obj()
    params = PolishParams.from_dict(req.polish_doc["params"])
    pid = req.polish_id
    started = time.perf_counter()

    def settle(key: str, done: Settled) -> None:
        if beat.lost.is_set():
            raise UnitStopped
        store.put(pid, game.spec, {key: settled_to_json(game, key, done)}, f"job:{job.id}")
        settled[0] += 1

    try:
        tree = polish_tree_of(req)
        parts = None if unit.response is None else [int(unit.response)]
        if parts is not None and polish_parts(req, tree) is None:
            raise ValueError("a polish unit of one part, in a polish of the whole tree")
        searcher = polish_searcher(game)
        searcher.clear_stop()
        beat.searchers.append(searcher)
        sweeper = None if params.sweep is None else Sweeper(game, max_guesses=params.max_guesses,
                                                            kernel_at_most=params.sweep, searcher=searcher)
        known = {k: settled_from_json(game, k, e) for k, e in store.load(pid).items()}
        report = params.run(tree, searcher, sweeper=sweeper, known=known, settle=settle, parts=parts)
    except Exception as err:  # told to stop (given back, as a bound unit), or failed
        beat.stop()
        stopped = isinstance(err, UnitStopped)
        return _given_back(jobs, unit.id, lease, max_attempts) if stopped else _failed(jobs, unit.id, lease, err,
                                                                                       max_attempts)
    finally:
        beat.end()
    ok = jobs.finish_unit(unit.id, lease, report.gained, False, True, int(tree.root.guess), report.tried,
                          time.perf_counter() - started, None, orjson.dumps(report.counts()).decode())
    return {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost", "nodes": report.tried}


def root_searcher(game: Game, options: SolveOptions) -> Searcher:
    """The searcher of ``options`` that check and search units search with (in :func:`searcher_for`'s LRU), its
    table warm from one unit to the next: only what this process proved is in it (a search from nothing)."""
    key = ("root", game.spec, game.alphabet, options.criterion, options.max_guesses, options.mde,
           options.from_set_only, options.upper_bound)
    return _cached_searcher(key, lambda: Searcher(game, options, table_capacity=POLISH_TABLE))


def run_root_search_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                   max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
    """Search one position guess by guess (:func:`service.record_checks.search_share`): a check job's part (the
    unit's ``response`` to its first guess, from the set only) or a search job's position, or the unit's ``g2``-th
    share of its guesses; keeping how far it has come as the unit's ``output`` at most every
    :data:`~service.record_checks.CHECK_PROGRESS_EVERY_S` seconds (sooner with a shorter ``checkpoint_s``), and its
    record as the output once done, its value the position's (None when every guess of the share was cut by the
    other shares, or no strategy fits).  The unit's next attempt, on any worker, goes on from the progress it kept
    (or from what the job was given, a stopped run's); a share is cut by the best values its sibling units keep.

    A worker killed mid-unit loses at most that period of search; a unit told to stop keeps its progress."""
    jobs = JobStore(db)
    game = req.game_obj()
    if req.kind == "check":
        doc = req.check_doc
        first, r = int(doc["first_guess"]), int(unit.response or 0)
        history, cands, name = [Turn(first, r)], part_candidates(game, first, r), game.format_response(r)
        options = SolveOptions(Criterion.TOTAL, from_set_only=True)
    else:
        doc = req.search_doc
        history, name = req.turns(), SEARCH_KEY
        cands = game.candidates(history)
        options = req.options(upper_bound=doc.get("upper_bound"))
    shares = int(doc["shares"])
    share = (int(unit.g2 or 0), shares)
    period = CHECK_PROGRESS_EVERY_S if not checkpoint_s else min(CHECK_PROGRESS_EVERY_S, checkpoint_s)
    searcher = root_searcher(game, options)
    start_nodes = int(searcher.nodes)
    beat = _Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: int(searcher.nodes) - start_nodes)
    read: list[tuple[float, dict[str, dict[str, Any]]]] = []
    started = time.perf_counter()

    def progress() -> dict[str, dict[str, Any]]:  # read again at most every second: asked before each guess
        if read and time.monotonic() - read[0][0] < 1.0:
            return read[0][1]
        kept = {k: v for k, v in dict(doc.get("resume") or {}).items() if k == name or k.startswith(f"{name} share ")}
        for u in jobs.units(job.id):
            if u.response == unit.response and u.output:
                kept[share_key(name, (int(u.g2 or 0), shares))] = orjson.loads(u.output)
        read[:] = [(time.monotonic(), kept)]
        return kept

    def keep_progress(key: str, state: dict[str, Any]) -> None:
        if not jobs.keep_output(unit.id, lease, orjson.dumps(state).decode()):
            searcher.request_stop()
            beat.lost.set()
        read.clear()

    try:
        searcher.clear_stop()
        beat.searchers.append(searcher)
        record = search_share(searcher, history, cands, share, name, progress, keep_progress, period)
    except Exception as err:
        beat.stop()
        return _failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    if record is None or beat.lost.is_set():
        return _given_back(jobs, unit.id, lease, max_attempts)
    nodes = int(searcher.nodes) - start_nodes
    guess = None if record.get("guess") is None else game.parse_code(record["guess"])
    ok = jobs.finish_unit(unit.id, lease, record["value"], shares == 1, record["value"] is not None, guess, nodes,
                          time.perf_counter() - started, None, orjson.dumps(record).decode())
    return {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost"}
