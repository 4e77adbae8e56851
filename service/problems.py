"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``type``.

Solver input errors carry their own slug (``SolverError.slug``); HTTP errors of the framework
(malformed JSON, unknown route, validation) get one per status.  ``detail`` always says in words
what was wrong with the request.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIFlask, HTTPError
from flask import Response, json, request

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


class ProblemException(Exception):
    """Raise from anywhere in a request to answer with this problem response."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status)
        self.response = response


TITLES = {
    "invalid-game": "Invalid game",
    "game-too-large": "Game too large",
    "invalid-code": "Invalid code",
    "invalid-response": "Impossible response",
    "inconsistent-history": "Inconsistent history",
    "history-too-long": "History too long",
    "unknown-strategy": "Unknown strategy",
    "invalid-tree": "Invalid tree",
    "search-too-deep": "Search too deep",
    "invalid-search-parameters": "Invalid search parameters",
    "validation-error": "Invalid request",
    "malformed-json": "Malformed JSON",
    "solver-error": "Invalid input",
}
"""Human titles of the problem types (the ``type`` slug stays the stable, machine-readable part)."""


def title_of(slug: str) -> str:
    """The human title of a problem type: from :data:`TITLES`, else the slug in words."""
    return TITLES.get(slug) or slug.replace("-", " ").capitalize()


_KINDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false"}


def _is_branch(name: str) -> bool:
    """Whether a location element names the alternative of a union (pydantic puts it in the path)."""
    return name in _KINDS or name[:1].isupper() or name.startswith(("list[", "dict["))


def _describe_validation(detail: Any) -> str:
    """One readable sentence from APIFlask's nested validation detail.

    A field that accepts several forms (a game as a name or an object, a turn as a string or an
    object) is described once: by the errors inside the form the client sent, or, when it sent
    none of them, by the forms it accepts.
    """
    found: list[tuple[list[str], str]] = []

    def walk(obj: Any, path: list[str]) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, [*path, *str(k).split(".")])
        elif isinstance(obj, list) and all(isinstance(x, str) for x in obj):
            found.append(([p for p in path if p not in ("json", "query")], "; ".join(obj)))
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, [*path, str(i)])

    walk(detail, [])
    parts: list[str] = []
    unions: dict[tuple[str, ...], list[tuple[str, list[str], str]]] = {}
    for path, message in found:
        cut = next((i for i, p in enumerate(path) if _is_branch(p)), None)
        if cut is None:
            parts.append(f"{'.'.join(path) or 'body'}: {message}")
        else:
            unions.setdefault(tuple(path[:cut]), []).append((path[cut], path[cut + 1:], message))
    for field, errors in unions.items():
        where = ".".join(field) or "body"
        deep = [(rest, message) for _, rest, message in errors if rest]
        if deep:  # the client sent this form: say what is wrong inside it
            parts.extend(f"{'.'.join([*field, *rest])}: {message}" for rest, message in deep)
        else:
            kinds = dict.fromkeys(_KINDS.get(b, "an object") for b, _, _ in errors)
            parts.append(f"{where}: must be {' or '.join(kinds)}")
    return " | ".join(parts) or "the request does not match the schema"


def init_app(app: APIFlask) -> None:
    """Install the problem+json error processor, and document it in the OpenAPI document."""
    app.spec_processor(document_problems)
    app.register_error_handler(ProblemException, lambda exc: exc.response)

    @app.before_request
    def _json_object_bodies() -> Response | None:
        # APIFlask reads a body of `null` (or nothing) as "no fields given" and fills in defaults:
        # a request must not be able to start work it did not ask for, so a JSON body that is
        # present must be an object.
        if request.method in ("POST", "PUT", "PATCH") and request.mimetype == "application/json":
            raw = request.get_data(cache=True)
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError:
                    return None  # the framework answers malformed JSON itself
                if not isinstance(body, dict):
                    return problem(422, "validation-error", title_of("validation-error"),
                                   f"body: must be a JSON object, got {type(body).__name__}")
        return None

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
        title = title_of(slug) if slug in TITLES else str(err.message)
        resp = problem(err.status_code, slug, title, detail, **extra)
        for k, v in dict(err.headers or {}).items():
            resp.headers[k] = v
        return resp


PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An error (RFC 9457): `type` is stable, `detail` says what was wrong.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
    },
}

# Responses that are not JSON, by path and method: (status, media type, schema).
MEDIA: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {
    ("/v1/positions", "get"): ("200", "application/x-ndjson", {"type": "string"}),
    ("/metrics", "get"): ("200", "text/plain", {"type": "string"}),
}


# OpenAPI links: where an answer's fields feed the next call (clients, and schemathesis's stateful
# runs, follow them).  (path, method, status) → {link name: (target path, target method, link)}.
LINKS: dict[tuple[str, str, str], dict[str, tuple[str, str, dict[str, Any]]]] = {
    ("/v1/jobs", "post", "202"): {
        "GetJob": ("/v1/jobs/{job_id}", "get", {"parameters": {"job_id": "$response.body#/id"}}),
        "CancelJob": ("/v1/jobs/{job_id}", "delete", {"parameters": {"job_id": "$response.body#/id"}}),
    },
    ("/v1/solve", "post", "202"): {
        "GetJob": ("/v1/jobs/{job_id}", "get", {"parameters": {"job_id": "$response.body#/id"}}),
    },
    ("/v1/matches", "post", "201"): {
        "Reveal": ("/v1/matches/reveal", "post", {"requestBody": {"token": "$response.body#/token"}}),
    },
}


def document_problems(spec: dict[str, Any] | str) -> dict[str, Any] | str:
    """Say in the OpenAPI document what the service really sends: every error as
    ``application/problem+json`` (a ``default`` response on every operation), and the media types of
    the responses that are not JSON, so that clients and schemathesis can check them."""
    if isinstance(spec, str):  # the YAML form is made from the dict form; nothing to do
        return spec
    spec.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    ref = {"$ref": "#/components/schemas/Problem"}
    for path, ops in spec.get("paths", {}).items():
        for method, op in ops.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            responses = op["responses"]
            for code, resp in responses.items():
                if code[0] in "45":
                    resp["content"] = {PROBLEM_JSON: {"schema": ref}}
            responses.setdefault("default", {"description": "An error (problem+json)",
                                             "content": {PROBLEM_JSON: {"schema": ref}}})
            for (lpath, lmethod, status), links in LINKS.items():
                if (lpath, lmethod) == (path, method) and status in responses:
                    responses[status]["links"] = {
                        name: {"operationId": spec["paths"][tpath][tmethod].get("operationId"), **link}
                        for name, (tpath, tmethod, link) in links.items()}
            media = MEDIA.get((path, method))
            if media is not None:
                status, mime, schema = media
                responses.setdefault(status, {"description": "Successful response"})["content"] = {
                    mime: {"schema": schema}}
    return spec
