"""What one app holds for its requests: the database, the stores, the solver pool, the trees, the answer chain.

One typed object per app, kept under one key of ``app.extensions`` and reached with :func:`services`, so that a
route, the auth check, a gunicorn hook or a test asks for ``services().jobs`` and the type checker knows what it
gets, instead of each reading a string key of its own and casting the result.  :func:`service.app.create_app`
builds it; nothing else stores anything of ours in ``app.extensions`` (flask-limiter keeps its own key there).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.fernet import Fernet
from flask import Flask, current_app
from flask_limiter import Limiter

from service.answers import AnswerChain
from service.config import Settings
from service.engine import SolverPool
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.positions import PositionStore
from service.store.strategies import StrategyStore
from service.store.tokens import TokenStore
from service.strategy_trees import StrategyTrees
from service.trees import TreeLibrary

KEY = "bullscows"
"""The one key of ``app.extensions`` that is ours."""


@dataclass
class Services:
    """One app's long-lived objects (per app: two apps in one process may use different databases)."""

    settings: Settings
    """The app's settings (the environment's, with the app's overrides)."""
    database: Database
    positions: PositionStore
    strategies: StrategyStore
    pool: SolverPool
    jobs: JobStore
    tokens: TokenStore
    trees: TreeLibrary
    """The shipped trees, read only: the answer chain and the routes never change a tree."""
    answers: AnswerChain
    strategy_trees: StrategyTrees
    """The trees of ``/v1/strategies``: this app's memory of them, over the shipped ones and the table."""
    limiter: Limiter | None = None
    """Set once the blueprints are wrapped (:func:`service.limits.init_app`)."""
    fernet: Fernet | None = None
    """The match tokens' cipher, made from the instance's key when first needed."""
    clock: Callable[[], float] = time.time
    """What match tokens are stamped and checked with; a test moves it instead of sleeping."""


def services(app: Flask | None = None) -> Services:
    """The :class:`Services` of ``app``, else of the app handling the current request."""
    held: Services = (app if app is not None else current_app).extensions[KEY]
    return held


def get_db(app: Flask) -> Database:
    """The :class:`Database` of ``app``."""
    return services(app).database
