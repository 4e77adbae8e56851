"""The application factory: configuration, database, blueprints, problem+json errors."""

from __future__ import annotations

import os
from typing import Any

from apiflask import APIFlask

from service import problems
from service.config import Settings
from service.schemas import document_bounds, document_text
from service.store.db import Database
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


def warm(app: APIFlask, *, every_tree: bool = False) -> None:
    """Everything an app loads before it can answer at once: the presets' proven trees (verified on load), the
    shipped knowledge and the solver's kernels, and with ``every_tree`` every shipped tree (eight seconds more, most
    of them for the big games' best-known trees: what a server does before it forks its workers, so that no first
    question of a game waits for its tree; not what every app of a test run needs).  Idempotent."""
    from service.services import services

    held = services(app)
    trees = held.trees
    loaded = trees.presets()  # the others load when first asked for, unless:
    if every_tree:
        loaded = trees.all()  # a server's first move of a big game must not wait for its tree
    for stored in loaded:
        # each tree's game's response table (when it fits the game's budget), which the one-off questions (candidates,
        # heuristics) then read: reading a tree builds none (solver.plainkernels), and a server builds them here,
        # before it forks, so that its workers share them
        stored.tree.game.arrays(table=True)
    knowledge = held.pool.knowledge
    if knowledge is not None:
        knowledge.all()
    from service.engine import warm_up

    warm_up()


def create_app(config: dict[str, Any] | None = None, *, warm_in_background: bool = True) -> APIFlask:
    """A configured app.  ``config`` overrides settings (``DATABASE_URL``, ``MAX_CODES``, …).

    Unless the process is warm already, a background thread loads what :func:`warm` loads, and
    ``/readyz`` answers 503 until it is done.  A server that forks workers warms the app itself, before
    forking, instead (``warm_in_background=False``; see :mod:`service.wsgi`): a thread must not be
    running in a process that forks.
    """
    from service.engine import SolverPool

    app = APIFlask("service", title="bullscows", version="1", instance_path=instance_path(),
                   spec_path="/openapi.json", docs_path=None)  # /docs: service.web, served offline
    overrides = {k.lower(): v for k, v in (config or {}).items()}
    settings = Settings(**overrides)
    url = settings.database_url or default_database_url()
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["JSON_SORT_KEYS"] = False
    app.config["VALIDATION_ERROR_STATUS_CODE"] = 422
    app.config["AUTO_OPERATION_ID"] = True
    app.config["INFO"] = {"description": "Solver for Bulls-and-Cows, Mastermind and their variants: next moves, "
                                         "exact solutions, a shared persistent transposition table."}
    from service.answers import AnswerChain
    from service.knowledge import Knowledge
    from service.metrics import record_answer
    from service.services import KEY, Services, services
    from service.store.jobs import JobStore
    from service.store.strategies import StrategyStore
    from service.store.tokens import TokenStore
    from service.strategy_trees import StrategyTrees
    from service.trees import TreeLibrary

    database = Database(url)
    store = PositionStore(database)
    pool = SolverPool(store, settings, Knowledge())
    trees = TreeLibrary(shared=True)  # read only: the answer chain and the routes never change a tree
    strategy_store = StrategyStore(database)
    app.extensions[KEY] = Services(
        settings=settings, database=database, positions=store, strategies=strategy_store, pool=pool,
        jobs=JobStore(database), tokens=TokenStore(database), trees=trees,
        answers=AnswerChain(pool, trees, on_answer=record_answer), strategy_trees=StrategyTrees(strategy_store, trees))
    problems.init_app(app)
    app.spec_processor(lambda spec: openapi_document(spec, settings))

    from service import logs, metrics, web
    from service.api import explain, games, health, jobs, moves, positions, solve, strategies

    app.register_blueprint(health.bp)
    app.register_blueprint(moves.bp)
    app.register_blueprint(solve.bp)
    app.register_blueprint(explain.bp)
    app.register_blueprint(positions.bp)
    app.register_blueprint(strategies.bp)
    app.register_blueprint(jobs.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(web.bp)
    from service import limits

    services(app).limiter = limits.init_app(app, settings)
    if settings.trusted_proxies:
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    metrics.init_app(app)
    logs.init_app(app)
    _register_solver_errors(app)
    _register_storage_errors(app)
    from service.engine import is_warm

    if warm_in_background and not is_warm():
        import threading

        threading.Thread(target=warm, args=(app,), name="bullscows-warm-up", daemon=True).start()
    return app


def openapi_document(spec: dict[str, Any] | str, settings: Settings) -> dict[str, Any] | str:
    """The OpenAPI document as the service behaves: its text as readers see it (:func:`service.schemas.document_text`),
    the bounds that are settings as this app has them (:func:`service.schemas.document_bounds`) and every error as
    problem+json (:func:`service.problems.document_problems`), so that clients and schemathesis can check them."""
    if isinstance(spec, str):  # the YAML form is made from the dict form; nothing to do
        return spec
    document_bounds(spec, settings)
    document_text(spec)
    return problems.document_problems(spec)


def _register_storage_errors(app: APIFlask) -> None:
    from flask import Response

    from service.store.db import StorageError

    @app.errorhandler(StorageError)
    def _storage(exc: StorageError) -> Response:
        resp = problems.problem(exc.slug, exc.detail)
        if exc.retry_after is not None:
            resp.headers["Retry-After"] = str(exc.retry_after)
        return resp


def _register_solver_errors(app: APIFlask) -> None:
    """Every solver input error, on every route, as its slug's problem (status and title of the table)."""
    from solver.errors import SolverError

    @app.errorhandler(SolverError)
    def _solver_error(err: SolverError) -> Any:
        return problems.problem(err.slug, str(err))
