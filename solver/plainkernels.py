"""The few kernels a question answered from a shipped tree needs, in numpy: no numba to import or load.

Why a second implementation: ``bullscows next`` on a position a shipped tree answers must answer in a fraction of a
second, process start included, and importing numba and loading its cached kernels takes longer than that.  Such a
question needs only responses: to filter the candidates of the history (:meth:`solver.game.Game.candidates`) and to
read a shipped tree (:func:`solver.tree.from_compact`, which splits a whole level of the tree at once).  Those run
here, vectorised over many codes at a time; everything that loops (searches, scores, tree building) stays in
:mod:`solver.kernels`.  Each function follows the rule of the kernel it names, and
``tests/test_plainkernels.py`` compares them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.codes import GameArrays

IntArray = npt.NDArray[np.int64] | npt.NDArray[np.int32]
"""Code indices, or counts and offsets over them."""


def response_pairs(arrays: GameArrays, guesses: IntArray, secrets: IntArray) -> npt.NDArray[np.uint8]:
    """``out[k]``: the response of ``secrets[k]`` to ``guesses[k]`` (:func:`solver.kernels.response`): read from the
    game's response table when it has been built, else bulls plus the symbols the two codes share, counted with
    multiplicity."""
    if arrays.table.shape[0]:
        return np.asarray(arrays.table[guesses, secrets], dtype=np.uint8)
    codes = arrays.codes
    p = codes.shape[1]
    g = codes[guesses]
    bulls = np.count_nonzero(g == codes[secrets], axis=1)
    if arrays.counts.shape[0]:
        common = np.minimum(arrays.counts[guesses], arrays.counts[secrets]).sum(axis=1, dtype=np.int64)
    else:  # distinct symbols: the guess's symbols that the secret holds
        common = ((arrays.masks[secrets][:, None] >> g.astype(np.int64)) & 1).sum(axis=1)
    return np.asarray(bulls * p + common, dtype=np.uint8)


def response_row(arrays: GameArrays, guess: int, cands: IntArray) -> npt.NDArray[np.uint8]:
    """The response of each candidate to ``guess`` (:func:`solver.kernels.response_row`)."""
    return response_pairs(arrays, np.full(cands.shape[0], guess, dtype=np.int64), cands)


def perfect_candidates(arrays: GameArrays, codes: IntArray, sizes: npt.NDArray[np.int64], n_resp: int
                       ) -> npt.NDArray[np.int64]:
    """For each of several candidate sets, its lowest candidate that leaves at most one candidate behind every
    response, or -1 (:func:`solver.kernels.perfect_candidate`, for all the sets of a tree's level at once).

    The sets are given end to end: ``codes`` holds the first set's ``sizes[0]`` codes (ascending), then the second's,
    and so on.  Only a set of at most ``n_resp`` codes can have one; each of its codes is tried against all of them.
    """
    out = np.full(sizes.shape[0], -1, dtype=np.int64)
    small = np.flatnonzero(sizes <= n_resp)
    if not small.shape[0]:
        return out
    starts = np.cumsum(sizes) - sizes
    s, o = sizes[small], starts[small]
    # row i: one code of a small set; its pairs are that code against each code of its set
    rows = int(s.sum())
    row_len = np.repeat(s, s)
    row_first = np.cumsum(s) - s
    row_code = np.repeat(o, s) + (np.arange(rows) - np.repeat(row_first, s))
    pair_first = np.cumsum(row_len) - row_len
    pairs = int(row_len.sum())
    other = np.repeat(np.repeat(o, s), row_len) + (np.arange(pairs) - np.repeat(pair_first, row_len))
    row_of_pair = np.repeat(np.arange(rows), row_len)
    resp = response_pairs(arrays, codes[row_code][row_of_pair], codes[other])
    keys = np.sort(row_of_pair * n_resp + resp)
    perfect = np.ones(rows, dtype=np.bool_)
    perfect[keys[1:][keys[1:] == keys[:-1]] // n_resp] = False  # a row with a response twice
    big = np.int64(np.iinfo(np.int64).max)
    lowest = np.minimum.reduceat(np.where(perfect, codes[row_code].astype(np.int64), big), row_first)
    out[small] = np.where(lowest < big, lowest, -1)
    return out
