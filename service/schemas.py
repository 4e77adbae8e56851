"""Request and response models of the HTTP API (pydantic v2; the OpenAPI document comes from them).

Every bound a request is held to is stated here, and the OpenAPI document shows the bound that is
enforced: a fixed bound is a ``Field`` constraint; a bound that is a setting of the deployment
(``BULLSCOWS_MAX_HISTORY``, ``…_MAX_TIME_BUDGET_MS``, ``…_MAX_WAIT_MS``) is checked against the settings
of the app serving the request (:func:`at_most_setting`), and :func:`document_bounds` writes the same
value into that app's document.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from flask import current_app, has_app_context
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from service.config import Settings
from solver.game import Family
from solver.vocabulary import DEFAULT_STRATEGY, MMAX, SOURCE_MEANINGS, Criterion, Source, StrategyName

SETTING = "x-setting"
"""The OpenAPI extension naming the setting a bound comes from (its value is the bound)."""
MAX_CODES = "x-max-codes"
"""The OpenAPI extension of the game object: how many codes a game may have (``BULLSCOWS_MAX_CODES``)."""


def setting(name: str) -> int:
    """A limit setting as the app serving the request has it (the default outside a request)."""
    if has_app_context():
        return int(getattr(current_app.config["SETTINGS"], name))
    return int(Settings.model_fields[name].default)


def at_most_setting(name: str, unit: str = "") -> AfterValidator:
    """The check of a bound that is the setting ``name``: a number at most it, or a list of at most
    that many items; a value past it is refused (422) rather than cut down to it."""
    env = "BULLSCOWS_" + name.upper()

    def check(value: Any) -> Any:
        if value is None:
            return value
        size = len(value) if isinstance(value, list) else int(value)
        limit = setting(name)
        if size > limit:
            words = f"have at most {limit} {unit}" if isinstance(value, list) else f"be at most {limit}"
            raise PydanticCustomError("setting_bound", "must {words} (the service's {env}), got {got}",
                                      {"words": words, "env": env, "got": size})
        return value

    return AfterValidator(check)


def _bounded_by(name: str) -> dict[str, Any]:
    return {SETTING: name}


def document_bounds(spec: dict[str, Any], settings: Settings) -> None:
    """Write into an OpenAPI document the bounds that are settings, as ``settings`` has them: every
    schema marked ``x-setting`` gets its ``maximum`` (a number) or ``maxItems`` (a list), and the game
    object says how many codes it may have (``x-max-codes``)."""
    def visit(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get(SETTING), str):
            limit = int(getattr(settings, node[SETTING]))
            for target in [node, *node.get("anyOf", [])]:
                if target.get("type") == "array":
                    target["maxItems"] = limit
                elif target.get("type") == "integer":
                    target["maximum"] = limit
        if MAX_CODES in node:
            node[MAX_CODES] = settings.max_codes
            node["description"] = (f"A game given by its parameters instead of a preset name: at most "
                                   f"{settings.max_codes} codes (the service's BULLSCOWS_MAX_CODES; a larger game "
                                   "is refused with /problems/game-too-large).")
        for value in node.values():
            visit(value)

    visit(spec)


class GameSpec(BaseModel):
    """A game given by its parameters instead of a preset name."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={MAX_CODES: None})
    positions: int = Field(ge=1, le=15, description="Places in a code.")
    symbols: int = Field(ge=1, le=62, description="Symbols available.")
    repetition: bool = Field(description="Whether a code may repeat a symbol.")
    alphabet: str | None = Field(default=None, max_length=62, description="Characters of the symbols.")


class TurnIn(BaseModel):
    """One turn of a history."""

    model_config = ConfigDict(extra="forbid", strict=True)
    guess: str = Field(min_length=1, max_length=15)
    bulls: int = Field(ge=0, le=15)
    cows: int = Field(ge=0, le=15)


Game = str | GameSpec
"""A preset name (``bulls-cows``, ``mastermind``, or ``"4,6,1"``) or a :class:`GameSpec`."""
HistoryItem = TurnIn | str
"""A turn object, or the short form ``"0123 0.1"``."""
History = Annotated[list[HistoryItem], Field(description=(
    "The turns played so far, oldest first; at most the service's BULLSCOWS_MAX_HISTORY."),
    json_schema_extra=_bounded_by("max_history")), at_most_setting("max_history", "turns")]
TimeBudget = Annotated[int | None, Field(ge=1, json_schema_extra=_bounded_by("max_time_budget_ms")),
                       at_most_setting("max_time_budget_ms")]
"""Milliseconds of wall-clock time, at most the service's BULLSCOWS_MAX_TIME_BUDGET_MS (null: its default)."""
WaitMs = Annotated[int | None, Field(ge=0, json_schema_extra=_bounded_by("max_wait_ms")),
                   at_most_setting("max_wait_ms")]
"""Milliseconds to wait for a job, at most the service's BULLSCOWS_MAX_WAIT_MS."""
MAX_GUESSES_RULE = (
    "Guesses allowed in the whole game (the k of optimal-kmovers and of the kmovers criterion). Without it, "
    "optimal-kmovers and kmovers play within the game's proven smallest worst case when the service knows it "
    "(the atlas's games and the presets), and are refused with /problems/max-guesses-needed otherwise; a total "
    "without it has no depth limit. One-step strategies take none. Answers echo the value used.")
MaxGuesses = Annotated[int | None, Field(ge=1, le=MMAX - 1, description=MAX_GUESSES_RULE)]

SOURCE_DOC = "Which step of the answer chain answered: " + "; ".join(f"{k}: {v}" for k, v in SOURCE_MEANINGS.items())


class NextMoveIn(BaseModel):
    """Ask for the next guess."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: Game = "bulls-cows"
    history: History = Field(default_factory=list)
    strategy: StrategyName = DEFAULT_STRATEGY
    max_guesses: MaxGuesses = None
    time_budget_ms: TimeBudget = Field(default=None, description=(
        "Wall-clock budget (default and maximum: the service's settings). Optimal strategies search "
        "within it, then fall back to their heuristic; one-step strategies stop scoring at it and "
        "answer with the best guess scored so far (with a `note`)."))
    seed: int = Field(default=0, ge=0, le=2**31 - 1, description="Seed of random-consistent.")
    from_set_only: bool = Field(default=False, description="One-step strategies: only guess codes still possible.")
    job: bool = Field(default=False, description=(
        "Optimal strategies: when the budget cuts the search short, hand the question to a job that finishes it "
        "(or join the job already on it): its id in `job`, its address in `job_url` and the `Location` header. "
        "Never done unless asked."))


class MoveValue(BaseModel):
    """Guesses still needed from here, when known."""

    expected: float | None = Field(description="Average guesses still needed, this one included.")
    worst_case: int | None = Field(description="Most guesses still needed, when known.")


class NextMoveOut(BaseModel):
    """The next guess."""

    guess: str | None = Field(description="The next guess; null when the history already ends in a win.")
    guess_number: int | None = Field(description=(
        "Which guess of the game this is (the history's length + 1); null when the game is finished."))
    candidates: int
    candidate_list: list[str] | None
    solved: bool = Field(description="Whether the secret is known: one candidate is left.")
    finished: bool = Field(description=(
        "Whether the history already ends in the winning response: the game is over, there is no next guess."))
    secret: str | None = Field(description="The secret, when it is known (one candidate left).")
    guesses: int | None = Field(description="How many guesses the finished game took; null while it goes on.")
    consistent: bool | None = Field(description=(
        "Whether the guess is still a possible secret; null when there is no guess."))
    exact: bool
    value: MoveValue
    source: Source = Field(description=SOURCE_DOC)
    strategy: str
    max_guesses: int | None = Field(default=None, description=(
        "The depth limit the move was chosen under (the default of optimal-kmovers when none was asked); "
        "null: none (optimal-total without a limit, one-step strategies)."))
    score: float | None = Field(default=None, description="A one-step strategy's score of the guess.")
    elapsed_ms: float
    note: str | None = Field(default=None, description=(
        "Why the answer is not the strategy's own: an optimal strategy answered by its heuristic, or a "
        "scan stopped by the budget."))
    job: str | None = Field(default=None, description=(
        "The job finishing an optimal question the budget cut short, when the request asked for one (`job: true`); "
        "the same question is answered exactly from the cache once it is done, and is never queued twice."))
    job_url: str | None = Field(default=None, description="Where to follow that job.")


class PositionQuestion(BaseModel):
    """A position and the criterion to solve it under (shared by ``/v1/solve`` and ``/v1/jobs``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: Game = "bulls-cows"
    history: History = Field(default_factory=list)
    criterion: Criterion = "total"
    max_guesses: MaxGuesses = None
    depth_count: int | None = Field(default=None, ge=1, le=MMAX - 1)
    mde: int | None = Field(default=None, ge=0, le=MMAX - 1)
    from_set_only: bool = False


class SolveIn(PositionQuestion):
    """Ask for the value of a position."""

    upper_bound: int | None = Field(default=None, ge=0)
    guess: str | None = Field(default=None, max_length=15, description="Evaluate this guess instead.")
    time_budget_ms: TimeBudget = Field(default=None, description="Search budget of the synchronous attempt.")
    job: bool = Field(default=True, description="Past the budget, continue as a job (202 + Location) instead of "
                                                "answering complete: false.")
    wait_ms: WaitMs = Field(default=None, description="How long to wait for that job before answering 202.")
    search: bool = Field(default=False, description=(
        "Search from nothing, as `bullscows solve --search`: no proven tree, no shipped knowledge, no table "
        "(to measure a search, or to have a job prove the position again)."))


class ExplainIn(BaseModel):
    """Ask why a guess: how it splits the candidates of a position, and its value next to the optimum."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: Game = "bulls-cows"
    history: History = Field(default_factory=list)
    guess: str = Field(min_length=1, max_length=15, description=(
        "Any code of the game, a possible secret or not (the guess to explain)."))
    criterion: Criterion = Field(default="total", description="What the optimal values count (as for /v1/solve).")
    max_guesses: MaxGuesses = None
    time_budget_ms: TimeBudget = Field(default=None, description=(
        "Wall-clock budget of the searches of the optimal values (default and maximum: the service's settings); "
        "what it does not reach is left out, with a note. Never a job."))


class ExplainPart(BaseModel):
    """The candidates that would give one response to the guess."""

    response: str = Field(description="'bulls.cows'.")
    bulls: int
    cows: int
    words: str = Field(description=(
        "The response in the game's family's words: '1 bull, 2 cows', or '1 black, 2 white' for the mastermind "
        "family (games with repetition)."))
    candidates: int


class PositionValueOut(BaseModel):
    """The position's optimal value, with the game's every guess counted (the history's too), as /v1/solve."""

    value: int | None = Field(description="Null: no strategy solves every secret within max_guesses.")
    average: float | None = Field(description="Total criterion: the value over the candidates; null for kmovers.")
    best_guess: str | None = Field(description="A guess that reaches the value.")


class GuessValueOut(BaseModel):
    """The guess's own value: the best play after it, counted as the position's value is."""

    value: int | None = Field(description="Null: after this guess no strategy solves every secret within "
                                          "max_guesses.")
    average: float | None
    is_best: bool | None = Field(description=(
        "Whether the guess is optimal here (its value is the position's; other guesses may tie with it)."))
    source: Source = Field(description=SOURCE_DOC)


class ExplainOptimal(BaseModel):
    """What optimal play is worth here, when the service can know it within the budget (never by a job)."""

    criterion: Criterion
    max_guesses: int | None = Field(description="The depth limit used (the kmovers default when none was asked).")
    position: PositionValueOut | None = Field(description="Null when not known (then `note` says why).")
    guess: GuessValueOut | None = Field(description="Null when not known (then `note` says why).")
    source: Source | None = Field(description="Which step of the answer chain gave the position's value.")
    note: str | None = Field(description="Why a value is missing, in plain words; null when both are known.")


class ExplainOut(BaseModel):
    """How a guess splits the candidates, and its value next to the optimum."""

    game: str
    family: Family = Field(description="As in GET /v1/games/{game}: how the game's responses are worded.")
    guess: str
    guess_number: int = Field(description="Which guess of the game it would be: the history's length + 1.")
    candidates: int = Field(description="Secrets still possible after the history.")
    is_candidate: bool = Field(description="Whether the guess is one of them (it may win at once).")
    parts: list[ExplainPart] = Field(description="One per response some candidate gives, the largest first, ties "
                                                 "by response; the sizes add up to `candidates`.")
    part_count: int
    largest: int = Field(description="The largest part: the candidates left in the worst case.")
    expected_size: float = Field(description="The part the secret falls in, on average: sum of size^2 / candidates.")
    entropy_bits: float = Field(description="What the response tells on average, in bits.")
    optimal: ExplainOptimal


class JobResult(BaseModel):
    """The value of a position (same keys as ``bullscows solve --json``); a finished job's answer."""

    value: int | None
    possible: bool
    exact: bool
    best_guess: str | None
    per_response: dict[str, int | None]
    nodes: int
    seconds: float
    candidates: int
    movers: int | None
    chain: dict[str, int | None]


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


class SolveOut(JobResult):
    """The value of a position and where it came from."""

    source: Source = Field(description=SOURCE_DOC)
    max_guesses: int | None = Field(default=None, description=(
        "The depth limit the position was solved under (the kmovers default when none was asked); null: none."))
    complete: bool = Field(description="False when the time budget ran out before the search ended.")
    job: str | None = Field(default=None, description="The job that computed the answer (source job).")


class JobIn(PositionQuestion):
    """Submit a long solve as a job (the position and the criterion, as for ``/v1/solve``)."""

    wait_ms: WaitMs = Field(default=0, description="Wait this long for the result before answering 202.")


class TreeBuildIn(BaseModel):
    """Ask for a whole strategy tree, built by a job when it is too big for a request."""

    model_config = ConfigDict(extra="forbid", strict=True)
    max_guesses: MaxGuesses = None
    wait_ms: WaitMs = Field(default=0, description="Wait this long for the job before answering 202.")


class Query(BaseModel):
    """Query parameters: given as text, read as the types below (``"5"`` is 5; ``"abc"`` is refused, never
    read as nothing), and only the parameters of the call."""

    model_config = ConfigDict(extra="forbid")


TreeFormat = Literal["json", "lengths"]
"""How ``…/tree`` writes a tree (:class:`TreePartQuery`'s ``format``)."""


class TreeQuery(Query):
    """Which tree of a strategy ``GET /v1/strategies/{game}/{strategy}`` asks for."""

    max_guesses: MaxGuesses = None
    first: str | None = Field(default=None, min_length=1, max_length=15, description=(
        "Force this first guess (the strategy's own after it)."))


class TreePartQuery(TreeQuery):
    """Which part of a tree ``…/tree`` answers: all of it, or the nodes under a path to a depth."""

    path: str | None = Field(default=None, max_length=2000, description=(
        "Turns from the root, each the tree's guess and a response: '0123 0.1, 4567 1.2'."))
    depth: int | None = Field(default=None, ge=1, le=8, description=(
        "Levels of children to include below the path's node (default 1 when path is given)."))
    format: TreeFormat = Field(default="json", description=(
        "json: the nested tree (or its part); lengths: text/plain, one 'CODE LENGTH' line per secret the tree "
        "plays, by code (LENGTH: the guesses it takes, the last one included), after '#' lines saying the game, "
        "the strategy, the total, the average and the worst case: the form `bullscows records compare --steps` "
        "reads. Lengths are the whole tree's: not with path or depth."))
    download: bool = Field(default=False, description=(
        "Answer with Content-Disposition: attachment and a file name (<game>-<strategy>.json, or "
        "<game>-<strategy>-lengths.txt), for a browser to save."))

    @field_validator("format")
    @classmethod
    def _whole_tree_only(cls, value: str, info: ValidationInfo) -> str:
        if value == "lengths" and (info.data.get("path") is not None or info.data.get("depth") is not None):
            raise PydanticCustomError("lengths_whole_tree", "lengths are the whole tree's: ask without path and "
                                                            "depth, or with format json")
        return value


JobStatus = Literal["queued", "planning", "running", "done", "failed", "cancelled"]


class JobListQuery(Query):
    """Which jobs ``GET /v1/jobs`` lists, newest first."""

    status: JobStatus | None = None
    limit: int = Field(default=50, ge=1, le=200)
    offset: int = Field(default=0, ge=0, le=2**31 - 1)


class JobQuery(Query):
    """What ``GET /v1/jobs/{id}`` shows."""

    units: bool = Field(default=False, description="List the job's units too.")


class PositionsQuery(Query):
    """Filters of the positions export."""

    game: str | None = Field(default=None, max_length=100, description="A preset or 'positions,symbols,repetition'.")
    criterion: Criterion | None = None


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
    kind: Literal["root", "part", "guess", "tree", "opt-tree"]
    status: str
    attempts: int
    first_guess: str | None
    response: str | None
    second_guess: str | None
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
    result: JobResult | TreeJobResult | None
    progress: JobProgress
    units: list[JobUnitOut] | None = None
    note: str | None = Field(default=None, description=(
        "On a job just accepted (202) while no worker is alive on the service's database: that it waits for one."))


class JobList(BaseModel):
    """Jobs, newest first, and how many workers are alive to run them."""

    jobs: list[JobOut]
    workers_alive: int


class AtlasNumber(BaseModel):
    """One number of the atlas: proven exactly, or bracketed by proven bounds."""

    label: str
    value: int | None = Field(description="The exact value; null while only bounds are proven.")
    exact: bool
    lower: int = Field(description="A proven lower bound (the value when exact).")
    upper: int | None = Field(description="A proven upper bound (the value when exact); null when none is known.")


class RolloutInfo(BaseModel):
    """Where a tree tries several guesses, each completed by the hybrid, and plays the cheapest."""

    width: int = Field(description="Guesses tried at each such position besides the hybrid's own (best by entropy).")
    from_turn: int = Field(description="The first guess number rolled out.")
    levels: int = Field(description="The last guess number rolled out.")
    min_size: int = Field(description="Only positions of more candidates than this are rolled out.")
    max_guesses: int | None = Field(default=None, description=(
        "When set, the rollout minimised the secrets needing more guesses than this first, then the total."))


class HybridInfo(BaseModel):
    """How a hybrid tree plays: a one-step strategy on big sets, the optimal total's guess on small ones."""

    above: str = Field(description="The one-step strategy played at positions of more than exact_at_most candidates.")
    exact_at_most: int = Field(description="Positions of at most this many candidates play the optimal guess.")
    rollout: RolloutInfo | None = Field(default=None, description=(
        "When the tree rolls the hybrid out at its top positions (solver.rollout); null for the plain hybrid."))


class BestKnown(BaseModel):
    """The best strategy tree known of a game whose optimal total is not proven: a strategy played
    through every secret, so its numbers are proven upper bounds, but not proven optimal."""

    strategy: str = Field(description="The strategy, as /v1/strategies names it.")
    name: str = Field(description="A short name for people, derived from how the tree plays (its `hybrid`).")
    total: int
    worst_case: int
    movers: int = Field(description="Secrets its tree solves at its worst case.")
    proven_optimal: bool = Field(description="Always false: proven optima are the atlas's exact numbers.")
    hybrid: HybridInfo | None = Field(default=None, description=(
        "For strategy 'best-known': the hybrid its shipped tree plays; null for a one-step strategy."))


class LowerBoundInfo(BaseModel):
    """How an unsolved game's lower bound of T was proven (`bullscows atlas bounds`)."""

    value: int = Field(description="T is at least this (so is T_W).")
    depth: int = Field(description="Plies refined below the root with every guess's real partition.")
    size_only: int = Field(description="The bound from the number of codes and responses alone, before.")
    finished: bool = Field(default=True, description=(
        "False: an unfinished campaign's bound, from the root parts it has proven so far (each refined up to "
        "depth - 1 plies below its first guess); the same command continues it."))
    seconds: float
    command: str
    machine: str


class AtlasOut(BaseModel):
    """What optimal play is worth in this game, as computed by `bullscows atlas run` and shipped."""

    total: AtlasNumber
    worst_case: AtlasNumber
    total_within_worst_case: AtlasNumber
    total_depth: AtlasNumber
    worst_case_movers: AtlasNumber
    average: float | None = Field(description="The optimal total divided by the number of codes, when exact.")
    seconds: float = Field(description="Wall-clock time the atlas spent on the game (see `machine`).")
    machine: str
    command: str = Field(description="The command that recomputes the entry from an empty table.")
    best_known: BestKnown | None = Field(default=None, description=(
        "While the total is not proven: the best one-step strategy's tree, whose numbers are the upper "
        "bounds; null once the total is exact (the optimal trees are then shipped)."))
    lower_bound: LowerBoundInfo | None = Field(default=None, description=(
        "While the total is not proven: how its lower bound was proven, when refined by `bullscows atlas "
        "bounds`; null otherwise."))


class PublishedStrategy(BaseModel):
    """A strategy published elsewhere for a records game, as its source states it (cited, not computed)."""

    total: int | None = Field(description="Guesses over every secret, when the source gives it.")
    average: float | None = Field(default=None, description="The average, when the source gives only that.")
    worst_case: int | None
    first_guess: str | None
    how: str
    source: str


class RecordTree(BaseModel):
    """This project's best strategy tree of a records game: played through every secret when it was built
    and again when it is loaded, so its numbers are proven upper bounds of the optimum, not the optimum."""

    strategy: str = Field(description="How the tree chooses: a one-step strategy above a size, exact below (in "
                                      "full: every rollout, polish and graft that made it).")
    name: str = Field(description="A short name for people, derived from how the tree plays.")
    total: int
    average: float
    worst_case: int
    first_guess: str
    tree: str = Field(description="The strategy name it is served under: /v1/strategies/{game}/best-known, and "
                                  "next-move's answers while a history follows it.")
    proven_optimal: bool = Field(description="Always false: nobody has solved these games exactly.")
    seconds: float = Field(description="Wall-clock seconds of the command that built it (one process, `machine`).")
    command: str = Field(description="The command that builds it from nothing.")
    machine: str


class RecordBound(BaseModel):
    """A proven lower bound of a records game's optimal total."""

    value: int = Field(description="No strategy needs fewer guesses over every secret.")
    criterion: Literal["total"] = Field(description="What it bounds: the total, with no depth limit (so also "
                                                    "the total within any depth limit).")
    depth: int = Field(description="Plies refined below the root with every guess's real partition.")
    size_only: int = Field(description="The bound from the number of codes and responses alone.")
    finished: bool = Field(default=True, description=(
        "False: an unfinished campaign's bound, from the root parts it has proven so far (each refined up to "
        "depth - 1 plies below its first guess); the same command continues it."))
    seconds: float
    command: str = Field(description="The command that proves it from nothing.")
    machine: str


class RecordCheck(BaseModel):
    """This project's recomputation of a published figure of a records game (`bullscows records check`): the
    same kind of strategy searched exactly, one part of the published first guess at a time."""

    how: str = Field(description="The published strategy's kind, as its row says (`published[].how`).")
    first_guess: str = Field(description="The published first guess, in this service's symbols.")
    from_set_only: bool = Field(description="True: only codes still possible are played after the first guess.")
    published: int = Field(description="The published total it recomputes.")
    finished: bool = Field(description="Whether every part is solved; false while the check is under way.")
    parts: int = Field(description="Parts (responses to the first guess) solved so far.")
    value: int | None = Field(description="The optimal total, once finished; null before.")
    agrees: bool | None = Field(description="Whether `value` equals `published`, once finished; null before.")
    seconds: float = Field(description="Search time of the parts solved, summed over every command that worked "
                                       "on them (not wall clock: shares of a part run side by side).")
    command: str = Field(description="The command that recomputes it from nothing (and continues it).")
    machine: str


class RecordOut(BaseModel):
    """A game people play beyond four positions that nobody has solved: the best strategies published,
    this project's best tree and its proven lower bound (docs/records.md)."""

    name: str
    published: list[PublishedStrategy]
    best_known: RecordTree | None
    lower_bound: RecordBound | None
    check: RecordCheck | None = Field(default=None, description=(
        "This project's recomputation of a published figure, when it has one (Super Mastermind's 179929); "
        "null otherwise."))


class Provenance(BaseModel):
    """How a game's figures or tree were made, as recorded."""

    command: str = Field(description="The command that makes them from nothing.")
    machine: str | None
    seconds: float | None = Field(description="Wall-clock seconds it took, on `machine`.")
    date: str | None
    detail: str | None = Field(description="What the command did, in full (a records tree: its whole strategy).")


class KnownTree(BaseModel):
    """The tree behind `known`'s figures, served by /v1/strategies/{game}/{strategy}."""

    strategy: str = Field(description="As /v1/strategies names it: optimal-total (proven), best-known, or a "
                                      "one-step strategy.")
    name: str = Field(description="A short name for people.")
    provenance: Provenance


class KnownOut(BaseModel):
    """What is known of a game, in plain words and the figures they say (service/known.py): every figure is the
    atlas's or the records', never computed for the occasion."""

    status: Literal["solved", "best-known", "bounds", "unknown"] = Field(description=(
        "solved: the optimal total is proven; best-known: a tree gives the best total known, not proven optimal; "
        "bounds: only proven bounds; unknown: nothing is stored for this game."))
    headline: str = Field(description="One line for people.")
    total: int | None = Field(description="Guesses over every secret: the optimum when solved, else the best tree's.")
    average: float | None = Field(description="`total` divided by the number of codes.")
    worst_case: int | None = Field(description=(
        "Solved: the smallest worst case (proven; the optimal total may need more, see atlas); best-known: the "
        "most guesses its tree needs."))
    lower_bound: int | None = Field(description="While not solved: the proven lower bound of the optimal total "
                                                "(no depth limit).")
    published_best: int | None = Field(description="A records game: the smallest total published elsewhere.")
    tree: KnownTree | None


class GameOut(BaseModel):
    """A game's parameters and the responses it allows."""

    name: str = Field(description="The preset's name where the game has one, else 'positions,symbols,repetition'.")
    label: str | None = Field(default=None, description="A named game's label for people; null for other games.")
    description: str | None = Field(default=None, description="A named game's one-line description.")
    positions: int
    symbols: int
    repetition: bool
    alphabet: str
    codes: int
    family: Family = Field(description=(
        "mastermind when a code may repeat a symbol (shown as coloured pegs, responses as black and white key "
        "pegs), bulls-cows otherwise (digits, bulls and cows)."))
    responses: list[str] = Field(description="Every response a guess can get in this game, as 'bulls.cows'.")
    atlas: AtlasOut | None = Field(default=None, description="The atlas's numbers for this game (games up to 8192 "
                                   "codes with 2-8 positions and 2-10 symbols); null for other games.")
    record: RecordOut | None = Field(default=None, description=(
        "For Super Mastermind (5,8,1) and five-digit Bulls-and-Cows (5,10,0): the best strategies known and "
        "the proven lower bound; null for other games."))
    known: KnownOut = Field(description="What is known of the game, in plain words.")


class StrategyInfo(BaseModel):
    """A strategy the service plays."""

    name: str
    kind: Literal["optimal", "one-step"]
    label: str = Field(description="A short name, for menus.")
    description: str


class SourceInfo(BaseModel):
    """A step of the answer chain, as an answer's ``source`` names it."""

    name: Source
    meaning: str


class AtlasBrief(BaseModel):
    """One number of the atlas, for tables: exact, or bracketed by proven bounds."""

    value: int | None
    exact: bool
    lower: int
    upper: int | None


class AtlasGame(BaseModel):
    """An atlas game, for menus: details at ``GET /v1/games/{game}``."""

    game: str = Field(description="'positions,symbols,repetition', as requests name it.")
    positions: int
    symbols: int
    repetition: bool
    codes: int
    exact: bool = Field(description="Whether every number of its entry is proven.")
    average: float | None = Field(description="Optimal average number of guesses, when proven.")
    values: dict[str, AtlasBrief] = Field(description=(
        "The five numbers (total, worst_case, total_within_worst_case, total_depth, worst_case_movers), "
        "each exact or bracketed by proven bounds."))
    best_known: BestKnown | None = Field(default=None, description="As in GET /v1/games/{game}.")
    known: KnownOut = Field(description="As in GET /v1/games/{game}.")


class GamesOut(BaseModel):
    """What the service plays: the presets, its limits, its strategies and the atlas's games."""

    presets: list[GameOut]
    atlas: list[AtlasGame] = Field(description="Every game of the atlas computed so far, smallest first; those "
                                   "with an exact total are answered from shipped trees.")
    limits: dict[str, int] = Field(description=(
        "max_codes: largest game a request may name; exact_search_max_codes: largest game optimal "
        "strategies search exactly (larger ones answer from their heuristic); tree_max_codes: largest "
        "game whose one-step tree a request may build; max_history: longest history; "
        "default_time_budget_ms and max_time_budget_ms: search budgets."))
    strategies: list[StrategyInfo]
    default_strategy: str
    sources: list[SourceInfo] = Field(description="Every answer source, in the order the chain tries them.")


class MatchIn(BaseModel):
    """Start a match: the service picks a secret for the caller to find."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: Game = "bulls-cows"


class MatchOut(BaseModel):
    """An opaque token holding the encrypted secret; send it back with each guess."""

    token: str
    game: GameOut


class MatchGuessIn(BaseModel):
    """Score a guess against a match's secret."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str = Field(min_length=1, max_length=1000)
    guess: str = Field(min_length=1, max_length=15)


class MatchGuessOut(BaseModel):
    guess: str
    bulls: int
    cows: int
    response: str
    solved: bool
    secret: str | None = Field(description="The secret, once found.")


class MatchRevealIn(BaseModel):
    """Give up: show the secret."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str = Field(min_length=1, max_length=1000)


class MatchRevealOut(BaseModel):
    secret: str


class Health(BaseModel):
    """Liveness and readiness."""

    status: str
    database: str | None = None
