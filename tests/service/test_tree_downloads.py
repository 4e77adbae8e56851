"""Taking a tree away: ``GET /v1/strategies/{game}/{strategy}/tree`` with ``format=lengths`` (the ``CODE LENGTH``
lines :func:`solver.compare.read_steps` reads) and ``download=true`` (a file name to save it under), for every kind
of tree the route serves: shipped optimal trees, built one-step trees, best-known record trees and atlas hybrids."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.trees import TreeLibrary
from solver.compare import read_steps
from solver.game import Game
from solver.tree import solved_depths
from tests.service.conftest import backend_agnostic, make_app
from tests.service.test_contract import is_problem

TREE = "/v1/strategies/{}/{}/tree"


def _lengths(client: FlaskClient, game: str, strategy: str, **query: str) -> tuple[str, dict[str, str]]:
    r = client.get(TREE.format(game, strategy), query_string={"format": "lengths", **query})
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    assert r.mimetype == "text/plain" and r.mimetype_params.get("charset") == "utf-8"
    return r.get_data(as_text=True), dict(r.headers)


@backend_agnostic
def test_the_mastermind_tree_as_lengths_and_as_files(client: FlaskClient) -> None:
    text, headers = _lengths(client, "mastermind", "optimal-total")
    assert "Content-Disposition" not in headers
    game = Game.from_spec("mastermind")
    steps = read_steps(game, text.splitlines())
    assert int(steps.sum()) == 5625
    shipped = TreeLibrary().get(game, "optimal-total", None)
    assert shipped is not None and steps.tolist() == solved_depths(shipped.tree).tolist()
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert comments[:3] == ["# game 4,6,1 (mastermind): 1296 codes", "# strategy optimal-total, first guess 0012",
                            "# total 5625, secrets 1296, average 4.3403, worst case 6"]
    body = [line.split() for line in text.splitlines() if not line.startswith("#")]
    assert [code for code, _ in body] == sorted(code for code, _ in body) and len(body) == 1296
    _, headers = _lengths(client, "mastermind", "optimal-total", download="true")
    assert headers["Content-Disposition"] == 'attachment; filename="mastermind-optimal-total-lengths.txt"'
    r = client.get(TREE.format("mastermind", "optimal-total"), query_string={"download": "true"})
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.headers["Content-Disposition"] == 'attachment; filename="mastermind-optimal-total.json"'
    assert r.json == client.get(TREE.format("mastermind", "optimal-total")).json, "the same tree, to keep"
    assert "Content-Disposition" not in client.get(TREE.format("mastermind", "optimal-total")).headers


def test_a_built_tree_is_taken_away_from_the_table_too(client: FlaskClient, db_url: str) -> None:
    """A one-step tree built by one request (and stored) comes out the same from another app on that database."""
    text, headers = _lengths(client, "bulls-cows", "minimax", download="1")
    assert headers["Content-Disposition"] == 'attachment; filename="bulls-cows-minimax-lengths.txt"'
    total = client.get("/v1/strategies/bulls-cows/minimax").json["total"]
    steps = read_steps(Game.from_spec("bulls-cows"), text.splitlines())
    assert int(steps.sum()) == total
    again, _ = _lengths(make_app(db_url).test_client(), "bulls-cows", "minimax")
    assert again == text


@backend_agnostic
@pytest.mark.parametrize(("game", "total", "name"), [
    ("5,8,1", 178672, "super-mastermind-best-known-lengths.txt"),
    ("5,10,0", 171687, "bulls-cows-5-best-known-lengths.txt"),
    ("5,6,1", 36734, "5-6-1-best-known-lengths.txt"),
])
def test_best_known_trees_as_lengths(client: FlaskClient, game: str, total: int, name: str) -> None:
    """The record trees (tens of thousands of secrets) and an atlas hybrid: every secret, their shipped total."""
    text, headers = _lengths(client, game, "best-known", download="true")
    assert headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert int(read_steps(Game.from_spec(game), text.splitlines()).sum()) == total
    assert f"# total {total}, " in text


@backend_agnostic
def test_what_cannot_be_taken_away_is_refused_as_before(client: FlaskClient) -> None:
    for query in ({"path": "0012 1.1"}, {"depth": "2"}):
        r = client.get(TREE.format("mastermind", "optimal-total"), query_string={"format": "lengths", **query})
        assert is_problem(r) == "validation-error" and r.status_code == 422
        assert r.json["detail"].startswith("format: lengths are the whole tree's")
    r = client.get(TREE.format("mastermind", "optimal-total"), query_string={"format": "csv"})
    assert is_problem(r) == "validation-error" and r.json["errors"][0]["field"] == "format"
    r = client.get(TREE.format("5,8,1", "entropy"), query_string={"format": "lengths", "download": "true"})
    assert is_problem(r) == "strategy-too-expensive" and "POST /v1/strategies/5,8,1/entropy" in r.json["detail"]
    r = client.get(TREE.format("mastermind", "best-known"), query_string={"format": "lengths"})
    assert is_problem(r) == "no-best-known-tree"
    # a part of a tree may be downloaded too (as JSON)
    r = client.get(TREE.format("mastermind", "optimal-total"), query_string={"path": "0012 1.1", "download": "true"})
    assert r.status_code == 200 and r.json["path"] == ["0012 1.1"]
    assert r.headers["Content-Disposition"] == 'attachment; filename="mastermind-optimal-total.json"'


@backend_agnostic
def test_a_depth_limit_names_its_file_and_its_header(client: FlaskClient) -> None:
    """Two limits are two trees: each file says the limit it answers under, in its name and its # lines."""
    texts = {}
    for k in (5, 6):
        text, headers = _lengths(client, "mastermind", "optimal-kmovers", download="true", max_guesses=str(k))
        assert headers["Content-Disposition"] == \
            f'attachment; filename="mastermind-optimal-kmovers-within-{k}-guesses-lengths.txt"'
        assert f"# strategy optimal-kmovers within {k} guesses, " in text
        texts[k] = text
    assert max(int(line.split()[1]) for line in texts[5].splitlines() if not line.startswith("#")) <= 5
