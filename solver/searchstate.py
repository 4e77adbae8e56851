"""What a :class:`solver.search.Searcher` keeps from call to call, and its one way into the kernel.

:class:`SearchState` holds a game's searches' state: the bound tables, the transposition tables (one per
question), the kernel's workspace and statistics, and the equivalence-set pools; it builds the kernel's
parameters from a question (:meth:`SearchState._params`) and makes the raw call
(:meth:`SearchState._run`).  The question is an argument of each call, never state: the tables are what carries
over between calls, one per question.  The searcher, a subclass, decides what to search: the root guess by guess
or in one call, depth-limit chains, per-response values, shares of a root (:mod:`solver.search`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from solver import kernels
from solver import searchkernels as sk
from solver.bounds import (
    branching_tables,
    lower_bound_tables,
    require_response_table,
    search_responses,
    valid_response_count,
)
from solver.codes import GameArrays
from solver.game import CandidateSet, Game, History
from solver.heuristics import nlogn
from solver.question import INF, SearchTooDeepError, SolveOptions
from solver.symmetry import equivalence_set
from solver.table import MMAX, TableKey, TranspositionTable
from solver.vocabulary import Criterion

MAX_PLY = 64
"""Plies of the search's workspace in big games (far beyond any strategy's depth)."""


_NO_BRANCHING = np.zeros((2, 0, 1), dtype=np.int64)
_NO_BRANCHING.flags.writeable = False  # the kernel's one signature: every bound table it reads is read-only


class SearchState:
    """A game's searches' state, and the kernel call that reads and updates it.  Subclassed by
    :class:`solver.search.Searcher`, the only thing built on it.

    ``options`` is the searcher's own question, fixed at construction: what a call asks when it names none.  A call
    that names its own (a job's phase, a bound of the caller's, a node limit) hands it down its recursion as an
    argument, so a searcher shared between threads (a pool's, each call under its lock) never holds another call's
    question; the tables are kept per question (criterion, k and hybrid parameters are in their key), so one
    searcher serves any options of its game."""

    def __init__(self, game: Game, options: SolveOptions, *, table_capacity: int = 1 << 20,
                 export_threshold: int = 64, branching: bool = True) -> None:
        self.game = game
        self.options = options
        """The question of a call that names none (never reassigned: a call passes its own down instead)."""
        self.arrays: GameArrays = require_response_table(game)
        self.n_valid = valid_response_count(game)
        self._ktable, self._kresponses, self._kwin = search_responses(game, self.arrays.table)
        self._lb = lower_bound_tables(game, game.size)
        self._lbb = branching_tables(game, game.size)
        """The totals' bounds by each set's own branching (the kernel values a node with no depth limit by its own);
        ``branching=False`` gives it none (the same values, for the tests and benchmarks that compare)."""
        if not branching:
            self._lbb = _NO_BRANCHING
        self._tables: dict[TableKey, TranspositionTable] = {}
        self._capacity = table_capacity
        self._threshold = export_threshold
        n = game.size
        # Each ply of the search removes at least one code (guesses that do not split are never
        # tried), so n + 1 plies always suffice (every one-position game); bigger games get MAX_PLY,
        # far beyond any strategy's depth, and the kernel stops rather than write past it.
        plies = min(n + 1, MAX_PLY)
        self._ws_keys = np.zeros((plies, n), dtype=np.int64)
        self._ws_parts = np.zeros((plies, n), dtype=np.int32)
        self._ws_buf = np.zeros((plies, n), dtype=np.uint8)
        self._ws_inset = np.zeros((plies, n), dtype=np.uint8)
        self._ws_pool = np.zeros((plies, n), dtype=np.int32)
        self._ws_best = np.zeros(plies + 1, dtype=np.int64)
        self._log2n, self._lnn = nlogn(n)
        self.stats = np.zeros(sk.STATS, dtype=np.int64)
        self._deadline: float | None = None
        """When a budgeted call (:meth:`solver.search.Searcher.solve_within`) ends, in :func:`time.monotonic`
        seconds; None for a call without a budget."""
        self._node_cap = 0
        """Absolute value of the node counter at which the current call aborts (0 = never)."""
        self._pool_cache: dict[tuple[tuple[int, int], ...], Any] = {}
        hsize = 1 << int(np.ceil(np.log2(2 * n + 2)))
        self._ws_hkey = np.zeros((plies, hsize), dtype=np.uint64)
        self._ws_hstamp = np.full((plies, hsize), -1, dtype=np.int64)
        self._ws_acc = np.zeros(n, dtype=np.uint64)
        self._ws_lbc, self._ws_resp, self._ws_zs = sk.node_scratch(plies, self._lb.shape[-1], self._kresponses)
        """Per ply, a node's own scratch (:func:`solver.searchkernels.node_scratch`): made once, not at each node."""
        self._ws_pc = np.zeros((plies, -(-n // 8) * 8), dtype=np.uint8)
        """Per ply, into how many parts every code splits the node's set (``searchparts.part_counts``;
        rows padded with zeros to whole 8-byte words, which the kernel reads at once)."""

    def _question(self, options: SolveOptions | None) -> SolveOptions:
        """The question a call asks: its own ``options``, or the searcher's when it names none."""
        return self.options if options is None else options

    def lower_bound(self, size: int, turn: int, k: int | None, *, options: SolveOptions | None = None) -> int:
        """Admissible turn-independent lower bound of any set of ``size`` codes at guess ``turn``
        (``k`` the depth limit, None = unlimited) under ``options``' criterion (default: the searcher's);
        INF when no strategy can fit."""
        m = MMAX if k is None else max(k - turn + 1, 0)
        return int(self._lb[0, Criterion(self._question(options).criterion).code, m, size])

    def request_stop(self) -> None:
        """Ask the search running in another thread to stop at its next node (it then answers as
        if its node limit had been reached).  Stays set until :meth:`clear_stop`."""
        self.stats[sk.S_STOP] = 1

    def clear_stop(self) -> None:
        """Allow searches again after :meth:`request_stop`."""
        self.stats[sk.S_STOP] = 0

    def out_of_time(self) -> bool:
        """Whether the call must stop now: a stop was requested, or its deadline has passed (the stop is then
        requested, for the kernels).  Why both: the timer thread that requests the stop needs the GIL, which a
        Python loop calling short kernels hands over only every switch interval (5 ms), so a loop reading the
        clock itself stops at the deadline, not up to a switch interval after it."""
        if not self.stats[sk.S_STOP] and self._deadline is not None and time.monotonic() >= self._deadline:
            self.request_stop()
        return bool(self.stats[sk.S_STOP])

    @property
    def stop_requested(self) -> bool:
        """Whether :meth:`request_stop` was called since the last :meth:`clear_stop` (a search that ended with it
        set was cut short, whatever it answered)."""
        return bool(self.stats[sk.S_STOP])

    @property
    def nodes(self) -> int:
        """Nodes searched since the searcher was made (every call counted)."""
        return int(self.stats[sk.S_NODES])

    def work(self) -> dict[str, int]:
        """Where this searcher's work went, summed over its calls: nodes, nodes expanded (stored in the
        table), the candidates' rows read to count every code's parts (``mask_rows``), and the guesses
        whose responses were read (their partition bound, or their split when the search reached them)
        with the responses read for them, candidates and other codes apart.  What
        ``benchmarks/profile_search.py`` reports: the node count alone does not say what a node costs."""
        st = self.stats
        return {"nodes": int(st[sk.S_NODES]), "expanded": int(st[sk.S_TABLE_STORES]),
                "table_hits": int(st[sk.S_TABLE_HITS]), "mask_rows": int(st[sk.S_MASK_ROWS]),
                "scanned_candidates": int(st[sk.S_SCANNED_CANDIDATES]),
                "scanned_others": int(st[sk.S_SCANNED_OTHERS]),
                "reads_candidates": int(st[sk.S_READS_CANDIDATES]), "reads_others": int(st[sk.S_READS_OTHERS])}

    def table(self, max_guesses: int | None = None, *, options: SolveOptions | None = None) -> TranspositionTable:
        """The transposition table of the question ``options`` (default: the searcher's), at depth limit
        ``max_guesses`` (default: the question's; per k, for the k-movers chain).

        Keyed by the whole question (criterion, k, hybrid parameters), never by k alone: a searcher asked
        for totals within k and then for the k-movers must not read one's values as the other's."""
        o = self._question(options)
        k = o.max_guesses if max_guesses is None else max_guesses
        key = o.table_key(self.game, k)
        if key not in self._tables:
            self._tables[key] = TranspositionTable(
                self.game, key, capacity=self._capacity, export_threshold=self._threshold,
            )
        return self._tables[key]

    def table_for(self, options: SolveOptions) -> TranspositionTable:
        """The table of another question of this game, e.g. to warm it with proven entries before
        that question is asked (its key comes from ``options``, as :meth:`table`'s from the searcher's)."""
        return self.table(options=options)

    @property
    def tables(self) -> list[TranspositionTable]:
        """Every table used so far."""
        return list(self._tables.values())

    def _params(self, o: SolveOptions, k: int | None) -> npt.NDArray[np.int64]:
        """The kernel's parameters for question ``o`` at depth limit ``k`` (and the current call's node cap)."""
        crit = Criterion(o.criterion).code
        prm = np.zeros(sk.PARAMS, dtype=np.int64)
        prm[sk.P_CRITERION] = crit
        prm[sk.P_MDE] = o.mde if o.mde is not None else 1 << 30
        prm[sk.P_HYBRID_MODE] = 0 if o.mde is None else (2 if o.from_set_only else 1)
        prm[sk.P_HEURISTIC] = kernels.CRUSH if crit == 1 else kernels.LARMOUTH
        prm[sk.P_FROM_SET_ONLY] = 1 if (o.from_set_only and o.mde is None) else 0
        prm[sk.P_MMAX] = MMAX
        prm[sk.P_CODES] = self.game.size
        prm[sk.P_RESPONSES] = self._kresponses
        prm[sk.P_WIN] = self._kwin
        prm[sk.P_TURN_KEYED] = 1 if o.mde is not None else 0
        prm[sk.P_EXPORT_THRESHOLD] = self._threshold
        prm[sk.P_NODE_LIMIT] = self._node_cap
        prm[sk.P_VALID_RESPONSES] = self.n_valid
        prm[sk.P_SYMBOLS] = self.game.symbols
        return prm

    def pools(self, history: History) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32],
                                               npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Equivalence-set pools: for the root, and (short histories) for each root guess's children.

        Cached: they depend on the moves only (and on the responses from two turns on, Lemma 9).
        """
        key = tuple((t.guess, t.response if len(history) > 1 else -1) for t in history)
        hit = self._pool_cache.get(key)
        if hit is None:
            hit, whole = self._pools(history)
            if not whole:  # stopped half-way: good for this call, which stops too, not for the next one
                return hit
            if len(self._pool_cache) > 4096:
                self._pool_cache.clear()
            self._pool_cache[key] = hit
        return hit

    def _pools(self, history: History) -> tuple[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32],
                                                      npt.NDArray[np.int64], npt.NDArray[np.int64]], bool]:
        """The pools, and whether they are whole: a stop request (a budget's end) ends the children's pools
        early, since they are Python work outside the kernel that the timer stops (a first question of a game of
        many codes spent most of a second here); the root's pool alone is a valid pool set, only a weaker one."""
        g = self.game
        moves = [t.guess for t in history]
        responses = [t.response for t in history]
        pool0 = equivalence_set(g, moves, responses if len(history) > 1 else None)
        n = g.size
        empty_rows = np.zeros((0, 1), dtype=np.int32)
        row_of = np.full(n, -1, dtype=np.int64)
        if len(history) > 1 or pool0.shape[0] >= n - len(moves):
            return (pool0, empty_rows, np.zeros(0, dtype=np.int64), row_of), True
        rows = []
        for c in pool0:
            if self.out_of_time():
                return (pool0, empty_rows, np.zeros(0, dtype=np.int64), row_of), False
            rows.append(equivalence_set(g, [*moves, int(c)]))
        width = max(1, max(r.shape[0] for r in rows))
        pools1 = np.full((len(rows), width), -1, dtype=np.int32)
        lens = np.zeros(len(rows), dtype=np.int64)
        for i, (c, r) in enumerate(zip(pool0, rows, strict=True)):
            pools1[i, : r.shape[0]] = r
            lens[i] = r.shape[0]
            row_of[int(c)] = i
        return (pool0, pools1, lens, row_of), True

    def called(self, history: History) -> int:
        """Mask of the symbols guessed in ``history`` (the others are interchangeable for the kernel)."""
        return self.arrays.called(history)

    def _run(self, o: SolveOptions, cands: CandidateSet, turn: int, k: int | None, beta: int,
             pools: tuple[Any, ...] | None, called: int = -1) -> tuple[int, int]:
        """Raw kernel call for question ``o``: (turn-independent value, best guess).  ``called``: mask of the
        symbols of the guesses that led to ``cands`` (-1, every symbol, when the history is not known)."""
        m = MMAX if k is None else k - turn + 1
        if o.criterion == Criterion.KMOVERS and k is not None:
            m = k - turn + 1
        tt = self.table(k, options=o)
        a = self.arrays
        if pools is None:
            empty32 = np.zeros(0, dtype=np.int32)
            pools = (empty32, np.zeros((0, 1), dtype=np.int32), np.zeros(0, dtype=np.int64),
                     np.full(1, -1, dtype=np.int64))
        pool0, pools1, lens, row_of = pools
        prm = self._params(o, k)
        value = sk.search(
            np.ascontiguousarray(cands, dtype=np.int32), 0, turn, m, beta, prm, self._ktable, a.codes,
            a.masks, a.counts, self._lb[0, Criterion(o.criterion).code],
            self._lb[1, Criterion(o.criterion).code], tt.z1, tt.z2, tt.k1, tt.k2, tt.info,
            self._ws_keys, self._ws_parts, self._ws_buf, self._ws_inset, self._ws_pool,
            self._ws_best, pool0, pools1, lens, row_of, tt.log_meta, tt.log_sets, tt.log_off,
            tt.log_n, self.stats, self._log2n, self._lnn,
            self._ws_hkey, self._ws_hstamp, called, self._ws_acc, self._ws_pc, self._lbb[0], self._lbb[1],
            self._ws_lbc, self._ws_resp, self._ws_zs,
        )
        if self.stats[sk.S_TOO_DEEP]:
            self.stats[sk.S_TOO_DEEP] = 0
            raise SearchTooDeepError(
                f"this position needs a search deeper than {self._ws_keys.shape[0]} guesses, more than "
                "the solver's workspace holds")
        return int(value), int(self._ws_best[0])

    def _own_call(self) -> None:
        """Start a call without a node limit of its own.  A search stopped before (a deadline's cut) leaves its
        abort flag and node cap set, and the next call would read them as its own and answer that no strategy
        fits."""
        self.stats[sk.S_ABORTED] = 0
        self._node_cap = 0
    def best_guess_at(self, cands: CandidateSet, turn: int, k: int | None = None, *,
                      options: SolveOptions | None = None) -> tuple[int, int]:
        """(turn-independent value, best guess) of a set at a turn under ``options`` (default: the searcher's),
        without symmetry pools."""
        o = self._question(options)
        kk = o.max_guesses if k is None else k
        return self._run(o, cands, turn, kk, INF + 1, None)
