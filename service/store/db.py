"""Engine and sessions.  ``init_app`` attaches one :class:`Database` to a Flask app."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

EXTENSION = "bullscows_db"


def normalise_url(url: str) -> str:
    """Accept the usual ``postgres://``/``postgresql://`` forms and route them to psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(url: str) -> Engine:
    """An engine with sensible per-backend settings (SQLite: WAL, busy timeout, foreign keys)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


class Database:
    """One engine and its session factory."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        self.engine = make_engine(self.url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session committed on success and rolled back on any error (no partial writes)."""
        session = self._sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def ping(self) -> bool:
        """Whether the database answers (and has the schema)."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1 FROM positions WHERE 1 = 0"))
            return True
        except Exception:
            return False

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


def init_app(app: Any, url: str) -> Database:
    """Attach a :class:`Database` for ``url`` to ``app``."""
    db = Database(url)
    app.extensions[EXTENSION] = db
    return db


def get_db(app: Any) -> Database:
    """The app's :class:`Database`."""
    db: Database = app.extensions[EXTENSION]
    return db
