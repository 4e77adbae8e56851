"""Campaigns as jobs.  Lower bounds (kind ``bound``): planned one unit per first guess, run by `bullscows worker`
processes on SQLite and PostgreSQL, every part's bound kept in the ``bound_parts`` table as it is proven, two
workers sharing one campaign, a worker killed with SIGKILL and another finishing.  Rollouts (kind ``rollout``):
one unit per response to the first guess, its subtree kept with the unit, the tree assembled from the progress
file the same as built at once, two workers sharing one and one killed.  And the spec file
(`bullscows campaign run/export/show SPEC`) that replays a campaign and writes its progress file."""

from __future__ import annotations

import functools
import json
import signal
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from service import bound_files, campaign_specs, rollouts
from service.campaign_files import CampaignError
from service.cli import main as cli
from service.jobs import manage
from service.jobs.ledger import StoreLedger, UnitStopped
from service.jobs.plan import Plan, UnitState, aggregate, bound_plan
from service.store.bound_parts import BoundPartStore, PartBounds
from service.store.db import StorageError
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from solver.game import Game
from solver.lowerbound import LEAVES, SECOND_UNITS_MIN, root_classes, root_lower_bound
from solver.partledger import EXACT_PLIES, PartLedger
from solver.rollout import RolloutPlan, assemble, branch_tree, rollout_tree
from solver.secondbound import second_guesses
from solver.tree import from_compact, to_compact
from tests.service.conftest import PG_URL, make_app
from tests.service.test_jobs import (
    Database,
    Workers,
    _close_connections,  # noqa: F401 (autouse: closes what Database opened)
    _ended,
    _session_gone,
    _wait,
)


@functools.cache
def _at_once(spec: str, depth: int) -> int:
    """The bound refined in this process, in one call: what every campaign of it must reach."""
    return root_lower_bound(Game.from_spec(spec), (), depth).value


def _spec_file(folder: Path, game: str, depth: int, target: int | None = None, **extra: Any) -> Path:
    path = folder / f"bounds-{game.replace(',', '-')}.campaign.json"
    doc = {"format": "bullscows-campaign", "version": 1, "kind": "bound", "game": game, "depth": depth,
           "target": target, "progress": f"bounds-{game.replace(',', '-')}.json", **extra}
    path.write_text(json.dumps(doc))
    return path


# -- the store and the ledger ----------------------------------------------------------------------------------------

def test_part_bounds_only_rise_and_plies_of_another_valuation_count_for_nothing(db_url: str) -> None:
    store = BoundPartStore(Database(db_url))
    first = PartBounds({(5, 1): (40, 2), (5, 2): (10, EXACT_PLIES)}, {(5, 1, 7): (44, 2)}, {(5, 1, 7, 3): (9, 1)})
    assert store.raise_bounds("4,6,1", first, LEAVES, "test") == 4
    # lower bounds, fewer plies: nothing falls; a higher bound with fewer plies keeps the plies
    store.raise_bounds("4,6,1", PartBounds({(5, 1): (30, 1), (5, 2): (8, 0)}, {(5, 1, 7): (50, 1)}), LEAVES, "test")
    got = store.load("4,6,1", LEAVES)
    assert got.parts == {(5, 1): (40, 2), (5, 2): (10, EXACT_PLIES)}
    assert got.seconds == {(5, 1, 7): (50, 2)} and got.thirds == {(5, 1, 7, 3): (9, 1)}
    # read as another valuation's: the bounds hold, at no known depth, but an exact value stays exact
    other = store.load("4,6,1", "by size")
    assert other.parts == {(5, 1): (40, 0), (5, 2): (10, EXACT_PLIES)}
    # a proof of another valuation replaces the plies it cannot be compared with, and keeps the higher bound
    store.raise_bounds("4,6,1", PartBounds({(5, 1): (35, 1)}), "by size", "test")
    assert store.load("4,6,1", "by size").parts[(5, 1)] == (40, 1)
    assert store.load("4,6,1", LEAVES).parts[(5, 1)] == (40, 0)
    assert store.games() == {"4,6,1": 4} and store.load("4,4,1", LEAVES).parts == {}


def test_a_ledger_writes_as_it_proves_and_stops_when_told(db_url: str) -> None:
    """Written at most every ``every`` seconds (0: at each rise), read back by another ledger at its sync; told
    to stop, it writes what it has and raises."""
    store = BoundPartStore(Database(db_url))
    game = Game.from_spec("4,6,1")
    flushed: list[int] = []
    one = StoreLedger(store, game, "test", every=3600.0, on_flush=flushed.append)
    one.put(0, 1, 100, 2)
    assert store.load(game.spec, LEAVES).parts == {} and not flushed  # not yet: within its interval
    other = StoreLedger(store, game, "test", every=0.0)
    other.put(0, 2, 50, 3)
    one.sync()  # writes its own, takes in the other's
    assert one.get(0, 2) == (50, 3) and store.load(game.spec, LEAVES).parts == {(0, 1): (100, 2), (0, 2): (50, 3)}
    assert flushed == [1]
    stop = StoreLedger(store, game, "test", every=3600.0, stopped=lambda: True)
    with pytest.raises(UnitStopped):
        stop.put_second(0, 1, 9, 120, 1)
    assert store.load(game.spec, LEAVES).seconds == {(0, 1, 9): (120, 1)}


# -- plans and outcomes ----------------------------------------------------------------------------------------------

def test_a_bound_job_is_one_unit_per_first_guess_and_its_value_the_least() -> None:
    game = Game.from_spec("mastermind")
    req = JobRequest.bound(game, 3)
    assert req.kind == "bound" and JobRequest.from_json(req.to_json()) == req
    assert JobRequest.bound(game, 3, 5700).digest != req.digest != JobRequest.bound(game, 4).digest
    # a solve's canonical form has no bound keys: its digest (the job an old client finds) is what it was
    assert '"depth":' not in JobRequest.of(game, [], req.options()).to_json()
    plan, units = bound_plan(req)
    assert [u.g1 for u in units] == [int(g) for g in root_classes(game)] and plan.mode == "bound"
    assert len({u.priority for u in units}) == len(units) and all(u.kind == "bound" for u in units)
    plan = Plan.from_json(plan.to_json())
    states = [UnitState(u.kind, u.g1, None, None, "queued", u.lower_bound, id=i) for i, u in enumerate(units)]
    out = aggregate(plan, states)
    assert not out.finished and out.cut is None and out.lower == units[0].lower_bound
    states[1].status, states[1].value = "done", 5700
    out = aggregate(plan, states)
    assert out.cut == 5700 and not out.finished  # the units left need go no further than the least done
    assert aggregate(plan, states, 5600).cut == 5600  # a target is the cut itself
    for i, s in enumerate(states):
        s.status, s.value = "done", 5700 - (i == 3) * 75
    out = aggregate(plan, states)
    assert out.finished and out.value == 5625 and out.best_guess == units[3].g1


def test_a_bound_job_of_named_parts_is_one_unit_per_part_of_each_first_guess() -> None:
    """``parts``: one unit per named part of each first guess (a part empty under a guess has none; a big one, one
    per second guess), each guess's bound its cost, the size-only bounds of the parts it leaves, and its parts'
    bounds (a part cut into second guesses: the least of theirs); the target is each part unit's cut; a whole
    bound's request and digest are what they were."""
    game = Game.from_spec("mastermind")
    r1, r2 = game.parse_response("0.1"), game.parse_response("1.0")
    req = JobRequest.bound(game, 3, parts=(r2, r1, r2))
    assert req.parts == (r1, r2) and JobRequest.from_json(req.to_json()) == req
    assert '"parts"' not in JobRequest.bound(game, 3).to_json() and req.digest != JobRequest.bound(game, 3).digest
    plan, units = bound_plan(req)
    classes = [int(g) for g in root_classes(game)]
    assert [int(g["guess"]) for g in plan.guesses] == classes
    assert {(u.g1, u.response) for u in units} <= {(g, r) for g in classes for r in (r1, r2)}
    assert {u.g1 for u in units} == set(classes) and {u.response for u in units} == {r1, r2}
    assert len({u.priority for u in units}) == len(units)
    split = {(u.g1, u.response) for u in units if u.g2 is not None}
    assert split and all(u.size >= SECOND_UNITS_MIN for u in units if u.g2 is not None)
    for g1, r in split:  # every second guess of the part, least one-ply bound first, in claim order
        mine = sorted((u for u in units if (u.g1, u.response) == (g1, r)), key=lambda u: -u.priority)
        assert [(u.g2, u.lower_bound) for u in mine] == second_guesses(game, (), g1, r)
    states = [UnitState(u.kind, u.g1, u.response, u.g2, "queued", u.lower_bound, id=i) for i, u in enumerate(units)]

    def lows(done: int = 0) -> dict[int, int]:
        out: dict[int, int] = {}
        for g in plan.guesses:
            g1 = int(g["guess"])
            parts = {u.response for u in units if u.g1 == g1}
            out[g1] = int(g["cost"]) + sum(min(u.lower_bound + done for u in units if (u.g1, u.response) == (g1, r))
                                           for r in parts)
        return out

    out = aggregate(Plan.from_json(plan.to_json()), states, 5600)
    assert out.lower == min(lows().values()) and out.cut == 5600 and not out.finished
    g1, r = next(iter(split))
    first = next(s for s in states if (s.g1, s.response) == (g1, r))
    first.status, first.value = "done", first.lower_bound + 3
    out = aggregate(plan, states)
    assert out.bounds[(g1, r)] == first.value  # its siblings need go no further than the least done
    assert aggregate(plan, states, 0).bounds[(g1, r)] < 0  # a target that every guess reaches cuts at once
    for s in states:
        s.status, s.value = "done", s.lower_bound + 10
    out = aggregate(plan, states)
    assert out.finished and out.value == min(lows(10).values())


# -- campaigns by spec, through the CLI --------------------------------------------------------------------------------

def _run(args: list[str]) -> Any:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result


def test_a_spec_campaign_reaches_the_bound_and_replays_from_its_committed_file(tmp_path: Path) -> None:
    """`campaign run SPEC` proves Mastermind's bound at three plies (the bound refined at once), writes the
    progress file the atlas reads, and run again, on that database or a fresh one given only the committed progress
    file (a new clone), computes nothing: the file says it is finished.  Given the file's parts but not its end, a
    fresh database reaches the same bound with less work: every part's bound is taken in first."""
    spec = _spec_file(tmp_path, "4,6,1", 3)
    url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    out = json.loads(_run(["campaign", "run", str(spec), "--url", url, "--processes", "1", "--json"]).stdout)
    assert out["value"] == _at_once("4,6,1", 3) == 5625 and out["depth"] == 3 and out["units"] == 5
    doc = bound_files.read(str(tmp_path / "bounds-4-6-1.json"))
    assert doc is not None and doc["finished"]["value"] == 5625 and len(doc["units"]) == 5
    assert bound_files.standing(Game.from_spec("4,6,1"), doc) == 5625
    for db in (url, f"sqlite:///{tmp_path / 'new.sqlite3'}"):
        again = json.loads(_run(["campaign", "run", str(spec), "--url", db, "--json"]).stdout)
        assert again["computed"] is False and again["value"] == 5625  # finished already: nothing computed again
        assert again["job"] == out["job"]  # the job that finished it, as the file says
    assert bound_files.read(str(tmp_path / "bounds-4-6-1.json")) == doc
    shown = json.loads(_run(["campaign", "show", str(spec), "--url", url, "--json"]).stdout)
    assert shown["job"]["status"] == "done" and shown["job"]["result"]["value"] == 5625
    got = make_app(url).test_client().get(f"/v1/jobs/{out['job']}?units=true")  # the API shows it, validated
    assert got.status_code == 200 and got.json is not None and got.json["result"]["depth"] == 3
    assert got.json["request"]["kind"] == "bound" and {u["kind"] for u in got.json["units"]} == {"bound"}
    del doc["finished"]
    (tmp_path / "bounds-4-6-1.json").write_text(json.dumps(doc))
    fresh = json.loads(_run(["campaign", "run", str(spec), "--url", f"sqlite:///{tmp_path / 'two.sqlite3'}",
                             "--processes", "1", "--json"]).stdout)
    assert fresh["value"] == 5625 and fresh["job"] != out["job"] and fresh["work"] < out["work"]


def test_a_game_with_one_first_guess_is_cut_into_its_parts(tmp_path: Path) -> None:
    """4×8 without repetition has one class of first guess: its campaign is one unit per part of it (so that every
    worker has one), its big parts (504, 288 and 288 codes) one unit per second guess, and the guess's bound, its
    cost plus its parts' bounds (a big part's the least of its second guesses'), is the bound refined at once; each
    big part's bound goes to the file as the whole refinement proves it (at three plies)."""
    game = Game.from_spec("4,8,0")
    plan, units = bound_plan(JobRequest.bound(game, 4))
    first = int(root_classes(game)[0])
    big = sorted({int(u.response or 0) for u in units if u.g2 is not None})
    assert len(root_classes(game)) == 1 and len({u.response for u in units}) == 13
    claimed = [u.size for u in sorted(units, key=lambda u: -u.priority)]
    assert claimed == sorted(claimed, reverse=True)  # biggest parts first
    assert {u.size for u in units if u.g2 is not None} == {504, 288}
    whole_parts = [u for u in units if u.g2 is None]
    assert len(whole_parts) + len(big) == 13
    assert len(units) == len(whole_parts) + sum(len(second_guesses(game, (), first, r)) for r in big)
    sizes = {int(u.response or 0): u.size for u in units}
    assert sum(sizes.values()) == game.size - 1
    assert plan.guesses == [{"guess": first, "cost": 1680}]
    targeted = bound_plan(JobRequest.bound(game, 4, 7000))[1]  # with a target too: the parts are each its cut
    assert [(u.response, u.g2) for u in targeted] == [(u.response, u.g2) for u in units]
    spec = _spec_file(tmp_path, "4,8,0", 4)
    out = json.loads(_run(["campaign", "run", str(spec), "--url", f"sqlite:///{tmp_path / 'c.sqlite3'}",
                           "--processes", "2", "--json"]).stdout)
    assert out["value"] == _at_once("4,8,0", 4) == 7817 and out["units"] == len(units) and out["best_guess"] == "0123"
    doc = bound_files.read(str(tmp_path / "bounds-4-8-0.json"))
    assert doc is not None and doc["units"] == {"0123": {"bound": 7817, "work": out["work"],
                                                         "seconds": out["unit_seconds"]}}
    assert bound_files.standing(game, doc) == 7817 and len(doc["parts"]["0123"]) == 13
    whole = PartLedger()
    root_lower_bound(game, (), 4, ledger=whole)
    for r in big:
        assert doc["parts"]["0123"][game.format_response(r)] == [whole.get(first, r)[0], 3]


REPO = Path(__file__).resolve().parents[2]


def test_the_committed_specs_are_their_files_and_the_shipped_bounds() -> None:
    """Each committed spec names its progress file, which is its game's, and the plan the atlas's bound was proven
    under; a finished file's bound is the atlas's, so `campaign run SPEC` replays what is shipped."""
    atlas = {g["game"]: g for g in json.loads((REPO / "service/data/atlas.json").read_text())["games"]}
    specs = sorted((REPO / "campaigns").glob("bounds-*.campaign.json"))
    assert len(specs) == 6
    for path in specs:
        spec = campaign_specs.load_spec(str(path))
        doc = bound_files.read(spec.progress)
        assert doc is not None and doc["game"] == spec.game.spec, path
        bound = atlas[spec.game.spec]["lower_bound"]
        assert (bound["depth"], bound.get("target")) == (spec.depth, spec.target), path
        if "campaign" in bound:
            assert bound["campaign"]["progress"] == f"campaigns/{Path(spec.progress).name}"
        else:  # proven by a plain `atlas bounds` before campaigns were; the spec's file proves it again
            assert doc["finished"]["value"] == bound["value"] and spec.game.spec in bound["command"], path
        assert campaign_specs.load_spec(str(path)).to_json() == json.loads(path.read_text())
        if "finished" in doc:
            assert doc["plan"] == {"depth": spec.depth, "target": spec.target}, path
            assert doc["finished"]["value"] == bound["value"], path


def test_the_other_committed_specs_replay_their_shipped_files() -> None:
    """The committed rollout, check and scan specs are their progress files' campaigns: each rollout's plan is the
    one its atlas upper bound was built with and its file says it finished (so `campaign run SPEC` builds nothing
    again); the check's is the records file's, finished at the published figure; a scan's goes on from the guess its
    file has reached.  Each spec is what its `CampaignSpec` writes back."""
    atlas = {g["game"]: g for g in json.loads((REPO / "service/data/atlas.json").read_text())["games"]}
    others = sorted(p for p in (REPO / "campaigns").glob("*.campaign.json")  # trees': test_campaign_steps.py
                    if not p.name.startswith(("bounds-", "tree-")))
    kinds: dict[str, int] = {}
    for path in others:
        spec = campaign_specs.load_spec(str(path))
        kinds[spec.kind] = kinds.get(spec.kind, 0) + 1
        assert spec.to_json() == json.loads(path.read_text()), path
        assert Path(spec.progress).is_file(), path
        done = campaign_specs.finished_in_file(spec)
        if spec.kind == "rollout":
            upper = atlas[spec.game.spec]["hybrid"]
            assert upper["campaign"]["progress"] == f"campaigns/{Path(spec.progress).name}", path
            assert {k: v for k, v in spec.plan.items() if k in upper["rollout"]} == upper["rollout"], path
            assert done is not None and done["kept"] and done["total"] >= upper["total"], path
        elif spec.kind == "check":
            published = campaign_specs.kinds()["check"].progress(spec)
            assert done is not None and done["finished"] and done["value"] == 179929, path
            assert published is not None and published["solved"] == published["parts"], path
        else:
            assert spec.kind == "scan" and done is None, path  # open: no guess found, not every one refuted
            kept = json.loads(Path(spec.progress).read_text())
            assert campaign_specs.progress_of(spec) == {"file": spec.progress, "found": None, "finished": False,
                                                        "scans": {"scan": {"next": kept["next"],
                                                                           "of": kept["guesses"]}}}
    assert kinds == {"rollout": 4, "check": 1, "scan": 2}


def test_a_search_spec_runs_replays_into_another_file_and_answers_from_its_finished_one(tmp_path: Path) -> None:
    """A spec file of kind search (as `campaign show` prints a `solve --checkpoint` campaign's) runs as a job to the
    plain search's answer; `--progress` with another file and database replays it from nothing to the same
    answer; the finished file then answers at once."""
    from service.searches import QUESTION_OPTIONS
    from solver.search import Searcher, SolveOptions

    game = Game.from_spec("3,6,1")
    options = SolveOptions(from_set_only=True)
    plain = Searcher(game, options).solve([])
    asked = {k: getattr(options, k) for k in QUESTION_OPTIONS}
    path = tmp_path / "search-3-6-1.campaign.json"
    doc = {"format": "bullscows-campaign", "version": 1, "kind": "search", "game": "3,6,1",
           "params": {"history": [], "options": {**asked, "criterion": "total"}, "shares": 2},
           "progress": "search-3-6-1.json"}
    path.write_text(json.dumps(doc))
    assert campaign_specs.load_spec(str(path)).to_json() == doc
    values = []
    for progress, db in (("search-3-6-1.json", "a"), ("replay.json", "b")):
        args = ["campaign", "run", str(path), "--url", f"sqlite:///{tmp_path / db}.sqlite3", "--processes", "1",
                "--json"]
        result = CliRunner().invoke(cli, [*args, "--progress", str(tmp_path / progress)])
        assert result.exit_code == 0, result.output
        assert "share 1/2" in result.stderr and "share 2/2" in result.stderr
        values.append(json.loads(result.stdout)["value"])
        assert json.loads((tmp_path / progress).read_text())["result"]["value"] == plain.value
    assert values == [plain.value, plain.value]
    again = CliRunner().invoke(cli, ["campaign", "run", str(path), "--url", f"sqlite:///{tmp_path / 'c.sqlite3'}"])
    assert again.exit_code == 0 and f"holds this search's answer already: {plain.value}" in again.stderr


def test_keep_records_the_campaigns_bound_in_the_atlas_with_its_command(tmp_path: Path) -> None:
    """`campaign run SPEC --keep --keep-in FILE`: the job's bound goes to the game's entry of an atlas file when it
    beats the one recorded, with the spec's command and progress file; the same run again keeps nothing (it is no
    better); a solved game's is refused, and the atlas file is left as it was."""
    atlas = tmp_path / "atlas.json"
    doc = json.loads((REPO / "service/data/atlas.json").read_text())
    entry = next(g for g in doc["games"] if g["game"] == "4,9,1")
    entry["lower_bound"] = {**entry["lower_bound"], "value": entry["lower_bound"]["size_only"]}  # as if unrefined
    atlas.write_text(json.dumps(doc))
    (tmp_path / "campaigns").mkdir()
    spec = _spec_file(tmp_path / "campaigns", "4,9,1", 2)
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    args = ["campaign", "run", str(spec), "--url", url, "--processes", "1", "--keep", "--keep-in", str(atlas)]
    first = CliRunner().invoke(cli, [*args, "--json"])
    assert first.exit_code == 0, first.output
    value = json.loads(first.stdout)["value"]
    assert value == _at_once("4,9,1", 2) and "kept in" in first.stderr
    kept = next(g for g in json.loads(atlas.read_text())["games"] if g["game"] == "4,9,1")["lower_bound"]
    assert kept["value"] == value and kept["depth"] == 2 and "target" not in kept
    assert kept["command"] == "bullscows campaign run campaigns/bounds-4-9-1.campaign.json"
    assert kept["campaign"]["progress"] == "campaigns/bounds-4-9-1.json" and "finished" not in kept["campaign"]
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0 and "not kept" in again.stderr
    solved = _spec_file(tmp_path / "campaigns", "4,6,1", 2)
    before = atlas.read_text()
    result = CliRunner().invoke(cli, ["campaign", "run", str(solved), "--url", url, "--processes", "1", "--keep",
                                      "--keep-in", str(atlas)])
    assert result.exit_code != 0 and "4,6,1 is solved" in result.output and atlas.read_text() == before
    # refused before any work: no job was submitted
    assert campaign_specs.status(JobStore(Database(url)), campaign_specs.load_spec(str(solved)))["job"] is None
    for wrong, words in ((tmp_path / "nope.json", "is not there"),
                         (REPO / "service/data/records.json", "has no entry for 4,9,1")):
        result = CliRunner().invoke(cli, [*args[:-1], str(wrong)])
        assert result.exit_code != 0 and words in result.output, result.output
    alone = CliRunner().invoke(cli, ["campaign", "run", str(spec), "--url", url, "--keep-in", str(atlas)])
    assert alone.exit_code != 0 and "give --keep too" in alone.output
    rollout = _rollout_spec(tmp_path, *SMALL)
    result = CliRunner().invoke(cli, ["campaign", "run", str(rollout), "--url", url, "--keep"])
    assert result.exit_code != 0 and "only a bound campaign's" in result.output


def test_bad_specs_are_refused_in_their_own_words(tmp_path: Path) -> None:
    cases = {
        "missing.json": "cannot be read: No such file",
        "not-json.json": "is not JSON",
        "format.json": "not a campaign spec",
        "version.json": "spec version 2",
        "kind.json": 'kind "sweep"',
        "game.json": "game",
        "no-game.json": 'game null; give a game, e.g. "6,7,0"',
        "depth.json": "depth 0",
        "no-depth.json": "depth null; give the plies to refine",
        "target.json": "target 5",
        "parts.json": "parts: 4.0 is the winning response",
        "parts-list.json": 'parts: "0.1"; give a list of responses',
        "parts-game.json": "parts: ",
        "typo.json": "unknown key(s) taget in a bound spec",
        "folder.json": "its folder is not there",
        "plan.json": "plan null; give the rollout's plan",
        "strategy.json": 'plan: strategy "nope"; the one-step strategies are',
        "width.json": 'plan: width "3"; give a whole number of at least 1',
        "fraction.json": "plan: width 2.5; give a whole number",
        "zero.json": "plan: levels 0; give a whole number of at least 1",
        "missing-turn.json": "plan: from_turn null",
        "late.json": "plan: from_turn 5 is after levels 3",
        "plan-typo.json": "plan: unknown key(s) widht",
        "params.json": "params null; give an object with first_guess, parts, shares",
        "params-keys.json": "params: missing parts; unknown part (the params of a check spec are first_guess, parts, "
                            "shares)",
        "first.json": "params: code '0019': symbol '9' is not one of the 6 symbols",
        "no-parts.json": "params: parts []; give the responses to solve",
        "depth-count.json": "params: options: depth_count 5; a search guess by guess finds one k-movers count",
        "shares.json": "params: shares 0; give a whole number from 1 to 64",
        "history.json": "params: history \"0123 1.2\"; give turns",
        "criterion.json": "params: unknown criterion 'fastest'",
        "scan-limit.json": "params: max_guesses 4; give a whole number from 5 to 63",
        "impossible.json": "params: no code is consistent with the history",
        "flag.json": "params: options: from_set_only \"yes\"; give true or false",
        "option-typo.json": "(unknown: node_limit)",
        "atlas-game.json": "an atlas spec's game is the first of its games (3,4,1)",
        "games.json": "params: games []; give a list of games",
        "budget.json": "params: budget_s 0; give the seconds of each search",
        "no-progress.json": "progress null; give a file name",
    }
    (tmp_path / "not-json.json").write_text("{")
    (tmp_path / "format.json").write_text(json.dumps({"format": "x"}))
    base = {"format": "bullscows-campaign", "version": 1, "kind": "bound", "game": "4,6,1", "depth": 3}
    plan = {"strategy": "entropy", "exact_at_most": 6, "width": 3, "levels": 3, "min_size": 6, "from_turn": 1}
    rollout = {**base, "kind": "rollout", "plan": plan}
    del rollout["depth"]
    given = {k: v for k, v in base.items() if k != "depth"}
    check = {**given, "kind": "check", "params": {"first_guess": "0011", "shares": 1, "parts": None},
             "progress": "records.json"}
    search = {**given, "kind": "search", "params": {"history": [], "options": {}, "shares": 1}, "progress": "s.json"}
    scan = {**given, "kind": "scan", "params": {"history": [], "max_guesses": 5, "tries": None, "shares": 1},
            "progress": "s.json"}
    atlas_run = {**given, "kind": "atlas", "params": {"games": ["3,4,1"], "budget_s": 5}, "progress": "atlas.json"}
    for name, doc in [("version.json", {**base, "version": 2}), ("kind.json", {**base, "kind": "sweep"}),
                      ("game.json", {**base, "game": "4,99,1"}), ("no-game.json", {**base, "game": None}),
                      ("depth.json", {**base, "depth": 0}), ("no-depth.json", {**base, "depth": None}),
                      ("target.json", {**base, "target": 5}), ("typo.json", {**base, "taget": 5700}),
                      ("parts.json", {**base, "parts": ["0.1", "4.0"]}), ("parts-list.json", {**base, "parts": "0.1"}),
                      ("parts-game.json", {**base, "parts": ["9.9"]}),
                      ("folder.json", {**base, "progress": "no/such/folder/bounds.json"}),
                      ("plan.json", {**rollout, "plan": None}),
                      ("strategy.json", {**rollout, "plan": {**plan, "strategy": "nope"}}),
                      ("width.json", {**rollout, "plan": {**plan, "width": "3"}}),
                      ("fraction.json", {**rollout, "plan": {**plan, "width": 2.5}}),
                      ("zero.json", {**rollout, "plan": {**plan, "levels": 0}}),
                      ("missing-turn.json", {**rollout, "plan": {k: v for k, v in plan.items() if k != "from_turn"}}),
                      ("late.json", {**rollout, "plan": {**plan, "from_turn": 5}}),
                      ("plan-typo.json", {**rollout, "plan": {**plan, "widht": 4}}),
                      ("params.json", {**check, "params": None}),
                      ("params-keys.json", {**check, "params": {"first_guess": "0011", "shares": 1, "part": []}}),
                      ("first.json", {**check, "params": {**check["params"], "first_guess": "0019"}}),
                      ("shares.json", {**check, "params": {**check["params"], "shares": 0}}),
                      ("history.json", {**search, "params": {**search["params"], "history": "0123 1.2"}}),
                      ("criterion.json", {**search, "params": {**search["params"],
                                                               "options": {"criterion": "fastest"}}}),
                      ("scan-limit.json", {**scan, "params": {**scan["params"], "max_guesses": 4}}),
                      ("impossible.json", {**scan, "params": {**scan["params"], "history": ["0123 0.0", "0123 0.1"]}}),
                      ("flag.json", {**search, "params": {**search["params"], "options": {"from_set_only": "yes"}}}),
                      ("option-typo.json", {**search, "params": {**search["params"], "options": {"node_limit": 9}}}),
                      ("atlas-game.json", {**atlas_run, "game": "4,6,1"}),
                      ("no-parts.json", {**check, "params": {**check["params"], "parts": []}}),
                      ("depth-count.json", {**search, "params": {**search["params"], "options": {
                          "criterion": "kmovers", "max_guesses": 6, "depth_count": 5}}}),
                      ("games.json", {**atlas_run, "params": {"games": [], "budget_s": 5}}),
                      ("budget.json", {**atlas_run, "params": {"games": ["3,4,1"], "budget_s": 0}}),
                      ("no-progress.json", {k: v for k, v in check.items() if k != "progress"})]:
        (tmp_path / name).write_text(json.dumps(doc))
    for name, doc in (("crush.json", {**search, "params": {**search["params"], "history": ["0123 0.1", "4501 0.2"],
                                                          "options": {"mde": 2, "upper_bound": 0}}}),
                      ("tries.json", {**scan, "params": {**scan["params"], "tries": 100}})):
        (tmp_path / name).write_text(json.dumps(doc))  # what the commands accept, a spec accepts
        assert campaign_specs.load_spec(str(tmp_path / name)).to_json()["params"] == doc["params"]
    replay = CliRunner().invoke(cli, ["campaign", "run", str(tmp_path / "tries.json"), "--keep", "--progress",
                                      str(tmp_path / "elsewhere.json")])
    assert replay.exit_code != 0 and "--keep records the bound with the spec's own progress file" in replay.output
    (tmp_path / "first.campaign.json").write_text(json.dumps(
        {**check, "game": "5,8,1", "params": {**check["params"], "first_guess": "01234"}}))
    other_first = CliRunner().invoke(cli, ["campaign", "show", str(tmp_path / "first.campaign.json"), "--url",
                                           f"sqlite:///{tmp_path / 'never.sqlite3'}"])
    assert other_first.exit_code != 0 and "the published figure checked opens with 01122" in other_first.output
    assert not (tmp_path / "never.sqlite3").exists()  # refused before any database is made
    for name, words in cases.items():
        with pytest.raises(CampaignError) as refused:
            campaign_specs.load_spec(str(tmp_path / name))
        assert words in str(refused.value), (name, str(refused.value))
        result = CliRunner().invoke(cli, ["campaign", "show", str(tmp_path / name), "--url",
                                          f"sqlite:///{tmp_path / 'x.sqlite3'}"])
        assert result.exit_code != 0 and words in result.output
    # another game's progress file is refused before anything is written to it or taken from it
    spec = _spec_file(tmp_path, "4,6,1", 3)
    (tmp_path / "bounds-4-6-1.json").write_text(json.dumps({"format": bound_files.FORMAT, "game": "4,7,1",
                                                            "parts": {}, "units": {}}))
    result = CliRunner().invoke(cli, ["campaign", "run", str(spec), "--url", f"sqlite:///{tmp_path / 'y.sqlite3'}"])
    assert result.exit_code != 0 and "not 4,6,1's" in result.output
    assert not (tmp_path / "no").exists()  # a spec's missing folder is not made
    # the old command's options before a subcommand would be silently lost: refused instead
    result = CliRunner().invoke(cli, ["campaign", "--url", f"sqlite:///{tmp_path / 'y.sqlite3'}", "show", str(spec)])
    assert result.exit_code != 0 and "--url: an option of `campaign` alone" in result.output


def test_export_without_a_job_leaves_a_committed_file_as_it_was(tmp_path: Path) -> None:
    """A committed progress file whose parts were valued another way (4×9's): exporting with no job of the
    campaign in the database writes nothing, rather than set its finished units aside."""
    import shutil

    (tmp_path / "campaigns").mkdir()
    for name in ("bounds-4-9-1.campaign.json", "bounds-4-9-1.json"):
        shutil.copy(REPO / "campaigns" / name, tmp_path / "campaigns" / name)
    before = (tmp_path / "campaigns/bounds-4-9-1.json").read_bytes()
    result = CliRunner().invoke(cli, ["campaign", "export", str(tmp_path / "campaigns/bounds-4-9-1.campaign.json"),
                                      "--url", f"sqlite:///{tmp_path / 'e.sqlite3'}"])
    assert result.exit_code != 0 and "no job of this campaign: nothing to write" in result.output
    assert (tmp_path / "campaigns/bounds-4-9-1.json").read_bytes() == before


# -- real workers: two sharing one campaign, one killed mid-unit ------------------------------------------------------

BIG = ("4,7,1", 4)
"""Five first guesses, about 20 s of one core at four plies: long enough for a kill to land mid-unit."""
ENV = {"BULLSCOWS_BOUND_FLUSH_S": "0.5"}


def _submit(url: str, spec: str, depth: int) -> str:
    job, created = JobStore(Database(url)).submit(JobRequest.bound(Game.from_spec(spec), depth), "test")
    assert created
    return job.id


def _finished(jobs: JobStore, job_id: str, workers: Workers) -> Any:
    job = _wait(lambda: (j := jobs.get(job_id)) is not None and j.status in ("done", "failed") and j, 300,
                "the bound job", explain=workers.tails)
    assert job.status == "done", job.error
    return orjson.loads(job.result)


@pytest.mark.slow  # a minute; the whole suite (CI) runs it
def test_two_workers_share_a_bound_campaign_on_postgresql(tmp_path: Path) -> None:
    """Two workers, each in a folder of its own (two machines as far as they can tell), on one PostgreSQL: every
    first guess is refined once, both take part, and the campaign's bound is the one refined at once."""
    from service.store.migrate import downgrade, upgrade

    url = PG_URL
    downgrade(url)
    upgrade(url)
    w = Workers(url, tmp_path)
    try:
        job_id = _submit(url, *BIG)
        for side in ("left", "right"):
            (tmp_path / side).mkdir()
            w.start(side, processes=1, cwd=tmp_path / side, env=ENV)
        jobs = JobStore(Database(url))
        result = _finished(jobs, job_id, w)
        assert result["value"] == _at_once(*BIG)
        units = _wait(lambda: _ended(jobs.units(job_id)), 60, "every unit to end")
        assert all(u.status == "done" and u.attempts == 1 for u in units)
        assert {u.worker for u in units} == {"left", "right"}
        assert BoundPartStore(jobs.db).games()["4,7,1"] > 0
    finally:
        w.stop_all()
        downgrade(url)


@pytest.mark.slow  # a minute on each backend; the whole suite (CI) runs it
def test_a_worker_killed_mid_bound_unit_loses_nothing_it_wrote(db_url: str, tmp_path: Path) -> None:
    """SIGKILL the only worker while it refines a first guess, its part bounds written every half second: every
    bound written stays (none falls), the unit is re-queued and another worker finishes the campaign at the bound
    refined at once, the killed unit's second attempt starting from what the first wrote."""
    w = Workers(db_url, tmp_path)
    jobs = JobStore(Database(db_url))
    store = BoundPartStore(jobs.db)
    try:
        job_id = _submit(db_url, *BIG)
        first = w.start("a", processes=1, env={**ENV, "BULLSCOWS_JOB_STALE_AFTER_S": "3"})

        def mid_unit() -> Any:
            running = [u for u in jobs.units(job_id) if u.status == "running" and u.checkpoints >= 2]
            return running and running[0]

        killed = _wait(mid_unit, 240, "a unit's second write", poll=0.1, explain=w.tails)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        _wait(lambda: _session_gone(first.pid), 30, "the killed worker's Dask processes to exit")
        written = store.load("4,7,1", LEAVES)
        assert len(written) > 0
        w.start("b", processes=1, env=ENV)
        result = _finished(jobs, job_id, w)
        assert result["value"] == _at_once(*BIG)
        after = store.load("4,7,1", LEAVES)
        for proven, now in ((written.parts, after.parts), (written.seconds, after.seconds),
                            (written.thirds, after.thirds)):
            for key, (lower, plies) in proven.items():  # type: ignore[attr-defined]
                assert now[key][0] >= lower and now[key][1] >= plies
        unit = next(u for u in jobs.units(job_id) if u.id == killed.id)
        assert (unit.status, unit.attempts, unit.worker) == ("done", 2, "b")
        view = manage.view(jobs, jobs.get(job_id), units=True)  # type: ignore[arg-type]
        assert view["progress"]["lower_bound"] == result["value"] and view["result"]["exact"] is False
    finally:
        w.stop_all()


# -- rollouts ----------------------------------------------------------------------------------------------------------

SMALL = ("4,6,1", RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1))
"""The rollout of tests/service/test_rollout_campaign.py: thirteen units of a fraction of a second."""


@functools.cache
def _whole(spec: str, plan: RolloutPlan) -> str:
    return to_compact(rollout_tree(Game.from_spec(spec), plan.strategy, plan.exact_at_most, width=plan.width,
                                   levels=plan.levels, min_size=plan.min_size, from_turn=plan.from_turn))


def _rollout_spec(folder: Path, game: str, plan: RolloutPlan) -> Path:
    path = folder / f"rollout-{game.replace(',', '-')}.campaign.json"
    path.write_text(json.dumps({"format": "bullscows-campaign", "version": 1, "kind": "rollout", "game": game,
                                "plan": plan.as_dict(), "progress": f"rollout-{game.replace(',', '-')}.json"}))
    return path


@pytest.mark.slow  # 17 s; test_rollout_campaign's resumable campaign builds a rollout's tree in the quick run
def test_a_rollout_campaign_builds_the_subtrees_the_file_lacks_and_the_tree_is_the_one_built_at_once(
        tmp_path: Path) -> None:
    """`campaign run` of a rollout spec writes every subtree to the progress file the records' and atlas's rollout
    commands read, which then assemble the tree built at once without building a unit.  With subtrees taken out
    of the file, the next run's job builds those only."""
    spec, plan = SMALL
    path = _rollout_spec(tmp_path, spec, plan)
    progress = str(tmp_path / "rollout-4-6-1.json")
    url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    out = json.loads(_run(["campaign", "run", str(path), "--url", url, "--processes", "1", "--json"]).stdout)
    doc = rollouts.read(progress)
    assert doc is not None and len(doc["units"]) == out["units"] == 13 and out["secrets"] == 1295
    tree = rollouts.tree_of(Game.from_spec(spec), plan, doc)  # every subtree is the job's
    assert tree is not None and to_compact(tree) == _whole(*SMALL)
    assert out["value"] + 1 == tree.stats().total  # the units' guesses, and the secret the first guess finds
    assert out["progress"]["total"] == tree.stats().total and out["progress"]["missing"] == 0
    rerun = json.loads(_run(["campaign", "run", str(path), "--url", url, "--processes", "1", "--json"]).stdout)
    assert rerun["units"] == 0 and rerun["progress"]["total"] == tree.stats().total  # told the whole tree's
    doc["units"] = dict(list(doc["units"].items())[3:])
    Path(progress).write_text(json.dumps(doc))
    # the same database: its earlier job gives the file back the three subtrees, and nothing is built
    same = json.loads(_run(["campaign", "run", str(path), "--url", url, "--processes", "1", "--json"]).stdout)
    assert same["units"] == 0 and len(same["skipped"]) == 13 and len((rollouts.read(progress) or {})["units"]) == 13
    # the file lost: `campaign export` writes it back from every job, the newest (which built none) and the first
    Path(progress).unlink()
    _run(["campaign", "export", str(path), "--url", url, "--json"])
    assert len((rollouts.read(progress) or {})["units"]) == 13
    # a fresh database (a new clone) with the file lacking three: those three are built
    Path(progress).write_text(json.dumps(doc))
    fresh = f"sqlite:///{tmp_path / 'two.sqlite3'}"
    again = json.loads(_run(["campaign", "run", str(path), "--url", fresh, "--processes", "1", "--json"]).stdout)
    assert again["units"] == 3 and len(again["skipped"]) == 10
    tree = rollouts.tree_of(Game.from_spec(spec), plan, rollouts.read(progress) or {})
    assert tree is not None and to_compact(tree) == _whole(*SMALL)
    shown = json.loads(_run(["campaign", "show", str(path), "--url", fresh, "--json"]).stdout)
    assert shown["job"]["id"] == again["job"] and shown["spec"]["plan"] == plan.as_dict()
    got = make_app(fresh).test_client().get(f"/v1/jobs/{again['job']}?units=true")
    first = Game.from_spec(spec).format_code(tree.root.guess)
    assert got.status_code == 200 and got.json is not None and got.json["result"]["first_guess"] == first
    assert got.json["request"]["kind"] == "rollout" and {u["kind"] for u in got.json["units"]} == {"rollout"}


def test_a_rollout_file_of_another_plan_is_refused(tmp_path: Path) -> None:
    spec, plan = SMALL
    path = _rollout_spec(tmp_path, spec, plan)
    other = RolloutPlan("entropy", 6, 2, 3, 6, from_turn=1)
    (tmp_path / "rollout-4-6-1.json").write_text(json.dumps({"format": rollouts.FORMAT, "game": spec,
                                                            "plan": other.as_dict(), "first_guess": "0012",
                                                            "units": {}}))
    result = CliRunner().invoke(cli, ["campaign", "run", str(path), "--url", f"sqlite:///{tmp_path / 'x.sqlite3'}"])
    assert result.exit_code != 0 and "continues another campaign" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "bullscows-campaign", "version": 1, "kind": "rollout", "game": spec,
                               "plan": {"strategy": "entropy", "width": 3}}))
    with pytest.raises(CampaignError, match="plan: "):
        campaign_specs.load_spec(str(bad))


def test_a_stopped_rollout_job_is_cancelled_when_the_campaign_starts_again(tmp_path: Path) -> None:
    """A run stopped before its job ended leaves it running; the next run writes what it built to the file and
    cancels it, so that its units are not built twice, by the new job and the old."""
    spec, plan = SMALL
    parsed = campaign_specs.load_spec(str(_rollout_spec(tmp_path, spec, plan)))
    db = Database(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    from service.store.migrate import upgrade

    upgrade(db.url)
    jobs = JobStore(db)
    first, created, _ = campaign_specs.start(jobs, parsed)
    assert created and first.status == "queued"  # no worker: as if stopped at once
    again, created, _ = campaign_specs.start(jobs, parsed)
    assert not created and again.id == first.id  # nothing built meanwhile: the same job, still to run
    game = Game.from_spec(spec)
    from solver.rollout import branch_responses, first_guess

    guess = first_guess(game, plan)
    r = branch_responses(game, guess)[0]
    Path(parsed.progress).write_text(json.dumps({
        "format": rollouts.FORMAT, "game": spec, "plan": plan.as_dict(), "first_guess": game.format_code(guess),
        "units": {game.format_response(r): {"tree": to_compact(branch_tree(game, plan, guess, r)), "seconds": 0.1}}}))
    later, created, taken = campaign_specs.start(jobs, parsed)
    assert created and later.id != first.id and taken == "1 subtrees built before"
    assert (jobs.get(first.id) or first).status == "cancelled"
    assert JobRequest.from_json(later.request).skip == (r,)


LONG = ("4,7,1", RolloutPlan("entropy", 60, 6, 3, 20, from_turn=2))
"""Thirteen units of 2 to 4 s each: long enough for a kill to land mid-unit."""


@pytest.mark.slow  # a minute; the whole suite (CI) runs it
def test_two_workers_share_a_rollout_and_one_killed_mid_unit_loses_only_that_unit(tmp_path: Path) -> None:
    """Two workers on one PostgreSQL build a rollout's subtrees; one is killed with SIGKILL while it builds one:
    the subtrees finished before stay as they were, the other worker builds the lost one again, every subtree
    is built once but that one, and the tree assembles (each branch checked against its candidates) with the
    killed unit's subtree the one built here."""
    from service.store.migrate import downgrade, upgrade

    url = PG_URL
    downgrade(url)
    upgrade(url)
    spec, plan = LONG
    game = Game.from_spec(spec)
    w = Workers(url, tmp_path)
    try:
        job, _ = JobStore(Database(url)).submit(JobRequest.rollout_of(game, plan.as_dict()), "test")
        procs = {}
        for side in ("left", "right"):
            (tmp_path / side).mkdir()
            procs[side] = w.start(side, processes=1, cwd=tmp_path / side)
        jobs = JobStore(Database(url))

        def mid_job() -> Any:
            units = jobs.units(job.id)
            done = [u for u in units if u.status == "done"]
            running = [u for u in units if u.status == "running" and u.worker == "left"]
            return len(done) >= 3 and {u.worker for u in done} == {"left", "right"} and running and running[0]

        killed = _wait(mid_job, 240, "both workers to finish units", poll=0.1, explain=w.tails)
        before = {u.id: (u.output, u.finished_at, u.worker) for u in jobs.units(job.id) if u.status == "done"}
        procs["left"].send_signal(signal.SIGKILL)
        procs["left"].wait(timeout=10)
        _wait(lambda: _session_gone(procs["left"].pid), 30, "the killed worker's Dask processes to exit")
        result = _finished(jobs, job.id, w)
        assert result["units"] == 13 and result["secrets"] == game.size - 1
        units = {u.id: u for u in jobs.units(job.id)}
        assert all(u.status == "done" for u in units.values())
        for uid, was in before.items():
            u = units[uid]
            assert (u.output, u.finished_at, u.worker, u.attempts) == (*was, 1)
        again = units[killed.id]
        assert (again.attempts, again.worker) == (2, "right")
        assert all(u.attempts == 1 for uid, u in units.items() if uid != killed.id)
        first = int(json.loads(jobs.get(job.id).plan)["guesses"][0]["guess"])  # type: ignore[union-attr]
        assert again.output == to_compact(branch_tree(game, plan, first, int(again.response or 0)))
        tree = assemble(game, plan, first, {int(u.response or 0): from_compact(u.output or "")
                                            for u in units.values()})
        assert tree.stats().secrets == game.size
    finally:
        w.stop_all()
        downgrade(url)


def test_a_ctrl_c_while_a_campaign_writes_its_last_file_waits_for_it() -> None:
    """`signals_deferred`, around a campaign's last export and keep: a Ctrl-C or SIGTERM arriving then is noted, the
    block ends as it would have, and afterwards both signals act as before."""
    import os

    from service.jobs.runner import signals_deferred

    before = signal.signal(signal.SIGINT, signal.default_int_handler), signal.getsignal(signal.SIGTERM)
    try:
        finished = False
        with signals_deferred() as stopped:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)
            finished = True
        assert finished and stopped == [signal.SIGINT, signal.SIGTERM]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) == before[1]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, before[0])


@pytest.mark.slow  # half a minute; the whole suite (CI) runs it
def test_ctrl_c_stops_a_campaign_gives_back_its_units_and_the_next_run_finishes_it(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) on `campaign run` while its worker refines: the command stops at once with one line, its
    worker gives back the units it held (queued again, no lease: the next run takes them without waiting for
    them to go stale), the progress file has what was proven, and the same command then reaches the bound.  A
    worker that dies under the command stops it with a line saying so, instead of leaving it waiting."""
    import os
    import subprocess
    import sys
    import time

    spec = _spec_file(tmp_path, *BIG)
    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    cmd = [sys.executable, "-m", "service.cli", "campaign", "run", str(spec), "--url", url, "--processes", "1"]
    env = {**os.environ, **ENV}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    jobs = JobStore(Database(url))
    def proven() -> bool:
        try:
            return BoundPartStore(jobs.db).games().get("4,7,1", 0) > 0
        except StorageError:  # the command has not made the schema yet
            return False

    _wait(proven, 120, "the first part bounds", poll=0.2)
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and time.monotonic() - started < 30
    assert "stopped; every unit done is kept, and the progress of those under way" in err
    assert "Traceback" not in err
    units = jobs.units(jobs.list_jobs()[0].id)
    assert not any(u.status == "running" or u.lease for u in units if u.status != "done"), units
    doc = bound_files.read(str(tmp_path / "bounds-4-7-1.json"))
    assert doc is not None and doc["parts"]
    # a worker killed under the command: the command says so and stops
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    worker = _wait(lambda: subprocess.run(["pgrep", "-f", f"service.cli worker --url {url}"], capture_output=True,
                                          text=True).stdout.split(), 60, "the campaign's worker")
    for pid in worker:
        os.killpg(int(pid), signal.SIGKILL)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "the campaign's worker stopped" in err
    out = json.loads(_run(["campaign", "run", str(spec), "--url", url, "--processes", "1", "--json"]).stdout)
    assert out["value"] == _at_once(*BIG)


# -- polishes ----------------------------------------------------------------------------------------------------------

POLISH = ("5,7,0", {"above": 30, "at_most": 300, "budget_s": 120.0, "max_guesses": None, "keep_movers": False,
                    "sweep": None})
"""A polish of 5×7's entropy tree: about 25 positions of 50 to 250 candidates, a second or two each, in parts."""


@pytest.mark.slow  # under a minute; the whole suite (CI) runs it
def test_two_workers_share_a_polish_and_one_killed_mid_unit_loses_only_the_position_it_searched(
        tmp_path: Path) -> None:
    """Two workers on one PostgreSQL polish a tree, part by part; one is killed with SIGKILL while it polishes a part
    of which it settled some positions already: every position settled before the kill stays as it was (never
    searched again), the other worker finishes the killed part from there, and the tree the progress file's positions
    make is the one a polish in one process makes."""
    from service import polishes
    from service.store.migrate import downgrade, upgrade
    from service.store.polish_positions import PolishPositionStore
    from solver.heuristics import get_strategy
    from solver.polish import polish
    from solver.search import Searcher, SolveOptions
    from solver.tree import build_tree, strategy_chooser

    url = PG_URL
    downgrade(url)
    upgrade(url)
    spec, params = POLISH
    game = Game.from_spec(spec)

    def weak() -> Any:
        return build_tree(game, strategy_chooser(game, get_strategy("entropy")))

    whole, keys = weak(), []
    polish(whole, Searcher(game, SolveOptions("total")), above=params["above"], at_most=params["at_most"],
           budget_s=params["budget_s"], settle=lambda key, _done: keys.append(key))
    w = Workers(url, tmp_path)
    path = str(tmp_path / "polish.json")
    try:
        jobs = JobStore(Database(url))
        job, _created, _taken = polishes.start_job(jobs, game, weak(), params, path, "test")
        store = PolishPositionStore(jobs.db)
        pid = polishes.identity(game, weak(), params)
        procs = {}
        for side in ("left", "right"):
            (tmp_path / side).mkdir()
            procs[side] = w.start(side, processes=1, cwd=tmp_path / side,
                                  env={"BULLSCOWS_JOB_STALE_AFTER_S": "3"})
        prefixes: dict[str, str] = {}

        def mid_part() -> Any:  # the left worker's part, some of whose positions are settled
            running = [u for u in jobs.units(job.id) if u.status == "running" and u.worker == "left"]
            if not running:
                return None
            unit = running[0]
            prefix = f"{game.format_code(int(unit.g1 or 0))} {game.format_response(int(unit.response or 0))}"
            prefixes["left"] = prefix
            settled = sum(key.startswith(prefix) for key in store.load(pid))
            return 2 <= settled < sum(key.startswith(prefix) for key in keys) and unit  # some left to settle

        killed = _wait(mid_part, 240, "the left worker to settle positions of a part", poll=0.05, explain=w.tails)
        procs["left"].send_signal(signal.SIGKILL)
        procs["left"].wait(timeout=10)
        _wait(lambda: _session_gone(procs["left"].pid), 30, "the killed worker's Dask processes to exit")
        before = store.load(pid)
        assert sum(key.startswith(prefixes["left"]) for key in before) >= 2
        job_done = _wait(lambda: (j := jobs.get(job.id)) is not None and j.status in ("done", "failed") and j, 400,
                         "the polish job", explain=w.tails)
        assert job_done.status == "done", job_done.error
        after = store.load(pid)
        assert all(after[key] == entry for key, entry in before.items())  # none searched again
        again = next(u for u in jobs.units(job.id) if u.id == killed.id)
        assert (again.status, again.attempts, again.worker) == ("done", 2, "right")
        assert orjson.loads(again.output or "{}")["resumed"] >= 2
        polishes.export(jobs, game, weak(), params, path)
        tree = weak()
        report = polish(tree, Searcher(game, SolveOptions("total")), above=params["above"],
                        at_most=params["at_most"], budget_s=0.0, known=polishes.known(path, game, weak(), params))
        assert report.tried == report.resumed == len(after) == len(keys) and report.cut == 0
        assert tree.stats().total == whole.stats().total < weak().stats().total
    finally:
        w.stop_all()
        downgrade(url)
