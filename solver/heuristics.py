"""One-step strategies: pick the next guess by looking one response ahead.

Each strategy scores every allowed guess by how it partitions the candidate set, in one numba
kernel call (:func:`solver.kernels.best_guess`).  The registry :data:`STRATEGIES` maps the public
names to factories; :func:`get_strategy` is the only way in and rejects unknown names.

Tie-break, shared by all of them and relied upon by the tests: among guesses of equal score a
candidate (a code still consistent with the history) wins, then the lowest code index.  A single
remaining candidate is always the guess.

This module does no exact search (see :mod:`solver.search`) and no I/O.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from solver import kernels, symmetry
from solver.codes import GameArrays
from solver.errors import InconsistentHistoryError, UnknownStrategyError
from solver.game import CandidateSet, Code, Game, History
from solver.vocabulary import ONE_STEP_STRATEGIES

_NO_CLASSES: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
_EMPTY_CODES: npt.NDArray[np.int32] = np.zeros(0, dtype=np.int32)
# read-only like the arrays they stand in for: one kernel signature (see solver.codes)
_NO_CLASSES.setflags(write=False)
_EMPTY_CODES.setflags(write=False)

POSITION_CLASSES_MIN_WORK = 1 << 22
"""Score pairs (candidates x codes) from which a position's history symmetry is worth computing:
below it the per-code symbol classes alone are cheaper than enumerating position permutations."""


@dataclass(frozen=True)
class Choice:
    """A chosen guess with the score that chose it."""

    guess: Code
    """The code to play next."""
    score: float | None
    """The strategy's score of that guess (lower is better), or None for score-free strategies."""
    cut: tuple[int, int] | None = None
    """``(scored, pool)`` when a time budget stopped the scan after ``scored`` of the ``pool`` guesses
    it had to score (the guess is the best of those); None when the answer is the strategy's own."""


class Strategy(Protocol):
    """Anything that picks a guess for a candidate set."""

    @property
    def name(self) -> str:
        """Registry name."""
        ...

    def choose(self, game: Game, cands: CandidateSet, arrays: GameArrays | None = None,
               history: History | None = None, *, budget_s: float | None = None,
               work_s: float | None = None) -> Choice:
        """The next guess when ``cands`` are the codes still possible.

        ``history``, the turns that left ``cands``, never changes the answer; strategies that score
        every code use it to score one code per symmetry class.  ``budget_s`` bounds the scoring in
        wall-clock seconds (services answering live): past it the best guess scored so far is
        returned, marked by :attr:`Choice.cut`.  The scan is bounded first by the work that ``work_s``
        seconds (default ``budget_s``) buy at :data:`SCAN_RATE`, which the same question always reaches at
        the same guess; the clock only stops a scan on a machine much slower than that rate assumes
        (:data:`CLOCK_SLACK`).
        """
        ...


@functools.lru_cache(maxsize=32)
def nlogn(n: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``k*log2(k)`` and ``k*ln(k)`` for ``k = 0..n`` (0 at 0)."""
    k = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        log2n = np.where(k > 0, k * np.log2(np.maximum(k, 1)), 0.0)
        lnn = np.where(k > 0, k * np.log(np.maximum(k, 1)), 0.0)
    return np.ascontiguousarray(log2n), np.ascontiguousarray(lnn)


@functools.lru_cache(maxsize=32)
def _canonical(game: Game, absent: int, uncalled: int) -> npt.NDArray[np.int32]:
    """The codes :func:`solver.kernels.is_canonical` keeps for these symbol classes.  A whole tree
    meets only a few distinct (absent, uncalled) pairs, so one scan of every code per pair is
    enough, instead of one per node."""
    if absent == 0 and uncalled == 0:
        codes: npt.NDArray[np.int32] = np.arange(game.size, dtype=np.int32)
    else:
        codes = kernels.class_lowest_codes(game.arrays().codes, np.int64(absent), np.int64(uncalled))
    codes.setflags(write=False)
    return codes


SCAN_RATE = 50_000_000
"""(guess, candidate) responses a one-step scan is assumed to count per second, for its work cap: about a tenth of the
slowest rate measured on the reference 2-core machine (15 positions of 2 symbols, responses computed without a
table: 4.4e8 a second; with a table or factor tables, and symmetry classes, scans run far faster)."""


CLOCK_SLACK = 2.0
"""A scan with a budget stops at the work that budget buys (:data:`SCAN_RATE`), or at this many times the budget by
the clock, whichever comes first.  The work binds first on a machine as fast as the rate assumes, busy or not, and
gives the same guess to the same question; the clock is the safety net of a machine much slower than that (when
it stopped scans at the budget itself, a loaded 2-core machine gave two guesses to one question)."""


@contextlib.contextmanager
def _deadline(ctl: npt.NDArray[np.int64], budget_s: float | None) -> Iterator[None]:
    """Set ``ctl[0]`` after ``budget_s`` seconds, from a timer thread: the scoring kernel frees the
    GIL and checks it between guesses, so the scan stops at the deadline, whatever the game's size."""
    if budget_s is None:
        yield
        return
    timer = threading.Timer(max(0.0, budget_s), ctl.__setitem__, (0, 1))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _check(cands: CandidateSet) -> None:
    if cands.shape[0] == 0:
        raise InconsistentHistoryError("no candidate is left: the history is inconsistent")


@dataclass(frozen=True)
class PartitionStrategy:
    """A strategy that scores guesses by the sizes of the parts they split the candidates into."""

    name: str
    """Registry name."""
    kernel_id: int
    """Strategy identifier of :func:`solver.kernels.best_guess`."""
    from_set_only: bool = False
    """Only candidates may be guessed."""

    def choose(self, game: Game, cands: CandidateSet, arrays: GameArrays | None = None,
               history: History | None = None, *, budget_s: float | None = None,
               work_s: float | None = None) -> Choice:
        _check(cands)
        if cands.shape[0] <= 2:
            # One left: it is the guess.  Two left: either candidate is optimal for every score, and
            # the tie-break takes the lower.
            return Choice(int(cands[0]), None)
        ctl = np.zeros(4, dtype=np.int64)
        work_s = budget_s if work_s is None else work_s
        if work_s is not None:
            ctl[3] = max(1, int(work_s * SCAN_RATE))
        a = arrays if arrays is not None else game.arrays()
        m = int(cands.shape[0])
        log2n, lnn = nlogn(max(64, 1 << m.bit_length()))  # a few sizes per tree, all cached
        # Symbols in no candidate, and symbols no guess has used, are interchangeable: one code per
        # class of them is scored.  Without the history every symbol counts as used.
        called = a.called(history) if history is not None else (1 << game.symbols) - 1
        absent, uncalled = kernels.digit_classes(cands, a.masks, np.int64(called), game.symbols)
        rep = _NO_CLASSES
        if history is not None and m * (m if self.from_set_only else game.size) >= POSITION_CLASSES_MIN_WORK:
            turns = tuple((int(t.guess), int(t.response)) for t in history)
            # Classes cost about a third of a scored response per (code, transformation) pair: under a work cap
            # they are made only when they cost at most a third of the scan they shorten (a history of Super
            # Mastermind's can have 120 transformations of 32768 codes, 27 ms, more than a 30 ms budget).  The
            # rule depends on the question only, so the same question still gets the same guess.
            if ctl[3] == 0 or symmetry.position_classes_work(game, turns) <= ctl[3]:
                found = symmetry.position_classes(game, turns)
                if found is not None:
                    rep = found
        f = game.factors()
        canon = _EMPTY_CODES if self.from_set_only else _canonical(game, int(absent), int(uncalled))
        # The clock runs from the scan: the set-up above is cached per game (and per history's symmetry), so only
        # a process's first question of a big game pays for it (a tenth of a second at 32768 codes); had it
        # counted, that first question's scan would be cut by the clock and its guess differ from the next time's.
        with _deadline(ctl, None if budget_s is None else budget_s * CLOCK_SLACK):
            guess, score = kernels.best_guess_by_class(
                *a.kernel_args(), cands, canon, self.from_set_only, game.n_responses, self.kernel_id,
                log2n, lnn, absent, uncalled, rep, f.keys, *f.tables, ctl,
            )
        cut = (int(ctl[1]), int(ctl[2])) if ctl[1] < ctl[2] else None
        return Choice(int(guess), float(score), cut)


@dataclass(frozen=True)
class FirstConsistent:
    """Always the lowest-index candidate (the classic "next consistent in order" player)."""

    name: str = "first-consistent"

    def choose(self, game: Game, cands: CandidateSet, arrays: GameArrays | None = None,
               history: History | None = None, *, budget_s: float | None = None,
               work_s: float | None = None) -> Choice:
        _check(cands)
        return Choice(int(cands[0]), None)


@dataclass(frozen=True)
class RandomConsistent:
    """A uniformly random candidate, reproducible from ``seed``.

    The draw depends only on the seed and the candidate set (not on call order), so a whole tree of
    this strategy is deterministic and the same position always gets the same answer.
    """

    seed: int = 0
    """Seed of the pseudo-random choice."""
    name: str = "random-consistent"

    def choose(self, game: Game, cands: CandidateSet, arrays: GameArrays | None = None,
               history: History | None = None, *, budget_s: float | None = None,
               work_s: float | None = None) -> Choice:
        _check(cands)
        digest = zlib.crc32(np.ascontiguousarray(cands, dtype=np.int32).tobytes())
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, digest, int(cands.shape[0])])
        return Choice(int(cands[int(rng.integers(cands.shape[0]))]), None)


def _partition(name: str, kernel_id: int) -> Callable[..., Strategy]:
    def make(*, from_set_only: bool = False, seed: int = 0) -> Strategy:
        return PartitionStrategy(name, kernel_id, from_set_only)

    return make


def _random(*, from_set_only: bool = False, seed: int = 0) -> Strategy:
    return RandomConsistent(seed)


def _first(*, from_set_only: bool = False, seed: int = 0) -> Strategy:
    return FirstConsistent()


STRATEGIES: dict[str, Callable[..., Strategy]] = {
    "minimax": _partition("minimax", kernels.MINIMAX),
    "most-parts": _partition("most-parts", kernels.MOST_PARTS),
    "entropy": _partition("entropy", kernels.ENTROPY),
    "expected-size": _partition("expected-size", kernels.EXPECTED_SIZE),
    "larmouth": _partition("larmouth", kernels.LARMOUTH),
    "crush": _partition("crush", kernels.CRUSH),
    "first-consistent": _first,
    "random-consistent": _random,
}
"""One-step strategies by public name."""

assert tuple(STRATEGIES) == ONE_STEP_STRATEGIES, "the registry follows solver.vocabulary"


def get_strategy(name: str, *, from_set_only: bool = False, seed: int = 0) -> Strategy:
    """The one-step strategy registered as ``name``.

    :raises UnknownStrategyError: ``name`` is not registered.
    """
    try:
        factory = STRATEGIES[name]
    except KeyError:
        raise UnknownStrategyError(
            f"unknown strategy {name!r}; one-step strategies are: {', '.join(STRATEGIES)}"
        ) from None
    return factory(from_set_only=from_set_only, seed=seed)


def partition(game: Game, guess: Code, cands: CandidateSet,
              arrays: GameArrays | None = None) -> dict[int, int]:
    """Number of candidates giving each response to ``guess`` (responses with none omitted)."""
    a = arrays if arrays is not None else game.arrays()
    counts = kernels.partition_matrix(
        *a.kernel_args(), np.array([guess], dtype=np.int32), cands, game.n_responses
    )[0]
    return {int(r): int(c) for r, c in enumerate(counts) if c}
