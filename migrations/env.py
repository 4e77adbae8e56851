"""Alembic environment: the URL comes from the caller (``-x url=…``, the service's migrate helper)
or from DATABASE_URL, with the service's SQLite default otherwise."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from service.store.db import make_engine, normalise_url
from service.store.models import Base

config = context.config
target_metadata = Base.metadata
MIGRATION_LOCK = 0x62756C6C73
"""The advisory lock a PostgreSQL migration holds for its transaction (any number, the same in every process)."""


def _url() -> str:
    url = config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        from service.app import default_database_url

        url = default_database_url()
    return normalise_url(str(url))


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(_url())
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            if conn.dialect.name == "postgresql":  # two processes migrating at once: the second waits, then
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})  # finds head
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
