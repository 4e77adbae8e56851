"""The product's vocabulary, written once: strategies, criteria, answer sources, and the value rule.

Every other place — the HTTP schemas, the CLI's choices, ``GET /v1/games``, the web page (which reads
``/v1/games``) — derives its lists from the names here, so that a strategy added or renamed here
reaches all of them at once.  The ``Literal`` aliases are the definitions; the tuples are read off
them with :func:`typing.get_args`.

The value rule.  A criterion's value can be given two ways:

- *game-level*, as the API and the CLI print it: totals count every guess of the game for the secrets
  still possible, the history's guesses included (after ``0123 0.1`` the 1440 secrets' total includes
  their first guess, so the per-response values after ``0123`` add up to 26274); k-movers count the
  secrets needing exactly the k-th guess of the game;
- *remaining*, as the transposition table stores it: guesses still needed from this position, so that
  the same candidate set reached at another turn shares the entry.

:func:`game_value` and :func:`remaining_value` convert between the two; nothing else does that sum.
No imports beyond the standard library: the CLI reads this before it loads numpy.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal, TypeAlias, get_args

CriterionName: TypeAlias = Literal["total", "kmovers"]
"""The criteria as the HTTP API, the CLI and stored rows spell them: the boundary's type, parsed once into a
:class:`Criterion`."""
CRITERION_NAMES: tuple[str, ...] = get_args(CriterionName)


class Criterion(StrEnum):
    """What an optimal strategy minimises: ``TOTAL``, the guesses summed over the secrets (Λ); ``KMOVERS``, the
    secrets needing the last allowed guess (Φ_k).

    The one home of what a criterion carries: its kernels' integer, the one-step strategy that stands in for
    it, the optimal strategy that plays it, and the value rule (:func:`game_value`).  Members are strings (they
    compare, hash and serialise as their names), so a name read from JSON, a database row or a command line is
    parsed once, with :meth:`parse`, and everything past that boundary holds a member.
    """

    TOTAL = "total"
    KMOVERS = "kmovers"

    @classmethod
    def parse(cls, name: str) -> Criterion:
        """The criterion called ``name``.

        :raises ValueError: not a criterion's name (the message lists them).
        """
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown criterion {name!r}; use one of {', '.join(CRITERION_NAMES)}") from None

    @property
    def code(self) -> int:
        """The kernels' integer (``searchkernels.P_CRITERION``, the table's ``tt_bounds``, the lower-bound tables'
        second axis): ``TOTAL`` 0, ``KMOVERS`` 1, the order of :data:`CRITERIA`."""
        return CRITERIA.index(self)

    @property
    def fallback(self) -> OneStepStrategy:
        """The one-step strategy that answers when the exact answer is not known in time (the article's hybrids
        pair them the same way: Larmouth for totals, crush for k-movers)."""
        return "larmouth" if self is Criterion.TOTAL else "crush"

    @property
    def strategy(self) -> OptimalStrategy:
        """The optimal strategy that plays this criterion."""
        return "optimal-total" if self is Criterion.TOTAL else "optimal-kmovers"


CRITERIA: tuple[Criterion, ...] = tuple(Criterion)
assert tuple(CRITERIA) == CRITERION_NAMES

OptimalStrategy: TypeAlias = Literal["optimal-total", "optimal-kmovers"]
"""The strategies that play a criterion's optimum (exact where the product knows or can search it)."""
OneStepStrategy: TypeAlias = Literal["minimax", "most-parts", "entropy", "expected-size", "larmouth", "crush",
                                     "first-consistent", "random-consistent"]
"""The one-step strategies people compare against (each scores the next guess only)."""
StrategyName: TypeAlias = Literal[OptimalStrategy, OneStepStrategy]
"""Every strategy ``next-move`` and ``bullscows next`` play, the default first."""
STRATEGIES: tuple[str, ...] = (*get_args(OptimalStrategy), *get_args(OneStepStrategy))
OPTIMAL_STRATEGIES: tuple[str, ...] = get_args(OptimalStrategy)
ONE_STEP_STRATEGIES: tuple[str, ...] = get_args(OneStepStrategy)
DEFAULT_STRATEGY: OptimalStrategy = "optimal-total"

DESCRIPTIONS: dict[str, str] = {
    "optimal-total": "fewest guesses in all (optionally within max_guesses), exact where it can search",
    "optimal-kmovers": "fewest secrets needing max_guesses guesses, exact where it can search",
    "minimax": "Knuth: smallest largest part",
    "most-parts": "Kooi: most distinct responses",
    "entropy": "Neuwirth: largest entropy of the response distribution",
    "expected-size": "smallest expected size of the next candidate set (sum of squared parts)",
    "larmouth": "Larmouth: smallest sum of n*ln(n), a bonus for a candidate",
    "crush": "Slovesnov: part sizes sorted largest first, compared lexicographically",
    "first-consistent": "the lowest-index code still possible",
    "random-consistent": "a random code still possible (seeded)",
}
"""One line per strategy, for people (``GET /v1/games``, the CLI's help)."""

LABELS: dict[str, str] = {
    "optimal-total": "Optimal: fewest guesses in all",
    "optimal-kmovers": "Optimal: fewest games at the worst case",
    "minimax": "Knuth minimax",
    "most-parts": "Most parts",
    "entropy": "Entropy",
    "expected-size": "Expected size",
    "larmouth": "Larmouth",
    "crush": "Crush",
    "first-consistent": "First consistent",
    "random-consistent": "Random consistent",
}
"""A short name per strategy, for menus (the web page's)."""

Source: TypeAlias = Literal["history", "tree", "cache", "search", "job", "busy", "heuristic", "best-known"]
"""Which step of the answer chain answered (see :mod:`service.answers`)."""
SOURCES: tuple[str, ...] = get_args(Source)
SOURCE_MEANINGS: dict[str, str] = {
    "history": "the history already ends in the winning response: the game is over, nothing to search",
    "tree": "a proven tree or the shipped knowledge knew the position (or a symmetric image of it): no search",
    "cache": "the database's table knew the position (or a symmetric image of it): no search",
    "search": "searched within this question's time budget",
    "job": "computed by a job",
    "busy": "every search of the instance was taken: no answer in time",
    "heuristic": "the criterion's heuristic (or the one-step strategy asked for): not proven optimal",
    "best-known": "the game's best-known tree (or a symmetric image of it), for a game too large to search: the "
                  "best strategy this project knows, every secret played, but not proven optimal",
}

BEST_KNOWN: Final = "best-known"
"""The strategy name (and the answer's ``source``) of a game's shipped best-known tree: the best strategy known for a
game nobody has solved, every secret played but not proven optimal (``GET /v1/strategies/{game}/best-known``)."""

SOURCE_LABELS: dict[str, str] = {
    "history": "the game is over",
    "tree": "proven optimal: from a solved tree",
    "cache": "proven optimal: from the solved positions",
    "search": "proven optimal: searched just now",
    "job": "proven optimal: computed by a job",
    "busy": "a heuristic's guess: the solver was busy",
    "heuristic": "a heuristic's guess, not proven optimal",
    "best-known": "best known tree, not proven optimal",
}
"""Where an optimal strategy's guess came from, in a few words for people: the web page's line under each guess,
next-move's ``note`` of a best-known tree, and the page's strategy menu for a game whose fewest guesses in all are
played by a tree not proven optimal.  How such a tree was made is its provenance, served apart
(``GET /v1/games/{game}``: ``known.tree``), never in these words."""

assert set(DESCRIPTIONS) == set(LABELS) == set(STRATEGIES)
assert set(SOURCE_MEANINGS) == set(SOURCE_LABELS) == set(SOURCES) and BEST_KNOWN in SOURCES

MMAX: int = 64
"""The number of remaining guesses that stands for "no depth limit" (the table's ``m``)."""


def criterion_of(strategy: str) -> Criterion | None:
    """The criterion an optimal strategy plays; None for a one-step strategy."""
    return next((c for c in CRITERIA if c.strategy == strategy), None)


def remaining_guesses(max_guesses: int | None, turn: int) -> int:
    """Guesses still allowed at guess number ``turn`` (this one included); :data:`MMAX` = no limit."""
    return MMAX if max_guesses is None else max_guesses - turn + 1


def paid(size: int, turn: int) -> int:
    """The guesses ``size`` secrets have already paid at guess number ``turn`` (each the ``turn - 1`` before it):
    what a total's game-level value holds beyond its remaining one."""
    return size * (turn - 1)


def game_value(remaining: int, size: int, turn: int, criterion: Criterion) -> int:
    """The game-level value of a set of ``size`` secrets whose *remaining* value is ``remaining``, at
    guess number ``turn``: totals add what the secrets have :func:`paid`; k-movers count the same secrets either
    way."""
    return remaining + paid(size, turn) if criterion == Criterion.TOTAL else remaining


def remaining_value(value: int, size: int, turn: int, criterion: Criterion) -> int:
    """Inverse of :func:`game_value`."""
    return value - paid(size, turn) if criterion == Criterion.TOTAL else value


AVERAGE_DIGITS: int = 6
"""Decimals of every average the service answers."""


def average_of(value: int, size: int) -> float:
    """Guesses per secret of a game-level total ``value`` (every guess of the game, the history's included) over
    ``size`` secrets: every average a position is answered with (next-move's ``value.expected``, explain's
    ``average``s), computed and rounded here alike."""
    return round(value / size, AVERAGE_DIGITS)


def game_length(remaining: int, turn: int) -> int:
    """The guesses of the whole game for a secret found ``remaining`` guesses from guess number ``turn`` (that
    guess included): how a worst case is counted wherever a position is answered, as a tree's statistics count."""
    return remaining + turn - 1


def win_value(turn: int, criterion: Criterion, max_guesses: int | None) -> int:
    """Game-level value of the secret guessed at guess number ``turn``: that guess count (totals), or
    whether it is the last allowed guess (k-movers)."""
    return turn if criterion == Criterion.TOTAL else int(max_guesses == turn)
