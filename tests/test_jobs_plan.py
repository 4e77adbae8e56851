"""Jobs cut into units and put back together give exactly the in-process search's answer.

These run the planner and the combination in this process (no database, no Dask), unit after unit,
with thresholds forced low so that every kind of unit and every β cut is exercised.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.jobs.compute import solve_locally
from service.jobs.plan import JobRequest, Plan, UnitState, aggregate, make_plan
from solver.game import Game, Turn
from solver.search import INF, Searcher, SolveOptions


def _direct(game: Game, history: list[Turn], options: SolveOptions) -> tuple[int | None, dict[int, int | None]]:
    r = Searcher(game, options).solve(history)
    return r.value, r.chain


@pytest.mark.parametrize("options", [SolveOptions("total", 5), SolveOptions("kmovers", 5),
                                     SolveOptions("total")], ids=["total5", "kmovers5", "total"])
def test_mastermind_as_units(mastermind: Game, options: SolveOptions) -> None:
    outcome, _, _ = solve_locally(JobRequest.of(mastermind, [], options))
    direct = Searcher(mastermind, options).solve()
    assert outcome.value == direct.value
    assert outcome.best_guess == direct.best_guess
    assert outcome.per_response == direct.per_response


def test_chain_runs_as_phases(mastermind: Game) -> None:
    """k-movers with depth_count: Φ_6 = 0, so the job goes on with 5-movers, like the search."""
    options = SolveOptions("kmovers", 6, depth_count=5)
    outcome, chain, _ = solve_locally(JobRequest.of(mastermind, [], options))
    direct = Searcher(mastermind, options).solve()
    assert chain == direct.chain == {6: 0, 5: 539}
    assert outcome.value == direct.value == 539


@pytest.mark.slow  # tens of seconds; the whole suite (CI) runs it
def test_hybrid_bulls_cows_position_as_units(bulls_cows: Game) -> None:
    history = bulls_cows.parse_history("0123 0.2, 1045 1.1")
    for options in (SolveOptions("kmovers", 7, mde=3), SolveOptions("total", mde=3, from_set_only=True),
                    SolveOptions("total", from_set_only=True)):
        outcome, _, _ = solve_locally(JobRequest.of(bulls_cows, history, options), small=1, split_min=2,
                                      max_units=10**6)
        assert outcome.value == _direct(bulls_cows, history, options)[0], options


def test_deep_positions_run_as_one_unit(bulls_cows: Game) -> None:
    """After two turns hundreds of first guesses are left, which would make thousands of units
    (4020 for this one) for a search of about a second: the plan is one root unit."""
    history = bulls_cows.parse_history("0123 1.0, 1245 0.1")
    req = JobRequest.of(bulls_cows, history, SolveOptions("total"))
    s = Searcher(bulls_cows, req.options(None))
    plan, units = make_plan(req, None, s)
    assert plan.mode == "root" and [u.kind for u in units] == ["root"] and units[0].size == 156
    outcome, _, _ = solve_locally(req)
    assert outcome.value == _direct(bulls_cows, history, SolveOptions("total"))[0] == 840


small_games = st.sampled_from(["3,4,1", "3,5,0", "2,6,1", "3,6,0", "4,4,1", "4,5,0"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=small_games, crit=st.sampled_from(["total", "kmovers"]), extra=st.integers(0, 2),
       secret=st.integers(0, 10**6), first=st.integers(0, 10**6), with_history=st.booleans(),
       split_min=st.sampled_from([2, 5, 1000]), small=st.sampled_from([1, 3]))
def test_units_agree_with_the_search(spec: str, crit: str, extra: int, secret: int, first: int,
                                     with_history: bool, split_min: int, small: int) -> None:
    """Any small game, criterion, limit and position: the combined units equal one whole search."""
    game = Game.from_spec(spec)
    history: list[Turn] = []
    if with_history:
        s, g = secret % game.size, first % game.size
        if s != g:
            history = [Turn(g, game.response(g, s))]
    worst = Searcher(game, SolveOptions("total")).solve(history)
    assert worst.value is not None
    k = len(history) + 2 + extra
    options = SolveOptions(crit, k if crit == "kmovers" or extra < 2 else None)
    outcome, _, _ = solve_locally(JobRequest.of(game, history, options), small=small, split_min=split_min)
    direct = Searcher(game, options).solve(history)
    assert outcome.value == direct.value
    if direct.value is not None:
        assert sum(v for v in outcome.per_response.values() if v is not None) == direct.value


def test_plan_orders_units_and_bounds_them(bulls_cows: Game) -> None:
    req = JobRequest.of(bulls_cows, [], SolveOptions("kmovers", 7))
    s = Searcher(bulls_cows, req.options(7))
    plan, units = make_plan(req, 7, s)
    assert plan.mode == "split" and [g["guess"] for g in plan.guesses] == [bulls_cows.parse_code("0123")]
    assert 14 < len(units) <= 256
    assert {u.kind for u in units} == {"part", "guess"}
    by_priority = sorted(units, key=lambda u: -u.priority)
    assert by_priority[0].size == max(u.size for u in units)  # the biggest response first
    # before anything ran: not finished, lower bound from the plan, no strategy found yet
    out = aggregate(plan, [UnitState(u.kind, u.g1, u.response, u.g2, "queued", u.lower_bound) for u in units])
    assert not out.finished and out.upper is None and 0 <= out.lower <= 50
    assert Plan.from_json(plan.to_json()) == plan


def test_request_round_trips_and_hashes(bulls_cows: Game) -> None:
    history = bulls_cows.parse_history("0123 0.1")
    a = JobRequest.of(bulls_cows, history, SolveOptions("total", mde=3, from_set_only=True))
    b = JobRequest.from_json(a.to_json())
    assert a == b and a.digest == b.digest
    assert a.digest != JobRequest.of(bulls_cows, history, SolveOptions("total", mde=2)).digest


def test_hybrid_seeds_bound_every_unit_and_change_nothing(mastermind: Game) -> None:
    """Seeds (a hybrid strategy's value of each part) become β from the first unit on, and the job's
    answer stays the exact search's."""
    options = SolveOptions("total", 5)
    req = JobRequest.of(mastermind, [], options)
    hybrid = Searcher(mastermind, SolveOptions("total", 5, mde=2))
    seeds: dict[tuple[int, int], int] = {}

    def seed(plan: Plan, _s: Searcher) -> None:
        for g in plan.guesses:
            g["seeds"] = {}
            for r in g["parts"]:
                v = hybrid.solve([Turn(int(g["guess"]), int(r))]).value
                if v is None:  # this first guess cannot finish within 5 guesses at all
                    continue
                g["seeds"][r] = v
                seeds[(int(g["guess"]), int(r))] = v

    outcome, _, _ = solve_locally(req, on_plan=seed, split_min=100)
    direct = Searcher(mastermind, options).solve()
    assert seeds and outcome.value == direct.value == 5626
    assert outcome.per_response == direct.per_response
    # before any unit ran, every open part already has β = its seed + 1
    plan, specs = make_plan(req, 5, Searcher(mastermind, options), split_min=100)
    seed(plan, hybrid)
    out = aggregate(plan, [UnitState(u.kind, u.g1, u.response, u.g2, "queued", u.lower_bound) for u in specs])
    assert out.bounds and all(beta == seeds[key] + 1 for key, beta in out.bounds.items() if key in seeds)
    assert all(beta > INF for key, beta in out.bounds.items() if key not in seeds)
