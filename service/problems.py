"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``type``.

Solver input errors carry their own slug (``SolverError.slug``); HTTP errors of the framework
(malformed JSON, unknown route, validation) get one per status.  ``detail`` always says in words
what was wrong with the request.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIFlask, HTTPError
from flask import Response, json

PROBLEM_BASE = "/problems/"
PROBLEM_JSON = "application/problem+json"

STATUS_SLUGS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    413: "request-too-large",
    415: "unsupported-media-type",
    422: "validation-error",
    429: "too-many-requests",
    500: "internal-error",
    503: "unavailable",
}


def problem(status: int, slug: str, title: str, detail: str, **extra: Any) -> Response:
    """A problem+json response."""
    body = {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail, **extra}
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)


def _describe_validation(detail: Any) -> str:
    """One readable sentence from APIFlask's nested validation detail."""
    parts: list[str] = []

    def walk(obj: Any, path: list[str]) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, [*path, str(k)])
        elif isinstance(obj, list) and all(isinstance(x, str) for x in obj):
            where = ".".join(p for p in path if p not in ("json", "query")) or "body"
            parts.append(f"{where}: {'; '.join(obj)}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, [*path, str(i)])

    walk(detail, [])
    return " | ".join(parts) or "the request does not match the schema"


def init_app(app: APIFlask) -> None:
    """Install the problem+json error processor."""

    @app.error_processor
    def _http_error(err: HTTPError) -> Response:
        slug = STATUS_SLUGS.get(err.status_code, f"http-{err.status_code}")
        if err.status_code == 422 or (err.status_code == 400 and err.detail):
            detail = _describe_validation(err.detail)
        elif err.status_code == 400:
            detail = "the request body is not valid JSON" if err.message == "Bad Request" else str(err.message)
            slug = "malformed-json" if err.message == "Bad Request" else slug
        else:
            detail = str(err.message)
        extra: dict[str, Any] = {}
        if err.status_code == 422 and err.detail:
            extra["errors"] = err.detail
        resp = problem(err.status_code, slug, str(err.message), detail, **extra)
        for k, v in dict(err.headers or {}).items():
            resp.headers[k] = v
        return resp
