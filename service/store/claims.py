"""Claims: work that one process at a time may drive, held in the ``claims`` table.

Why in the database: the units of long work already live there under leases, so whoever drives a campaign that
also rewrites files of its own (a steps campaign judges each step's tree into its folder) claims it where the
workers of every machine look, not by a lock on a file that another machine never sees.  A claim is a row: its
name, the holder (host, pid and a token of this claim), and a heartbeat renewed by a thread while it is held.  A
holder killed without letting go (SIGKILL, a machine lost) does not keep the work forever: on its own host a dead
pid frees the claim at once, elsewhere a heartbeat older than ``stale_after`` seconds does.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from service.store.db import Database
from service.store.models import ClaimRow


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


class Claims:
    """Takes, renews and lets go of named claims on one database."""

    def __init__(self, db: Database, *, stale_after: float = 60.0, beat_every: float = 2.0) -> None:
        self.db = db
        self.stale_after = stale_after
        self.beat_every = beat_every
        self.host = socket.gethostname()[:128]

    def holder_of(self, name: str) -> ClaimRow | None:
        """The row of the claim ``name``, None when nobody holds it."""
        with self.db.session() as s:
            return s.get(ClaimRow, name)

    def take(self, name: str) -> str | None:
        """Claim ``name`` for this process: the holder token when it is ours now, None when a live holder has it.
        A holder that is gone (a dead pid on this host, or a heartbeat stale) is replaced in one statement, so two
        processes taking over the same dead claim cannot both win."""
        me = f"{self.host}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        now = _now()
        try:
            with self.db.session() as s:
                s.add(ClaimRow(name=name, holder=me, host=self.host, pid=os.getpid(), claimed_at=now, beat_at=now))
        except IntegrityError:
            row = self.holder_of(name)
            if row is None:  # let go between the insert and the read: try once more
                return self.take(name)
            gone = (row.host == self.host and not _pid_alive(row.pid)) or \
                _aware(row.beat_at) < now - timedelta(seconds=self.stale_after)
            if not gone:
                return None
            with self.db.session() as s:
                taken = s.execute(update(ClaimRow).where(ClaimRow.name == name, ClaimRow.holder == row.holder)
                                  .values(holder=me, host=self.host, pid=os.getpid(), claimed_at=now, beat_at=now))
                if taken.rowcount != 1:  # type: ignore[attr-defined]
                    return None
        return me

    def beat(self, name: str, holder: str) -> bool:
        """Renew the claim's heartbeat; False when it is no longer ``holder``'s."""
        with self.db.session() as s:
            done = s.execute(update(ClaimRow).where(ClaimRow.name == name, ClaimRow.holder == holder)
                             .values(beat_at=_now()))
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def let_go(self, name: str, holder: str) -> None:
        with self.db.session() as s:
            s.execute(delete(ClaimRow).where(ClaimRow.name == name, ClaimRow.holder == holder))

    @contextlib.contextmanager
    def held(self, name: str) -> Iterator[bool]:
        """Hold ``name`` for the ``with`` block if nobody else does, its heartbeat renewed meanwhile: yields False
        at once, holding nothing, when a live holder has it (the caller says so rather than wait)."""
        holder = self.take(name)
        if holder is None:
            yield False
            return
        stop = threading.Event()

        def beating() -> None:
            while not stop.wait(self.beat_every):
                with contextlib.suppress(Exception):  # a database hiccup: the next beat tries again
                    self.beat(name, holder)

        thread = threading.Thread(target=beating, name=f"claim {name}", daemon=True)
        thread.start()
        try:
            yield True
        finally:
            stop.set()
            thread.join()
            self.let_go(name, holder)

    def names(self) -> list[str]:
        with self.db.session() as s:
            return list(s.scalars(select(ClaimRow.name)).all())
