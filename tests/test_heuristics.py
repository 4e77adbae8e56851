"""One-step strategies: published statistics, the blog's figures, tie-breaks, a reference."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import kernels
from solver.errors import UnknownStrategyError
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy, nlogn, partition
from tests import reference
from tests.test_game import games

SCORED = ["minimax", "most-parts", "entropy", "expected-size", "larmouth", "crush"]


def _expected_size(game: Game, guess: int, cands: np.ndarray) -> float:
    sizes = partition(game, guess, cands).values()
    return sum(n * n for n in sizes) / cands.shape[0]


@pytest.mark.parametrize("code", ["0000", "0001", "0011", "0012", "0123"])
def test_mastermind_first_guess_statistics(mastermind: Game, published: dict[str, Any], code: str) -> None:
    """Thesis seed: largest part, entropy, expected part size and number of parts of each first guess."""
    row = published["heuristics_mastermind_first_guess"][code]
    sizes = list(partition(mastermind, mastermind.parse_code(code), mastermind.all_codes).values())
    total = sum(sizes)
    assert max(sizes) == row["largest_part"]
    assert len(sizes) == row["parts"]
    entropy = -sum(n / total * math.log2(n / total) for n in sizes)
    assert round(entropy, 2) == pytest.approx(row["entropy_bits"], abs=0.011)
    assert round(sum(n * n for n in sizes) / total, 1) == row["expected_part_size"]


def test_blog_four_of_ten(published: dict[str, Any]) -> None:
    case = published["blog_expected_size"]["four_of_ten"]
    g = Game(case["positions"], len(case["alphabet"]), case["repetition"], case["alphabet"])
    history = [g.parse_turn(f"{t[0]} {t[1]}.{t[2]}") for t in case["history"]]
    cands = g.candidates(history)
    assert round(_expected_size(g, g.parse_code(case["guess"]), cands), 1) == case["expected_new_size"]


@pytest.mark.parametrize(("first", "key"), [("213", "after_213_secret_126"), ("123", "after_123_secret_126")])
def test_blog_three_of_seven(published: dict[str, Any], first: str, key: str) -> None:
    case = published["blog_expected_size"]["three_of_seven"]
    g = Game(case["positions"], len(case["alphabet"]), case["repetition"], case["alphabet"])
    secret = g.parse_code("126")
    guess = g.parse_code(first)
    cands = g.candidates([g.parse_turn(f"{first} {g.format_response(g.response(guess, secret))}")])
    in_set = set(cands.tolist())
    consistent = [_expected_size(g, c, cands) for c in range(g.size) if c in in_set]
    inconsistent = [_expected_size(g, c, cands) for c in range(g.size) if c not in in_set]
    assert round(min(consistent), 6) == case[key]["min_over_consistent"]
    assert round(min(inconsistent), 6) == case[key]["min_over_inconsistent"]
    if "best_guess_example" in case[key]:
        example = g.parse_code(case[key]["best_guess_example"])
        assert _expected_size(g, example, cands) == min(inconsistent)
        # the strategy itself finds a guess of that quality, outside the candidate set
        choice = get_strategy("expected-size").choose(g, cands)
        assert _expected_size(g, choice.guess, cands) == min(consistent + inconsistent)
        assert choice.guess not in in_set


def test_literature_averages(mastermind: Game, published: dict[str, Any]) -> None:
    """Knuth's minimax (4.476) and Kooi's most-parts (4.373) on Mastermind, from full trees."""
    from solver.tree import build_tree, strategy_chooser

    lit = published["heuristics_literature_mastermind_average"]
    for name, key in (("minimax", "knuth_minimax"), ("most-parts", "most_parts")):
        tree = build_tree(mastermind, strategy_chooser(mastermind, get_strategy(name)), strategy=name)
        assert round(tree.stats().average, 3) == lit[key]


@pytest.mark.parametrize("name", SCORED)
@given(game=games(max_codes=400), data=st.data())
@settings(max_examples=25, deadline=None)
def test_kernel_matches_plain_python(name: str, game: Game, data: st.DataObject) -> None:
    """Each scored strategy picks exactly the guess the plain-Python reference picks."""
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, game.alphabet)
    secret = data.draw(st.integers(0, game.size - 1))
    history = []
    for _ in range(data.draw(st.integers(0, 2))):
        guess = data.draw(st.integers(0, game.size - 1))
        if guess == secret:
            break
        answer = game.format_response(game.response(guess, secret))
        history.append(game.parse_turn(f"{codes[guess]} {answer}"))
    cands = game.candidates(history)
    fso = data.draw(st.booleans())
    expect = reference.best(name, codes, game.format_codes(cands), from_set_only=fso)
    got = get_strategy(name, from_set_only=fso).choose(game, cands)
    assert game.format_code(got.guess) == expect
    # Given the history, one code per symmetry class is scored (position classes too, however
    # small the position), and without a response table the responses come from the factor
    # tables: the same guess either way.
    tableless = Game(game.positions, game.symbols, game.repetition, table_max_bytes=0)
    assert tableless.factors().keys.shape[0] == game.size
    for g, a in ((game, game.arrays(table=True)), (tableless, tableless.arrays())):
        with_history = get_strategy(name, from_set_only=fso).choose(g, cands, a, history)
        assert (with_history.guess, with_history.score) == (got.guess, got.score)


def test_symmetry_classes_are_used_where_they_pay(monkeypatch: pytest.MonkeyPatch, mastermind: Game) -> None:
    """The history's position classes are asked for on big nodes only, and change nothing."""
    import solver.heuristics as heuristics

    history = mastermind.parse_history(["0011 1.0"])
    cands = mastermind.candidates(history)
    plain = get_strategy("minimax").choose(mastermind, cands)
    asked: list[int] = []
    real = heuristics.symmetry.position_classes

    def spy(game: Game, turns: tuple[tuple[int, int], ...]) -> Any:
        rep = real(game, turns)
        asked.append(0 if rep is None else int(np.unique(rep).shape[0]))
        return rep

    monkeypatch.setattr(heuristics.symmetry, "position_classes", spy)
    monkeypatch.setattr(heuristics, "POSITION_CLASSES_MIN_WORK", 0)
    got = get_strategy("minimax").choose(mastermind, cands, history=history)
    assert (got.guess, got.score) == (plain.guess, plain.score)
    # 0011 is fixed by swapping its first two positions, its last two, both pairs, and its symbols
    # 0 and 1 with the pairs: far fewer classes than codes
    assert asked and 0 < asked[0] < mastermind.size // 4


@pytest.mark.parametrize("name", SCORED)
@given(game=games(max_codes=400), data=st.data())
@settings(max_examples=15, deadline=None)
def test_equal_multisets_tie_exactly(name: str, game: Game, data: st.DataObject) -> None:
    """Two guesses with the same multiset of part sizes get bit-identical scores, whatever the order."""
    a = game.arrays()
    k = data.draw(st.integers(0, game.size - 1))
    cands = game.all_codes if k == 0 else game.candidates([game.parse_turn(
        f"{game.format_code(k)} {game.format_response(game.response(k, 0))}")])
    log2n, lnn = nlogn(int(cands.shape[0]))
    in_set = set(cands.tolist())
    seen: dict[tuple[tuple[int, ...], bool], float] = {}
    for g in range(game.size):
        pool = np.array([g], dtype=np.int32)
        no_f = np.zeros((1, 1), dtype=np.uint8)
        _, score = kernels.best_guess(*a.kernel_args(), cands, pool, int(g in in_set), game.n_responses,
                                      kernels.__dict__[name.upper().replace("-", "_")], log2n, lnn,
                                      np.zeros((0, 4), dtype=np.uint16), no_f, no_f, no_f, no_f,
                                      np.zeros(3, dtype=np.int64))
        key = (tuple(sorted(partition(game, g, cands).values())), g in in_set)
        assert seen.setdefault(key, score) == score


def test_permuted_parts_tie_and_tie_break(bulls_cows: Game) -> None:
    """At the root every Bulls-and-Cows code has the same multiset: the lowest index wins."""
    for name in SCORED:
        assert get_strategy(name).choose(bulls_cows, bulls_cows.all_codes).guess == 0


def test_prefers_candidate_then_lowest_index(mastermind: Game) -> None:
    """Two candidates left: the lower one is guessed by every strategy."""
    cands = np.array([mastermind.parse_code("0012"), mastermind.parse_code("0021")], dtype=np.int32)
    for name in STRATEGIES:
        assert mastermind.format_code(get_strategy(name).choose(mastermind, cands).guess) == "0012"


def test_single_candidate_is_the_guess(mastermind: Game) -> None:
    cands = np.array([mastermind.parse_code("5432")], dtype=np.int32)
    for name in STRATEGIES:
        assert mastermind.format_code(get_strategy(name).choose(mastermind, cands).guess) == "5432"


def test_random_consistent_is_seeded_and_consistent(bulls_cows: Game) -> None:
    cands = bulls_cows.candidates(bulls_cows.parse_history("0123 0.1"))
    picks = {get_strategy("random-consistent", seed=s).choose(bulls_cows, cands).guess for s in range(20)}
    assert len(picks) > 5
    assert picks <= set(cands.tolist())
    first = get_strategy("random-consistent", seed=3).choose(bulls_cows, cands)
    assert first == get_strategy("random-consistent", seed=3).choose(bulls_cows, cands)


def test_unknown_strategy() -> None:
    with pytest.raises(UnknownStrategyError, match="'knuth'"):
        get_strategy("knuth")


@pytest.mark.parametrize("name", SCORED)
def test_a_stopped_scan_answers_the_best_guess_it_scored(name: str, mastermind: Game) -> None:
    """A stop set before the scan lets it score one guess, the first of the pool; without a stop the
    scan is whole.  ``ctl`` says how far it went."""
    a = mastermind.arrays()
    cands = mastermind.candidates([mastermind.parse_turn("0011 1.1")])
    pool = np.concatenate([cands, np.setdiff1d(mastermind.all_codes, cands)]).astype(np.int32)
    log2n, lnn = nlogn(int(cands.shape[0]))
    no_f = np.zeros((1, 1), dtype=np.uint8)
    kid = kernels.__dict__[name.upper().replace("-", "_")]

    def run(pool_: np.ndarray, stop: int) -> tuple[int, np.ndarray]:
        ctl = np.array([stop, -1, -1], dtype=np.int64)
        g, _ = kernels.best_guess(*a.kernel_args(), cands, pool_, min(len(pool_), len(cands)),
                                  mastermind.n_responses, kid, log2n, lnn, np.zeros((0, 4), dtype=np.uint16),
                                  no_f, no_f, no_f, no_f, ctl)
        return int(g), ctl

    g, ctl = run(pool, 1)
    assert g == pool[0] and ctl.tolist() == [1, 1, len(pool)]
    g, ctl = run(pool, 0)
    assert ctl.tolist() == [0, len(pool), len(pool)]
    assert g == get_strategy(name).choose(mastermind, cands).guess


def test_choose_keeps_to_its_budget() -> None:
    """On a game whose full scan takes seconds, a zero budget stops at once with a scored guess (a
    candidate: they come first) and says how much it scored; a generous budget changes nothing."""
    game = Game.from_spec("6,7,1")
    history = game.parse_history("001123 1.2, 123456 1.2")  # no symmetry left: 117649 guesses to score
    cands = game.candidates(history)
    cut = get_strategy("minimax").choose(game, cands, history=history, budget_s=0.0)
    assert cut.cut is not None and 1 <= cut.cut[0] < cut.cut[1]
    assert cut.guess in set(cands.tolist())
    small = Game.from_spec("mastermind")
    mm_cands = small.candidates([small.parse_turn("0011 1.1")])
    full = get_strategy("entropy").choose(small, mm_cands)
    timed = get_strategy("entropy").choose(small, mm_cands, budget_s=60.0)
    assert (timed.guess, timed.score, timed.cut) == (full.guess, full.score, None)
