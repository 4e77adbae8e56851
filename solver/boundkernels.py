"""The lower-bound refinement's numba kernels: one-ply bounds of a set's guesses, the ordering and splitting
they need, the leaves' bound, and the recursive refinement itself (:func:`refine_set`).

The why of the method (plies, best-first order, leaves, branching) is :mod:`solver.lowerbound`'s docstring,
which drives these from the root; the memo the refinement keeps is :mod:`solver.boundmemo`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from solver import kernels
from solver.boundmemo import memo_get, memo_peek, memo_put
from solver.question import INF
from solver.ttkernels import set_keys


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
def one_ply_bounds(table, S, guesses, lb0, n_resp, win, out):  # type: ignore[no-untyped-def]
    """``out[i]``: |S| + Σ LB_0 of the non-winning parts of ``guesses[i]`` (INF when it splits nothing)."""
    _score_parts(_partition_counts(table, S, guesses, n_resp), S.shape[0], lb0, n_resp, win, out)


@njit(cache=True)
def one_ply_branching_bounds(table, S, guesses, lbb, b_cap, n_resp, win, out):  # type: ignore[no-untyped-def]
    """:func:`one_ply_bounds` with the set's own branching: returns ``b``, the most non-winning parts any of
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
    game's Zobrist vectors (:func:`solver.table.zobrist`) keying the memo (:func:`solver.boundmemo.new_memo`).

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
    the sets below them, by the size-only bound of that branching (:data:`solver.lowerbound.LEAVES`).

    It releases the GIL (``nogil``): one call can take the best part of an hour, and a Dask worker that
    holds the GIL that long cannot send its heartbeats, so its scheduler restarts it and the unit is lost.

    The arrays go in as the kernel passes them to itself (the bound tables read-only, the sets and guess
    lists writable and contiguous): the kernel is recursive, and numba's cache cannot load a recursive kernel
    whose inner call was compiled for other argument types than its outer one (numba issue 6061): the next
    process's first call crashes.  One signature for every caller keeps the cached kernel loadable."""
    return int(_refine_set(table, codes, masks, _writable(S, np.int32), _writable(guesses, np.int32), int(depth),
                           readonly(lb0), int(n_resp), int(win), int(n_symbols), int(called), int(beta), work, z1, z2,
                           mk1, mk2, mval, _writable(child_reps, np.int32), _writable(child_starts, np.int64),
                           bool(remember), readonly(lb1), readonly(lbb), readonly(lbb1), int(b_cap)))


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
        got = memo_get(mk1, mk2, mval, k1, k2, depth, beta)
        if got >= 0:
            work[1] += 1
            return got
    if guesses.shape[0] == 0:
        guesses = _canonical_guesses(codes, masks, S, called, n_symbols)
    m = guesses.shape[0]
    bound = np.empty(m, dtype=np.int64)
    if lbb.shape[0] > 0:
        b_cap = one_ply_branching_bounds(table, S, guesses, lbb, b_cap, n_resp, win, bound)
        lb0 = lbb[b_cap]
        if lb1.shape[0] > 0:
            lb1 = lbb1[b_cap]
    else:
        one_ply_bounds(table, S, guesses, lb0, n_resp, win, bound)
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
            memo_put(mk1, mk2, mval, k1, k2, depth, out, exact)
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
                got = memo_peek(mk1, mk2, mval, q1, q2)
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
        memo_put(mk1, mk2, mval, k1, k2, depth, out, found)
    return out


def readonly(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``a`` made read-only, as the bound tables are: the kernels see one array type, whichever they get."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.copy()
        a.flags.writeable = False
    return a
