"""Request and response models of the HTTP API (pydantic v2; the OpenAPI document comes from them).

Every bound a request is held to is stated here, and the OpenAPI document shows the bound that is
enforced: a fixed bound is a ``Field`` constraint; a bound that is a setting of the deployment
(``BULLSCOWS_MAX_HISTORY``, ``…_MAX_TIME_BUDGET_MS``, ``…_MAX_WAIT_MS``) is checked against the settings
of the app serving the request (:func:`at_most_setting`), and :func:`document_bounds` writes the same
value into that app's document.

This module holds what every topic shares (the bounds, the game and history types, query parameters); the
models are by topic: :mod:`service.schemas.moves` (next move, solve, explain), :mod:`service.schemas.jobs`,
:mod:`service.schemas.strategies` (whole trees) and :mod:`service.schemas.games` (games, the atlas, records,
matches).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from flask import current_app, has_app_context
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from service.config import Settings
from service.services import services
from solver.vocabulary import MMAX, SOURCE_MEANINGS, CriterionName

SETTING = "x-setting"
"""The OpenAPI extension naming the setting a bound comes from (its value is the bound)."""
MAX_CODES = "x-max-codes"
"""The OpenAPI extension of the game object: how many codes a game may have (``BULLSCOWS_MAX_CODES``)."""


def setting(name: str) -> int:
    """A limit setting as the app serving the request has it (the default outside a request)."""
    if has_app_context():
        return int(getattr(services(current_app).settings, name))
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


_RST_LITERAL = re.compile(r"``(.+?)``", re.S)
"""An inline literal of a docstring: ````game````."""
_RST_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
"""A cross-reference role of a docstring: ``:mod:`service.atlas```."""


def _markdown(text: str) -> str:
    """A docstring's inline markup as the OpenAPI document's Markdown shows it: ``x`` and :role:`x` both as `x`."""
    return _RST_ROLE.sub(r"`\1`", _RST_LITERAL.sub(r"`\1`", text))


def _first_sentence(paragraph: str) -> tuple[str, str]:
    """The paragraph's first sentence and the rest: it ends at a full stop followed by a capital or a literal,
    outside parentheses and literals (so "(e.g. ``5,8,1``)" does not end it)."""
    depth, literal = 0, False
    for i, ch in enumerate(paragraph):
        if ch == "`":
            literal = not literal
        elif not literal and ch in "([":
            depth += 1
        elif not literal and ch in ")]":
            depth = max(0, depth - 1)
        elif (ch == "." and not literal and depth == 0 and paragraph[i + 1:i + 2] == " "
              and (paragraph[i + 2:i + 3].isupper() or paragraph[i + 2:i + 3] == "`")):
            return paragraph[:i + 1], paragraph[i + 2:]
    return paragraph, ""


def document_text(spec: dict[str, Any]) -> None:
    """Write the operations' summaries and descriptions, and the schemas' descriptions, as readers of the OpenAPI
    document (Swagger UI on ``/docs``) see them.

    Why here: they are the routes' and models' docstrings, written for Python's readers (reStructuredText literals,
    lines wrapped at 120 columns); the framework takes a docstring's first *line* as the summary.  So each summary
    is made the docstring's first paragraph, the description the rest, each paragraph one line, and every literal
    Markdown's, once for every route and model."""
    for ops in spec.get("paths", {}).values():
        for op in ops.values():
            if not isinstance(op, dict) or "summary" not in op:
                continue
            lines = [op["summary"], *(op.get("description") or "").split("\n")]
            paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", "\n".join(lines)) if p.strip()]
            if not paragraphs:
                continue
            summary, rest = _first_sentence(paragraphs[0])
            op["summary"] = _markdown(summary)
            described = [rest, *paragraphs[1:]] if rest else paragraphs[1:]
            if described:
                op["description"] = "\n\n".join(_markdown(p) for p in described)
            else:
                op.pop("description", None)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str):
                    node[key] = _markdown(value)
                else:
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(spec.get("components", {}))


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


class Query(BaseModel):
    """Query parameters: given as text, read as the types below (``"5"`` is 5; ``"abc"`` is refused, never
    read as nothing), and only the parameters of the call."""

    model_config = ConfigDict(extra="forbid")


class PositionsQuery(Query):
    """Filters of the positions export."""

    game: str | None = Field(default=None, max_length=100, description="A preset or 'positions,symbols,repetition'.")
    criterion: CriterionName | None = None


class Health(BaseModel):
    """Liveness and readiness."""

    status: str
    database: str | None = None
