"""The worst-case search (:mod:`solver.feasible`): its yes and no agree with the exact search's, its yes is a
strategy that keeps the limit when every candidate is played, and a budget never passes for a proof."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver.errors import GameTooLargeError
from solver.feasible import Feasibility, LimitNotKept, feasible_chooser, verdict_for
from solver.game import Game, Turn
from solver.search import Searcher, SolveOptions
from solver.tree import build_tree

SMALL = ["3,6,1", "4,4,0", "3,5,0", "4,5,1", "5,3,1", "3,7,0"]


def _worst_case_by_search(game: Game) -> int:
    """The optimal worst case as the exact search finds it: the first limit that every secret fits."""
    s = Searcher(game, SolveOptions("total"))
    k = 1
    while not s.fits([], game.all_codes, k):
        k += 1
    return k


@pytest.mark.parametrize("spec", SMALL)
def test_whole_games_keep_their_optimal_worst_case_and_no_less(spec: str) -> None:
    game = Game.from_spec(spec)
    f = Feasibility(game)
    worst = _worst_case_by_search(game)
    below = f.witness(game.all_codes, worst - 1)
    assert below.possible is False and below.guess is None
    at = f.witness(game.all_codes, worst)
    assert at.possible is True and at.guess is not None
    tree = build_tree(game, feasible_chooser(game, worst, feasibility=f), arrays=game.search_arrays())
    assert tree.stats().worst_case <= worst
    assert all(tree.play(s)[-1] == s for s in range(game.size))


def test_mastermind_keeps_five_not_four(mastermind: Game) -> None:
    """Knuth's five guesses, and the proof that four do not do (every first guess refuted)."""
    f = Feasibility(mastermind)
    assert f.witness(mastermind.all_codes, 4).possible is False
    v = f.witness(mastermind.all_codes, 5)
    assert v.possible is True
    tree = build_tree(mastermind, feasible_chooser(mastermind, 5, feasibility=f), arrays=mastermind.search_arrays())
    stats = tree.stats()
    assert stats.worst_case == 5 and sum(stats.histogram.values()) == mastermind.size


GAMES = ["4,6,1", "4,5,0", "3,8,1", "4,6,0"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAMES), st.data())
def test_agrees_with_the_exact_search_after_any_history(spec: str, data: st.DataObject) -> None:
    """After one or two random turns, for every number of guesses left from 1 to 4: possible exactly when the
    exact search finds every candidate within the limit, and the guess given keeps every part within it."""
    game = Game.from_spec(spec)
    secret = data.draw(st.integers(0, game.size - 1), label="secret")
    guesses = data.draw(st.lists(st.integers(0, game.size - 1), min_size=1, max_size=2, unique=True),
                        label="guesses")
    assume(secret not in guesses)  # a won game has nothing left to find
    history = [Turn(g, game.response(g, secret)) for g in guesses]
    cands = game.candidates(history)
    f = Feasibility(game)
    s = Searcher(game, SolveOptions("total"))
    arrays = game.search_arrays()
    for left in range(1, 5):
        v = f.witness(cands, left, history=history)
        assert v.possible is s.fits(history, cands, len(history) + left), (history, left)
        alone = f.witness(cands, left, tries=10**9, history=history)  # a budget never reached: no exact search
        assert alone.possible is v.possible, (history, left)
        if v.possible:
            assert v.guess is not None
            for r, part in arrays.parts(v.guess, cands, game.n_responses):
                if r != game.all_bulls:
                    assert s.fits([*history, Turn(v.guess, r)], part, len(history) + left)


def test_sets_over_two_words_take_the_plain_path(mastermind: Game) -> None:
    """The three-guess kernel remembers parts by a two-word bitmask; bigger sets (over 128 candidates) are
    checked without that memory and must agree with the exact search all the same (none keeps three guesses
    left; each keeps four)."""
    f = Feasibility(mastermind)
    s = Searcher(mastermind, SolveOptions("total"))
    for text in ("0012 1.0", "0123 0.1", "0123 0.3", "0001 1.1", "0000 2.0"):
        history = mastermind.parse_history(text)
        cands = mastermind.candidates(history)
        assert 128 < cands.shape[0] <= f._most_within(3), text
        for left in (3, 4):
            assert f.witness(cands, left, history=history).possible is s.fits(history, cands, 1 + left), text


def test_a_budget_is_never_a_proof(mastermind: Game) -> None:
    """With one guess tried per position, Mastermind within 5 is not settled either way (its first guess by
    the order tried does not keep it, or a part below needs a second try), and the verdict says unknown,
    never no.  Without the budget the same question is a yes."""
    f = Feasibility(mastermind)
    cut = f.witness(mastermind.all_codes, 5, tries=1)
    assert cut.possible in (True, None)
    assert f.witness(mastermind.all_codes, 3, tries=1).possible is False  # 1296 > 183: refuted by counting alone
    none = f.witness(mastermind.all_codes, 5, tries=0)
    assert none.possible is None and none.guess is None
    with pytest.raises(LimitNotKept):
        feasible_chooser(mastermind, 5, tries=0, feasibility=f)(mastermind.all_codes, [])


def test_small_sets_and_limits(bulls_cows: Game) -> None:
    f = Feasibility(bulls_cows)
    one = bulls_cows.all_codes[:1]
    assert f.witness(one, 1).possible is True and f.witness(one, 1).guess == int(one[0])
    assert f.witness(one, 0).possible is False
    pair = bulls_cows.all_codes[:2]
    assert f.witness(pair, 1).possible is False
    v = f.witness(pair, 2)
    assert v.possible is True and v.guess in pair.tolist()  # a candidate: it may win at once
    with pytest.raises(ValueError, match="no candidates"):
        f.witness(np.zeros(0, dtype=np.int32), 3)
    history = bulls_cows.parse_history("0123 0.0")
    v = verdict_for(bulls_cows, history, 7)
    assert v.possible is True and v.left == 6 and v.candidates == 360


def test_games_over_the_search_limit_are_refused() -> None:
    big = Game.from_spec("5,10,0", search_max_codes=8192)  # the service's default limit
    with pytest.raises(GameTooLargeError, match="30240 codes"):
        Feasibility(big)


def test_a_scan_reports_every_guess_it_settles(mastermind: Game) -> None:
    """From the second guess in order on, a scan of Mastermind within 5 still finds a guess that keeps it,
    reports each guess settled (failures with the part that breaks the limit, proven), and a scan within 6
    after one turn agrees with witness()."""
    f = Feasibility(mastermind)
    steps: list = []
    v = f.scan(mastermind.all_codes, 5, start=1, report=steps.append)
    assert v.possible is True and steps[-1].failed is None and steps[-1].guess == v.guess
    assert [s.index for s in steps] == list(range(1, 1 + len(steps))) and all(s.of == steps[0].of for s in steps)
    for s in steps[:-1]:
        _, size, proven = s.failed
        assert proven and size > 1
    history = mastermind.parse_history("0123 0.2")
    cands = mastermind.candidates(history)
    assert f.scan(cands, 5, history=history).possible is f.witness(cands, 5, history=history).possible
    with pytest.raises(ValueError, match="five guesses left"):
        f.scan(cands, 4, history=history)
