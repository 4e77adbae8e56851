"""The kinds of long work: one class per kind, registered once as an entry point (:func:`kinds`), from which
the job engine learns everything it does with a job of that kind.  This module holds the base and the kinds the
service itself asks (a position solved, a strategy's tree); the campaigns' kinds are in
:mod:`service.jobs.campaign_kinds`.

A kind says how a job of it is cut into units (:meth:`JobKind.plan`), how one of its units runs in a worker
(:meth:`JobKind.run`), the β a claimed unit starts with (:meth:`JobKind.beta`), the answer of a finished job
(:meth:`JobKind.result`) and how its request and units read in a job's view (:meth:`JobKind.request_view`,
:meth:`JobKind.unit_view`).  The runner (:mod:`service.jobs.runner`), the bookkeeping (:mod:`service.jobs.manage`)
and the worker (:mod:`service.jobs.coordinator`) only look kinds up here, by a job's request
(:func:`kind_of`) or by a unit's kind (:func:`unit_kind`): a new kind of long work is a new class and its entry
point, not a branch in each of them.

Combining a phase's units is :func:`service.jobs.plan.aggregate`'s, by the mode its plan was stored with.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

from service.jobs.plan import JobRequest, Outcome, Plan, UnitSpec, make_plan, tree_plan
from service.jobs.unit_runs import run_search_unit, run_tree_unit
from service.plugins import installed
from service.store.db import Database
from service.store.jobs import Claim
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from solver import kernels
from solver.game import Game
from solver.search import INF, Searcher
from solver.table import MMAX
from solver.vocabulary import Criterion


@dataclass(frozen=True)
class Finished:
    """What a finished job's answer is made of (:meth:`JobKind.result`)."""

    game: Game
    req: JobRequest
    plan: Plan
    """The last phase's plan."""
    outcome: Outcome
    """The last phase's combined state."""
    units: list[JobUnit]
    """The last phase's units."""
    seconds: float
    """Wall-clock seconds since the job started."""
    chain: dict[str, int | None]
    """A k-movers chain's value per depth limit (a solve's)."""
    nodes: int
    """Nodes searched by the whole job, planning and earlier phases included."""

    @property
    def unit_seconds(self) -> float:
        """The seconds its units ran, summed (rounded for a view)."""
        return round(sum(float(u.seconds) for u in self.units), 1)

    def code(self, code: int | None) -> str | None:
        return None if code is None else self.game.format_code(code)


class JobKind:
    """One kind of long work.  Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    """The kind of a job's request (:attr:`service.store.job_records.JobRequest.kind`)."""
    units: ClassVar[tuple[str, ...]]
    """The kinds of the units its plans make (each belongs to one job kind)."""
    side_units: ClassVar[tuple[str, ...]] = ()
    """Units a worker runs beside its search units, in its own process (see :mod:`service.jobs.coordinator`)."""
    needs_searcher: ClassVar[bool] = False
    """Its plan asks a searcher of its game, which the worker keeps warm between jobs."""
    bounded: ClassVar[bool] = False
    """While it runs, its units' bounds bound its answer from below (a job's view gives that lower bound)."""
    answers_position: ClassVar[bool] = False
    """Its answer is a position's value (or a tree's total): the view's best value once done."""
    shared: ClassVar[bool] = False
    """A unit's ``g2`` is its share's number (of its position's guesses), not a second guess."""
    counts_secrets: ClassVar[bool] = False
    """A running unit's ``nodes`` count the secrets it has placed (its expected cost: the secrets), not nodes."""

    def plan(self, req: JobRequest, k: int | None, searcher: Searcher | None,
             positions: PositionStore, job_id: str) -> tuple[Plan, list[UnitSpec]]:
        """The plan and units of the phase with depth limit ``k``."""
        raise NotImplementedError

    def run(self, db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
            max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
        """Run one claimed unit to its end (or until told to stop); a small report of how it ended."""
        raise NotImplementedError

    def wants_beta(self, claim: Claim) -> bool:
        """Whether a claimed unit may start with a β (the job's state is read only then)."""
        return False

    def beta(self, claim: Claim, outcome: Outcome) -> int | None:
        """The β a claimed unit starts with, from its job's current state."""
        return None

    def result(self, f: Finished) -> dict[str, Any]:
        """A finished job's answer."""
        raise NotImplementedError

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        """What a job's view adds to its request's common fields."""
        return {}

    def unit_view(self, game: Game, req: JobRequest, unit: JobUnit) -> dict[str, Any]:
        """How a unit's second guess reads in a job's view (with what else the kind adds)."""
        return {"second_guess": None if unit.g2 is None else game.format_code(unit.g2)}


class SolveKind(JobKind):
    """A position's value under a criterion (``POST /v1/solve``, ``bullscows campaign``): the article's cut, first
    guesses × responses and the biggest parts by second guess, each unit bounded by what its siblings proved."""

    name = "solve"
    units = ("root", "part", "guess")
    needs_searcher = True
    bounded = True
    answers_position = True

    def plan(self, req: JobRequest, k: int | None, searcher: Searcher | None,
             positions: PositionStore, job_id: str) -> tuple[Plan, list[UnitSpec]]:
        assert searcher is not None
        plan, units = make_plan(req, k, searcher)
        positions.save_entries([e for t in searcher.tables for e in t.export()], source=f"job:{job_id}")
        if req.mde is None:
            seed_plan(plan, req, searcher, positions)
        return plan, units

    def run(self, db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
            max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
        return run_search_unit(db, unit, job, req, lease, heartbeat_s, max_attempts, checkpoint_s)

    def wants_beta(self, claim: Claim) -> bool:
        return claim.kind != "root" and claim.g1 is not None and claim.response is not None

    def beta(self, claim: Claim, outcome: Outcome) -> int | None:
        assert claim.g1 is not None and claim.response is not None
        beta = outcome.bounds.get((claim.g1, claim.response))
        return None if beta is None or beta > INF else int(beta)

    def result(self, f: Finished) -> dict[str, Any]:
        """The keys of ``POST /v1/solve``."""
        value = f.outcome.value
        return {
            "value": value,
            "possible": value is not None,
            "exact": True,
            "best_guess": f.code(f.outcome.best_guess),
            "per_response": {f.game.format_response(r): v for r, v in sorted(f.outcome.per_response.items())},
            "nodes": f.nodes,
            "seconds": round(f.seconds, 3),
            "candidates": f.plan.n,
            "movers": f.plan.k if f.req.criterion == Criterion.KMOVERS else None,
            "chain": f.chain,
        }


class TreeKind(JobKind):
    """A strategy's whole tree from a position (``GET /v1/strategies/…`` on a miss, ``bullscows tree --job``): one
    unit, run beside the searches when its strategy is a one-step one."""

    name = "tree"
    units = ("tree", "opt-tree")
    side_units = ("tree",)
    answers_position = True
    counts_secrets = True

    def plan(self, req: JobRequest, k: int | None, searcher: Searcher | None,
             positions: PositionStore, job_id: str) -> tuple[Plan, list[UnitSpec]]:
        return tree_plan(req)

    def run(self, db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
            max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
        return run_tree_unit(db, unit, job, req, lease, heartbeat_s, max_attempts)

    def result(self, f: Finished) -> dict[str, Any]:
        """The tree's statistics from its unit (whose ``per_response`` is the tree's histogram of game lengths, see
        :func:`service.jobs.unit_runs.run_tree_unit`), and where to read it."""
        histogram = {int(k): int(v or 0) for k, v in f.outcome.per_response.items()}
        secrets = sum(histogram.values())
        total = sum(k * v for k, v in histogram.items())
        req = f.req
        assert req.strategy is not None
        return {
            "strategy": req.strategy,
            "value": total,
            "possible": True,
            "exact": True,
            "best_guess": f.code(f.outcome.best_guess),
            "secrets": secrets,
            "average": round(total / secrets, 6) if secrets else None,
            "worst_case": max(histogram, default=0),
            "histogram": {str(k): v for k, v in sorted(histogram.items())},
            "nodes": sum(int(u.nodes) for u in f.units),
            "seconds": round(f.seconds, 3),
            "candidates": secrets,
            "statistics": f"/v1/strategies/{req.game}/{req.strategy}"
                          + ("" if req.max_guesses is None else f"?max_guesses={req.max_guesses}"),
        }


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


SOLVE = SolveKind()
TREE = TreeKind()

JOB_KIND_GROUP = "bullscows.job_kinds"
"""The entry point group that names every kind of long work: ``name = "module:INSTANCE"`` (``pyproject.toml``)."""


@functools.cache
def kinds() -> dict[str, JobKind]:
    """Every kind of long work installed, by name: the one list the engine reads (each found through
    :data:`JOB_KIND_GROUP`, so that the engine names none of the campaigns' kinds and imports none of their modules
    before a job of theirs is run or shown)."""
    found = installed(JOB_KIND_GROUP, JobKind, "job kind")
    owners = [u for k in found.values() for u in k.units]
    if len(set(owners)) != len(owners):
        raise RuntimeError("a unit kind belongs to one job kind")
    return found


@functools.cache
def unit_kinds() -> dict[str, JobKind]:
    """The job kind each kind of unit belongs to."""
    return {u: k for k in kinds().values() for u in k.units}


@functools.cache
def side_units() -> tuple[str, ...]:
    """The units a worker runs on its side lane (see :attr:`JobKind.side_units`)."""
    return tuple(u for k in kinds().values() for u in k.side_units)


def kind_of(req: JobRequest) -> JobKind:
    """The kind of the job asking ``req``.

    :raises KeyError: no kind of that name is installed."""
    return kinds()[req.kind]


def unit_kind(kind: str) -> JobKind:
    """The job kind a unit of kind ``kind`` belongs to."""
    return unit_kinds()[kind]
