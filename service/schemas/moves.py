"""The models of the position questions: ``/v1/next-move``, ``/v1/solve`` and ``/v1/explain`` (and the value of
a position, which a finished solve job answers with too)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from service.schemas import SOURCE_DOC, Game, History, MaxGuesses, TimeBudget, WaitMs
from solver.game import Family
from solver.vocabulary import DEFAULT_STRATEGY, MMAX, CriterionName, Source, StrategyName


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
    """What the strategy's play from here costs, when known, counted as every value of a position is: every guess
    of the game, the history's included (docs/http-api.md, "Values, counted the same everywhere")."""

    expected: float | None = Field(description=(
        "Guesses of the whole game per secret still possible, on average, rounded to 6 decimals: POST /v1/solve's "
        "value divided by the candidates, and POST /v1/explain's optimal.position.average (a total's)."))
    worst_case: int | None = Field(description=(
        "Guesses of the longest game through this position (from the first guess): given by every answer from a "
        "tree, a best-known tree or the shipped knowledge; null from a search or a heuristic."))


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
    criterion: CriterionName = "total"
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
    criterion: CriterionName = Field(default="total", description="What the optimal values count (as for /v1/solve).")
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

    criterion: CriterionName
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


class SolveOut(JobResult):
    """The value of a position and where it came from."""

    source: Source = Field(description=SOURCE_DOC)
    max_guesses: int | None = Field(default=None, description=(
        "The depth limit the position was solved under (the kmovers default when none was asked); null: none."))
    complete: bool = Field(description="False when the time budget ran out before the search ended.")
    job: str | None = Field(default=None, description="The job that computed the answer (source job).")
