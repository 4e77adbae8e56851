"""The service's rules for a question, whichever door it comes in by (an HTTP route, the CLI): how many turns a
history may have, and the depth limit a question is answered under.

They sit here, below the routes and the commands, so that both import them and say the same thing in the same
words: :mod:`service.api.parse` applies them to a request, :mod:`service.cli` to a command line.
"""

from __future__ import annotations

from service import atlas
from service.config import Settings
from solver.errors import SolverError
from solver.game import Game
from solver.vocabulary import Criterion


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


def smallest_worst_case(game: Game) -> int | None:
    """The fewest guesses that solve every secret of the game, when proven (the atlas's games, the
    presets among them); None otherwise."""
    entry = atlas.shipped().get(game.spec)
    if entry is None or not entry["values"]["worst_case"]["exact"]:
        return None
    return int(entry["values"]["worst_case"]["value"])


def max_guesses_of(game: Game, criterion: Criterion | None, asked: int | None) -> int | None:
    """The depth limit a question is answered under, the same for every route (next-move, solve, jobs,
    strategies): the one asked for; for k-movers without one, the game's proven smallest worst case (the
    k of the shipped k-movers trees), else :class:`MaxGuessesNeededError`; for a total without one, none.
    ``criterion`` None is a one-step strategy, which takes no limit (None whatever was asked)."""
    if criterion is None or asked is not None or criterion != Criterion.KMOVERS:
        return None if criterion is None else asked
    known = smallest_worst_case(game)
    if known is None:
        raise MaxGuessesNeededError(
            f"max_guesses: the kmovers criterion needs it (the k of k-movers), and game {game.spec}'s smallest "
            "worst case, its default, is not known (the atlas's games and the presets have one)")
    return known
