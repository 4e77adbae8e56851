"""Per-client rate limits (flask-limiter): 429 with ``Retry-After`` on the calls that cost.

One limiter per app (each app has its own counters; with ``rate_limit_storage`` on Redis every
process and machine of a deployment shares them).  Clients are told apart by their token, else
their address (:func:`service.auth.client_id`).
"""

from __future__ import annotations

import math
import time

from apiflask import APIFlask
from flask import Response
from flask_limiter import Limiter, RateLimitExceeded

from service.auth import client_id
from service.config import Settings
from service.problems import problem

# endpoint → the setting holding its limit
LIMITED = {
    "solve.solve": "rate_limit_expensive",
    "explain.explain": "rate_limit_expensive",
    "jobs.post_job": "rate_limit_expensive",
    "strategies.statistics": "rate_limit_expensive",
    "strategies.build": "rate_limit_expensive",
    "strategies.whole_tree": "rate_limit_expensive",
    "positions.import_positions": "rate_limit_expensive",
    "games.new_match": "rate_limit_expensive",
    "moves.next_move": "rate_limit_moves",
    "games.score": "rate_limit_moves",
}


def init_app(app: APIFlask, settings: Settings) -> Limiter:
    """Wrap the costly endpoints of ``app`` (call after the blueprints are registered); the app keeps the
    limiter in its :class:`service.services.Services`."""
    limiter = Limiter(client_id, app=app, storage_uri=settings.rate_limit_storage, headers_enabled=False,
                      strategy="moving-window", key_prefix=settings.rate_limit_prefix)

    @app.errorhandler(RateLimitExceeded)
    def _too_many(exc: RateLimitExceeded) -> Response:
        current = limiter.current_limit
        retry = max(1, math.ceil(current.reset_at - time.time())) if current is not None else 60
        resp = problem("too-many-requests",
                       f"this client exceeded the limit of {exc.description} on this call; retry in {retry} s")
        resp.headers["Retry-After"] = str(retry)
        return resp

    for endpoint, setting in LIMITED.items():
        view = app.view_functions[endpoint]
        app.view_functions[endpoint] = limiter.limit(getattr(settings, setting))(view)  # type: ignore[assignment]
    return limiter
