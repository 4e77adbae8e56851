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


def post_worker_init(worker: Any) -> None:
    """Load (and verify) the stored trees and compile the kernels before the first request, not during it."""
    app = getattr(worker, "wsgi", None)
    library = getattr(app, "extensions", {}).get("bullscows_trees") if app is not None else None
    if library is not None:
        library.all()
    from service.engine import warm_up

    warm_up()
