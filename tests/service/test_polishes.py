"""A polish's progress file (:mod:`service.polishes`) keeps a position a sweep left cut with what the sweep proved
there, through the polish's end, and refuses a sweep's progress that is not the game's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service import polishes
from service.rollouts import CampaignError
from solver.game import Game
from solver.heuristics import get_strategy
from solver.polish import CUT, Settled
from solver.sweep import SweepProgress
from solver.tree import build_tree, strategy_chooser

PARAMS = {"above": 20, "at_most": 300, "budget_s": 60.0, "max_guesses": None, "keep_movers": False, "sweep": 20}


def test_a_cut_sweep_is_kept_with_its_progress_and_read_back_as_it_was(tmp_path: Path) -> None:
    game = Game.from_spec("4,7,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("entropy")))
    path = str(tmp_path / "polish.json")
    assert polishes.start(path, game, tree, PARAMS) == {}
    code, other = game.parse_code("4560"), game.parse_code("1456")
    progress = SweepProgress(1234, code, {other: 1240, game.parse_code("0456"): 1236},
                             partial={game.parse_code("3456"): {game.parse_response("0.2"): (310, True)}})
    cut = Settled(CUT, 42.5, None, progress)
    polishes.settle(path, game, "0123 0.2", cut)
    assert polishes.start(path, game, tree, PARAMS) == {"0123 0.2": cut}
    entry = json.loads(Path(path).read_text())["positions"]["0123 0.2"]
    assert entry["sweep"]["found"] == [1234, "4560"] and entry["sweep"]["refuted"]["1456"] == 1240
    polishes.finish(path, {"total": 1, "kept": False})  # finished, the same tree's next run sweeps on from it
    assert polishes.start(path, game, tree, PARAMS) == {"0123 0.2": cut}


@pytest.mark.parametrize("sweep", [{"refuted": {"44": 3}}, {"found": [12], "refuted": {}}, ["not", "an object"],
                                   {"refuted": {}, "partial": {"4560": {"9.9": [1, True]}}}])
def test_a_sweep_progress_not_of_the_game_is_refused_and_the_file_left_as_it_was(tmp_path: Path,
                                                                                 sweep: object) -> None:
    game = Game.from_spec("4,7,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("entropy")))
    path = tmp_path / "polish.json"
    polishes.start(str(path), game, tree, PARAMS)
    doc = json.loads(path.read_text())
    doc["positions"]["0123 0.2"] = {"outcome": CUT, "seconds": 3.0, "sweep": sweep}
    text = json.dumps(doc)
    path.write_text(text)
    with pytest.raises(CampaignError, match=r"position '0123 0\.2' of the polish's progress: not a sweep's progress"):
        polishes.start(str(path), game, tree, PARAMS)
    assert path.read_text() == text
