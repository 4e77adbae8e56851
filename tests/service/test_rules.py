"""The rules a question is answered under (service.rules), whichever door it comes in by, and whatever spelling of a
criterion a caller holds: a member or its name."""

from __future__ import annotations

import pytest

from service.rules import MaxGuessesNeededError, max_guesses_of
from solver.game import Game
from solver.vocabulary import Criterion


@pytest.mark.parametrize("criterion", [Criterion.KMOVERS, "kmovers"])
def test_kmovers_without_a_limit_take_the_games_proven_worst_case(criterion: Criterion) -> None:
    assert max_guesses_of(Game.from_spec("mastermind"), criterion, None) == 5
    assert max_guesses_of(Game.from_spec("bulls-cows"), criterion, None) == 7
    assert max_guesses_of(Game.from_spec("mastermind"), criterion, 6) == 6
    with pytest.raises(MaxGuessesNeededError, match="not known"):
        max_guesses_of(Game.from_spec("2,11,1"), criterion, None)


@pytest.mark.parametrize("criterion", [Criterion.TOTAL, "total"])
def test_totals_take_the_limit_asked_and_one_step_strategies_none(criterion: Criterion) -> None:
    game = Game.from_spec("mastermind")
    assert max_guesses_of(game, criterion, None) is None and max_guesses_of(game, criterion, 6) == 6
    assert max_guesses_of(game, None, 6) is None
