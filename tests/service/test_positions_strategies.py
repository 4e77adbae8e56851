"""Export/import of positions, strategy statistics, metrics — through the real app."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from apiflask import APIFlask
from flask.testing import FlaskClient

from service.services import get_db, services
from service.store.positions import PositionStore
from tests.service.conftest import backend_agnostic, make_app

TOKEN = ""  # set by the tapp fixture: a token made in the test database


def import_token(application: APIFlask, name: str = "importer") -> str:
    """A new token with the 'import' scope in that app's database."""
    _, token = services(application).tokens.create(name, ["import"])
    return str(token)


def store_of(app: APIFlask) -> PositionStore:
    store: PositionStore = services(app).positions
    return store


@pytest.fixture
def tapp(db_url: str) -> Any:
    global TOKEN
    application = make_app(db_url)
    TOKEN = import_token(application)
    yield application
    get_db(application).dispose()


def _export(client: FlaskClient, **params: str) -> list[dict[str, Any]]:
    r = client.get("/v1/positions", query_string=params)
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    return [json.loads(line) for line in r.data.splitlines() if line.strip()]


def test_export_import_round_trip(tapp: APIFlask, db_url: str, tmp_path: Any) -> None:
    client = tapp.test_client()
    body = {"game": "mastermind", "criterion": "total", "max_guesses": 5, "history": ["0011 1.0"]}
    solved = client.post("/v1/solve", json=body).json
    lines = _export(client, game="mastermind", criterion="total")
    assert lines and all(x["game"] == "4,6,1" for x in lines)
    assert _export(client, criterion="kmovers") == []
    # import into another database, then that instance answers from its cache
    from service.store.migrate import upgrade

    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    upgrade(other)
    dst = make_app(other)
    token = import_token(dst, "mirror")
    ndjson = "\n".join(json.dumps(x) for x in lines)
    r = dst.test_client().post("/v1/positions", data=ndjson, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json["imported"] == len(lines)
    again = dst.test_client().post("/v1/solve", json=body).json
    assert again["source"] == "cache"
    assert (again["value"], again["best_guess"]) == (solved["value"], solved["best_guess"])
    assert {x["source"] for x in _export(dst.test_client())} == {"import:mirror"}
    get_db(dst).dispose()


def _line(**over: Any) -> str:
    bits = bytearray(162)
    bits[0] = 0b111
    base = {"game": "4,6,1", "criterion": "total", "max_guesses": None, "mde": None, "heuristic": False,
            "from_set_only": False, "bitset": base64.b64encode(bytes(bits)).decode(), "m": 64, "turn": 3,
            "exact": True, "value": 6, "best_guess": 1, "cost": 1}
    base.update(over)
    return json.dumps(base)


@pytest.mark.parametrize(
    ("lines", "needle"),
    [([_line(), "{not json"], "line 2: not valid JSON"),
     ([_line(game="4,63,0")], "line 1: at most 62"),
     ([_line(bitset=base64.b64encode(b"\x07").decode())], "bitset"),
     ([_line(value=4)], "outside the provable range"),
     ([_line(best_guess=1296)], "is not a code"),
     # within the provable range, but false: the small set is searched again
     ([_line(), _line(value=5)], "line 2: re-searched, this set's value is 6, not 5"),
     ([_line(exact=False, value=7)], "line 1: re-searched, this set's value is 6, below the claimed bound 7"),
     ([_line(m=5)], "m 5 does not match max_guesses None"),
     ([_line(criterion="kmovers", m=64)], "kmovers entry needs max_guesses"),
     ([_line(mde=2)], "heuristic must be true exactly when"),
     ([_line(criterion="fastest")], "unknown criterion"),
     ([_line(), _line(m=0)], "line 2: m must be"),
     ([json.dumps({"game": "4,6,1"})], "missing fields")],
)
def test_bad_imports_change_nothing(tapp: APIFlask, lines: list[str], needle: str) -> None:
    client = tapp.test_client()
    r = client.post("/v1/positions", data="\n".join(lines), headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert r.json["type"] == "/problems/invalid-import" and needle in r.json["detail"]
    assert store_of(tapp).count() == 0


def test_import_needs_the_token(tapp: APIFlask) -> None:
    client = tapp.test_client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        r = client.post("/v1/positions", data=_line(), headers=headers)
        assert r.status_code == 401 and r.json["type"] == "/problems/unauthorized"
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
    assert store_of(tapp).count() == 0
    ok = client.post("/v1/positions", data=_line(), headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and store_of(tapp).count() == 1


@backend_agnostic
def test_export_filters_are_checked(client: FlaskClient) -> None:
    assert client.get("/v1/positions?game=chess").json["type"] == "/problems/invalid-game"
    assert client.get("/v1/positions?criterion=x").json["type"] == "/problems/validation-error"


def test_strategy_statistics_and_tree(client: FlaskClient) -> None:
    stats = client.get("/v1/strategies/mastermind/minimax").json
    assert stats["total"] == 5801 and stats["worst_case"] == 5 and sum(stats["histogram"].values()) == 1296
    tree = client.get("/v1/strategies/mastermind/minimax/tree").json
    assert tree["root"]["guess"] == "0011" and tree["stats"]["total"] == stats["total"]
    optimal = client.get("/v1/strategies/4,6,1/optimal-total?max_guesses=5").json
    assert optimal["total"] == 5626
    r = client.get("/v1/strategies/mastermind/knuth")
    assert r.status_code == 404 and r.json["type"] == "/problems/unknown-strategy"
    r = client.get("/v1/strategies/4,11,0/optimal-total")  # 7920 codes, outside the atlas: no shipped tree
    assert r.status_code == 422 and r.json["type"] == "/problems/strategy-too-expensive"
    r = client.get("/v1/strategies/5,6,1/entropy")  # 7776 codes: more than a request may build
    assert r.status_code == 422 and "at most 6000 codes" in r.json["detail"]
    r = client.get("/v1/strategies/2,11,1/optimal-kmovers")  # k-movers needs its k (not an atlas game: no default)
    assert r.status_code == 422 and r.json["type"] == "/problems/max-guesses-needed"


@backend_agnostic
def test_metrics(client: FlaskClient) -> None:
    client.post("/v1/solve", json={"game": "mastermind", "max_guesses": 5, "history": ["0012 2.2"]})
    client.post("/v1/solve", json={"game": "mastermind", "max_guesses": 5, "history": ["0012 2.2"]})
    text = client.get("/metrics").data.decode()
    assert 'bullscows_requests_total{endpoint="solve.solve",status="200"}' in text
    assert 'bullscows_answers_total{source="cache"}' in text and "bullscows_nodes_searched_total" in text


def test_built_trees_are_stored_for_other_processes(db_url: str) -> None:
    from service.api import strategies as module

    first = make_app(db_url)
    stats = first.test_client().get("/v1/strategies/mastermind/entropy").json
    from sqlalchemy import func, select

    from service.store.models import StrategyTree

    with get_db(first).session() as session:
        assert session.scalar(select(func.count()).select_from(StrategyTree)) == 1
    second = make_app(db_url)  # what a second process would have: nothing in memory, the same database
    import solver.tree as tree_module

    calls: list[int] = []
    original = tree_module.build_tree
    module.build_tree = lambda *a, **k: calls.append(1) or original(*a, **k)  # type: ignore[assignment]
    try:
        again = second.test_client().get("/v1/strategies/mastermind/entropy").json
    finally:
        module.build_tree = original  # type: ignore[assignment]
    assert again == stats and calls == [], "the second instance loads the stored tree instead of building it"
