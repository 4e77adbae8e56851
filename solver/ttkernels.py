"""The transposition table's kernels: a fixed-size hash table of candidate sets, in numpy arrays.

Kept apart from the search kernel (:mod:`solver.searchkernels`), which reads and writes it, because the
table is also filled and read from Python: :class:`solver.table.TranspositionTable` loads persisted
entries into it and exports proven ones, and :mod:`service.knowledge` reads the shipped positions with
the same bounds rule (:func:`tt_bounds`).

A set's key is two 64-bit Zobrist hashes (``tt_k1``, ``tt_k2``) of its codes, plus a context (the turn,
for searches whose values depend on it).  Each slot's fields are a row of ``tt_info`` (int64, columns
``F_*``): the guesses left ``m`` the value was proven with, a flag (exact, or a lower bound), the value,
the best guess, the search cost (replacement prefers keeping the costly), and the turn.  Slots are
grouped in buckets of ``BUCKET``; :mod:`solver.table` documents the reuse rules for other ``m``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the layout the kernels read and write, defined numba-free (re-exported: readers name it here too)
from solver.ttlayout import BUCKET as BUCKET
from solver.ttlayout import F_BEST as F_BEST
from solver.ttlayout import F_COST as F_COST
from solver.ttlayout import F_FLAG as F_FLAG
from solver.ttlayout import F_M as F_M
from solver.ttlayout import F_TURN as F_TURN
from solver.ttlayout import F_VALUE as F_VALUE
from solver.ttlayout import FLAG_EMPTY as FLAG_EMPTY
from solver.ttlayout import FLAG_EXACT as FLAG_EXACT
from solver.ttlayout import FLAG_LOWER as FLAG_LOWER
from solver.ttlayout import INF as INF


@njit(cache=True)
def set_keys(S, z1, z2, ctx):  # type: ignore[no-untyped-def]
    """Two independent 64-bit Zobrist sums of a set, the context mixed into both."""
    k1 = np.uint64(ctx) * np.uint64(0x9E3779B97F4A7C15)
    k2 = np.uint64(ctx) * np.uint64(0xC2B2AE3D27D4EB4F)
    for i in range(S.shape[0]):
        k1 += z1[S[i]]
        k2 += z2[S[i]]
    k1 += np.uint64(S.shape[0])
    if k1 == 0:
        k1 = np.uint64(1)
    return k1, k2


@njit(cache=True)
def tt_find(tt_k1, tt_k2, k1, k2):  # type: ignore[no-untyped-def]
    """Slot holding key (k1, k2), or -1."""
    nb = tt_k1.shape[0] // BUCKET
    base = np.int64(k1 % np.uint64(nb)) * BUCKET
    for j in range(BUCKET):
        if tt_k1[base + j] == k1 and tt_k2[base + j] == k2:
            return base + j
    return -1


@njit(cache=True)
def tt_store(tt_k1, tt_k2, tt_info, k1, k2, m, flag, value, best, cost, turn):  # type: ignore[no-untyped-def]
    """Store an entry: same key → overwrite (newer knowledge of the same set); else the bucket's
    empty slot, else the slot whose entry cost the fewest nodes (cheap to recompute) is replaced."""
    nb = tt_k1.shape[0] // BUCKET
    base = np.int64(k1 % np.uint64(nb)) * BUCKET
    slot = -1
    for j in range(BUCKET):
        if tt_k1[base + j] == k1 and tt_k2[base + j] == k2:
            slot = base + j
            break
    if slot < 0:
        cheapest = np.int64(1) << np.int64(62)
        for j in range(BUCKET):
            s = base + j
            if tt_info[s, F_FLAG] == FLAG_EMPTY:
                slot = s
                break
            if tt_info[s, F_COST] < cheapest:
                cheapest = tt_info[s, F_COST]
                slot = s
    tt_k1[slot] = k1
    tt_k2[slot] = k2
    tt_info[slot, F_M] = m
    tt_info[slot, F_FLAG] = flag
    tt_info[slot, F_VALUE] = value
    tt_info[slot, F_BEST] = best
    tt_info[slot, F_COST] = cost
    tt_info[slot, F_TURN] = turn


@njit(cache=True)
def tt_store_all(tt_k1, tt_k2, tt_info, k1s, k2s, infos):  # type: ignore[no-untyped-def]
    """:func:`tt_store` of every row: keys ``k1s``, ``k2s`` uint64[n] and ``infos`` int64[n, 6] (a
    shipped index loaded into a search's table at once)."""
    for i in range(k1s.shape[0]):
        tt_store(tt_k1, tt_k2, tt_info, k1s[i], k2s[i], infos[i, F_M], infos[i, F_FLAG], infos[i, F_VALUE],
                 infos[i, F_BEST], infos[i, F_COST], infos[i, F_TURN])


@njit(cache=True)
def tt_bounds(tt_info, slot, m, crit, mmax):  # type: ignore[no-untyped-def]
    """(lower, upper, best) that entry ``slot`` proves for the same set with ``m`` guesses left.

    Totals: exact at m_e answers m == m_e exactly and is a lower bound for m < m_e (less room
    cannot help); a lower bound at m_e holds for every m <= m_e.  K-movers: exact at m_e answers
    m == m_e; a finite value at m_e means 0 for every m > m_e (all finish before the last guess);
    a positive value at m_e means no strategy exists for m < m_e.
    """
    me = tt_info[slot, F_M]
    flag = tt_info[slot, F_FLAG]
    v = tt_info[slot, F_VALUE]
    best = tt_info[slot, F_BEST]
    lo = np.int64(0)
    hi = INF
    if crit == 0:
        if m == me:
            lo = v
            if flag == FLAG_EXACT:
                hi = v
        elif m < me:
            lo = v
            if v >= INF:
                hi = INF
            best = -1
        else:
            best = -1
    else:
        if m == me:
            lo = v
            if flag == FLAG_EXACT:
                hi = v
        elif m > me:
            if flag == FLAG_EXACT and v < INF:
                hi = np.int64(0)
            best = -1
        else:
            if v > 0:
                lo = INF
                hi = INF
            best = -1
    return lo, hi, best
