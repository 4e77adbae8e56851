"""A position as one value (solver.position): its children, its canonical form and the way back, its guesses left."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.game import Game, Turn
from solver.position import Position
from solver.symmetry import Relabelling, canonical_history
from solver.vocabulary import remaining_guesses

GAMES = [Game.from_spec(s) for s in ("bulls-cows", "mastermind", "3,5,0", "5,3,1")]


@st.composite
def positions(draw: st.DrawFn, max_turns: int = 3) -> Position:
    """A position of a game still going on: random guesses (none of them the secret) and their responses."""
    game = draw(st.sampled_from(GAMES))
    secret = draw(st.integers(0, game.size - 1))
    guesses = draw(st.lists(st.integers(0, game.size - 1).filter(lambda g: g != secret), max_size=max_turns))
    return Position.of(game, [Turn(g, game.response(g, secret)) for g in guesses])


@st.composite
def symmetries(draw: st.DrawFn, game: Game) -> Relabelling:
    """Any symmetry of ``game``: a permutation of the positions and a renaming of the symbols."""
    perm = draw(st.permutations(range(game.positions)))
    sym = draw(st.permutations(range(game.symbols)))
    return Relabelling(tuple(perm), tuple(sym))


def _codes(cands: np.ndarray) -> list[int]:
    return [int(c) for c in cands]


@given(positions(), st.data())
def test_the_children_partition_the_candidates_by_response(position: Position, data: st.DataObject) -> None:
    game = position.game
    guess = data.draw(st.integers(0, game.size - 1))
    children = position.children(guess)
    assert list(children) == sorted(children)
    together: list[int] = []
    for r, child in children.items():
        assert child.size > 0
        assert child.history == (*position.history, Turn(guess, r))
        assert child.turn == position.turn + 1
        assert _codes(child.cands) == sorted(_codes(child.cands))
        assert all(game.response(guess, c) == r for c in _codes(child.cands))
        together += _codes(child.cands)
    assert sorted(together) == _codes(position.cands)
    # with the searcher's arrays (the response table) the split is the same
    with_table = position.children(guess, game.search_arrays())
    assert with_table == children


@given(positions(), st.data())
def test_the_canonical_form_is_the_same_for_every_relabelling_of_the_history(position: Position,
                                                                             data: st.DataObject) -> None:
    game = position.game
    psi = data.draw(symmetries(game))
    image = position.relabelled(psi)
    order = data.draw(st.permutations(image.history))
    shuffled = Position(game, tuple(order), image.cands)  # the order of the turns does not change the position
    canon = position.canonical()
    assert image.canonical().position == canon.position
    assert shuffled.canonical().position == canon.position
    # the canonical position's candidates are the image of the caller's, and those its own history leaves
    expected, relabel = canonical_history(game, position.history)
    assert canon.position.history == tuple(expected) and canon.relabel == relabel
    assert _codes(canon.position.cands) == _codes(game.candidates(list(canon.position.history)))


@given(positions(), st.data())
def test_the_canonical_labelling_maps_a_guess_there_and_back(position: Position, data: st.DataObject) -> None:
    game = position.game
    canon = position.canonical()
    guess = data.draw(st.integers(0, game.size - 1))
    there = canon.apply(guess)
    assert canon.invert(there) == guess
    # the guess splits the canonical position as it splits the caller's: same responses, mapped candidates
    mine, theirs = position.children(guess), canon.position.children(there)
    assert list(mine) == list(theirs)
    for r, child in theirs.items():
        assert sorted(canon.invert(c) for c in _codes(child.cands)) == _codes(mine[r].cands)


@given(positions(), st.one_of(st.none(), st.integers(1, 12)))
def test_remaining_is_the_vocabulary_s_remaining_guesses(position: Position, max_guesses: int | None) -> None:
    assert position.turn == len(position.history) + 1
    assert position.remaining(max_guesses) == remaining_guesses(max_guesses, position.turn)


def test_a_position_is_built_from_a_history_or_from_its_candidates() -> None:
    game = Game.from_spec("mastermind")
    history = game.parse_history(["1122 1.0", "3344 0.1"])
    filtered = Position.of(game, history)
    given_cands = Position.of(game, history, game.candidates(history))
    assert filtered == given_cands and hash(filtered) == hash(given_cands)
    assert filtered.size == int(game.candidates(history).shape[0])
    assert not filtered.won
    assert filtered.as_is().position is filtered and filtered.as_is().relabel.is_identity
    assert Position.of(game).canonical().relabel.is_identity
    assert filtered != Position.of(game, history[:1])


@pytest.mark.parametrize("spec", ["mastermind", "bulls-cows"])
def test_a_won_history_is_a_finished_position(spec: str) -> None:
    game = Game.from_spec(spec)
    guess = 5
    position = Position.of(game, [Turn(guess, game.all_bulls)])
    assert position.won and position.size == 1 and int(position.cands[0]) == guess


@given(positions())
def test_equal_positions_hash_alike_whatever_the_arrays_integer_type(position: Position) -> None:
    """Equality compares candidates by value, so the hash must too: the same position built from int64 candidates
    is the same key of a dict."""
    wide = Position(position.game, position.history, position.cands.astype(np.int64))
    assert wide == position and hash(wide) == hash(position) and {position: 1}.get(wide) == 1
