"""One root part's bound under one second guess: the unit a bound job cuts a big part into.

Why: in the last pass of :func:`solver.lowerbound.root_lower_bound` a root part of hundreds of codes takes hours,
and its bound is the least, over its second guesses (one per class), of the part's bound opening with that guess.
Each second guess is therefore a unit that any process can refine alone, cut at the least bound its siblings have
reached (it cannot be the least above it); the part's bound is the least of theirs once every one is done.  The
bounds go to the same :class:`solver.partledger.PartLedger` sections as the whole refinement's (``put_second``, and
``put_third`` for the parts below a second guess), so that either way continues the other's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.game import Game, Turn
from solver.lowerbound import RootRefinement
from solver.partledger import PartLedger
from solver.search import INF, Searcher

History = tuple[Turn, ...] | list[Turn]
Memo = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]


@dataclass(frozen=True)
class SecondBound:
    """A root part's proven bound under one second guess (turn-independent, as the ledger keeps a part's)."""

    value: int
    full: bool
    """The bound at those plies itself, not one cut at the unit's β (then it is at least β)."""
    work: int
    """Sets refined."""


def _refinement(game: Game, history: History, depth: int, guess: int, ledger: PartLedger | None,
                searcher: Searcher | None, only_parts: list[int] | None = None) -> RootRefinement:
    run = RootRefinement(game, tuple(history), depth, searcher=searcher, leaf_scan=True, branching=True)
    run.rank_root([guess])
    run.prepare(known=None, progress=None, target=None, ledger=ledger, third_ply_classes=True, second_units=None,
                only_parts=only_parts)
    return run


def second_guesses(game: Game, history: History, guess: int, response: int, *,
                   searcher: Searcher | None = None) -> list[tuple[int, int]]:
    """The second guesses of the root part ``(guess, response)`` (one per class of the transformations fixing the
    history and ``guess``), each with the part's one-ply bound under it, least first: the order a refinement tries
    them in, and each unit's bound before it runs."""
    run = _refinement(game, history, 1, guess, None, searcher)
    sub, child_pool = run.part_of(guess, response)
    first, _ = run.seconds_of(sub, child_pool)
    return sorted(((int(g2), int(first[i])) for i, g2 in enumerate(child_pool)), key=lambda x: (x[1], x[0]))


def second_guess_bound(game: Game, history: History, guess: int, response: int, second: int, depth: int, *,
                       beta: int | None = None, ledger: PartLedger | None = None, searcher: Searcher | None = None,
                       memo: Memo | None = None, warm: bool = True) -> SecondBound:
    """The root part ``(guess, response)``'s bound opening with ``second`` (one of :func:`second_guesses`), refined
    as the last pass of ``root_lower_bound(game, history, depth)`` refines it (``depth - 1`` plies below the root
    guess), its parts' bounds and its own told to ``ledger``.  ``beta``: stop once the bound reaches it
    (fail-soft).  ``memo``: the refinement's memo (:func:`solver.boundmemo.new_memo`) to use and fill, that of the
    part's other second guesses refined in this process: they share many sets, as the second guesses of one
    refinement of the part share its memo (every entry is an admissible bound of its set).  ``warm``: first refine
    the part one, two, ... ``depth - 1`` plies, as the whole refinement's shallow passes do (seconds): their sets'
    bounds in the memo order and cut the last pass's, which then refines a third fewer sets or more; a memo
    warmed so already needs it no more."""
    if depth < 3:
        raise ValueError("a part is refined second guess by second guess at three plies or more")
    run = _refinement(game, history, depth, guess, ledger, searcher, only_parts=[response])
    if memo is not None:
        run.memo = memo
    if warm:  # the shallow passes over the part, as the whole refinement runs them first: they fill the memo
        for d in range(1, depth):
            run.one_pass(d)
    value = run.refine_second(guess, response, second, depth - 1, INF if beta is None else beta)
    return SecondBound(value, beta is None or value < beta, int(run.work[0]))
