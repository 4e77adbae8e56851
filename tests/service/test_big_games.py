"""Games with many positions or many codes: every question the API accepts ends, and says how it was answered.

Speed is measured by ``benchmarks/bench_budgets.py``; these tests hold behaviour: no hang (a generous guard, not a
timing claim), the same guess for the same question, the shipped best-known tree first, and positions of games
past the service's exact search handed to a job instead of refused.
"""

from __future__ import annotations

import time

import pytest
from flask.testing import FlaskClient

from tests.service.conftest import backend_agnostic


@backend_agnostic
@pytest.mark.parametrize("positions", [9, 12, 15])
def test_two_symbol_games_of_many_positions_answer_within_their_budget(client: FlaskClient, positions: int) -> None:
    """Their stabilisers have up to 15! position permutations; none is enumerated past eight positions."""
    body = {"game": f"{positions},2,1", "history": [], "time_budget_ms": 500}
    answers = []
    for _ in range(2):
        t0 = time.perf_counter()
        r = client.post("/v1/next-move", json=body)
        assert r.status_code == 200, r.json
        assert time.perf_counter() - t0 < 10, "a hang guard: the budget is 0.5 s"
        answers.append(r.json["guess"])
    assert answers[0] == answers[1]  # the same question, the same guess


@backend_agnostic
def test_the_same_big_question_gets_the_same_guess(client: FlaskClient) -> None:
    """Super Mastermind off its tree: the heuristic's scan is cut by its work, not by the clock."""
    body = {"game": "5,8,1", "history": ["76543 1.1"], "time_budget_ms": 30}
    guesses = {client.post("/v1/next-move", json=body).json["guess"] for _ in range(3)}
    assert len(guesses) == 1


@backend_agnostic
def test_a_game_with_a_best_known_tree_is_answered_from_it(client: FlaskClient) -> None:
    """Mastermind with five pegs: searchable, but its shipped tree answers at once, and no job is started."""
    r = client.post("/v1/next-move", json={"game": "5,6,1", "history": []}).json
    assert (r["source"], r["job"]) == ("best-known", None) and r["value"]["worst_case"] is not None
    assert client.get("/v1/jobs").json["jobs"] == []


@backend_agnostic
def test_a_position_of_a_big_game_goes_to_a_job(client: FlaskClient) -> None:
    """Five-digit Bulls-and-Cows has 30240 codes, past the service's own searches: its positions are searched by
    jobs, never refused for the size of the whole game."""
    body = {"game": "5,10,0", "history": ["01234 0.2", "56789 0.3"], "wait_ms": 0}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 202, r.json
    assert r.headers["Location"] == f"/v1/jobs/{r.json['id']}"
    refused = client.post("/v1/solve", json={**body, "job": False})
    assert refused.status_code == 422 and refused.json["type"].endswith("/game-too-large")
    assert "jobs" in refused.json["detail"]
    # the whole game is still refused: a search of it is a campaign, not a request's job
    whole = client.post("/v1/solve", json={"game": "5,10,0", "wait_ms": 0})
    assert whole.status_code in (400, 422) and "codes" in whole.json["detail"]


@backend_agnostic
def test_a_job_accepted_without_a_worker_says_it_waits(client: FlaskClient) -> None:
    r = client.post("/v1/solve", json={"game": "5,10,0", "history": ["01234 0.2", "56789 0.3"], "wait_ms": 0})
    assert r.status_code == 202 and "no job worker is running" in r.json["note"]
