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

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
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


class Job(Base):
    """A long solve, durable: its request, plan, progress and result live here, not in any process.

    Statuses: ``queued`` (waiting for a worker to plan it), ``planning`` (a worker is cutting it into
    units), ``running``, then ``done``, ``failed`` or ``cancelled``.
    """

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status", "status"), Index("ix_jobs_request_hash", "request_hash"),
                      Index("ix_jobs_submitted_by_status", "submitted_by", "status"))

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    request: Mapped[str] = mapped_column(Text)
    """Canonical JSON of the question (game, history as code numbers, criterion and options)."""
    request_hash: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    phase: Mapped[int] = mapped_column(Integer, default=0)
    """The k of the k-movers chain being searched (0 for totals)."""
    plan: Mapped[str | None] = mapped_column(Text, nullable=True)
    """JSON: the guesses of the root, their parts, and the values of the parts solved while planning."""
    units_total: Mapped[int] = mapped_column(Integer, default=0)
    units_done: Mapped[int] = mapped_column(Integer, default=0)
    nodes: Mapped[int] = mapped_column(BigInteger, default=0)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    submitted_by: Mapped[str] = mapped_column(String(64))
    planner: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)


class JobUnit(Base):
    """One sub-problem of a job: a whole position (``root``, ``part``) or one guess in it (``guess``).

    A unit is claimed with a fresh ``lease``; only the holder of the current lease may record its
    result, so a unit re-queued after its worker vanished is never recorded twice.
    """

    __tablename__ = "job_units"
    __table_args__ = (
        Index("ix_job_units_job_status", "job_id", "status"),
        Index("ix_job_units_status_priority", "status", "priority"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    job_id: Mapped[str] = mapped_column(String(32), ForeignKey("jobs.id", ondelete="CASCADE"))
    phase: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    g1: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[int | None] = mapped_column(Integer, nullable=True)
    g2: Mapped[int | None] = mapped_column(Integer, nullable=True)
    history: Mapped[str] = mapped_column(Text)
    """JSON list of [guess, response] code numbers: the position this unit searches."""
    size: Mapped[int] = mapped_column(Integer)
    lower_bound: Mapped[int] = mapped_column(BigInteger)
    expected_cost: Mapped[int] = mapped_column(BigInteger)
    priority: Mapped[int] = mapped_column(BigInteger)
    """Claim order, highest first."""
    beta: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    value: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    exact: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    possible: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    best_guess: Mapped[int | None] = mapped_column(Integer, nullable=True)
    per_response: Mapped[str | None] = mapped_column(Text, nullable=True)
    """JSON {response: game-level value} of a whole-position unit's best guess."""
    nodes: Mapped[int] = mapped_column(BigInteger, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease: Mapped[str | None] = mapped_column(String(32), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    checkpoints: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many times the unit saved its proven positions while it ran (over all its attempts)."""
    saved_nodes: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    """The running attempt's node count when it last saved: a killed attempt lost the nodes past it."""
    output: Mapped[str | None] = mapped_column(Text, nullable=True)
    """What a unit made beyond its value: a rollout unit's subtree (compact text)."""


class BoundPart(Base):
    """A proven lower bound of a part of a game's root, as a bound campaign proves it
    (:class:`solver.partledger.PartLedger`'s three kinds of keys in one table).

    ``second`` is -1 for a root part (first guess, response), else the second guess under which the part's
    total is bounded; ``response2`` is -1 but for a part below that second guess.  ``plies`` are those whose
    full bound the row is known to reach (0: a cut refinement's; ``solver.partledger.EXACT_PLIES``: exact), when
    sets are valued the way ``leaves`` names (``solver.lowerbound.LEAVES``; another way's plies count for
    nothing, its bound still holds).  Neither ``lower`` nor ``plies`` ever falls."""

    __tablename__ = "bound_parts"
    __table_args__ = (UniqueConstraint("game", "guess", "response", "second", "response2",
                                       name="uq_bound_parts_key"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    guess: Mapped[int] = mapped_column(Integer)
    response: Mapped[int] = mapped_column(Integer)
    second: Mapped[int] = mapped_column(Integer)
    response2: Mapped[int] = mapped_column(Integer)
    lower: Mapped[int] = mapped_column(BigInteger)
    plies: Mapped[int] = mapped_column(Integer)
    leaves: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class PolishPosition(Base):
    """How a polish settled one position of the tree it polishes (:mod:`service.polishes`): a polish job's units
    write each position here as soon as it is settled, so that a worker killed mid-unit loses only the position
    it was searching, and a unit run again (on any machine) takes every position settled before as it was.

    ``polish`` names the polish (the game, the digest of the tree it started from and its parameters: a
    position's outcome means nothing under another tree or budget); ``position`` is the position's key
    (:func:`solver.polish.position_key`).  ``subtree`` is the replacement of an improved position (compact text),
    ``sweep`` what a sweep cut there had proven (JSON), as the progress file keeps them."""

    __tablename__ = "polish_positions"
    __table_args__ = (UniqueConstraint("polish", "position", name="uq_polish_positions_key"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    polish: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(32))
    position: Mapped[str] = mapped_column(String(512))
    outcome: Mapped[str] = mapped_column(String(16))
    seconds: Mapped[float] = mapped_column(Float)
    subtree: Mapped[str | None] = mapped_column(Text, nullable=True)
    sweep: Mapped[str | None] = mapped_column(Text, nullable=True)
    source: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class WorkerRow(Base):
    """A ``bullscows worker`` process, with a heartbeat (so clients can tell whether any is alive)."""

    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    host: Mapped[str] = mapped_column(String(128))
    pid: Mapped[int] = mapped_column(Integer)
    processes: Mapped[int] = mapped_column(Integer)
    scheduler: Mapped[str | None] = mapped_column(String(256), nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ClaimRow(Base):
    """Work that one process at a time may drive (a steps campaign), held by the process named, which renews
    ``beat_at`` while it holds it (:mod:`service.store.claims`)."""

    __tablename__ = "claims"

    name: Mapped[str] = mapped_column(String(256), primary_key=True)
    holder: Mapped[str] = mapped_column(String(128))
    host: Mapped[str] = mapped_column(String(128))
    pid: Mapped[int] = mapped_column(Integer)
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    beat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ApiToken(Base):
    """A bearer token for writes.  Only its SHA-256 is stored: the token itself is shown once, when
    it is made (``bullscows tokens create``), and a database leak does not give it away."""

    __tablename__ = "api_tokens"
    __table_args__ = (UniqueConstraint("name", name="uq_api_tokens_name"),
                      UniqueConstraint("token_hash", name="uq_api_tokens_hash"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(128))
    """Comma-separated: ``import`` (POST /v1/positions), ``jobs`` (jobs beyond the free budget)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
