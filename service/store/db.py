"""Engine and sessions.  An app holds one :class:`Database` (:attr:`service.services.Services.database`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker


def normalise_url(url: str) -> str:
    """Accept the usual ``postgres://``/``postgresql://`` forms and route them to psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def is_database_url(url: str) -> bool:
    """Whether ``url`` reads as a database URL (``sqlite:///FILE``, ``postgresql+psycopg://USER@HOST/DB``...)."""
    try:
        make_url(url)
    except ArgumentError:
        return False
    return True


def sqlite_file(url: str) -> str | None:
    """The file an SQLite URL names, None for a server's database or an in-memory one.  Why here: the commands that
    make a database where none was asked check the file's folder first, and only the store reads URLs."""
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return str(parsed.database)


def shown_url(url: str) -> str:
    """``url`` as a message may show it: its password hidden."""
    return str(make_url(normalise_url(url)).render_as_string(hide_password=True))


DATABASE_ERRORS: tuple[type[Exception], ...] = (SQLAlchemyError,)
"""What a database the caller cannot use raises (no driver, no server there, no access), besides
:class:`StorageError`."""


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
    # pre-ping: connections broken while the server was away are replaced, so the service recovers
    # by itself when it comes back; a short connect timeout fails fast while it is away.
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10,
                         connect_args={"connect_timeout": 5})


class StorageError(Exception):
    """The database cannot do what was asked right now: unreachable, read-only, full or busy.

    Carries the HTTP status and problem slug the service answers with; the request is refused
    whole (its transaction rolled back), so nothing is half-written."""

    def __init__(self, status: int, slug: str, detail: str, retry_after: int | None) -> None:
        super().__init__(detail)
        self.status = status
        self.slug = slug
        self.detail = detail
        self.retry_after = retry_after


def storage_error(exc: Exception) -> StorageError:
    """What a driver error means for the client (messages of sqlite3 and psycopg)."""
    text_ = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = text_.lower()
    if "readonly" in low or "read-only" in low or "read only" in low:
        return StorageError(503, "database-read-only", f"the database refuses writes ({text_}); reads still work, "
                            "writes need the database (or its file and folder) to be writable", None)
    if "disk is full" in low or "no space left" in low or "database or disk is full" in low:
        return StorageError(507, "storage-full", f"the database has no room left ({text_}); nothing was stored",
                            None)
    if "locked" in low or "busy" in low:
        return StorageError(503, "database-busy", f"the database is busy ({text_}); retry shortly", 1)
    return StorageError(503, "database-unavailable", f"the database cannot be reached ({text_}); nothing was "
                        "stored; retry shortly", 5)


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
        except BaseException as exc:
            with suppress(Exception):  # the connection itself may be gone; the server drops the transaction
                session.rollback()
            if isinstance(exc, (OperationalError, InterfaceError)):
                raise storage_error(exc) from exc
            raise
        finally:
            with suppress(Exception):
                session.close()

    def ping(self) -> bool:
        """Whether the database answers (and has the schema).

        A SQLite file that has vanished (its folder removed, say) counts as unreachable even while
        pooled connections still read the unlinked file: nothing written now would survive.
        """
        path = self.engine.url.database if self.engine.url.get_backend_name() == "sqlite" else None
        if path and path != ":memory:" and not path.startswith("file:") and not os.path.exists(path):
            return False
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1 FROM positions WHERE 1 = 0"))
            return True
        except Exception:
            return False

    def has_table(self, name: str) -> bool:
        """Whether the database has the table ``name`` (its schema made), False when it cannot be asked."""
        try:
            return bool(inspect(self.engine).has_table(name))
        except Exception:  # no server there, no access
            return False

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
