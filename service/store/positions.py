"""The persistent transposition table: bulk, monotone, concurrency-safe.

Implements :class:`solver.table.TTStore`.  Writes are ``INSERT … ON CONFLICT DO UPDATE … WHERE``
statements (SQLite and PostgreSQL alike), so concurrent writers never lose a row and the database
decides atomically whether the incoming fact is better: an exact value replaces a bound, a higher
lower bound replaces a lower one, and nothing ever replaces an exact value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import and_, false, or_, select, true
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from service.store.db import Database
from service.store.models import Position
from solver.table import Entry, TableKey
from solver.vocabulary import Criterion

BATCH = 500
KEY_COLUMNS = ["game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only", "set_hash", "m",
               "turn_key"]


def set_hash(bitset: bytes) -> int:
    """Signed 64-bit hash of a bitset (fits BIGINT on every backend)."""
    return int.from_bytes(hashlib.blake2b(bitset, digest_size=8).digest(), "little", signed=True)


def game_size(spec: str) -> int:
    """Number of codes of a ``"p,s,r"`` game spec."""
    from solver.game import Game

    return Game.from_spec(spec).size


def _question(key: TableKey) -> dict[str, Any]:
    return {
        "game": key.game,
        "criterion": key.criterion.value,
        "max_guesses": -1 if key.max_guesses is None else key.max_guesses,
        "mde": -1 if key.mde is None else key.mde,
        "heuristic": key.heuristic,
        "from_set_only": key.from_set_only,
    }


def _key_of(row: Position) -> TableKey:
    return TableKey(row.game, Criterion.parse(row.criterion), None if row.max_guesses < 0 else row.max_guesses,
                    None if row.mde < 0 else row.mde, row.heuristic, row.from_set_only)


def _better(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """The upsert's rule in Python: exact beats bound, a higher bound beats a lower one."""
    if old["exact"]:
        return False
    return bool(new["exact"] or (new["value"] is not None and old["value"] is not None
                                 and new["value"] > old["value"]))


class PositionStore:
    """Positions of every question, read and written in bulk."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def close(self) -> None:
        """Close the database's pooled connections."""
        self.db.dispose()

    # -- conversions -----------------------------------------------------------------------------

    @staticmethod
    def row_of(entry: Entry, n_codes: int, source: str) -> dict[str, Any]:
        """Column values of an entry."""
        bitset = entry.bitset(n_codes)
        return {
            **_question(entry.key),
            "set_hash": set_hash(bitset),
            "bitset": bitset,
            "size": len(entry.codes),
            "m": entry.m,
            "turn": entry.turn,
            "turn_key": entry.key.context(entry.turn),
            # "no strategy fits" is final, whatever the flag it was found with
            "exact": entry.exact or entry.value is None,
            "value": entry.value,
            "best_guess": entry.best_guess,
            "cost": entry.cost,
            "source": source[:64],
        }

    @staticmethod
    def entry_of(row: Position, n_codes: int) -> Entry:
        """The entry a row stores."""
        return Entry(
            key=_key_of(row),
            codes=Entry.codes_from_bitset(row.bitset, n_codes),
            m=row.m,
            turn=row.turn,
            exact=row.exact,
            value=row.value,
            best_guess=row.best_guess,
            cost=row.cost,
        )

    # -- writes ------------------------------------------------------------------------------------

    def save_entries(self, entries: Sequence[Entry], source: str = "search", *, atomic: bool = True) -> int:
        """Monotone upsert of ``entries``; returns how many were sent.  ``atomic``: all in one
        transaction (an import: all or nothing); else one per batch of ``BATCH`` rows, which keeps
        SQLite's single writer lock short when a running unit saves tens of thousands of positions
        (every entry is true on its own, so a save cut between batches loses only what it had not
        sent)."""
        if not entries:
            return 0
        sizes: dict[str, int] = {}
        merged: dict[tuple[Any, ...], dict[str, Any]] = {}
        for e in entries:
            if e.key.game not in sizes:
                sizes[e.key.game] = game_size(e.key.game)
            row = self.row_of(e, sizes[e.key.game], source)
            k = tuple(row[c] for c in KEY_COLUMNS)
            # one statement may not touch a row twice (PostgreSQL): keep the better of duplicates
            old = merged.get(k)
            if old is None or _better(row, old):
                merged[k] = row
        rows = list(merged.values())
        insert = pg_insert if self.db.engine.dialect.name == "postgresql" else sqlite_insert
        batches = [rows[start:start + BATCH] for start in range(0, len(rows), BATCH)]
        for group in ([batches] if atomic else [[b] for b in batches]):
            self._upsert(group, insert)
        return len(rows)

    def _upsert(self, batches: list[list[dict[str, Any]]], insert: Any) -> None:
        """The batches' rows in one transaction, each row replacing only worse knowledge."""
        with self.db.session() as session:
            for batch in batches:
                stmt = insert(Position).values(batch)
                incoming = stmt.excluded
                better = and_(
                    Position.exact == false(),
                    or_(incoming.exact == true(), incoming.value > Position.value),
                )
                stmt = stmt.on_conflict_do_update(
                    index_elements=KEY_COLUMNS,
                    set_={
                        "exact": incoming.exact,
                        "value": incoming.value,
                        "best_guess": incoming.best_guess,
                        "cost": incoming.cost,
                        "source": incoming.source,
                        "turn": incoming.turn,
                        "updated_at": incoming.updated_at,
                    },
                    where=better,
                )
                session.execute(stmt)

    # -- reads -------------------------------------------------------------------------------------

    def load_entries(self, key: TableKey) -> list[Entry]:
        """Every stored entry of one question (the warm start of a search)."""
        n = game_size(key.game)
        with self.db.session() as session:
            rows = session.scalars(select(Position).filter_by(**_question(key))).all()
            return [self.entry_of(r, n) for r in rows]

    def lookup(self, key: TableKey, sets: Iterable[tuple[int, ...]], m: int, turn: int
               ) -> dict[tuple[int, ...], Entry]:
        """Stored entries for these exact candidate sets (with ``m`` guesses left), by set."""
        n = game_size(key.game)
        wanted: dict[int, tuple[tuple[int, ...], bytes]] = {}
        for codes in sets:
            probe = Entry(key, codes, m, turn, True, 0, None, 0)
            bits = probe.bitset(n)
            wanted[set_hash(bits)] = (codes, bits)
        if not wanted:
            return {}
        turn_key = key.context(turn)
        out: dict[tuple[int, ...], Entry] = {}
        with self.db.session() as session:
            rows = session.scalars(
                select(Position).filter_by(**_question(key), m=m, turn_key=turn_key)
                .where(Position.set_hash.in_(list(wanted)))
            ).all()
            for row in rows:
                codes, bits = wanted[row.set_hash]
                if row.bitset == bits:  # a 64-bit hash collision must not answer for another set
                    out[codes] = self.entry_of(row, n)
        return out

    def hybrid_questions(self, key: TableKey) -> list[TableKey]:
        """The hybrid questions (``mde`` set) stored for the game, criterion and depth limit of
        ``key``: their exact values are values of real strategies, hence upper bounds of the exact
        question's (how a campaign seeds its exact search with β, the article's way)."""
        q = _question(key)
        with self.db.session() as session:
            rows = session.execute(
                select(Position.mde, Position.heuristic, Position.from_set_only).distinct()
                .where(Position.game == q["game"], Position.criterion == q["criterion"],
                       Position.max_guesses == q["max_guesses"], Position.mde >= 0)
            ).all()
        return [TableKey(key.game, key.criterion, key.max_guesses, int(mde), bool(h), bool(f))
                for mde, h, f in sorted(rows)]

    def iter_rows(self, game: str | None = None, criterion: Criterion | None = None,
                  batch: int = 1000) -> Iterator[Position]:
        """Every stored row (optionally of one game / criterion), in id order, streamed."""
        last = 0
        while True:
            with self.db.session() as session:
                q = select(Position).where(Position.id > last).order_by(Position.id).limit(batch)
                if game is not None:
                    q = q.where(Position.game == game)
                if criterion is not None:
                    q = q.where(Position.criterion == Criterion.parse(criterion).value)
                rows = session.scalars(q).all()
            if not rows:
                return
            yield from rows
            last = rows[-1].id

    def count(self) -> int:
        """Number of stored positions."""
        from sqlalchemy import func

        with self.db.session() as session:
            return int(session.scalar(select(func.count()).select_from(Position)) or 0)
