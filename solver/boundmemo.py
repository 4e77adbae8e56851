"""The lower-bound refinement's memo: a hash table of sets refined, each with the best bound proven of it.

Why a table of its own, not :class:`solver.table.TranspositionTable`: the refinement keeps one number per set
(an admissible lower bound of its turn-independent optimal total, with the plies it was refined to), no upper
bound, no best guess and no depth limit, and it looks the table up from inside the recursive kernel
(:func:`solver.boundkernels.refine_set`), millions of times; three flat arrays and one word per entry keep
that cheap.

Layout.  ``(mk1, mk2, mval)`` of :func:`new_memo`, ``2**bits`` slots each.  A set's keys ``(k1, k2)`` are its
two Zobrist hashes (:func:`solver.ttkernels.set_keys` with :func:`solver.table.zobrist`'s vectors, turn 0); its
slot is ``k1``'s low ``bits`` bits, and an entry is that set's only when both keys match.  An empty slot is all
zeros: should a set's keys be 0, it reads as depth 0 and bound 0, which :func:`memo_get` never hands out (the
refinement asks at depth 1 or more) and which is admissible for :func:`memo_peek`.  One entry per slot: a put
replaces whatever the slot held, except the same set's entry of a greater depth.

An entry's ``mval`` (int64), bit by bit:

======== =========== ==========================================================================================
bits     field       meaning
======== =========== ==========================================================================================
0        exact       1: the value is LB_depth of the set itself (the refinement found its minimum below the
                     room it had); 0: the refinement was cut at some β and the value is a bound of at least β
1 - 8    depth       the plies the set was refined to (0 to 255; the refinement never goes near 255)
9 - 63   value       the bound, a non-negative number of guesses (below ``INF`` = 2^40, so it fits with room)
======== =========== ==========================================================================================

so ``mval = value << 9 | depth << 1 | exact``.  Every entry, exact or not, at whatever depth, is an admissible
lower bound of the set's cost; :func:`memo_get` hands it out only where it answers the question asked (deep
enough, and exact or at least the β asked), :func:`memo_peek` whatever it holds (an estimate).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

MEMO_BITS = 20
"""Slots of the refinement's memo (2^20, 24 MB): the same sets recur under many guess orders."""


def new_memo(bits: int = MEMO_BITS) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """An empty memo for :func:`solver.boundkernels.refine_set`: two key columns and (bound, depth, exact) packed
    in one (the module's docstring has the layout)."""
    size = 1 << bits
    return np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int64)


@njit(cache=True)
def memo_get(mk1, mk2, mval, k1, k2, depth, beta):  # type: ignore[no-untyped-def]
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
def memo_put(mk1, mk2, mval, k1, k2, depth, value, exact):  # type: ignore[no-untyped-def]
    slot = np.int64(k1 & np.uint64(mk1.shape[0] - 1))
    if mk1[slot] == k1 and mk2[slot] == k2:
        d = (mval[slot] >> np.int64(1)) & np.int64(0xFF)
        if d > depth:
            return
    mk1[slot] = k1
    mk2[slot] = k2
    mval[slot] = (value << np.int64(9)) | (np.int64(depth) << np.int64(1)) | np.int64(1 if exact else 0)


@njit(cache=True)
def memo_peek(mk1, mk2, mval, k1, k2):  # type: ignore[no-untyped-def]
    """Whatever the memo holds of the set keyed (k1, k2), at any depth, exact or cut, else -1: every entry is
    an admissible bound of the set's cost, so a sibling's estimate may use it, whatever question it answered."""
    slot = np.int64(k1 & np.uint64(mk1.shape[0] - 1))
    if mk1[slot] != k1 or mk2[slot] != k2:
        return np.int64(-1)
    return mval[slot] >> np.int64(9)
