"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``type``.

:data:`PROBLEMS` is the one table of problem types: every error the service answers has a slug there,
and the status and human title come from there, whichever route, handler or framework error sends
it, so that the same problem never has two statuses or two titles.  ``docs/http-api.md`` carries the
same table (a test compares them).  ``detail`` always says in words what was wrong with the request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiflask import APIFlask, HTTPError
from flask import Response, json, request

PROBLEM_BASE = "/problems/"
PROBLEM_JSON = "application/problem+json"


@dataclass(frozen=True)
class ProblemType:
    """One kind of error: its HTTP status, a human title, and when it happens (for the docs)."""

    status: int
    title: str
    when: str


PROBLEMS: dict[str, ProblemType] = {
    # the request itself
    "validation-error": ProblemType(422, "Invalid request", (
        "a body field or query parameter has the wrong type, is out of its bounds (the OpenAPI document's, "
        "which are the service's settings), is unknown, or is missing; `detail` names each one "
        "(`history[0].cows: must be at most 15, got 99`), and `errors` lists them")),
    "malformed-json": ProblemType(400, "Malformed JSON", "the body is not valid JSON"),
    "bad-request": ProblemType(400, "Bad request", (
        "any other error of the HTTP layer with a 4xx status (none is known to happen; `detail` gives its own)")),
    "not-found": ProblemType(404, "Not found", "no such route"),
    "method-not-allowed": ProblemType(405, "Method not allowed", "the route does not take this method"),
    "request-too-large": ProblemType(413, "Request too large", "the body is larger than `BULLSCOWS_MAX_REQUEST_BYTES`"),
    "range-not-satisfiable": ProblemType(416, "Range not satisfiable", "a `Range` header past the end of a page file"),
    "unauthorized": ProblemType(401, "Unauthorized", (
        "a call that needs a bearer token (an import, a job past the free budget) came without a valid one")),
    "too-many-requests": ProblemType(429, "Too many requests", "the client exceeded a rate limit (see `Retry-After`)"),
    # the game, the history and the question
    "invalid-game": ProblemType(400, "Invalid game", "an unknown preset, or parameters that make no game"),
    "game-too-large": ProblemType(422, "Game too large", (
        "the game has more codes than `BULLSCOWS_MAX_CODES` (`GET /v1/games`: `limits.max_codes`)")),
    "invalid-code": ProblemType(400, "Invalid code", (
        "a guess of the wrong length, with symbols the game does not have, or repeating one where it may not")),
    "invalid-response": ProblemType(400, "Invalid response", (
        "a response that is malformed, or that no guess can get in this game")),
    "inconsistent-history": ProblemType(400, "Inconsistent history", (
        "no secret agrees with every turn (`detail` names the first turn that contradicts the earlier ones)")),
    "invalid-search-parameters": ProblemType(400, "Invalid search parameters", (
        "search parameters that do not fit together or the position (`max_guesses` used up, `depth_count` out of "
        "range), or an exact search of a game larger than `BULLSCOWS_EXACT_SEARCH_MAX_CODES`")),
    "max-guesses-needed": ProblemType(422, "max_guesses needed", (
        "a k-movers question without `max_guesses`, in a game whose smallest worst case is not known "
        "(elsewhere it is the default)")),
    "game-finished": ProblemType(422, "Game already finished", (
        "a question about the next guess (`POST /v1/explain`) after a history that ends in the winning response")),
    "search-too-deep": ProblemType(400, "Search too deep", "a search needed more plies than its workspace holds"),
    "solver-error": ProblemType(400, "Not possible as asked", (
        "the question has no answer: no strategy solves every secret within `max_guesses`, or a strategy "
        "makes no progress")),
    "invalid-tree": ProblemType(400, "Invalid tree", "a strategy tree does not describe a strategy of its game"),
    # strategies and their trees
    "unknown-strategy": ProblemType(404, "Unknown strategy", "`/v1/strategies/{game}/{strategy}` names no strategy"),
    "no-best-known-tree": ProblemType(404, "No best known tree", (
        "`best-known` asked of a game that ships no such tree")),
    "not-in-tree": ProblemType(404, "Not in the tree", "a tree `path` the tree does not play"),
    "strategy-too-expensive": ProblemType(422, "Too expensive for a request", (
        "a `GET` of a tree that neither exists nor can be built within a request (the `POST` builds it as a job)")),
    # jobs, matches, imports
    "job-not-found": ProblemType(404, "No such job", "no job has this id"),
    "job-finished": ProblemType(409, "Job already finished", "cancelling a job that is done, failed or cancelled"),
    "invalid-match-token": ProblemType(400, "Invalid match token", (
        "a match token that is malformed, was not issued by this service, or has expired")),
    "invalid-import": ProblemType(422, "Invalid import", "a line of an import is invalid (nothing is stored)"),
    # the service
    "warming-up": ProblemType(503, "Warming up", "`/readyz` while the solver's kernels are still loading"),
    "database-unavailable": ProblemType(503, "Database unavailable", (
        "the database cannot be reached, or (`/readyz`) has no schema; `Retry-After` when it may come back")),
    "database-busy": ProblemType(503, "Database busy", "the database is locked by another writer; retry shortly"),
    "database-read-only": ProblemType(503, "Database read-only", "a write refused by a read-only database"),
    "storage-full": ProblemType(507, "Storage full", "the database has no room left"),
    "internal-error": ProblemType(500, "Internal error", (
        "a bug: the service failed unexpectedly (and any other 5xx error of the HTTP layer)")),
}
"""Every problem type the service answers with, by slug (``type`` is ``/problems/{slug}``)."""

STATUS_SLUGS = {400: "bad-request", 401: "unauthorized", 404: "not-found", 405: "method-not-allowed",
                413: "request-too-large", 416: "range-not-satisfiable",
                422: "validation-error", 429: "too-many-requests", 500: "internal-error"}
"""The problem type of an HTTP error raised by the framework (werkzeug, APIFlask), by status; any other
status (none is known to happen) answers ``bad-request`` or ``internal-error``, with its own in ``detail``."""


PAGE_BLUEPRINTS = frozenset({"web"})
"""Blueprints of the web page, not of the API: their query strings are not checked."""


def problem(slug: str, detail: str, **extra: Any) -> Response:
    """The problem+json response of a problem type of :data:`PROBLEMS` (its status and title)."""
    kind = PROBLEMS[slug]
    body = {"type": PROBLEM_BASE + slug, "title": kind.title, "status": kind.status, "detail": detail, **extra}
    return Response(json.dumps(body), status=kind.status, mimetype=PROBLEM_JSON)


class ProblemException(Exception):
    """Raise from anywhere in a request to answer with this problem response."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status)
        self.response = response


def fail(slug: str, detail: str, **extra: Any) -> ProblemException:
    """The exception that answers with this problem (``raise fail(...)``)."""
    return ProblemException(problem(slug, detail, **extra))


# -- validation errors, in the API's own words --------------------------------------------------------

NOT_A_PARAMETER = "is not a parameter of this call"
"""What an unknown query parameter is told, whether a call's query schema or no schema at all refuses it."""

_KINDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false", "none": "null"}
"""What a union's alternative is called, by the tag pydantic puts in an error's location."""

_MISMATCH = {
    "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer", "int_from_float": "an integer",
    "float_type": "a number", "float_parsing": "a number", "bool_type": "true or false",
    "bool_parsing": "true or false", "list_type": "a list", "model_type": "an object",
    "model_attributes_type": "an object", "dict_type": "an object",
}
"""Errors that say the value is of the wrong kind, and the kind wanted."""


def _is_branch(part: str | int) -> bool:
    """Whether a location element is the tag of a union's alternative (``TurnIn``, ``str``, ``list[…]``),
    which pydantic puts in the path; field names are lower-case words."""
    return isinstance(part, str) and (part in _KINDS or part[:1].isupper() or "[" in part)


def _where(path: list[str | int], root: str) -> str:
    """``history[0].cows``: names joined by dots, list indexes in brackets; the body itself is ``root``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + part
    return out or root


def _shown(value: Any) -> str:
    """A value as a message quotes it: short scalars as themselves, anything else by its JSON kind."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float | str) and len(repr(value)) <= 40:
        return repr(value) if isinstance(value, str) else str(value)
    kinds = {dict: "an object", list: "a list", str: "a long string"}
    return next((k for t, k in kinds.items() if isinstance(value, t)), "a number")


def _message(err: dict[str, Any], where: str) -> str:
    """One error's message: what the value must be, and what was sent."""
    kind, ctx, got = err["type"], err.get("ctx") or {}, err.get("input")
    if kind in _MISMATCH:
        return f"must be {_MISMATCH[kind]}, got {_shown(got)}"
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return NOT_A_PARAMETER if where == "query" else "is not a field of this request"
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}, got {_shown(got)}"
    if kind in ("too_long", "too_short"):
        words, key = ("at most", "max_length") if kind == "too_long" else ("at least", "min_length")
        return f"must have {words} {ctx.get(key)} items, got {ctx.get('actual_length', len(got or []))}"
    if kind in ("string_too_long", "string_too_short"):
        if kind == "string_too_short" and ctx.get("min_length") == 1:
            return "must not be empty"
        words, key = ("at most", "max_length") if kind == "string_too_long" else ("at least", "min_length")
        return f"must be {words} {ctx.get(key)} characters long, got {len(got) if isinstance(got, str) else '?'}"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}, got {_shown(got)}"
    message = str(err["msg"])  # our own validators' messages, and any other pydantic error
    if message.startswith("Input should "):
        message = "must " + message.removeprefix("Input should ")
    return message.replace(" or instance of ", " ").split(" [type=")[0]


def describe_errors(errors: list[dict[str, Any]], where: str) -> list[dict[str, str]]:
    """Pydantic's errors as the API states them: ``{"field", "in", "message"}``, one per bad input.

    ``where`` is ``body`` or ``query``.  A field that accepts several forms (a game as a name or an
    object, a turn as a string or an object) is described once: by the errors inside the form the client
    sent, or, when it sent none of them, by the forms it accepts.  No class name of the schemas appears.
    """
    out: list[dict[str, str]] = []
    unions: dict[tuple[str | int, ...], list[tuple[str, list[str | int], dict[str, Any]]]] = {}
    for err in errors:
        path = list(err["loc"])
        cut = next((i for i, p in enumerate(path) if _is_branch(p)), None)
        if cut is None:
            out.append({"field": _where(path, where), "in": where, "message": _message(err, where)})
        else:
            unions.setdefault(tuple(path[:cut]), []).append((str(path[cut]), path[cut + 1:], err))
    for field, alternatives in unions.items():
        # errors past the alternative's own kind: the client sent this form, say what is wrong inside it
        inside = [(rest, err) for _, rest, err in alternatives if rest or err["type"] not in _MISMATCH]
        if inside:
            out.extend({"field": _where([*field, *rest], where), "in": where, "message": _message(err, where)}
                       for rest, err in inside)
        else:
            kinds = dict.fromkeys(_KINDS.get(tag, "an object") for tag, _, _ in alternatives)
            got = _shown(alternatives[0][2].get("input"))
            out.append({"field": _where(list(field), where), "in": where,
                        "message": f"must be {' or '.join(kinds)}, got {got}"})
    return out


def _validation_problem(err: HTTPError) -> Response:
    """A 422 of the schema layer, from pydantic's own errors (APIFlask keeps them as the cause)."""
    from pydantic import ValidationError

    cause = err.__cause__
    where = "query" if "query" in (err.detail or {}) else "body"
    if not isinstance(cause, ValidationError):
        return problem("validation-error", str(err.message))
    return _invalid(describe_errors([dict(e) for e in cause.errors()], where))


def _invalid(errors: list[dict[str, str]]) -> Response:
    """The ``validation-error`` of these bad inputs: each named in ``detail``, and listed in ``errors``."""
    detail = " | ".join(f"{e['field']}: {e['message']}" for e in errors) or "the request does not match the schema"
    return problem("validation-error", detail, errors=errors)


def _framework_problem(err: HTTPError) -> Response:
    """Any other HTTP error of the framework, as the problem type of its status."""
    status = err.status_code
    slug = STATUS_SLUGS.get(status) or ("bad-request" if status < 500 else "internal-error")
    detail = str(err.message)
    if status == 400 and err.message == "Bad Request":
        slug, detail = "malformed-json", "the request body is not valid JSON"
    elif status == 404:
        detail = f"there is no route {request.path}"
    elif status == 413:
        detail = "the request body is larger than the service accepts (BULLSCOWS_MAX_REQUEST_BYTES)"
    elif status == 405:
        detail = f"{request.path} does not take {request.method}"
        allowed = dict(err.headers or {}).get("Allow")
        if allowed:
            detail += f"; it takes {allowed}"
    elif status not in STATUS_SLUGS:
        detail = f"HTTP {status}: {detail}"
    return problem(slug, detail)


def init_app(app: APIFlask) -> None:
    """Install the problem+json error processor (the app's OpenAPI document says it:
    :func:`document_problems`)."""
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
                    message = f"must be a JSON object, got {_shown(body)}"
                    return problem("validation-error", f"body: {message}",
                                   errors=[{"field": "body", "in": "body", "message": message}])
        return None

    @app.before_request
    def _declared_query_only() -> Response | None:
        # A call with a query schema has its parameters checked by it (extra ones forbidden); a call
        # without one would silently ignore whatever it is sent, so its unknown parameters are refused
        # here, once for every route, in the schema layer's own words.  The page and its files are not
        # the API: a link to them may carry anything.
        if not request.args or request.blueprint in PAGE_BLUEPRINTS or request.endpoint in (None, "static"):
            return None
        view = app.view_functions[request.endpoint]
        if any(location == "query" for _, location in getattr(view, "_spec", {}).get("args") or ()):
            return None
        return _invalid([{"field": name, "in": "query", "message": NOT_A_PARAMETER}
                         for name in dict.fromkeys(request.args)])

    @app.error_processor
    def _http_error(err: HTTPError) -> Response:
        resp = _validation_problem(err) if err.status_code == 422 else _framework_problem(err)
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
        "errors": {"type": "array", "description": "validation-error: each bad input (`field` as "
                   "`history[0].cows`, `in`: `body` or `query`, and what it must be)", "items": {
                       "type": "object", "required": ["field", "in", "message"], "properties": {
                           "field": {"type": "string"}, "in": {"type": "string", "enum": ["body", "query"]},
                           "message": {"type": "string"}}}},
    },
}

# Responses that are not JSON, by path and method: (status, media type, schema).
MEDIA: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {
    ("/v1/positions", "get"): ("200", "application/x-ndjson", {"type": "string"}),
    ("/metrics", "get"): ("200", "text/plain", {"type": "string"}),
}


# Responses that may also be in another media type than JSON (a query parameter chooses), by path and method:
# (status, media type, schema), added beside the JSON.
ALSO_MEDIA: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {
    ("/v1/strategies/{game}/{strategy}/tree", "get"): ("200", "text/plain", {
        "type": "string", "description": "format=lengths: '#' lines, then one 'CODE LENGTH' line per secret"}),
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


def document_problems(spec: dict[str, Any]) -> dict[str, Any]:
    """Say in the OpenAPI document what the service really sends: every error as ``application/problem+json`` (a
    ``default`` response on every operation) and the media types of the responses that are not JSON, so that
    clients and schemathesis can check them."""
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
            also = ALSO_MEDIA.get((path, method))
            if also is not None:
                status, mime, schema = also
                responses.setdefault(status, {"description": "Successful response"}).setdefault(
                    "content", {})[mime] = {"schema": schema}
            media = MEDIA.get((path, method))
            if media is not None:
                status, mime, schema = media
                responses.setdefault(status, {"description": "Successful response"})["content"] = {
                    mime: {"schema": schema}}
    return spec
