"""Rollout over a hybrid (:mod:`solver.rollout`): a real strategy, never worse than the hybrid it rolls out,
never better than the optimum."""

from __future__ import annotations

import pytest

from solver.atlas import hybrid_tree
from solver.game import Game
from solver.rollout import rollout_tree
from solver.search import Searcher, SolveOptions


@pytest.mark.parametrize(("spec", "exact_at_most"), [("4,6,1", 5), ("3,5,0", 3), ("4,5,1", 4), ("3,6,1", 6)])
def test_rollout_lies_between_the_optimum_and_its_hybrid(spec: str, exact_at_most: int) -> None:
    game = Game.from_spec(spec)
    searcher = Searcher(game, SolveOptions("total"))
    optimum = searcher.solve(()).value
    hybrid = hybrid_tree(game, "entropy", exact_at_most, searcher=searcher).stats()
    tree = rollout_tree(game, "entropy", exact_at_most, width=3, levels=3, min_size=exact_at_most, searcher=searcher)
    stats = tree.stats()
    assert optimum <= stats.total <= hybrid.total
    assert sum(stats.histogram.values()) == game.size
    assert all(tree.play(s)[-1] == s for s in range(game.size))  # every secret is solved


def test_rollout_improves_mastermind_and_leaves_the_root_when_asked() -> None:
    """On Mastermind the entropy hybrid with exact play at five candidates or fewer needs 5722 guesses;
    trying four guesses at the first three moves finds a better strategy.  From guess 2 on, the root is
    the hybrid's own."""
    game = Game.from_spec("mastermind")
    hybrid = hybrid_tree(game, "entropy", 5)
    full = rollout_tree(game, "entropy", 5, width=4, levels=3, min_size=5)
    later = rollout_tree(game, "entropy", 5, width=4, levels=3, min_size=5, from_turn=2)
    assert full.stats().total < hybrid.stats().total
    assert later.root.guess == hybrid.root.guess and later.stats().total <= hybrid.stats().total


def test_rollout_puts_a_depth_limit_first() -> None:
    """Mastermind's entropy hybrid needs 6 guesses for some secrets; rolled out within 5, the tree keeps every
    secret within 5 (an optimal strategy within 5 exists: 5626)."""
    game = Game.from_spec("mastermind")
    assert hybrid_tree(game, "entropy", 5).stats().worst_case == 6
    tree = rollout_tree(game, "entropy", 5, width=4, levels=3, min_size=5, max_guesses=5)
    stats = tree.stats()
    assert stats.worst_case <= 5 and stats.total >= 5626
