"""A game's codes as the arrays the kernels work on: their enumeration, the response table, and the
response factors that replace the table when it would be too big.

Kept apart from :mod:`solver.game`, which is about what a person types and reads (codes, responses,
histories, their validation): this module only builds arrays, cached per ``(positions, symbols,
repetition)``, and trusts its arguments.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Protocol

import numpy as np
import numpy.typing as npt

# the kernels (numba) are imported where they run: reading a shipped tree needs the arrays, not the kernels


class Guessed(Protocol):
    """An entry of a history as this module sees it: only its guess (:class:`solver.game.Turn` is one).

    Why not ``Turn`` itself: the arrays sit below :mod:`solver.game`, which builds them; naming the one
    field they read keeps the dependency one way."""

    @property
    def guess(self) -> int:
        """The guessed code (its index)."""


@dataclass(frozen=True)
class GameArrays:
    """The numpy arrays the kernels work on (see :mod:`solver.kernels` for shapes and meaning)."""

    codes: npt.NDArray[np.int8]
    masks: npt.NDArray[np.int64]
    counts: npt.NDArray[np.uint8]
    table: npt.NDArray[np.uint8]
    """Response table, or an empty ``(0, 0)`` array when responses are computed on the fly."""

    def kernel_args(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8],
                                   npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
        """The leading ``(table, codes, masks, counts)`` arguments every kernel takes."""
        return self.table, self.codes, self.masks, self.counts

    def parts(self, guess: int, cands: npt.NDArray[np.int32], n_responses: int
              ) -> list[tuple[int, npt.NDArray[np.int32]]]:
        """(response, its candidates) for every response of ``guess`` that some candidate gives, the biggest
        part first (ties: the lower response), the winning one included.  The order searches want: the
        biggest part is the likeliest to break a bound or a limit, and stops the others being looked at."""
        from solver import kernels

        order, starts = kernels.split(*self.kernel_args(), guess, cands, n_responses)
        sizes = np.diff(starts)
        return [(r, order[starts[r]:starts[r + 1]]) for r in sorted(np.flatnonzero(sizes).tolist(),
                                                                     key=lambda r: (-int(sizes[r]), r))]

    def called(self, history: Sequence[Guessed]) -> int:
        """Mask of the symbols guessed in ``history``.

        The symbols outside it that some candidate holds are interchangeable (they are the
        "uncalled" class of :func:`solver.kernels.digit_classes`), which is what the one-step
        strategies and the exact search both use to score one guess per class.
        """
        mask = 0
        for t in history:
            mask |= int(self.masks[t.guess])
        return mask


_EMPTY_TABLE: npt.NDArray[np.uint8] = np.zeros((0, 0), dtype=np.uint8)
# Every array handed to a kernel is read-only, the empty stand-ins included: numba compiles one version of a kernel
# per flag combination, and a version the warm-up never made is compiled in the middle of a request (or its budget).
_EMPTY_TABLE.setflags(write=False)


def count_codes(positions: int, symbols: int, repetition: bool) -> int:
    """Number of codes of a game, computed without enumerating them."""
    if repetition:
        return int(symbols**positions)
    return math.perm(symbols, positions)


@functools.lru_cache(maxsize=8)
def game_arrays(positions: int, symbols: int, repetition: bool) -> GameArrays:
    """Codes, symbol masks and symbol counts of a game, in lexicographic order (cached per game)."""
    if repetition:
        n = symbols**positions
        idx = np.arange(n, dtype=np.int64)
        codes = np.empty((n, positions), dtype=np.int8)
        for k in range(positions - 1, -1, -1):
            codes[:, k] = idx % symbols
            idx //= symbols
    else:
        codes = np.array(list(permutations(range(symbols), positions)), dtype=np.int8)
        codes = codes.reshape(-1, positions)
    masks = np.bitwise_or.reduce(np.left_shift(np.int64(1), codes.astype(np.int64)), axis=1)
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    if repetition:
        counts = np.zeros((codes.shape[0], symbols), dtype=np.uint8)
        rows = np.arange(codes.shape[0])
        for k in range(positions):
            np.add.at(counts, (rows, codes[:, k]), 1)
    else:
        counts = np.zeros((0, 0), dtype=np.uint8)
    codes.setflags(write=False)
    masks.setflags(write=False)
    counts.setflags(write=False)
    return GameArrays(np.ascontiguousarray(codes), masks, counts, _EMPTY_TABLE)


@functools.lru_cache(maxsize=4)
def full_response_table(positions: int, symbols: int, repetition: bool) -> npt.NDArray[np.uint8]:
    from solver import kernels

    arrays = game_arrays(positions, symbols, repetition)
    table: npt.NDArray[np.uint8] = kernels.response_table(arrays.codes, arrays.masks, arrays.counts)
    table.setflags(write=False)
    return table


FACTOR_MAX_KEYS = 4096
"""Largest side of a response-factor table (:func:`response_factors`); 16 MiB at most per table."""


@dataclass(frozen=True)
class ResponseFactors:
    """Responses as a sum of four small-table lookups, for games too large for a response table.

    The encoded response ``bulls * p + common`` splits into the bulls of a few groups of positions
    plus the symbols two codes share.  Each part depends on only a short key of each code (the
    symbols of the group's positions, or the code's multiset of symbols), so it fits a table of at
    most :data:`FACTOR_MAX_KEYS` squared bytes that stays in cache.  One response then costs four
    byte loads and three additions instead of a pass over every position and symbol.  Unused slots
    are a 1x1 zero table with key 0.
    """

    keys: npt.NDArray[np.uint16]
    """``keys[code, t]``: the code's key in table ``t`` (shape ``(n, 4)``)."""
    tables: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]
    """The four tables; ``tables[t][keys[i, t], keys[j, t]]`` summed over ``t`` is the response."""


NO_FACTORS = ResponseFactors(
    np.zeros((0, 4), dtype=np.uint16), tuple(np.zeros((1, 1), dtype=np.uint8) for _ in range(4)))  # type: ignore[arg-type]
for _array in (NO_FACTORS.keys, *NO_FACTORS.tables):
    _array.setflags(write=False)


@functools.lru_cache(maxsize=4)
def response_factors(positions: int, symbols: int, repetition: bool) -> ResponseFactors:
    """The :class:`ResponseFactors` of a game, or empty ones (``keys`` of 0 rows) when its keys
    would not fit: more than three position groups or more multisets than :data:`FACTOR_MAX_KEYS`."""
    p = positions
    per_group = 1
    while symbols ** (per_group + 1) <= 1024 and per_group < p:
        per_group += 1
    groups = [list(range(a, min(a + per_group, p))) for a in range(0, p, per_group)]
    n_multisets = math.comb(symbols + p - 1, p) if repetition else math.comb(symbols, p)
    if len(groups) > 3 or n_multisets > FACTOR_MAX_KEYS:
        return NO_FACTORS
    arrays = game_arrays(positions, symbols, repetition)
    codes = arrays.codes.astype(np.int64)
    n = codes.shape[0]
    held = arrays.counts if repetition else ((arrays.masks[:, None] >> np.arange(symbols)) & 1).astype(np.uint8)
    multisets, ms_key = np.unique(held, axis=0, return_inverse=True)
    keys = np.zeros((n, 4), dtype=np.uint16)
    tables: list[npt.NDArray[np.uint8]] = []
    for t, group in enumerate(groups):
        width = len(group)
        for k in group:
            keys[:, t] = keys[:, t] * symbols + codes[:, k]
        values = np.arange(symbols**width)
        digits = np.stack([(values // symbols ** (width - 1 - j)) % symbols for j in range(width)], axis=1)
        same = (digits[:, None, :] == digits[None, :, :]).sum(axis=2) * p
        tables.append(np.ascontiguousarray(same, dtype=np.uint8))
    keys[:, len(groups)] = np.asarray(ms_key, dtype=np.uint16).reshape(-1)
    from solver import kernels

    tables.append(kernels.common_table(np.ascontiguousarray(multisets, dtype=np.uint8)))
    while len(tables) < 4:
        tables.append(np.zeros((1, 1), dtype=np.uint8))
    keys.setflags(write=False)
    for tab in tables:
        tab.setflags(write=False)
    return ResponseFactors(keys, (tables[0], tables[1], tables[2], tables[3]))
