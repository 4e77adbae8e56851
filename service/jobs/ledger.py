"""A bound unit's :class:`solver.partledger.PartLedger` kept in the database (the ``bound_parts`` table).

Why: every part's bound a unit of a bound job proves is a proof for good, whatever unit, depth or plan proved
it; written to the database as it is proven (at most every :data:`FLUSH_SECONDS`, and when the unit ends or
stops), it is lost neither when the worker is killed nor when the campaign changes plan, and every other
worker, on this machine or another, starts its refinements from it (:meth:`StoreLedger.sync`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from service.store.bound_parts import BoundPartStore, PartBounds
from solver.game import Game
from solver.lowerbound import LEAVES
from solver.partledger import PartLedger

FLUSH_SECONDS = 5.0
"""A running unit writes its new bounds at most this often (and when it ends): what a kill loses."""


class UnitStopped(Exception):
    """Raised inside a refinement when its unit must stop (its lease was lost, or its job is over); what it
    proved is written first."""


class StoreLedger(PartLedger):
    """The part bounds of one game, read from the store when made and at each :meth:`sync`, written back as
    they rise, at most every ``every`` seconds (default :data:`FLUSH_SECONDS`).  ``stopped()`` is asked after
    each proof: when it says so, the ledger writes and raises :class:`UnitStopped`.  ``proofs`` counts the bounds
    that rose here (a unit's heartbeat reports it)."""

    def __init__(self, store: BoundPartStore, game: Game, source: str, *, every: float | None = None,
                 stopped: Callable[[], bool] = lambda: False,
                 on_flush: Callable[[int], object] = lambda _proofs: None) -> None:
        known = store.load(game.spec, LEAVES)
        super().__init__(known.parts, known.seconds, known.thirds)
        self.store, self.game, self.source, self.stopped, self.on_flush = store, game, source, stopped, on_flush
        self.every = FLUSH_SECONDS if every is None else every
        self.pending = PartBounds()
        self.written = time.monotonic()
        self.proofs = 0

    def put(self, guess: int, response: int, lower: int, plies: int) -> bool:
        rose = super().put(guess, response, lower, plies)
        if rose:
            self.pending.parts[(guess, response)] = self.get(guess, response)
        return self._after(rose)

    def put_second(self, guess: int, response: int, second: int, lower: int, plies: int) -> bool:
        rose = super().put_second(guess, response, second, lower, plies)
        if rose:
            self.pending.seconds[(guess, response, second)] = self.get_second(guess, response, second)
        return self._after(rose)

    def put_third(self, guess: int, response: int, second: int, response2: int, lower: int, plies: int) -> bool:
        rose = super().put_third(guess, response, second, response2, lower, plies)
        if rose:
            key = (guess, response, second, response2)
            self.pending.thirds[key] = self.get_third(*key)
        return self._after(rose)

    def _after(self, rose: bool) -> bool:
        if rose:
            self.proofs += 1
        if self.stopped():
            self.flush()
            raise UnitStopped
        if rose and time.monotonic() - self.written >= self.every:
            self.flush()
        return rose

    def flush(self) -> int:
        """Write the bounds that rose since the last write (``on_flush`` is then told how many rose here in all);
        returns how many were written."""
        pending, self.pending = self.pending, PartBounds()
        self.written = time.monotonic()
        if not len(pending):
            return 0
        sent = self.store.raise_bounds(self.game.spec, pending, LEAVES, self.source)
        self.on_flush(self.proofs)
        return sent

    def sync(self) -> None:
        """Write what rose here, and take in what other units proved meanwhile."""
        self.flush()
        known = self.store.load(self.game.spec, LEAVES)
        for (g, r), (lower, plies) in known.parts.items():
            PartLedger.put(self, g, r, lower, plies)
        for (g, r, g2), (lower, plies) in known.seconds.items():
            PartLedger.put_second(self, g, r, g2, lower, plies)
        for (g, r, g2, r2), (lower, plies) in known.thirds.items():
            PartLedger.put_third(self, g, r, g2, r2, lower, plies)
