"""The solver's exception hierarchy.

Every error a caller can provoke with bad input derives from :class:`SolverError`, itself a
``ValueError``, so that the service maps the whole family to ``application/problem+json`` with one
handler and a stable ``type`` per subclass.  Messages quote the offending input with ``!r``.
"""

from __future__ import annotations


class SolverError(ValueError):
    """Base class of every error caused by the caller's input."""

    #: Short stable slug used by the HTTP layer to build the problem ``type`` URI.
    slug = "solver-error"


class InvalidGameError(SolverError):
    """The game description (positions, symbols, repetition, alphabet) is not usable."""

    slug = "invalid-game"


class GameTooLargeError(InvalidGameError):
    """The game has more codes than the configured limit allows."""

    slug = "game-too-large"


class InvalidCodeError(SolverError):
    """A code is malformed, uses symbols outside the alphabet, or repeats a symbol illegally."""

    slug = "invalid-code"


class InvalidResponseError(SolverError):
    """A response is malformed or can never occur in this game."""

    slug = "invalid-response"


class InconsistentHistoryError(SolverError):
    """The history leaves no code consistent with every response."""

    slug = "inconsistent-history"


class UnknownStrategyError(SolverError):
    """A strategy name is not in the registry."""

    slug = "unknown-strategy"


class InvalidTreeError(SolverError):
    """A serialised strategy tree does not describe a valid strategy for its game."""

    slug = "invalid-tree"
