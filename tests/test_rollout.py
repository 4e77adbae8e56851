"""Rollout over a hybrid (:mod:`solver.rollout`): a real strategy, never worse than the hybrid it rolls out,
never better than the optimum."""

from __future__ import annotations

import pytest

from solver.atlas import hybrid_tree
from solver.game import Game
from solver.polish import subtree_cost
from solver.rollout import (
    RolloutPlan,
    assemble,
    best_branches,
    branch_responses,
    branch_tree,
    first_guess,
    given_guesses,
    plan_chooser,
    rollout_tree,
)
from solver.search import Searcher, SolveOptions
from solver.tree import Tree, build_tree, to_compact


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


def test_a_rollout_in_units_is_the_whole_rollout() -> None:
    """Built one response to the first guess at a time, each unit with a searcher of its own, and put back
    together, the rollout is the same tree as when it is built at once (every decision depends on its path
    only); a missing unit is refused by name."""
    game = Game.from_spec("4,6,1")
    plan = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1, max_guesses=None)
    whole = rollout_tree(game, "entropy", 6, width=3, levels=3, min_size=6, from_turn=1)
    first = first_guess(game, plan)
    assert first == whole.root.guess
    responses = branch_responses(game, first)
    assert len(responses) == len(whole.root.children)
    branches = {r: branch_tree(game, plan, first, r) for r in reversed(responses)}  # any order
    tree = assemble(game, plan, first, branches)
    assert to_compact(tree) == to_compact(whole)
    assert tree.stats().total == whole.stats().total and tree.strategy == plan.name() == whole.strategy
    del branches[responses[-1]]
    with pytest.raises(ValueError, match=game.format_response(responses[-1])):
        assemble(game, plan, first, branches)


def test_positions_that_break_the_limit_get_a_wider_look() -> None:
    """Mastermind, entropy exact at 5 candidates, within 5: trying one guess besides the hybrid's leaves some
    secrets at 6 guesses; trying up to 12 where every guess tried breaks the limit keeps them all within 5."""
    game = Game.from_spec("mastermind")
    narrow, arrays = plan_chooser(game, RolloutPlan("entropy", 5, 1, 3, 5, from_turn=1, max_guesses=5))
    assert build_tree(game, narrow, arrays=arrays).stats().worst_case == 6
    plan = RolloutPlan("entropy", 5, 1, 3, 5, from_turn=1, max_guesses=5, over_width=12)
    wide, arrays = plan_chooser(game, plan)
    tree = build_tree(game, wide, arrays=arrays, strategy=plan.name())
    assert tree.stats().worst_case == 5 and tree.stats().total >= 5626  # the optimum within 5
    assert "12 where over" in plan.name() and plan.as_dict()["over_width"] == 12
    assert "over_width" not in RolloutPlan("entropy", 5, 1, 3, 5).as_dict()


def test_a_hybrid_that_keeps_the_limit_mends_its_big_positions() -> None:
    """Mastermind, entropy exact at 10 candidates, within 5: the hybrid leaves some secrets at 6 guesses, as its
    entropy guesses at guess 2 leave parts too big for the three guesses left.  Trying up to every guess of best
    entropy there (``keep_width``) keeps every secret within 5; so does trying the entropy guess alone, where the
    worst-case search then finds the guesses that keep the limit, whatever their entropy."""
    from solver.hybrid import hybrid_chooser

    game = Game.from_spec("mastermind")

    def built(keep_width: int | None) -> Tree:
        s = Searcher(game, SolveOptions("total"))
        return build_tree(game, hybrid_chooser(game, "entropy", 10, s, 5, keep_width), arrays=s.arrays)

    plain, one, wide = built(None), built(1), built(1000)
    assert plain.stats().beyond(5) > 0 and plain.stats().worst_case == 6
    assert one.stats().worst_case == 5 and one.stats().total >= 5626  # the optimum within 5
    assert wide.stats().worst_case == 5 and wide.stats().total >= 5626
    plain_5 = hybrid_tree(game, "entropy", 10, max_guesses=5)
    assert plain_5.stats().total == plain.stats().total  # the keeping hybrid without a width is the hybrid
    plan = RolloutPlan("entropy", 10, 1, 3, 10, from_turn=1, max_guesses=5, keep_width=1000)
    assert "(1000 tried to keep it, then searched)" in plan.name() and plan.as_dict()["keep_width"] == 1000
    assert "keep_width" not in RolloutPlan("entropy", 5, 1, 3, 5).as_dict()
    with pytest.raises(ValueError, match="give both"):
        RolloutPlan("entropy", 10, 1, 3, 10, keep_width=8)
    with pytest.raises(ValueError, match="give both"):
        hybrid_chooser(game, "entropy", 10, Searcher(game, SolveOptions("total")), None, 8)
    chooser, arrays = plan_chooser(game, plan)
    assert build_tree(game, chooser, arrays=arrays).stats().worst_case == 5


def test_given_guesses_are_played_where_given_and_the_rest_rolled_out() -> None:
    """Mastermind with 0000 given first and 0111 after 0000 (1 bull): the tree plays them there, still solves
    every secret, and costs more than the same plan left to choose (which opens otherwise); the plan keeps
    the given guesses through its progress-file form."""
    game = Game.from_spec("mastermind")
    play = (": 0000", "0000 1.0: 0111")
    plan = RolloutPlan("entropy", 5, 1, 2, 5, from_turn=1, play=play)
    choose, arrays = plan_chooser(game, plan)
    tree = build_tree(game, choose, arrays=arrays, strategy=plan.name())
    assert game.format_code(tree.root.guess) == "0000"
    after = tree.node_at(game.parse_history("0000 1.0"))
    assert after is not None and game.format_code(after.guess) == "0111"
    assert all(tree.play(secret)[-1] == secret for secret in game.all_codes.tolist())
    free, arrays = plan_chooser(game, RolloutPlan("entropy", 5, 1, 2, 5, from_turn=1))
    own = build_tree(game, free, arrays=arrays)
    assert game.format_code(own.root.guess) != "0000" and own.stats().total < tree.stats().total
    assert plan.as_dict()["play"] == list(play) and RolloutPlan(**plan.as_dict()) == plan
    assert "2 given" in plan.name() and "play" not in RolloutPlan("entropy", 5, 1, 2, 5).as_dict()


@pytest.mark.parametrize(("play", "message"), [
    (["0000 1.0 0111"], "HISTORY: GUESS"),
    (["0000 1.0: 0000"], "does not split the 500 candidates"),
    (["0000 1.0: 0111", "0000 1.0: 0112"], "another guess already"),
    (["0000 1.0, 0000 2.0: 0123"], "0000 2.0: 0123'. no code is consistent"),
    (["0000 1.0: 01x3"], "'x' is not one of"),
])
def test_given_guesses_are_checked(play: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        given_guesses(Game.from_spec("mastermind"), play)


def test_best_branches_takes_the_cheaper_subtree_under_each_response() -> None:
    game = Game.from_spec("3,7,0")
    a, b = hybrid_tree(game, "minimax", 6), hybrid_tree(game, "entropy", 3)
    assert a.root.guess == b.root.guess
    combined, taken = best_branches(a, b)
    assert combined.stats().total < min(a.stats().total, b.stats().total)
    assert all(combined.play(secret)[-1] == secret for secret in range(game.size))
    for r, child in combined.root.children.items():
        mine, theirs = subtree_cost(a.root.children[r], 2, None), subtree_cost(b.root.children[r], 2, None)
        assert subtree_cost(child, 2, None) == min(mine, theirs)
        assert (child is b.root.children[r]) == (r in taken) == (theirs < mine)
    other = hybrid_tree(Game.from_spec("3,6,1"), "entropy", 3)
    with pytest.raises(ValueError, match="same first guess"):
        best_branches(a, other)


def test_a_rollout_judged_by_the_rollout_below_is_never_worse() -> None:
    """Mastermind, width 3, guesses 1-3, entropy exact at 5: the plain rollout needs 5643 guesses.  Judging its 3
    best second guesses (by the hybrid's completion) by the rollout's own subtrees below them plays another
    somewhere and needs fewer, still no fewer than the optimum (5625); built in units, it is the same tree.  The
    plan keeps the judge through its progress-file form, and refuses a judge it cannot run."""
    game = Game.from_spec("mastermind")

    def built(plan: RolloutPlan) -> Tree:
        choose, arrays = plan_chooser(game, plan)
        return build_tree(game, choose, arrays=arrays, strategy=plan.name())

    plain = built(RolloutPlan("entropy", 5, 3, 3, 5, from_turn=1))
    plan = RolloutPlan("entropy", 5, 3, 3, 5, from_turn=1, judge_width=3, judge_turns=(2, 2))
    seen: list[str] = []
    choose, arrays = plan_chooser(game, plan, log=seen.append)
    judged = build_tree(game, choose, arrays=arrays, strategy=plan.name())
    assert 5625 <= judged.stats().total < plain.stats().total
    assert all(judged.play(secret)[-1] == secret for secret in range(game.size))
    changed = [line for line in seen if "judged by the rollout below" in line
               and line.split("chosen ")[1].split()[0] != line.rsplit("playing ", 1)[1]]
    assert changed and all(line.startswith("turn 2,") for line in changed)
    first = first_guess(game, plan)
    branches = {r: branch_tree(game, plan, first, r) for r in branch_responses(game, first)}
    assert to_compact(assemble(game, plan, first, branches)) == to_compact(judged)
    assert "best 3 judged by the rollout at guess 2)" in plan.name()
    assert plan.as_dict()["judge_turns"] == [2, 2] and RolloutPlan(**plan.as_dict()) == plan
    assert "judge_width" not in RolloutPlan("entropy", 5, 3, 3, 5).as_dict()
    for wrong, message in [({"judge_width": 3}, "go together"), ({"judge_turns": (2, 2)}, "go together"),
                           ({"judge_width": 3, "judge_turns": (1, 2)}, "must be rolled out"),
                           ({"judge_width": 3, "judge_turns": (3, 2)}, "must be rolled out"),
                           ({"judge_width": 1, "judge_turns": (2, 2)}, "fewer than 2")]:
        with pytest.raises(ValueError, match=message):
            RolloutPlan("entropy", 5, 3, 3, 5, from_turn=2, **wrong)  # type: ignore[arg-type]


def test_a_judge_with_a_pool_picks_among_more_guesses_at_its_turns_only() -> None:
    """Mastermind, width 3, the 3 best judged at guess 2 from a pool of 8: at guess 2 the hybrid completes the 8
    best by entropy (and its own), elsewhere 3 (and its own); the tree still finds every secret, in no fewer
    guesses than the optimum and fewer than the plain rollout of width 3.  The plan names the pool, keeps it
    through its progress-file form, and refuses a pool that is no wider than the width or has no judge."""
    game = Game.from_spec("mastermind")
    plain_plan = RolloutPlan("entropy", 5, 3, 3, 5, from_turn=1)
    choose, arrays = plan_chooser(game, plain_plan)
    plain = build_tree(game, choose, arrays=arrays)
    plan = RolloutPlan("entropy", 5, 3, 3, 5, from_turn=1, judge_width=3, judge_turns=(2, 2), judge_pool=8)
    seen: list[str] = []
    choose, arrays = plan_chooser(game, plan, log=seen.append)
    pooled = build_tree(game, choose, arrays=arrays, strategy=plan.name())
    assert 5625 <= pooled.stats().total < plain.stats().total
    assert all(pooled.play(secret)[-1] == secret for secret in range(game.size))
    at_two = [int(line.split(" guesses tried")[0].rsplit(" ", 1)[1]) for line in seen if line.startswith("turn 2,")]
    elsewhere = [int(line.split(" guesses tried")[0].rsplit(" ", 1)[1]) for line in seen
                 if not line.startswith("turn 2,")]
    assert at_two and elsewhere and min(at_two) >= 8 and max(elsewhere) <= 4
    assert "best 3 of 8 judged by the rollout at guess 2)" in plan.name()
    assert plan.as_dict()["judge_pool"] == 8 and RolloutPlan(**plan.as_dict()) == plan
    assert "judge_pool" not in RolloutPlan("entropy", 5, 3, 3, 5).as_dict()
    for wrong in ({"judge_pool": 8}, {"judge_width": 3, "judge_turns": (2, 2), "judge_pool": 3}):
        with pytest.raises(ValueError, match="judge_pool widens"):
            RolloutPlan("entropy", 5, 3, 3, 5, from_turn=1, **wrong)  # type: ignore[arg-type]


def test_a_campaigns_units_can_be_polished_as_they_are_built() -> None:
    """4 positions of 6 colours: each unit polished once built (positions of 7 to 300 candidates searched exactly,
    5 s each) needs no more guesses than the same unit unpolished, fewer for the biggest ones, and still finds
    every secret of its part; the plan keeps the polish through its progress-file form and refuses a wrong one."""
    game = Game.from_spec("4,6,1")
    plain = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1)
    polished = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1, polish=(6, 300, 5.0))
    first = first_guess(game, plain)
    for r in branch_responses(game, first)[:2]:
        before, after = branch_tree(game, plain, first, r), branch_tree(game, polished, first, r)
        assert after.stats().total < before.stats().total
        part = game.candidates(after.history).tolist()
        assert after.stats().secrets == len(part) and all(after.play(s)[-1] == s for s in part)
    assert polished.as_dict()["polish"] == [6, 300, 5.0] and RolloutPlan(**polished.as_dict()) == polished
    assert "units polished exact<=300" in polished.name() and "polish" not in plain.as_dict()
    with pytest.raises(ValueError, match="ABOVE below AT_MOST"):
        RolloutPlan("entropy", 6, 3, 3, 6, polish=(300, 6, 5.0))
