"""Strategy trees too big for a request, built by jobs: ``POST /v1/strategies/{game}/{strategy}``, the tree
job's plan, unit and result, its progress, the table that keeps the tree for every later request, and
the worker's side lane that builds one-step trees while searches hold every Dask process.  On SQLite and
PostgreSQL: the tree and the job live in the database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.jobs import manage, unit_kit
from service.jobs.kinds import side_units
from service.jobs.plan import JobRequest
from service.jobs.runner import run_unit
from service.store import db as store_db
from service.store.jobs import JobStore
from service.store.positions import PositionStore
from solver.game import Game
from solver.heuristics import get_strategy
from solver.search import Searcher, SolveOptions
from solver.tree import build_tree, strategy_chooser
from tests.service.conftest import backend_agnostic, make_app, quick_on_postgresql

SMALL = {"TREE_MAX_CODES": 100}
"""A request builds one-step trees of at most 100 codes: 3 of 6 symbols all different (120) needs a job."""

_dbs: list[store_db.Database] = []


@pytest.fixture(autouse=True)
def _close() -> Iterator[None]:
    yield
    while _dbs:
        _dbs.pop().dispose()
    unit_kit.dispose_all()


def _stores(url: str) -> tuple[JobStore, PositionStore]:
    db = store_db.Database(url)
    _dbs.append(db)
    return JobStore(db), PositionStore(db)


def _plan(jobs: JobStore, positions: PositionStore) -> Any:
    """Plan the queued job as a worker would."""
    job = jobs.claim_for_planning("test-worker", 60)
    assert job is not None
    assert manage.plan_job(jobs, positions, job, "test-worker", None)
    return job


def _tree_stats(spec: str, strategy: str) -> Any:
    game = Game.from_spec(spec)
    return build_tree(game, strategy_chooser(game, get_strategy(strategy)), strategy=strategy).stats()


def test_a_tree_request_has_its_own_digest_and_leaves_solves_as_they_were() -> None:
    game = Game.from_spec("3,6,0")
    solve = JobRequest.of(game, [], SolveOptions("total"))
    tree = JobRequest.tree(game, "entropy")
    assert "strategy" not in solve.to_json() and not solve.is_tree  # solves' digests did not change
    assert tree.is_tree and JobRequest.from_json(tree.to_json()) == tree
    assert tree.digest != solve.digest != JobRequest.tree(game, "minimax").digest


def test_a_tree_too_big_for_a_request_is_built_by_a_job_and_kept(db_url: str) -> None:
    app = make_app(db_url, **SMALL)
    client = app.test_client()
    expect = _tree_stats("3,6,0", "entropy")
    # GET refuses, and says how to have it built
    got = client.get("/v1/strategies/3,6,0/entropy")
    assert got.status_code == 422 and got.mimetype == "application/problem+json"
    assert "POST /v1/strategies/3,6,0/entropy" in got.json["detail"]
    # POST hands it to a job
    resp = client.post("/v1/strategies/3,6,0/entropy", json={})
    assert resp.status_code == 202
    job_id = resp.json["id"]
    assert resp.headers["Location"] == f"/v1/jobs/{job_id}"
    assert resp.json["request"]["strategy"] == "entropy" and resp.json["progress"]["fraction"] is None
    assert client.post("/v1/strategies/3,6,0/entropy", json={}).json["id"] == job_id  # the same job, not another
    jobs, positions = _stores(db_url)
    _plan(jobs, positions)
    # its one unit is a side-lane unit: search slots never take it, the side lane does
    assert jobs.claim_units("dask", 8, other_than=side_units()) == []
    (claim,) = jobs.claim_units("side", 8, kinds=side_units())
    assert claim.kind == "tree"
    # progress counts the secrets placed
    assert jobs.heartbeat(claim.unit_id, claim.lease, 30)
    view = client.get(f"/v1/jobs/{job_id}").json
    assert view["status"] == "running" and view["progress"]["fraction"] == pytest.approx(30 / 120, abs=1e-4)
    report = run_unit(db_url, claim.unit_id, claim.lease, heartbeat_s=0.2)
    assert report["status"] == "done"
    assert manage.refresh(jobs, positions, job_id) == "done"
    view = client.get(f"/v1/jobs/{job_id}?units=true").json
    result = view["result"]
    assert view["progress"]["fraction"] == 1.0 and view["units"][0]["kind"] == "tree"
    assert (result["value"], result["worst_case"], result["secrets"], result["nodes"]) == \
        (expect.total, expect.worst_case, 120, expect.nodes)
    assert result["histogram"] == {str(k): v for k, v in expect.histogram.items()}
    assert result["statistics"] == "/v1/strategies/3,6,0/entropy"
    # kept: the POST and the GET answer at once, here and in another process's app
    again = client.post("/v1/strategies/3,6,0/entropy", json={})
    assert again.status_code == 200 and again.json["total"] == expect.total
    other = make_app(db_url, **SMALL).test_client()
    stats = other.get("/v1/strategies/3,6,0/entropy")
    assert stats.status_code == 200 and stats.json["total"] == expect.total and stats.json["optimal"] is False
    assert other.get("/v1/strategies/3,6,0/entropy/tree?depth=1").json["node"]["guess"] == stats.json["first_guess"]
    assert len(client.get("/v1/jobs").json["jobs"]) == 1


@backend_agnostic
def test_a_cheap_tree_is_built_within_the_request(db_url: str) -> None:
    client = make_app(db_url).test_client()
    resp = client.post("/v1/strategies/mastermind/minimax", json={})
    assert resp.status_code == 200 and resp.json["total"] == _tree_stats("mastermind", "minimax").total
    assert client.get("/v1/jobs").json["jobs"] == []
    optimal = client.post("/v1/strategies/mastermind/optimal-total", json={})
    assert optimal.status_code == 200 and optimal.json["total"] == 5625 and optimal.json["optimal"] is True


def test_an_optimal_tree_job_searches_on_the_dask_slots(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from service import strategy_trees as strategies

    monkeypatch.setattr(strategies, "STRATEGY_MAX_CODES", 10)
    monkeypatch.setattr(unit_kit, "_SEARCHERS", OrderedDict())  # a cold searcher: this database's own proofs
    client = make_app(db_url).test_client()
    resp = client.post("/v1/strategies/2,11,0/optimal-total", json={})  # outside the atlas: nothing shipped
    assert resp.status_code == 202
    jobs, positions = _stores(db_url)
    _plan(jobs, positions)
    assert jobs.claim_units("side", 8, kinds=side_units()) == []  # a search: not for the side lane
    (claim,) = jobs.claim_units("dask", 8, other_than=side_units())
    assert claim.kind == "opt-tree"
    assert run_unit(db_url, claim.unit_id, claim.lease, heartbeat_s=0.2)["status"] == "done"
    assert manage.refresh(jobs, positions, resp.json["id"]) == "done"
    optimum = Searcher(Game.from_spec("2,11,0"), SolveOptions("total")).solve().value
    stats = client.get("/v1/strategies/2,11,0/optimal-total").json
    assert stats["total"] == optimum == client.get(f"/v1/jobs/{resp.json['id']}").json["result"]["value"]
    assert stats["optimal"] is True
    assert any(row.game == "2,11,0" for row in positions.iter_rows("2,11,0"))  # the searches' proofs kept


@backend_agnostic
@pytest.mark.parametrize(("path", "body", "status", "slug"), [
    ("/v1/strategies/3,6,0/no-such-strategy", {}, 404, "unknown-strategy"),
    ("/v1/strategies/3,6,0/entropy", {"max_guesses": 0}, 422, "validation-error"),
    ("/v1/strategies/3,6,0/entropy", {"wait_ms": "soon"}, 422, "validation-error"),
    ("/v1/strategies/3,6,0/entropy", {"first": "012"}, 422, "validation-error"),
    ("/v1/strategies/6,10,1/entropy", {}, 422, "game-too-large"),
    ("/v1/strategies/5,8,1/optimal-total", {}, 400, "invalid-search-parameters"),
    ("/v1/strategies/3,6,0/optimal-kmovers", {"max_guesses": 1}, 400, "solver-error"),
])
def test_bad_tree_requests_get_a_problem_and_store_nothing(db_url: str, path: str, body: dict[str, Any],
                                                           status: int, slug: str | None) -> None:
    client = make_app(db_url, **SMALL).test_client()
    resp = client.post(path, json=body)
    assert resp.status_code == status, resp.json
    assert resp.mimetype == "application/problem+json"
    if slug is not None:
        assert resp.json["type"].endswith(slug), resp.json
    assert client.get("/v1/jobs").json["jobs"] == []


@quick_on_postgresql
def test_the_side_lane_builds_a_tree_while_a_search_holds_every_process(db_url: str, tmp_path: Path) -> None:
    """A real worker with one Dask process, busy with the unsolved 5 of 6's exact total (hours of search):
    a one-step tree of a game too big for a request is built beside it, in seconds."""
    client = make_app(db_url).test_client()
    with open(tmp_path / "worker.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--processes", "1", "--url", db_url, "--no-migrate"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "BULLSCOWS_JOB_HEARTBEAT_S": "0.5"})
    try:
        long = client.post("/v1/jobs", json={"game": "5,6,1", "criterion": "total"}).json["id"]
        deadline = time.monotonic() + 120
        while client.get(f"/v1/jobs/{long}").json["progress"]["units_running"] < 1:
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the search never started"
            time.sleep(0.2)
        resp = client.post("/v1/strategies/4,9,1/entropy", json={})  # 6561 codes: over the request's limit
        assert resp.status_code == 202
        started = time.monotonic()
        while (job := client.get(resp.headers["Location"]).json)["status"] != "done":
            assert job["status"] in ("queued", "planning", "running"), job
            assert time.monotonic() - started < 90, "the tree waited for the search"
            time.sleep(0.2)
        assert client.get(f"/v1/jobs/{long}").json["status"] == "running"  # the search still holds its process
        assert job["result"]["value"] == _tree_stats("4,9,1", "entropy").total
        assert client.delete(f"/v1/jobs/{long}").status_code == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _hybrid_games() -> list[str]:
    from service import atlas

    return sorted(spec for spec, e in atlas.shipped().items() if "hybrid" in e)


@backend_agnostic
@pytest.mark.parametrize("spec", _hybrid_games())
def test_an_unsolved_game_serves_its_best_known_tree(db_url: str, spec: str) -> None:
    """An unsolved atlas game that ships a hybrid tree serves it as ``best-known``: never called optimal,
    with the hybrid it plays and the atlas's numbers."""
    client = make_app(db_url).test_client()
    best = client.get(f"/v1/games/{spec}").json["atlas"]["best_known"]
    assert best["strategy"] == "best-known" and best["proven_optimal"] is False
    stats = client.get(f"/v1/strategies/{spec}/best-known")
    assert stats.status_code == 200
    assert (stats.json["total"], stats.json["worst_case"], stats.json["optimal"], stats.json["source"]) == \
        (best["total"], best["worst_case"], False, "shipped")
    assert stats.json["hybrid"] == best["hybrid"]
    root = client.get(f"/v1/strategies/{spec}/best-known/tree?depth=1").json["node"]
    assert root["guess"] == stats.json["first_guess"]
    # its bracket: the lower bound proven by refined plies (atlas bounds) or by parts settled exactly (atlas
    # settle, in the same campaign's file), below the tree it ships
    shown = client.get(f"/v1/games/{spec}").json["atlas"]
    proof = shown["lower_bound"]
    assert proof["value"] == shown["total"]["lower"] == shown["total_within_worst_case"]["lower"]
    assert proof["size_only"] < proof["value"] <= best["total"] == shown["total"]["upper"]
    assert proof["command"].startswith((f"bullscows atlas bounds -g {spec} --depth ",
                                        f"bullscows atlas settle -g {spec} "))


@backend_agnostic
@pytest.mark.parametrize("spec", ["4,6,1", "3,6,0"])
def test_a_game_without_a_hybrid_has_no_best_known_tree(db_url: str, spec: str) -> None:
    """Solved, or outside the atlas: a 404 problem that says where the best known strategy is named."""
    resp = make_app(db_url).test_client().get(f"/v1/strategies/{spec}/best-known")
    assert resp.status_code == 404 and resp.json["type"].endswith("no-best-known-tree")
    assert "GET /v1/games/{game}" in resp.json["detail"]
