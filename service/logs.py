"""Structured JSON logs (structlog) with a request id on every line of a request.

The id comes from the client's ``X-Request-ID`` (when it is a short token) or is generated, is bound
to the logging context for the request, and is echoed in the response header so a client can quote it.
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid

import structlog
from flask import Flask, Response, g, request

_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def configure() -> None:
    """JSON lines on stderr, timestamped, with context variables merged in."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,  # keeps the logger reconfigurable (tests capture it)
    )


log = structlog.get_logger("bullscows")


def init_app(app: Flask) -> None:
    """Bind a request id per request and log one ``request`` line per response."""
    configure()

    @app.before_request
    def _bind() -> None:
        asked = request.headers.get("X-Request-ID", "")
        rid = asked if _SAFE_ID.match(asked) else uuid.uuid4().hex
        g.request_id = rid
        g.log_start = time.perf_counter()
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=rid)

    @app.after_request
    def _log(resp: Response) -> Response:
        rid = getattr(g, "request_id", None)
        if rid:
            resp.headers["X-Request-ID"] = rid
        start = getattr(g, "log_start", None)
        log.info("request", method=request.method, path=request.path, status=resp.status_code,
                 ms=round((time.perf_counter() - start) * 1000, 3) if start else None)
        return resp
