"""What a lower-bound campaign has proven of a position's root parts, and how processes share it.

:func:`solver.lowerbound.root_lower_bound` tells a :class:`PartLedger` every root part's bound as it is proven
(and, for the big parts of a deep pass, every second guess's and every part below one), reads it back as
estimates, and, when the ledger is shared, asks it before each part of the last pass to take in what the others
proved (:meth:`PartLedger.sync`).  This class is the one-process ledger; a bound job's units share theirs through
the database (:class:`service.jobs.ledger.StoreLedger`).
"""

from __future__ import annotations

EXACT_PLIES = 1 << 20
"""``PartLedger``'s plies for an exact value: no refinement, however deep, can raise it."""


class PartLedger:
    """Proven lower bounds of a position's root parts, keyed by (root guess, response): the bound, and the
    plies ``k`` whose full LB_k it is known to reach (0 when it may be a cut refinement's).

    Why: every bound :func:`solver.boundkernels.refine_set` returns is admissible, whatever depth or room it had,
    so whatever was proven of a part once is a valid estimate for any later refinement of it, in this run or another.  A
    subclass may share the ledger (:meth:`put` is told of every part as it is proven, :meth:`sync` asked
    before each root guess to take in what other processes proved)."""

    def __init__(self, bounds: dict[tuple[int, int], tuple[int, int]] | None = None,
                 seconds: dict[tuple[int, int, int], tuple[int, int]] | None = None,
                 thirds: dict[tuple[int, int, int, int], tuple[int, int]] | None = None) -> None:
        self.bounds: dict[tuple[int, int], tuple[int, int]] = dict(bounds or {})
        self.seconds: dict[tuple[int, int, int], tuple[int, int]] = dict(seconds or {})
        self.thirds: dict[tuple[int, int, int, int], tuple[int, int]] = dict(thirds or {})

    def get(self, guess: int, response: int) -> tuple[int, int]:
        """(bound, plies) of a part, (0, 0) when nothing is known of it."""
        return self.bounds.get((guess, response), (0, 0))

    def put(self, guess: int, response: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part; a bound never falls.  Returns whether anything rose."""
        old_lower, old_plies = self.get(guess, response)
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.bounds[(guess, response)] = new
        return True

    def get_second(self, guess: int, response: int, second: int) -> tuple[int, int]:
        """(bound, plies) of a root part's total when its first guess is ``second``, (0, 0) when nothing is known:
        the part's own bound is the least of these over its second guesses, so each is a unit of its own."""
        return self.seconds.get((guess, response, second), (0, 0))

    def put_second(self, guess: int, response: int, second: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part under one second guess (plies: those whose full bound it is, 0 when
        it may be a cut one's); a bound never falls.  Returns whether anything rose."""
        old_lower, old_plies = self.get_second(guess, response, second)
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.seconds[(guess, response, second)] = new
        return True

    def get_third(self, guess: int, response: int, second: int, response2: int) -> tuple[int, int]:
        """(bound, plies) of the part that answers ``response2`` to ``second`` within the root part, (0, 0) when
        nothing is known: a second guess's bound is its cost plus the sum of these, so each is a unit too."""
        return self.thirds.get((guess, response, second, response2), (0, 0))

    def put_third(self, guess: int, response: int, second: int, response2: int, lower: int, plies: int) -> bool:
        """Take in a proven bound of a part below a second guess; never falls.  Returns whether anything rose."""
        key = (guess, response, second, response2)
        old_lower, old_plies = self.thirds.get(key, (0, 0))
        new = (max(old_lower, lower), max(old_plies, plies))
        if new == (old_lower, old_plies):
            return False
        self.thirds[key] = new
        return True

    def sync(self) -> None:
        """Take in what others proved meanwhile (nothing here: one process keeps its ledger to itself)."""
