"""What every unit's run shares, whatever its kind: one database engine per process, a small LRU of warm
searchers kept between units, the heartbeat that stops a unit whose lease was lost, and the giving back of a unit
that failed or was told to stop.

Why apart from :mod:`service.jobs.runner`: the runner of solve and tree units and those of the campaigns' units
(:mod:`service.jobs.campaign_units`) both build on these, and neither should import the other's kinds.
"""

from __future__ import annotations

import os
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from service.jobs.ledger import UnitStopped
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver.search import Searcher

_DBS: dict[tuple[str, int], Database] = {}
_SEARCHERS: OrderedDict[tuple[Any, ...], Searcher] = OrderedDict()
SEARCHERS_LOCK = threading.Lock()
MAX_SEARCHERS = 4


def database(url: str) -> Database:
    """One engine per process and URL (Dask runs many tasks in one worker process)."""
    key = (url, os.getpid())  # never share pooled connections with a forked parent
    with SEARCHERS_LOCK:
        db = _DBS.get(key)
        if db is None:
            db = _DBS[key] = Database(url)
        return db


def dispose_all() -> None:
    """Close this process's pooled connections and drop its warm searchers (tests, and a worker that shuts down
    cleanly): a unit run after it starts from a cold table, as on a fresh worker."""
    with SEARCHERS_LOCK:
        for db in _DBS.values():
            db.dispose()
        _DBS.clear()
        _SEARCHERS.clear()


def cached_searcher(key: tuple[Any, ...], make: Callable[[], Searcher]) -> Searcher:
    """The process's searcher under ``key`` (LRU of :data:`MAX_SEARCHERS`), made by ``make`` when there is none:
    made outside the lock, since making one takes a while."""
    with SEARCHERS_LOCK:
        s = _SEARCHERS.get(key)
        if s is not None:
            _SEARCHERS.move_to_end(key)
            return s
    s = make()
    with SEARCHERS_LOCK:
        _SEARCHERS[key] = s
        while len(_SEARCHERS) > MAX_SEARCHERS:
            _SEARCHERS.popitem(last=False)
    return s


class Heartbeat:
    """A running unit's heartbeat: a thread that reports the unit's work (``count()``) every
    ``every`` seconds from its start, and, when the store says the unit must stop (its lease was lost,
    or its job is over), sets :attr:`lost` and asks every searcher in :attr:`searchers` to stop."""

    def __init__(self, jobs: JobStore, unit_id: int, lease: str, every: float, count: Callable[[], int]) -> None:
        self.lost = threading.Event()
        self.searchers: list[Searcher] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(jobs, unit_id, lease, every, count),
                                        name=f"heartbeat-{unit_id}", daemon=True)
        self._thread.start()

    def _beat(self, jobs: JobStore, unit_id: int, lease: str, every: float, count: Callable[[], int]) -> None:
        while not self._done.wait(every):
            try:
                keep = jobs.heartbeat(unit_id, lease, count())
            except Exception:  # a database hiccup must not kill the work; the next beat retries
                continue
            if not keep:
                self.lost.set()
                for s in self.searchers:
                    s.request_stop()
                return

    def stop(self) -> None:
        """Stop beating (idempotent)."""
        self._done.set()
        self._thread.join()

    def end(self) -> None:
        """Stop beating, and clear the stop asked of its searchers: they are the process's, kept for its next unit."""
        self.stop()
        for s in self.searchers:
            s.clear_stop()


def unit_failed(jobs: JobStore, unit_id: int, lease: str, err: Exception, max_attempts: int) -> dict[str, Any]:
    """Give back a unit whose computation raised (queued again while attempts remain, else failed), with the
    error and its traceback kept on the unit; the report of it."""
    status = jobs.release_unit(unit_id, lease, f"{type(err).__name__}: {err}\n{traceback.format_exc()}", max_attempts)
    return {"unit": unit_id, "status": status or "lost", "error": str(err)}


def unit_given_back(jobs: JobStore, unit_id: int, lease: str, max_attempts: int) -> dict[str, Any]:
    """Give back a unit told to stop (queued again, or ended with its cancelled job), what it wrote kept; the report
    of it."""
    status = jobs.release_unit(unit_id, lease, None, max_attempts)
    return {"unit": unit_id, "status": status or "lost"}


def unit_raised(jobs: JobStore, unit_id: int, lease: str, err: Exception, max_attempts: int) -> dict[str, Any]:
    """The end of a unit whose computation raised ``err``: given back when it was told to stop
    (:class:`~service.jobs.ledger.UnitStopped`: its lease lost, or its job over), else failed."""
    if isinstance(err, UnitStopped):
        return unit_given_back(jobs, unit_id, lease, max_attempts)
    return unit_failed(jobs, unit_id, lease, err, max_attempts)


def unit_ended(unit: JobUnit, job: Job, ok: bool, nodes: int | None = None) -> dict[str, Any]:
    """The report of a unit that ran to its end: done when the store took its result (``ok``), else lost (its
    lease was another's by then)."""
    report: dict[str, Any] = {"unit": unit.id, "job": job.id, "status": "done" if ok else "lost"}
    if nodes is not None:
        report["nodes"] = nodes
    return report
