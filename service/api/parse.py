"""What every route does to a request before asking the answer chain: the game, the history, the budget,
the depth limit.

Validation happens here, once, at the HTTP boundary (the schemas have checked the shapes and the bounds,
the history's length and the budget among them): a game within the service's size limit, a history whose
codes, responses and consistency hold, and the ``max_guesses`` a question is answered under.  Errors are
:class:`solver.errors.SolverError` subclasses, which the app turns into ``application/problem+json``.
"""

from __future__ import annotations

import numpy as np

from service import atlas
from service.config import Settings
from service.schemas import GameSpec, TurnIn
from solver.errors import SolverError
from solver.game import DEFAULT_ALPHABET, Game, Turn


class MaxGuessesNeededError(SolverError):
    """A k-movers question without its k, in a game whose smallest worst case the service does not know."""

    slug = "max-guesses-needed"


class HistoryTooLongError(SolverError):
    """More turns than the service takes: what the schema says of a request (in the same words), for the callers
    that have no schema (the CLI)."""

    slug = "validation-error"


def check_history_length(turns: int, settings: Settings) -> None:
    """:raises HistoryTooLongError: more than ``BULLSCOWS_MAX_HISTORY`` turns."""
    if turns > settings.max_history:
        raise HistoryTooLongError(f"history: must have at most {settings.max_history} turns (the service's "
                                  f"BULLSCOWS_MAX_HISTORY), got {turns}")


def game_of(spec: str | GameSpec, settings: Settings) -> Game:
    """The game a request names, within the service's size limit."""
    if isinstance(spec, GameSpec):
        return Game(spec.positions, spec.symbols, spec.repetition, spec.alphabet or DEFAULT_ALPHABET,
                    max_codes=settings.max_codes, search_max_codes=settings.exact_search_max_codes)
    return Game.from_spec(spec, max_codes=settings.max_codes, search_max_codes=settings.exact_search_max_codes)


def history_of(game: Game, items: list[TurnIn | str], settings: Settings) -> tuple[list[Turn], np.ndarray]:
    """A validated history (codes, responses, consistency) and the candidates it leaves.  Its length is
    the schema's to check (``BULLSCOWS_MAX_HISTORY``, stated in the OpenAPI document), and checked again here for
    the callers that have no schema."""
    check_history_length(len(items), settings)
    turns = [game.parse_turn(it) if isinstance(it, str)
             else Turn(game.parse_code(it.guess), game.encode_response(it.bulls, it.cows)) for it in items]
    return turns, game.candidates(turns)  # raises InconsistentHistoryError naming the turn


def smallest_worst_case(game: Game) -> int | None:
    """The fewest guesses that solve every secret of the game, when proven (the atlas's games, the
    presets among them); None otherwise."""
    entry = atlas.shipped().get(game.spec)
    if entry is None or not entry["values"]["worst_case"]["exact"]:
        return None
    return int(entry["values"]["worst_case"]["value"])


def max_guesses_of(game: Game, criterion: str | None, asked: int | None) -> int | None:
    """The depth limit a question is answered under, the same for every route (next-move, solve, jobs,
    strategies): the one asked for; for k-movers without one, the game's proven smallest worst case (the
    k of the shipped k-movers trees), else :class:`MaxGuessesNeededError`; for a total without one, none.
    ``criterion`` None is a one-step strategy, which takes no limit (None whatever was asked)."""
    if criterion is None or asked is not None or criterion != "kmovers":
        return None if criterion is None else asked
    known = smallest_worst_case(game)
    if known is None:
        raise MaxGuessesNeededError(
            f"max_guesses: the kmovers criterion needs it (the k of k-movers), and game {game.spec}'s smallest "
            "worst case, its default, is not known (the atlas's games and the presets have one)")
    return known


def budget(settings: Settings, asked: int | None) -> int:
    """The time budget of a request in milliseconds (the schema has held it to the configured maximum)."""
    return asked or settings.default_time_budget_ms
