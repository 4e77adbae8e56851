"""Relabellings: canonical histories and mapping a history onto a tree's path (solver.symmetry)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from solver.game import Game, Turn
from solver.symmetry import Relabelling, canonical_history, relabelling_onto

GAMES = [Game.from_spec(s) for s in ("bulls-cows", "mastermind", "3,5,0", "5,3,1")]


def random_symmetry(game: Game, rng: random.Random) -> Relabelling:
    perm = list(range(game.positions))
    sym = list(range(game.symbols))
    rng.shuffle(perm)
    rng.shuffle(sym)
    return Relabelling(tuple(perm), tuple(sym))


def random_history(game: Game, rng: random.Random, turns: int) -> list[Turn]:
    """``turns`` random guesses (none of them the secret: the game goes on) and their responses."""
    secret = rng.randrange(game.size)
    guesses = [g for g in (rng.randrange(game.size) for _ in range(turns)) if g != secret]
    return [Turn(g, game.response(g, secret)) for g in guesses]


def as_set(cands: np.ndarray) -> set[int]:
    return {int(c) for c in cands}


@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1), st.integers(0, 4))
def test_apply_and_invert_are_inverse_and_keep_responses(game: Game, seed: int, turns: int) -> None:
    rng = random.Random(seed)
    psi = random_symmetry(game, rng)
    for _ in range(10):
        a, b = rng.randrange(game.size), rng.randrange(game.size)
        assert psi.invert(game, psi.apply(game, a)) == a
        assert game.response(psi.apply(game, a), psi.apply(game, b)) == game.response(a, b)


@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1), st.integers(0, 4))
def test_every_relabelling_of_a_history_has_the_same_canonical_form(game: Game, seed: int, turns: int) -> None:
    rng = random.Random(seed)
    history = random_history(game, rng, turns)
    psi = random_symmetry(game, rng)
    image = psi.apply_turns(game, history)
    rng.shuffle(image)  # the order of the turns does not change the position either
    canon, relabel = canonical_history(game, history)
    assert canonical_history(game, image)[0] == canon
    # the canonical history leaves the image of the history's candidates, under the returned map
    mapped = {relabel.apply(game, int(c)) for c in game.candidates(history)}
    assert mapped == as_set(game.candidates(canon))


def test_a_relabelled_opening_is_the_canonical_one() -> None:
    bc = Game.from_spec("bulls-cows")
    canon, relabel = canonical_history(bc, bc.parse_history(["9876 0.1"]))
    assert [bc.format_turn(t) for t in canon] == ["0123 0.1"]
    assert bc.format_code(relabel.apply(bc, bc.parse_code("9876"))) == "0123"


@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_a_history_maps_onto_any_image_of_itself(game: Game, seed: int, turns: int) -> None:
    rng = random.Random(seed)
    moves = [t.guess for t in random_history(game, rng, turns)]
    psi = random_symmetry(game, rng)
    targets = [psi.apply(game, m) for m in moves]
    found = relabelling_onto(game, moves, targets)
    assert found is not None
    assert [found.apply(game, m) for m in moves] == targets


def test_no_relabelling_maps_different_patterns() -> None:
    mm = Game.from_spec("mastermind")
    assert relabelling_onto(mm, [mm.parse_code("0123")], [mm.parse_code("0012")]) is None
    # each turn alone maps, but not both with one symmetry
    moves = [mm.parse_code("0011"), mm.parse_code("0022")]
    assert relabelling_onto(mm, moves, [mm.parse_code("0011"), mm.parse_code("1122")]) is None
