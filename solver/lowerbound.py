"""Proven lower bounds of a position's optimal total, stronger than the size-only bound, by a
best-first refinement of its guesses a few plies deep.  No I/O.

Why.  A search cut by its budget proves nothing about the root but the size-only bound of
:func:`solver.bounds.lower_bound_tables` (every guess splitting perfectly into as many parts as
there are responses), which sits 10 to 25 % below the optimum of the atlas's big games.  The exact
cost obeys

    cost(S) = |S| + min over guesses g of  Σ over g's non-winning parts P of cost(P)

(every secret of S pays for this guess; those not found go on in their part).  Replacing cost(P) by
an admissible bound a few plies down keeps the result admissible, and the real partitions of the
first plies are far from perfect, so the bound rises quickly with the depth:

    LB_0(S) = the size-only bound of |S|;   LB_d(S) = |S| + min_g Σ_P LB_{d-1}(P)   (sets of one or
    two codes are exact at every depth: 1 and 3)

For Mastermind 4×6 (T = 5625) LB_0 = 4986, LB_1 = 5196, LB_2 = 5429.  The minimum is searched best
first: guesses in order of their one-ply bound Σ_P LB_0(P), stopping as soon as the next one's
bound cannot beat the best found, and a guess's parts are refined largest first (while their estimates
are the size-only ones), each with the room the others leave (fail-soft: a guess cut short still
reports a valid bound on its value, so the result is admissible whether or not the minimum was
reached).

Deepening.  The root is refined at depth 1, 2, ... up to ``depth`` (iterative deepening), each pass
keeping its root parts' bounds, and the memo keeping the deeper sets'.  A guess's parts are then
budgeted with those estimates instead of the size-only bound: the room each part is refined with is
tight, and a guess whose estimates already pass the best bound falls before any refinement.  Every
estimate is an admissible bound of its part's cost, so the result stays admissible.  Once the estimates
are known, parts are refined smallest first: the room is small, and small parts use it up for a fraction
of a big one's work (Mastermind's four plies: 12080 sets refined instead of 84706, see
``benchmarks/bench_atlas_bounds.py``).  With a target, the first pass reaching it ends the run.

Symmetry.  The root's guesses are one per equivalence class and the second ply's are the classes
below each root guess (:meth:`solver.search.Searcher.pools`, as the exact search uses them); the third
ply's are the classes of the transformations fixing the two guesses above (they map its sets onto
themselves; at the fourth they are mostly the identity, so classes stop there); deeper, guesses that
differ by a permutation of absent or uncalled symbols are scored once (:func:`solver.kernels.is_canonical`).
Guesses that split nothing are never tried.

Leaves.  The last ply refined scores every guess by its parts' size-only bounds, then takes the best guesses
again, in that order, valuing each small part P (3 to 64 codes) by :func:`solver.boundkernels._leaf_bound`:
the least of its own codes' real one-ply scores (|P| + Σ LB_0 of their parts) and the size-only bound of a
strategy that opens with a code outside P (no secret found by that guess).  Any next guess is one or the
other, so it is admissible, and it costs |P|² table reads instead of a ply's every code.  It lifts each
depth by about what a fraction of a ply did (Mastermind's 5625 at three plies instead of four).

Criteria.  The bound is for the fewest total guesses with no depth limit (T), so it also bounds the
total within any depth limit (T_k ≥ T).  It says nothing of worst cases or k-movers.

Ledger.  A part's bound, once proven, is admissible whatever depth or room it was refined with, so it
is an estimate for every later refinement of that part: :class:`PartLedger` keeps the root parts' bounds
across passes, and a caller may fill it from an earlier run's or hand it on to a file (a campaign that
resumes from what was proven, :mod:`service.bound_campaigns`).  Its bounds come in at the last pass, where
a part known to hold at least its full LB_k is not refined again at k plies or fewer; the shallow passes
run as from nothing, since they warm the memo the last pass draws its estimates from (a ledger that cut
every guess at once would leave it cold, and cost more than it saves).  ``guesses`` restricts the root
to some of its guesses, so that each can be a unit of work of its own: the root's bound is the least of
its guesses' bounds.  Below them, the last pass refines a root part one second guess at a time and tells the
ledger each one's bound (:meth:`PartLedger.put_second`), and each second guess one part at a time, each part's
bound told too (:meth:`PartLedger.put_third`): a big part of a deep pass is hours of one kernel call, and a run
stopped in it would keep nothing of it.

Table.  ``known(codes)`` may give what a table already proves of a root part (``(lower, upper)``,
turn-independent, for totals with no limit): an exact value replaces the refinement and a lower
bound raises it.  The parts' refined bounds are returned, so that the caller can keep them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver import kernels
from solver.boundkernels import one_ply_bounds, one_ply_branching_bounds, readonly, refine_set
from solver.boundmemo import memo_peek, new_memo
from solver.bounds import branching_tables, compact_responses, lower_bound_tables
from solver.game import Game, History
from solver.partledger import EXACT_PLIES, PartLedger
from solver.position import Position
from solver.question import INF, SolveOptions
from solver.search import Searcher
from solver.symmetry import equivalence_set
from solver.table import MMAX, zobrist
from solver.ttkernels import set_keys
from solver.vocabulary import Criterion, paid

__all__ = ["LEAVES", "PartBound", "RootBound", "root_classes", "root_lower_bound"]

LEAVES = "own-codes, branching"
"""How the sets refined are valued, as a campaign's progress file records it: the last ply's parts by their own
codes (:func:`solver.boundkernels._leaf_bound`), and every set's parts by the size-only bound of its own branching
(:func:`solver.boundkernels.one_ply_branching_bounds`).  A bound proven another way (before: ``"own-codes"``, or no
entry for the size alone) is still a proof, but not this way's LB_k for any k: each way's bound at k plies is at most
this one's."""

SECOND_UNITS_MIN = 256
"""Root parts of at least this many codes are refined one second guess at a time in the last pass, each kept
(:meth:`PartLedger.put_second`); smaller ones take seconds, and their second guesses would only fill the file."""



@dataclass(frozen=True)
class PartBound:
    """One part of the root's best-bounded guess: its response, candidates and proven bound."""

    response: int
    codes: tuple[int, ...]
    lower: int
    """Turn-independent lower bound of the part's optimal total (guesses from the part's turn on)."""
    exact: bool
    """The bound is the part's exact value (a table said so)."""


@dataclass
class RootBound:
    """A position's proven lower bound, and how it was reached."""

    value: int
    """Game-level lower bound of the optimal total (every guess counted, the history's included)."""
    remaining: int
    """The same, turn-independent (guesses from this turn on, summed over the candidates)."""
    size_only: int
    """Game-level size-only bound it improves on (:func:`solver.bounds.lower_bound_tables`)."""
    depth: int
    guess: int | None
    """A root guess whose bound is the minimum (None when none beat the cut-off)."""
    guesses: int
    """Refinements of root guesses (classes), over every pass of the deepening."""
    classes: int
    """Root guesses (classes) in all."""
    work: int
    """Sets refined."""
    seconds: float
    parts: list[PartBound] = field(default_factory=list)
    """Every part of every refined root guess whose bound was computed (for a table)."""




def root_classes(game: Game, history: History = (), *, searcher: Searcher | None = None) -> list[int]:
    """The root's guesses that :func:`root_lower_bound` refines: one per class, those that split the
    candidates, in the order it refines them (best one-ply bound first).  ``searcher``: one of the game's to
    reuse (making one costs more than the call on a small set)."""
    searcher = searcher or Searcher(game, SolveOptions(Criterion.TOTAL))
    ktable, n_resp, win = compact_responses(game, searcher.arrays.table)
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, Criterion.TOTAL.code, MMAX])
    cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
    pool0 = np.ascontiguousarray(searcher.pools(history)[0], dtype=np.int32)
    bound = np.empty(pool0.shape[0], dtype=np.int64)
    one_ply_bounds(ktable, cands, pool0, lb0, n_resp, win, bound)
    return [int(pool0[i]) for i in np.argsort(bound, kind="mergesort") if bound[i] < INF]


def root_lower_bound(game: Game, history: History = (), depth: int = 2, *,
                     known: Callable[[tuple[int, ...]], tuple[int, int] | None] | None = None,
                     progress: Callable[[int, int, int], None] | None = None,
                     target: int | None = None, guesses: Sequence[int] | None = None,
                     ledger: PartLedger | None = None, third_ply_classes: bool = True,
                     leaf_scan: bool = True, second_units: int | None = SECOND_UNITS_MIN,
                     only_parts: Collection[int] | None = None, searcher: Searcher | None = None,
                     branching: bool = True) -> RootBound:
    """The lower bound of the optimal total (no depth limit) after ``history``, refined ``depth``
    plies: the root ply here, one class per guess, the second with the classes below each root
    guess, the rest in :func:`refine_set`.  ``known(codes)`` gives a table's (lower, upper) of a
    root part, or None.  ``progress(depth, done, total)`` is told as root guesses are refined, pass by pass
    (the plies are refined by iterative deepening: depth 1, 2, ... each pass's parts' bounds the next one's
    estimates).

    ``target`` (game-level) asks only whether the total is at least that much: every root guess is
    refined only until its bound reaches it, as if a guess of that value had been found first.  Deep
    refinements then cost a fraction of the full LB_depth, and the result is still admissible: LB_depth
    itself when it is below the target, else a bound of at least the target (fail-soft).

    ``guesses``: refine only these root guesses (each one of :func:`root_classes`), the bound then being
    the least of theirs.  ``ledger``: the root parts' bounds proven before (estimates, and parts not refined
    again at plies they already reach), told of every part's bound as it is proven.  ``only_parts``: refine only
    the parts of these responses (to each root guess), in every pass; the others count what the ledger or the
    size alone proves of them.  The bound is admissible, but it is no LB_depth: for a campaign that spends
    its hours on the parts whose next ply can raise the total, and keeps their bounds.

    ``third_ply_classes``: the third ply tries one guess per class of the transformations that fix the
    moves so far and the two guesses above it, instead of every code (same bounds, far fewer guesses where
    the game has many symmetries: 7×7's third ply has 54 to 854 classes of 5040 codes).  ``leaf_scan``: the
    last ply values its best guesses' small parts by their own codes' partitions (:func:`_leaf_bound`)
    rather than by their size alone: a higher bound at the same depth.  ``second_units``: the last pass
    refines a root part of at least that many codes one second guess at a time (:meth:`PartLedger.put_second`),
    so that a part that takes hours keeps what each of its second guesses proved (same bound as one call).
    ``branching``: every set refined is valued with its own branching (:func:`solver.bounds.branching_tables`,
    the most non-winning parts any code makes of it), and so are the parts and sets below it; else by the
    game's response count.  False or None (any of the four) is for the tests and benchmarks that compare.
    ``searcher``: one of the game's to reuse (its arrays and pools; making one costs more than refining a small
    set)."""
    if depth < 1:
        raise ValueError("depth must be at least 1")
    t0 = time.perf_counter()
    run = RootRefinement(game, history, depth, searcher=searcher, leaf_scan=leaf_scan, branching=branching)
    if run.n <= 2:
        return RootBound(run.size_only, int(run.lb0[run.n]), run.size_only, depth, None, 0, 0, 1,
                         time.perf_counter() - t0)
    run.rank_root(guesses)
    run.prepare(known=known, progress=progress, target=target, ledger=ledger, third_ply_classes=third_ply_classes,
                second_units=second_units, only_parts=only_parts)
    reached, remaining, best_guess = run.deepen()
    return RootBound(remaining + run.offset if remaining < INF else INF, remaining, run.size_only, reached, best_guess,
                     run.refined, len(run.order), int(run.work[0]), time.perf_counter() - t0, list(run.parts.values()))


class RootRefinement:
    """One run of :func:`root_lower_bound`: the position's tables and what its passes share (the root's guesses in
    order, the memo, the ledgers, every root part's best bound), and its steps as methods: the passes
    (:meth:`one_pass`), a root part refined one second guess at a time (:meth:`by_second`) and one second guess's
    parts one at a time (:meth:`by_third`).  Made and used once per call, by :func:`root_lower_bound` and by
    :mod:`solver.secondbound` (one second guess of one part)."""

    def __init__(self, game: Game, history: History, depth: int, *, searcher: Searcher | None, leaf_scan: bool,
                 branching: bool) -> None:
        """The game's tables and the root's candidates (the size-only bound is all a set of one or two needs)."""
        self.game = game
        self.depth = depth
        self.history = history
        self.leaf_scan = leaf_scan
        self.branching = branching
        self.searcher = searcher or Searcher(game, SolveOptions(Criterion.TOTAL))
        self.arrays = self.searcher.arrays
        self.ktable, self.n_resp, self.win = compact_responses(game, self.arrays.table)
        tables = lower_bound_tables(game, game.size)
        self.lb0 = readonly(tables[0, Criterion.TOTAL.code, MMAX])
        self.lb1 = readonly(tables[1, Criterion.TOTAL.code, MMAX] if leaf_scan else np.zeros(0, dtype=np.int64))
        if branching:
            by_b = branching_tables(game, game.size)
            self.lbb, self.lbb1 = readonly(by_b[0]), readonly(by_b[1])
        else:
            self.lbb = self.lbb1 = readonly(np.zeros((0, 1), dtype=np.int64))
        self.b_game = max(self.lbb.shape[0] - 1, 1)
        at = Position.of(game, history)
        self.cands = np.ascontiguousarray(at.cands, dtype=np.int32)
        self.n = at.size
        self.offset = paid(self.n, at.turn)
        self.size_only = int(self.lb0[self.n]) + self.offset
        self.work = np.zeros(2, dtype=np.int64)
        self.z1, self.z2 = zobrist(game.size)
        self.memo = new_memo()

    def rank_root(self, guesses: Sequence[int] | None) -> None:
        """The root's guesses (one per class, or those of ``guesses``) in order of their one-ply bound, and the
        root's branching (the bounds every set below it is valued by)."""
        pool0, self.pools1, self.lens, self.row_of = self.searcher.pools(self.history)
        self.pool0 = np.ascontiguousarray(pool0, dtype=np.int32)
        self.bound = np.empty(self.pool0.shape[0], dtype=np.int64)
        self.b_root = self.b_game
        if self.branching:  # the root's pool stands for every code (classes of the transformations fixing the history)
            self.b_root = int(one_ply_branching_bounds(self.ktable, self.cands, self.pool0, self.lbb, self.b_game,
                                                 self.n_resp, self.win, self.bound))
            self.lb0 = self.lbb[self.b_root]
            if self.leaf_scan:
                self.lb1 = self.lbb1[self.b_root]
        else:
            one_ply_bounds(self.ktable, self.cands, self.pool0, self.lb0, self.n_resp, self.win, self.bound)
        bound = self.bound
        self.order = [int(i) for i in np.argsort(bound, kind="mergesort") if bound[i] < INF]
        if guesses is not None:
            wanted = {int(g) for g in guesses}
            self.order = [i for i in self.order if int(self.pool0[i]) in wanted]

    def prepare(self, *, known: Callable[[tuple[int, ...]], tuple[int, int] | None] | None,
                progress: Callable[[int, int, int], None] | None, target: int | None, ledger: PartLedger | None,
                third_ply_classes: bool, second_units: int | None, only_parts: Collection[int] | None) -> None:
        """What the passes share besides the tables: the caller's options (:func:`root_lower_bound`'s), the
        ledgers and what the run has proven so far."""
        self.known = known
        self.progress = progress
        self.third_ply_classes = third_ply_classes
        self.second_units = second_units
        self.only_parts = only_parts
        # ``passes``: what this run's passes proved of the root parts, each pass's estimates for the next.  The
        # ledger's bounds (other runs', maybe deeper) come in at the last pass only: the shallow passes warm the memo
        # for it, and a ledger whose parts cut every guess at once would leave it cold (more work, not less).
        self.passes = PartLedger()
        self.shared = PartLedger() if ledger is None else ledger
        self.called = self.arrays.called(self.history)
        self.goal = INF if target is None else max(int(target) - self.offset, 0)
        self.parts: dict[tuple[int, int], PartBound] = {}  # every root part's best bound, from every pass
        self.refined = 0
        self.codes_of: dict[tuple[int, int], tuple[int, ...]] = {}
        self.probed: dict[tuple[int, int], tuple[int, int] | None] = {}
        self.no_reps, self.no_starts = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        self.third: dict[int, tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]] = {}
        self.moves = [t.guess for t in self.history]

    def deepen(self) -> tuple[int, int, int | None]:
        """Passes of growing depth (iterative deepening): each is cheap next to the one after it, and gives it
        tight estimates of the parts' bounds; with a target, the first pass that reaches it is the answer.
        Returns the depth reached, the root's turn-independent bound and its guess."""
        reached, remaining, best_guess = 1, INF, None
        for d in range(1, self.depth + 1):
            reached = d
            remaining, best_guess = self.one_pass(d)
            if remaining >= self.goal:
                break
        return reached, remaining, best_guess

    def third_ply(self, g: int, child_pool: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.int32],
                                                                         npt.NDArray[np.int64]]:
        """The third ply's guesses below root guess ``g``, for each of its second-ply guesses in turn (one per
        class of the transformations fixing the moves, ``g`` and that guess), flat, with where each starts:
        made once per root guess, for every pass and part."""
        if not self.third_ply_classes or child_pool.shape[0] == 0:
            return self.no_reps, self.no_starts
        if g not in self.third:
            rows = [equivalence_set(self.game, [*self.moves, g, int(g2)]) for g2 in child_pool]
            starts_ = np.zeros(len(rows) + 1, dtype=np.int64)
            starts_[1:] = np.cumsum([r.shape[0] for r in rows])
            flat = np.ascontiguousarray(np.concatenate(rows) if rows else self.no_reps, dtype=np.int32)
            self.third[g] = (flat, starts_)
        return self.third[g]

    def part_codes(self, g: int, r: int, sub: npt.NDArray[np.int32]) -> tuple[int, ...]:
        """The root part's codes as a tuple, made once for every pass."""
        if (g, r) not in self.codes_of:
            self.codes_of[(g, r)] = tuple(int(c) for c in sub)
        return self.codes_of[(g, r)]

    def table_bound(self, g: int, r: int, sub: npt.NDArray[np.int32]) -> tuple[int, int] | None:
        """What the table proves of a root part, asked once: the passes ask of the same parts again."""
        if self.known is None:
            return None
        if (g, r) not in self.probed:
            self.probed[(g, r)] = self.known(self.part_codes(g, r, sub))
        return self.probed[(g, r)]

    def by_second(self, g: int, r: int, sub: npt.NDArray[np.int32], child_pool: npt.NDArray[np.int32], k: int,
                  beta: int) -> int:
        """The root part ``(g, r)`` refined ``k`` plies as :func:`refine_set` refines it, its first ply here: one
        call per second guess, best one-ply bound first, each guess's bound put in the ledger as it is proven
        (fail-soft like the kernel: the least bound when it is below ``beta``, else a bound of at least it)."""
        reps, starts = self.third_ply(g, child_pool)
        first, b_sub = self.seconds_of(sub, child_pool)
        best, fail, found = beta, INF, False
        for i in (int(i) for i in np.argsort(first, kind="mergesort")):
            if first[i] >= best:  # ascending: the rest cannot be the least either
                fail = min(fail, int(first[i]))
                break
            g2 = int(child_pool[i])
            self.shared.sync()  # what other units proved of this second guess meanwhile
            lower, plies = self.shared.get_second(g, r, g2)
            if plies >= k or lower >= best:  # its full bound at these plies is known, or it cannot be the least
                v = lower
            else:
                v = self.one_second(g, r, sub, g2, self.below(reps, starts, i), k, best, b_sub, lower)
            if v < best:
                best, found = v, True
            else:
                fail = min(fail, v)
        if found:
            return best
        return INF if fail >= INF else max(fail, beta)

    def seconds_of(self, sub: npt.NDArray[np.int32],
                   child_pool: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.int64], int]:
        """The one-ply bound of a root part under each second guess of ``child_pool`` (in its order), and the part's
        branching (the bounds its sets are valued by)."""
        first = np.empty(child_pool.shape[0], dtype=np.int64)
        b_sub = self.b_root
        if self.branching:  # the child pool stands for every code at this part (classes fixing the history and g)
            b_sub = int(one_ply_branching_bounds(self.ktable, sub, child_pool, self.lbb, self.b_root, self.n_resp,
                                                 self.win, first))
        else:
            one_ply_bounds(self.ktable, sub, child_pool, self.lb0, self.n_resp, self.win, first)
        return first, b_sub

    def part_of(self, g: int, r: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """A root part's codes, and the second guesses below root guess ``g`` (one per class)."""
        part_order, starts = kernels.split(*self.arrays.kernel_args(), g, self.cands, self.game.n_responses)
        return (np.ascontiguousarray(part_order[int(starts[r]):int(starts[r + 1])], dtype=np.int32),
                self.child_pool(g))

    def child_pool(self, g: int) -> npt.NDArray[np.int32]:
        """The second guesses below root guess ``g``, one per class of the transformations fixing the moves and g."""
        if self.pools1.shape[0] > 0 and self.row_of[g] >= 0:
            row = self.row_of[g]
            return np.ascontiguousarray(self.pools1[row, : self.lens[row]], dtype=np.int32)
        return np.zeros(0, dtype=np.int32)

    def refine_second(self, g: int, r: int, g2: int, k: int, beta: int) -> int:
        """The root part ``(g, r)`` refined ``k`` plies opening with the second guess ``g2`` alone (one of
        :meth:`child_pool`), as :meth:`by_second` refines each of them, its bound put in the ledger; fail-soft: the
        bound when below ``beta``, else a bound of at least it."""
        sub, child_pool = self.part_of(g, r)
        i = int(np.flatnonzero(child_pool == g2)[0])
        first, b_sub = self.seconds_of(sub, child_pool)
        lower, plies = self.shared.get_second(g, r, g2)
        lower = max(lower, int(first[i]))
        if plies >= k or lower >= beta:  # known at these plies already, or cut at once
            return lower
        reps, starts = self.third_ply(g, child_pool)
        return self.one_second(g, r, sub, g2, self.below(reps, starts, i), k, beta, b_sub, lower)

    def below(self, reps: npt.NDArray[np.int32], starts: npt.NDArray[np.int64], i: int) -> npt.NDArray[np.int32]:
        """The third ply's guesses below the ``i``-th second guess (:meth:`third_ply`'s), none when not classed."""
        return reps[int(starts[i]):int(starts[i + 1])] if starts.shape[0] > 0 else self.no_reps

    def one_second(self, g: int, r: int, sub: npt.NDArray[np.int32], g2: int, below: npt.NDArray[np.int32], k: int,
                   beta: int, b_sub: int, lower: int) -> int:
        """One second guess ``g2`` of the root part ``(g, r)`` refined (:meth:`by_third`), at least ``lower`` (what
        was known of it), and its bound put in the ledger unless it is a cut one no higher than the part's (which
        says nothing new); fail-soft at ``beta``."""
        got = self.by_third(g, r, sub, g2, below, k, beta, b_sub)
        v = max(got, lower)
        if got < beta or v > self.shared.get(g, r)[0]:
            self.shared.put_second(g, r, g2, min(v, INF), k if got < beta else 0)
        return v

    def by_third(self, g: int, r: int, sub: npt.NDArray[np.int32], g2: int, below: npt.NDArray[np.int32], k: int,
                 beta: int, b_sub: int) -> int:
        """The root part ``(g, r)`` refined ``k`` plies opening with ``g2`` (``below``: the third ply's guesses),
        as :func:`refine_set` refines one guess: its parts one kernel call each, each part's bound put in the
        ledger (:meth:`PartLedger.put_third`) so that a second guess of an hour keeps what it proved.  Fail-soft:
        the bound when below ``beta``, else a bound of at least it.  ``b_sub``: the root part's branching."""
        n = int(sub.shape[0])
        lb_sub = self.lbb[b_sub] if self.branching else self.lb0
        lb1_sub = self.lbb1[b_sub] if self.branching and self.leaf_scan else self.lb1
        part_order, starts = kernels.split(*self.arrays.kernel_args(), g2, sub, self.game.n_responses)
        called2 = self.called | int(self.arrays.masks[g]) | int(self.arrays.masks[g2])
        est: dict[int, int] = {}
        known_any = False
        for r2 in range(self.game.n_responses):
            c = int(starts[r2 + 1] - starts[r2])
            if c == 0 or r2 == self.game.all_bulls:
                continue
            e = int(lb_sub[c])
            if c > 2:
                q1, q2 = set_keys(np.ascontiguousarray(part_order[int(starts[r2]):int(starts[r2 + 1])], dtype=np.int32),
                                  self.z1, self.z2, 0)
                seen = int(memo_peek(*self.memo, np.uint64(q1), np.uint64(q2)))
                proven = self.shared.get_third(g, r, g2, r2)[0]
                if max(seen, proven) > e:
                    e, known_any = max(seen, proven), True
            est[r2] = e
        rest = sum(est.values())
        if n + rest >= beta:
            return max(n + rest, beta)
        # the kernel's order: largest first on size-only estimates, smallest first once some are known
        sizes = {r2: int(starts[r2 + 1] - starts[r2]) for r2 in est}
        order = sorted(est, key=lambda r2: (sizes[r2], r2) if known_any else (-sizes[r2], r2))
        acc = n
        classed = below.shape[0] > 0
        for r2 in order:
            rest -= est[r2]
            lower, plies = self.shared.get_third(g, r, g2, r2)
            if plies >= k - 1 or sizes[r2] <= 2:
                v = est[r2]
            else:
                room = beta - acc - rest
                part = np.ascontiguousarray(part_order[int(starts[r2]):int(starts[r2 + 1])], dtype=np.int32)
                got = int(refine_set(self.ktable, self.arrays.codes, self.arrays.masks, part, below, k - 1, lb_sub,
                                     self.n_resp, self.win, self.game.symbols, called2, room, self.work, self.z1,
                                     self.z2, *self.memo, self.no_reps, self.no_starts, classed,
                                     lb1_sub, self.lbb, self.lbb1, b_sub))
                v = max(got, est[r2])
                if got < room or v > max(lower, int(lb_sub[sizes[r2]])):  # a cut bound at its size's says nothing
                    self.shared.put_third(g, r, g2, r2, min(v, INF), k - 1 if got < room else 0)
            acc += v
            if acc + rest >= beta:
                return max(acc + rest, beta)
        return acc

    def split_by_second(self, sub: npt.NDArray[np.int32], child_pool: npt.NDArray[np.int32], d: int) -> bool:
        """Whether pass ``d`` refines this root part one second guess at a time (:meth:`by_second`): only the last
        pass, whose parts are the long units, and only parts big enough to be worth the file's entries."""
        return bool(d == self.depth and self.second_units and sub.shape[0] >= self.second_units and d >= 3
                    and child_pool.shape[0] > 0)

    def one_pass(self, d: int) -> tuple[int, int | None]:
        """LB_d of the root (or, with a target, at least it) and its guess: the parts' estimates come from the
        earlier passes (and the memo below them), so a deeper pass only refines what they did not settle."""
        best, best_g, fail = self.goal, None, INF
        for done, i in enumerate(self.order):
            if self.progress is not None:
                self.progress(d, done, len(self.order))
            if self.bound[i] >= best:
                fail = min(fail, int(self.bound[i]))
                break
            g = int(self.pool0[i])
            last = d == self.depth
            if last:
                self.shared.sync()
            part_order, starts = kernels.split(*self.arrays.kernel_args(), g, self.cands, self.game.n_responses)
            sizes = np.diff(starts)
            resp = sorted((r for r in range(self.game.n_responses) if sizes[r] > 0 and r != self.game.all_bulls),
                          key=lambda r: (-int(sizes[r]), r))
            if d >= 2:  # the parts carry the last pass's bounds: the small ones settle the room cheaply
                resp.reverse()
            subs = {r: np.ascontiguousarray(part_order[int(starts[r]):int(starts[r + 1])], dtype=np.int32)
                    for r in resp}
            est: dict[int, int] = {}
            for r in resp:
                # never refined here: what the ledger has is all
                aside = self.only_parts is not None and r not in self.only_parts
                e = max(int(self.lb0[subs[r].shape[0]]), self.passes.get(g, r)[0],
                        self.shared.get(g, r)[0] if last or aside else 0)
                have = self.table_bound(g, r, subs[r])
                if have is not None:
                    e = max(e, have[0])
                est[r] = e
            rest = sum(est.values())
            if self.n + rest >= best:
                fail = min(fail, self.n + rest)
                continue
            self.refined += 1
            child_pool = self.child_pool(g)
            acc, ok = self.n, True
            # In the last pass each part first takes in what other units proved of it meanwhile (a ledger shared
            # through the database): units refining the same parts, one after another, do not repeat the work.
            for r in resp:
                sub, have = subs[r], self.table_bound(g, r, subs[r])
                by_seconds = self.split_by_second(sub, child_pool, d)
                plies = 0
                if last:
                    self.shared.sync()
                    known_lower, plies = self.shared.get(g, r)
                    if known_lower > est[r]:  # another unit raised it meanwhile
                        rest += known_lower - est[r]
                        est[r] = known_lower
                        if acc + rest >= best:
                            ok = False
                            fail = min(fail, acc + rest)
                            break
                rest -= est[r]
                if (have is not None and have[0] == have[1]) or sub.shape[0] <= 2:
                    v, exact = est[r], True
                    for book in (self.passes, self.shared):
                        book.put(g, r, v, EXACT_PLIES)
                elif self.only_parts is not None and r not in self.only_parts:
                    v, exact = est[r], False
                elif plies >= d - 1:  # proven before at least as deep as this pass refines it
                    v, exact = est[r], plies >= EXACT_PLIES
                else:
                    room = best - acc - rest
                    if by_seconds:
                        got = self.by_second(g, r, sub, child_pool, d - 1, room)
                    else:
                        got = int(refine_set(self.ktable, self.arrays.codes, self.arrays.masks, sub, child_pool,
                                             d - 1, self.lb0, self.n_resp, self.win, self.game.symbols,
                                             self.called | int(self.arrays.masks[g]), room, self.work,
                                             self.z1, self.z2, *self.memo,
                                             # a part refined one ply never reaches the third
                                             *(self.third_ply(g, child_pool) if d >= 3
                                               else (self.no_reps, self.no_starts)),
                                             False, self.lb1, self.lbb, self.lbb1, self.b_root))
                    v, exact = max(got, est[r]), False
                    # below its room the refinement found the minimum: the bound is LB_{d-1} itself
                    for book in (self.passes, self.shared):
                        book.put(g, r, min(v, INF), d - 1 if got < room else 0)
                self.parts[(g, r)] = PartBound(r, self.part_codes(g, r, sub), min(v, INF), exact)
                acc += v
                if acc + rest >= best:
                    ok = False
                    fail = min(fail, acc + rest)
                    break
            if ok:
                best, best_g = acc, g
        return (best if best_g is not None else min(fail, INF)), best_g
