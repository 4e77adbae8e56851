"""One HTTP contract: every error a problem type of one table (``service.problems.PROBLEMS``, the same
as the docs'), every bound of the OpenAPI document the one enforced, validation messages in the API's
own words, and ``max_guesses`` resolved and echoed the same way by every route."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from apiflask import APIFlask
from flask.testing import FlaskClient
from werkzeug.exceptions import ImATeapot
from werkzeug.test import TestResponse

import service.api.parse
import service.app
from service.problems import PROBLEM_BASE, PROBLEM_JSON, PROBLEMS
from service.services import services
from service.store.db import storage_error
from solver.errors import InvalidTreeError, SolverError
from solver.question import SearchTooDeepError
from tests.service.conftest import backend_agnostic, make_app
from tests.service.test_positions_strategies import _line, import_token

DOCS = Path(__file__).resolve().parents[2] / "docs" / "http-api.md"

assert service.app and service.api.parse  # every SolverError subclass is defined


def is_problem(r: TestResponse) -> str:
    """The slug of a problem answer, after checking it against the table (status, title, media type)."""
    assert r.mimetype == PROBLEM_JSON, (r.status_code, r.get_data(as_text=True)[:300])
    body = r.json
    assert body is not None and body["type"].startswith(PROBLEM_BASE), body
    slug = body["type"].removeprefix(PROBLEM_BASE)
    assert slug in PROBLEMS, f"{slug} is not in the table"
    kind = PROBLEMS[slug]
    assert (r.status_code, body["status"], body["title"]) == (kind.status, kind.status, kind.title), body
    assert body["detail"], body
    return str(slug)


def test_the_docs_table_is_the_code_table() -> None:
    """docs/http-api.md lists every problem type with the status and title the service answers with."""
    text = DOCS.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `/problems/([a-z0-9-]+)` \| (\d+) \| ([^|]+?) \| ([^|]+?) \|$", text, re.MULTILINE)
    documented = {slug: (int(status), title) for slug, status, title, _ in rows}
    assert len(documented) == len(rows), "a problem type is documented twice"
    assert documented == {slug: (k.status, k.title) for slug, k in PROBLEMS.items()}


def _subclasses(cls: type[SolverError]) -> list[type[SolverError]]:
    return [cls, *(s for sub in cls.__subclasses__() for s in _subclasses(sub))]


@backend_agnostic
@pytest.mark.parametrize("error", _subclasses(SolverError), ids=lambda c: c.__name__)
def test_every_solver_error_is_a_problem_of_the_table(client: FlaskClient, app: APIFlask,
                                                      error: type[SolverError]) -> None:
    """Each SolverError class names its own slug (none falls back to a parent's, or to its class name),
    and whatever route raises it answers with that slug's status and title."""
    assert "slug" in vars(error), f"{error.__name__} has no slug of its own"
    jobs = services(app).jobs

    def fails(*_: Any, **__: Any) -> Any:
        raise error(f"a {error.__name__}")

    jobs.list_jobs = fails
    r = client.get("/v1/jobs")
    assert is_problem(r) == error.slug and r.json["detail"] == f"a {error.__name__}"
    assert error.__name__ not in r.json["title"]


def _broken(app: APIFlask, exc: Exception) -> Callable[[FlaskClient], TestResponse]:
    """A request whose store fails with ``exc`` (how a database error, a bug, or an unexpected HTTP error
    would reach the client)."""
    def fails(*_: Any, **__: Any) -> Any:
        raise exc

    def ask(client: FlaskClient) -> TestResponse:
        services(app).jobs.list_jobs = fails
        return client.get("/v1/jobs")

    return ask


PROVOKE: dict[str, Callable[[FlaskClient], TestResponse]] = {
    "validation-error": lambda c: c.post("/v1/next-move", json={"history": [{"guess": "0123", "bulls": 1}]}),
    "malformed-json": lambda c: c.post("/v1/solve", data="{nope", content_type="application/json"),
    "not-found": lambda c: c.get("/v1/nothing"),
    "method-not-allowed": lambda c: c.put("/v1/solve", json={}),
    "range-not-satisfiable": lambda c: c.get("/static/web/app.js", headers={"Range": "bytes=99999999-"}),
    "unauthorized": lambda c: c.post("/v1/positions", data=_line()),
    "invalid-game": lambda c: c.get("/v1/games/chess"),
    "game-too-large": lambda c: c.get("/v1/strategies/9,10,1/entropy"),
    "invalid-code": lambda c: c.get("/v1/strategies/mastermind/optimal-total/tree?path=00 1.0"),
    "invalid-response": lambda c: c.post("/v1/solve", json={"game": "mastermind", "history": ["0012 3.1"]}),
    "inconsistent-history": lambda c: c.post("/v1/jobs", json={"history": ["0123 0.0", "4567 0.0"]}),
    "invalid-search-parameters": lambda c: c.post("/v1/solve", json={"history": ["0123 0.1"], "max_guesses": 1}),
    "max-guesses-needed": lambda c: c.post("/v1/next-move", json={"game": "2,11,1", "strategy": "optimal-kmovers"}),
    "game-finished": lambda c: c.post("/v1/explain", json={"game": "mastermind", "history": ["0012 4.0"],
                                                           "guess": "0012"}),
    "solver-error": lambda c: c.post("/v1/strategies/3,6,0/optimal-kmovers", json={"max_guesses": 1}),
    "unknown-strategy": lambda c: c.get("/v1/strategies/mastermind/knuth"),
    "no-best-known-tree": lambda c: c.get("/v1/strategies/mastermind/best-known"),
    "not-in-tree": lambda c: c.get("/v1/strategies/mastermind/optimal-total/tree?path=5555 0.0"),
    "strategy-too-expensive": lambda c: c.get("/v1/strategies/4,11,0/optimal-total"),
    "job-not-found": lambda c: c.get("/v1/jobs/nope"),
    "invalid-match-token": lambda c: c.post("/v1/matches/reveal", json={"token": "forged"}),
}
"""A request that provokes each problem type on the plain app (the others need an app of their own)."""


@backend_agnostic
def test_every_documented_problem_is_answered_as_documented(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each problem type of the table, provoked through the real app, has the table's status and title."""
    seen: set[str] = set()

    def check(slug: str, r: TestResponse) -> None:
        assert is_problem(r) == slug, r.json
        seen.add(slug)

    app = make_app(db_url, MAX_REQUEST_BYTES=2000)
    client = app.test_client()
    for slug, ask in PROVOKE.items():
        check(slug, ask(client))
    check("request-too-large", client.post("/v1/solve", data="x" * 3000, content_type="application/json"))
    token = import_token(app)
    check("invalid-import", client.post("/v1/positions", data="{nope", headers={"Authorization": f"Bearer {token}"}))
    job = client.post("/v1/jobs", json={"game": "5,6,1", "criterion": "total"}).json["id"]
    assert client.delete(f"/v1/jobs/{job}").status_code == 200
    check("job-finished", client.delete(f"/v1/jobs/{job}"))
    import service.engine

    monkeypatch.setattr(service.engine, "is_warm", lambda: False)
    check("warming-up", client.get("/readyz"))
    monkeypatch.undo()
    for message, slug in [("database is locked", "database-busy"), ("attempt to write a readonly database",
                                                                    "database-read-only"),
                          ("database or disk is full", "storage-full"), ("connection refused", "database-unavailable")]:
        check(slug, _broken(app, storage_error(Exception(message)))(client))
    # solver errors no request is known to cause (a search deeper than its workspace, a tree that is no
    # strategy), answered wherever they would happen
    for error in (SearchTooDeepError, InvalidTreeError):
        check(error.slug, _broken(app, error("not expected"))(client))
    check("bad-request", _broken(app, ImATeapot())(client))
    app.config["PROPAGATE_EXCEPTIONS"] = False  # as served: a bug is a 500 answer, not a test's exception
    check("internal-error", _broken(app, RuntimeError("a bug"))(client))
    limited = make_app(db_url, RATE_LIMIT_EXPENSIVE="1/minute").test_client()
    limited.get("/v1/strategies/mastermind/minimax")
    check("too-many-requests", limited.get("/v1/strategies/mastermind/minimax"))
    assert seen == set(PROBLEMS), f"never provoked: {set(PROBLEMS) - seen}"


BAD_BODIES: list[Any] = [{"zz": 1}, [1], {"game": 5, "history": "x", "max_guesses": -3, "time_budget_ms": 10**9}]


@backend_agnostic
def test_every_route_answers_its_errors_from_the_table(app: APIFlask, client: FlaskClient) -> None:
    """Every route of the app, asked with bad path values, bad query parameters, bad bodies and a method it
    does not take: every error is problem+json of a type of the table, with its status and title."""
    errors = 0
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: {"game": "mastermind", "strategy": "knuth"}.get(m[1], "x"),
                      rule.rule)
        answers = [client.open(path, method="PATCH")]
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            answers.append(client.open(path + "?max_guesses=abc&limit=-1&zz=1", method=method))
            if method in ("POST", "PUT"):
                answers += [client.open(path, method=method, json=body) for body in BAD_BODIES]
                answers.append(client.open(path, method=method, data="{x", content_type="application/json"))
        for r in answers:
            if r.status_code >= 400:
                is_problem(r)
                errors += 1
            r.close()  # a page file's answer holds its file open
    assert errors > 50


def _schema(doc: dict[str, Any], ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in ref_or_schema:
        found: dict[str, Any] = doc["components"]["schemas"][ref_or_schema["$ref"].rsplit("/", 1)[1]]
        return found
    return ref_or_schema


def _bound(doc: dict[str, Any], path: str, method: str, name: str, key: str) -> int:
    """A bound as the OpenAPI document states it: of a body field, or of a query parameter."""
    op = doc["paths"][path][method]
    if "requestBody" in op:
        body = _schema(doc, op["requestBody"]["content"]["application/json"]["schema"])
        prop = body["properties"][name]
    else:
        prop = next(p["schema"] for p in op["parameters"] if p["name"] == name and p["in"] == "query")
    for candidate in [prop, *prop.get("anyOf", [])]:
        if key in candidate:
            return int(candidate[key])
    raise AssertionError(f"{method} {path} states no {key} for {name}")


def _refused(r: TestResponse, name: str) -> None:
    assert r.status_code == 422 and is_problem(r) == "validation-error", r.json
    assert r.json["detail"].startswith(f"{name}: ") and [e["field"] for e in r.json["errors"]] == [name]


# (path, method, field, bound keyword, a request that is cheap whatever the value).  A request that would
# start or wait for a job names a game that does not exist: its answer (invalid-game) shows that the schema
# layer let the value through, without the work.
BOUNDS: list[tuple[str, str, str, str, dict[str, Any]]] = [
    ("/v1/next-move", "post", "history", "maxItems", {"strategy": "first-consistent"}),
    ("/v1/next-move", "post", "time_budget_ms", "maximum", {"strategy": "first-consistent"}),
    ("/v1/next-move", "post", "time_budget_ms", "minimum", {"strategy": "first-consistent"}),
    ("/v1/next-move", "post", "max_guesses", "maximum", {"game": "mastermind"}),
    ("/v1/next-move", "post", "max_guesses", "minimum", {"game": "mastermind", "strategy": "first-consistent"}),
    ("/v1/solve", "post", "history", "maxItems", {"game": "chess"}),
    ("/v1/solve", "post", "time_budget_ms", "maximum", {"game": "mastermind"}),
    ("/v1/solve", "post", "wait_ms", "maximum", {"game": "chess"}),
    ("/v1/jobs", "post", "history", "maxItems", {"game": "chess"}),
    ("/v1/jobs", "post", "wait_ms", "maximum", {"game": "chess"}),
    ("/v1/strategies/{game}/{strategy}", "post", "wait_ms", "maximum", {}),
    ("/v1/strategies/{game}/{strategy}", "post", "max_guesses", "maximum", {}),
    ("/v1/strategies/{game}/{strategy}", "get", "max_guesses", "maximum", {}),
    ("/v1/strategies/{game}/{strategy}/tree", "get", "depth", "maximum", {"path": ""}),
    ("/v1/strategies/{game}/{strategy}/tree", "get", "depth", "minimum", {"path": ""}),
    ("/v1/jobs", "get", "limit", "maximum", {}),
    ("/v1/jobs", "get", "limit", "minimum", {}),
]


def _value(field: str, n: int) -> Any:
    """``n`` as the field takes it: a history of ``n`` turns (Bulls-and-Cows, consistent, not won), else n."""
    return ["0123 0.1"] * n if field == "history" else n


@backend_agnostic
@pytest.mark.parametrize("config", [{}, {"MAX_HISTORY": 3, "MAX_TIME_BUDGET_MS": 300, "MAX_WAIT_MS": 40}],
                         ids=["default settings", "other settings"])
def test_every_bound_of_the_document_is_the_one_enforced(db_url: str, config: dict[str, Any]) -> None:
    """Each bound the OpenAPI document states, read from the document: a value just within it is accepted,
    one just past it is refused with a 422 naming the field.  The bounds that are settings follow the app's
    settings, in the document and in what is enforced."""
    client = make_app(db_url, **config).test_client()
    doc = client.get("/openapi.json").json
    for key, setting in (("MAX_HISTORY", ("/v1/next-move", "history", "maxItems")),
                         ("MAX_TIME_BUDGET_MS", ("/v1/solve", "time_budget_ms", "maximum")),
                         ("MAX_WAIT_MS", ("/v1/jobs", "wait_ms", "maximum"))):
        if key in config:
            assert _bound(doc, setting[0], "post", setting[1], setting[2]) == config[key]
    for path, method, field, key, base in BOUNDS:
        limit = _bound(doc, path, method, field, key)
        url = path.format(game="mastermind", strategy="optimal-total")
        step = 1 if key in ("maximum", "maxItems") else -1
        for value, ok in ((limit, True), (limit + step, False)):
            if method == "get":
                r = client.get(url, query_string={**base, field: value})
            else:
                r = client.open(url, method=method.upper(), json={**base, field: _value(field, value)})
            if ok:
                assert r.status_code < 400 or is_problem(r) != "validation-error", (path, field, value, r.json)
                assert r.status_code in (200, 202) or base.get("game") == "chess", (path, field, value, r.json)
            else:
                _refused(r, field)


@backend_agnostic
def test_the_game_size_bound_is_stated_and_enforced(db_url: str) -> None:
    """The game object states the largest game (``x-max-codes``, the app's BULLSCOWS_MAX_CODES)."""
    client = make_app(db_url, MAX_CODES=1296).test_client()
    doc = client.get("/openapi.json").json
    assert doc["components"]["schemas"]["MatchIn.GameSpec"]["x-max-codes"] == 1296
    assert client.post("/v1/matches", json={"game": {"positions": 4, "symbols": 6, "repetition": True}}
                       ).status_code == 201
    r = client.post("/v1/matches", json={"game": {"positions": 4, "symbols": 7, "repetition": True}})
    assert is_problem(r) == "game-too-large" and "1296" in r.json["detail"]


@backend_agnostic
@pytest.mark.parametrize(("path", "query", "field", "words"), [
    ("/v1/strategies/mastermind/optimal-kmovers", "max_guesses=-3", "max_guesses", "must be at least 1, got '-3'"),
    ("/v1/strategies/mastermind/optimal-kmovers", "max_guesses=abc", "max_guesses", "must be an integer, got 'abc'"),
    ("/v1/strategies/mastermind/minimax/tree", "depth=9", "depth", "must be at most 8"),
    ("/v1/strategies/mastermind/minimax", "max_guess=6", "max_guess", "is not a parameter of this call"),
    ("/v1/jobs", "status=sleeping", "status", "must be one of 'queued', "),
    ("/v1/jobs/x", "units=maybe", "units", "must be true or false, got 'maybe'"),
    ("/v1/positions", "criterion=fastest", "criterion", "must be one of 'total' or 'kmovers', got 'fastest'"),
])
def test_query_parameters_are_validated_never_echoed(client: FlaskClient, path: str, query: str, field: str,
                                                     words: str) -> None:
    """A bad query value is a 422 naming the parameter: never echoed back, never read as nothing."""
    r = client.get(f"{path}?{query}")
    _refused(r, field)
    assert words in r.json["detail"] and r.json["errors"][0]["in"] == "query"


@backend_agnostic
def test_the_openapi_documents_text_is_markdown_with_whole_summaries(client: FlaskClient) -> None:
    """Swagger UI shows the document's text as Markdown: no docstring's ``literal`` or :role:`x` shows through,
    and each summary is a whole first sentence (the framework would cut a docstring at its first line)."""
    doc = client.get("/openapi.json").json
    texts: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("summary", "description") and isinstance(value, str):
                    texts.append(value)
                else:
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(doc)
    assert len(texts) > 100
    assert not [t for t in texts if "``" in t or re.search(r":[a-z]+:`", t)]
    ops = [op for ops in doc["paths"].values() for op in ops.values()]
    assert all("\n" not in op["summary"] and op["summary"].endswith((".", "Metrics")) for op in ops), [
        op["summary"] for op in ops]
    game = doc["paths"]["/v1/games/{game}"]["get"]
    assert game["summary"] == ("A named game (`mastermind`, `super-mastermind`, ...: `GET /v1/games` lists them) or "
                               "`positions,symbols,repetition` (e.g. `5,8,1`).") and "description" not in game
    assert doc["paths"]["/v1/next-move"]["post"]["summary"] == "The next guess."


def _api_calls(app: APIFlask) -> list[tuple[str, str]]:
    """(method, path) of every route but the page's, its path parameters filled with any value: an unknown
    query parameter is refused before they are read."""
    calls = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.endpoint.startswith("web."):
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: {"game": "mastermind", "strategy": "minimax"}.get(
            m.group(1), "x"), rule.rule)
        calls.extend((method, path) for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}))
    return calls


@backend_agnostic
def test_unknown_query_parameters_are_refused_on_every_route(app: APIFlask, client: FlaskClient) -> None:
    """docs/http-api.md: an unknown parameter is refused, by every call alike, whether it has query parameters
    of its own (its schema refuses the others) or none (nothing may be sent silently ignored)."""
    calls = _api_calls(app)
    assert ("POST", "/v1/next-move") in calls and ("GET", "/v1/games/mastermind") in calls and len(calls) > 20
    for method, path in calls:
        r = client.open(f"{path}?foo=1", method=method, json={} if method in ("POST", "PUT", "PATCH") else None)
        assert r.status_code == 422, (method, path, r.status_code)
        _refused(r, "foo")
        assert r.json["errors"] == [{"field": "foo", "in": "query", "message": "is not a parameter of this call"}]
    with client.get("/?foo=1") as page:  # the page is not the API: a link to it may carry anything
        assert page.status_code == 200


@backend_agnostic
@pytest.mark.parametrize(("body", "fields", "words"), [
    ({"history": [{"guess": "0123", "bulls": 1, "cows": "x"}]}, ["history[0].cows"], "must be an integer, got 'x'"),
    ({"history": ["0123 0.1", {"guess": "0123", "bulls": 1, "cows": 99}]}, ["history[1].cows"], "must be at most 15"),
    ({"history": [[1]]}, ["history[0]"], "must be an object or a string, got a list"),
    ({"game": {"positions": 4}}, ["game.symbols", "game.repetition"], "is required"),
    ({"game": []}, ["game"], "must be a string or an object"),
    ({"history": [{"guess": "0123", "bulls": 0, "cows": 0, "x": 1}]}, ["history[0].x"], "is not a field"),
    ({"strategy": "knuth"}, ["strategy"], "must be one of 'optimal-total', "),
    ({"history": ["0123 0.1"] * 33}, ["history"], "must have at most 32 turns (the service's BULLSCOWS_MAX_HISTORY)"),
])
def test_validation_messages_are_in_the_apis_words(client: FlaskClient, body: dict[str, Any], fields: list[str],
                                                   words: str) -> None:
    """Locations as a client writes them (``history[0].cows``), what the value must be in plain words, and
    nothing of the schemas' insides: no class name, no "instance of", no pydantic phrasing."""
    r = client.post("/v1/next-move", json=body)
    assert r.status_code == 422 and is_problem(r) == "validation-error"
    assert sorted(e["field"] for e in r.json["errors"]) == sorted(fields)
    assert words in r.json["detail"], r.json["detail"]
    text = r.get_data(as_text=True)
    for leak in ("TurnIn", "GameSpec", "NextMoveIn", "instance of", "Input should", ".0.", "[type="):
        assert leak not in text, leak


@backend_agnostic
def test_max_guesses_one_rule_everywhere(client: FlaskClient) -> None:
    """k-movers without max_guesses: the game's proven smallest worst case, on every route, echoed as the
    value used; outside the games whose worst case is known, the same 422 everywhere."""
    kmovers = {"game": "mastermind", "strategy": "optimal-kmovers"}
    assert client.post("/v1/next-move", json=kmovers).json["max_guesses"] == 5
    assert client.post("/v1/solve", json={"game": "mastermind", "criterion": "kmovers"}).json["max_guesses"] == 5
    assert client.get("/v1/strategies/mastermind/optimal-kmovers").json["max_guesses"] == 5
    assert client.post("/v1/strategies/bulls-cows/optimal-kmovers", json={}).json["max_guesses"] == 7
    assert client.post("/v1/strategies/3,6,0/optimal-kmovers", json={}).json["max_guesses"] == 5
    job = client.post("/v1/jobs", json={"game": "2,10,1", "criterion": "kmovers"}).json
    assert job["request"]["max_guesses"] == 7  # the atlas's worst case of 2,10,1
    for r in (client.post("/v1/next-move", json={"game": "2,11,1", "strategy": "optimal-kmovers"}),
              client.post("/v1/solve", json={"game": "2,11,1", "criterion": "kmovers"}),
              client.post("/v1/jobs", json={"game": "2,11,1", "criterion": "kmovers"}),
              client.get("/v1/strategies/2,11,1/optimal-kmovers"),
              client.post("/v1/strategies/2,11,1/optimal-kmovers", json={})):
        assert is_problem(r) == "max-guesses-needed" and r.status_code == 422
        assert r.json["detail"].startswith("max_guesses: ")
    # the value used is the value asked, whatever tree answers; none for a total without one, or a one-step
    assert client.get("/v1/strategies/mastermind/optimal-total?max_guesses=6").json["max_guesses"] == 6
    assert client.get("/v1/strategies/mastermind/optimal-total").json["max_guesses"] is None
    assert client.post("/v1/next-move", json={"game": "mastermind", "max_guesses": 6}).json["max_guesses"] == 6
    one_step = client.post("/v1/next-move", json={"game": "mastermind", "strategy": "minimax", "max_guesses": 6})
    assert one_step.json["max_guesses"] is None
    assert client.get("/v1/strategies/mastermind/minimax?max_guesses=6").json["max_guesses"] is None


@backend_agnostic
def test_every_tree_answer_says_its_worst_case(client: FlaskClient) -> None:
    """Statistics, whole trees, parts of trees (each node), and next moves read from a tree."""
    for strategy in ("optimal-total", "optimal-kmovers", "minimax"):
        stats = client.get(f"/v1/strategies/mastermind/{strategy}").json
        assert stats["worst_case"] == max(int(k) for k in stats["histogram"])
        assert client.get(f"/v1/strategies/mastermind/{strategy}/tree").json["stats"]["worst_case"] == \
            stats["worst_case"]
        part = client.get(f"/v1/strategies/mastermind/{strategy}/tree?depth=2").json
        assert part["worst_case"] == part["node"]["worst_case"] == stats["worst_case"]
        children = part["node"]["children"].values()
        assert max(c["worst_case"] for c in children) == stats["worst_case"]
        assert all(g["worst_case"] >= 3 for c in children for g in c.get("children", {}).values())
    move = client.post("/v1/next-move", json={"game": "mastermind", "history": ["0012 0.0"]}).json
    assert move["source"] == "tree" and move["value"]["worst_case"] is not None
    best = client.post("/v1/next-move", json={"game": "5,8,1"}).json
    assert best["source"] == "best-known" and best["value"]["worst_case"] is not None
    # off the tree's own line, a position the shipped knowledge proves: the worst case of the strategy played from it
    off = client.post("/v1/next-move", json={"game": "bulls-cows", "history": ["0125 0.1", "6789 1.1"]}).json
    assert off["source"] == "tree" and off["value"]["worst_case"] == 7


@backend_agnostic
@pytest.mark.parametrize(("game", "history"), [
    ("mastermind", ["0012 1.0"]),  # a tree's node
    ("bulls-cows", ["0125 0.1", "6789 1.1"]),  # the shipped knowledge
    ("mastermind", ["0000 0.0", "1111 1.0"]),  # a search
    ("super-mastermind", ["00123 1.1"]),  # a best-known tree
])
def test_every_expected_value_counts_the_whole_game(client: FlaskClient, game: str, history: list[str]) -> None:
    """docs/http-api.md: next-move's ``value`` counts as every position's value does, every guess of the game the
    history's included: its ``expected`` is explain's ``average`` and solve's ``value`` per candidate, and its
    ``worst_case`` a tree's longest game through the position, both counted from the first guess."""
    move = client.post("/v1/next-move", json={"game": game, "history": history, "time_budget_ms": 20_000}).json
    assert move["exact"] == (move["source"] != "best-known"), move
    n = move["candidates"]
    if move["exact"]:
        solved = client.post("/v1/solve", json={"game": game, "history": history, "time_budget_ms": 20_000}).json
        assert move["value"]["expected"] == round(solved["value"] / n, 6)
        why = client.post("/v1/explain", json={"game": game, "history": history, "guess": move["guess"],
                                              "time_budget_ms": 20_000}).json
        assert why["optimal"]["position"]["average"] == move["value"]["expected"]
    else:
        tree = client.get(f"/v1/strategies/{game}/best-known/tree?path={history[0]}&depth=1").json
        assert move["value"]["worst_case"] == tree["worst_case"]
    assert move["value"]["worst_case"] is not None or move["source"] == "search"
    assert move["value"]["expected"] >= len(history) + 1
    won = client.post("/v1/next-move", json={"game": "mastermind", "history": ["0012 1.0", "0334 4.0"]}).json
    assert won["finished"] and won["value"] == {"expected": 2.0, "worst_case": 2}
