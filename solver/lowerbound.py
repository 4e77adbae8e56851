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

Leaves.  The last ply refined scores every guess by its parts' size-only bounds, then takes the best
guesses again, in that order, valuing each small part P (3 to 64 codes) by :func:`_leaf_bound`: the least
of its own codes' real one-ply scores (|P| + Σ LB_0 of their parts) and the size-only bound of a strategy
that opens with a code outside P (no secret found by that guess).  Any next guess is one or the other, so
it is admissible, and it costs |P|² table reads instead of a ply's every code.  It lifts each depth by
about what a fraction of a ply did (Mastermind's 5625 at three plies instead of four).

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
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from numba import njit

from solver import kernels
from solver.bounds import branching_tables, compact_responses, lower_bound_tables
from solver.game import Game, History
from solver.question import INF, SolveOptions
from solver.symmetry import equivalence_set
from solver.table import MMAX, zobrist
from solver.ttkernels import set_keys

if TYPE_CHECKING:
    from solver.search import Searcher

__all__ = ["LEAVES", "PartBound", "PartLedger", "RootBound", "refine_set", "root_classes", "root_lower_bound"]


@njit(cache=True)
def _partition_counts(table, S, guesses, n_resp):  # type: ignore[no-untyped-def]
    """``cnt[i, r]``: the codes of ``S`` that answer ``r`` to ``guesses[i]``.

    Counted code by code, every guess at once: a response is symmetric (``table[g, s] == table[s, g]``,
    bulls and shared symbols do not depend on which code is the guess), so each code's row is read in
    the guesses' ascending order and each guess's counts are independent of the last one's.  Six to ten
    times faster than counting guess by guess on 5×6's sets (``benchmarks/bench_one_ply.py``)."""
    m = guesses.shape[0]
    cnt = np.zeros((m, n_resp), dtype=np.int32)
    for k in range(S.shape[0]):
        row = table[S[k]]
        for i in range(m):
            cnt[i, row[guesses[i]]] += 1
    return cnt


@njit(cache=True)
def _score_parts(cnt, n, lb, n_resp, win, out):  # type: ignore[no-untyped-def]
    """``out[i]``: n + Σ ``lb`` of the non-winning parts counted in ``cnt[i]`` (INF when it splits nothing)."""
    for i in range(cnt.shape[0]):
        s = n
        for r in range(n_resp):
            if r == win:
                continue
            c = cnt[i, r]
            if c == n:
                s = INF
                break
            s += lb[c]
        out[i] = s if s < INF else INF


@njit(cache=True)
def _one_ply(table, S, guesses, lb0, n_resp, win, out):  # type: ignore[no-untyped-def]
    """``out[i]``: |S| + Σ LB_0 of the non-winning parts of ``guesses[i]`` (INF when it splits nothing)."""
    _score_parts(_partition_counts(table, S, guesses, n_resp), S.shape[0], lb0, n_resp, win, out)


@njit(cache=True)
def _one_ply_branching(table, S, guesses, lbb, b_cap, n_resp, win, out):  # type: ignore[no-untyped-def]
    """:func:`_one_ply` with the set's own branching: returns ``b``, the most non-winning parts any of
    ``guesses`` makes of ``S`` (at most ``b_cap``, the branching proven above ``S``), and scores each guess's
    parts by ``lbb[b]`` (:func:`solver.bounds.branching_tables`) instead of the game's size-only bound.

    Admissible only when ``guesses`` stand for every code: each code splits ``S`` like one of them (the
    classes of transformations that map ``S`` onto itself, as every caller's guesses are).  A part of ``S``,
    and every set below it, is then split by no guess into more than ``b`` non-winning parts."""
    cnt = _partition_counts(table, S, guesses, n_resp)
    b = 1
    for i in range(cnt.shape[0]):
        p = 0
        for r in range(n_resp):
            if r != win and cnt[i, r] > 0:
                p += 1
        if p > b:
            b = p
    if b > b_cap:
        b = b_cap
    _score_parts(cnt, S.shape[0], lbb[b], n_resp, win, out)
    return b


@njit(cache=True)
def _canonical_guesses(codes, masks, S, called, n_symbols):  # type: ignore[no-untyped-def]
    absent, uncalled = kernels.digit_classes(S, masks, called, n_symbols)
    return kernels.class_lowest_codes(codes, absent, uncalled)


MEMO_BITS = 20
"""Slots of the refinement's memo (2^20, 24 MB): the same sets recur under many guess orders."""


def new_memo(bits: int = MEMO_BITS) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """An empty memo for :func:`refine_set`: two key columns and (bound, depth, exact) packed in one."""
    size = 1 << bits
    return np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int64)


@njit(cache=True)
def _memo_get(mk1, mk2, mval, k1, k2, depth, beta):  # type: ignore[no-untyped-def]
    """A remembered bound of the set keyed (k1, k2) usable at ``depth`` and ``beta``, else -1.  An
    entry holds LB_d (exact flag) or a bound of at least the β it was cut at; LB grows with d, so
    an entry of depth d' ≥ d bounds LB_d's set too (every LB_d is admissible for the set's cost)."""
    slot = np.int64(k1 & np.uint64(mk1.shape[0] - 1))
    if mk1[slot] != k1 or mk2[slot] != k2:
        return np.int64(-1)
    packed = mval[slot]
    d = (packed >> np.int64(1)) & np.int64(0xFF)
    exact = packed & np.int64(1)
    v = packed >> np.int64(9)
    if d < depth:
        return np.int64(-1)
    if exact == 1 or v >= beta:
        return v
    return np.int64(-1)


@njit(cache=True)
def _memo_put(mk1, mk2, mval, k1, k2, depth, value, exact):  # type: ignore[no-untyped-def]
    slot = np.int64(k1 & np.uint64(mk1.shape[0] - 1))
    if mk1[slot] == k1 and mk2[slot] == k2:
        d = (mval[slot] >> np.int64(1)) & np.int64(0xFF)
        if d > depth:
            return
    mk1[slot] = k1
    mk2[slot] = k2
    mval[slot] = (value << np.int64(9)) | (np.int64(depth) << np.int64(1)) | np.int64(1 if exact else 0)


@njit(cache=True)
def _memo_peek(mk1, mk2, mval, k1, k2):  # type: ignore[no-untyped-def]
    """Whatever the memo holds of the set keyed (k1, k2), at any depth, exact or cut, else -1: every entry is
    an admissible bound of the set's cost, so a sibling's estimate may use it, whatever question it answered."""
    slot = np.int64(k1 & np.uint64(mk1.shape[0] - 1))
    if mk1[slot] != k1 or mk2[slot] != k2:
        return np.int64(-1)
    return mval[slot] >> np.int64(9)


@njit(cache=True)
def _split_into(row, S, n_resp, cnt, starts, fill, buf, part):  # type: ignore[no-untyped-def]
    """Split the set ``S`` by the guess whose response row is ``row``: ``cnt[r]`` codes answer ``r``, and
    they are ``part[starts[r]:starts[r + 1]]`` (``fill`` and ``buf`` are scratch)."""
    n = S.shape[0]
    cnt[:] = 0
    for k in range(n):
        buf[k] = row[S[k]]
        cnt[buf[k]] += 1
    for r in range(n_resp):
        starts[r + 1] = starts[r] + cnt[r]
        fill[r] = starts[r]
    for k in range(n):
        r = buf[k]
        part[fill[r]] = S[k]
        fill[r] += 1


ORDER_SPAN_MAX = 1 << 16
""":func:`_ascending` counts bounds up to this far above the least one; the rest are sorted (rare)."""


@njit(cache=True)
def _ascending(bound):  # type: ignore[no-untyped-def]
    """The indices of ``bound`` in ascending order, ties by index: ``np.argsort(bound, kind="mergesort")``,
    by counting.

    Why: a refined set orders every code by its one-ply bound (5040 of them in the permutation games), and a
    merge sort of that many took longer than counting their partitions (0.58 ms against 0.39 ms for a set of
    75 codes of 7×7).  The bounds are integers a few hundred apart, so a counting sort is linear; INF (guesses
    that split nothing) comes last, and bounds past ``ORDER_SPAN_MAX`` above the least are merge-sorted."""
    m = bound.shape[0]
    lo = INF
    hi = np.int64(-1)
    for i in range(m):
        v = bound[i]
        if v < INF:
            if v < lo:
                lo = v
            if v > hi:
                hi = v
    order = np.empty(m, dtype=np.int64)
    if hi < 0:  # nothing splits: all INF, in index order
        for i in range(m):
            order[i] = i
        return order
    span = hi - lo + 1
    if span > ORDER_SPAN_MAX:
        span = np.int64(ORDER_SPAN_MAX)
    # buckets 0..span-1: bound - lo; span: finite bounds beyond; span + 1: INF
    cnt = np.zeros(span + 2, dtype=np.int64)
    for i in range(m):
        v = bound[i]
        k = span + 1 if v >= INF else (v - lo if v - lo < span else span)
        cnt[k] += 1
    pos = np.int64(0)
    for k in range(span + 2):
        c = cnt[k]
        cnt[k] = pos
        pos += c
    beyond, tail = cnt[span], cnt[span + 1]
    for i in range(m):
        v = bound[i]
        k = span + 1 if v >= INF else (v - lo if v - lo < span else span)
        order[cnt[k]] = i
        cnt[k] += 1
    if tail > beyond:  # finite bounds past the span, in index order so far: sort them, stably
        idx = order[beyond:tail].copy()
        sub = np.argsort(bound[idx], kind="mergesort")
        for j in range(idx.shape[0]):
            order[beyond + j] = idx[sub[j]]
    return order


@njit(cache=True)
def _leaf_ply(table, S, guesses, bound, lb0, lb1, n_resp, win, beta):  # type: ignore[no-untyped-def]
    """(bound, exact) of the set ``S`` one ply deep with its parts valued by :func:`_leaf_bound`: the guesses
    in ascending order of their size-only score ``bound`` (a lower bound of their leaf-bound score), until
    the next one's cannot beat the best found, or passes ``beta`` (fail-soft: then the least of the two is a
    bound, not the minimum)."""
    n = S.shape[0]
    order = _ascending(bound)
    best = INF
    cnt = np.zeros(n_resp, dtype=np.int64)
    starts = np.zeros(n_resp + 1, dtype=np.int64)
    fill = np.zeros(n_resp, dtype=np.int64)
    buf = np.empty(n, dtype=np.uint8)
    part = np.empty(n, dtype=np.int32)
    scratch = np.zeros(n_resp, dtype=np.int64)
    for oi in range(order.shape[0]):
        i = order[oi]
        b = bound[i]
        if b >= best:
            return best, True
        if b >= beta:
            return b, False  # every guess left scores at least b >= beta; none scored below it
        _split_into(table[guesses[i]], S, n_resp, cnt, starts, fill, buf, part)
        s = n
        for r in range(n_resp):
            if r == win or cnt[r] == 0:
                continue
            s += _leaf_bound(table, part[starts[r]:starts[r + 1]], lb0, lb1, n_resp, win, scratch)
            if s >= best:
                break
        if s < best:
            best = s
    return best, best < INF


LEAVES = "own-codes, branching"
"""How the sets refined are valued, as a campaign's progress file records it: the last ply's parts by their own
codes (:func:`_leaf_bound`), and every set's parts by the size-only bound of its own branching
(:func:`_one_ply_branching`).  A bound proven another way (before: ``"own-codes"``, or no entry for the size
alone) is still a proof, but not this way's LB_k for any k: each way's bound at k plies is at most this one's."""

SECOND_UNITS_MIN = 256
"""Root parts of at least this many codes are refined one second guess at a time in the last pass, each kept
(:meth:`PartLedger.put_second`); smaller ones take seconds, and their second guesses would only fill the file."""

LEAF_SCAN_MAX = 64
"""Parts of at most this many codes get :func:`_leaf_bound` below the last ply refined; bigger ones the
size-only bound (their own codes' scoring would cost |P|², and big parts are rare that deep)."""


@njit(cache=True)
def _leaf_bound(table, P, lb0, lb1, n_resp, win, cnt):  # type: ignore[no-untyped-def]
    """An admissible bound of the optimal total of the set ``P`` at least its size-only bound, for |P|²
    table reads instead of a ply's every code: the next guess is either one of ``P``'s own codes, each
    scored by its real partition (``|P| + Σ LB_0`` of its parts), or a code outside ``P``, and a strategy
    that opens with a code outside the set has the size-only bound of that case, ``lb1`` (no secret
    found by its first guess: :func:`solver.bounds.lower_bound_tables`, kind 1).  ``cnt``: scratch of
    ``n_resp`` counts."""
    n = P.shape[0]
    if n <= 2 or n > LEAF_SCAN_MAX:
        return lb0[n]
    best = lb1[n]
    for a in range(n):
        row = table[P[a]]
        cnt[:] = 0
        for b in range(n):
            cnt[row[P[b]]] += 1
        s = n
        for r in range(n_resp):
            if r != win and cnt[r] > 0:
                s += lb0[cnt[r]]
        if s < best:
            best = s
            if best <= lb0[n]:  # the size-only bound itself: nothing scores lower
                break
    return best


def refine_set(table: npt.NDArray[Any], codes: npt.NDArray[Any], masks: npt.NDArray[Any], S: npt.NDArray[np.int32],
               guesses: npt.NDArray[np.int32], depth: int, lb0: npt.NDArray[np.int64], n_resp: int, win: int,
               n_symbols: int, called: int, beta: int, work: npt.NDArray[np.int64], z1: npt.NDArray[np.uint64],
               z2: npt.NDArray[np.uint64], mk1: npt.NDArray[np.uint64], mk2: npt.NDArray[np.uint64],
               mval: npt.NDArray[np.int64], child_reps: npt.NDArray[np.int32], child_starts: npt.NDArray[np.int64],
               remember: bool, lb1: npt.NDArray[np.int64], lbb: npt.NDArray[np.int64], lbb1: npt.NDArray[np.int64],
               b_cap: int) -> int:
    """An admissible lower bound of the optimal total (turn-independent: remaining guesses summed
    over ``S``) of the ascending set ``S``, refined ``depth`` plies: LB_depth(S) when it is below
    ``beta``, else some bound of at least ``beta``.  ``guesses``: the guesses to try at this ply
    (empty: every code, one per class of absent and uncalled symbols, ``called`` the symbols guessed
    so far).  ``work[0]`` counts the sets refined, ``work[1]`` the memo's hits; ``z1``, ``z2`` the
    game's Zobrist vectors (:func:`solver.table.zobrist`) keying the memo (:func:`new_memo`).

    ``child_starts`` (empty: none) gives the next ply its guesses: the parts of ``guesses[i]`` are refined
    with ``child_reps[child_starts[i]:child_starts[i + 1]]``, one guess per class of the transformations
    fixing the moves so far and ``guesses[i]`` (they map each of its parts onto itself, so the least bound
    over the classes is the least over every code).  ``remember``: the caller vouches for ``guesses`` that
    way, so the set's bound may be remembered like one refined from every code.

    ``lb1`` (empty: none): the size-only bounds of strategies opening with a code outside the set; with it,
    the last ply scores its best guesses' parts by :func:`_leaf_bound` instead of their size alone (best
    first: each guess's size-only score is a lower bound of its leaf-bound score, so the scan stops at the
    first guess whose size-only score passes the best leaf-bound score found).

    ``lbb``, ``lbb1`` (empty: none): :func:`solver.bounds.branching_tables`' kinds 0 and 1, and ``b_cap`` the
    branching proven above ``S`` (``lb0`` and ``lb1`` are then its rows): each set refined finds its own
    branching among its guesses, the most non-winning parts any of them makes, and values its parts, and
    the sets below them, by the size-only bound of that branching (``LEAVES``).

    It releases the GIL (``nogil``): one call can take the best part of an hour, and a Dask worker that
    holds the GIL that long cannot send its heartbeats, so its scheduler restarts it and the unit is lost.

    The arrays go in as the kernel passes them to itself (the bound tables read-only, the sets and guess
    lists writable and contiguous): the kernel is recursive, and numba's cache cannot load a recursive kernel
    whose inner call was compiled for other argument types than its outer one (numba issue 6061): the next
    process's first call crashes.  One signature for every caller keeps the cached kernel loadable."""
    return int(_refine_set(table, codes, masks, _writable(S, np.int32), _writable(guesses, np.int32), int(depth),
                           _readonly(lb0), int(n_resp), int(win), int(n_symbols), int(called), int(beta), work, z1, z2,
                           mk1, mk2, mval, _writable(child_reps, np.int32), _writable(child_starts, np.int64),
                           bool(remember), _readonly(lb1), _readonly(lbb), _readonly(lbb1), int(b_cap)))


def _writable(a: npt.NDArray[Any], dtype: type) -> npt.NDArray[Any]:
    """``a`` as a writable contiguous array of ``dtype`` (a copy only when it is not one already)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


@njit(cache=True, nogil=True)
def _refine_set(table, codes, masks, S, guesses, depth, lb0, n_resp, win, n_symbols, called, beta, work,  # type: ignore[no-untyped-def]
                z1, z2, mk1, mk2, mval, child_reps, child_starts, remember, lb1, lbb, lbb1, b_cap):
    """:func:`refine_set`'s kernel, called only through it (one signature: see there)."""
    n = S.shape[0]
    work[0] += 1
    if n <= 2 or depth <= 0:
        return lb0[n]
    k1, k2 = set_keys(S, z1, z2, 0)
    # Sets refined from every code are remembered, and those whose guesses the caller vouches are
    # classes of a group mapping the set onto itself (their least bound is the least of all); a root
    # part's pool is left out, as its bound is kept by the root's ledger.
    memo = guesses.shape[0] == 0 or remember
    if memo:
        got = _memo_get(mk1, mk2, mval, k1, k2, depth, beta)
        if got >= 0:
            work[1] += 1
            return got
    if guesses.shape[0] == 0:
        guesses = _canonical_guesses(codes, masks, S, called, n_symbols)
    m = guesses.shape[0]
    bound = np.empty(m, dtype=np.int64)
    if lbb.shape[0] > 0:
        b_cap = _one_ply_branching(table, S, guesses, lbb, b_cap, n_resp, win, bound)
        lb0 = lbb[b_cap]
        if lb1.shape[0] > 0:
            lb1 = lbb1[b_cap]
    else:
        _one_ply(table, S, guesses, lb0, n_resp, win, bound)
    if depth == 1:
        # the last ply refined: LB_1 is the least one-ply bound itself (no order, no split needed)
        out = INF
        for i in range(m):
            if bound[i] < out:
                out = bound[i]
        exact = out < INF
        if lb1.shape[0] > 0 and out < INF:
            out, exact = _leaf_ply(table, S, guesses, bound, lb0, lb1, n_resp, win, beta)
        if memo:
            _memo_put(mk1, mk2, mval, k1, k2, depth, out, exact)
        return out
    order = _ascending(bound)
    best = beta
    fail = INF
    found = False
    buf = np.empty(n, dtype=np.uint8)
    part = np.empty(n, dtype=np.int32)
    est = np.zeros(n_resp, dtype=np.int64)
    cnt = np.zeros(n_resp, dtype=np.int64)
    starts = np.zeros(n_resp + 1, dtype=np.int64)
    fill = np.zeros(n_resp, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int32)
    no_starts = np.zeros(0, dtype=np.int64)
    classed = child_starts.shape[0] > 0
    for oi in range(m):
        i = order[oi]
        if bound[i] >= best:
            if bound[i] < fail:
                fail = bound[i]
            break
        g = guesses[i]
        _split_into(table[g], S, n_resp, cnt, starts, fill, buf, part)
        # each part's estimate: the size-only bound, or what the memo already proved of it (a shallower
        # pass's, or another branch's), so the parts' room is tight and a guess may fall before any work
        rest = np.int64(0)
        known_any = False
        for r in range(n_resp):
            c = cnt[r]
            est[r] = 0
            if c == 0 or r == win:
                continue
            est[r] = lb0[c]
            if c > 2:
                q1, q2 = set_keys(part[starts[r]:starts[r + 1]], z1, z2, 0)
                got = _memo_peek(mk1, mk2, mval, q1, q2)
                if got > est[r]:
                    est[r] = got
                    known_any = True
            rest += est[r]
        if n + rest >= best:
            if n + rest < fail:
                fail = n + rest
            continue
        # Largest part first while the estimates are the size-only ones (the big parts rise most, and cut
        # the guess soonest); smallest first once the memo knew some part: the estimates are then close,
        # the room is small, and the small parts use it up for a fraction of a big one's refinement.
        if known_any:
            sizes = np.argsort(cnt, kind="mergesort")
        else:
            sizes = np.argsort(-cnt, kind="mergesort")
        acc = np.int64(n)
        ok = True
        for ri in range(n_resp):
            r = sizes[ri]
            c = cnt[r]
            if c == 0:
                continue
            if r == win:
                continue
            rest -= est[r]
            below = empty
            if classed:
                below = child_reps[child_starts[i]:child_starts[i + 1]]
            v = _refine_set(table, codes, masks, part[starts[r]:starts[r + 1]].copy(), below, depth - 1, lb0, n_resp,
                           win, n_symbols, called | masks[g], best - acc - rest, work, z1, z2, mk1, mk2, mval,
                           empty, no_starts, classed, lb1, lbb, lbb1, b_cap)
            if v < est[r]:
                v = est[r]
            acc += v
            if acc + rest >= best:
                ok = False
                if acc + rest < fail:
                    fail = acc + rest
                break
        if ok:
            best = acc
            found = True
    if found:
        out = best
    elif fail >= INF:
        out = INF
    else:
        out = fail if fail > beta else beta
    if memo:
        _memo_put(mk1, mk2, mval, k1, k2, depth, out, found)
    return out


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


EXACT_PLIES = 1 << 20
"""``PartLedger``'s plies for an exact value: no refinement, however deep, can raise it."""


class PartLedger:
    """Proven lower bounds of a position's root parts, keyed by (root guess, response): the bound, and the
    plies ``k`` whose full LB_k it is known to reach (0 when it may be a cut refinement's).

    Why: every bound :func:`refine_set` returns is admissible, whatever depth or room it had, so whatever was
    proven of a part once is a valid estimate for any later refinement of it, in this run or another.  A
    subclass may share the ledger (:meth:`put` is told of every part as it is proven, :meth:`sync` asked
    before each root guess to take in what other processes proved)."""

    def __init__(self, bounds: dict[tuple[int, int], tuple[int, int]] | None = None,
                 seconds: dict[tuple[int, int, int], tuple[int, int]] | None = None,
                 thirds: dict[tuple[int, int, int, int], tuple[int, int]] | None = None) -> None:
        self.bounds: dict[tuple[int, int], tuple[int, int]] = dict(bounds or {})
        self.seconds: dict[tuple[int, int, int], tuple[int, int]] = dict(seconds or {})
        self.thirds: dict[tuple[int, int, int, int], tuple[int, int]] = dict(thirds or {})

    def get(self, guess: int, response: int) -> tuple[int, int]:
        """(bound, plies) of a part, (0, 0) when nothing is known of it."""
        return self.bounds.get((guess, response), (0, 0))

    def put(self, guess: int, response: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part; a bound never falls.  Returns whether anything rose."""
        old_lower, old_plies = self.get(guess, response)
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.bounds[(guess, response)] = new
        return True

    def get_second(self, guess: int, response: int, second: int) -> tuple[int, int]:
        """(bound, plies) of a root part's total when its first guess is ``second``, (0, 0) when nothing is known:
        the part's own bound is the least of these over its second guesses, so each is a unit of its own."""
        return self.seconds.get((guess, response, second), (0, 0))

    def put_second(self, guess: int, response: int, second: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part under one second guess (plies: those whose full bound it is, 0 when
        it may be a cut one's); a bound never falls.  Returns whether anything rose."""
        old_lower, old_plies = self.get_second(guess, response, second)
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.seconds[(guess, response, second)] = new
        return True

    def get_third(self, guess: int, response: int, second: int, response2: int) -> tuple[int, int]:
        """(bound, plies) of the part that answers ``response2`` to ``second`` within the root part, (0, 0) when
        nothing is known: a second guess's bound is its cost plus the sum of these, so each is a unit too."""
        return self.thirds.get((guess, response, second, response2), (0, 0))

    def put_third(self, guess: int, response: int, second: int, response2: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part below a second guess; never falls.  Returns whether anything rose."""
        key = (guess, response, second, response2)
        old_lower, old_plies = self.thirds.get(key, (0, 0))
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.thirds[key] = new
        return True

    def sync(self) -> None:
        """Take in what others proved meanwhile (nothing here: one process keeps its ledger to itself)."""

    def claim(self, guess: int, response: int, second: int | None = None) -> bool:
        """Take a part (or, with ``second``, the part under that second guess) to refine it; False when another
        process refines it now (asked before each part of the last pass, and before each second guess of a part
        refined one second guess at a time: it is then put off to the end, when it may be proven).  Always
        granted here."""
        return True

    def release(self, guess: int, response: int, second: int | None = None) -> None:
        """Give back what :meth:`claim` took (its refinement is over, or was cut short)."""

    def wait(self, guess: int, response: int, second: int | None = None) -> None:
        """Wait until no other process holds the part (or second guess) (asked of one put off, when nothing else
        is left to refine: its bound is then taken in, and it is refined here only if its holder gave up)."""


def _readonly(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``a`` made read-only, as the bound tables are: the kernels see one array type, whichever they get."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.copy()
        a.flags.writeable = False
    return a


def root_classes(game: Game, history: History = (), *, searcher: Searcher | None = None) -> list[int]:
    """The root's guesses that :func:`root_lower_bound` refines: one per class, those that split the
    candidates, in the order it refines them (best one-ply bound first).  ``searcher``: one of the game's to
    reuse (making one costs more than the call on a small set)."""
    from solver.search import Searcher

    searcher = searcher or Searcher(game, SolveOptions("total"))
    ktable, n_resp, win = compact_responses(game, searcher.arrays.table)
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, 0, MMAX])
    cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
    pool0 = np.ascontiguousarray(searcher.pools(history)[0], dtype=np.int32)
    bound = np.empty(pool0.shape[0], dtype=np.int64)
    _one_ply(ktable, cands, pool0, lb0, n_resp, win, bound)
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
    from solver.search import Searcher

    if depth < 1:
        raise ValueError("depth must be at least 1")
    t0 = time.perf_counter()
    searcher = searcher or Searcher(game, SolveOptions("total"))
    arrays = searcher.arrays
    ktable, n_resp, win = compact_responses(game, arrays.table)
    tables = lower_bound_tables(game, game.size)
    lb0 = _readonly(tables[0, 0, MMAX])
    lb1 = _readonly(tables[1, 0, MMAX] if leaf_scan else np.zeros(0, dtype=np.int64))
    if branching:
        by_b = branching_tables(game, game.size)
        lbb, lbb1 = _readonly(by_b[0]), _readonly(by_b[1])
    else:
        lbb = lbb1 = _readonly(np.zeros((0, 1), dtype=np.int64))
    b_game = max(lbb.shape[0] - 1, 1)
    cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
    n = int(cands.shape[0])
    turn = len(history) + 1
    offset = n * (turn - 1)
    size_only = int(lb0[n]) + offset
    work = np.zeros(2, dtype=np.int64)
    z1, z2 = zobrist(game.size)
    memo = new_memo()
    if n <= 2:
        return RootBound(size_only, int(lb0[n]), size_only, depth, None, 0, 0, 1, time.perf_counter() - t0)
    pool0, pools1, lens, row_of = searcher.pools(history)
    pool0 = np.ascontiguousarray(pool0, dtype=np.int32)
    bound = np.empty(pool0.shape[0], dtype=np.int64)
    b_root = b_game
    if branching:  # the root's pool stands for every code (classes of the transformations fixing the history)
        b_root = int(_one_ply_branching(ktable, cands, pool0, lbb, b_game, n_resp, win, bound))
        lb0 = lbb[b_root]
        if leaf_scan:
            lb1 = lbb1[b_root]
    else:
        _one_ply(ktable, cands, pool0, lb0, n_resp, win, bound)
    order = [int(i) for i in np.argsort(bound, kind="mergesort") if bound[i] < INF]
    if guesses is not None:
        wanted = {int(g) for g in guesses}
        order = [i for i in order if int(pool0[i]) in wanted]
    # ``passes``: what this run's passes proved of the root parts, each pass's estimates for the next.  The
    # ledger's bounds (other runs', maybe deeper) come in at the last pass only: the shallow passes warm the memo
    # for it, and a ledger whose parts cut every guess at once would leave it cold (more work, not less).
    passes = PartLedger()
    shared = PartLedger() if ledger is None else ledger
    called = arrays.called(history)
    goal = INF if target is None else max(int(target) - offset, 0)
    parts: dict[tuple[int, int], PartBound] = {}  # every root part's best bound, from every pass
    refined = 0

    codes_of: dict[tuple[int, int], tuple[int, ...]] = {}
    probed: dict[tuple[int, int], tuple[int, int] | None] = {}
    no_reps, no_starts = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    third: dict[int, tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]] = {}
    moves = [t.guess for t in history]

    def third_ply(g: int, child_pool: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """The third ply's guesses below root guess ``g``, for each of its second-ply guesses in turn (one per
        class of the transformations fixing the moves, ``g`` and that guess), flat, with where each starts:
        made once per root guess, for every pass and part."""
        if not third_ply_classes or child_pool.shape[0] == 0:
            return no_reps, no_starts
        if g not in third:
            rows = [equivalence_set(game, [*moves, g, int(g2)]) for g2 in child_pool]
            starts_ = np.zeros(len(rows) + 1, dtype=np.int64)
            starts_[1:] = np.cumsum([r.shape[0] for r in rows])
            flat = np.ascontiguousarray(np.concatenate(rows) if rows else no_reps, dtype=np.int32)
            third[g] = (flat, starts_)
        return third[g]

    def part_codes(g: int, r: int, sub: npt.NDArray[np.int32]) -> tuple[int, ...]:
        """The root part's codes as a tuple, made once for every pass."""
        if (g, r) not in codes_of:
            codes_of[(g, r)] = tuple(int(c) for c in sub)
        return codes_of[(g, r)]

    def table_bound(g: int, r: int, sub: npt.NDArray[np.int32]) -> tuple[int, int] | None:
        """What the table proves of a root part, asked once: the passes ask of the same parts again."""
        if known is None:
            return None
        if (g, r) not in probed:
            probed[(g, r)] = known(part_codes(g, r, sub))
        return probed[(g, r)]

    def by_second(g: int, r: int, sub: npt.NDArray[np.int32], child_pool: npt.NDArray[np.int32], k: int,
                  beta: int) -> int:
        """The root part ``(g, r)`` refined ``k`` plies as :func:`refine_set` refines it, its first ply here: one
        call per second guess, best one-ply bound first, each guess's bound put in the ledger as it is proven
        (fail-soft like the kernel: the least bound when it is below ``beta``, else a bound of at least it)."""
        reps, starts = third_ply(g, child_pool)
        first = np.empty(child_pool.shape[0], dtype=np.int64)
        b_sub = b_root
        if branching:  # the child pool stands for every code at this part (classes fixing the history and g)
            b_sub = int(_one_ply_branching(ktable, sub, child_pool, lbb, b_root, n_resp, win, first))
        else:
            _one_ply(ktable, sub, child_pool, lb0, n_resp, win, first)
        best, fail, found = beta, INF, False
        # Processes sharing the ledger split a part's second guesses as they split a root guess's parts: one
        # another holds is put off to the end, then its bound taken in (and refined here only if still short).
        ranked = [int(i) for i in np.argsort(first, kind="mergesort")]
        put_off: list[int] = []
        while ranked or put_off:
            first_try = bool(ranked)
            i = ranked.pop(0) if first_try else put_off.pop(0)
            if first[i] >= best:
                fail = min(fail, int(first[i]))
                if first_try:  # ascending: the rest cannot be the least either
                    ranked.clear()
                continue
            g2 = int(child_pool[i])
            if not first_try:
                shared.wait(g, r, g2)
            shared.sync()
            lower, plies = shared.get_second(g, r, g2)
            if plies >= k or lower >= best:  # its full bound at these plies is known, or it cannot be the least
                v = lower
            elif not shared.claim(g, r, g2) and first_try:
                put_off.append(i)
                continue
            else:
                below = no_reps
                if starts.shape[0] > 0:
                    below = reps[int(starts[i]):int(starts[i + 1])]
                try:
                    got = by_third(g, r, sub, g2, below, k, best, b_sub)
                finally:
                    shared.release(g, r, g2)
                v = max(got, lower)
                if got < best or v > shared.get(g, r)[0]:  # a cut bound no higher than the part's says nothing new
                    shared.put_second(g, r, g2, min(v, INF), k if got < best else 0)
            if v < best:
                best, found = v, True
            else:
                fail = min(fail, v)
        if found:
            return best
        return INF if fail >= INF else max(fail, beta)

    def by_third(g: int, r: int, sub: npt.NDArray[np.int32], g2: int, below: npt.NDArray[np.int32], k: int,
                 beta: int, b_sub: int) -> int:
        """The root part ``(g, r)`` refined ``k`` plies opening with ``g2`` (``below``: the third ply's guesses),
        as :func:`refine_set` refines one guess: its parts one kernel call each, each part's bound put in the
        ledger (:meth:`PartLedger.put_third`) so that a second guess of an hour keeps what it proved.  Fail-soft:
        the bound when below ``beta``, else a bound of at least it.  ``b_sub``: the root part's branching."""
        n = int(sub.shape[0])
        lb_sub = lbb[b_sub] if branching else lb0
        lb1_sub = lbb1[b_sub] if branching and leaf_scan else lb1
        part_order, starts = kernels.split(*arrays.kernel_args(), g2, sub, game.n_responses)
        called2 = called | int(arrays.masks[g]) | int(arrays.masks[g2])
        est: dict[int, int] = {}
        known_any = False
        for r2 in range(game.n_responses):
            c = int(starts[r2 + 1] - starts[r2])
            if c == 0 or r2 == game.all_bulls:
                continue
            e = int(lb_sub[c])
            if c > 2:
                q1, q2 = set_keys(np.ascontiguousarray(part_order[int(starts[r2]):int(starts[r2 + 1])], dtype=np.int32),
                                  z1, z2, 0)
                seen = int(_memo_peek(*memo, np.uint64(q1), np.uint64(q2)))
                proven = shared.get_third(g, r, g2, r2)[0]
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
            lower, plies = shared.get_third(g, r, g2, r2)
            if plies >= k - 1 or sizes[r2] <= 2:
                v = est[r2]
            else:
                room = beta - acc - rest
                part = np.ascontiguousarray(part_order[int(starts[r2]):int(starts[r2 + 1])], dtype=np.int32)
                got = int(refine_set(ktable, arrays.codes, arrays.masks, part, below, k - 1, lb_sub, n_resp, win,
                                     game.symbols, called2, room, work, z1, z2, *memo, no_reps, no_starts, classed,
                                     lb1_sub, lbb, lbb1, b_sub))
                v = max(got, est[r2])
                if got < room or v > max(lower, int(lb_sub[sizes[r2]])):  # a cut bound at its size's says nothing
                    shared.put_third(g, r, g2, r2, min(v, INF), k - 1 if got < room else 0)
            acc += v
            if acc + rest >= beta:
                return max(acc + rest, beta)
        return acc

    def split(sub: npt.NDArray[np.int32], child_pool: npt.NDArray[np.int32], d: int) -> bool:
        """Whether pass ``d`` refines this root part one second guess at a time (:func:`by_second`): only the last
        pass, whose parts are the long units, and only parts big enough to be worth the file's entries."""
        return bool(d == depth and second_units and sub.shape[0] >= second_units and d >= 3
                    and child_pool.shape[0] > 0)

    def one_pass(d: int) -> tuple[int, int | None]:
        """LB_d of the root (or, with a target, at least it) and its guess: the parts' estimates come from the
        earlier passes (and the memo below them), so a deeper pass only refines what they did not settle."""
        nonlocal refined
        best, best_g, fail = goal, None, INF
        for done, i in enumerate(order):
            if progress is not None:
                progress(d, done, len(order))
            if bound[i] >= best:
                fail = min(fail, int(bound[i]))
                break
            g = int(pool0[i])
            last = d == depth
            if last:
                shared.sync()
            part_order, starts = kernels.split(*arrays.kernel_args(), g, cands, game.n_responses)
            sizes = np.diff(starts)
            resp = sorted((r for r in range(game.n_responses) if sizes[r] > 0 and r != game.all_bulls),
                          key=lambda r: (-int(sizes[r]), r))
            if d >= 2:  # the parts carry the last pass's bounds: the small ones settle the room cheaply
                resp.reverse()
            subs = {r: np.ascontiguousarray(part_order[int(starts[r]):int(starts[r + 1])], dtype=np.int32)
                    for r in resp}
            est: dict[int, int] = {}
            for r in resp:
                aside = only_parts is not None and r not in only_parts  # never refined here: what the ledger has is all
                e = max(int(lb0[subs[r].shape[0]]), passes.get(g, r)[0], shared.get(g, r)[0] if last or aside else 0)
                have = table_bound(g, r, subs[r])
                if have is not None:
                    e = max(e, have[0])
                est[r] = e
            rest = sum(est.values())
            if n + rest >= best:
                fail = min(fail, n + rest)
                continue
            refined += 1
            child_pool = np.zeros(0, dtype=np.int32)
            if pools1.shape[0] > 0 and row_of[g] >= 0:
                child_pool = np.ascontiguousarray(pools1[row_of[g], : lens[row_of[g]]], dtype=np.int32)
            acc, ok = n, True
            # In the last pass, a part another process has claimed is put off to the end (it may be proven by
            # then), and each part first takes in what the others proved meanwhile: processes sharing a ledger
            # split a first guess's parts instead of refining the same ones.
            queue, later = list(resp), list[int]()
            while queue or later:
                first_try = bool(queue)
                r = queue.pop(0) if queue else later.pop(0)
                sub, have = subs[r], table_bound(g, r, subs[r])
                by_seconds = split(sub, child_pool, d)  # then claimed one second guess at a time, not whole
                plies = 0
                if last:
                    if not first_try:  # put off: let its holder finish it rather than refine it twice
                        shared.wait(g, r)
                    shared.sync()
                    known_lower, plies = shared.get(g, r)
                    if known_lower > est[r]:  # another process raised it meanwhile
                        rest += known_lower - est[r]
                        est[r] = known_lower
                        if acc + rest >= best:
                            ok = False
                            fail = min(fail, acc + rest)
                            break
                rest -= est[r]
                if (have is not None and have[0] == have[1]) or sub.shape[0] <= 2:
                    v, exact = est[r], True
                    for book in (passes, shared):
                        book.put(g, r, v, EXACT_PLIES)
                elif only_parts is not None and r not in only_parts:
                    v, exact = est[r], False
                elif plies >= d - 1:  # proven before at least as deep as this pass refines it
                    v, exact = est[r], plies >= EXACT_PLIES
                elif last and first_try and not by_seconds and not shared.claim(g, r):
                    rest += est[r]
                    later.append(r)
                    continue
                else:
                    room = best - acc - rest
                    try:
                        if by_seconds:
                            got = by_second(g, r, sub, child_pool, d - 1, room)
                        else:
                            got = int(refine_set(ktable, arrays.codes, arrays.masks, sub, child_pool, d - 1, lb0,
                                                 n_resp, win, game.symbols, called | int(arrays.masks[g]), room, work,
                                                 z1, z2, *memo,
                                                 # a part refined one ply never reaches the third
                                                 *(third_ply(g, child_pool) if d >= 3 else (no_reps, no_starts)),
                                                 False, lb1, lbb, lbb1, b_root))
                    finally:
                        if last and not by_seconds:
                            shared.release(g, r)
                    v, exact = max(got, est[r]), False
                    # below its room the refinement found the minimum: the bound is LB_{d-1} itself
                    for book in (passes, shared):
                        book.put(g, r, min(v, INF), d - 1 if got < room else 0)
                parts[(g, r)] = PartBound(r, part_codes(g, r, sub), min(v, INF), exact)
                acc += v
                if acc + rest >= best:
                    ok = False
                    fail = min(fail, acc + rest)
                    break
            if ok:
                best, best_g = acc, g
        return (best if best_g is not None else min(fail, INF)), best_g

    # Passes of growing depth (iterative deepening): each is cheap next to the one after it, and gives it
    # tight estimates of the parts' bounds; with a target, the first pass that reaches it is the answer.
    reached, remaining, best_guess = 1, INF, None
    for d in range(1, depth + 1):
        reached = d
        remaining, best_guess = one_pass(d)
        if remaining >= goal:
            break
    return RootBound(remaining + offset if remaining < INF else INF, remaining, size_only, reached, best_guess,
                     refined, len(order), int(work[0]), time.perf_counter() - t0, list(parts.values()))

