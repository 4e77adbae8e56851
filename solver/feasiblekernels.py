"""Numba kernels of the worst-case question: can every candidate of a set be found within k guesses?

The question is much narrower than the optimal total's, so it gets kernels of its own (see
:mod:`solver.feasible` for the orchestration).  Every kernel takes the game's full response table
``uint8[n, n]``, which is symmetric (a guess answers a secret as the secret would answer the guess),
so that the responses of *all* codes to one candidate are a contiguous row: the kernels stream the
candidates' rows instead of gathering a few bytes from each of n rows, which is what makes them fast on
tables of a gigabyte.

A set with ``w = ceil(k / 64)`` words is described, for each code and response, by the bitmask of its
candidates that give that response (``masks[code, response, word]``).  A part of the set is such a
bitmask too, and a code separates a part's candidates exactly when no response holds two of them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

NONE = -1
"""No guess keeps the set within the guesses left (proven: every code was tried)."""
UNKNOWN = -3
"""The budget of guesses tried ran out before a guess was found or every code was refuted."""

_PART_KEY = types.UniTuple(types.uint64, 2)  # type: ignore[no-untyped-call]


@njit(cache=True)
def part_sizes(table, cands, n_resp, win):  # type: ignore[no-untyped-def]
    """``(largest, parts)`` for every code: its largest non-winning part of ``cands`` and how many parts it
    makes (the winning one included), from the candidates' rows."""
    n = table.shape[0]
    cnt = np.zeros((n, n_resp), dtype=np.int16)
    for j in range(cands.shape[0]):
        row = table[cands[j]]
        for c in range(n):
            cnt[c, row[c]] += 1
    largest = np.zeros(n, dtype=np.int32)
    parts = np.zeros(n, dtype=np.int32)
    for c in range(n):
        m = 0
        p = 0
        for r in range(n_resp):
            v = cnt[c, r]
            if v > 0:
                p += 1
                if r != win and v > m:
                    m = v
        largest[c] = m
        parts[c] = p
    return largest, parts


@njit(cache=True)
def guess_order(largest, parts, size):  # type: ignore[no-untyped-def]
    """Codes worth trying on a set of ``size``: those that split it (largest part below ``size``), the smallest
    largest part first, then the most parts (a guess that leaves small parts is the likeliest to keep a
    limit, and the order makes a found witness come early)."""
    key = largest.astype(np.int64) * 1024 - parts.astype(np.int64)
    order = np.argsort(key, kind="mergesort")
    m = 0
    for i in range(order.shape[0]):
        if largest[order[i]] >= size:
            break
        m += 1
    return order[:m].astype(np.int32)


@njit(cache=True)
def set_masks(table, cands, n_resp, words):  # type: ignore[no-untyped-def]
    """``masks[code, response, word]``: which candidates (bit ``j`` of word ``j // 64`` for ``cands[j]``) give
    ``response`` to ``code``."""
    n = table.shape[0]
    m = np.zeros((n, n_resp, words), dtype=np.uint64)
    for j in range(cands.shape[0]):
        row = table[cands[j]]
        w = j >> 6
        bit = np.uint64(1) << np.uint64(j & 63)
        for c in range(n):
            m[c, row[c], w] |= bit
    return m


@njit(cache=True)
def _separates(masks, c, part, n_resp, words):  # type: ignore[no-untyped-def]
    """Whether code ``c`` gives a different response to every candidate of ``part`` (bitmask words)."""
    for r in range(n_resp):
        seen = 0
        for w in range(words):
            x = masks[c, r, w] & part[w]
            if x:
                if x & (x - np.uint64(1)):
                    return False
                seen += 1
                if seen > 1:
                    return False
    return True


@njit(cache=True)
def separator(masks, cands, part, n_resp, words):  # type: ignore[no-untyped-def]
    """A code that separates every candidate of ``part``, or -1: its candidates first (playing one may win at
    once), then every code.  Such a code finishes the part within two guesses, and only such a code does."""
    for j in range(cands.shape[0]):
        if (part[j >> 6] >> np.uint64(j & 63)) & np.uint64(1) and _separates(masks, cands[j], part, n_resp, words):
            return cands[j]
    for c in range(masks.shape[0]):
        if _separates(masks, c, part, n_resp, words):
            return c
    return -1


@njit(cache=True)
def _count(part, words):  # type: ignore[no-untyped-def]
    n = 0
    for w in range(words):
        x = part[w]
        while x:
            x &= x - np.uint64(1)
            n += 1
    return n


@njit(cache=True)
def three_left(table, cands, n_resp, win, most):  # type: ignore[no-untyped-def]
    """A guess after which every part of ``cands`` is finished within two more guesses, or :data:`NONE`.

    Exhaustive: every code whose largest part has at most ``most`` candidates (how many responses the game has)
    is tried: a part that one guess separates has at most one candidate per response.  Parts are remembered
    by their bitmask, exactly, when the set has at most 128 candidates (nearly every code meets the same few
    hard parts again: 890 distinct parts among 24128 met on a set of 35); bigger sets, which rarely pass the
    first test, are checked without that memory."""
    k = cands.shape[0]
    if k <= 1:
        return cands[0] if k == 1 else NONE
    largest, parts = part_sizes(table, cands, n_resp, win)
    order = guess_order(largest, parts, k)
    if order.shape[0] == 0 or largest[order[0]] > most:
        return NONE
    words = (k + 63) >> 6
    masks = set_masks(table, cands, n_resp, words)
    memo = Dict.empty(key_type=_PART_KEY, value_type=types.int64)
    part = np.zeros(words, dtype=np.uint64)
    for i in range(order.shape[0]):
        c = order[i]
        if largest[c] > most:
            break
        ok = True
        for r in range(n_resp):
            if r == win:
                continue
            for w in range(words):
                part[w] = masks[c, r, w]
            if _count(part, words) <= 1:
                continue
            if words <= 2:
                key = (part[0], part[1] if words == 2 else np.uint64(0))
                if key in memo:
                    s = memo[key]
                else:
                    s = separator(masks, cands, part, n_resp, words)
                    memo[key] = s
            else:
                s = separator(masks, cands, part, n_resp, words)
            if s < 0:
                ok = False
                break
        if ok:
            return c
    return NONE


@njit(cache=True)
def four_left(table, cands, n_resp, win, most, tries):  # type: ignore[no-untyped-def]
    """A guess after which every part of ``cands`` is finished within three more guesses (each part settled by
    :func:`three_left`, the biggest first), :data:`NONE` when no code does (every code tried), or
    :data:`UNKNOWN` once ``tries`` codes have failed (``tries`` < 0: no budget)."""
    k = cands.shape[0]
    if k <= 1:
        return cands[0] if k == 1 else NONE
    largest, parts = part_sizes(table, cands, n_resp, win)
    order = guess_order(largest, parts, k)
    buf = np.empty(k, dtype=np.int32)
    starts = np.zeros(n_resp + 1, dtype=np.int64)
    fill = np.zeros(n_resp, dtype=np.int64)
    sizes = np.zeros(n_resp, dtype=np.int64)
    for i in range(order.shape[0]):
        if tries >= 0 and i >= tries:
            return UNKNOWN
        c = order[i]
        row = table[c]
        starts[:] = 0
        for j in range(k):
            starts[row[cands[j]] + 1] += 1
        for r in range(n_resp):
            starts[r + 1] += starts[r]
            fill[r] = starts[r]
        for j in range(k):
            r = row[cands[j]]
            buf[fill[r]] = cands[j]
            fill[r] += 1
        for r in range(n_resp):
            sizes[r] = 0 if r == win else starts[r + 1] - starts[r]
        by_size = np.argsort(-sizes, kind="mergesort")
        ok = True
        for ri in range(n_resp):
            r = by_size[ri]
            if sizes[r] <= 1:
                break
            if three_left(table, buf[starts[r]:starts[r + 1]].copy(), n_resp, win, most) < 0:
                ok = False
                break
        if ok:
            return c
    return NONE
