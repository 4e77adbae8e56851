"""A polish's positions (:mod:`service.polishes`) go from its progress file to the database and back as they were,
a position a sweep left cut with what the sweep proved there; what is not a polish's position is refused, and the
database keeps what a unit settled over what a file brings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import polishes
from service.campaign_files import CampaignError
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.polish_positions import PolishPositionStore
from solver.game import Game
from solver.heuristics import get_strategy
from solver.polish import CUT, OPTIMAL, Settled, settled_to_json
from solver.sweep import SweepProgress
from solver.tree import build_tree, strategy_chooser

PARAMS = {"above": 20, "at_most": 300, "budget_s": 60.0, "max_guesses": None, "keep_movers": False, "sweep": 20}


@pytest.fixture
def jobs(db_url: str) -> Iterator[JobStore]:
    db = Database(db_url)
    yield JobStore(db)
    db.dispose()


def test_a_cut_sweep_goes_to_the_database_and_back_to_the_file_as_it_was(tmp_path: Path, jobs: JobStore) -> None:
    game = Game.from_spec("4,7,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("entropy")))
    path = str(tmp_path / "polish.json")
    job, created, taken = polishes.start_job(jobs, game, tree, PARAMS, path, "test")
    assert created and taken == "0 positions settled before" and polishes.known(path, game, tree, PARAMS) == {}
    code, other = game.parse_code("4560"), game.parse_code("1456")
    progress = SweepProgress(1234, code, {other: 1240, game.parse_code("0456"): 1236},
                             partial={game.parse_code("3456"): {game.parse_response("0.2"): (310, True)}})
    cut = Settled(CUT, 42.5, None, progress)
    store = PolishPositionStore(jobs.db)
    pid = polishes.identity(game, tree, PARAMS)
    store.put(pid, game.spec, {"0123 0.2": settled_to_json(game, "0123 0.2", cut)}, "a unit")
    polishes.export(jobs, game, tree, PARAMS, path)
    assert polishes.known(path, game, tree, PARAMS) == {"0123 0.2": cut}
    entry = json.loads(Path(path).read_text())["positions"]["0123 0.2"]
    assert entry["sweep"]["found"] == [1234, "4560"] and entry["sweep"]["refuted"]["1456"] == 1240
    polishes.FILE.finish(path, {"total": 1, "kept": False})  # finished, the same tree's next run sweeps on from it
    assert polishes.known(path, game, tree, PARAMS) == {"0123 0.2": cut}
    again, created, taken = polishes.start_job(jobs, game, tree, PARAMS, path, "test")
    assert created and again.id != job.id and taken == "1 position settled before"
    assert jobs.get(job.id).status == "cancelled"  # type: ignore[union-attr]  # never run: the new one does it


def test_a_file_taken_in_never_overwrites_what_a_unit_settled(tmp_path: Path, jobs: JobStore) -> None:
    game = Game.from_spec("4,7,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("entropy")))
    path = tmp_path / "polish.json"
    polishes.start_job(jobs, game, tree, PARAMS, str(path), "test")
    pid = polishes.identity(game, tree, PARAMS)
    store = PolishPositionStore(jobs.db)
    store.put(pid, game.spec, {"0123 0.2": {"outcome": OPTIMAL, "seconds": 7.0}}, "a unit")
    doc = json.loads(path.read_text())
    doc["positions"]["0123 0.2"] = {"outcome": CUT, "seconds": 3.0}
    path.write_text(json.dumps(doc))
    polishes.start_job(jobs, game, tree, PARAMS, str(path), "test")
    assert store.load(pid) == {"0123 0.2": {"outcome": OPTIMAL, "seconds": 7.0}}
    polishes.export(jobs, game, tree, PARAMS, str(path))
    assert json.loads(path.read_text())["positions"]["0123 0.2"] == {"outcome": OPTIMAL, "seconds": 7.0}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("sweep", [{"refuted": {"44": 3}}, {"found": [12], "refuted": {}}, ["not", "an object"],
                                   {"refuted": {}, "partial": {"4560": {"9.9": [1, True]}}}])
def test_a_sweep_progress_not_of_the_game_is_refused_and_nothing_changed(tmp_path: Path, jobs: JobStore,
                                                                          sweep: object) -> None:
    game = Game.from_spec("4,7,0")
    tree = build_tree(game, strategy_chooser(game, get_strategy("entropy")))
    path = tmp_path / "polish.json"
    job, _created, _taken = polishes.start_job(jobs, game, tree, PARAMS, str(path), "test")
    doc = json.loads(path.read_text())
    doc["positions"]["0123 0.2"] = {"outcome": CUT, "seconds": 3.0, "sweep": sweep}
    text = json.dumps(doc)
    path.write_text(text)
    with pytest.raises(CampaignError, match=r"position '0123 0\.2': its sweep: not a sweep's progress"):
        polishes.start_job(jobs, game, tree, PARAMS, str(path), "test")
    assert path.read_text() == text
    assert PolishPositionStore(jobs.db).load(polishes.identity(game, tree, PARAMS)) == {}
    assert [j.id for j in jobs.submitted("test", game.spec)] == [job.id]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_campaign_whose_job_fails_says_so_and_keeps_its_file(tmp_path: Path, jobs: JobStore) -> None:
    """A polish whose units cannot run (a sweep of one candidate, which no command asks but a job's request can
    hold) fails its job; the campaign stops with that, in one line naming the job, rather than judging a tree its
    file cannot make, and its progress file is the polish's still."""
    from service import campaign_specs

    game = Game.from_spec("3,4,1")
    tree = build_tree(game, strategy_chooser(game, get_strategy("first-consistent")))
    path = tmp_path / "polish.json"
    spec = campaign_specs.CampaignSpec.polish(game, tree, {**PARAMS, "above": 0, "sweep": 1}, str(path))
    out = campaign_specs.run(jobs, spec, processes=1, export_every=60.0)
    assert out.job is not None and out.job.status == "failed"
    assert out.problem is not None and out.problem.startswith(f"the campaign's job {out.job.id} failed (")
    assert "run the same command again" in out.problem
    assert polishes.check(str(path), game, tree, {**PARAMS, "above": 0, "sweep": 1}) is not None
