"""Job bookkeeping shared by the worker, the HTTP API and the CLI: planning a phase, refreshing a
job from its units (skips, β, completion, the next phase of a chain) and the public view of a job.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
import structlog

from service.jobs.campaign_plans import atlas_plan, check_plan, polish_plan, rollout_plan, scan_plan, search_plan
from service.jobs.compute import next_phase, phase_entries
from service.jobs.plan import JobRequest, Outcome, Plan, aggregate, bound_plan, make_plan, tree_plan
from service.record_checks import part_record
from service.store.db import StorageError
from service.store.job_records import tree_digest
from service.store.jobs import JobStore, as_aware
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from solver import kernels
from solver.game import Game, Turn
from solver.rollout import branch_responses
from solver.search import INF, Searcher, SolveOptions
from solver.table import MMAX
from solver.vocabulary import Criterion, criterion_of


def plan_job(jobs: JobStore, positions: PositionStore, job: Job, worker: str, searcher: Searcher | None) -> bool:
    """Cut the job's current phase into units and start it (the caller holds it in ``planning``).
    A solve needs a searcher of its game (it is asked the phase's question call by call); the other kinds
    need none."""
    req = JobRequest.from_json(job.request)
    if req.kind != "solve":
        planner = {"tree": tree_plan, "bound": bound_plan, "rollout": rollout_plan, "polish": polish_plan,
                   "check": check_plan, "search": search_plan, "scan": scan_plan, "atlas": atlas_plan}[req.kind]
        plan, specs = planner(req)
        return jobs.save_plan(job.id, worker, job.phase, plan.to_json(), specs, 0)
    assert searcher is not None
    k = job.phase or None
    plan, units = make_plan(req, k, searcher)
    positions.save_entries([e for t in searcher.tables for e in t.export()], source=f"job:{job.id}")
    if req.mde is None:
        seed_plan(plan, req, searcher, positions)
    return jobs.save_plan(job.id, worker, job.phase, plan.to_json(), units, plan.nodes)


def seed_plan(plan: Plan, req: JobRequest, searcher: Searcher, positions: PositionStore) -> int:
    """Give the parts of an exact plan the best value a hybrid strategy already proved for them.

    A hybrid (fso, avg45, crush45, ...) is a real strategy, so its exact value of a position bounds
    the optimum from above: every second guess of that part that cannot beat it is cut at once
    instead of after the best sibling is proven (the article runs crush45 before crush5 and exact
    for this).  The seeds go into the plan (``seeds`` {response: game-level value} per first guess),
    which :func:`service.jobs.plan.aggregate` turns into β.  Returns how many parts were seeded.
    """
    if plan.mode != "split":
        return 0
    game = searcher.game
    opts = req.options(plan.k)
    hybrids = positions.hybrid_questions(opts.table_key(game))
    if not hybrids:
        return 0
    total = opts.criterion == Criterion.TOTAL
    turn = plan.turn + 1
    m = MMAX if plan.k is None else plan.k - turn + 1
    cands = game.candidates(req.turns())
    a = searcher.arrays
    seeded = 0
    for g in plan.guesses:
        if not g["parts"]:
            continue
        order, starts = kernels.split(*a.kernel_args(), int(g["guess"]), cands, game.n_responses)
        sets = {int(r): tuple(int(c) for c in order[starts[int(r)]:starts[int(r) + 1]]) for r in g["parts"]}
        best: dict[str, int] = {}
        for key in hybrids:
            found = positions.lookup(key, sets.values(), m, turn)
            for r, codes in sets.items():
                e = found.get(codes)
                if e is None or not e.exact or e.value is None:
                    continue
                value = e.value + (len(codes) * plan.turn if total else 0)
                if str(r) not in best or value < best[str(r)]:
                    best[str(r)] = value
        if best:
            g["seeds"] = best
            seeded += len(best)
    return seeded


def outcome_of(jobs: JobStore, job: Job, units: list[JobUnit] | None = None) -> tuple[Plan, Outcome, list[JobUnit]]:
    """The current phase's plan, its combined state, and its units."""
    assert job.plan is not None
    plan = Plan.from_json(job.plan)
    units = jobs.units(job.id, job.phase) if units is None else units
    target = JobRequest.from_json(job.request).target
    return plan, aggregate(plan, [jobs.state_of(u) for u in units], target), units


def result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, chain: dict[str, int | None],
              nodes: int, seconds: float) -> dict[str, Any]:
    """The job's answer, with the keys of ``POST /v1/solve``."""
    value = outcome.value
    return {
        "value": value,
        "possible": value is not None,
        "exact": True,
        "best_guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
        "per_response": {game.format_response(r): v for r, v in sorted(outcome.per_response.items())},
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "candidates": plan.n,
        "movers": plan.k if req.criterion == Criterion.KMOVERS else None,
        "chain": chain,
    }


def tree_result_of(game: Game, req: JobRequest, outcome: Outcome, nodes: int, seconds: float) -> dict[str, Any]:
    """A tree job's answer: the tree's statistics from its unit (whose ``per_response`` is the tree's
    histogram of game lengths, see :func:`service.jobs.runner.run_tree_unit`), and where to read it."""
    histogram = {int(k): int(v or 0) for k, v in outcome.per_response.items()}
    secrets = sum(histogram.values())
    total = sum(k * v for k, v in histogram.items())
    assert req.strategy is not None
    return {
        "strategy": req.strategy,
        "value": total,
        "possible": True,
        "exact": True,
        "best_guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
        "secrets": secrets,
        "average": round(total / secrets, 6) if secrets else None,
        "worst_case": max(histogram, default=0),
        "histogram": {str(k): v for k, v in sorted(histogram.items())},
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "candidates": secrets,
        "statistics": f"/v1/strategies/{req.game}/{req.strategy}"
                      + ("" if req.max_guesses is None else f"?max_guesses={req.max_guesses}"),
    }


def bound_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                    seconds: float) -> dict[str, Any]:
    """A bound job's answer: the lower bound of the game's optimal total it proved (the least of its first
    guesses' bounds), what it was refined for, and its cost.  Every part's bound behind it stays in the
    ``bound_parts`` table (``bullscows campaign export`` writes them to a file)."""
    assert outcome.value is not None and req.depth is not None
    return {
        "value": outcome.value,
        "possible": True,
        "exact": False,
        "criterion": Criterion.TOTAL,
        "depth": req.depth,
        "target": req.target,
        "parts": [game.format_response(r) for r in req.parts],
        "best_guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
        "units": len(units),
        "work": sum(int(u.nodes) for u in units),
        "unit_seconds": round(sum(float(u.seconds) for u in units), 1),
        "seconds": round(seconds, 3),
        "candidates": game.size,
    }


def rollout_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                      seconds: float) -> dict[str, Any]:
    """A rollout job's answer: the subtrees it built (below its first guess, one per response but the skipped
    ones), their secrets and guesses (the first guess included); the subtrees themselves are its units' output,
    which ``bullscows campaign run`` writes to the campaign's progress file, where the tree is assembled."""
    return {
        "value": int(outcome.value or 0),
        "possible": True,
        "exact": False,
        "first_guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
        "units": len(units),
        "skipped": [game.format_response(r) for r in req.skip],
        "secrets": sum(int(u.nodes) for u in units),
        "unit_seconds": round(sum(float(u.seconds) for u in units), 1),
        "seconds": round(seconds, 3),
    }


def polish_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                     seconds: float) -> dict[str, Any]:
    """A polish job's answer: the guesses it saved (its ``value``) and what its units did, summed; the positions
    themselves are in the ``polish_positions`` table, which the polish's command writes to its progress file and
    replays into the tree it judges."""
    counts: dict[str, int] = {}
    for u in units:
        for key, n in orjson.loads(u.output or "{}").items():
            counts[key] = counts.get(key, 0) + int(n)
    return {"value": int(outcome.value or 0), "possible": True, "exact": False, "units": len(units), **counts,
            "unit_seconds": round(sum(float(u.seconds) for u in units), 1), "seconds": round(seconds, 3)}


def check_parts_of(game: Game, units: list[JobUnit], resume: dict[str, dict[str, Any]],
                   shares: int) -> dict[str, dict[str, Any]]:
    """The parts a check job's units have finished (every share of them done), by formatted response, as the
    check records them (:func:`service.record_checks.part_record`; a shared part's time counts the whole search
    ``resume`` kept of it, which its shares went on from)."""
    by_part: dict[int, list[JobUnit]] = {}
    for u in units:
        by_part.setdefault(int(u.response or 0), []).append(u)
    out = {}
    for r, us in sorted(by_part.items()):
        if all(u.status == "done" for u in us):
            name = game.format_response(r)
            out[name] = part_record([orjson.loads(u.output or "{}") for u in us],
                                    resume.get(name) if shares > 1 else None)
    return out


def check_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                    seconds: float) -> dict[str, Any]:
    """A check job's answer: the guesses of the parts it searched (its ``value``), each part's record, and the
    game's total (every part, those known before included, and the first guess's own secret) when it had every
    part."""
    doc = req.check_doc
    parts = check_parts_of(game, units, dict(doc.get("resume") or {}), int(doc["shares"]))
    known = {str(k): int(v) for k, v in dict(doc.get("known") or {}).items()}
    every = {game.format_response(r) for r in branch_responses(game, int(doc["first_guess"]))}
    total = 1 + sum(known.values()) + sum(int(p["value"]) for p in parts.values()) \
        if set(parts) | set(known) >= every else None
    return {"value": int(outcome.value or 0), "possible": True, "exact": True,
            "first_guess": game.format_code(int(doc["first_guess"])), "shares": int(doc["shares"]), "parts": parts,
            "known": known, "total": total, "units": len(units),
            "unit_seconds": round(sum(float(u.seconds) for u in units), 1), "seconds": round(seconds, 3)}


def search_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                     seconds: float) -> dict[str, Any]:
    """A search job's answer, with the keys of ``POST /v1/solve``: the least value of its shares, with its guess
    and the value after each response to it (that share's: its best guess was searched whole)."""
    best = next((u for u in units if u.value == outcome.value and u.best_guess == outcome.best_guess), None)
    per = {} if best is None else dict(orjson.loads(best.output or "{}").get("per_response") or {})
    return {"value": outcome.value, "possible": outcome.value is not None, "exact": True,
            "best_guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
            "per_response": per, "nodes": sum(int(u.nodes) for u in units), "seconds": round(seconds, 3),
            "candidates": plan.n, "movers": plan.k if req.criterion == Criterion.KMOVERS else None, "chain": {},
            "shares": int(req.search_doc["shares"]),
            "unit_seconds": round(sum(float(u.seconds) for u in units), 1)}


def scan_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                   seconds: float) -> dict[str, Any]:
    """A scan job's answer, with the keys of ``feasible --json``: ``yes`` with the guess a share found keeping the
    limit; else ``no`` when every share refuted every guess for sure, ``unknown`` when some only within ``tries``."""
    doc = req.scan_doc
    proven = all(u.exact for u in units if u.status == "done")
    possible = True if outcome.value == 1 else (False if proven else None)
    return {"game": game.spec, "history": [game.format_turn(t) for t in req.turns()], "candidates": plan.n,
            "max_guesses": int(doc["max_guesses"]), "left": int(doc["max_guesses"]) - len(req.history),
            "possible": possible, "answer": {True: "yes", False: "no", None: "unknown"}[possible],
            "guess": None if outcome.best_guess is None else game.format_code(outcome.best_guess),
            "tries": doc.get("tries"), "seconds": round(seconds, 3), "shares": int(doc["shares"]),
            "guesses_tried": sum(int(u.nodes) for u in units),
            "unit_seconds": round(sum(float(u.seconds) for u in units), 1)}


def atlas_result_of(game: Game, req: JobRequest, plan: Plan, outcome: Outcome, units: list[JobUnit],
                    seconds: float) -> dict[str, Any]:
    """An atlas job's answer: how many of its games' entries are exact; the entries themselves are its units'
    outputs, which ``atlas run`` writes to the atlas file."""
    return {"value": int(outcome.value or 0), "possible": True, "exact": False, "games": list(req.atlas_doc["games"]),
            "budget_s": float(req.atlas_doc["budget_s"]), "units": len(units),
            "unit_seconds": round(sum(float(u.seconds) for u in units), 1), "seconds": round(seconds, 3)}


CAMPAIGN_RESULTS: dict[str, Callable[[Game, JobRequest, Plan, Outcome, list[JobUnit], float], dict[str, Any]]] = {
    "bound": bound_result_of, "rollout": rollout_result_of, "polish": polish_result_of, "check": check_result_of,
    "search": search_result_of, "scan": scan_result_of, "atlas": atlas_result_of}
"""A finished campaign job's answer, by its kind (a solve's is :func:`result_of`, a tree's :func:`tree_result_of`)."""


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
    if req.kind in CAMPAIGN_RESULTS:
        result = CAMPAIGN_RESULTS[req.kind](game, req, plan, outcome, units, seconds)
    elif req.is_tree:
        result = tree_result_of(game, req, outcome, unit_nodes, seconds)
    else:
        result = result_of(game, req, plan, outcome, chain, int(job.nodes) + unit_nodes, seconds)
    jobs.finish_job(job.id, orjson.dumps(result).decode(), unit_nodes)
    return "done"


def _polish_view(req: JobRequest) -> dict[str, Any]:
    """A polish job's request as people read it: its parameters and the digest of its tree (not the tree)."""
    doc = req.polish_doc
    return {"params": doc["params"], "settled": doc["settled"], "tree": tree_digest(str(doc["tree"]))}


def _check_view(game: Game, req: JobRequest) -> dict[str, Any]:
    """A check job's request as people read it: codes and responses by name, the progress it was given as the
    parts' names (not the searches' states)."""
    doc = req.check_doc
    return {"first_guess": game.format_code(int(doc["first_guess"])), "shares": int(doc["shares"]),
            "parts": None if doc.get("parts") is None else [game.format_response(int(r)) for r in doc["parts"]],
            "known": sorted(dict(doc.get("known") or {})), "resumed": sorted(dict(doc.get("resume") or {}))}


UNBOUNDED_KINDS = ("rollout", "polish", "check", "search", "scan", "atlas")
"""Jobs whose running units give no lower bound of what they compute (a position's value, a count)."""
SHARED_KINDS = ("check", "search", "scan")
"""Units whose ``g2`` is their share's number, not a second guess (an atlas unit's is its game's place)."""


def _shares(req: JobRequest) -> int:
    """How many shares a check, search or scan job cuts its positions into."""
    doc = req.check_doc if req.kind == "check" else req.search_doc if req.kind == "search" else req.scan_doc
    return int(doc["shares"])


def _share_done(u: JobUnit) -> float:
    """How much of a running check, search or scan unit is done, by the progress it keeps (0 for other units):
    the guesses of its position tried, of how many."""
    if u.kind not in SHARED_KINDS or not u.output:
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
    game = req.game_obj()
    out: dict[str, Any] = {
        "id": job.id,
        "status": job.status,
        "request": {
            "game": req.game if req.alphabet is None else {"spec": req.game, "alphabet": req.alphabet},
            "history": [game.format_turn(t) for t in req.turns()],
            "criterion": req.criterion, "max_guesses": req.max_guesses, "depth_count": req.depth_count,
            "mde": req.mde, "from_set_only": req.from_set_only, "strategy": req.strategy,
            **({"kind": "bound", "depth": req.depth, "target": req.target,
                **({"parts": [game.format_response(r) for r in req.parts]} if req.parts else {})}
               if req.kind == "bound" else {}),
            **({"kind": "rollout", "rollout": orjson.loads(req.rollout or "null"),
                "skip": [game.format_response(r) for r in req.skip]} if req.kind == "rollout" else {}),
            **({"kind": "polish", "polish": _polish_view(req)} if req.kind == "polish" else {}),
            **({"kind": "check", "check": _check_view(game, req)} if req.kind == "check" else {}),
            **({"kind": "search", "search": {"shares": req.search_doc["shares"],
                                             "upper_bound": req.search_doc.get("upper_bound"),
                                             "resumed": sorted(req.search_doc["resume"])}}
               if req.kind == "search" else {}),
            **({"kind": "scan", "scan": {k: req.scan_doc.get(k) for k in ("max_guesses", "tries", "shares")}}
               if req.kind == "scan" else {}),
            **({"kind": "atlas", "atlas": {k: req.atlas_doc[k] for k in ("games", "budget_s")}}
               if req.kind == "atlas" else {}),
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
        if req.kind in ("bound", "rollout", "polish", "check", "scan", "atlas"):  # a bound, a part...: no position's
            progress.update(lower_bound=out["result"]["value"] if req.kind == "bound" else None, fraction=1.0)
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
            lower_bound=None if outcome.lower >= INF or req.kind in UNBOUNDED_KINDS else outcome.lower,
        )
        cost_all = sum(int(u.expected_cost) for u in phase_units if u.status != "cancelled")
        if req.is_tree:
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
            "second_guess": None if u.g2 is None or u.kind in (*SHARED_KINDS, "atlas") else game.format_code(u.g2),
            **({"share": f"{int(u.g2 or 0) + 1}/{_shares(req)}"} if u.kind in SHARED_KINDS else {}),
            **({"game": req.atlas_doc["games"][int(u.g2 or 0)]} if u.kind == "atlas" else {}),
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
