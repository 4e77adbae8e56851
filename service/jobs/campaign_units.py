"""The runs of the campaigns' units, each in a worker process under a lease: a bound job's first guess (or part),
a rollout's subtree, a polish's part, a check's part or a search's share (one position searched guess by guess,
its progress kept), a scan's share (a position's guesses tried against a limit, its progress kept), an atlas
run's game.  Each keeps
what it proves in the database as it goes, so that a worker killed mid-unit loses little, and its next attempt,
on any worker, goes on from there.

Why apart from :mod:`service.jobs.runner`, which dispatches every unit here or to its own solve and tree units:
the campaigns' kinds grow, and each is a function of its own.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from service import atlas, atlas_keeping
from service.campaign_files import SCAN_KEY, SEARCH_KEY, share_key
from service.config import Settings
from service.jobs.campaign_plans import polish_parts, polish_tree_of, rollout_plan_of
from service.jobs.ledger import StoreLedger, UnitStopped
from service.jobs.plan import JobRequest
from service.jobs.unit_kit import (
    SEARCHERS_LOCK,
    Heartbeat,
    cached_searcher,
    unit_ended,
    unit_failed,
    unit_given_back,
    unit_raised,
)
from service.record_checks import CHECK_PROGRESS_EVERY_S, part_candidates, search_share
from service.store.bound_parts import BoundPartStore, PartBounds
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from service.store.polish_positions import PolishPositionStore
from solver.boundmemo import new_memo
from solver.feasible import Feasibility, ScanStep
from solver.game import Game, Turn
from solver.lowerbound import LEAVES, root_lower_bound
from solver.polish import PolishParams, Settled, settled_from_json, settled_to_json
from solver.rollout import branch_tree
from solver.search import Searcher, SolveOptions
from solver.secondbound import Memo, second_guess_bound
from solver.sweep import Sweeper
from solver.tree import to_compact
from solver.vocabulary import Criterion

_PART_MEMO: dict[tuple[str, int, int], Memo] = {}


def bound_searcher(game: Game) -> Searcher:
    """The game's searcher that bound units refine with (its arrays and pools; in :func:`searcher_for`'s LRU):
    made once per process rather than once per unit, which for a second guess's unit of a big game costs as much
    as the unit."""
    return cached_searcher(("bound", game.spec, game.alphabet), lambda: Searcher(game, SolveOptions(Criterion.TOTAL)))


def part_memo(job_id: str, guess: int, response: int) -> tuple[Memo, bool]:
    """The refinement memo of one part of a bound job in this process (the last one asked: a worker process claims
    a part's second guesses one after another), shared by the units of its second guesses, and whether it is new
    (then the unit warms it: :func:`solver.secondbound.second_guess_bound`)."""
    key = (job_id, guess, response)
    with SEARCHERS_LOCK:
        held = _PART_MEMO.get(key)
        if held is not None:
            return held, False
        _PART_MEMO.clear()  # one part's at a time: 24 MB each
        held = _PART_MEMO[key] = new_memo()
        return held, True


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
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: holder[0].proofs if holder else 0)
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
    except Exception as err:  # its job is over or its lease lost (given back: nothing more written), or failed
        beat.stop()
        return unit_raised(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.stop()
    ok = jobs.finish_unit(unit.id, lease, value, full, True, int(unit.g1), work, time.perf_counter() - started, None)
    if ok and unit.g2 is not None:
        _close_part(jobs, BoundPartStore(db), job, req, unit)
    return unit_ended(unit, job, ok, work)


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
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: 0)
    assert unit.g1 is not None and unit.response is not None
    started = time.perf_counter()
    try:
        tree = branch_tree(req.game_obj(), rollout_plan_of(req), int(unit.g1), int(unit.response))
    except Exception as err:
        beat.stop()
        return unit_failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.stop()
    stats = tree.stats()
    ok = jobs.finish_unit(unit.id, lease, stats.total, False, True, int(unit.g1), stats.secrets,
                          time.perf_counter() - started, None, to_compact(tree))  # a strategy's: not exact
    return unit_ended(unit, job, ok, stats.secrets)


POLISH_TABLE = 1 << 22
"""The transposition table of the searcher a polish searches with (entries): a polish's positions are of a few
hundred candidates, each searched for a minute or more."""


def polish_searcher(game: Game) -> Searcher:
    """The game's searcher polish units search with (in :func:`searcher_for`'s LRU): its table warm from one
    position to the next, and from one unit to the next."""
    return cached_searcher(("polish", game.spec, game.alphabet),
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
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: settled[0])
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
        return unit_raised(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    ok = jobs.finish_unit(unit.id, lease, report.gained, False, True, int(tree.root.guess), report.tried,
                          time.perf_counter() - started, None, orjson.dumps(report.counts()).decode())
    return unit_ended(unit, job, ok, report.tried)


def root_searcher(game: Game, options: SolveOptions) -> Searcher:
    """The searcher of ``options`` that check and search units search with (in :func:`searcher_for`'s LRU), its
    table warm from one unit to the next: only what this process proved is in it (a search from nothing)."""
    key = ("root", game.spec, game.alphabet, options.criterion, options.max_guesses, options.mde,
           options.from_set_only, options.upper_bound)
    return cached_searcher(key, lambda: Searcher(game, options, table_capacity=POLISH_TABLE))


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
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: int(searcher.nodes) - start_nodes)
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
        if beat.lost.is_set():  # told to stop: its lease may be another's now, so it writes nothing more
            return
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
        return unit_failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    if record is None or beat.lost.is_set():
        return unit_given_back(jobs, unit.id, lease, max_attempts)
    nodes = int(searcher.nodes) - start_nodes
    guess = None if record.get("guess") is None else game.parse_code(record["guess"])
    ok = jobs.finish_unit(unit.id, lease, record["value"], shares == 1, record["value"] is not None, guess, nodes,
                          time.perf_counter() - started, None, orjson.dumps(record).decode())
    return unit_ended(unit, job, ok)


_FEASIBILITY: dict[tuple[str, str], Feasibility] = {}
def scan_state(done: int = 0) -> dict[str, Any]:
    """A scan share's progress before its first guess."""
    return {"next": done, "guesses": None, "proven": True, "found": None, "failed_on": {}}


def run_scan_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                  max_attempts: int) -> dict[str, Any]:
    """Try a scan job's share of the position's guesses (:meth:`solver.feasible.Feasibility.scan`, the unit's
    ``g2``-th share), keeping after each guess settled how far the share has come as the unit's ``output`` (the
    next guess, how many there are, whether every failure so far is proven, the failures by response, the guess
    found); the unit's next attempt, on any worker, goes on from there (or from what the job was given, a stopped
    scan's).  Its value is 1 when a guess keeps the limit (its ``best_guess``), else 0, ``exact`` when every guess
    of the share was refuted for sure.  A unit told to stop (its lease lost, or its job answered by another share)
    stops after the guess it is trying."""
    jobs = JobStore(db)
    game = req.game_obj()
    doc = req.scan_doc
    shares = int(doc["shares"])
    share = (int(unit.g2 or 0), shares)
    key = share_key(SCAN_KEY, share)
    got = jobs.unit(unit.id)
    state = (orjson.loads(got[0].output) if got is not None and got[0].output
             else dict(doc["resume"].get(key) or scan_state()))
    feasibility = _FEASIBILITY.setdefault((game.spec, game.alphabet), Feasibility(game))
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: int(state.get("tried", 0)))
    history = req.turns()
    started = time.perf_counter()

    def report(step: ScanStep) -> None:
        if step.failed is None:
            state["found"] = game.format_code(step.guess)
        else:
            r, _size, sure = step.failed
            state["proven"] = bool(state["proven"] and sure)
            name = game.format_response(r)
            state["failed_on"][name] = state["failed_on"].get(name, 0) + 1
        state["next"], state["guesses"], state["last"] = step.index + 1, step.of, step.describe(game)
        state["tried"] = int(state.get("tried", 0)) + 1
        if not jobs.keep_output(unit.id, lease, orjson.dumps(state).decode()) or beat.lost.is_set():
            raise UnitStopped

    try:
        if state["found"] is None:
            verdict = feasibility.scan(game.candidates(history), int(doc["max_guesses"]) - len(history),
                                       doc.get("tries"), history, start=int(state["next"]), report=report, slot=share)
            state["proven"] = bool(state["proven"] and verdict.possible is not None)
    except Exception as err:  # told to stop (given back), or failed
        beat.stop()
        return unit_raised(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    found = None if state["found"] is None else game.parse_code(state["found"])
    ok = jobs.finish_unit(unit.id, lease, 1 if found is not None else 0, bool(state["proven"]), found is not None,
                          found, int(state.get("tried", 0)), time.perf_counter() - started, None,
                          orjson.dumps(state).decode())
    return unit_ended(unit, job, ok)


def run_atlas_unit(db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
                   max_attempts: int) -> dict[str, Any]:
    """Compute one game's atlas entry (:func:`service.atlas.compute`, the unit's ``g2``-th game of the job, from
    the entry the job was given), kept as the unit's ``output``; its value 1 when every number of the entry is
    exact (``exact`` then too), else 0.  Each search of the game is bounded by the job's budget, so a unit told to
    stop finishes the search it is in and is then given back."""
    jobs = JobStore(db)
    doc = req.atlas_doc
    spec = str(doc["games"][int(unit.g2 or 0)])
    beat = Heartbeat(jobs, unit.id, lease, heartbeat_s, lambda: 0)
    started = time.perf_counter()
    try:
        entry = atlas_keeping.compute(spec, float(doc["budget_s"]), (doc.get("known") or {}).get(spec))
    except Exception as err:
        beat.stop()
        return unit_failed(jobs, unit.id, lease, err, max_attempts)
    finally:
        beat.end()
    if beat.lost.is_set():
        return unit_given_back(jobs, unit.id, lease, max_attempts)
    done = atlas.finished(entry)
    ok = jobs.finish_unit(unit.id, lease, int(done), done, True, None, 0, time.perf_counter() - started, None,
                          orjson.dumps(entry).decode())
    return unit_ended(unit, job, ok)
