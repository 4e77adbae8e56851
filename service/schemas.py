"""Request and response models of the HTTP API (pydantic v2; the OpenAPI document comes from them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class GameSpec(BaseModel):
    """A game given by its parameters instead of a preset name."""

    model_config = ConfigDict(extra="forbid")
    positions: int = Field(ge=1, le=15, description="Places in a code.")
    symbols: int = Field(ge=1, le=62, description="Symbols available.")
    repetition: bool = Field(description="Whether a code may repeat a symbol.")
    alphabet: str | None = Field(default=None, max_length=62, description="Characters of the symbols.")


class TurnIn(BaseModel):
    """One turn of a history."""

    model_config = ConfigDict(extra="forbid")
    guess: str = Field(max_length=15)
    bulls: int = Field(ge=0, le=15)
    cows: int = Field(ge=0, le=15)


Game = str | GameSpec
"""A preset name (``bulls-cows``, ``mastermind``, or ``"4,6,1"``) or a :class:`GameSpec`."""
HistoryItem = TurnIn | str
"""A turn object, or the short form ``"0123 0.1"``."""

STRATEGIES = Literal["optimal-total", "optimal-kmovers", "minimax", "most-parts", "entropy", "expected-size",
                     "larmouth", "crush", "first-consistent", "random-consistent"]


class NextMoveIn(BaseModel):
    """Ask for the next guess."""

    model_config = ConfigDict(extra="forbid")
    game: Game = "bulls-cows"
    history: list[HistoryItem] = Field(default_factory=list, max_length=64)
    strategy: STRATEGIES = "optimal-total"
    max_guesses: int | None = Field(default=None, ge=1, le=63,
                                    description="Guesses allowed in the whole game (needed by optimal-kmovers).")
    time_budget_ms: int | None = Field(default=None, ge=1, description="Search budget before falling back.")
    seed: int = Field(default=0, ge=0, le=2**31 - 1, description="Seed of random-consistent.")


class MoveValue(BaseModel):
    """Guesses still needed from here, when known."""

    expected: float | None = Field(description="Average guesses still needed, this one included.")
    worst_case: int | None = Field(description="Most guesses still needed, when known.")


class NextMoveOut(BaseModel):
    """The next guess."""

    guess: str
    candidates: int
    candidate_list: list[str] | None
    solved: bool
    exact: bool
    value: MoveValue
    source: Literal["tree", "cache", "search", "heuristic"]
    strategy: str
    elapsed_ms: float


class SolveIn(BaseModel):
    """Ask for the value of a position."""

    model_config = ConfigDict(extra="forbid")
    game: Game = "bulls-cows"
    history: list[HistoryItem] = Field(default_factory=list, max_length=64)
    criterion: Literal["total", "kmovers"] = "total"
    max_guesses: int | None = Field(default=None, ge=1, le=63)
    depth_count: int | None = Field(default=None, ge=1, le=63)
    mde: int | None = Field(default=None, ge=0, le=63)
    from_set_only: bool = False
    upper_bound: int | None = Field(default=None, ge=0)
    guess: str | None = Field(default=None, max_length=15, description="Evaluate this guess instead.")
    time_budget_ms: int | None = Field(default=None, ge=1)


class SolveOut(BaseModel):
    """The value of a position (same keys as ``bullscows solve --json``) and where it came from."""

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
    source: Literal["cache", "search"]
    complete: bool = Field(description="False when the time budget ran out before the search ended.")


class Health(BaseModel):
    """Liveness and readiness."""

    status: str
    database: str | None = None
