"""The numpy kernels a question answered from a shipped tree runs (:mod:`solver.plainkernels`) against the numba
kernels whose rules they follow, and every shipped tree read through them exactly as written."""

from __future__ import annotations

import os

import numpy as np
import pytest

from service.trees import TREE_DIR, TreeLibrary
from solver import kernels, plainkernels
from solver.game import Game
from solver.tree import from_compact, to_compact

GAMES = ["mastermind", "bulls-cows", "3,5,1", "5,4,1", "4,5,0", "2,2,0"]
"""Both families (the colour-count rule and the shared-symbols rule), and the smallest games' edge cases."""


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("with_table", [False, True])
def test_every_response_is_the_kernels(spec: str, with_table: bool) -> None:
    game = Game.from_spec(spec)
    arrays = game.arrays(table=with_table)
    codes = game.all_codes
    expected = kernels.response_table(arrays.codes, arrays.masks, arrays.counts)
    for guess in range(game.size):
        assert np.array_equal(plainkernels.response_row(arrays, guess, codes), expected[guess])


@pytest.mark.parametrize("spec", GAMES)
def test_perfect_candidates_of_many_sets_at_once_are_the_kernels(spec: str) -> None:
    game = Game.from_spec(spec)
    arrays = game.arrays()
    rng = np.random.default_rng(7)
    sets = [np.sort(rng.choice(game.size, size=min(int(n), game.size), replace=False)).astype(np.int32)
            for n in rng.integers(1, game.n_responses + 3, size=300)]
    sets += [game.all_codes[:1], game.all_codes[: min(game.size, 2)]]
    got = plainkernels.perfect_candidates(arrays, np.concatenate(sets),
                                          np.array([s.shape[0] for s in sets], dtype=np.int64), game.n_responses)
    want = [kernels.perfect_candidate(*arrays.kernel_args(), s, game.n_responses) for s in sets]
    assert got.tolist() == want
    assert any(w >= 0 for w in want)
    if game.size > 2:  # in a game of two codes every set has one
        assert any(w < 0 for w in want)


def test_candidates_of_a_history_are_the_kernels() -> None:
    game = Game.from_spec("bulls-cows")
    history = game.parse_history("0123 0.1, 1245 0.2")
    arrays = game.arrays()
    cands = game.all_codes
    for turn in history:
        cands = kernels.filter_candidates(*arrays.kernel_args(), cands, turn.guess, turn.response)
    assert np.array_equal(game.candidates(history), cands) and game.candidates(history).dtype == np.int32


def test_every_shipped_tree_reads_back_as_written() -> None:
    """A level at a time in numpy, each tree gives the text the kernels write for it, and its manifest's total."""
    library = TreeLibrary()
    for meta in library.metas().values():
        with open(os.path.join(TREE_DIR, meta["file"]), encoding="utf-8") as fh:
            text = fh.read()
        tree = from_compact(text)
        assert to_compact(tree) == text, meta["file"]
        assert tree.root.subtree.total == meta["total"], meta["file"]
