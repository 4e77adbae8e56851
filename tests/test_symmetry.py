"""Symmetry classes (:mod:`solver.symmetry`) against a brute force over the whole group of position and symbol
permutations: the search keeps one guess per class, so a class that merged two guesses of different values
would lose the optimum, and one split in two would only cost time."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.game import Game
from solver.symmetry import classes

GAMES = ["3,4,1", "3,5,0", "4,4,0", "2,4,1", "4,3,1"]


def _brute_classes(game: Game, moves: list[int], responses: list[int] | None) -> np.ndarray:
    """The smallest member of every code's orbit under the transformations (π, σ) that map the history onto
    itself: each move onto itself, or (``responses`` given) onto a move that got the same response."""
    codes = [tuple(int(v) for v in row) for row in game.arrays().codes]
    index = {c: i for i, c in enumerate(codes)}
    p, s = game.positions, game.symbols
    turns = range(len(moves))
    group = []
    for pi in itertools.permutations(range(p)):
        for sigma in itertools.permutations(range(s)):
            def image(c: tuple[int, ...], pi: tuple[int, ...] = pi, sigma: tuple[int, ...] = sigma) -> int:
                return index[tuple(sigma[c[pi[k]]] for k in range(p))]

            images = [image(codes[m]) for m in moves]
            if responses is None:
                fixed = all(images[i] == moves[i] for i in turns)
            else:
                fixed = any(all(images[i] == moves[tau[i]] and responses[tau[i]] == responses[i] for i in turns)
                            for tau in itertools.permutations(turns))
            if fixed:
                group.append(image)
    return np.array([min(f(c) for f in group) for c in codes], dtype=np.int64)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAMES), st.data())
def test_classes_are_the_orbits_of_the_history_s_stabiliser(spec: str, data: st.DataObject) -> None:
    game = Game.from_spec(spec)
    moves = data.draw(st.lists(st.integers(0, game.size - 1), max_size=3), label="moves")
    same_response = data.draw(st.booleans(), label="Lemma 9")
    responses = data.draw(st.lists(st.integers(0, 1), min_size=len(moves), max_size=len(moves)),
                          label="responses") if same_response else None
    got = classes(game, moves, responses)
    assert np.array_equal(got, _brute_classes(game, moves, responses))
