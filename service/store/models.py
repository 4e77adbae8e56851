"""SQLAlchemy models.  The schema itself is created by the Alembic migrations, never ``create_all``.

``positions`` holds the article's hash-table item: the question (game, criterion and its depth
limit, ``mde``, heuristic and from-set-only flags), the candidate set as a bitset with a 64-bit hash
for lookup, the guesses left when it was computed (``m``, 64 = unlimited) and the turn (part of the
key for hybrid questions, whose values depend on it), whether the value is exact or a lower bound,
the turn-independent value (NULL = no strategy fits), the best guess, the search cost, provenance
and timestamps.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base of the store's models."""


class Position(Base):
    """One solved (or bounded) candidate set for one question."""

    __tablename__ = "positions"
    __table_args__ = (
        UniqueConstraint("game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only",
                         "set_hash", "m", "turn_key", name="uq_positions_key"),
        Index("ix_positions_question", "game", "criterion", "max_guesses", "mde", "heuristic",
              "from_set_only"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    criterion: Mapped[str] = mapped_column(String(16))
    max_guesses: Mapped[int] = mapped_column(Integer)
    """Depth limit of the whole game, -1 = unlimited."""
    mde: Mapped[int] = mapped_column(Integer)
    """Last exact turn of a hybrid, -1 = exact."""
    heuristic: Mapped[bool] = mapped_column(Boolean)
    from_set_only: Mapped[bool] = mapped_column(Boolean)
    set_hash: Mapped[int] = mapped_column(BigInteger)
    """Signed 64-bit hash of the bitset (blake2b), for lookup."""
    bitset: Mapped[bytes] = mapped_column(LargeBinary)
    size: Mapped[int] = mapped_column(Integer)
    m: Mapped[int] = mapped_column(Integer)
    turn: Mapped[int] = mapped_column(Integer)
    turn_key: Mapped[int] = mapped_column(Integer)
    """The turn for hybrid questions, 0 otherwise (values of exact questions do not depend on it)."""
    exact: Mapped[bool] = mapped_column(Boolean)
    value: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    best_guess: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cost: Mapped[int] = mapped_column(BigInteger)
    source: Mapped[str] = mapped_column(String(64))
    """Provenance: ``search`` (this service), ``import:<token label>``…"""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)


class StrategyTree(Base):
    """A whole strategy tree built by the service, kept so that no process builds it twice."""

    __tablename__ = "strategies"
    __table_args__ = (UniqueConstraint("game", "strategy", "params", name="uq_strategies_key"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    strategy: Mapped[str] = mapped_column(String(32))
    params: Mapped[str] = mapped_column(String(128))
    """Canonical text of the parameters (max_guesses, first guess)."""
    tree: Mapped[str] = mapped_column(Text)
    """The compact form (solver.tree.to_compact), verified again when loaded."""
    total: Mapped[int] = mapped_column(BigInteger)
    nodes: Mapped[int] = mapped_column(Integer)
    exact: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
