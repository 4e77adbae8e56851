"""Service fixtures: one real database per backend, its schema made by the Alembic migrations.

PostgreSQL is the machine's server (``BULLSCOWS_TEST_PG_URL``, default the ``test`` database over
TCP with trust auth); every test starts from ``downgrade base`` + ``upgrade head`` and leaves the
database empty again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from apiflask import APIFlask
from flask.testing import FlaskClient

from service import create_app
from service.services import get_db
from service.store.migrate import downgrade, upgrade

PG_BASE = os.environ.get("BULLSCOWS_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PG_SCHEMA = f"bullscows_test_{os.getpid()}"
"""A schema of this test session's own, so that two runs on one server never see each other's tables."""
PG_URL = f"{PG_BASE}{'&' if '?' in PG_BASE else '?'}options=-csearch_path%3D{PG_SCHEMA}"

_apps: list[APIFlask] = []


@pytest.fixture(scope="session", autouse=True)
def _pg_schema() -> Iterator[None]:
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_BASE)
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {PG_SCHEMA}"))
    yield
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE"))
    engine.dispose()


@pytest.fixture(scope="session", autouse=True)
def _kernels_loaded() -> None:
    """What the service's workers do before their first request (gunicorn's post_worker_init):
    budgets are wall-clock time, and loading the kernels is not part of any request's search."""
    from service.engine import warm_up

    warm_up()


@pytest.fixture(autouse=True)
def _dispose_apps() -> Iterator[None]:
    """Close the pools of every app a test made, even when the test failed."""
    yield
    while _apps:
        get_db(_apps.pop()).dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database of each backend."""
    url = f"sqlite:///{tmp_path / 'service.sqlite3'}" if request.param == "sqlite" else PG_URL
    downgrade(url)
    upgrade(url)
    yield url
    downgrade(url)


backend_agnostic = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
"""For a test whose subject is not the storage (HTTP, validation, trees, the page): its app runs on
SQLite only, instead of once per backend for nothing.  Storage behaviour is tested on both."""

quick_on_postgresql = pytest.mark.parametrize(
    "db_url", [pytest.param("sqlite", marks=pytest.mark.slow), "postgresql"], indirect=True)
"""For the longest end-to-end runs (real Dask workers solving a whole game, tens of seconds each): both
backends in the whole suite, and in ``-m "not slow"`` only PostgreSQL, the backend that shares jobs
between machines, so that the quick run stays under five minutes."""


# Tests make many requests from one address within a minute: the rate limits are tested on their
# own (test_security), with limits of their own.
NO_LIMITS = {"RATE_LIMIT_EXPENSIVE": "1000000/minute", "RATE_LIMIT_MOVES": "1000000/minute"}


def make_app(url: str, **config: Any) -> APIFlask:
    application = create_app({"DATABASE_URL": url, **NO_LIMITS, **config})
    _apps.append(application)
    return application


@pytest.fixture
def app(db_url: str) -> APIFlask:
    return make_app(db_url)


@pytest.fixture
def client(app: APIFlask) -> FlaskClient:
    return app.test_client()
