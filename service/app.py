"""The application factory: configuration, database, blueprints, problem+json errors."""

from __future__ import annotations

import os
from typing import Any

from apiflask import APIFlask

from service import problems
from service.config import Settings
from service.store import db as store_db
from service.store.positions import PositionStore

INSTANCE_DB = "bullscows.sqlite3"


def instance_path() -> str:
    """The instance folder (``BULLSCOWS_INSTANCE_PATH``, else ``./instance``)."""
    return os.path.abspath(os.environ.get("BULLSCOWS_INSTANCE_PATH", "instance"))


def default_database_url() -> str:
    """``DATABASE_URL``, else an SQLite file in the instance folder."""
    url = Settings().database_url
    if url:
        return url
    folder = instance_path()
    os.makedirs(folder, exist_ok=True)
    return "sqlite:///" + os.path.join(folder, INSTANCE_DB)


def create_app(config: dict[str, Any] | None = None) -> APIFlask:
    """A configured app.  ``config`` overrides settings (``DATABASE_URL``, ``MAX_CODES``, …)."""
    from service.engine import SolverPool

    app = APIFlask("service", title="bullscows", version="1", instance_path=instance_path(),
                   spec_path="/openapi.json", docs_path=None)  # /docs: service.web, served offline
    overrides = {k.lower(): v for k, v in (config or {}).items()}
    settings = Settings(**overrides)
    url = settings.database_url or default_database_url()
    app.config["SETTINGS"] = settings
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["JSON_SORT_KEYS"] = False
    app.config["VALIDATION_ERROR_STATUS_CODE"] = 422
    app.config["AUTO_OPERATION_ID"] = True
    app.config["INFO"] = {"description": "Solver for Bulls-and-Cows, Mastermind and their variants: next moves, "
                                         "exact solutions, a shared persistent transposition table."}
    database = store_db.init_app(app, url)
    store = PositionStore(database)
    app.extensions["bullscows_store"] = store
    from service.store.strategies import StrategyStore

    app.extensions["bullscows_strategies"] = StrategyStore(database)
    app.extensions["bullscows_pool"] = SolverPool(store, settings)
    from service.store.jobs import JobStore

    app.extensions["bullscows_jobs"] = JobStore(database)
    from service.store.tokens import TokenStore

    app.extensions["bullscows_tokens"] = TokenStore(database)
    from service.trees import TreeLibrary

    app.extensions["bullscows_trees"] = TreeLibrary()
    problems.init_app(app)

    from service import logs, metrics, web
    from service.api import games, health, jobs, moves, positions, solve, strategies

    app.register_blueprint(health.bp)
    app.register_blueprint(moves.bp)
    app.register_blueprint(solve.bp)
    app.register_blueprint(positions.bp)
    app.register_blueprint(strategies.bp)
    app.register_blueprint(jobs.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(web.bp)
    from service import limits

    limits.init_app(app, settings)
    if settings.trusted_proxies:
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    metrics.init_app(app)
    logs.init_app(app)
    _register_solver_errors(app)
    _register_storage_errors(app)
    return app


def _register_storage_errors(app: APIFlask) -> None:
    from flask import Response

    from service.store.db import StorageError

    @app.errorhandler(StorageError)
    def _storage(exc: StorageError) -> Response:
        resp = problems.problem(exc.status, exc.slug, "Storage unavailable", exc.detail)
        if exc.retry_after is not None:
            resp.headers["Retry-After"] = str(exc.retry_after)
        return resp


def _register_solver_errors(app: APIFlask) -> None:
    from solver.errors import GameTooLargeError, SolverError

    @app.errorhandler(SolverError)
    def _solver_error(err: SolverError) -> Any:
        status = 422 if isinstance(err, GameTooLargeError) else 400
        return problems.problem(status, err.slug, problems.title_of(err.slug), str(err))
