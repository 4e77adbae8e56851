"""gunicorn settings for ``bullscows serve`` and the container."""

from __future__ import annotations

import os
from typing import Any

timeout = 120
accesslog = None  # the app logs one JSON line per request (service.logs)

# Threads, so that health checks, tree moves and cached answers are served while a search runs in
# another thread of the same worker: the search kernels free the GIL, and each process runs at most
# BULLSCOWS_MAX_SEARCHES of them (the others answer from their heuristic at once).
worker_class = "gthread"
threads = int(os.environ.get("BULLSCOWS_THREADS", "8"))


def child_exit(server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges from the shared metric files."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


# The master loads (and warms, see service.wsgi) the app before it listens and forks: the workers
# inherit the loaded trees and kernels, and the first request after "Listening" is answered at once.
preload_app = True


def post_fork(server: Any, worker: Any) -> None:
    """A forked worker opens database connections of its own, never the master's (SQLAlchemy's rule
    for a pool created before a fork)."""
    from service.services import get_db

    get_db(server.app.wsgi()).engine.dispose(close=False)


def post_worker_init(worker: Any) -> None:
    """Without ``preload_app`` (a configuration of one's own), warm the worker before its first request.  And make
    SIGTERM stop the worker's searches at once: gunicorn lets a stopping worker finish its requests (for up to
    ``graceful_timeout``), and a search within a long budget would hold it that long; stopped, it answers with its
    heuristic, as at the end of its budget."""
    import signal

    from service.app import warm

    app = getattr(worker, "wsgi", None)
    if app is not None:
        warm(app, every_tree=True)
    exit_gracefully = worker.handle_exit

    def handle_exit(sig: int, frame: Any) -> None:
        if app is not None:
            from service.services import services

            services(app).pool.stop_all()
        exit_gracefully(sig, frame)

    worker.handle_exit = handle_exit
    signal.signal(signal.SIGTERM, handle_exit)  # gunicorn registered the method before this hook ran
