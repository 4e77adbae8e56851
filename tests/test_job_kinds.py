"""The one list of job kinds: every request a job can carry has its kind there, and every unit a kind's plan makes
belongs to that kind, so that the runner, the worker and the bookkeeping, which only look kinds up, find each one."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.jobs.kinds import JobKind, kind_of, kinds, side_units, unit_kind, unit_kinds
from service.jobs.plan import JobRequest, UnitSpec
from service.store.db import Database
from service.store.migrate import upgrade
from service.store.positions import PositionStore
from solver.game import Game, Turn
from solver.search import Searcher, SolveOptions, optimal_tree
from solver.tree import to_compact

SMALL = Game(3, 3, repetition=True)
SOLVED = Game(4, 4, repetition=True)
"""A solve's game: big enough that its plan leaves parts to units (a small part is solved while planning)."""


def _requests() -> dict[str, JobRequest]:
    """One request of every kind, made by the constructors the commands and routes use."""
    tree = optimal_tree(SMALL, SolveOptions("total"))
    return {
        "solve": JobRequest.of(SOLVED, [], SolveOptions("total")),
        "tree": JobRequest.tree(SMALL, "minimax"),
        "bound": JobRequest.bound(SMALL, 2),
        "rollout": JobRequest.rollout_of(SMALL, {"width": 2, "max_guesses": None}),
        "polish": JobRequest.polish_of(SMALL, to_compact(tree), {"at_most": 20}),
        "check": JobRequest.check_of(SMALL, {"first_guess": 0, "shares": 1, "parts": None, "known": {},
                                             "resume": {}}),
        "search": JobRequest.search_of(SMALL, [Turn(0, 0)], SolveOptions("total"), 2, {}),
        "scan": JobRequest.scan_of(SMALL, [], {"max_guesses": 5, "tries": None, "shares": 2, "resume": {}}),
        "atlas": JobRequest.atlas_of(SMALL, {"games": [SMALL.spec, "2,2,1"], "budget_s": 1.0, "known": {}}),
    }


def test_every_request_has_its_kind_and_every_kind_a_request() -> None:
    requests = _requests()
    assert set(requests) == set(kinds())
    for name, req in requests.items():
        assert req.kind == name
        assert kind_of(req) is kinds()[name]
        assert kind_of(JobRequest.from_json(req.to_json())) is kinds()[name]  # as a worker reads it back


def test_each_unit_kind_belongs_to_one_job_kind() -> None:
    owners: dict[str, list[str]] = {}
    for kind in kinds().values():
        assert isinstance(kind, JobKind)
        for u in kind.units:
            owners.setdefault(u, []).append(kind.name)
    assert all(len(names) == 1 for names in owners.values()), owners
    assert set(unit_kinds()) == set(owners)
    assert set(side_units()) <= set(unit_kinds())
    assert side_units() == ("tree",)  # an optimal tree searches: it runs with the searches, not beside them
    with pytest.raises(KeyError):
        unit_kind("no-such-unit")


@pytest.mark.parametrize("name", ["solve", "tree", "bound", "search", "scan", "atlas"])
def test_a_kinds_plan_makes_only_its_own_units(name: str, tmp_path: Path) -> None:
    """Planned for real (the solve with a searcher of its game and a position store, as the worker plans it)."""
    url = f"sqlite:///{tmp_path / 'kinds.sqlite3'}"
    upgrade(url)
    db = Database(url)
    req = _requests()[name]
    kind = kind_of(req)
    searcher = Searcher(req.game_obj(), req.options()) if kind.needs_searcher else None
    plan, units = kind.plan(req, None, searcher, PositionStore(db), "job-1")
    assert units and all(isinstance(u, UnitSpec) for u in units)
    assert {u.kind for u in units} <= set(kind.units)
    assert all(unit_kind(u.kind) is kind for u in units)
    assert plan.n == req.game_obj().candidates(req.turns()).size


def test_every_campaign_kind_a_spec_may_name_is_installed() -> None:
    """The campaign runner names no kind: each is found through its entry point, and a spec file may name every
    one of them (a polish, asked by its command, has no spec file of its own)."""
    from service.campaign_kind import CampaignKind, JobCampaignKind
    from service.campaign_spec import FILE_KINDS
    from service.campaign_specs import kinds

    found = kinds()
    assert set(FILE_KINDS) <= set(found) and set(found) - set(FILE_KINDS) == {"polish"}
    assert all(isinstance(k, CampaignKind) and k.name == name for name, k in found.items())
    assert [name for name, k in found.items() if not isinstance(k, JobCampaignKind)] == ["steps"]
