"""Stored strategy trees (the ``strategies`` table): get, and put-if-absent."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from service.store.db import Database
from service.store.models import StrategyTree


def tree_params(max_guesses: int | None, first: int | None) -> str:
    """The canonical text of a tree's parameters, the ``params`` part of its key: the one spelling that
    the requests building a tree and the jobs building it both store and look up."""
    return f"max_guesses={max_guesses};first={first}"


class StrategyStore:
    """Compact trees by (game, strategy, parameters)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, game: str, strategy: str, params: str) -> str | None:
        """The compact text of a stored tree, if any."""
        with self.db.session() as session:
            row = session.scalars(select(StrategyTree).filter_by(game=game, strategy=strategy, params=params)).first()
            return None if row is None else row.tree

    def put(self, game: str, strategy: str, params: str, tree: str, total: int, nodes: int, exact: bool) -> None:
        """Store a tree unless one is already there (trees of one question are interchangeable)."""
        insert = pg_insert if self.db.engine.dialect.name == "postgresql" else sqlite_insert
        stmt = insert(StrategyTree).values(game=game, strategy=strategy, params=params, tree=tree, total=total,
                                           nodes=nodes, exact=exact)
        with self.db.session() as session:
            session.execute(stmt.on_conflict_do_nothing(index_elements=["game", "strategy", "params"]))
