"""Glue between the HTTP layer, the solver and the store: the two-level cache.

A :class:`SolverPool` keeps a warm :class:`solver.search.Searcher` (and so its in-memory
transposition table) per question, created with the question's persisted entries loaded (warm
start) and guarded by a lock (the kernels share workspace arrays).  A solve first asks the database
for the exact position and its best guess's parts — O(1) queries, zero nodes searched when found —
and otherwise searches; afterwards the root, its parts and every entry whose search cost passed the
threshold are written back in one bulk upsert.  The database is never touched per search node.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import structlog

from service.config import Settings
from service.schemas import GameSpec, TurnIn
from service.store.db import StorageError
from service.store.positions import PositionStore
from solver import kernels
from solver.errors import SolverError
from solver.game import DEFAULT_ALPHABET, Game, Turn
from solver.heuristics import get_strategy
from solver.search import Searcher, SolveOptions, SolveResult, fallback_move, searchable, step_note
from solver.table import MMAX, Entry


class HistoryTooLongError(SolverError):
    """More turns than the service accepts."""

    slug = "history-too-long"


def game_of(spec: str | GameSpec, settings: Settings) -> Game:
    """The game a request names, within the service's size limit."""
    if isinstance(spec, GameSpec):
        return Game(spec.positions, spec.symbols, spec.repetition, spec.alphabet or DEFAULT_ALPHABET,
                    max_codes=settings.max_codes)
    return Game.from_spec(spec, max_codes=settings.max_codes)


def history_of(game: Game, items: list[TurnIn | str], settings: Settings) -> tuple[list[Turn], np.ndarray]:
    """A validated history (codes, responses, consistency) and the candidates it leaves."""
    if len(items) > settings.max_history:
        raise HistoryTooLongError(
            f"history has {len(items)} turns, more than the limit of {settings.max_history}"
        )
    turns = [game.parse_turn(it) if isinstance(it, str)
             else Turn(game.parse_code(it.guess), game.encode_response(it.bulls, it.cows)) for it in items]
    return turns, game.candidates(turns)  # raises InconsistentHistoryError naming the turn


def warm_searcher(store: PositionStore, game: Game, options: SolveOptions, capacity: int = 1 << 20,
                  threshold: int = 64) -> Searcher:
    """A searcher for the question of ``options`` (no budget, bound or chain: those are per call)
    whose transposition table starts with every position the store holds for that question."""
    searcher = Searcher(game, SolveOptions(options.criterion, options.max_guesses, None, options.mde,
                                           options.from_set_only),
                        table_capacity=capacity, export_threshold=threshold)
    searcher.table().load(store.load_entries(searcher.options.table_key(game)))
    return searcher


@dataclass
class _Slot:
    searcher: Searcher
    lock: threading.Lock


class SolverPool:
    """Warm searchers per question (LRU), each loaded from the store when created."""

    def __init__(self, store: PositionStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._slots: OrderedDict[tuple[Any, ...], _Slot] = OrderedDict()
        self._lock = threading.Lock()
        self.searches = threading.BoundedSemaphore(max(1, settings.max_searches))
        """Searches running at once in this process; a question finding none free does not wait."""

    def slot(self, game: Game, options: SolveOptions) -> _Slot:
        key = (game.spec, options.criterion, options.max_guesses, options.mde, options.from_set_only)
        with self._lock:
            slot = self._slots.get(key)
            if slot is not None:
                self._slots.move_to_end(key)
                return slot
        searcher = warm_searcher(self.store, game, options, self.settings.table_capacity,
                                 self.settings.export_threshold)
        slot = _Slot(searcher, threading.Lock())
        with self._lock:
            slot = self._slots.setdefault(key, slot)
            while len(self._slots) > self.settings.searchers:
                self._slots.popitem(last=False)
        return slot


def _parts(game: Game, cands: np.ndarray, guess: int) -> list[tuple[int, tuple[int, ...]]]:
    a = game.arrays(table=True)
    order, starts = kernels.split(*a.kernel_args(), guess, cands, game.n_responses)
    return [(r, tuple(int(c) for c in order[starts[r]:starts[r + 1]]))
            for r in range(game.n_responses) if starts[r + 1] > starts[r]]


def _remaining(options: SolveOptions, turn: int) -> int:
    return MMAX if options.max_guesses is None else options.max_guesses - turn + 1


def cached_solve(store: PositionStore, game: Game, history: list[Turn], options: SolveOptions,
                 cands: np.ndarray) -> SolveResult | None:
    """The answer from the database alone (root and every part of its best guess), or None.

    ``cands`` are the candidates after ``history`` (computed once by the caller).
    """
    if options.depth_count is not None or options.upper_bound is not None:
        return None
    t0 = time.perf_counter()
    turn = len(history) + 1
    key = options.table_key(game)
    root_codes = tuple(int(c) for c in cands)
    found = store.lookup(key, [root_codes], _remaining(options, turn), turn)
    root = found.get(root_codes)
    if root is None or not root.exact:
        return None
    n = len(root_codes)
    total = options.criterion == "total"
    offset = n * (turn - 1) if total else 0
    if root.value is None:
        return SolveResult(None, False, True, None, {}, 0, time.perf_counter() - t0, n,
                           options.max_guesses if not total else None)
    if root.best_guess is None:
        return None
    parts = _parts(game, cands, root.best_guess)
    sub = store.lookup(key, [codes for r, codes in parts if r != game.all_bulls and len(codes) > 1],
                       _remaining(options, turn + 1), turn + 1)
    per: dict[int, int | None] = {}
    for r, codes in parts:
        size = len(codes)
        if r == game.all_bulls:
            per[r] = turn if total else int(options.max_guesses == turn)
            continue
        if size == 1:
            per[r] = (turn + 1) if total else int(options.max_guesses == turn + 1)
            continue
        e = sub.get(codes)
        if e is None or not e.exact or e.value is None:
            return None
        per[r] = e.value + (size * turn if total else 0)
    # a searched k-movers answer names the k it counted (its one-step chain); so does the cached one
    chain: dict[int, int | None] = {} if total or options.max_guesses is None else {options.max_guesses: root.value}
    return SolveResult(root.value + offset, True, True, root.best_guess, per, 0, time.perf_counter() - t0, n,
                       options.max_guesses if not total else None, chain)


def position_entries(game: Game, options: SolveOptions, cands: np.ndarray, turn: int, value: int | None,
                     best_guess: int | None, per_response: dict[int, int | None], *, root: bool = True,
                     cost: int = 1, part_best: dict[int, int | None] | None = None) -> list[Entry]:
    """A solved position as table entries (turn-independent values): the root itself (unless
    ``root`` is False) and each response of ``best_guess`` whose game-level value is in
    ``per_response``, with its own best guess from ``part_best`` when known."""
    key = options.table_key(game)
    total = options.criterion == "total"
    out: list[Entry] = []
    if root:
        n = int(cands.shape[0])
        root_value = None if value is None else value - (n * (turn - 1) if total else 0)
        out.append(Entry(key, tuple(int(c) for c in cands), _remaining(options, turn), turn, True, root_value,
                         best_guess, max(cost, 1)))
    if best_guess is not None:
        for r, codes in _parts(game, cands, best_guess):
            v = per_response.get(r)
            if r == game.all_bulls or len(codes) < 2 or v is None:
                continue
            out.append(Entry(key, codes, _remaining(options, turn + 1), turn + 1, True,
                             v - (len(codes) * turn if total else 0), (part_best or {}).get(r), 1))
    return out


def _entries_of(result: SolveResult, game: Game, history: list[Turn], options: SolveOptions,
                cands: np.ndarray) -> list[Entry]:
    """The root and its parts as table entries (turn-independent values)."""
    if not result.exact or options.depth_count is not None or options.upper_bound is not None:
        return []
    return position_entries(game, options, cands, len(history) + 1, result.value, result.best_guess,
                            result.per_response, cost=result.nodes)


def warm_up() -> None:
    """Load (or compile) every kernel a request can run, on a tiny game.

    Budgets are wall-clock time, so the first search of a process must not spend its budget loading
    the search kernels from numba's cache, or compiling them on a fresh install (seconds).  The
    kernels' argument types do not depend on the game, so one tiny game covers every game.
    """
    game = Game(2, 3, True)
    for options in (SolveOptions("total"), SolveOptions("kmovers", 3)):
        Searcher(game, options, table_capacity=1024).solve(())
    for criterion in ("total", "kmovers"):
        fallback_move(game, game.all_codes, [], criterion)


def _unfinished(cands: np.ndarray) -> SolveResult:
    """The answer of a search that did not run (every search of the process was busy)."""
    return SolveResult(value=None, possible=True, exact=False, best_guess=None, per_response={}, nodes=0,
                       seconds=0.0, candidates=int(cands.shape[0]))


def solve(pool: SolverPool, game: Game, history: list[Turn], cands: np.ndarray, options: SolveOptions,
          budget_ms: int, guess: int | None = None, *, cache: bool = True) -> tuple[SolveResult, str, bool]:
    """(result, source, complete): from the database when it knows, else by a bounded search.

    ``cands`` are the candidates after ``history`` (from :func:`history_of`); ``cache`` False skips
    the database lookup (the caller already made it).
    """
    options.validate(game, len(history) + 1)
    from service.metrics import record_solve

    if guess is None and cache:
        hit = cached_solve(pool.store, game, history, options, cands)
        if hit is not None:
            record_solve("cache", 0)
            return hit, "cache", True
    deadline = time.monotonic() + max(1, budget_ms) / 1000
    if not pool.searches.acquire(blocking=False):
        record_solve("busy", 0)
        return _unfinished(cands), "busy", False
    try:
        slot = pool.slot(game, options)
        # the same question's searcher may be busy with another request: wait for it only as long
        # as the budget allows
        if not slot.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            record_solve("busy", 0)
            return _unfinished(cands), "busy", False
        try:
            searcher = slot.searcher
            searcher.options = SolveOptions(options.criterion, options.max_guesses, options.depth_count,
                                            options.mde, options.from_set_only, options.upper_bound)
            try:
                result = searcher.solve_within(history, deadline - time.monotonic(), cands=cands, guess=guess)
            finally:
                searcher.options = SolveOptions(options.criterion, options.max_guesses, None, options.mde,
                                                options.from_set_only)
            aborted = bool(searcher.stats[5])
            exported = [e for t in searcher.tables for e in t.export()]
        finally:
            slot.lock.release()
    finally:
        pool.searches.release()
    complete = not aborted
    entries = exported + (_entries_of(result, game, history, options, cands) if complete and guess is None else [])
    try:
        pool.store.save_entries(entries, source="search")
    except StorageError as exc:  # the answer stands; only its caching is lost
        structlog.get_logger().warning("positions not cached", reason=exc.detail, entries=len(entries))
    record_solve("search", result.nodes)
    return result, "search", complete


def heuristic_move(game: Game, cands: np.ndarray, strategy: str, seed: int = 0,
                   history: Sequence[Turn] | None = None, budget_ms: int | None = None) -> tuple[int, str | None]:
    """The guess of a one-step strategy for the candidates ``cands`` left by ``history`` (given,
    it lets the strategy score one code per symmetry class: the same guess, sooner), and a note when
    ``budget_ms`` (wall-clock) stopped its scan first: then the guess is the best of those scored."""
    budget_s = None if budget_ms is None else budget_ms / 1000
    choice = get_strategy(strategy, seed=seed).choose(game, cands, history=history, budget_s=budget_s)
    return choice.guess, step_note(strategy, choice.cut, budget_s)


@dataclass(frozen=True)
class Move:
    """An optimal strategy's next guess, and how it was found."""

    guess: int
    exact: bool
    source: str
    """``cache``, ``search``, or ``heuristic`` when the exact answer is not known yet."""
    expected: float | None = None
    """Guesses still needed on average (totals, when exact)."""
    unfinished: bool = False
    """The search was cut by its budget or found every search slot busy: a job can finish it."""
    note: str | None = None
    """Why the answer is not exact, for people."""


def optimal_move(pool: SolverPool, game: Game, history: list[Turn], cands: np.ndarray, strategy: str,
                 max_guesses: int | None, budget_ms: int) -> Move:
    """An optimal strategy's guess within a budget; past it, or where no exact search can run (a
    game too large for a response table), the criterion's heuristic (Larmouth for totals, crush
    for k-movers), never an error."""
    criterion = "total" if strategy == "optimal-total" else "kmovers"
    if not searchable(game):
        guess, note = fallback_move(game, cands, history, criterion, budget_s=budget_ms / 1000)
        return Move(guess, False, "heuristic", note=note)
    options = SolveOptions(criterion, max_guesses)
    t0 = time.monotonic()
    result, source, complete = solve(pool, game, history, cands, options, budget_ms)
    n = result.candidates
    if complete and result.exact and result.best_guess is not None:
        expected = None
        if criterion == "total" and result.value is not None:
            expected = (result.value - n * len(history)) / n
        return Move(result.best_guess, True, source, expected)
    if complete and result.exact and result.best_guess is None and not result.possible:
        raise SolverError(f"no strategy solves every secret within {max_guesses} guesses from here")
    why = ("every search of this instance was busy" if source == "busy"
           else f"the search did not end within {budget_ms} ms")
    # the heuristic gets what the search left of the budget, and at least a tenth of it
    left = max(budget_ms / 10_000, budget_ms / 1000 - (time.monotonic() - t0))
    guess, note = fallback_move(game, cands, history, criterion, why, budget_s=left)
    return Move(guess, False, "heuristic", unfinished=True, note=note)


__all__ = ["Move", "SolverPool", "cached_solve", "game_of", "heuristic_move", "history_of", "optimal_move",
           "position_entries", "solve", "warm_up"]
