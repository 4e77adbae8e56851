"""Run the Alembic migrations programmatically (``bullscows db upgrade``, tests, the container)."""

from __future__ import annotations

import os

from alembic import command
from alembic.config import Config

ROOT = os.environ.get("BULLSCOWS_MIGRATIONS_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""Folder holding ``alembic.ini`` and ``migrations/`` (the source tree, or where an image copied them)."""


def alembic_config(url: str | None = None) -> Config:
    """Alembic configuration for ``url`` (default: the service's own database)."""
    cfg = Config(os.path.join(ROOT, "alembic.ini"))
    cfg.set_main_option("script_location", os.path.join(ROOT, "migrations"))
    if url is not None:
        cfg.attributes["url"] = url
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database to ``revision``."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    """Take the database back to ``revision``."""
    command.downgrade(alembic_config(url), revision)
