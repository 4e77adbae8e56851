"""Games played to their end: a won history is a finished game, and symmetry never changes what the user is told.

The answer chain asks every question below the trees at the canonical image of the position
(:func:`solver.symmetry.canonical_history`), which may reorder the turns.  These tests hold it to the literal
history: the same consistency, the same candidates, the same turn named in an error, and a history that ends in
the winning response answered as a finished game (no guess, no search) by every path.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.answers import AnswerChain
from solver.errors import InconsistentHistoryError
from solver.game import Game, Turn
from solver.question import InvalidSearchError
from solver.search import Searcher, SolveOptions
from solver.symmetry import canonical_history
from solver.tree import Node
from tests.reference import bulls_cows as reference_response

FAMILIES = [(p, s, rep) for p in range(1, 6) for s in range(2, 9) for rep in (True, False)
            if (rep or s >= p) and (s ** p if rep else int(np.prod(range(s - p + 1, s + 1)))) <= 1500]
"""Every small game of every family: one to five positions, two to eight symbols, with and without repetition."""


@pytest.fixture(scope="module")
def chain() -> AnswerChain:
    return AnswerChain.open()


def _codes(game: Game) -> list[str]:
    return game.format_codes(range(game.size))


def _reference(game: Game, history: list[Turn]) -> tuple[int | None, list[str]]:
    """(index of the first turn a literal reading refuses, or None; the candidates) in plain Python: a turn
    after a win ends nothing but is refused, a turn that leaves no code is refused."""
    texts = [(game.format_code(t.guess), game.bulls_cows(t.response)) for t in history]
    cands = _codes(game)
    for k, (guess, response) in enumerate(texts):
        if response[0] == game.positions and k != len(history) - 1:
            return k, []
        cands = [c for c in cands if reference_response(guess, c) == response]
        if not cands:
            return k, []
    return None, cands


@st.composite
def histories(draw: st.DrawFn) -> tuple[Game, list[Turn]]:
    """A small game and a history against a secret: true responses, some of them spoilt, sometimes the win
    appended, and sometimes a win in the middle."""
    p, s, rep = draw(st.sampled_from(FAMILIES))
    game = Game(p, s, rep)
    secret = draw(st.integers(0, game.size - 1))
    responses = game.possible_responses()
    turns = []
    for _ in range(draw(st.integers(0, 4))):
        guess = draw(st.integers(0, game.size - 1))
        response = game.response(guess, secret)
        if draw(st.integers(0, 9)) == 0:
            response = draw(st.sampled_from(responses))
        turns.append(Turn(guess, response))
    if draw(st.booleans()):
        turns.insert(draw(st.integers(0, len(turns))), Turn(secret, game.all_bulls))
    return game, turns


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_the_canonical_path_and_the_literal_path_agree(chain: AnswerChain, drawn: tuple[Game, list[Turn]]) -> None:
    game, history = drawn
    bad, expected = _reference(game, history)
    if bad is not None:
        with pytest.raises(InconsistentHistoryError) as err:
            game.candidates(history)
        # the turn named is the client's own, by its number and in its game's words
        assert f"turn {bad + 1} ({game.turn_words(history[bad])})" in str(err.value)
        return
    cands = game.candidates(history)
    assert game.format_codes(cands) == expected
    # the canonical image holds the image of the same candidates, whatever order its turns take ...
    canon, relabel = canonical_history(game, history)
    image = relabel.apply_set(game, cands)
    assert sorted(relabel.invert(game, int(c)) for c in image) == cands.tolist()
    order_free = _codes(game)
    for turn in canon:
        guess, response = game.format_code(turn.guess), game.bulls_cows(turn.response)
        order_free = [c for c in order_free if reference_response(guess, c) == response]
    assert game.format_codes(image) == order_free
    # ... and the chain answers the literal history: a finished game, or a guess of the game
    move = chain.next_move(game, history, cands, "optimal-total", budget_ms=50)
    if game.won(history):
        assert (move.guess, move.source, move.exact) == (None, "history", True)
        assert move.as_dict(game, history, cands, "optimal-total", 0)["secret"] == game.format_code(history[-1].guess)
        answer = chain.solve(game, history, cands, SolveOptions("total"), 50)
        assert (answer.result.value, answer.source, answer.result.per_response) == (len(history), "history", {})
    else:
        assert move.guess is not None and 0 <= move.guess < game.size


def test_a_reordered_win_is_not_reported_as_a_contradiction(chain: AnswerChain) -> None:
    """The game a user found: its canonical image puts the winning turn second."""
    game = Game.from_spec("mastermind")
    history = game.parse_history("0012 0.2, 1323 0.3, 2134 2.1, 2231 4.0")
    canon, _ = canonical_history(game, history)
    assert canon[-1].response != game.all_bulls  # the case: the image does not end in the win
    move = chain.next_move(game, history, game.candidates(history), "optimal-total")
    out = move.as_dict(game, history, game.candidates(history), "optimal-total", 0)
    got = (out["guess"], out["finished"], out["solved"], out["secret"], out["guesses"])
    assert got == (None, True, True, "2231", 4)


@pytest.mark.parametrize("strategy", ["optimal-total", "optimal-kmovers", "minimax", "random-consistent"])
def test_every_strategy_ends_a_won_game(chain: AnswerChain, strategy: str) -> None:
    game = Game.from_spec("bulls-cows")
    history = game.parse_history("0123 0.2, 1045 4.0")
    move = chain.next_move(game, history, game.candidates(history), strategy, max_guesses=7)
    assert (move.guess, move.source, move.worst_case) == (None, "history", 0)


def test_a_finished_game_is_valued_at_its_own_length() -> None:
    """Totals count the history's guesses; k-movers count it at the k-th guess only; nothing is searched."""
    game = Game.from_spec("mastermind")
    history = game.parse_history("0011 1.0, 1223 4.0")
    searcher = Searcher(game, SolveOptions("total"))
    assert searcher.solve(history).value == 2
    got = {k: searcher.solve(history, options=SolveOptions("kmovers", k)).value for k in (2, 3, 5)}
    assert got == {2: 1, 3: 0, 5: 0}
    chained = searcher.solve(history, options=SolveOptions("kmovers", 5, depth_count=2))
    assert (chained.movers, chained.chain) == (2, {5: 0, 4: 0, 3: 0, 2: 1})
    with pytest.raises(InvalidSearchError, match="won at guess 2"):
        searcher.solve(history, options=SolveOptions("kmovers", 1))
    with pytest.raises(InvalidSearchError, match="no next guess"):
        searcher.evaluate_guess(history, 0)
    won_first = game.parse_history("0011 4.0")
    assert searcher.solve(won_first).value == 1
    assert searcher.stats is not None


def walk(game: Game, node: Node, history: list[Turn], cands: np.ndarray) -> Iterator[tuple[Node, list[Turn],
                                                                                          np.ndarray]]:
    """Every position a tree reaches, with its history and candidates (each secret's path, shared prefixes once)."""
    yield node, history, cands
    for response, part in game.arrays().parts(node.guess, cands, game.n_responses):
        child = node.children.get(response)
        if child is not None:
            yield from walk(game, child, [*history, Turn(node.guess, response)], part)


def _shipped() -> list[tuple[str, str]]:
    from service.trees import TreeLibrary

    return sorted(TreeLibrary().metas())


SMALL = 10_000
"""Trees of at most this many secrets are played through in the quick suite (about 20 s in all); the two record
games' (about 15 s) are slow."""


def _size(key: tuple[str, str]) -> int:
    return Game.from_spec(key[0]).size


@pytest.mark.parametrize("key", [pytest.param(k, marks=[pytest.mark.slow] if _size(k) > SMALL else [],
                                              id=f"{k[0]}-{k[1]}") for k in _shipped()])
def test_every_secret_of_a_shipped_tree_plays_to_its_end(chain: AnswerChain, key: tuple[str, str]) -> None:
    """The answer chain follows the tree's guess at every position it reaches, and answers every won history as
    a finished game: the secret, the number of guesses the tree took, no new guess."""
    from service.trees import TreeLibrary

    library = TreeLibrary()
    stored = library._tree(key)
    assert stored is not None
    game = stored.tree.game
    meta = stored.meta
    strategy = "optimal-total" if meta["strategy"] == "best-known" else meta["strategy"]
    k = meta["max_guesses"]
    secrets = 0
    for node, history, cands in walk(game, stored.tree.root, list(stored.tree.history), game.all_codes):
        move = chain.next_move(game, history, cands, strategy, max_guesses=k)
        assert move.guess == node.guess, (key, game.format_codes(t.guess for t in history))
        if node.hit:
            won = [*history, Turn(node.guess, game.all_bulls)]
            end = chain.next_move(game, won, np.array([node.guess], dtype=np.int32), strategy, max_guesses=k)
            assert (end.guess, end.source) == (None, "history")
            secrets += 1
    assert secrets == sum(meta["histogram"].values())
