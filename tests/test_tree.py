"""Strategy trees: statistics, playing every secret, serialisations and their verification."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from solver.errors import InvalidTreeError
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy
from solver.tree import (
    Tree,
    build_tree,
    from_compact,
    from_json,
    solved_depths,
    strategy_chooser,
    to_compact,
    to_json,
)


def _tree(game: Game, name: str, **kw: Any) -> Tree:
    return build_tree(game, strategy_chooser(game, get_strategy(name)), strategy=name, **kw)


def _check_tree(tree: Tree) -> None:
    game = tree.game
    stats = tree.stats()
    cands = game.candidates(tree.history)
    assert sum(stats.histogram.values()) == stats.secrets == cands.shape[0]
    assert stats.total == sum(k * v for k, v in stats.histogram.items())
    assert stats.worst_case == max(stats.histogram)
    depths = solved_depths(tree)
    for secret in cands.tolist():
        guesses = tree.play(secret)
        assert guesses[-1] == secret
        assert len(tree.history) + len(guesses) == depths[secret]
    for node, _ in tree.nodes():
        if node.size == 1:
            assert node.hit and not node.children, "a leaf guesses its secret"
        assert node.size == sum(c.size for c in node.children.values()) + node.hit


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_mastermind_trees(mastermind: Game, name: str) -> None:
    _check_tree(_tree(mastermind, name))


@pytest.mark.parametrize("name", ["minimax", "entropy", "crush", "first-consistent"])
def test_bulls_cows_trees(bulls_cows: Game, name: str) -> None:
    tree = _tree(bulls_cows, name)
    _check_tree(tree)
    assert tree.stats().first_guess == "0123"


@pytest.mark.parametrize("name", ["minimax", "most-parts", "entropy", "expected-size", "larmouth", "crush"])
def test_trees_without_a_response_table_are_the_same(mastermind: Game, name: str) -> None:
    """Factor tables and symmetry classes change how fast a tree is built, never the tree."""
    tableless = Game(4, 6, True, table_max_bytes=0)
    assert tableless.arrays(table=True).table.shape == (0, 0)
    assert to_json(_tree(tableless, name)) == to_json(_tree(mastermind, name))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "total", "worst"), [("minimax", 183775, 7), ("most-parts", 181834, 8)])
def test_five_pins_eight_colours_from_00112(name: str, total: int, worst: int) -> None:
    """5 pins, 8 colours (32768 codes, no response table: factor tables), first guess 00112.

    The totals are those of mikemag/Mastermind's independent CPU solver for the same game and first
    guess (its 11223; averages 5.6084 and 5.5491, run side by side on this machine)."""
    game = Game.from_spec("5,8,1")
    tree = _tree(game, name, first=game.parse_code("00112"))
    stats = tree.stats()
    assert (stats.total, stats.worst_case, stats.secrets) == (total, worst, 32768)
    depths = solved_depths(tree)
    assert int(depths.min()) >= 1 and int(depths.sum()) == total


def test_knuth_minimax_from_0011(mastermind: Game) -> None:
    tree = _tree(mastermind, "minimax", first=mastermind.parse_code("0011"))
    stats = tree.stats()
    assert stats.first_guess == "0011"
    assert stats.worst_case <= 5
    _check_tree(tree)


def test_tree_after_history_counts_history(bulls_cows: Game) -> None:
    history = bulls_cows.parse_history("0123 0.1")
    tree = _tree(bulls_cows, "minimax", history=history)
    _check_tree(tree)
    assert min(tree.stats().histogram) >= 2
    assert tree.stats().secrets == 1440


def test_json_round_trip(mastermind: Game) -> None:
    tree = _tree(mastermind, "entropy")
    doc = json.loads(json.dumps(to_json(tree)))
    assert doc["stats"]["total"] == tree.stats().total
    again = from_json(doc)
    assert again.stats() == tree.stats()
    assert [n.guess for n, _ in again.nodes()] == [n.guess for n, _ in tree.nodes()]


def test_compact_round_trip(bulls_cows: Game) -> None:
    tree = _tree(bulls_cows, "larmouth", history=bulls_cows.parse_history("0123 1.1"))
    text = to_compact(tree)
    assert text.count(".") > 0
    again = from_compact(text)
    assert again.stats() == tree.stats()
    assert [n.guess for n, _ in again.nodes()] == [n.guess for n, _ in tree.nodes()]
    assert again.history == tree.history


@pytest.mark.parametrize("history", ["", "0123 1.1"])
def test_a_compact_tree_keeps_a_strategy_name_with_spaces(bulls_cows: Game, history: str) -> None:
    """A rollout's name has spaces and "=" in it; read back, it is whole (it names the tree in next-move's notes,
    and a polish adds to it: cut at its first space, two polishes had made "rollout(width,, polished ...")."""
    tree = _tree(bulls_cows, "larmouth", history=bulls_cows.parse_history(history))
    tree.strategy = "rollout(width 16, guesses 2-6, >80 within 7) over entropy+exact<=80 within 7, polished exact<=600"
    again = from_compact(to_compact(tree))
    assert again.strategy == tree.strategy and again.history == tree.history
    assert again.stats() == tree.stats()


def test_corrupt_json_trees_are_rejected(mastermind: Game) -> None:
    doc = to_json(_tree(mastermind, "minimax"))
    bad_guess = copy.deepcopy(doc)
    bad_guess["root"]["children"]["0.1"]["guess"] = "0019"
    with pytest.raises(InvalidTreeError, match="'9'"):
        from_json(bad_guess)
    missing = copy.deepcopy(doc)
    del missing["root"]["children"]["0.0"]
    with pytest.raises(InvalidTreeError, match="missing responses"):
        from_json(missing)
    wrong_count = copy.deepcopy(doc)
    wrong_count["root"]["candidates"] = 1000
    with pytest.raises(InvalidTreeError, match="claims 1000"):
        from_json(wrong_count)
    with pytest.raises(InvalidTreeError):
        from_json({"format": "other"})


def test_corrupt_compact_trees_are_rejected(mastermind: Game) -> None:
    text = to_compact(_tree(mastermind, "minimax"))
    with pytest.raises(InvalidTreeError, match="ends before"):
        from_compact(text.rsplit(" ", 3)[0])
    with pytest.raises(InvalidTreeError, match="more guesses"):
        from_compact(text + " 0000\n")
    with pytest.raises(InvalidTreeError):
        from_compact("nonsense")
