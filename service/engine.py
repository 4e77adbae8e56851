"""The two-level cache's searchers: warm :class:`solver.search.Searcher` objects per question.

A :class:`SolverPool` keeps a warm searcher (and so its in-memory transposition table) per question,
created with the question's persisted entries loaded (warm start) and guarded by a lock (the kernels
share workspace arrays); what a search proves is written back afterwards, in one bulk upsert
(:func:`solver.table.position_entries`); the database is never touched per search node.  The
answer chain that uses them is :mod:`service.answers`.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.config import Settings
from service.knowledge import Knowledge
from solver.game import Game
from solver.question import SolveOptions

if TYPE_CHECKING:  # the search (numba) is imported when a searcher is made: a question a tree answers needs none
    from solver.search import Searcher
    from solver.table import TTStore


def warm_searcher(store: TTStore | None, game: Game, options: SolveOptions, capacity: int = 1 << 20,
                  threshold: int = 64) -> Searcher:
    """A searcher for the question of ``options`` (no budget, bound or chain: those are per call)
    whose transposition table starts with every position the store (if any) holds for that question."""
    from solver.search import Searcher

    searcher = Searcher(game, base_options(options), table_capacity=capacity, export_threshold=threshold)
    if store is not None:
        searcher.table().load(store.load_entries(searcher.options.table_key(game)))
    return searcher


def base_options(options: SolveOptions) -> SolveOptions:
    """The part of a question a warm searcher keeps between calls (the table's key)."""
    return SolveOptions(options.criterion, options.max_guesses, None, options.mde, options.from_set_only)


@dataclass
class _Slot:
    searcher: Searcher
    lock: threading.Lock


class SolverPool:
    """Warm searchers per question (LRU), each loaded from the store when created."""

    def __init__(self, store: TTStore | None, settings: Settings, knowledge: Knowledge | None = None) -> None:
        self.store = store
        self.settings = settings
        self.knowledge = knowledge
        """Shipped proven positions each new searcher of their question starts with."""
        self._slots: OrderedDict[tuple[Any, ...], _Slot] = OrderedDict()
        self._lock = threading.Lock()
        self.searches = threading.BoundedSemaphore(max(1, settings.max_searches))
        """Searches running at once in this process; a question finding none free does not wait."""
        self._maker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="searcher-maker")
        """Makes the searchers that budgeted questions could not wait for (:meth:`slot_within`), one at a time."""
        self._making: dict[tuple[Any, ...], concurrent.futures.Future[_Slot]] = {}

    def slot(self, game: Game, options: SolveOptions) -> _Slot:
        """The question's warm searcher, made now if it is not there yet (or waited for, if it is being made)."""
        key = self._key(game, options)
        with self._lock:
            slot, making = self._ready(key)
        if slot is not None:
            return slot
        return self._make(key, game, options) if making is None else making.result()

    def slot_within(self, game: Game, options: SolveOptions, seconds: float) -> _Slot | None:
        """The question's warm searcher if it is ready within ``seconds``, else None.

        Why: a searcher is made once per question and process, and making one is not a search that a budget can
        stop (its response table, its bound tables, the warm start: most of a second for Mastermind, seconds for a
        game of 4096 codes).  A budgeted question does not wait for that past its budget: the searcher goes on
        being made in the background, one at a time, and a later question finds it ready."""
        key = self._key(game, options)
        with self._lock:
            slot, making = self._ready(key)
            if slot is not None:
                return slot
            started = making is None
            if making is None:
                making = self._making[key] = self._maker.submit(self._make, key, game, options)
        if started:  # outside the lock: a future already done runs its callback at once, in this thread
            making.add_done_callback(lambda _: self._forget(key))
        try:
            return making.result(timeout=max(0.0, seconds))
        except concurrent.futures.TimeoutError:
            return None

    def _ready(self, key: tuple[Any, ...]) -> tuple[_Slot | None, concurrent.futures.Future[_Slot] | None]:
        """(the question's searcher, marked as just used, or None; else the future making it, if any).  The caller
        holds the lock."""
        slot = self._slots.get(key)
        if slot is not None:
            self._slots.move_to_end(key)
            return slot, None
        return None, self._making.get(key)

    def stop_all(self) -> None:
        """Stop every search of this process at its next node, for good (the process is stopping): each answers as
        at the end of its budget."""
        with self._lock:
            slots = list(self._slots.values())
        for slot in slots:
            slot.searcher.request_stop()

    def _forget(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._making.pop(key, None)

    @staticmethod
    def _key(game: Game, options: SolveOptions) -> tuple[Any, ...]:
        return (game.spec, options.criterion, options.max_guesses, options.mde, options.from_set_only)

    def _make(self, key: tuple[Any, ...], game: Game, options: SolveOptions) -> _Slot:
        searcher = warm_searcher(self.store, game, options, self.settings.table_capacity,
                                 self.settings.export_threshold)
        index = None if self.knowledge is None else self.knowledge.index(searcher.options.table_key(game))
        if index is not None:
            index.warm(searcher.table())
        slot = _Slot(searcher, threading.Lock())
        with self._lock:
            slot = self._slots.setdefault(key, slot)
            while len(self._slots) > self.settings.searchers:
                self._slots.popitem(last=False)
        return slot


_WARM = threading.Event()
_WARMING = threading.Lock()


def warm_up() -> None:
    """Load (or compile) every kernel that start-up or a request can run, on a tiny game; once per process.

    Budgets are wall-clock time, so the first search of a process must not spend its budget loading
    the search kernels from numba's cache, or compiling them on a fresh install (half a minute; the
    set-up script and the container image compile them into the cache, so that a server only loads
    them).  The kernels' argument types do not depend on the game, so one tiny game covers every game:
    the searches of both criteria, the fallbacks, every one-step strategy's tree and its compact encoding (reading
    a shipped tree needs no kernel: :mod:`solver.plainkernels`).
    """
    import numpy as np

    from solver.codes import response_factors
    from solver.game import Turn
    from solver.heuristics import get_strategy
    from solver.search import Searcher, fallback_move
    from solver.table import TableKey, TranspositionTable, info_rows, position_entries
    from solver.tree import build_tree, from_compact, strategy_chooser, to_compact
    from solver.vocabulary import ONE_STEP_STRATEGIES, Criterion

    with _WARMING:
        if _WARM.is_set():
            return
        game = Game(2, 3, True)
        for options in (SolveOptions(Criterion.TOTAL), SolveOptions(Criterion.KMOVERS, 3)):
            searcher = Searcher(game, options, table_capacity=1024)
            result = searcher.solve(())
            key = searcher.table().key
            table = TranspositionTable(game, key, 64)
            table.load(position_entries(game, key, game.all_codes, 0, result.value, result.best_guess,
                                        result.per_response))  # a warm start from the database's entries
            table.probe(game.all_codes, game.size, 0)  # a lookup in the table, as the answer chain makes
        for criterion in Criterion:
            fallback_move(game, game.all_codes, [], criterion)
        cands = game.candidates((Turn(0, game.response(0, 1)),))  # a history's candidates
        from solver.symmetry import Relabelling

        Relabelling((1, 0), (2, 0, 1)).apply_set(game, cands)  # a canonical image's candidates
        from solver import kernels

        row = np.empty(cands.shape[0], dtype=np.uint8)
        kernels.response_row(*game.arrays().kernel_args(), 0, cands, row)  # one guess's responses (records compare)
        # the same kernels without a response table, as the games too big for one call them (records compare,
        # writing their trees): their empty table is a writable array, which is another signature to numba
        bare = game.arrays(table=False).kernel_args()
        kernels.perfect_candidate(*bare, cands, game.n_responses)
        kernels.split(*bare, 0, cands, game.n_responses)
        kernels.response_row(*bare, 0, cands, row)
        Game(2, 2, True).response(0, 1)  # a one-off response, computed before any table is built
        response_factors(2, 3, True)  # what games too big for a response table use instead
        arrays = game.arrays(table=True)
        for name in ONE_STEP_STRATEGIES:
            tree = build_tree(game, strategy_chooser(game, get_strategy(name), arrays), arrays=arrays)
            from_compact(to_compact(tree))
        empty = np.zeros(0, dtype=np.uint64)  # the bulk load of shipped knowledge into a search's table
        TranspositionTable(game, TableKey(game.spec, Criterion.TOTAL, None, None, False, False), 64).load_keys(
            empty, empty, info_rows(empty, 0, 0, 0, 0))
        _WARM.set()


def is_warm() -> bool:
    """Whether :func:`warm_up` has finished in this process (``/readyz`` is 503 until then)."""
    return _WARM.is_set()


__all__ = ["SolverPool", "base_options", "is_warm", "warm_searcher", "warm_up"]
