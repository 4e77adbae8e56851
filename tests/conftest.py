"""Shared fixtures: the published figures and the two preset games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from solver.game import Game

# Property tests check behaviour, never speed: on a shared 2-core machine a numba compile or a busy
# neighbour can push one example past Hypothesis's 200 ms default and fail it as "flaky".
settings.register_profile("project", deadline=None)
settings.load_profile("project")

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "tests" / "data" / "published.json"
"""The published figures to reproduce, with their sources in its ``_source`` field: the repository's own
copy, so that a clone alone runs its tests."""


@pytest.fixture(scope="session")
def published() -> dict[str, Any]:
    """The figures of the source documents that the tests reproduce by running the solver."""
    data: dict[str, Any] = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def bulls_cows() -> Game:
    return Game.from_spec("bulls-cows")


@pytest.fixture(scope="session")
def mastermind() -> Game:
    return Game.from_spec("mastermind")
