"""Prometheus metrics: requests, latencies, cache hits and misses, nodes searched (``/metrics``).

Under gunicorn every worker is a process: with ``PROMETHEUS_MULTIPROC_DIR`` set (``bullscows serve``
sets it) the workers write their values to files there and ``/metrics`` aggregates all of them, so
any worker answers for the whole server.  Without it, the counters are this process's own.
"""

from __future__ import annotations

import os
import time
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter("bullscows_requests_total", "HTTP requests", ["endpoint", "status"], registry=REGISTRY)
LATENCY = Histogram("bullscows_request_seconds", "Request latency", ["endpoint"], registry=REGISTRY,
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
CACHE = Counter("bullscows_cache_total", "Solve answers by source", ["source"], registry=REGISTRY)
NODES = Counter("bullscows_nodes_searched_total", "Search nodes visited", registry=REGISTRY)


def init_app(app: Flask) -> None:
    """Time every request and serve ``/metrics``."""

    @app.before_request
    def _start() -> None:
        g.metrics_start = time.perf_counter()

    @app.after_request
    def _done(resp: Response) -> Response:
        endpoint = request.endpoint or "unknown"
        REQUESTS.labels(endpoint, str(resp.status_code)).inc()
        start = getattr(g, "metrics_start", None)
        if start is not None:
            LATENCY.labels(endpoint).observe(time.perf_counter() - start)
        return resp

    @app.get("/metrics")
    def metrics() -> Any:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
        return Response(generate_latest(REGISTRY), mimetype=CONTENT_TYPE_LATEST)


def record_solve(source: str, nodes: int) -> None:
    """Count one answer and the nodes it cost."""
    CACHE.labels(source).inc()
    NODES.inc(max(nodes, 0))


JOBS = Counter("bullscows_jobs_total", "Jobs submitted, reused (an identical one existed) or cancelled over HTTP",
               ["event"], registry=REGISTRY)


def record_job(event: str) -> None:
    """Count a job event of the web tier."""
    JOBS.labels(event).inc()
