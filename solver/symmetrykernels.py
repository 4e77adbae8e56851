"""Symmetry's kernels: the images of codes under a transformation, and every code's smallest image.

Kept apart from :mod:`solver.symmetry` so that mapping a history onto a shipped tree's path (which needs no kernel)
loads no numba; the functions here run when a search asks for equivalence sets or the canonical form of a set.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def rank(img, s, rep):  # type: ignore[no-untyped-def]
    """Index of the code whose symbols are ``img`` (the kernel twin of :meth:`solver.game.Game.code_of`)."""
    p = img.shape[0]
    idx = 0
    if rep:
        for k in range(p):
            idx = idx * s + img[k]
        return idx
    used = np.zeros(s, dtype=np.bool_)
    for k in range(p):
        v = img[k]
        smaller = 0
        for u in range(v):
            if not used[u]:
                smaller += 1
        # number of arrangements of the remaining p-k-1 places from s-k-1 symbols
        rest = 1
        for j in range(p - k - 1):
            rest *= s - k - 1 - j
        idx += smaller * rest
        used[v] = True
    return idx


@njit(cache=True)
def images(codes, cands, perm, sym, s, rep):  # type: ignore[no-untyped-def]
    """Index of ψ(c) for every code index c of ``cands``, where ψ puts at position k the symbol of
    position ``perm[k]`` renamed by ``sym`` (int64[len(cands)], in the order of ``cands``)."""
    p = perm.shape[0]
    out = np.empty(cands.shape[0], dtype=np.int64)
    img = np.empty(p, dtype=np.int64)
    for i in range(cands.shape[0]):
        for k in range(p):
            img[k] = sym[codes[cands[i], perm[k]]]
        out[i] = rank(img, s, rep)
    return out


@njit(cache=True)
def canonical_codes(codes, perms, sigma, free, rep):  # type: ignore[no-untyped-def]
    """For every code, the index of its smallest image under the given transformations.

    ``free`` lists the free symbols ascending; each (perms[t], sigma[t]) is applied, then free symbols
    are renamed in order of first appearance to the smallest free symbols (the smallest image the free
    part of the group can produce).
    """
    n, p = codes.shape
    s = sigma.shape[1]
    out = np.empty(n, dtype=np.int64)
    img = np.empty(p, dtype=np.int64)
    best = np.empty(p, dtype=np.int64)
    rename = np.empty(s, dtype=np.int64)
    for c in range(n):
        have = False
        for t in range(perms.shape[0]):
            rename[:] = -1
            nxt = 0
            for k in range(p):
                v = codes[c, perms[t, k]]
                m = sigma[t, v]
                if m < 0:
                    if rename[v] < 0:
                        rename[v] = free[nxt]
                        nxt += 1
                    m = rename[v]
                img[k] = m
            smaller = not have
            if have:
                for k in range(p):
                    if img[k] != best[k]:
                        smaller = img[k] < best[k]
                        break
            if smaller:
                best[:] = img
                have = True
        out[c] = rank(best, s, rep)
    return out
