"""Prometheus metrics (``/metrics``): requests, latencies, answers by the step that gave them, nodes searched, job
events, and the job queue as the database holds it.

Under gunicorn every worker is a process: with ``PROMETHEUS_MULTIPROC_DIR`` set (``bullscows serve``
sets it) the workers write their counters to files there and ``/metrics`` aggregates all of them, so
any worker answers for the whole server.  Without it, the counters are this process's own.

The queue's gauges (jobs and units by state, live workers, each worker's last heartbeat) are not counted by this
process: every scrape reads them from the job store (:meth:`service.store.jobs.JobStore.queue`), so that any web
instance gives the same figures for the workers of every machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from service.store.jobs import FINAL, JobStore

REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter("bullscows_requests_total", "HTTP requests", ["endpoint", "status"], registry=REGISTRY)
LATENCY = Histogram("bullscows_request_seconds", "Request latency", ["endpoint"], registry=REGISTRY,
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
ANSWERS = Counter("bullscows_answers_total", "Answers of the answer chain (next moves, solves, explanations) by the "
                  "step that gave them: tree, best-known, cache, search, heuristic, busy, history", ["source"],
                  registry=REGISTRY)
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
        else:
            registry = REGISTRY
        from service.services import services

        queue = CollectorRegistry(auto_describe=True)
        held = services()
        queue.register(QueueCollector(held.jobs, held.settings.worker_live_s))
        return Response(generate_latest(registry) + generate_latest(queue), mimetype=CONTENT_TYPE_LATEST)


def record_answer(source: str, nodes: int) -> None:
    """Count one answer of the answer chain and the nodes it cost."""
    ANSWERS.labels(source).inc()
    NODES.inc(max(nodes, 0))


JOB_STATES = ("queued", "planning", "running", *FINAL)
"""Every state of a job: each is given, 0 when no job is in it, so that a query or an alert on one never finds it
missing."""
UNIT_STATES = ("queued", "running", "done", "skipped", "failed", "cancelled")
"""The states of a unit given even when no unit is in them (a state found beyond these is given too)."""
WORKERS_SHOWN_S = 3600.0
"""How long a worker that stopped heartbeating without stopping (killed) keeps its heartbeat gauge: long enough
for an alert on its age to fire, short enough that the workers of past days do not pile up as labels."""


class QueueCollector(Collector):
    """The job queue's gauges, read from the job store at each scrape.

    ``bullscows_jobs{state}`` and ``bullscows_job_units{state}`` count rows by status; ``bullscows_workers_alive``
    counts the workers heard from within ``live_s`` (``BULLSCOWS_WORKER_LIVE_S``, as ``GET /v1/jobs`` does);
    ``bullscows_worker_last_heartbeat_timestamp_seconds{worker}`` is each recent worker's last heartbeat as a Unix
    time (its age is ``time() - value``).  ``bullscows_job_store_up`` is 0, and the others are left out, when the
    database does not answer: the scrape still gives this process's counters.
    """

    def __init__(self, jobs: JobStore, live_s: float) -> None:
        self.jobs = jobs
        self.live_s = live_s

    def collect(self) -> Iterator[Metric]:
        from service.store.db import StorageError

        up = GaugeMetricFamily("bullscows_job_store_up", "Whether the job store answered this scrape")
        try:
            queue = self.jobs.queue(self.live_s, WORKERS_SHOWN_S)
        except StorageError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        for name, doc, counts, known in (
                ("bullscows_jobs", "Jobs in the job store by state", queue.jobs, JOB_STATES),
                ("bullscows_job_units", "Units of the jobs in the job store by state", queue.units, UNIT_STATES)):
            family = GaugeMetricFamily(name, doc, labels=["state"])
            for state in (*known, *sorted(set(counts) - set(known))):
                family.add_metric([state], counts.get(state, 0))
            yield family
        alive = GaugeMetricFamily("bullscows_workers_alive",
                                  f"Job workers heard from within the last {self.live_s:g} s")
        alive.add_metric([], queue.workers_alive)
        yield alive
        beats = GaugeMetricFamily("bullscows_worker_last_heartbeat_timestamp_seconds",
                                  "Unix time of each job worker's last heartbeat", labels=["worker"])
        for worker, at in sorted(queue.heartbeats.items()):
            beats.add_metric([worker], at.timestamp())
        yield beats


JOBS = Counter("bullscows_job_events_total",
               "Jobs submitted, reused (an identical one existed), handed off or cancelled", ["event"],
               registry=REGISTRY)


def record_job(event: str) -> None:
    """Count a job event of the web tier."""
    JOBS.labels(event).inc()
