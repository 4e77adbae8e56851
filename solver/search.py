"""Exact (and hybrid) optimal-strategy search: the article's branch and bound, orchestrated.

Criteria (values count every guess of the game, those already in the history included):

``total``
    Λ: the fewest guesses summed over the secrets still possible; optional ``max_guesses`` limit.
``kmovers``
    Φ_k with k = ``max_guesses``: every secret solved within k guesses, the fewest needing exactly
    k.  With ``depth_count`` = j < k the *chain* continues while the count is 0: Φ_{k-1} (all within
    k-1), ... down to Φ_j, the way the article's trees minimise 7-movers, then 6-movers, and so on.

Hybrids (article section 3.3): turns after ``mde`` use the heuristic's guess instead of a search
(crush for k-movers, Larmouth for totals), except the last two turns before the limit; with
``from_set_only`` those turns instead search only candidates (the *fso* column).  ``mde=None`` with
``from_set_only`` restricts every turn to candidates.  Article names: crush35 = mde 2, crush45 =
mde 3, crush5 = mde 4 (likewise avg35/avg45/avg5), fso = mde 3 with from_set_only.

The recursion itself is :func:`solver.searchkernels.search`; this module builds its arrays (lower
bound tables, equivalence-set pools for the first two plies, workspace, the transposition table)
and turns its integers into results.  The question and answer types live in :mod:`solver.question`,
the lower bounds in :mod:`solver.bounds`, the heuristic stand-in and its notes in
:mod:`solver.fallback`, a root search's progress in :mod:`solver.rootprogress`; they are re-exported here.
What a searcher keeps between calls (tables, workspace) and the raw kernel call are its base class's,
:class:`solver.searchstate.SearchState`.  No I/O.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections.abc import Callable

import numpy as np

from solver import kernels
from solver import searchkernels as sk
from solver.bounds import (
    lower_bound_tables,
    require_response_table,
    require_searchable,
    searchable,
    valid_response_count,
)
from solver.errors import SolverError
from solver.fallback import cut_note, fallback_move, step_note
from solver.game import CandidateSet, Code, Game, History, Turn
from solver.position import Position
from solver.question import (
    INF,
    InvalidSearchError,
    SearchTooDeepError,
    SolveOptions,
    SolveResult,
    finished_result,
    no_next_guess,
)
from solver.rootprogress import RootProgress, order_digest
from solver.searchstate import MAX_PLY, SearchState
from solver.table import MMAX
from solver.tree import Tree, build_tree
from solver.vocabulary import Criterion, game_value, win_value

SPLIT_ROOT_MAX_CODES = 8192
"""Games up to this size split a short history's root guess by guess (symmetry prunes a ply deeper)."""
DIRECT_SET_MAX = 256
"""In bigger games, sets up to this size are searched in one kernel call (measured not slower up to 150)."""
ORDER_BLOCK = 512
"""Guesses scored per kernel call when a root's guesses are ordered: a budget's end is noticed between two calls."""


@dataclasses.dataclass
class _Call:
    """What one call asks, handed down its recursion as an argument: its question and who it reports to.

    The question and the reporting are the call's, never set on the searcher, so no call can read another's
    question or report to another's caller.  The searcher's kernel workspace, node cap and stop flags are not
    per call: calls on one searcher must follow one another (a pool shares a searcher between threads one call at
    a time, under its lock), and its transposition tables carry over from call to call."""

    options: SolveOptions
    progress: Callable[[int, int], None] | None = None
    """Told (guesses tried, guesses to try) while the root is searched guess by guess."""
    checkpoint: Callable[[RootProgress], None] | None = None
    """Told how far a root searched guess by guess has come (see :meth:`Searcher.solve`)."""
    resume: RootProgress | None = None
    """Where the first root searched guess by guess starts; taken by it, so the first depth limit of a chain only."""


def _where(at: History | Position, cands: CandidateSet | None) -> tuple[History, CandidateSet | None]:
    """The history and candidates a call asks about: a :class:`Position` carries both (``cands``, when given, are
    still the caller's), a history alone leaves the candidates to be filtered unless ``cands`` are given."""
    if isinstance(at, Position):
        return at.history, at.cands if cands is None else cands
    return at, cands


def _inside(checkpoint: Callable[[RootProgress], None], at: RootProgress, parts: int, acc: int,
            per: dict[int, int | None]) -> None:
    """Tell ``checkpoint`` that the guess ``at`` was trying has ``parts`` parts searched, summing to ``acc``."""
    checkpoint(dataclasses.replace(at, parts=parts, acc=acc, per=dict(per)))


class Searcher(SearchState):
    """Solves positions of one game, keeping its transposition tables.

    Reuse one searcher for many positions of the same question: the tables carry over.  Its ``options`` (fixed at
    construction) are the question of a call that names none; a call's own ``options``, ``progress``,
    ``checkpoint`` and ``resume`` are arguments of that call only.
    """

    def __init__(self, game: Game, options: SolveOptions, *, table_capacity: int = 1 << 20,
                 export_threshold: int = 64, branching: bool = True) -> None:
        super().__init__(game, options, table_capacity=table_capacity, export_threshold=export_threshold,
                         branching=branching)

    def solve_within(self, history: History | Position, seconds: float, *, cands: CandidateSet | None = None,
                     guess: Code | None = None, options: SolveOptions | None = None,
                     progress: Callable[[int, int], None] | None = None) -> SolveResult:
        """:meth:`solve` (or :meth:`evaluate_guess` of ``guess``) stopped after ``seconds`` of
        wall-clock time: a timer thread stops the kernel from outside (it frees the GIL while it
        searches), so the answer is cut (``exact`` False) at the deadline, not after a node count
        whose duration depends on the position and the machine's load.  ``progress`` as for :meth:`solve`
        (an evaluation of one guess has no root to try guess by guess, and tells it nothing)."""
        history, cands = _where(history, cands)
        self.clear_stop()
        self._deadline = time.monotonic() + max(0.0, seconds)
        timer = threading.Timer(max(0.0, seconds), self.request_stop)
        timer.daemon = True
        timer.start()
        try:
            if guess is not None:
                return self.evaluate_guess(history, guess, cands=cands, options=options)
            return self.solve(history, cands=cands, options=options, progress=progress)
        finally:
            timer.cancel()
            self._deadline = None
            self.clear_stop()

    def fits(self, history: History, cands: CandidateSet, max_guesses: int) -> bool:
        """Whether some strategy finds every one of ``cands`` (the candidates after ``history``) by guess
        ``max_guesses``.

        Asked as the optimal total within that limit (finite or not), the question whose table the hybrids'
        small positions read when they keep to a limit: a hybrid that checks a part and then plays it pays
        for one search, not two."""
        at = Position(self.game, tuple(history), cands)
        turn, n = at.turn, at.size
        if n <= 1 or turn > max_guesses:
            return n == 0 or (n == 1 and turn <= max_guesses)
        self._own_call()
        call = _Call(SolveOptions(Criterion.TOTAL, max_guesses))
        value, _, _ = self._solve_root(call, list(history), cands, turn, max_guesses, INF + 1)
        return value < INF

    def _begin(self, o: SolveOptions, history: History, cands: CandidateSet | None
               ) -> tuple[int, CandidateSet, int, float, int, int]:
        """Start a call of question ``o``: validate, find the candidates, arm the node limit.  Returns (turn,
        candidates, their count, start time, node counter, offset from turn-independent values to
        game-level ones)."""
        at = Position.of(self.game, history, cands)
        turn, cands, n = at.turn, at.cands, at.size
        o.validate(self.game, turn)
        nodes0 = int(self.stats[sk.S_NODES])
        self.stats[sk.S_ABORTED] = 0
        self._node_cap = nodes0 + o.node_limit if o.node_limit else 0
        offset = game_value(0, n, turn, o.criterion)  # game-level = remaining + offset
        return turn, cands, n, time.perf_counter(), nodes0, offset

    def solve(self, history: History | Position = (), *, cands: CandidateSet | None = None,
              options: SolveOptions | None = None, resume: RootProgress | None = None,
              checkpoint: Callable[[RootProgress], None] | None = None,
              progress: Callable[[int, int], None] | None = None) -> SolveResult:
        """Value, best guess and per-response values of the position after ``history`` (``cands`` its
        candidates, when the caller has them; or a :class:`~solver.position.Position`, which has both), under
        ``options`` for this call (default: the searcher's own).

        ``progress`` is told (guesses tried, guesses to try) before each guess at the root, when the root is
        searched guess by guess.

        ``checkpoint`` is told how far the search has come (:class:`RootProgress`) after each part of each
        guess at the root, when the root is searched guess by guess (short histories of big sets); the same
        call with ``resume`` set to the last of them continues from there, in another process, with the same
        answer (the per-response values then come from a search of the best guess's parts again).

        :raises InvalidSearchError: ``resume`` is the progress of another question (position, depth limit,
            bound or version of the search)."""
        call = _Call(self._question(options), progress, checkpoint, resume)
        return self._solve(call, *_where(history, cands))

    def _solve(self, call: _Call, history: History, cands: CandidateSet | None) -> SolveResult:
        o = call.options
        if self.game.won(history):  # a finished game: its value is its length, nothing to search
            return finished_result(self.game, history, o)
        turn, cands, n, t0, nodes0, offset = self._begin(o, history, cands)
        chain: dict[int, int | None] = {}
        beta = INF + 1
        if o.upper_bound is not None:  # a bound past INF bounds nothing (and would not fit the kernel's int64)
            beta = min(max(0, o.upper_bound - offset), INF + 1)
        ks: list[int | None] = [o.max_guesses]
        if o.depth_count is not None and o.max_guesses is not None:
            ks = list(range(o.max_guesses, o.depth_count - 1, -1))
        value = best = 0
        per: dict[int, int | None] = {}
        k_used = ks[0]
        for k in ks:
            k_used = k
            value, best, per = self._solve_root(call, history, cands, turn, k,
                                                beta if k == ks[0] else INF + 1)
            if o.criterion == Criterion.KMOVERS and k is not None:
                chain[k] = None if value >= INF else value
            if self.stats[sk.S_ABORTED] or value != 0:
                break
        aborted = bool(self.stats[sk.S_ABORTED])
        possible = bool(value < INF)
        exact = bool(not aborted and (value < beta or value >= INF))
        if exact and possible and best >= 0 and not per:
            per = self._per_response(o, cands, turn, k_used, best, self.called(history))
        return SolveResult(
            value=(value + offset) if possible else None,
            possible=possible or not exact,
            exact=exact,
            best_guess=best if exact and possible and best >= 0 else None,
            per_response=per if exact and possible else {},
            nodes=int(self.stats[sk.S_NODES]) - nodes0,
            seconds=time.perf_counter() - t0,
            candidates=n,
            movers=k_used if o.criterion == Criterion.KMOVERS else None,
            chain=chain,
            stats={"table_hits": int(self.stats[sk.S_TABLE_HITS]), "table_stores": int(self.stats[sk.S_TABLE_STORES]),
                   "fast_estimates": int(self.stats[sk.S_FAST_ESTIMATES])},
            cut=aborted,
        )

    def _split_root(self, o: SolveOptions, moves: int, n: int, turn: int) -> bool:
        """Whether a root of ``n`` candidates after ``moves`` guesses is searched guess by guess (and so can be
        checkpointed and shared) rather than in one kernel call, under question ``o``."""
        hybrid_root = o.mde is not None and turn > o.mde
        # Splitting the root costs one equivalence-set computation per (guess, part), linear in the game's
        # codes; beyond the atlas's sizes that dwarfs the search of a small set (five-digit Bulls-and-Cows,
        # sets of 21-30 after two guesses: 50 s split, 0.17 s in one kernel call, same values), so small sets
        # of big games go to the kernel at once (benchmarks/bench_big_games.py measures the searches).
        small_in_big = self.game.size > SPLIT_ROOT_MAX_CODES and n <= DIRECT_SET_MAX
        return not (moves > 2 or n <= self.n_valid or hybrid_root or small_in_big)

    def keeps_progress(self, history: History, *, cands: CandidateSet | None = None,
                       options: SolveOptions | None = None) -> bool:
        """Whether :meth:`solve` of this position (with these ``options``) tells a ``checkpoint`` how far it has
        come: only a root searched guess by guess does (the short histories of big sets); the others are one
        kernel call each."""
        o = self._question(options)
        at = Position.of(self.game, history, cands)
        return self._split_root(o, len(at.history), at.size, at.turn) and self._by_guess(at.turn, o.max_guesses)

    @staticmethod
    def _by_guess(turn: int, k: int | None) -> bool:
        """Whether a split root (see :meth:`_split_root`) is searched guess by guess: with two guesses or fewer
        left, a guess's parts are settled by their sizes alone (one guess each, or none fits), so per-part
        calls would add nothing and the kernel settles the whole position in one call."""
        return k is None or k - turn + 1 > 2

    def _solve_root(self, call: _Call, history: History, cands: CandidateSet, turn: int, k: int | None,
                    beta: int) -> tuple[int, int, dict[int, int | None]]:
        """(value, best guess, per-response game values) of the root, turn-independent value, for ``call``.

        Short histories are searched here, one kernel call per (guess, response) part with that
        part's own equivalence-set pools, so symmetry prunes three plies deep instead of two; the
        best guess's parts come out exact, which gives the per-response values for free.  Longer
        histories, tiny sets and hybrid turns go to the kernel in one call.
        """
        o = call.options
        n = int(cands.shape[0])
        if not self._split_root(o, len(history), n, turn):
            pools = self.pools(history)
            value, best = self._run(o, cands, turn, k, beta, pools, self.called(history))
            return value, best, {}
        m = MMAX if k is None else k - turn + 1
        known = self.table(k, options=o).probe(cands, m, turn)
        if known is not None and known[0] == known[1] < beta and known[2] >= 0:
            return known[0], known[2], {}  # proven before (a campaign's table): no search
        if not self._by_guess(turn, k):
            value, best = self._run(o, cands, turn, k, beta, self.pools(history), self.called(history))
            return value, best, {}
        order = self.guess_order(history, cands, turn, k, options=o)
        if self.out_of_time():  # the budget ended while the guesses were ordered: stopped, as the kernel stops
            self.stats[sk.S_ABORTED] = 1
            return INF, -1, {}
        resume, call.resume = call.resume, None  # the first depth limit of a chain only
        state = self._root_guesses(o, history, cands, turn, k, beta, order, resume, call.checkpoint,
                                   progress=call.progress)
        if state is None:
            return INF, -1, {}
        if state.best_guess is not None and state.best_value is not None:
            return state.best_value, state.best_guess, dict(state.best_per)
        fail = INF if state.fail is None else state.fail
        return max(fail, beta) if fail < INF else INF, -1, {}

    def _root_guesses(self, o: SolveOptions, history: History, cands: CandidateSet, turn: int, k: int | None,
                      beta: int, order: list[tuple[int, int, int]], resume: RootProgress | None,
                      checkpoint: Callable[[RootProgress], None] | None, slot: tuple[int, int] = (0, 1),
                      elsewhere: Callable[[], int | None] | None = None, *,
                      progress: Callable[[int, int], None] | None = None) -> RootProgress | None:
        """Try the root's guesses in ``order`` (those of ``slot``: place ``slot[0]`` modulo ``slot[1]``) under
        question ``o``, each against the best value so far (its own, ``elsewhere()``'s — the other slots' — and
        ``beta``), from ``resume`` on, telling ``progress`` before each guess and ``checkpoint`` after each part
        and each guess.  Returns the last progress (every guess done), or None when the search was stopped."""
        n = int(cands.shape[0])
        digest = order_digest(order, n, k, beta) if resume is not None or checkpoint is not None else ""
        if resume is not None and (resume.order != digest or resume.guesses != len(order)
                                   or not 0 <= resume.done <= len(order)):
            raise InvalidSearchError("the progress given is of another search (position, depth limit, bound "
                                     "or version of the solver); search it from the start")
        state = resume if resume is not None else RootProgress(digest, len(order))
        reported: RootProgress | None = None  # the state ``checkpoint`` was last told, so as not to tell it twice
        mine, slots = slot
        while state.done < len(order):
            i = state.done
            if i % slots != mine:
                state = dataclasses.replace(state, done=i + 1, parts=0, acc=0, per={})
                continue
            lb, _, guess = order[i]
            if progress is not None:
                progress(i, len(order))
            cur_beta = beta if state.best_value is None else min(beta, state.best_value)
            other = None if elsewhere is None else elsewhere()
            if other is not None:
                cur_beta = min(cur_beta, other)
            fail = INF if state.fail is None else state.fail
            if lb >= cur_beta:  # and so is every later guess's: the order is by bound
                state = dataclasses.replace(state, done=len(order), fail=min(fail, lb), parts=0, acc=0, per={})
                break
            inside = (state.parts, state.acc, dict(state.per)) if state.parts else None
            on_part = None if checkpoint is None else functools.partial(_inside, checkpoint, state)
            acc, per, ok = self._try_guess(o, history, cands, turn, k, guess, cur_beta, lb, inside=inside,
                                           on_part=on_part)
            if self.stats[sk.S_ABORTED]:
                return None
            if ok:
                state = dataclasses.replace(state, done=i + 1, best_value=acc, best_guess=guess, best_per=dict(per),
                                            parts=0, acc=0, per={})
            else:
                state = dataclasses.replace(state, done=i + 1, fail=min(fail, acc), parts=0, acc=0, per={})
            if checkpoint is not None:
                checkpoint(state)
                reported = state
        if checkpoint is not None and state is not reported:
            checkpoint(state)
        return state

    def root_digest(self, history: History, *, cands: CandidateSet | None = None,
                    options: SolveOptions | None = None) -> str:
        """The ``order`` that :meth:`search_root` (or :meth:`solve`, splitting its root) gives its progress for
        this position: what tells the progress of this search from any other."""
        o = self._question(options)
        turn, cands, n, _, _, offset = self._begin(o, history, cands)
        beta = INF + 1 if o.upper_bound is None else min(max(0, o.upper_bound - offset), INF + 1)
        return order_digest(self.guess_order(history, cands, turn, o.max_guesses, options=o), n, o.max_guesses, beta)

    def search_root(self, history: History, *, cands: CandidateSet | None = None, slot: tuple[int, int] = (0, 1),
                    elsewhere: Callable[[], int | None] | None = None, resume: RootProgress | None = None,
                    checkpoint: Callable[[RootProgress], None] | None = None,
                    options: SolveOptions | None = None) -> RootProgress | None:
        """One share of a position's search, guess by guess at the root: the guesses whose place in the root's
        order is ``slot[0]`` modulo ``slot[1]``, each cut by the best value found so far here or, through
        ``elsewhere()``, by the other shares (turn-independent values, None while they have none).  ``resume``
        and ``checkpoint`` as for :meth:`solve`; a progress of the whole search (one share) continues as any
        share, since every guess before its ``done`` is done.

        Returns the last progress: its ``best_value`` (turn-independent; None when every guess here was cut)
        and ``best_guess`` are the best of this share.  The position's value is the least ``best_value`` of all
        the shares once each has returned (each guess is either searched exactly or shown no better than a
        value some share has).  None when the search was stopped.

        Why: the root's guesses of a big position are independent searches, so several processes or
        machines can share them, each taking every ``slot[1]``-th guess.

        :raises InvalidSearchError: a bad slot, a chain of depth limits, a heuristic turn, or ``resume`` of
            another search."""
        mine, slots = slot
        if not 0 <= mine < slots:
            raise InvalidSearchError(f"slot {mine} of {slots}: a share is a number from 0 to {slots - 1}")
        o = self._question(options)
        if o.depth_count is not None:
            raise InvalidSearchError("a share of a search asks one depth limit, not a chain")
        turn, cands, _, _, _, offset = self._begin(o, history, cands)
        if o.mde is not None and turn > o.mde:
            raise InvalidSearchError(f"guess {turn} is the heuristic's (mde {o.mde}): it has no search to share")
        beta = INF + 1 if o.upper_bound is None else min(max(0, o.upper_bound - offset), INF + 1)
        order = self.guess_order(history, cands, turn, o.max_guesses, options=o)
        return self._root_guesses(o, history, cands, turn, o.max_guesses, beta, order, resume, checkpoint, slot,
                                  elsewhere)

    def guess_order(self, history: History, cands: CandidateSet, turn: int, k: int | None, *,
                    options: SolveOptions | None = None) -> list[tuple[int, int, int]]:
        """The guesses worth trying at a position under ``options`` (default: the searcher's), best bound
        first: (lower bound, 0 for a candidate else 1, guess), one per equivalence class, without guesses that
        cannot split the set."""
        o = self._question(options)
        g = self.game
        n = int(cands.shape[0])
        crit = Criterion(o.criterion).code
        m = MMAX if k is None else k - turn + 1
        child_m = MMAX if k is None else max(m - 1, 0)
        lb_part = self._lb[0, crit, child_m]
        pool = self.pools(history)[0]
        if o.from_set_only and (o.mde is None or turn > o.mde):
            pool = pool[np.isin(pool, cands)]
        a = self.arrays
        # a block of guesses at a time, so that a budget's end stops the scoring (a 7776-guess pool against
        # thousands of candidates is tens of milliseconds in one kernel call that holds the GIL); the order is then
        # of the guesses scored, and the caller stops there too (:meth:`_solve_root`)
        counts = np.empty((pool.shape[0], g.n_responses), dtype=np.int32)
        for start in range(0, pool.shape[0], ORDER_BLOCK):
            block = slice(start, start + ORDER_BLOCK)
            counts[block] = kernels.partition_matrix(*a.kernel_args(), pool[block], cands, g.n_responses)
            if self.out_of_time():
                pool, counts = pool[: block.stop], counts[: block.stop]
                break
        win = g.all_bulls
        base = n if crit == 0 else 0
        in_set = np.isin(pool, cands)
        nonwin = np.ones(g.n_responses, dtype=bool)
        nonwin[win] = False
        useless = (counts[:, nonwin] == n).any(axis=1)
        lbs = np.minimum(base + lb_part[counts][:, nonwin].sum(axis=1), INF)
        # ascending (bound, 0 for a candidate, guess), sorted by numpy: sorting the tuples in Python cost 15 ms of a
        # 7776-guess pool, outside any kernel a budget's timer can stop
        keep = ~useless
        lbs, flag, guesses = lbs[keep], (~in_set[keep]).astype(np.int64), pool[keep]
        order = np.lexsort((guesses, flag, lbs))
        return list(zip(lbs[order].tolist(), flag[order].tolist(), guesses[order].tolist(), strict=True))

    def _try_guess(self, o: SolveOptions, history: History, cands: CandidateSet, turn: int, k: int | None,
                   guess: Code, beta: int, lb: int | None = None, *,
                   inside: tuple[int, int, dict[int, int | None]] | None = None,
                   on_part: Callable[[int, int, dict[int, int | None]], None] | None = None,
                   ) -> tuple[int, dict[int, int | None], bool]:
        """Value of playing ``guess`` (turn-independent) under question ``o`` with every part below it searched on
        its own, largest first, with the part's equivalence-set pools and a β shared out part by part.

        Returns (value, game-level value per response, True) when the value is below ``beta``, else
        (a lower bound >= ``beta``, the parts seen so far, False).  ``lb`` is the guess's own lower
        bound (the level-fill bound of its parts) when the caller already has it.  ``inside``: (parts
        already searched, the sum so far, their values) to continue an evaluation, as ``on_part`` was told
        after each part.
        """
        g = self.game
        a = self.arrays
        crit = Criterion(o.criterion).code
        m = MMAX if k is None else k - turn + 1
        child_m = MMAX if k is None else m - 1
        lb_part = self._lb[0, crit, max(child_m, 0)]
        win = g.all_bulls
        n = int(cands.shape[0])
        order_parts, starts = kernels.split(*a.kernel_args(), guess, cands, g.n_responses)
        sizes = np.diff(starts)
        parts = sorted(((int(sizes[r]), r) for r in range(g.n_responses) if sizes[r] > 0 and r != win),
                       key=lambda t: (-t[0], t[1]))
        base = n if crit == 0 else 0
        has_win = bool(sizes[win] > 0)
        if crit == 1 and has_win and k == turn:
            base += 1  # the secret guessed now is itself a k-mover
        if child_m <= 0 and parts:
            return INF, {}, False  # no guess left for the secrets this one does not hit
        if lb is None:
            lb = min(base + sum(int(lb_part[size]) for size, _ in parts), INF)
        acc = base
        rest = lb - base
        per: dict[int, int | None] = {}
        skip = 0
        if inside is not None:  # the sum so far includes ``base``
            skip, acc, per = inside[0], inside[1], dict(inside[2])
        for i, (size, r) in enumerate(parts):
            rest -= int(lb_part[size])
            if i < skip:
                continue
            budget = beta - acc - rest
            sub = order_parts[int(starts[r]):int(starts[r + 1])]
            sub_history = [*history, Turn(guess, r)]
            v, _ = self._run(o, sub, turn + 1, k, budget, self.pools(sub_history), self.called(sub_history))
            if self.stats[sk.S_ABORTED]:
                return INF, per, False
            acc = min(acc + v, INF)
            per[r] = None if v >= INF else game_value(v, size, turn + 1, o.criterion)
            if acc + rest >= beta:
                return min(acc + rest, INF), per, False
            if on_part is not None:
                on_part(i + 1, acc, per)
        if has_win:
            per[win] = win_value(turn, o.criterion, k)
        return acc, dict(sorted(per.items())), True

    def evaluate_guess(self, history: History | Position, guess: Code, *, cands: CandidateSet | None = None,
                       options: SolveOptions | None = None) -> SolveResult:
        """Value of playing ``guess`` next after ``history`` (the article's Φ[T(t, *)], Λ[T(t, *)]):
        the sum of its responses' values, each found by an exact search of its own.

        With ``options.upper_bound`` (β) the evaluation stops as soon as the guess provably reaches
        β: the result is then a lower bound (``exact`` False), which is how a split job's sibling
        guesses are cut by the best one found so far.  ``history``, ``cands`` and ``options`` as for :meth:`solve`.
        """
        history, cands = _where(history, cands)
        o = self._question(options)
        if self.game.won(history):
            raise no_next_guess(history)
        turn, cands, n, t0, nodes0, offset = self._begin(o, history, cands)
        beta = INF + 1 if o.upper_bound is None else min(max(0, o.upper_bound - offset), INF + 1)
        value, per, ok = self._try_guess(o, list(history), cands, turn, o.max_guesses, guess, beta)
        aborted = bool(self.stats[sk.S_ABORTED])
        possible = aborted or value < INF
        exact = not aborted and (ok or value >= INF)
        return SolveResult(
            value=(value + offset) if value < INF and not aborted else None, possible=possible,
            exact=exact, best_guess=guess, per_response=per if exact else {},
            nodes=int(self.stats[sk.S_NODES]) - nodes0, seconds=time.perf_counter() - t0, candidates=n,
            movers=o.max_guesses if o.criterion == Criterion.KMOVERS else None, cut=aborted,
        )

    def _per_response(self, o: SolveOptions, cands: CandidateSet, turn: int, k: int | None, guess: Code,
                      called: int = -1) -> dict[int, int | None]:
        """Value of each response's part after ``guess`` under question ``o``; largest parts first, and once one proves
        impossible the others are left out (the sum is impossible anyway).  ``called``: the symbols
        guessed before ``guess``."""
        g = self.game
        a = self.arrays
        out: dict[int, int | None] = {}
        crit = o.criterion
        for r, part in a.parts(guess, cands, g.n_responses):
            size = int(part.shape[0])
            if r == g.all_bulls:
                out[r] = win_value(turn, crit, k)
                continue
            v, _ = self._run(o, part, turn + 1, k, INF + 1, None,
                             called | int(a.masks[guess]) if called >= 0 else -1)
            if self.stats[sk.S_ABORTED]:
                break
            out[r] = None if v >= INF else game_value(v, size, turn + 1, crit)
            if out[r] is None:
                break
        return dict(sorted(out.items()))

    def chooser(self, lowest_k: int | None = None, *,
                options: SolveOptions | None = None) -> Callable[[CandidateSet, list[Turn]], Code]:
        """A tree chooser playing the optimal guesses of ``options`` (default: this searcher's own).
        K-movers follow the article's chain: where the count of k-movers is 0, minimise (k-1)-movers,
        and so on down to ``lowest_k``."""
        o = self._question(options)
        call = _Call(o)

        def choose(cands: CandidateSet, turns: list[Turn]) -> Code:
            if cands.shape[0] <= 2:
                return int(cands[0])
            turn = Position(self.game, tuple(turns), cands).turn
            k = o.max_guesses
            self._own_call()
            while True:
                value, best, _ = self._solve_root(call, turns, cands, turn, k, INF + 1)
                if (o.criterion != Criterion.KMOVERS or k is None or value != 0
                        or k - 1 < max(lowest_k or k, turn)):
                    break
                k -= 1
            if value >= INF or best < 0:
                limit = "the limit" if o.max_guesses is None else f"the limit of {o.max_guesses} guesses"
                raise SolverError(
                    f"no strategy fits {limit} for a position of {cands.shape[0]} candidates at guess {turn}"
                )
            return best

        return choose


def solve(game: Game, history: History = (), options: SolveOptions | None = None) -> SolveResult:
    """One-off :meth:`Searcher.solve` (a fresh table each call; keep a Searcher to reuse one)."""
    return Searcher(game, options or SolveOptions()).solve(history)


def optimal_tree(game: Game, options: SolveOptions, history: History = (), *,
                 first: Code | None = None, searcher: Searcher | None = None,
                 on_solved: Callable[[int], None] | None = None) -> Tree:
    """Whole tree of the optimal (or hybrid) strategy for ``options``; the k-movers chain runs down
    to ``options.depth_count`` (default: down to the next guess number, as the article's trees do)."""
    s = searcher or Searcher(game, options)
    lowest = options.depth_count if options.depth_count is not None else 1
    return build_tree(game, s.chooser(lowest, options=options), history, first=first,
                      strategy=Criterion(options.criterion).strategy,
                      arrays=s.arrays, on_solved=on_solved)


__all__ = [  # the searcher, and what every caller of a search needs along with it (re-exported)
    "INF", "MAX_PLY", "InvalidSearchError", "RootProgress", "SearchTooDeepError", "Searcher",
    "SolveOptions", "SolveResult", "cut_note", "fallback_move", "lower_bound_tables", "optimal_tree",
    "require_response_table", "require_searchable", "searchable", "solve", "step_note", "valid_response_count",
]
