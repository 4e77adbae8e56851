"""Exact values of middle-sized positions by a sweep of their guesses, best proven lower bound first.

Why: the exact search orders and prunes a position's guesses by bounds of their partitions alone (one ply).  In
the deep games (six and seven positions of seven symbols, W = 7 or 8) those bounds are far below the truth, so a
set of a hundred candidates is searched for many minutes, most of it on guesses that cannot win.  The refined
bounds of :mod:`solver.lowerbound` (two plies of real partitions) are within a few guesses of the optimum
there: a 99-candidate set of 6×7 keeps about a fifth of its guess classes below the tree's cost, and each of
those is settled by exact searches of its parts (a few dozen candidates each) in a fraction of a second.

The sweep of a set: every class of guesses gets its refined bound (with the best value so far as the target,
so a hopeless guess costs little); the guesses below the best value are evaluated best bound first, each part
largest first, by a sweep again when the part is bigger than ``kernel_at_most`` and by the exact search
(:class:`solver.search.Searcher`) otherwise, each part's budget being the best value so far less what the others
are proven to need at least.  A guess whose parts reach the best value is dropped at once.  Every value
returned is exact when it is below the ``beta`` asked for, else a lower bound of at least ``beta`` (fail-soft),
as the search's are; every bound used is admissible, so the value is the optimum.

It answers the total (T, no depth limit) and the total within ``max_guesses`` guesses (T_W): the refined
bounds are T's, and T_W ≥ T, so they prune both.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from solver import kernels
from solver.game import CandidateSet, Code, Game, History, Turn
from solver.position import Position
from solver.question import INF, SolveOptions
from solver.search import Searcher
from solver.vocabulary import Criterion, paid

KERNEL_AT_MOST = 60
"""Sets of at most this many candidates go to the exact search at once (a fraction of a second in 6×7)."""

Log = Callable[[str], None]


class OutOfTime(Exception):
    """The sweep's deadline passed: what it was computing is not proven (what it proved before is kept)."""


@dataclass(frozen=True)
class SweepResult:
    """A sweep's answer for one position."""

    value: int | None
    """Game-level total (every guess counted, the history's included): exact when ``exact``, else a lower bound
    of at least the ``beta`` asked for; None when no strategy keeps within ``max_guesses``."""
    exact: bool
    guess: Code | None
    """The best guess, when the value is exact."""
    guesses: int
    """Guesses evaluated (each part searched) over the whole sweep, nested sweeps included."""
    seconds: float
    cut: bool = False
    """The deadline passed: the value is then None, and only ``found`` (when given) is kept."""
    found: int | None = None
    """When cut: the game-level total of the cheapest guess the sweep had evaluated in full before the deadline
    (below ``beta``), an upper bound of the value that a tree can play (:meth:`Sweeper.chooser`); else None."""
    found_guess: Code | None = None


@dataclass(frozen=True)
class SweepProgress:
    """What a sweep of one set has proven so far, game-level: what a long sweep keeps between runs.

    Why: a sweep of a root part of 6×7 (265 candidates) evaluates dozens of guesses, each for minutes; a run
    stopped by a deadline or a kill must not do them again.  Each guess is either the cheapest evaluated in
    full (``found``, its exact cost) or refuted (its cost proven at least the bound kept, then at least the
    found cost), and a sweep started from this skips both.
    """

    found: int | None = None
    found_guess: Code | None = None
    refuted: dict[Code, int] = field(default_factory=dict)
    """Guess -> a lower bound of its cost, at least ``found`` when that was proven."""
    left: int | None = None
    """Guesses still to evaluate (their refined bounds below ``found``), when a running sweep tells it."""
    partial: dict[Code, dict[int, tuple[int, bool]]] = field(default_factory=dict)
    """The guess under way when the progress was taken: guess -> response -> (the part's own cost, from its
    position on, and whether it is exact; else a lower bound): a guess that takes an hour is not evaluated again
    from nothing."""


def progress_to_json(game: Game, progress: SweepProgress) -> dict[str, object]:
    """A sweep's progress as the campaigns' files keep it: codes and responses as text, values game-level (the
    cheapest guess as ``found: [value, code]``, the refuted guesses, and the parts of the guess under way)."""
    return {
        **({} if progress.found is None or progress.found_guess is None else
           {"found": [progress.found, game.format_code(progress.found_guess)]}),
        "refuted": {game.format_code(c): v for c, v in sorted(progress.refuted.items())},
        **({} if not progress.partial else {"partial": {
            game.format_code(c): {game.format_response(r): [v, exact] for r, (v, exact) in sorted(parts.items())}
            for c, parts in sorted(progress.partial.items())}}),
    }


def progress_from_json(game: Game, doc: object) -> SweepProgress:
    """The :func:`progress_to_json` form read back.

    :raises ValueError: a document, code, response or value that is not one of ``game``'s sweep progress.
    """
    from solver.errors import SolverError

    try:
        if not isinstance(doc, dict):
            raise TypeError(f"not an object: {doc!r}")
        refuted = {game.parse_code(code): int(v) for code, v in doc.get("refuted", {}).items()}
        partial = {game.parse_code(code): {game.parse_response(r): (int(v), bool(exact))
                                           for r, (v, exact) in parts.items()}
                   for code, parts in doc.get("partial", {}).items()}
        found = doc.get("found")
        if found is None:
            return SweepProgress(refuted=refuted, partial=partial)
        value, code = found
        return SweepProgress(int(value), game.parse_code(code), refuted, partial=partial)
    except (SolverError, ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a sweep's progress of {game.spec}: {exc!r}") from None


class Sweeper:
    """Sweeps of one game's positions, sharing one exact searcher (and its transposition table) and what every
    sweep proved (exact values and lower bounds of candidate sets, turn-independent).

    ``max_guesses``: the whole game's guess limit (T_W); None for T.  ``depth``: plies of the guesses' refined
    bounds.
    """

    def __init__(self, game: Game, *, max_guesses: int | None = None, kernel_at_most: int = KERNEL_AT_MOST,
                 depth: int = 2, searcher: Searcher | None = None, log: Log = lambda _: None) -> None:
        if kernel_at_most < 2:
            raise ValueError("kernel_at_most must be at least 2")
        self.game = game
        self.max_guesses = max_guesses
        self.kernel_at_most = kernel_at_most
        self.depth = depth
        self.searcher = searcher or Searcher(game, SolveOptions(Criterion.TOTAL, max_guesses), table_capacity=1 << 22)
        self.log = log
        self.exact: dict[tuple[int, bytes], tuple[int, int]] = {}
        """(turn, candidate set) -> (turn-independent value, best guess), for sets bigger than
        ``kernel_at_most``; the turn is 0 without a guess limit (the value does not depend on it then)."""
        self.lower: dict[tuple[int, bytes], int] = {}
        """The same keys -> turn-independent lower bound proven by a sweep that failed high."""
        self.upper: dict[tuple[int, bytes], tuple[int, int]] = {}
        """The same keys -> (turn-independent cost, guess) of the cheapest guess a sweep evaluated in full there
        before it was cut: what a cut sweep keeps, and where the next sweep of the set starts from."""
        self.refuted: dict[tuple[int, bytes], dict[int, int]] = {}
        """The same keys -> {guess: turn-independent lower bound of its cost} for the guesses a sweep proved no
        cheaper than its best one there (dropped once the set is exact)."""
        self.partial: dict[tuple[int, bytes], dict[int, dict[int, tuple[int, bool]]]] = {}
        """The watched set's key (the set :meth:`value` was asked) -> the parts' values of its guesses under way
        (:attr:`SweepProgress.partial`)."""
        self._watch: tuple[tuple[int, bytes], int, Callable[[SweepProgress], None]] | None = None
        self.guesses = 0
        self._deadline = float("inf")

    # -- one position ----------------------------------------------------------------------------------------------

    def value(self, history: History, *, cands: CandidateSet | None = None, beta: int | None = None,
              seconds: float | None = None, resume: SweepProgress | None = None,
              record: Callable[[SweepProgress], None] | None = None) -> SweepResult:
        """The game-level optimal total after ``history`` (``cands`` its candidates), exact when below ``beta``
        (game-level; None: no bound), else a lower bound of at least ``beta``; within ``seconds`` of wall-clock
        time when given (past it the result is ``cut``, with no value).

        ``resume``: what an earlier sweep of this set proved (:class:`SweepProgress`, from ``record``), taken as
        it stands.  ``record``: called with the set's progress after each of its guesses is evaluated."""
        started = time.perf_counter()
        guesses0 = self.guesses
        self._deadline = float("inf") if seconds is None else started + seconds
        at = self._position(history, cands)
        offset = paid(at.size, at.turn)
        b = INF + 1 if beta is None else min(max(0, int(beta) - offset), INF + 1)
        key = self._key(at)
        if resume is not None:
            self._resume(key, offset, resume)
        self._watch = None if record is None else (key, offset, record)
        try:
            v, g = self._value(at, b)
        except OutOfTime:
            spent = time.perf_counter() - started
            up = self.upper.get(key) if at.size > self.kernel_at_most else None
            if up is None or up[0] >= b:
                return SweepResult(None, False, None, self.guesses - guesses0, spent, cut=True)
            return SweepResult(None, False, None, self.guesses - guesses0, spent, cut=True, found=up[0] + offset,
                               found_guess=up[1])
        finally:
            self._deadline = float("inf")
            self._watch = None
        spent = time.perf_counter() - started
        if v >= INF:
            return SweepResult(None, True, None, self.guesses - guesses0, spent)
        return SweepResult(v + offset, v < b, g if v < b else None, self.guesses - guesses0, spent)

    def _value(self, at: Position, beta: int) -> tuple[int, int]:
        """(turn-independent value, best guess or -1) of the position ``at``: exact below ``beta``, else a lower
        bound of at least ``beta``."""
        k = self.max_guesses
        if k is not None and at.turn > k:
            return INF, -1
        if at.size == 1:
            return 1, int(at.cands[0])
        if at.size <= self.kernel_at_most:
            return self._kernel(at, beta)
        key = self._key(at)
        known = self.exact.get(key)
        if known is not None:
            return known
        floor = self.lower.get(key, 0)
        if floor >= beta:
            return floor, -1
        value, guess = self._sweep(at, beta, key)
        if guess >= 0:
            self.exact[key] = (value, guess)
            self.upper.pop(key, None)
            self.refuted.pop(key, None)
        elif value < INF:
            self.lower[key] = max(floor, value)
        return value, guess

    def progress(self, history: History, *, cands: CandidateSet | None = None) -> SweepProgress:
        """What the sweeps so far proved of the set after ``history`` (game-level), for :meth:`value`'s
        ``resume``; the exact value, when it is known, as ``found`` with nothing refuted."""
        at = self._position(history, cands)
        return self._progress(self._key(at), paid(at.size, at.turn))

    def _progress(self, key: tuple[int, bytes], offset: int) -> SweepProgress:
        best = self.exact.get(key) or self.upper.get(key)
        done = key in self.exact
        refuted = {} if done else self.refuted.get(key, {})
        settled = {best[1]} if best is not None else set()
        partial = {} if done else {g: dict(parts) for g, parts in self.partial.get(key, {}).items()
                                   if parts and g not in refuted and g not in settled}
        return SweepProgress(None if best is None else best[0] + offset, None if best is None else best[1],
                             {g: v + offset for g, v in refuted.items()}, partial=partial)

    def _resume(self, key: tuple[int, bytes], offset: int, known: SweepProgress) -> None:
        if key in self.exact:
            return
        if known.found is not None and known.found_guess is not None:
            old = self.upper.get(key)
            if old is None or known.found - offset < old[0]:
                self.upper[key] = (known.found - offset, int(known.found_guess))
        refuted = self.refuted.setdefault(key, {})
        for g, v in known.refuted.items():
            refuted[int(g)] = max(refuted.get(int(g), 0), int(v) - offset)
        partial = self.partial.setdefault(key, {})
        for g, parts in known.partial.items():
            mine = partial.setdefault(int(g), {})
            for r, (v, exact) in parts.items():
                old_v, old_exact = mine.get(int(r), (0, False))
                if exact:
                    mine[int(r)] = (int(v), True)
                elif not old_exact:
                    mine[int(r)] = (max(old_v, int(v)), False)

    def _position(self, history: History, cands: CandidateSet | None) -> Position:
        """The position after ``history``, its candidates as the kernels take them (``cands`` when given)."""
        return Position.of(self.game, history,
                           None if cands is None else np.ascontiguousarray(cands, dtype=np.int32))

    def _key(self, at: Position) -> tuple[int, bytes]:
        """The memo's key of a position's set: its turn only matters under a guess limit."""
        return (0 if self.max_guesses is None else at.turn, at.cands.tobytes())

    def _kernel(self, at: Position, beta: int) -> tuple[int, int]:
        turns, cands = list(at.history), at.cands
        offset = paid(at.size, at.turn)
        left = self._deadline - time.perf_counter()
        if left <= 0:
            raise OutOfTime
        options = SolveOptions(Criterion.TOTAL, self.max_guesses, upper_bound=beta + offset if beta <= INF else None)
        if left == float("inf"):
            res = self.searcher.solve(turns, cands=cands, options=options)
        else:
            res = self.searcher.solve_within(turns, left, cands=cands, options=options)
        if res.cut:
            raise OutOfTime
        if res.value is None:
            return INF, -1
        v = res.value - offset
        return (v, int(res.best_guess)) if res.exact and res.best_guess is not None and v < beta else (max(v, beta), -1)

    def _sweep(self, at: Position, beta: int, key: tuple[int, bytes]) -> tuple[int, int]:
        from solver.bounds import lower_bound_tables
        from solver.lowerbound import root_classes, root_lower_bound
        from solver.table import MMAX

        game = self.game
        turns, n, turn = list(at.history), at.size, at.turn
        offset = paid(n, turn)
        lb0 = lower_bound_tables(game, game.size)[0, Criterion.TOTAL.code, MMAX]
        ranked: list[tuple[int, int, dict[int, int]]] = []
        fail = INF  # the least lower bound of the guesses that do not beat beta (fail-soft)
        known = self.upper.get(key)  # a guess an earlier, cut sweep evaluated in full: the bar to beat
        bar = known[0] if known is not None and known[0] < beta else beta
        refuted = self.refuted.setdefault(key, {})
        for g in root_classes(game, turns, searcher=self.searcher):
            if time.perf_counter() > self._deadline:
                raise OutOfTime
            if refuted.get(g, -1) >= bar:
                # an earlier sweep of this set proved it no cheaper than the bar: its refined bound (two plies of
                # partitions, most of a resumed sweep's start-up on a set of hundreds) is not needed
                fail = min(fail, refuted[g])
                continue
            target = None if beta > INF else beta + offset
            rb = root_lower_bound(game, turns, self.depth, guesses=[g], target=target, searcher=self.searcher)
            lower = rb.value - offset
            if lower < beta:
                ranked.append((lower, g, {p.response: p.lower for p in rb.parts}))
            else:
                fail = min(fail, lower)
        ranked.sort(key=lambda item: item[0])
        best, best_g = beta, -1
        if known is not None and known[0] < beta:
            best, best_g = known
        watched = self._watch is not None and self._watch[0] == key
        for lower, g, part_lower in ranked:
            if lower >= best:
                fail = min(fail, lower)
                break
            if g == best_g:
                continue
            if refuted.get(g, -1) >= best:  # proven no cheaper by an earlier sweep of this set
                fail = min(fail, refuted[g])
                continue
            with_parts = watched or key in self.partial  # kept for the watched set, or resumed from
            v = self._try(at, g, best, part_lower, lb0, key if with_parts else None)
            if with_parts:
                self.partial.get(key, {}).pop(g, None)  # settled one way or the other below
            if v < best:
                if best_g >= 0:  # the guess it replaces costs exactly its value, now above the best
                    refuted[best_g] = best
                best, best_g = v, g
                self.upper[key] = (v, g)
                self.log(f"guess {turn}, {n} candidates: {game.format_code(g)} needs {v + offset}")
            else:
                fail = min(fail, v)
                refuted[g] = max(refuted.get(g, 0), v)
            if watched and self._watch is not None:
                left = sum(1 for low, h, _ in ranked if low < best and h != best_g and refuted.get(h, -1) < best)
                self._watch[2](dataclasses.replace(self._progress(key, self._watch[1]), left=left))
        if best_g >= 0:
            return best, best_g
        return max(fail, beta) if fail < INF else INF, -1

    def _try(self, at: Position, guess: int, beta: int, part_lower: dict[int, int], lb0: np.ndarray,
             watched: tuple[int, bytes] | None = None) -> int:
        """Turn-independent value of ``guess`` at ``at`` (below ``beta``), else a bound of at least ``beta``.
        ``watched``: the set's key when its parts' values are kept as they come (the watched set's, recorded each
        time) or known from an earlier run (:attr:`partial`)."""
        game = self.game
        self.guesses += 1
        a = self.searcher.arrays
        order, starts = kernels.split(*a.kernel_args(), guess, at.cands, game.n_responses)
        win = game.all_bulls
        known = {} if watched is None else self.partial.setdefault(watched, {}).setdefault(guess, {})
        parts = []
        for r in range(game.n_responses):
            size = int(starts[r + 1] - starts[r])
            if size and r != win:
                parts.append((size, r, max(int(part_lower.get(r, 0)), int(lb0[size]), known.get(r, (0, False))[0])))
        parts.sort(key=lambda p: (-p[0], p[1]))
        acc = at.size  # this guess, counted for every candidate
        rest = sum(p[2] for p in parts)
        if acc + rest >= beta:
            return acc + rest
        for _size, r, low in parts:
            rest -= low
            budget = beta - acc - rest
            had = known.get(r)
            if had is not None and (had[1] or had[0] >= budget):  # an earlier run's value of this part
                v = had[0]
            else:
                sub = np.ascontiguousarray(order[int(starts[r]):int(starts[r + 1])], dtype=np.int32)
                v, _ = self._value(at.after(guess, r, sub), budget)
                if watched is not None:
                    known[r] = (v, v < budget)
                    if self._watch is not None and self._watch[0] == watched:
                        self._watch[2](self._progress(watched, self._watch[1]))
            acc = min(acc + v, INF)
            if acc + rest >= beta:
                return min(acc + rest, INF)
        return acc

    # -- trees -----------------------------------------------------------------------------------------------------

    def chooser(self) -> Callable[[CandidateSet, list[Turn]], Code]:
        """A tree chooser playing the sweep's best guesses above ``kernel_at_most`` candidates and the exact
        search's below (both optimal): for :func:`solver.tree.build_tree` below a position a sweep proved, or below
        one where a cut sweep found a guess (:attr:`SweepResult.found`; the tree then plays that guess, and
        below it the optimum of each part, all of them proven when the guess was evaluated in full)."""
        small = self.searcher.chooser(options=SolveOptions(Criterion.TOTAL, self.max_guesses))

        def choose(cands: CandidateSet, turns: list[Turn]) -> Code:
            at = self._position(turns, cands)
            if at.size <= self.kernel_at_most:
                return small(at.cands, turns)
            key = self._key(at)
            known = self.exact.get(key) or self.upper.get(key)
            if known is None:
                known = self._value(at, INF + 1)
            return int(known[1])

        return choose
