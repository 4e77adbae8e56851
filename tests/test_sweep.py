"""Exact values by a sweep of the guesses, best refined bound first (:mod:`solver.sweep`): the same optimum as the
exact search, fail-soft bounds at or above a beta, within a guess limit, trees built from its choices, and a
polish that uses it."""

from __future__ import annotations

import pytest

from solver.game import Game
from solver.heuristics import get_strategy
from solver.polish import polish
from solver.search import Searcher, SolveOptions
from solver.sweep import Sweeper
from solver.tree import build_tree, strategy_chooser

CASES = [("4,6,0", "", None), ("4,7,0", "0123 0.2", None), ("4,6,1", "0011 0.1", None), ("4,6,1", "0012 1.0", 5),
         ("3,6,1", "", None)]


@pytest.mark.parametrize(("spec", "history", "limit"), CASES)
def test_a_sweep_finds_the_exact_searchs_optimum(spec: str, history: str, limit: int | None) -> None:
    """Sets above 12 candidates are swept (nested), the rest searched: the value is the search's optimum, and a
    beta at the optimum gives a fail-soft bound at least as high, one above it the optimum itself."""
    game = Game.from_spec(spec)
    turns = game.parse_history(history) if history else []
    reference = Searcher(game, SolveOptions("total", limit)).solve(turns)
    assert reference.value is not None
    sweeper = Sweeper(game, max_guesses=limit, kernel_at_most=12)
    got = sweeper.value(turns)
    assert (got.value, got.exact) == (reference.value, True) and got.guesses > 0
    assert got.guess is not None
    at = Sweeper(game, max_guesses=limit, kernel_at_most=12).value(turns, beta=reference.value)
    assert at.exact is False and at.value is not None and at.value >= reference.value and at.guess is None
    above = Sweeper(game, max_guesses=limit, kernel_at_most=12).value(turns, beta=reference.value + 1)
    assert (above.value, above.exact) == (reference.value, True)
    # the tree of its choices plays every candidate in that many guesses (the history's counted)
    tree = build_tree(game, sweeper.chooser(), turns)
    stats = tree.stats()
    assert stats.total == reference.value
    assert limit is None or stats.worst_case <= limit


def test_a_limit_no_strategy_keeps_is_told_and_a_deadline_cuts() -> None:
    game = Game.from_spec("4,6,1")
    assert Sweeper(game, max_guesses=2, kernel_at_most=12).value([]).value is None
    cut = Sweeper(game, kernel_at_most=12).value([], seconds=0.0)
    assert cut.cut and cut.value is None and not cut.exact


def test_a_polish_with_a_sweeper_lowers_a_one_step_tree_to_what_the_search_alone_finds() -> None:
    """The sweep replaces the search above its size; both polish Mastermind's entropy tree to the same total,
    each tree a strategy through every secret."""
    game = Game.from_spec("4,6,0")
    totals = []
    for sweeper in (None, Sweeper(game, kernel_at_most=20)):
        tree = build_tree(game, strategy_chooser(game, get_strategy("most-parts")))
        before = tree.stats().total
        searcher = sweeper.searcher if sweeper is not None else Searcher(game, SolveOptions("total"))
        report = polish(tree, searcher, above=0, at_most=game.size, budget_s=120, sweeper=sweeper)
        assert report.improved == 1 and report.gained == before - tree.stats().total
        assert all(tree.play(secret)[-1] == secret for secret in range(game.size))
        totals.append(tree.stats().total)
    assert totals[0] == totals[1] == Searcher(game, SolveOptions("total")).solve([]).value


def test_a_polish_refuses_a_sweeper_of_another_guess_limit() -> None:
    game = Game.from_spec("4,6,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("most-parts")))
    sweeper = Sweeper(game, kernel_at_most=20)
    with pytest.raises(ValueError, match="same guess limit"):
        polish(tree, sweeper.searcher, above=0, at_most=10, budget_s=1, max_guesses=5, sweeper=sweeper)
