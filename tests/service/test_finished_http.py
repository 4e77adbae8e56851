"""Every secret played to its end through ``POST /v1/next-move``, then its won history sent again.

What a bot does: ask for a guess, answer it, and at the end send the whole game once more.  Every answer must be
a 200, the guesses those of the proven tree, and the won history a finished game (no guess, no search, no job),
which ``POST /v1/solve`` values at the game's own length.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from solver.game import Game
from tests.service.conftest import backend_agnostic
from tests.test_finished_games import walk


def _post(client: FlaskClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(path, json=body)
    assert r.status_code == 200, (body, r.json)
    out: dict[str, Any] = r.json
    return out


@backend_agnostic
@pytest.mark.parametrize("spec", ["mastermind", pytest.param("bulls-cows", marks=pytest.mark.slow)])
def test_every_secret_through_next_move_and_its_won_history(client: FlaskClient, spec: str) -> None:
    from service.trees import TreeLibrary

    game = Game.from_spec(spec)
    stored = TreeLibrary().get(game, "optimal-total", None)
    assert stored is not None
    won_at: dict[int, int] = {}
    for node, history, cands in walk(game, stored.tree.root, [], game.all_codes):
        texts = [game.format_turn(t) for t in history]
        move = _post(client, "/v1/next-move", {"game": spec, "history": texts})
        assert (move["guess"], move["finished"], move["job"]) == (game.format_code(node.guess), False, None), texts
        assert move["candidates"] == len(cands)
        if node.hit:
            won = [*texts, f"{move['guess']} {game.positions}.0"]
            end = _post(client, "/v1/next-move", {"game": spec, "history": won})
            assert end["guess"] is None and end["guess_number"] is None, won
            assert (end["finished"], end["solved"], end["secret"], end["guesses"], end["source"], end["job"]) == (
                True, True, move["guess"], len(won), "history", None), won
            assert end["value"] == {"expected": len(won), "worst_case": len(won)}  # the game's own length
            won_at[len(won)] = won_at.get(len(won), 0) + 1
    # every secret once, at the number of guesses the tree gives it
    assert won_at == {int(k): v for k, v in stored.meta["histogram"].items()}


@backend_agnostic
def test_solve_values_a_finished_game_at_its_own_length(client: FlaskClient) -> None:
    first = _post(client, "/v1/solve", {"game": "mastermind", "history": ["0011 4.0"]})
    assert (first["value"], first["best_guess"], first["per_response"], first["source"]) == (1, None, {}, "history")
    fifth = ["0011 0.0", "2233 0.0", "4444 1.0", "4555 2.2", "5455 4.0"]
    out = _post(client, "/v1/solve", {"game": "mastermind", "history": fifth})
    assert (out["value"], out["exact"], out["complete"]) == (5, True, True)
    movers = _post(client, "/v1/solve", {"game": "mastermind", "history": fifth, "criterion": "kmovers",
                                         "max_guesses": 5})
    assert (movers["value"], movers["movers"]) == (1, 5)
    # the two record games: a finished game needs no search, whatever the size of the whole game
    for spec, history in (("5,8,1", ["01234 1.0", "05567 5.0"]), ("5,10,0", ["01234 5.0"])):
        out = _post(client, "/v1/solve", {"game": spec, "history": history})
        assert (out["value"], out["source"]) == (len(history), "history")
        move = _post(client, "/v1/next-move", {"game": spec, "history": history})
        assert (move["guess"], move["secret"], move["finished"]) == (None, history[-1][:5], True)


@backend_agnostic
def test_a_win_before_the_end_names_the_turn_as_sent(client: FlaskClient) -> None:
    r = client.post("/v1/next-move", json={"game": "mastermind", "history": ["0011 1.0", "1223 4.0", "3344 0.0"]})
    assert r.status_code == 400 and r.json["type"].endswith("/inconsistent-history")
    assert "turn 2 (1223: 4 black, 0 white) already won" in r.json["detail"]


@backend_agnostic
def test_a_finished_game_is_no_job(client: FlaskClient) -> None:
    r = client.post("/v1/jobs", json={"game": "mastermind", "history": ["0011 0.1", "1223 4.0"], "wait_ms": 0})
    assert r.status_code == 400 and r.json["type"].endswith("/invalid-search-parameters")
    assert "won at guess 2" in r.json["detail"] and client.get("/v1/jobs").json["jobs"] == []
