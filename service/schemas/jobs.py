"""The models of ``/v1/jobs``: a job's question, its progress and units, and its result."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from service.schemas import Query, WaitMs
from service.schemas.moves import JobResult, PositionQuestion


class TreeJobResult(BaseModel):
    """A finished tree job's answer: the whole tree's statistics (the tree itself is then served by
    ``GET /v1/strategies/{game}/{strategy}`` and ``…/tree`` at once)."""

    strategy: str
    value: int = Field(description="Total guesses over every secret, each secret played through the tree.")
    possible: bool
    exact: bool = Field(description="The total is the tree's own, played out (not a claim of optimality).")
    best_guess: str | None = Field(description="The tree's first guess.")
    secrets: int
    average: float | None
    worst_case: int
    histogram: dict[str, int] = Field(description="Secrets by the number of guesses the tree needs for them.")
    nodes: int = Field(description="Nodes of the tree.")
    seconds: float
    candidates: int
    statistics: str = Field(description="Where the tree's statistics are served.")


class BoundJobResult(BaseModel):
    """A finished bound job's answer (a lower-bound campaign, ``bullscows campaign run``): a proven lower bound
    of the game's optimal total, refined ``depth`` plies below the root."""

    value: int = Field(description="The lower bound (every guess counted, over every secret).")
    possible: bool
    exact: bool = Field(description="Always false: a bound, not the optimum.")
    criterion: Literal["total"]
    depth: int
    target: int | None = Field(description="Each first guess was refined only until its bound reached this.")
    parts: list[str] = Field(default_factory=list, description=(
        "Responses whose parts alone were refined under each first guess (empty: every part); the value is then "
        "what those parts' bounds give with the others at their size-only bounds, not the bound at that depth."))
    best_guess: str | None = Field(description="The first guess whose bound is the least (the root's bound).")
    units: int
    work: int = Field(description="Sets refined, over every unit.")
    unit_seconds: float = Field(description="The units' time, summed (their last attempts').")
    seconds: float
    candidates: int


class RolloutJobResult(BaseModel):
    """A finished rollout job's answer (``bullscows campaign run`` of a rollout spec): the subtrees it built below
    its first guess, whose tree the campaign's progress file assembles."""

    value: int = Field(description="Guesses over the secrets of the subtrees built (the first guess included).")
    possible: bool
    exact: bool = Field(description="Always false: a rollout's tree is a strategy, not a proven optimum.")
    first_guess: str | None
    units: int
    skipped: list[str] = Field(description="Responses whose subtrees were built before (the progress file's).")
    secrets: int
    unit_seconds: float
    seconds: float


class PolishJobResult(BaseModel):
    """A finished polish job's answer (``records polish``, ``atlas polish``): what it did to the tree's positions,
    which the polish's progress file keeps and the command replays into the tree it judges."""

    value: int = Field(description="Guesses saved over every secret by the subtrees replaced.")
    possible: bool
    exact: bool = Field(description="Always false: a polished tree is a strategy, not a proven optimum.")
    units: int
    tried: int = Field(default=0, description="Positions searched (those settled before included).")
    improved: int = Field(default=0, description="Subtrees replaced by cheaper ones.")
    optimal: int = Field(default=0, description="Subtrees proven optimal as they were.")
    cut: int = Field(default=0, description="Positions out of time (their children tried instead).")
    gained: int = Field(default=0, description="Guesses saved (the value).")
    resumed: int = Field(default=0, description="Positions taken as settled before, not searched again.")
    unit_seconds: float
    seconds: float


class CheckPart(BaseModel):
    """One part of a check: the optimal guesses of its secrets among strategies that play only possible codes."""

    candidates: int
    value: int = Field(description="Guesses over the part's secrets, every guess counted (the first included).")
    seconds: float = Field(description="Search time, every attempt's and share's.")
    guess: str | None = Field(default=None, description="An optimal second guess of the part.")
    shares: int | None = Field(default=None, description="Units the part's second guesses were shared among.")


class CheckJobResult(BaseModel):
    """A finished check job's answer (``records check``): the optimal total among the strategies that open with
    its first guess and then play only possible codes, part by part."""

    value: int = Field(description="Guesses over the secrets of the parts this job searched.")
    possible: bool
    exact: bool = Field(description="Always true: each part is searched to its optimum.")
    first_guess: str
    shares: int
    parts: dict[str, CheckPart] = Field(description="The parts this job searched, by response to the first guess.")
    known: dict[str, int] = Field(description="The parts solved before (the records file's), not searched again.")
    total: int | None = Field(description=(
        "The game's total (every part, the first guess's own secret included) when the job and the parts known "
        "before cover every part; null otherwise."))
    units: int
    unit_seconds: float
    seconds: float


class ScanJobResult(BaseModel):
    """A finished scan job's answer (``feasible --scan --progress``, the keys of ``feasible --json``): whether every
    candidate of the position can be found within the limit, each guess of the position tried in turn."""

    game: str
    history: list[str]
    candidates: int
    max_guesses: int
    left: int
    possible: bool | None = Field(description="True: a guess keeps the limit; False: none does (proven); null: "
                                              "some were refuted only within ``tries``.")
    answer: Literal["yes", "no", "unknown"]
    guess: str | None = Field(description="The guess that starts a strategy keeping the limit.")
    tries: int | None
    seconds: float
    shares: int
    guesses_tried: int
    unit_seconds: float


class AtlasJobResult(BaseModel):
    """A finished atlas job's answer (``atlas run``): its games' entries are written to the atlas file."""

    value: int = Field(description="Games whose every number is exact.")
    possible: bool
    exact: bool = Field(description="Always false: a count, not a position's value.")
    games: list[str]
    budget_s: float
    units: int
    unit_seconds: float
    seconds: float


class JobIn(PositionQuestion):
    """Submit a long solve as a job (the position and the criterion, as for ``/v1/solve``)."""

    wait_ms: WaitMs = Field(default=0, description="Wait this long for the result before answering 202.")


JobStatus = Literal["queued", "planning", "running", "done", "failed", "cancelled"]


class JobListQuery(Query):
    """Which jobs ``GET /v1/jobs`` lists, newest first."""

    status: JobStatus | None = None
    limit: int = Field(default=50, ge=1, le=200)
    offset: int = Field(default=0, ge=0, le=2**31 - 1)


class JobQuery(Query):
    """What ``GET /v1/jobs/{id}`` shows."""

    units: bool = Field(default=False, description="List the job's units too.")


class JobProgress(BaseModel):
    """How far a job got."""

    phase: int | None = Field(description="The k being searched (k-movers chains), else null.")
    units_total: int
    units_done: int
    units_running: int
    nodes: int
    best_value: int | None = Field(description="Value of the best complete strategy found so far.")
    best_exact: bool = Field(description="Whether best_value is proven optimal.")
    lower_bound: int | None
    eta_seconds: float | None
    fraction: float | None = Field(default=None, description=(
        "Share of the work done, 0 to 1: of the planned units' expected cost for a solve, of the secrets "
        "placed for a tree job; null before planning."))


class JobUnitOut(BaseModel):
    """One unit of a job."""

    id: int
    kind: Literal["root", "part", "guess", "tree", "opt-tree", "bound", "rollout", "polish", "check", "search",
                  "scan", "atlas"]
    status: str
    attempts: int
    first_guess: str | None
    response: str | None
    second_guess: str | None
    share: str | None = Field(default=None, description=(
        "A check, search or scan unit's share of its position's guesses (k/n)."))
    game: str | None = Field(default=None, description="An atlas unit's game (an atlas job computes several).")
    candidates: int
    value: int | None
    exact: bool | None
    beta: int | None
    nodes: int
    seconds: float
    worker: str | None
    checkpoints: int = Field(default=0, description=(
        "How many times the unit saved the positions it had proven while it ran (every "
        "BULLSCOWS_JOB_CHECKPOINT_S seconds), over all its attempts."))
    saved_nodes: int = Field(default=0, description=(
        "The running attempt's node count at its last save: a worker dying loses only the nodes past it."))


class JobOut(BaseModel):
    """A job: its question, status, progress and, once done, its result."""

    id: str
    status: JobStatus
    request: dict[str, object]
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    error: str | None
    result: (JobResult | TreeJobResult | BoundJobResult | RolloutJobResult | PolishJobResult | CheckJobResult
             | ScanJobResult | AtlasJobResult | None)
    progress: JobProgress
    units: list[JobUnitOut] | None = None
    note: str | None = Field(default=None, description=(
        "On a job just accepted (202) while no worker is alive on the service's database: that it waits for one."))


class JobList(BaseModel):
    """Jobs, newest first, and how many workers are alive to run them."""

    jobs: list[JobOut]
    workers_alive: int
