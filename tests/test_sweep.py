"""Exact values by a sweep of the guesses, best refined bound first (:mod:`solver.sweep`): the same optimum as the
exact search, fail-soft bounds at or above a beta, within a guess limit, trees built from its choices, and a
polish that uses it."""

from __future__ import annotations

from typing import Any

import pytest

from solver.game import Game, Turn
from solver.heuristics import get_strategy
from solver.polish import polish
from solver.position import Position
from solver.search import Searcher, SolveOptions
from solver.sweep import OutOfTime, Sweeper, SweepProgress
from solver.tree import build_tree, strategy_chooser

# the two cases of 40-60 s each run with the slow tests: distinct symbols, repeats, a limit and a small game stay fast
CASES = [("4,6,0", "", None), pytest.param("4,7,0", "0123 0.2", None, marks=pytest.mark.slow),
         pytest.param("4,6,1", "0011 0.1", None, marks=pytest.mark.slow), ("4,6,1", "0012 1.0", 5), ("3,6,1", "", None)]


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


class _Stop:
    """A sweep's log that ends the sweep at the first guess evaluated in full at ``turn`` (as a deadline passing
    right then would, deterministically)."""

    def __init__(self, turn: int) -> None:
        self.prefix, self.armed = f"guess {turn},", True

    def __call__(self, message: str) -> None:
        if self.armed and message.startswith(self.prefix):
            self.armed = False
            raise OutOfTime


def test_a_sweep_cut_by_its_deadline_keeps_the_cheapest_guess_it_evaluated_in_full() -> None:
    """Cut after its first guess, a sweep answers that guess's cost (an upper bound a tree plays, through every
    secret) and no value; the next sweep of the same set starts from it and proves the optimum."""
    game = Game.from_spec("4,6,0")
    reference = Searcher(game, SolveOptions("total")).solve([])
    assert reference.value is not None
    sweeper = Sweeper(game, kernel_at_most=20, log=_Stop(1))
    cut = sweeper.value([])
    assert cut.cut and cut.value is None and not cut.exact and cut.guess is None
    assert cut.found is not None and cut.found_guess is not None and cut.found >= reference.value
    tree = build_tree(game, sweeper.chooser(), [])
    assert tree.root.guess == cut.found_guess and tree.stats().total == cut.found
    assert all(tree.play(secret)[-1] == secret for secret in range(game.size))
    again = sweeper.value([])
    assert (again.value, again.exact, again.cut) == (reference.value, True, False)
    # with a beta at the optimum no guess is found below it: the sweep fails high and keeps nothing
    assert Sweeper(game, kernel_at_most=20, log=_Stop(1)).value([], beta=reference.value).found is None


def test_a_polish_keeps_what_a_cut_sweep_found() -> None:
    """A sweep that runs out of time at a position after evaluating a guess cheaper than the subtree there still
    replaces the subtree by that guess's (counted as cut and improved)."""
    game = Game.from_spec("4,6,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("most-parts")))
    before = tree.stats().total
    sweeper = Sweeper(game, kernel_at_most=20, log=_Stop(1))
    report = polish(tree, sweeper.searcher, above=0, at_most=game.size, budget_s=120, sweeper=sweeper)
    assert report.cut == 1 and report.improved == 1 and report.gained == before - tree.stats().total > 0
    assert all(tree.play(secret)[-1] == secret for secret in range(game.size))


class _Counting(Sweeper):
    """A sweeper that lists the guesses it evaluates at the set after ``root`` turns."""

    def __init__(self, *args: Any, root: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root, self.at_root = root, list[int]()

    def _try(self, at: Position, *args: Any) -> int:
        if len(at.history) == self.root:
            self.at_root.append(args[0])
        return super()._try(at, *args)


def test_a_sweep_resumes_from_the_progress_it_recorded_without_evaluating_a_guess_twice() -> None:
    """A sweep stopped after two of its guesses hands on what it proved (each guess refuted or the cheapest
    found); a new sweeper started from that evaluates none of them again and proves the same optimum (4×7 after
    0.2: three guesses evaluated in all)."""
    game = Game.from_spec("4,7,0")
    turns = game.parse_history("0123 0.2")
    reference = Searcher(game, SolveOptions("total")).solve(turns)
    kept: list[SweepProgress] = []

    def record(progress: SweepProgress) -> None:
        if progress.left is not None:  # after a guess (a part's value is recorded too, without it)
            kept.append(progress)
        if len(kept) == 2:
            raise OutOfTime

    first = _Counting(game, kernel_at_most=20, root=len(turns))
    assert first.value(turns, record=record).cut
    last = kept[-1]
    assert len(first.at_root) == 2 and set(first.at_root) == set(last.refuted) | {last.found_guess}
    assert last.found is not None and all(v >= last.found for v in last.refuted.values())
    assert all(p.left is not None for p in kept)
    again = _Counting(game, kernel_at_most=20, root=len(turns))
    told: list[SweepProgress] = []
    got = again.value(turns, resume=last, record=told.append)
    assert told and told[-1].left == 0  # a finished sweep has nothing left to evaluate
    assert all(not p.partial for p in told if p.left is not None)  # a guess done leaves no part under way
    assert (got.value, got.exact) == (reference.value, True)
    assert again.at_root and not set(again.at_root) & set(first.at_root)
    done = again.progress(turns)
    assert (done.found, done.found_guess, done.refuted) == (got.value, got.guess, {})


class _Parts(Sweeper):
    """A sweeper that lists the parts it evaluates one level below the set after ``root`` turns."""

    def __init__(self, *args: Any, root: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root, self.below = root, list[tuple[int, int]]()

    def _value(self, at: Position, *args: Any) -> tuple[int, int]:
        if len(at.history) == self.root + 1:
            self.below.append((at.history[-1].guess, at.history[-1].response))
        return super()._value(at, *args)


@pytest.mark.slow  # 12 s; test_a_sweep_resumes_from_the_progress_it_recorded_... resumes a sweep in the quick run
def test_a_sweep_stopped_inside_a_guess_resumes_from_its_parts_values() -> None:
    """Stopped after the first part of a guess is valued, a sweep hands on that part's value; the next sweep
    evaluates the guess's other parts only, and proves the same optimum."""
    game = Game.from_spec("4,7,0")
    turns = game.parse_history("0123 0.2")
    reference = Searcher(game, SolveOptions("total")).solve(turns)
    kept: list[SweepProgress] = []

    def record(progress: SweepProgress) -> None:
        kept.append(progress)
        raise OutOfTime

    first = _Parts(game, kernel_at_most=20, root=len(turns))
    assert first.value(turns, record=record).cut
    (guess, parts), = kept[-1].partial.items()
    (response, (value, exact)), = parts.items()
    assert first.below == [(guess, response)] and kept[-1].found is None and exact
    below = [*turns, Turn(guess, response)]
    own = Searcher(game, SolveOptions("total")).solve(below).value
    assert own is not None and value == own - len(game.candidates(below)) * len(below)  # the part's own guesses
    again = _Parts(game, kernel_at_most=20, root=len(turns))
    got = again.value(turns, resume=kept[-1])
    assert (got.value, got.exact) == (reference.value, True)
    assert (guess, response) not in again.below and any(g == guess for g, _ in again.below)


def test_a_polish_sweeps_on_from_where_a_cut_sweep_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep under way at a polished position is handed to ``settle`` as cut, with its progress; killed there, the
    next polish with that progress ``known`` sweeps on from it: it gives no refined bound to a guess refuted before
    and evaluates none again, proves the subtree optimal, and counts the seconds of both runs.  (4×7 after 0.2:
    the optimal tree's subtree, the sweep's bound, is refuted guess by guess.)"""
    import solver.lowerbound
    import solver.polish
    from solver.polish import CUT, OPTIMAL, Settled

    game = Game.from_spec("4,7,0")
    turns = game.parse_history("0123 0.2")
    searcher = Searcher(game, SolveOptions("total"))
    optimal = build_tree(game, searcher.chooser(), turns)
    key = "0123 0.2"
    monkeypatch.setattr(solver.polish, "SAVE_EVERY_S", 0.0)

    def run(known: dict[str, Settled], stop: bool) -> tuple[dict[str, Settled], _Counting, list[str]]:
        tree = build_tree(game, searcher.chooser(), turns)
        sweeper = _Counting(game, kernel_at_most=20, root=len(turns))
        settled: dict[str, Settled] = {}
        lines: list[str] = []

        def settle(where: str, done: Settled) -> None:
            settled[where] = done
            if stop and done.sweep is not None and len(done.sweep.refuted) >= 2:
                raise KeyboardInterrupt

        try:
            polish(tree, sweeper.searcher, above=20, at_most=game.size, budget_s=600, sweeper=sweeper, known=known,
                   settle=settle, log=lines.append)
        except KeyboardInterrupt:
            return settled, sweeper, lines
        assert tree.stats() == optimal.stats()
        return settled, sweeper, lines

    first, first_sweeper, _ = run({}, stop=True)
    cut = first[key]
    assert cut.outcome == CUT and cut.sweep is not None and cut.subtree is None
    refuted = set(cut.sweep.refuted)
    assert len(refuted) >= 2 and refuted <= set(first_sweeper.at_root) and cut.sweep.found is None

    bounded: list[int] = []
    real = solver.lowerbound.root_lower_bound

    def counting(game_: Game, history: Any, *args: Any, guesses: Any = None, **kwargs: Any) -> Any:
        if len(history) == len(turns):
            bounded.extend(guesses or [])
        return real(game_, history, *args, guesses=guesses, **kwargs)

    monkeypatch.setattr(solver.lowerbound, "root_lower_bound", counting)
    second, again, lines = run({key: cut}, stop=False)
    assert second[key].outcome == OPTIMAL and second[key].sweep is None
    assert second[key].seconds >= cut.seconds
    assert any(line.startswith(f"guess {len(turns) + 1}, {optimal.root.size} candidates (after {key}): swept on from "
                                f"{len(refuted)} guesses refuted") for line in lines)
    assert bounded and not set(bounded) & refuted  # no refined bound for a guess refuted before
    assert again.at_root and not set(again.at_root) & refuted
