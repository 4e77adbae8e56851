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
from service.migrate import downgrade, upgrade
from service.store.db import get_db

PG_URL = os.environ.get("BULLSCOWS_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database of each backend."""
    url = f"sqlite:///{tmp_path / 'service.sqlite3'}" if request.param == "sqlite" else PG_URL
    downgrade(url)
    upgrade(url)
    yield url
    downgrade(url)


def make_app(url: str, **config: Any) -> APIFlask:
    return create_app({"DATABASE_URL": url, **config})


@pytest.fixture
def app(db_url: str) -> Iterator[APIFlask]:
    application = make_app(db_url)
    yield application
    get_db(application).dispose()


@pytest.fixture
def client(app: APIFlask) -> FlaskClient:
    return app.test_client()
