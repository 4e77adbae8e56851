"""The ``polish_positions`` table: how each position of a polish was settled, as its units settle them.

Why a table and not the progress file alone: a polish job's units run in any process of any machine sharing the
database, and each writes a position the moment it is settled (a search of minutes must not be lost with its
worker); the file is written from here by the command that follows the job (:mod:`service.polishes`).  An entry
has the progress file's shape (``outcome``, ``seconds``, and ``tree`` or ``sweep`` when it has them), so the two
forms convert one to one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from service.store.db import Database
from service.store.models import PolishPosition

BATCH = 500
"""Rows per statement."""


class PolishPositionStore:
    """Reads and writes the settled positions of the polishes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, polish: str) -> dict[str, dict[str, Any]]:
        """Every position the polish ``polish`` (its identity) has settled, by key, as the progress file keeps it."""
        with self.db.session() as session:
            rows = session.execute(select(PolishPosition).where(PolishPosition.polish == polish)).scalars().all()
            return {row.position: _entry(row) for row in rows}

    def put(self, polish: str, game: str, entries: dict[str, dict[str, Any]], source: str, *,
            replace: bool = True) -> int:
        """Write ``entries`` (by position key, in the progress file's shape) to the polish ``polish``; with
        ``replace`` False a position the table has already keeps its entry (a file taken in never overwrites what a
        unit settled since).  Returns how many rows were sent; each batch is its own transaction."""
        now = datetime.now(UTC)
        rows = [{"polish": polish, "game": game, "position": key, "outcome": str(e["outcome"]),
                 "seconds": float(e["seconds"]), "subtree": e.get("tree"),
                 "sweep": None if e.get("sweep") is None else orjson.dumps(e["sweep"]).decode(),
                 "source": source[:64], "updated_at": now} for key, e in entries.items()]
        insert: Any = pg_insert if self.db.engine.dialect.name == "postgresql" else sqlite_insert
        for start in range(0, len(rows), BATCH):
            stmt = insert(PolishPosition).values(rows[start:start + BATCH])
            if replace:
                incoming = stmt.excluded
                stmt = stmt.on_conflict_do_update(
                    index_elements=["polish", "position"],
                    set_={"outcome": incoming.outcome, "seconds": incoming.seconds, "subtree": incoming.subtree,
                          "sweep": incoming.sweep, "source": incoming.source, "updated_at": incoming.updated_at})
            else:
                stmt = stmt.on_conflict_do_nothing(index_elements=["polish", "position"])
            with self.db.session() as session:
                session.execute(stmt)
        return len(rows)

    def forget(self, polish: str) -> int:
        """Delete every position of the polish ``polish`` (tests; an operator starting a polish over)."""
        with self.db.session() as session:
            result: Any = session.execute(delete(PolishPosition).where(PolishPosition.polish == polish))
            return int(result.rowcount or 0)


def _entry(row: PolishPosition) -> dict[str, Any]:
    entry: dict[str, Any] = {"outcome": row.outcome, "seconds": float(row.seconds)}
    if row.subtree is not None:
        entry["tree"] = row.subtree
    if row.sweep is not None:
        entry["sweep"] = orjson.loads(row.sweep)
    return entry
