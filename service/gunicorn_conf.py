"""gunicorn settings for ``bullscows serve`` and the container."""

from __future__ import annotations

from typing import Any

timeout = 120
accesslog = None  # the app logs one JSON line per request (service.logs)


def child_exit(server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges from the shared metric files."""
    import os

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def post_worker_init(worker: Any) -> None:
    """Load (and verify) the stored trees and compile the kernels before the first request, not during it."""
    app = getattr(worker, "wsgi", None)
    library = getattr(app, "extensions", {}).get("bullscows_trees") if app is not None else None
    if library is not None:
        library.all()
