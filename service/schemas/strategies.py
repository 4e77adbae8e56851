"""The models of ``/v1/strategies``: which whole tree, which part of it, and a build too big for a request."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from service.schemas import MaxGuesses, Query, WaitMs


class TreeBuildIn(BaseModel):
    """Ask for a whole strategy tree, built by a job when it is too big for a request."""

    model_config = ConfigDict(extra="forbid", strict=True)
    max_guesses: MaxGuesses = None
    wait_ms: WaitMs = Field(default=0, description="Wait this long for the job before answering 202.")


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
