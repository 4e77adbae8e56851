"""Liveness (``/healthz``) and readiness (``/readyz``: the solver's kernels are loaded, and the database
answers and has its schema)."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import current_app

from service.problems import problem
from service.schemas import Health
from service.services import get_db

bp = APIBlueprint("health", __name__, tag="health")


@bp.get("/healthz")
@bp.output(Health)
def healthz() -> dict[str, Any]:
    """The process is alive."""
    return {"status": "ok"}


@bp.get("/readyz")
@bp.output(Health)
@bp.doc(responses={503: "still loading the solver's kernels, or the database is unreachable or not migrated"})
def readyz() -> Any:
    """The service can answer: its kernels are loaded (a question asked before would spend its time
    budget loading them), and its database is reachable and migrated."""
    from service.engine import is_warm

    if not is_warm():
        return problem("warming-up",
                       "the solver's kernels are still loading; ask again in a moment")
    if not get_db(current_app).ping():
        return problem("database-unavailable",
                       "the database is unreachable or has no schema (run `bullscows db upgrade`)")
    return {"status": "ok", "database": "ok"}
