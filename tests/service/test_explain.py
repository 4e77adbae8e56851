"""``POST /v1/explain`` through the real app: a guess's split of the candidates, checked against the game's own
scorer, and its value next to the optimum, checked against the shipped trees and ``POST /v1/solve``."""

from __future__ import annotations

import math
from collections import Counter

from flask.testing import FlaskClient

from solver.game import Game
from tests.service.conftest import backend_agnostic
from tests.service.test_contract import is_problem

MM = Game.from_spec("mastermind")


def _split(game: Game, history: list[str], guess: str) -> Counter[str]:
    """The split counted independently of the kernels' partition: every candidate scored with Game.response."""
    g = game.parse_code(guess)
    return Counter(game.format_response(game.response(g, int(s))) for s in game.candidates(game.parse_history(history)))


def test_a_first_guess_of_mastermind_split_and_valued(client: FlaskClient) -> None:
    r = client.post("/v1/explain", json={"game": "mastermind", "guess": "0011", "time_budget_ms": 15000})
    assert r.status_code == 200, r.json
    out = r.json
    assert (out["game"], out["family"], out["guess"], out["guess_number"]) == ("mastermind", "mastermind", "0011", 1)
    assert out["candidates"] == 1296 and out["is_candidate"] is True
    sizes = [p["candidates"] for p in out["parts"]]
    assert sum(sizes) == 1296 and sizes == sorted(sizes, reverse=True)
    assert {p["response"]: p["candidates"] for p in out["parts"]} == _split(MM, [], "0011")
    assert out["part_count"] == 13 == len(out["parts"]) and out["largest"] == 256
    first = out["parts"][0]
    assert first == {"response": "0.0", "bulls": 0, "cows": 0, "words": "0 black, 0 white", "candidates": 256}
    assert [p["response"] for p in out["parts"][:3]] == ["0.0", "0.1", "1.0"], "ties by response"
    assert math.isclose(out["expected_size"], sum(n * n for n in sizes) / 1296, abs_tol=1e-6)
    assert math.isclose(out["entropy_bits"], -sum(n / 1296 * math.log2(n / 1296) for n in sizes), abs_tol=1e-6)
    opt = out["optimal"]
    assert opt["criterion"] == "total" and opt["max_guesses"] is None and opt["source"] == "tree"
    assert opt["position"] == {"value": 5625, "best_guess": "0012", "average": round(5625 / 1296, 6)}
    assert opt["guess"]["is_best"] is False and opt["guess"]["value"] > 5625 and opt["note"] is None
    solved = client.post("/v1/solve", json={"game": "mastermind", "guess": "0011", "time_budget_ms": 15000}).json
    assert solved["value"] == opt["guess"]["value"], "the value POST /v1/solve gives the same guess"


@backend_agnostic
def test_the_trees_own_guess_is_the_best_one(client: FlaskClient) -> None:
    out = client.post("/v1/explain", json={"game": "mastermind", "guess": "0012"}).json
    assert out["optimal"]["guess"] == {"value": 5625, "average": round(5625 / 1296, 6), "is_best": True,
                                       "source": "tree"}
    # after a history, counted as /v1/solve counts: the history's guesses included
    out = client.post("/v1/explain", json={"game": "bulls-cows", "history": ["0123 0.1"], "guess": "4567",
                                           "time_budget_ms": 15000}).json
    assert out["guess_number"] == 2 and out["is_candidate"] is False
    assert out["parts"][0]["words"] == "0 bulls, 2 cows"
    assert {p["response"]: p["candidates"] for p in out["parts"]} == _split(Game.from_spec("bulls-cows"),
                                                                             ["0123 0.1"], "4567")
    opt = out["optimal"]
    solved = client.post("/v1/solve", json={"history": ["0123 0.1"]}).json
    assert opt["position"]["value"] == solved["value"] and opt["position"]["best_guess"] == solved["best_guess"]
    assert opt["guess"]["value"] > solved["value"] and opt["guess"]["is_best"] is False


@backend_agnostic
def test_kmovers_values_count_movers(client: FlaskClient) -> None:
    out = client.post("/v1/explain", json={"game": "mastermind", "guess": "0012", "criterion": "kmovers"}).json
    opt = out["optimal"]
    assert opt["max_guesses"] == 5 and opt["position"]["value"] == 539 and opt["position"]["average"] is None
    assert opt["guess"]["is_best"] is True


@backend_agnostic
def test_a_big_game_gets_its_split_and_a_note_instead_of_values(client: FlaskClient) -> None:
    game = Game.from_spec("5,8,1")
    out = client.post("/v1/explain", json={"game": "5,8,1", "guess": "00123"}).json
    assert out["candidates"] == 32768 and sum(p["candidates"] for p in out["parts"]) == 32768
    assert out["parts"][0]["words"].endswith("white")
    opt = out["optimal"]
    assert opt["position"] is None and opt["guess"] is None and "32768 codes" in opt["note"]
    # after one turn: the split of what is left, scored one candidate at a time
    out = client.post("/v1/explain", json={"game": "5,8,1", "history": ["00123 1.1"], "guess": "14567"}).json
    assert {p["response"]: p["candidates"] for p in out["parts"]} == _split(game, ["00123 1.1"], "14567")


@backend_agnostic
def test_a_cut_search_leaves_the_values_out_and_says_why(client: FlaskClient) -> None:
    out = client.post("/v1/explain", json={"game": "mastermind", "guess": "0123", "time_budget_ms": 1}).json
    opt = out["optimal"]
    assert opt["position"]["value"] == 5625, "known at once from the shipped tree"
    assert opt["guess"] is None and opt["note"].startswith("this guess's value is not known: the search ")
    assert sum(p["candidates"] for p in out["parts"]) == 1296


@backend_agnostic
def test_errors_are_problems_that_name_the_problem(client: FlaskClient) -> None:
    def problem(body: dict[str, object]) -> tuple[str, str]:
        r = client.post("/v1/explain", json=body)
        return is_problem(r), r.json["detail"]

    slug, detail = problem({"game": "mastermind", "guess": "0017"})
    assert slug == "invalid-code" and "'7'" in detail
    slug, detail = problem({"game": "bulls-cows", "guess": "0012"})
    assert slug == "invalid-code" and "repeats" in detail
    slug, detail = problem({"game": "bulls-cows", "history": ["0123 0.0", "4567 0.0"], "guess": "8901"})
    assert slug == "inconsistent-history" and "turn 2" in detail
    slug, detail = problem({"game": "mastermind", "history": ["0012 0.2", "1234 4.0"], "guess": "1234"})
    assert slug == "game-finished" and "won at guess 2" in detail
    slug, detail = problem({"game": "mastermind"})
    assert slug == "validation-error" and detail.startswith("guess: ")
    slug, _ = problem({"game": "mastermind", "guess": "0012", "criterion": "fewest"})
    assert slug == "validation-error"
    slug, _ = problem({"game": "2,11,1", "guess": "01", "criterion": "kmovers"})
    assert slug == "max-guesses-needed"
