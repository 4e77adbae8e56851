"""The kinds of long work the campaigns ask (:mod:`service.campaign_specs`): a lower bound, a rollout's subtrees,
a polish, a records check, a position's search in shares, a feasibility scan, atlas games.  Each is planned from its
request alone (:mod:`service.jobs.campaign_plans`) and each of its units run by one function
(:mod:`service.jobs.campaign_units`); registered as entry points like every kind (:func:`service.jobs.kinds.kinds`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import orjson

from service.jobs.campaign_plans import atlas_plan, check_plan, polish_plan, rollout_plan, scan_plan, search_plan
from service.jobs.campaign_units import (
    run_atlas_unit,
    run_bound_unit,
    run_polish_unit,
    run_rollout_unit,
    run_root_search_unit,
    run_scan_unit,
)
from service.jobs.kinds import Finished, JobKind
from service.jobs.plan import JobRequest, Outcome, Plan, UnitSpec, bound_plan
from service.record_checks import part_record
from service.store.db import Database
from service.store.job_records import tree_digest
from service.store.jobs import Claim
from service.store.models import Job, JobUnit
from service.store.positions import PositionStore
from solver.game import Game
from solver.rollout import branch_responses
from solver.search import Searcher
from solver.vocabulary import Criterion

UnitRun = Callable[[Database, JobUnit, Job, JobRequest, str, float, int], dict[str, Any]]
"""A campaign unit's run: (database, unit, job, request, lease, heartbeat seconds, attempts allowed) → report."""


class SimpleKind(JobKind):
    """A kind planned from its request alone, each unit run by one function of :mod:`service.jobs.campaign_units`."""

    planner: ClassVar[Callable[[JobRequest], tuple[Plan, list[UnitSpec]]]]
    runner: ClassVar[UnitRun]

    def plan(self, req: JobRequest, k: int | None, searcher: Searcher | None,
             positions: PositionStore, job_id: str) -> tuple[Plan, list[UnitSpec]]:
        return type(self).planner(req)

    def run(self, db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
            max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
        return type(self).runner(db, unit, job, req, lease, heartbeat_s, max_attempts)


class BoundKind(SimpleKind):
    """A lower bound of a game's optimal total, refined some plies below its root (a lower-bound campaign)."""

    name = "bound"
    units = ("bound",)
    planner = bound_plan
    runner = run_bound_unit
    bounded = True

    def wants_beta(self, claim: Claim) -> bool:
        return True

    def beta(self, claim: Claim, outcome: Outcome) -> int | None:
        """A part's second guess stops at its part's cut, any other unit at the job's
        (:attr:`service.jobs.plan.Outcome.cut`)."""
        key = (claim.g1, claim.response)
        if claim.g1 is not None and claim.response is not None and key in outcome.bounds:
            return int(outcome.bounds[(claim.g1, claim.response)])
        return None if outcome.cut is None else int(outcome.cut)

    def result(self, f: Finished) -> dict[str, Any]:
        """The lower bound of the game's optimal total it proved (the least of its first guesses' bounds), what it
        was refined for, and its cost.  Every part's bound behind it stays in the ``bound_parts`` table
        (``bullscows campaign export`` writes them to a file)."""
        assert f.outcome.value is not None and f.req.depth is not None
        return {
            "value": f.outcome.value,
            "possible": True,
            "exact": False,
            "criterion": Criterion.TOTAL,
            "depth": f.req.depth,
            "target": f.req.target,
            "parts": [f.game.format_response(r) for r in f.req.parts],
            "best_guess": f.code(f.outcome.best_guess),
            "units": len(f.units),
            "work": sum(int(u.nodes) for u in f.units),
            "unit_seconds": f.unit_seconds,
            "seconds": round(f.seconds, 3),
            "candidates": f.game.size,
        }

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        return {"kind": self.name, "depth": req.depth, "target": req.target,
                **({"parts": [game.format_response(r) for r in req.parts]} if req.parts else {})}


class RolloutKind(SimpleKind):
    """A rollout tree's subtrees, one unit per response to its first guess."""

    name = "rollout"
    units = ("rollout",)
    planner = rollout_plan
    runner = run_rollout_unit

    def result(self, f: Finished) -> dict[str, Any]:
        """The subtrees it built (below its first guess, one per response but the skipped ones), their secrets and
        guesses (the first guess included); the subtrees themselves are its units' output, which ``bullscows
        campaign run`` writes to the campaign's progress file, where the tree is assembled."""
        return {
            "value": int(f.outcome.value or 0),
            "possible": True,
            "exact": False,
            "first_guess": f.code(f.outcome.best_guess),
            "units": len(f.units),
            "skipped": [f.game.format_response(r) for r in f.req.skip],
            "secrets": sum(int(u.nodes) for u in f.units),
            "unit_seconds": f.unit_seconds,
            "seconds": round(f.seconds, 3),
        }

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        return {"kind": self.name, "rollout": orjson.loads(req.rollout or "null"),
                "skip": [game.format_response(r) for r in req.skip]}


class PolishKind(SimpleKind):
    """A tree's middle-sized positions searched for cheaper subtrees, one unit per part of its first guess."""

    name = "polish"
    units = ("polish",)
    planner = polish_plan
    runner = run_polish_unit

    def result(self, f: Finished) -> dict[str, Any]:
        """The guesses it saved (its ``value``) and what its units did, summed; the positions themselves are in the
        ``polish_positions`` table, which the polish's command writes to its progress file and replays into the
        tree it judges."""
        counts: dict[str, int] = {}
        for u in f.units:
            for key, n in orjson.loads(u.output or "{}").items():
                counts[key] = counts.get(key, 0) + int(n)
        return {"value": int(f.outcome.value or 0), "possible": True, "exact": False, "units": len(f.units),
                **counts, "unit_seconds": f.unit_seconds, "seconds": round(f.seconds, 3)}

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        """Its parameters and the digest of its tree (not the tree)."""
        doc = req.polish_doc
        return {"kind": self.name,
                "polish": {"params": doc["params"], "settled": doc["settled"], "tree": tree_digest(str(doc["tree"]))}}


class _SharedKind(SimpleKind):
    """A kind whose units are shares of one position's guesses, each keeping its progress as it goes."""

    shared = True

    def doc(self, req: JobRequest) -> dict[str, Any]:
        """The request's own document (its shares among the rest)."""
        raise NotImplementedError

    def unit_view(self, game: Game, req: JobRequest, unit: JobUnit) -> dict[str, Any]:
        return {"second_guess": None, "share": f"{int(unit.g2 or 0) + 1}/{int(self.doc(req)['shares'])}"}


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


class _RootSearchKind(_SharedKind):
    """A position searched guess by guess, its progress kept
    (:func:`service.jobs.campaign_units.run_root_search_unit`)."""

    def run(self, db: Database, unit: JobUnit, job: Job, req: JobRequest, lease: str, heartbeat_s: float,
            max_attempts: int, checkpoint_s: float | None) -> dict[str, Any]:
        return run_root_search_unit(db, unit, job, req, lease, heartbeat_s, max_attempts, checkpoint_s)


class CheckKind(_RootSearchKind):
    """A published figure recomputed: the optimal total among the strategies that open with a given guess and then
    play only possible codes, one unit per part of that guess (or per share of a part's second guesses)."""

    name = "check"
    units = ("check",)
    planner = check_plan

    def doc(self, req: JobRequest) -> dict[str, Any]:
        return req.check_doc

    def result(self, f: Finished) -> dict[str, Any]:
        """The guesses of the parts it searched (its ``value``), each part's record, and the game's total (every
        part, those known before included, and the first guess's own secret) when it had every part."""
        doc, game = f.req.check_doc, f.game
        parts = check_parts_of(game, f.units, dict(doc.get("resume") or {}), int(doc["shares"]))
        known = {str(k): int(v) for k, v in dict(doc.get("known") or {}).items()}
        every = {game.format_response(r) for r in branch_responses(game, int(doc["first_guess"]))}
        total = 1 + sum(known.values()) + sum(int(p["value"]) for p in parts.values()) \
            if set(parts) | set(known) >= every else None
        return {"value": int(f.outcome.value or 0), "possible": True, "exact": True,
                "first_guess": game.format_code(int(doc["first_guess"])), "shares": int(doc["shares"]), "parts": parts,
                "known": known, "total": total, "units": len(f.units), "unit_seconds": f.unit_seconds,
                "seconds": round(f.seconds, 3)}

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        """Codes and responses by name, the progress it was given as the parts' names (not the searches' states)."""
        doc = req.check_doc
        return {"kind": self.name, "check": {
            "first_guess": game.format_code(int(doc["first_guess"])), "shares": int(doc["shares"]),
            "parts": None if doc.get("parts") is None else [game.format_response(int(r)) for r in doc["parts"]],
            "known": sorted(dict(doc.get("known") or {})), "resumed": sorted(dict(doc.get("resume") or {}))}}


class SearchKind(_RootSearchKind):
    """A position's exact value searched guess by guess from nothing, its progress kept (``solve --checkpoint``)."""

    name = "search"
    units = ("search",)
    planner = search_plan
    answers_position = True

    def doc(self, req: JobRequest) -> dict[str, Any]:
        return req.search_doc

    def result(self, f: Finished) -> dict[str, Any]:
        """The keys of ``POST /v1/solve``: the least value of its shares, with its guess and the value after each
        response to it (that share's: its best guess was searched whole)."""
        outcome = f.outcome
        best = next((u for u in f.units if u.value == outcome.value and u.best_guess == outcome.best_guess), None)
        per = {} if best is None else dict(orjson.loads(best.output or "{}").get("per_response") or {})
        return {"value": outcome.value, "possible": outcome.value is not None, "exact": True,
                "best_guess": f.code(outcome.best_guess), "per_response": per,
                "nodes": sum(int(u.nodes) for u in f.units), "seconds": round(f.seconds, 3),
                "candidates": f.plan.n, "movers": f.plan.k if f.req.criterion == Criterion.KMOVERS else None,
                "chain": {}, "shares": int(f.req.search_doc["shares"]), "unit_seconds": f.unit_seconds}

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        doc = req.search_doc
        return {"kind": self.name, "search": {"shares": doc["shares"], "upper_bound": doc.get("upper_bound"),
                                              "resumed": sorted(doc["resume"])}}


class ScanKind(_SharedKind):
    """Whether every candidate of a position can be found within a limit, its guesses tried in turn
    (``feasible --scan --progress``)."""

    name = "scan"
    units = ("scan",)
    planner = scan_plan
    runner = run_scan_unit

    def doc(self, req: JobRequest) -> dict[str, Any]:
        return req.scan_doc

    def result(self, f: Finished) -> dict[str, Any]:
        """The keys of ``feasible --json``: ``yes`` with the guess a share found keeping the limit; else ``no`` when
        every share refuted every guess for sure, ``unknown`` when some only within ``tries``."""
        doc, game = f.req.scan_doc, f.game
        proven = all(u.exact for u in f.units if u.status == "done")
        possible = True if f.outcome.value == 1 else (False if proven else None)
        return {"game": game.spec, "history": [game.format_turn(t) for t in f.req.turns()], "candidates": f.plan.n,
                "max_guesses": int(doc["max_guesses"]), "left": int(doc["max_guesses"]) - len(f.req.history),
                "possible": possible, "answer": {True: "yes", False: "no", None: "unknown"}[possible],
                "guess": f.code(f.outcome.best_guess), "tries": doc.get("tries"), "seconds": round(f.seconds, 3),
                "shares": int(doc["shares"]), "guesses_tried": sum(int(u.nodes) for u in f.units),
                "unit_seconds": f.unit_seconds}

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        return {"kind": self.name, "scan": {k: req.scan_doc.get(k) for k in ("max_guesses", "tries", "shares")}}


class AtlasKind(SimpleKind):
    """Some games' atlas entries computed, one unit per game (``atlas run``)."""

    name = "atlas"
    units = ("atlas",)
    planner = atlas_plan
    runner = run_atlas_unit

    def result(self, f: Finished) -> dict[str, Any]:
        """How many of its games' entries are exact; the entries themselves are its units' outputs, which
        ``atlas run`` writes to the atlas file."""
        doc = f.req.atlas_doc
        return {"value": int(f.outcome.value or 0), "possible": True, "exact": False, "games": list(doc["games"]),
                "budget_s": float(doc["budget_s"]), "units": len(f.units), "unit_seconds": f.unit_seconds,
                "seconds": round(f.seconds, 3)}

    def request_view(self, game: Game, req: JobRequest) -> dict[str, Any]:
        return {"kind": self.name, "atlas": {k: req.atlas_doc[k] for k in ("games", "budget_s")}}

    def unit_view(self, game: Game, req: JobRequest, unit: JobUnit) -> dict[str, Any]:
        """An atlas unit's ``g2`` is its game's place in the job's list."""
        return {"second_guess": None, "game": req.atlas_doc["games"][int(unit.g2 or 0)]}


BOUND = BoundKind()
ROLLOUT = RolloutKind()
POLISH = PolishKind()
CHECK = CheckKind()
SEARCH = SearchKind()
SCAN = ScanKind()
ATLAS = AtlasKind()
