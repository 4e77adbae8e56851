"""The ``bound_parts`` table: what the bound campaigns of a game have proven of its root parts.

Why a table and not a file: every process of a campaign, on any machine, writes its proofs where the others read
them, through the database the jobs already share; a write is one statement that only ever raises a bound
(``greatest`` in PostgreSQL, ``max`` in SQLite), so two processes proving the same part never lose either proof.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from service.store.db import Database
from service.store.models import BoundPart
from solver.partledger import EXACT_PLIES

NONE = -1
"""``second`` and ``response2`` of a row that has none."""

BATCH = 500
"""Rows per statement."""


@dataclass
class PartBounds:
    """A game's proven part bounds, keyed as :class:`solver.partledger.PartLedger` keys them: (bound, plies)."""

    parts: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    seconds: dict[tuple[int, int, int], tuple[int, int]] = field(default_factory=dict)
    thirds: dict[tuple[int, int, int, int], tuple[int, int]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.parts) + len(self.seconds) + len(self.thirds)

    def rows(self) -> Iterable[tuple[tuple[int, int, int, int], tuple[int, int]]]:
        """Every bound under its four-column key (-1 where the key has no second guess or no response to it)."""
        for (g, r), v in self.parts.items():
            yield (g, r, NONE, NONE), v
        for (g, r, g2), v in self.seconds.items():
            yield (g, r, g2, NONE), v
        for key, v in self.thirds.items():
            yield key, v


class BoundPartStore:
    """Reads and raises the part bounds of the games' bound campaigns."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, game: str, leaves: str) -> PartBounds:
        """Every part bound of ``game`` (a spec).  A bound proven with sets valued another way than ``leaves``
        still holds, but reaches no known depth: its plies are 0 (exact ones stay exact)."""
        out = PartBounds()
        with self.db.session() as session:
            rows = session.execute(select(BoundPart.guess, BoundPart.response, BoundPart.second,
                                          BoundPart.response2, BoundPart.lower, BoundPart.plies,
                                          BoundPart.leaves).where(BoundPart.game == game)).all()
        for g, r, g2, r2, lower, plies, way in rows:
            if way != leaves and plies < EXACT_PLIES:
                plies = 0
            value = (int(lower), int(plies))
            if g2 == NONE:
                out.parts[(g, r)] = value
            elif r2 == NONE:
                out.seconds[(g, r, g2)] = value
            else:
                out.thirds[(g, r, g2, r2)] = value
        return out

    def raise_bounds(self, game: str, bounds: PartBounds, leaves: str, source: str) -> int:
        """Raise the stored bounds of ``game`` to ``bounds`` (a stored bound or plies higher than one given
        stays); returns how many rows were sent.  Each batch is its own transaction: every bound holds on its
        own, so a write cut between batches loses only what it had not sent."""
        now = datetime.now(UTC)
        rows = [{"game": game, "guess": k[0], "response": k[1], "second": k[2], "response2": k[3],
                 "lower": lower, "plies": plies, "leaves": leaves, "source": source[:64], "updated_at": now}
                for k, (lower, plies) in bounds.rows()]
        if not rows:
            return 0
        postgres = self.db.engine.dialect.name == "postgresql"
        insert: Any = pg_insert if postgres else sqlite_insert
        most = func.greatest if postgres else func.max
        for start in range(0, len(rows), BATCH):
            stmt = insert(BoundPart).values(rows[start:start + BATCH])
            incoming = stmt.excluded
            # plies proven with sets valued another way say nothing of this way's (an exact value stays exact)
            comparable = (BoundPart.leaves == incoming.leaves) | (BoundPart.plies >= EXACT_PLIES)
            stmt = stmt.on_conflict_do_update(
                index_elements=["game", "guess", "response", "second", "response2"],
                set_={"lower": most(BoundPart.lower, incoming.lower),
                      "plies": case((comparable, most(BoundPart.plies, incoming.plies)), else_=incoming.plies),
                      "leaves": case((BoundPart.plies >= EXACT_PLIES, BoundPart.leaves), else_=incoming.leaves),
                      "source": incoming.source, "updated_at": incoming.updated_at},
                where=(incoming.lower > BoundPart.lower) | (incoming.plies > BoundPart.plies)
                | ((BoundPart.leaves != incoming.leaves) & (BoundPart.plies < EXACT_PLIES)),
            )
            with self.db.session() as session:
                session.execute(stmt)
        return len(rows)

    def games(self) -> dict[str, int]:
        """The games with part bounds, and how many each has."""
        with self.db.session() as session:
            rows = session.execute(select(BoundPart.game, func.count()).group_by(BoundPart.game)).all()
        return {str(g): int(n) for g, n in rows}

    def forget(self, game: str) -> int:
        """Delete every part bound of ``game`` (tests; an operator starting a game's campaign over)."""
        with self.db.session() as session:
            result: Any = session.execute(delete(BoundPart).where(BoundPart.game == game))
            return int(result.rowcount or 0)
