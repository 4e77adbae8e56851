"""Run the Alembic migrations programmatically (``bullscows db upgrade``, tests, the container)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

from service.store.files import one_writer

ROOT = os.environ.get("BULLSCOWS_MIGRATIONS_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
"""Folder holding ``alembic.ini`` and ``migrations/`` (the source tree, or where an image copied them)."""


def alembic_config(url: str | None = None) -> Config:
    """Alembic configuration for ``url`` (default: the service's own database)."""
    cfg = Config(os.path.join(ROOT, "alembic.ini"))
    cfg.set_main_option("script_location", os.path.join(ROOT, "migrations"))
    if url is not None:
        cfg.attributes["url"] = url
    return cfg


@contextlib.contextmanager
def _one_at_a_time(url: str | None) -> Iterator[None]:
    """Hold the migration lock of an SQLite file (a lock file beside it) while migrating it.

    Why: two commands started together on a new file (two campaigns, a worker and a command) would both find it
    empty and both create its tables, and the second would fail with "table already exists".  Under the lock the
    second finds the tables at head and does nothing.  PostgreSQL's migrations take an advisory lock instead
    (``migrations/env.py``)."""
    if url is None:  # the service's own (the commands pass the URL they resolved)
        yield
        return
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        yield
        return
    with one_writer(os.path.abspath(parsed.database)):
        yield


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database to ``revision`` (one process at a time: :func:`_one_at_a_time`)."""
    with _one_at_a_time(url):
        command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    """Take the database back to ``revision``."""
    command.downgrade(alembic_config(url), revision)
