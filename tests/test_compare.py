"""Another strategy's game lengths beside a tree (:mod:`solver.compare`): what the walk reports must be what
the other tree really does where both strategies reach the same position."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver.compare import compare, history_text, lengths_lines, read_steps, their_guesses, write_steps
from solver.game import Game, Turn
from solver.heuristics import STRATEGIES
from solver.tree import Node, Tree, build_tree, solved_depths, strategy_chooser

MASTERMIND = Game.from_spec("4,6,1")


def _tree(name: str, first: int | None = None) -> Tree:
    return build_tree(MASTERMIND, strategy_chooser(MASTERMIND, STRATEGIES[name]()), first=first)


@pytest.fixture(scope="module")
def pair() -> tuple[Tree, Tree]:
    """Two strategies that open alike and part later: entropy, and most-parts after the same first guess."""
    ours = _tree("entropy")
    return ours, _tree("most-parts", first=ours.root.guess)


def _secrets(tree: Tree, turns: Sequence[Turn]) -> npt.NDArray[np.int32]:
    return np.asarray(tree.game.candidates(turns), dtype=np.int32)


def test_where_two_trees_part_the_other_guess_is_the_one_inferred(pair: tuple[Tree, Tree]) -> None:
    """Every position reported is one both trees reach; the sums are each tree's own game lengths there; the
    other tree's guess is among those inferred, the only one where they are settled; and the walk went below
    the first guess, which both play."""
    ours, other = pair
    mine, theirs = solved_depths(ours), solved_depths(other)
    found = compare(ours, theirs, depth=4)
    assert found and all(d.turns for d in found)
    for d in found:
        node = other.node_at(list(d.turns))
        assert node is not None, history_text(MASTERMIND, d.turns)
        secrets = _secrets(ours, d.turns)
        assert d.secrets == secrets.size
        assert (d.ours, d.theirs) == (int(mine[secrets].sum()), int(theirs[secrets].sum()))
        assert d.ours != d.theirs
        assert node.guess in d.their_guesses
        assert d.same_guess == (d.their_guesses == (d.our_guess,))
        assert ours.node_at(list(d.turns)).guess == d.our_guess
    assert [d.theirs - d.ours for d in found] == sorted(d.theirs - d.ours for d in found)


def test_a_tree_beside_its_own_lengths_parts_nowhere(pair: tuple[Tree, Tree]) -> None:
    ours, _ = pair
    assert compare(ours, solved_depths(ours), depth=5) == []


def test_a_guess_outside_the_candidates_is_found_from_the_next_guesses(pair: tuple[Tree, Tree]) -> None:
    """Where the other plays a code that is no candidate, its lengths still single that code out among the
    codes that split the secrets as they require; lengths that one position cannot give allow none."""
    _, other = pair
    steps = solved_depths(other)
    seen = 0
    for turns in _paths(other):
        node = other.node_at(turns)
        if len(turns) != 1 or node is None or node.hit or node.size < 4:
            continue
        secrets = _secrets(other, turns)
        inferred = their_guesses(MASTERMIND, secrets, steps, 2)
        assert node.guess in inferred
        seen += 1
    assert seen, "most-parts plays some code outside the candidates at its second guess"
    secrets = _secrets(other, ())
    broken = steps.copy()
    broken[secrets[:2]] = 1  # two secrets solved by the one first guess
    assert their_guesses(MASTERMIND, secrets, broken, 1) == ()


def _paths(tree: Tree) -> list[list[Turn]]:
    """Every position's history, root first."""
    out: list[list[Turn]] = []

    def walk(node: Node, turns: list[Turn]) -> None:
        out.append(turns)
        for r, child in node.children.items():
            walk(child, [*turns, Turn(node.guess, r)])

    walk(tree.root, [])
    return out


def test_game_lengths_are_read_one_per_secret_and_bad_lines_are_named() -> None:
    game = Game.from_spec("3,4,1")
    lines = [f"{game.format_code(c)} {1 + c % 5}" for c in range(game.size)]
    steps = read_steps(game, ["# lengths", "", *reversed(lines)])
    assert steps.tolist() == [1 + c % 5 for c in range(game.size)]
    for bad, said in [
        ([*lines, lines[0]], f"line {len(lines) + 1}: {lines[0].split()[0]} is given twice"),
        (lines[1:], "1 secrets of 3,4,1 have no length (first: 000)"),
        (["999 4", *lines], "line 1:"),
        (["000 x", *lines[1:]], "line 1: the length 'x' is not a whole number"),
        (["000 0", *lines[1:]], "line 1: a game takes at least one guess, not 0"),
        (["000 4 5", *lines[1:]], "line 1: expected 'CODE LENGTH'"),
    ]:
        with pytest.raises(ValueError, match="^" + re.escape(said)):
            read_steps(game, bad)


@given(positions=st.integers(1, 3), symbols=st.integers(1, 5), repetition=st.booleans(),
       strategy=st.sampled_from(sorted(STRATEGIES)), alphabet=st.sampled_from([None, "abcdefgh", "ZYXWVU98"]))
@settings(max_examples=40, deadline=None)
def test_a_trees_lengths_read_back_as_its_own(positions: int, symbols: int, repetition: bool, strategy: str,
                                               alphabet: str | None) -> None:
    """What lengths_lines writes, read_steps reads back as the tree's own game lengths, in any game and alphabet:
    one line per secret, by code, and the comments say the tree's total."""
    assume(repetition or positions <= symbols)
    game = Game.from_spec(f"{positions},{symbols},{int(repetition)}", alphabet)
    tree = build_tree(game, strategy_chooser(game, STRATEGIES[strategy]()), strategy=strategy)
    lines = list(lengths_lines(tree))
    assert all(line.endswith("\n") for line in lines)
    assert read_steps(game, lines).tolist() == solved_depths(tree).tolist()
    body = [line for line in lines if not line.startswith("#")]
    assert [line.split()[0] for line in body] == game.format_codes(range(game.size))
    assert f"# total {tree.stats().total}, " in "".join(lines)


def test_a_written_file_reads_back(tmp_path: Path) -> None:
    tree = _tree("minimax")
    target = tmp_path / "minimax-lengths.txt"
    write_steps(tree, str(target), "minimax")
    with target.open(encoding="utf-8") as fh:
        steps = read_steps(MASTERMIND, fh)
    assert int(steps.sum()) == tree.stats().total
    assert target.read_text(encoding="utf-8").startswith("# game 4,6,1 (mastermind): 1296 codes\n# strategy minimax")
