"""The worst-case question on its own: can every candidate of a set be found within k more guesses?

The exact search answers it too (the optimal total within a limit is finite or not), but it prices every
strategy while it looks, and refuting a set of 200 to 300 five-digit Bulls-and-Cows candidates with four
guesses left took it 6 to 33 minutes.  Whether a limit can be kept is a yes/no question with much
stronger cuts:

- with one guess left, only a single candidate can be found;
- with two, a set is finished exactly when one code gives each candidate a different response (so it has
  at most as many candidates as the game has responses);
- with three, some guess must leave only parts of that size, each separated by a code;
- with more, some guess must leave parts that each keep the limit, and the first such guess found ends the
  search (no price, no bound, no other guess tried).

The two- and three-guess levels are exhaustive kernels (:mod:`solver.feasiblekernels`); deeper levels try
the guesses of the smallest largest part first, and may be given a budget (``tries`` guesses per position)
when a witness is wanted more than a proof.  A proof of impossibility is claimed only when no budget cut the
search anywhere below (:attr:`Verdict.possible` is ``None`` otherwise).  Without a budget, a position whose
first guesses all fail is handed to the exact search for the proof (:meth:`Feasibility.witness`): the two
searches are fast on opposite answers.

A witness is a strategy: :func:`feasible_chooser` plays it, and :func:`solver.tree.build_tree` with it
gives the tree whose worst case can be checked by playing every candidate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver import feasiblekernels as fk
from solver.errors import GameTooLargeError
from solver.game import CandidateSet, Code, Game, History, Turn
from solver.tree import Chooser
from solver.vocabulary import Criterion


@dataclass(frozen=True)
class Verdict:
    """The answer to "can these candidates all be found within ``left`` more guesses?"."""

    possible: bool | None
    """True: ``guess`` starts a strategy that does it; False: proven that no strategy does; None: the budget
    of guesses tried ran out first."""
    guess: Code | None
    """A guess that keeps the limit (when ``possible``)."""
    candidates: int
    left: int
    seconds: float


PROBE_TRIES = 8
"""Guesses tried at each position of four guesses or more left before a proof is asked of the exact search."""


class LimitNotKept(Exception):
    """A chooser that keeps a limit was asked to play a position that cannot keep it (or was not settled)."""


class Feasibility:
    """Answers the worst-case question for one game, on its response table (built once; the exact search's
    own, :meth:`solver.game.Game.search_arrays`)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        arrays = game.search_arrays()
        if arrays.table.shape[0] == 0:
            raise GameTooLargeError(f"game {game.spec} has {game.size} codes, more than the {game.search_max_codes} "
                                    f"the worst-case search takes (it reads the exact search's response table, "
                                    f"{game.size ** 2} bytes)")
        self.arrays = arrays
        self.table = arrays.table
        self.n_resp = game.n_responses
        self.win = game.all_bulls
        self.most = len(game.possible_responses())
        """How many responses the game has: the most candidates one guess can tell apart."""
        self._exact: Any = None

    def witness(self, cands: CandidateSet, left: int, tries: int | None = None, history: History = ()) -> Verdict:
        """Whether every one of ``cands`` can be found within ``left`` more guesses, and a first guess that
        does it.  ``tries``: at positions of four guesses or more left, give up (``possible`` None) after
        that many guesses have failed (None: settle it, so that a False is a proof).  ``history``, the turns
        that left ``cands`` (optional), lets the positions of five guesses or more left try one guess per
        class of guesses that the history's symmetries exchange.

        Without ``tries``, with four guesses left or more and the position known (a history, or the whole
        game), the first :data:`PROBE_TRIES` guesses are tried first, and when none keeps the limit the exact
        search decides (``Searcher.fits``): its bounds refute a set many times faster than trying every
        guess (``benchmarks/bench_feasible.py``), while a set that keeps the limit nearly always does so with
        one of the first guesses tried, where this search is the faster."""
        start = time.perf_counter()
        cands = np.ascontiguousarray(cands, dtype=np.int32)
        turns = list(history)
        known = bool(turns) or int(cands.shape[0]) == self.game.size
        if tries is None and left >= 4 and known and int(cands.shape[0]) <= self._most_within(left):
            guess, proven = self._witness(cands, left, PROBE_TRIES, turns)
            if guess is None and not proven:
                if not self._searcher().fits(turns, cands, len(turns) + left):
                    return Verdict(False, None, int(cands.shape[0]), left, time.perf_counter() - start)
                guess, proven = self._witness(cands, left, -1, turns)
        else:
            guess, proven = self._witness(cands, left, -1 if tries is None else tries, turns)
        possible = True if guess is not None else (False if proven else None)
        return Verdict(possible, guess, int(cands.shape[0]), left, time.perf_counter() - start)

    def _searcher(self) -> Any:
        """The exact search of the game (its optimal total within a limit), made once, when first needed."""
        if self._exact is None:
            from solver.search import Searcher, SolveOptions

            self._exact = Searcher(self.game, SolveOptions(Criterion.TOTAL))
        return self._exact

    def _witness(self, cands: CandidateSet, left: int, tries: int, history: list[Turn]
                 ) -> tuple[Code | None, bool]:
        """(guess or None, whether a None is proven)."""
        k = int(cands.shape[0])
        if k == 0:
            raise ValueError("no candidates: nothing to find")
        if k == 1:
            return (int(cands[0]), True) if left >= 1 else (None, True)
        if left <= 1 or k > self._most_within(left):
            return None, True
        if left == 2:
            return self._two_left(cands)
        if left == 3:
            g = int(fk.three_left(self.table, cands, self.n_resp, self.win, self.most))
            return (g, True) if g >= 0 else (None, True)
        if left == 4:
            g = int(fk.four_left(self.table, cands, self.n_resp, self.win, self.most, tries))
            return (g, True) if g >= 0 else (None, g == fk.NONE)
        return self._deeper(cands, left, tries, history)

    def _most_within(self, left: int) -> int:
        """The most candidates any strategy can finish within ``left`` guesses: one found by each guess, and at
        most one part per response below it (a counting bound, so a set over it is refuted at once)."""
        most = 1
        for _ in range(left - 1):
            most = 1 + (self.most - 1) * most
        return most

    def _two_left(self, cands: CandidateSet) -> tuple[Code | None, bool]:
        k = int(cands.shape[0])
        words = (k + 63) >> 6
        masks = fk.set_masks(self.table, cands, self.n_resp, words)
        part = np.zeros(words, dtype=np.uint64)
        for j in range(k):
            part[j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        g = int(fk.separator(masks, cands, part, self.n_resp, words))
        return (g, True) if g >= 0 else (None, True)

    def scan(self, cands: CandidateSet, left: int, tries: int | None = None, history: History = (), *,
             start: int = 0, report: Callable[[ScanStep], None] | None = None,
             slot: tuple[int, int] = (0, 1)) -> Verdict:
        """:meth:`witness` that tries *every* guess here (one per class), ``tries`` limiting only the positions
        below, from the ``start``-th guess in order on, reporting each guess as it is settled: a long search
        that can be followed and resumed (``bullscows feasible --scan --progress``).  The verdict's False
        speaks for the guesses from ``start`` on only, and with ``slot`` (k, n) for the guesses whose place in the
        order is k modulo n only (the others are another share's).

        :raises ValueError: fewer than five guesses left (below, :meth:`witness` is exhaustive and quick)."""
        if left < 5:
            raise ValueError(f"a scan is for five guesses left or more, not {left}: ask witness()")
        begin = time.perf_counter()
        cands = np.ascontiguousarray(cands, dtype=np.int32)
        if not (slot[1] >= 1 and 0 <= slot[0] < slot[1]):
            raise ValueError(f"slot {slot[0]} of {slot[1]}: a share is a number from 0 to {slot[1] - 1}")
        guess, proven = self._deeper(cands, left, -1 if tries is None else tries, list(history), own_tries=-1,
                                     start=start, report=report, slot=slot)
        possible = True if guess is not None else (False if proven else None)
        return Verdict(possible, guess, int(cands.shape[0]), left, time.perf_counter() - begin)

    def _deeper(self, cands: CandidateSet, left: int, tries: int, history: list[Turn], *,
                own_tries: int | None = None, start: int = 0, report: Callable[[ScanStep], None] | None = None,
                slot: tuple[int, int] = (0, 1)) -> tuple[Code | None, bool]:
        """Five guesses or more left: each guess in order (one per class of the history's symmetries), its
        parts the biggest first, each by this same search with one guess fewer."""
        from solver.symmetry import classes

        k = int(cands.shape[0])
        largest, parts = fk.part_sizes(self.table, cands, self.n_resp, self.win)
        order = fk.guess_order(largest, parts, k)
        rep = classes(self.game, [t.guess for t in history], [t.response for t in history])
        order = order[rep[order] == order]
        own = tries if own_tries is None else own_tries
        proven = True
        for i, c in enumerate(order.tolist()):
            if i < start or i % slot[1] != slot[0]:
                continue
            if own >= 0 and i >= own:
                return None, False
            if largest[c] > self._most_within(left - 1):
                break
            failed: tuple[int, int, bool] | None = None
            for r, part in self.arrays.parts(c, cands, self.n_resp):
                if r == self.win or part.shape[0] <= 1:
                    continue
                g, sure = self._witness(part, left - 1, tries, [*history, Turn(c, r)])
                if g is None:
                    failed = (r, int(part.shape[0]), sure)
                    proven = proven and sure
                    break
            if report is not None:
                report(ScanStep(i, int(order.shape[0]), int(c), int(largest[c]), failed))
            if failed is None:
                return int(c), True
        return None, proven


@dataclass(frozen=True)
class ScanStep:
    """One guess of a scan, settled."""

    index: int
    """Its place in the order tried (0: first)."""
    of: int
    """How many guesses the order has (one per class)."""
    guess: Code
    largest: int
    """Its largest part."""
    failed: tuple[int, int, bool] | None
    """None when it keeps the limit, else the first part that does not: (response, candidates, proven)."""

    def describe(self, game: Game) -> str:
        """The step as a scan logs it: ``guess 2/5 0012 (largest part 256): fails on 0.1 (312 candidates, proven)``."""
        if self.failed is None:
            how = "keeps the limit"
        else:
            r, size, sure = self.failed
            how = f"fails on {game.format_response(r)} ({size} candidates, {'proven' if sure else 'within --tries'})"
        return f"guess {self.index + 1}/{self.of} {game.format_code(self.guess)} (largest part {self.largest}): {how}"


def feasible_chooser(game: Game, max_guesses: int, tries: int | None = None,
                     feasibility: Feasibility | None = None) -> Chooser:
    """A chooser that keeps every secret within ``max_guesses`` guesses of the game: at each position, the
    first guess found that keeps the limit.  It does not price guesses, so its total is what it is; its worst
    case is the point.

    :raises LimitNotKept: from the chooser, at a position that cannot keep the limit (or that the budget did
        not settle)."""
    f = feasibility or Feasibility(game)
    memo: dict[tuple[Turn, ...], Code] = {}

    def choose(cands: CandidateSet, turns: list[Turn]) -> Code:
        key = tuple(turns)
        known = memo.get(key)
        if known is not None:
            return known
        v = f.witness(cands, max_guesses - len(turns), tries, turns)
        if v.guess is None:
            how = "cannot" if v.possible is False else "was not shown to (budget)"
            raise LimitNotKept(f"{int(cands.shape[0])} candidates after {len(turns)} guesses {how} keep "
                               f"{max_guesses} guesses")
        memo[key] = v.guess
        return v.guess

    return choose


def verdict_for(game: Game, history: History, max_guesses: int, tries: int | None = None,
                feasibility: Feasibility | None = None) -> Verdict:
    """:meth:`Feasibility.witness` of the candidates after ``history``, with the game's limit of ``max_guesses``
    guesses in all (the history's included)."""
    f = feasibility or Feasibility(game)
    return f.witness(game.candidates(history), max_guesses - len(history), tries, history)
