"""The hybrid strategy: a one-step strategy at the big positions, the exact search at the small ones.

Below both :mod:`solver.atlas` (whose hybrid trees are built with :func:`hybrid_chooser`) and
:mod:`solver.rollout` (which rolls out over it, and ranks the guesses it tries with :func:`ranked_guesses`,
as the hybrid does where it mends a position near its limit), so that neither imports the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from solver import kernels
from solver.codes import GameArrays
from solver.errors import GameTooLargeError, SolverError
from solver.feasible import Feasibility
from solver.game import CandidateSet, Game, Turn
from solver.heuristics import get_strategy
from solver.question import SolveOptions
from solver.tree import strategy_chooser
from solver.vocabulary import Criterion


def ranked_guesses(game: Game, cands: CandidateSet, path: list[Turn], pool: npt.NDArray[np.int32],
                   width: int, arrays: GameArrays) -> list[int]:
    """The ``width`` guesses of ``pool`` (canonical: one per class of interchangeable symbols) with the
    highest entropy of the partition of ``cands`` (ties: candidates first, then the lower code)."""
    a = arrays
    absent, uncalled = kernels.digit_classes(cands, a.masks, np.int64(a.called(path)), game.symbols)
    canonical = kernels.class_lowest_codes(a.codes, np.int64(absent), np.int64(uncalled))
    guesses = np.ascontiguousarray(pool[np.isin(pool, canonical)], dtype=np.int32)
    counts = kernels.partition_matrix(*a.kernel_args(), guesses, cands, game.n_responses).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(counts > 0, counts * np.log2(np.maximum(counts, 1)), 0.0).sum(axis=1)
    splits = counts.max(axis=1) < cands.shape[0]
    in_set = np.isin(guesses, cands)
    order = np.lexsort((guesses, ~in_set, np.round(plogp, 9)))
    return [int(guesses[i]) for i in order if splits[i]][:width]


KEEP_LEFT = 3
"""A hybrid that keeps to a limit (``keep_width``) checks its big positions whose parts have at most this many
guesses left.  The exact search within the limit settles such a part in about a second at most (five-digit
Bulls-and-Cows: sets of 30 to 70 candidates at guess 5 of 7), where a part with four guesses left can take
half an hour."""


def hybrid_chooser(game: Game, strategy: str, exact_at_most: int, searcher: Any,
                   max_guesses: int | None = None, keep_width: int | None = None) -> Any:
    """The chooser of :func:`solver.atlas.hybrid_tree`: ``strategy`` above ``exact_at_most`` candidates, the optimal
    total's guess of ``searcher`` (a :class:`solver.search.Searcher` of the game) at or below it.  With
    ``max_guesses``, the small positions play the optimal total within that many guesses where one exists
    (the unlimited optimum's guess where none does), so the tree keeps to the limit wherever the top lets it.

    ``keep_width`` (with ``max_guesses``) mends the big positions near the limit, those whose parts have at
    most :data:`KEEP_LEFT` guesses left.  There the one-step guess is played only if every part it leaves can
    still be solved within the limit (the exact search says so).  Otherwise the first of the ``keep_width``
    guesses of best entropy that keeps every part solvable is played; when none does, the worst-case search
    (:class:`solver.feasible.Feasibility`, exhaustive with three guesses left or fewer, ``keep_width`` tries with
    four) gives a guess that keeps the limit, whatever its entropy; and the one-step guess is played when it
    finds none (or the game is too big for it).

    Why: a one-step score cannot see that a part of 50 candidates is too many for the three guesses left.
    Mastermind's hybrid within 5 breaks its limit that way where other guesses keep it (the tests show it),
    and a set that can keep a limit may do so with one of its first guesses by entropy: the 340 candidates
    left after 01234 0.2, 10567 0.2, 08149 0.2 keep 7 with the very first, found in a second, where the
    optimal total within 7 takes 20 minutes.  But not always: the guesses that keep a limit need not be among
    those of best entropy (five-digit Bulls-and-Cows: a set of 62 at guess 5 of 7 whose 32 best guesses by
    entropy each leave one secret at 8, kept by a guess the worst-case search finds at once).

    :raises ValueError: ``keep_width`` without ``max_guesses`` (there is no limit to keep)."""
    if keep_width is not None and max_guesses is None:
        raise ValueError("keep_width keeps the hybrid to max_guesses: give both")
    heuristic = strategy_chooser(game, get_strategy(strategy), searcher.arrays)
    exact = searcher.chooser()
    within = None if max_guesses is None else searcher.chooser(options=SolveOptions(Criterion.TOTAL, max_guesses))
    a: GameArrays = searcher.arrays

    def keeps(cands: Any, turns: list[Any], guess: int) -> bool:
        """Whether every part ``guess`` leaves can be solved within the limit (the biggest, likeliest to
        fail, first)."""
        assert max_guesses is not None
        return all(searcher.fits([*turns, Turn(guess, r)], part, max_guesses)
                   for r, part in a.parts(guess, cands, game.n_responses)
                   if r != game.all_bulls and part.shape[0] > 1)

    feasibility: list[Any] = []
    """The worst-case search (:class:`solver.feasible.Feasibility`), made once, when first needed."""

    def keeping(cands: Any, turns: list[Any], own: int) -> int:
        if keeps(cands, turns, own):
            return own
        assert keep_width is not None and max_guesses is not None
        for guess in ranked_guesses(game, cands, turns, searcher.pools(turns)[0], keep_width, a):
            if guess != own and keeps(cands, turns, guess):
                return guess
        if not feasibility:
            try:
                feasibility.append(Feasibility(game))
            except GameTooLargeError:
                feasibility.append(None)
        if feasibility[0] is None:
            return own
        found = feasibility[0].witness(cands, max_guesses - len(turns), keep_width, turns).guess
        return own if found is None else int(found)

    def choose(cands: Any, turns: list[Any]) -> int:
        if cands.shape[0] > exact_at_most:
            own = int(heuristic(cands, turns))
            if keep_width and max_guesses is not None and 1 <= max_guesses - len(turns) - 1 <= KEEP_LEFT:
                return keeping(cands, turns, own)
            return own
        if within is not None and len(turns) < max_guesses:  # type: ignore[operator]
            try:
                return int(within(cands, turns))
            except SolverError:
                pass
        return int(exact(cands, turns))

    return choose
