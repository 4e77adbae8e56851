"""Polishing a tree with exact subtrees (:mod:`solver.polish`): never worse, optimal where searched whole, cut by
its budget without harm."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.game import Game, Turn
from solver.heuristics import get_strategy
from solver.polish import PolishParams, polish
from solver.search import Searcher, SolveOptions
from solver.tree import build_tree, strategy_chooser


def _entropy_tree(game: Game):  # type: ignore[no-untyped-def]
    return build_tree(game, strategy_chooser(game, get_strategy("entropy")))


def test_polish_lowers_a_one_step_tree_and_keeps_it_a_strategy() -> None:
    game = Game.from_spec("mastermind")
    tree = _entropy_tree(game)
    before = tree.stats().total
    searcher = Searcher(game, SolveOptions("total"))
    report = polish(tree, searcher, above=0, at_most=200, budget_s=30)
    after = tree.stats().total
    assert 5625 <= after < before and report.gained == before - after and report.improved > 0
    assert sum(g for _, _, g in report.gains) == report.gained
    assert all(tree.play(secret)[-1] == secret for secret in range(game.size))


def test_polish_of_the_whole_game_within_a_limit_is_the_optimum_within_it() -> None:
    """Searched from the root within 5 guesses, the entropy tree (worst case 6) becomes an optimal strategy
    within 5: the published 5626, found by the search."""
    game = Game.from_spec("mastermind")
    tree = _entropy_tree(game)
    assert tree.stats().worst_case == 6
    report = polish(tree, Searcher(game, SolveOptions("total")), above=0, at_most=game.size, budget_s=600,
                    max_guesses=5)
    stats = tree.stats()
    assert (stats.total, stats.worst_case, report.improved) == (5626, 5, 1)


def test_a_polish_out_of_time_changes_nothing() -> None:
    game = Game.from_spec("4,5,1")
    tree = _entropy_tree(game)
    before = tree.stats()
    report = polish(tree, Searcher(game, SolveOptions("total")), above=game.size - 1, at_most=game.size, budget_s=0.0)
    assert (report.tried, report.cut, report.improved) == (1, 1, 0) and tree.stats() == before


def test_the_log_says_what_each_searched_position_came_to() -> None:
    """A long polish is silent no more: every position searched is logged, proven optimal, out of time or
    improved, with its history, so a run of hours shows where it is."""
    from solver.atlas import hybrid_tree

    game = Game.from_spec("4,5,1")
    searcher = Searcher(game, SolveOptions("total"))
    lines: list[str] = []
    polish(hybrid_tree(game, "entropy", game.size, searcher=searcher), searcher, above=0, at_most=game.size,
           budget_s=600, log=lines.append)
    assert len(lines) == 1 and lines[0].startswith(f"guess 1, {game.size} candidates: its ")
    assert "proven optimal" in lines[0]
    cut: list[str] = []
    polish(_entropy_tree(game), Searcher(game, SolveOptions("total")), above=game.size - 1, at_most=game.size,
           budget_s=0.0, log=cut.append)
    assert cut == [cut[0]] and "out of time" in cut[0]
    improved: list[str] = []
    tree = _entropy_tree(Game.from_spec("mastermind"))
    report = polish(tree, Searcher(tree.game, SolveOptions("total")), above=0, at_most=200, budget_s=30,
                    log=improved.append)
    assert len(improved) == report.tried and sum(" -> " in line for line in improved) == report.improved
    assert sum("proven optimal" in line for line in improved) == report.optimal
    assert all(line.startswith("guess 1,") or "(after " in line for line in improved)


def test_a_subtree_proven_optimal_is_not_searched_below() -> None:
    """An optimal tree (the hybrid exact everywhere) is proven so at its root: one search, nothing changed."""
    from solver.atlas import hybrid_tree

    game = Game.from_spec("4,5,1")
    searcher = Searcher(game, SolveOptions("total"))
    tree = hybrid_tree(game, "entropy", game.size, searcher=searcher)
    before = tree.stats()
    report = polish(tree, searcher, above=0, at_most=game.size, budget_s=600)
    assert (report.tried, report.optimal, report.improved, report.cut) == (1, 1, 0, 0) and tree.stats() == before


def test_within_the_worst_case_a_polish_may_keep_the_movers() -> None:
    """Mastermind's tree of fewest 5-movers (539) polished within 5: the search minimises the total, so the
    root's replacement is the 5626 tree with more movers; keeping the movers refuses it, and the tree stays
    within 5 with no more than 539 movers and no more guesses."""
    from solver.polish import movers_at

    game = Game.from_spec("mastermind")
    kmovers = SolveOptions("kmovers", 5)

    def fewest_movers():  # type: ignore[no-untyped-def]
        return build_tree(game, Searcher(game, kmovers).chooser(options=kmovers))

    free, kept = fewest_movers(), fewest_movers()
    before = free.stats()
    assert (before.worst_case, before.histogram[5]) == (5, 539)
    assert movers_at(free.root, 1, 5) == 539
    polish(free, Searcher(game, SolveOptions("total")), above=0, at_most=game.size, budget_s=600, max_guesses=5)
    polish(kept, Searcher(game, SolveOptions("total")), above=0, at_most=game.size, budget_s=600, max_guesses=5,
           keep_movers=True)
    loose, strict = free.stats(), kept.stats()
    assert loose.total == 5626 and loose.histogram[5] > 539  # what the plain polish trades
    assert strict.worst_case == 5 and strict.histogram[5] <= 539 and strict.total <= before.total
    assert all(kept.play(secret)[-1] == secret for secret in range(game.size))


def test_a_polish_stopped_midway_continues_from_what_it_settled() -> None:
    """Every position searched is handed to ``settle`` as soon as it is settled.  A polish stopped after a few of
    them (here by an exception from ``settle``, as a kill would) and run again on the same tree with those
    positions ``known`` searches only the others, and ends with the tree and counts of a polish never stopped;
    a third run with everything known searches nothing at all (a budget of 0 would cut any search)."""
    from solver.polish import IMPROVED, Settled

    game = Game.from_spec("mastermind")

    def run(known: dict[str, Settled], stop_after: int | None = None, budget: float = 30.0):  # type: ignore[no-untyped-def]
        tree = _entropy_tree(game)
        settled: dict[str, Settled] = {}

        def settle(key: str, done: Settled) -> None:
            settled[key] = done
            if stop_after is not None and len(settled) >= stop_after:
                raise KeyboardInterrupt

        try:
            report = polish(tree, Searcher(game, SolveOptions("total")), above=0, at_most=200, budget_s=budget,
                            known=known, settle=settle)
        except KeyboardInterrupt:
            return None, None, settled
        return tree, report, settled

    whole, whole_report, everything = run({})
    assert whole is not None and whole_report is not None and whole_report.resumed == 0
    assert len(everything) == whole_report.tried and any(s.outcome == IMPROVED for s in everything.values())
    assert all((s.subtree is not None) == (s.outcome == IMPROVED) for s in everything.values())
    _, _, first = run({}, stop_after=3)
    assert len(first) == 3
    resumed, report, rest = run(first)
    assert resumed is not None and report is not None
    assert report.resumed == 3 and not set(rest) & set(first) and len(rest) == report.tried - 3
    assert resumed.stats() == whole.stats() and report.counts() == {**whole_report.counts(), "resumed": 3}
    assert report.resumed_s == sum(s.seconds for s in first.values())
    replayed, replay_report, searched = run({**first, **rest}, budget=0.0)
    assert replayed is not None and replay_report is not None and searched == {}
    assert replayed.stats() == whole.stats() and replay_report.resumed == replay_report.tried


@settings(max_examples=60, deadline=None)
@given(above=st.integers(0, 40), span=st.integers(1, 40), budget=st.floats(0, 600, allow_nan=False),
       limit=st.one_of(st.none(), st.integers(4, 9)), movers=st.booleans(),
       sweep=st.one_of(st.none(), st.integers(10, 400)), parts=st.one_of(st.none(), st.just(("0.1", "1.0"))))
def test_polish_params_keep_their_stored_form_and_say_which_positions_are_searched(
        above: int, span: int, budget: float, limit: int | None, movers: bool, sweep: int | None,
        parts: tuple[str, ...] | None) -> None:
    """A polish's parameters come back from their stored form as they were (the form a progress file and a job
    keep, part of the polish's name), and :meth:`PolishParams.searches` is the rule :func:`polish` applies: a
    position is searched exactly when its size is above ``above`` (and 2) and at most ``at_most``."""
    params = PolishParams(above, above + span, budget, limit, movers, sweep, parts)
    stored = params.as_dict()
    assert PolishParams.from_dict(stored) == params and ("parts" in stored) is (parts is not None)
    for size in range(0, above + span + 3):
        assert params.searches(size) is (size > max(above, 2) and size <= above + span)
    with pytest.raises(ValueError, match="not a polish's parameters"):
        PolishParams.from_dict({k: v for k, v in stored.items() if k != "at_most"})


def test_a_polish_searches_the_positions_its_params_say() -> None:
    """:meth:`PolishParams.run` searches only positions :meth:`PolishParams.searches` names, and every one of them
    below a position it does not search (here each part of the first guess: the root is too big)."""
    game = Game.from_spec("mastermind")
    tree = _entropy_tree(game)
    params = PolishParams(20, 300, 1.0)
    assert not params.searches(tree.root.size)
    tried: dict[str, int] = {}

    def settle(key: str, _done: object) -> None:
        tried[key] = len(game.candidates([game.parse_turn(t) for t in key.split(", ")] if key else []))

    report = params.run(tree, Searcher(game, SolveOptions("total")), settle=settle)  # type: ignore[arg-type]
    assert report.tried == len(tried) and all(params.searches(n) for n in tried.values())
    first = {game.format_turn(Turn(tree.root.guess, r)): child.size for r, child in tree.root.children.items()}
    assert {k: n for k, n in first.items() if params.searches(n)}.items() <= tried.items()
    assert any(not params.searches(n) for n in first.values())  # some part left alone, or too big
