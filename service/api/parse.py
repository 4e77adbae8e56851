"""What every route does to a request before asking the answer chain: the game, the history, the budget,
the depth limit.

Validation happens here, once, at the HTTP boundary (the schemas have checked the shapes and the bounds,
the history's length and the budget among them): a game within the service's size limit, a history whose
codes, responses and consistency hold.  The rules the CLI applies too (the history's length, the ``max_guesses`` a
question is answered under) are :mod:`service.rules`'.  Errors are
:class:`solver.errors.SolverError` subclasses, which the app turns into ``application/problem+json``.
"""

from __future__ import annotations

import numpy as np

from service.config import Settings
from service.rules import check_history_length
from service.schemas import GameSpec, TurnIn
from solver.game import DEFAULT_ALPHABET, Game, Turn
from solver.vocabulary import Criterion, CriterionName


def game_of(spec: str | GameSpec, settings: Settings) -> Game:
    """The game a request names, within the service's size limit."""
    if isinstance(spec, GameSpec):
        return Game(spec.positions, spec.symbols, spec.repetition, spec.alphabet or DEFAULT_ALPHABET,
                    max_codes=settings.max_codes, search_max_codes=settings.exact_search_max_codes)
    return Game.from_spec(spec, max_codes=settings.max_codes, search_max_codes=settings.exact_search_max_codes)


def criterion_named(name: CriterionName) -> Criterion:
    """The criterion a request names, parsed here so that past the routes the service holds a
    :class:`~solver.vocabulary.Criterion` (the schema has already refused any other name)."""
    return Criterion.parse(name)


def history_of(game: Game, items: list[TurnIn | str], settings: Settings) -> tuple[list[Turn], np.ndarray]:
    """A validated history (codes, responses, consistency) and the candidates it leaves.  Its length is
    the schema's to check (``BULLSCOWS_MAX_HISTORY``, stated in the OpenAPI document), and checked again here for
    the callers that have no schema."""
    check_history_length(len(items), settings)
    turns = [game.parse_turn(it) if isinstance(it, str)
             else Turn(game.parse_code(it.guess), game.encode_response(it.bulls, it.cows)) for it in items]
    return turns, game.candidates(turns)  # raises InconsistentHistoryError naming the turn


def budget(settings: Settings, asked: int | None) -> int:
    """The time budget of a request in milliseconds (the schema has held it to the configured maximum)."""
    return asked or settings.default_time_budget_ms
