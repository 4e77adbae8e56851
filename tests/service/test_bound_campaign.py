"""Lower-bound campaigns run as bound jobs (``bullscows atlas bounds --campaign``, ``records bound --campaign``,
:func:`service.campaign_specs.run`): a unit per first guess (or part), every part's bound kept in the database and
written to the progress file, continued from what was proven, and the bound the same as the one refined at once;
and what the progress file tells (standing bound, gaps, parts settled exactly).  A worker killed mid-unit and two
workers sharing a campaign are ``tests/service/test_campaign_jobs.py``'s."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service import atlas, atlas_keeping, bound_campaigns, bound_files, campaign_specs
from service.campaign_files import CampaignError
from service.cli import main
from service.store.db import Database
from service.store.jobs import JobStore
from service.store.migrate import upgrade
from solver.game import Game
from solver.lowerbound import LEAVES, root_classes, root_lower_bound
from solver.partledger import PartLedger
from solver.tree import Tree

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def _at_once(spec: str, depth: int) -> int:
    return root_lower_bound(Game.from_spec(spec), (), depth).value


def _parts(doc: dict[str, object]) -> dict[tuple[str, str], list[object]]:
    parts = doc["parts"]
    assert isinstance(parts, dict)
    return {(g, r): v for g, row in parts.items() for r, v in row.items()}


def _run(db: Path, spec: str, depth: int, target: int | None = None, *, progress: Path,
         max_units: int | None = None, parts: tuple[int, ...] = ()) -> dict[str, Any]:
    """The campaign run as the commands run it (a real ``bullscows worker`` on the SQLite database ``db``); the
    job's result, or its progress when it stopped short (``{"status": ...}``)."""
    url = f"sqlite:///{db}"
    upgrade(url)
    base = Database(url)
    try:
        jobs = JobStore(base)
        campaign = campaign_specs.CampaignSpec.bound(Game.from_spec(spec), depth, target, str(progress), parts)
        got = campaign_specs.run(jobs, campaign, processes=1, max_units=max_units)
        assert got.problem is None, got.problem
        if got.job is None:  # the progress file had finished it
            return {"status": "finished before", "job": None, **(got.finished or {})}
        if got.job.status != "done" or not got.job.result:
            return {"status": got.job.status, "job": got.job.id}
        return {"status": "done", "job": got.job.id, **json.loads(got.job.result)}
    finally:
        base.dispose()


def _proven_file(path: Path, spec: str, depth: int, guesses: list[str] | None = None) -> dict[str, Any]:
    """A progress file holding every part's bound that refining ``guesses`` (default: every first guess) ``depth``
    plies proves, made in this process: what a campaign's file holds, for the tests of its readers."""
    game = Game.from_spec(spec)
    ledger = PartLedger()
    root_lower_bound(game, (), depth, ledger=ledger,
                     guesses=None if guesses is None else [game.parse_code(g) for g in guesses])
    bound_files.start(game, depth, None, str(path))
    return bound_files.amend(str(path), lambda doc: bound_files.merge(
        game, doc, ledger.bounds, {"seconds": dict(ledger.seconds), "thirds": dict(ledger.thirds)}))


def test_a_campaign_proves_the_bound_refined_at_once(tmp_path: Path) -> None:
    """Every first guess a unit: the least of their bounds is the root's bound at the same depth, and the file
    keeps each unit's bound and every part's, the singletons' and pairs' marked exact; run again, on the same
    database or on a new one (a fresh clone with the file), nothing is computed: the file says it is finished."""
    db, path = tmp_path / "jobs.sqlite", tmp_path / "bounds.json"
    got = _run(db, "mastermind", 3, progress=path)
    assert got["status"] == "done" and got["value"] == _at_once("4,6,1", 3) and got["depth"] == 3
    doc = bound_campaigns.read(str(path))
    assert doc is not None and len(doc["units"]) == got["units"] == len(root_classes(Game.from_spec("4,6,1")))
    assert doc["finished"]["value"] == got["value"] and doc["plan"] == {"depth": 3, "target": None}
    assert any(v[1] == "exact" for v in _parts(doc).values())
    for again in (_run(db, "4,6,1", 3, progress=path), _run(tmp_path / "new.sqlite", "4,6,1", 3, progress=path)):
        assert again["status"] == "finished before" and again["value"] == got["value"]
        assert bound_campaigns.read(str(path)) == doc
    base = Database(f"sqlite:///{tmp_path / 'new.sqlite'}")
    try:
        assert JobStore(base).list_jobs(None, 10) == []  # no job was submitted
    finally:
        base.dispose()


def test_a_campaigns_worker_runs_its_job_alone(tmp_path: Path) -> None:
    """The worker a campaign command starts takes its campaign's units only: another job waiting in the same
    database (a stopped campaign's, a client's) is left to the other workers."""
    from service.store.job_records import JobRequest

    db = tmp_path / "jobs.sqlite"
    upgrade(f"sqlite:///{db}")
    base = Database(f"sqlite:///{db}")
    try:
        other, _ = JobStore(base).submit(JobRequest.bound(Game.from_spec("4,8,0"), 3), "someone")
        got = _run(db, "4,5,1", 2, progress=tmp_path / "bounds.json")
        assert got["status"] == "done" and got["value"] == _at_once("4,5,1", 2)
        left = JobStore(base).get(other.id)
        assert left is not None and left.status == "queued" and JobStore(base).units(other.id) == []
    finally:
        base.dispose()


@pytest.mark.slow  # two campaigns of twenty seconds; the plan's cut is a target's (test_campaign_jobs); CI runs it
def test_a_target_is_reached_or_the_full_bound_is_told(tmp_path: Path) -> None:
    """With a target each unit stops when its bound reaches it: a target under the bound is met (and the bound
    is still no more than the optimum); a target above it gives the full bound."""
    full = _at_once("4,6,1", 3)
    under = _run(tmp_path / "under.sqlite", "4,6,1", 3, full - 10, progress=tmp_path / "under.json")
    assert full - 10 <= under["value"] <= 5625 and under["target"] == full - 10
    over = _run(tmp_path / "over.sqlite", "4,6,1", 3, full + 30, progress=tmp_path / "over.json")
    assert over["value"] == full


@pytest.mark.slow  # 14 s; the quick run keeps parts across runs in test_the_bounds_command_runs_a_resumable_campaign
def test_another_plan_keeps_the_parts_proven_before(tmp_path: Path) -> None:
    """The parts' bounds hold whatever plan proved them: a deeper plan sets the file's units aside and starts from
    those parts (never lowering one), and reaches the bound refined at once with no more work than from nothing."""
    db, path = tmp_path / "jobs.sqlite", tmp_path / "bounds.json"
    _run(db, "4,5,1", 2, progress=path)
    before = _parts(bound_campaigns.read(str(path)) or {})
    deeper = _run(db, "4,5,1", 3, progress=path)
    fresh = _run(tmp_path / "fresh.sqlite", "4,5,1", 3, progress=tmp_path / "fresh.json")
    assert deeper["value"] == fresh["value"] == _at_once("4,5,1", 3)
    assert deeper["work"] <= fresh["work"]
    doc = bound_campaigns.read(str(path))
    assert doc is not None and doc["earlier"][0]["plan"] == {"depth": 2, "target": None}
    after = _parts(doc)
    assert all(int(after[k][0]) >= int(v[0]) for k, v in before.items())  # type: ignore[call-overload]


def test_a_progress_file_of_another_game_or_a_broken_one_is_refused_before_any_work(tmp_path: Path) -> None:
    path, db = tmp_path / "bounds.json", tmp_path / "jobs.sqlite"
    _proven_file(path, "4,6,1", 2, ["0012"])
    before = path.read_text()
    with pytest.raises(CampaignError, match="4,6,1's campaign"):
        _run(db, "4,4,1", 2, progress=path)
    assert path.read_text() == before
    doc = json.loads(before)
    doc["parts"][next(iter(doc["parts"]))]["9.9"] = [5, 1]
    path.write_text(json.dumps(doc))
    with pytest.raises(CampaignError, match="not 4,6,1's"):
        _run(db, "4,6,1", 2, progress=path)
    path.write_text("{not json")
    with pytest.raises(CampaignError, match=r"bounds\.json"):
        _run(db, "4,6,1", 2, progress=path)
    assert path.read_text() == "{not json"
    base = Database(f"sqlite:///{db}")
    try:
        assert JobStore(base).list_jobs(None, 10) == []  # no job was submitted
    finally:
        base.dispose()


def _unproven_atlas(path: Path, spec: str, below: int = 40) -> int:
    """An atlas file holding ``spec`` with its total unproven (its bracket ``below`` under it and 10 above); its
    total."""
    entry = json.loads(json.dumps(atlas.load()[spec]))
    truth = int(entry["values"]["total"]["value"])
    entry["values"]["total"].update(exact=False, value=None, lower=truth - below, upper=truth + 10)
    atlas_keeping.save({spec: entry}, str(path))
    return truth


def test_the_bounds_command_runs_a_resumable_campaign(tmp_path: Path) -> None:
    """`atlas bounds --campaign --max-units` stops with the campaign's progress; the same command finishes it and
    raises the atlas's lower bound, its record naming the campaign; options that need a campaign and a campaign of
    two games are refused."""
    path, progress = tmp_path / "atlas.json", str(tmp_path / "bounds.json")
    truth = _unproven_atlas(path, "4,5,1", 200)
    runner = CliRunner()
    args = ["atlas", "bounds", "-g", "4,5,1", "--depth", "3", "--campaign", "--progress", progress, "--file", str(path),
            "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}", "--json"]
    first = runner.invoke(main, [*args, "--max-units", "1"])
    assert first.exit_code == 0, first.output
    so_far = bound_campaigns.standing(Game.from_spec("4,5,1"), bound_campaigns.read(progress) or {})
    assert json.loads(first.stdout.strip().splitlines()[-1]) == {
        "game": "4,5,1", "finished": False, "progress": progress, "units_done": 1,
        "plan": {"depth": 3, "target": None}, "standing": so_far}
    # unfinished, the bound its parts prove so far is kept, marked so, when it beats the atlas's
    assert truth - 200 < so_far <= _at_once("4,5,1", 3)
    partly = atlas.load(str(path))["4,5,1"]
    assert partly["values"]["total"]["lower"] == so_far == partly["lower_bound"]["value"]
    assert partly["lower_bound"]["campaign"]["finished"] is False
    assert atlas.lower_bound_of(partly)["finished"] is False  # type: ignore[index]
    done = runner.invoke(main, args)
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["finished"] and record["value"] == _at_once("4,5,1", 3) <= truth
    kept = atlas.load(str(path))["4,5,1"]
    assert kept["values"]["total"]["lower"] == record["value"]
    assert kept["lower_bound"]["campaign"]["progress"] == progress and "finished" not in kept["lower_bound"]["campaign"]
    assert atlas.lower_bound_of(kept)["finished"] is True  # type: ignore[index]
    assert kept["lower_bound"]["command"].endswith(f"--campaign --progress {progress}")
    for bad, says in ((["-g", "4,5,1", "--processes", "2"], "add --campaign"),
                      (["--campaign"], "exactly one game")):
        refused = runner.invoke(main, ["atlas", "bounds", *bad, "--file", str(path)])
        assert refused.exit_code == 2 and says in refused.output


def test_claims_of_the_file_campaigns_of_before_are_dropped(tmp_path: Path) -> None:
    """A progress file of the file campaigns of before may hold the parts their processes claimed: nobody holds
    them now, so the campaign drops them when it starts."""
    path = tmp_path / "bounds.json"
    game = Game.from_spec("4,6,1")
    bound_files.start(game, 3, None, str(path))
    doc = json.loads(path.read_text())
    doc["claims"] = {"0012 1.0": {"pid": 1, "host": "this"}, "0012 0.1": {"pid": 2, "host": "another-machine"}}
    path.write_text(json.dumps(doc))
    bound_files.start(game, 3, None, str(path))
    assert "claims" not in json.loads(path.read_text())


@pytest.mark.parametrize("before_way", [None, "own-codes"])
def test_a_file_proven_another_way_keeps_its_bounds_at_no_known_depth(tmp_path: Path, before_way: str | None) -> None:
    """A progress file whose sets were valued another way (by size alone, no entry; or by their own codes
    before each set's branching counted): its parts' bounds are kept (each is a proof) but reach no known depth
    now (plies 0; exact parts stay exact), its units are done again, and the campaign then reaches the bound
    refined at once, no part's bound falling; read again, nothing changes."""
    path = tmp_path / "bounds.json"
    doc = _proven_file(path, "4,6,1", 3)
    assert doc["leaves"] == LEAVES
    doc["units"] = {"0012": {"bound": 5000, "work": 1, "seconds": 0.1}}
    before = _parts(doc)
    assert any(isinstance(p, int) and p >= 2 for _, p in before.values())
    if before_way is None:
        del doc["leaves"]
    else:
        doc["leaves"] = before_way
    path.write_text(json.dumps(doc))
    seen: list[str] = []
    bound_files.start(Game.from_spec("4,6,1"), 3, None, str(path), log=seen.append)
    assert any("valued another way" in line and (before_way or "by size") in line for line in seen)
    dropped = bound_campaigns.read(str(path))
    assert dropped is not None and dropped["units"] == {} and "finished" not in dropped
    assert _parts(dropped) == {k: [lower, plies if plies == "exact" else 0] for k, (lower, plies) in before.items()}
    got = _run(tmp_path / "jobs.sqlite", "4,6,1", 3, progress=path)
    assert got["value"] == _at_once("4,6,1", 3)
    after = bound_campaigns.read(str(path))
    assert after is not None and after["leaves"] == LEAVES and after["finished"]["value"] == got["value"]
    assert after["earlier"][-1]["units"] == doc["units"]
    for key, (lower, plies) in before.items():
        now_lower, now_plies = _parts(after)[key]
        assert now_lower >= lower
        if plies == "exact":
            assert now_plies == "exact"
    bound_files.start(Game.from_spec("4,6,1"), 3, None, str(path))
    assert _parts(bound_campaigns.read(str(path)) or {}) == _parts(after)


def test_second_guesses_bounds_are_kept_and_a_campaign_resumes_from_them(tmp_path: Path) -> None:
    """A part's second guesses are units of their own in the file (``seconds``): a campaign on a new database whose
    file lost its parts' bounds and units but kept those reaches the same bound refining fewer sets, cut bounds no
    higher than their part's are dropped, a bad second guess is refused before any work, and a file from before
    the own-codes leaves keeps their bounds at no known depth."""
    path = tmp_path / "bounds.json"
    first = _run(tmp_path / "first.sqlite", "5,6,0", 3, progress=path)
    assert first["value"] == _at_once("5,6,0", 3)
    game = Game.from_spec("5,6,0")
    doc = bound_campaigns.read(str(path))
    assert doc is not None and doc["seconds"]
    seconds = bound_files.ledger_seconds(game, doc)
    assert seconds and all(plies in (0, 2) for _, plies in seconds.values())
    parts = bound_files.ledger_bounds(game, doc)
    assert all(lower >= parts[(g, r)][0] for (g, r, _), (lower, _) in seconds.items())  # a part: their least
    thirds = bound_files.ledger_thirds(game, doc)
    assert thirds and all(plies in (0, 1) for _, plies in thirds.values())
    bound_files.start(game, 3, None, str(path))  # drops cut ones no higher than their part
    compact = bound_campaigns.read(str(path)) or {}
    kept = bound_files.ledger_seconds(game, compact)
    assert kept == {k: v for k, v in seconds.items() if v[1] == 2 or v[0] > parts[k[:2]][0]}
    assert any(v[1] == 2 for v in kept.values())
    # and the parts of a second guess known in full: what they say, it says
    assert bound_files.ledger_thirds(game, compact) == {
        k: v for k, v in thirds.items() if kept.get(k[:3], (0, 0))[1] <= v[1]}
    doc = bound_campaigns.read(str(path)) or {}
    doc.update(parts={}, units={})
    del doc["finished"]
    path.write_text(json.dumps(doc))
    again = _run(tmp_path / "again.sqlite", "5,6,0", 3, progress=path)
    assert again["value"] == first["value"] and again["work"] < first["work"]

    broken = json.loads(path.read_text())
    guess = next(iter(broken["seconds"]))
    response = next(iter(broken["seconds"][guess]))
    broken["seconds"][guess][response]["00123"] = [5, 1]  # a repeated symbol: not a 5,6,0 code
    broken.pop("finished")
    path.write_text(json.dumps(broken))
    with pytest.raises(CampaignError, match="second guess"):
        _run(tmp_path / "broken.sqlite", "5,6,0", 3, progress=path)
    assert json.loads(path.read_text()) == broken
    del broken["seconds"][guess][response]["00123"]
    broken.setdefault("thirds", {}).setdefault(guess, {}).setdefault(response, {})["01234"] = {"9.9": [3, 0]}
    path.write_text(json.dumps(broken))
    with pytest.raises(CampaignError, match="below a second guess"):
        _run(tmp_path / "broken.sqlite", "5,6,0", 3, progress=path)
    assert json.loads(path.read_text()) == broken
    broken["thirds"][guess][response]["01234"] = {"2.2": [3, 0]}
    path.write_text(json.dumps(broken))

    old = bound_campaigns.read(str(path))
    assert old is not None
    del old["leaves"]
    path.write_text(json.dumps(old))
    bound_files.start(game, 3, None, str(path))
    recounted = bound_files.ledger_seconds(game, bound_campaigns.read(str(path)) or {})
    old_parts = bound_files.ledger_bounds(game, old)
    assert recounted == {k: (lower, 0) for k, (lower, plies) in bound_files.ledger_seconds(game, old).items()
                         if plies > 0 or lower > old_parts[k[:2]][0]}
    assert recounted


def test_the_bound_a_file_proves_as_it_stands_only_rises_and_is_admissible(tmp_path: Path) -> None:
    """``standing``: with nothing proven, the best first guess's one-ply bound; it rises (never falls) with the
    units each run finishes, stays at most the exact total, and once the campaign is finished it is at least
    its bound (each first guess: the larger of its unit's bound and its parts' sum)."""
    game, path, db = Game.from_spec("4,6,1"), tmp_path / "bounds.json", tmp_path / "jobs.sqlite"
    seen = [bound_campaigns.standing(game, {"parts": {}, "units": {}})]
    assert seen[0] == root_lower_bound(game, (), 1).value
    assert _run(db, "4,6,1", 3, progress=path, max_units=2)["status"] != "done"
    seen.append(bound_campaigns.standing(game, bound_campaigns.read(str(path)) or {}))
    got = _run(db, "4,6,1", 3, progress=path)
    seen.append(bound_campaigns.standing(game, bound_campaigns.read(str(path)) or {}))
    assert seen == sorted(seen) and seen[0] < seen[-1] and got["value"] <= seen[-1] <= 5625
    summary = bound_campaigns.so_far(game, str(path))
    assert summary is not None and summary["value"] == seen[-1] and summary["units"] == got["units"]
    assert bound_campaigns.so_far(game, str(tmp_path / "none.json")) is None
    doc = bound_campaigns.read(str(path)) or {}
    doc["units"][next(iter(doc["units"]))]["bound"] = "many"
    path.write_text(json.dumps(doc))
    with pytest.raises(CampaignError, match="not a number"):
        bound_campaigns.so_far(game, str(path))
    with pytest.raises(CampaignError, match="4,6,1's campaign"):
        bound_campaigns.so_far(Game.from_spec("4,4,1"), str(path))


def test_every_shipped_bound_of_an_unfinished_campaign_is_proven_by_its_committed_file() -> None:
    """An atlas or records bound recorded from an unfinished campaign is claimed only by its progress file: the file
    committed beside it must prove at least that value as it stands (every part's bound in it is a proof)."""
    from service import records

    unfinished = [(spec, e["lower_bound"]) for book in (atlas.load(), records.load()) for spec, e in book.items()
                  if (e.get("lower_bound") or {}).get("campaign", {}).get("finished") is False]
    for spec, record in unfinished:
        doc = bound_campaigns.read(str(REPO / record["campaign"]["progress"]))
        assert doc is not None, spec
        assert bound_campaigns.standing(Game.from_spec(spec), doc) >= record["value"], spec


def test_a_campaign_may_refine_only_the_parts_it_names(tmp_path: Path) -> None:
    """``--parts``: a deeper plan refines only the named part of each first guess (its bound rises, the others'
    stay as the file had them), finishes no unit, and keeps what the file then proves; a response that is not
    the game's, the winning one, or ``--parts`` without ``--campaign`` are refused before any work."""
    path, progress = tmp_path / "atlas.json", str(tmp_path / "bounds.json")
    truth = _unproven_atlas(path, "4,5,1")
    runner = CliRunner()
    base = ["atlas", "bounds", "-g", "4,5,1", "--campaign", "--progress", progress, "--file", str(path),
            "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    assert runner.invoke(main, [*base, "--depth", "2"]).exit_code == 0
    before = bound_campaigns.read(progress) or {}
    parts = _parts(before)
    (guess, big), _ = max(parts.items(), key=lambda kv: int(kv[1][0]) if kv[1][1] != "exact" else -1)
    for bad, says in ((["--parts", "9.9"], "--parts"), (["--parts", "4.0"], "winning")):
        refused = runner.invoke(main, [*base, "--depth", "3", *bad])
        assert refused.exit_code == 2 and says in refused.output, refused.output
    assert (bound_campaigns.read(progress) or {})["parts"] == before["parts"]
    refused = runner.invoke(main, ["atlas", "bounds", "-g", "4,5,1", "--parts", big, "--file", str(path)])
    assert refused.exit_code == 2 and "add --campaign" in refused.output
    got = runner.invoke(main, [*base, "--depth", "3", "--parts", big, "--json"])
    assert got.exit_code == 0, got.output
    shown = json.loads(got.stdout.strip().splitlines()[-1])
    after = bound_campaigns.read(progress) or {}
    assert shown["finished"] is False and after["units"] == {} and "finished" not in after
    assert int(_parts(after)[(guess, big)][0]) > int(parts[(guess, big)][0])
    assert all(_parts(after)[k] == v for k, v in parts.items() if k[1] != big)
    assert shown["standing"] == bound_campaigns.standing(Game.from_spec("4,5,1"), after) <= truth
    assert atlas.load(str(path))["4,5,1"]["values"]["total"]["lower"] == max(truth - 40, shown["standing"])


def _mastermind_tree(first: str | None = None) -> Tree:
    from service.trees import TreeLibrary
    from solver.heuristics import get_strategy
    from solver.tree import build_tree, strategy_chooser

    game = Game.from_spec("4,6,1")
    if first is None:
        stored = TreeLibrary().get(game, "optimal-total", None)
        assert stored is not None
        return stored.tree
    return build_tree(game, strategy_chooser(game, get_strategy("entropy")), first=game.parse_code(first))


def test_the_gaps_of_an_optimal_tree_are_nil_and_a_worse_tree_shows_where_it_loses(tmp_path: Path) -> None:
    """Mastermind's three-ply bound is 5625, the optimal tree's total: each of its parts spends exactly what the
    file proves for it.  A one-step tree opened with a relabelling of the same first guess is read against the
    file's first guess; its parts add up to its total, and each spends at least its bound."""
    from solver.tree import solved_depths

    assert _at_once("4,6,1", 3) == 5625
    doc = _proven_file(tmp_path / "bounds.json", "4,6,1", 3)
    assert doc is not None
    game = Game.from_spec("4,6,1")
    best = bound_campaigns.gaps(game, doc, _mastermind_tree())
    assert (best["upper"], best["lower"], best["gap"], best["standing"]) == (5625, 5625, 0, 5625)
    assert all(row["gap"] == 0 for row in best["parts"]) and sum(r["codes"] for r in best["parts"]) == 1295
    worse_tree = _mastermind_tree("3345")  # 0012 relabelled, played by entropy below it
    worse = bound_campaigns.gaps(game, doc, worse_tree)
    assert worse["first_guess"] == "3345" and worse["as_in_file"] == best["first_guess"] == "0012"
    assert worse["upper"] == int(solved_depths(worse_tree).sum()) > 5625 and worse["lower"] == 5625
    assert worse["gap"] == worse["upper"] - 5625 == sum(row["gap"] for row in worse["parts"])
    assert all(row["gap"] >= 0 for row in worse["parts"])
    assert [row["gap"] for row in worse["parts"]] == sorted((row["gap"] for row in worse["parts"]), reverse=True)
    by_response = {row["response"]: row["lower"] for row in best["parts"]}
    assert {row["response"]: row["lower"] for row in worse["parts"]} == by_response


def test_gaps_refuse_a_tree_the_file_does_not_open_with_or_another_games_file(tmp_path: Path) -> None:
    doc = _proven_file(tmp_path / "bounds.json", "4,6,1", 2, ["0012"])  # one class of first guess only
    assert doc is not None and len(doc["parts"]) == 1
    other = "0123" if list(doc["parts"]) != ["0123"] else "0000"
    game = Game.from_spec("4,6,1")
    with pytest.raises(CampaignError, match=f"no first guess that is {other} relabelled"):
        bound_campaigns.gaps(game, doc, _mastermind_tree(other))
    with pytest.raises(CampaignError, match="not both"):
        bound_campaigns.gaps(Game.from_spec("4,6,0"), doc, _mastermind_tree())


def test_the_gaps_command_reads_the_committed_campaigns_against_the_shipped_trees() -> None:
    """For every unsolved game with a committed lower-bound campaign, the tree's side is the atlas's upper bound
    of T and the file's standing bound its lower bound, as shipped."""
    entries = atlas.load()
    seen = 0
    for spec, entry in entries.items():
        path = REPO / bound_campaigns.default_path(spec)
        if atlas.finished(entry) or entry.get("hybrid") is None or not path.exists():
            continue
        out = CliRunner().invoke(main, ["atlas", "gaps", "-g", spec, "--progress", str(path), "--json"])
        assert out.exit_code == 0, out.output
        report = json.loads(out.output)
        total = entry["values"]["total"]
        assert report["upper"] == total["upper"] and report["standing"] == total["lower"] <= report["lower"]
        assert report["gap"] == sum(row["gap"] for row in report["parts"]) and report["gap"] >= total["upper"] - \
            report["lower"]
        seen += 1
    assert seen >= 5
    text = CliRunner().invoke(main, ["atlas", "gaps", "-g", "6,7,0", "--progress",
                                     str(REPO / "campaigns/bounds-6-7-0.json")])
    assert text.exit_code == 0 and "first guess 012345" in text.output and "response" in text.output
    missing = CliRunner().invoke(main, ["atlas", "gaps", "-g", "8,3,1", "--progress", "/nonexistent/b.json"])
    assert missing.exit_code == 2 and "no lower-bound campaign of 8,3,1" in missing.output


def test_the_gaps_below_a_part_add_up_to_what_the_tree_spends_there() -> None:
    """Inside 6x7's part 1.5: each set the tree's second guess leaves costs the tree at least its refined bound,
    and the sets' costs add up to the tree's own count below that guess."""
    from service.trees import TreeLibrary
    from solver.game import Turn
    from solver.tree import solved_depths

    game = Game.from_spec("6,7,0")
    out = CliRunner().invoke(main, ["atlas", "gaps", "-g", "6,7,0", "--below", "1.5", "--depth", "1", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["path"] == "1.5" and report["moves"][0] == "012345" and report["depth"] == 1
    assert all(row["upper"] >= row["lower"] > 0 for row in report["parts"])
    assert report["gap"] == report["upper"] - report["lower"] == sum(row["gap"] for row in report["parts"])
    stored = TreeLibrary().get(game, "best-known", None)
    assert stored is not None
    node = stored.tree.root.children[game.parse_response("1.5")]
    assert sum(row["codes"] for row in report["parts"]) + int(node.hit) == node.size
    assert report["moves"][1] == game.format_code(node.guess)
    cands = game.candidates([Turn(stored.tree.root.guess, game.parse_response("1.5"))])
    # every secret of the part: its guesses after the second, summed over the part (0 for the one it hits)
    assert report["upper"] == int(solved_depths(stored.tree)[cands].sum()) - 2 * len(cands)
    wrong = CliRunner().invoke(main, ["atlas", "gaps", "-g", "6,7,0", "--below", "6.0"])
    assert wrong.exit_code == 2 and "no position after 6.0" in wrong.output
    both = CliRunner().invoke(main, ["atlas", "gaps", "-g", "6,7,0", "--below", "1.5", "--progress", "x.json"])
    assert both.exit_code == 2 and "leave out --progress" in both.output


def _answers(game: Game, guess: str, response: str) -> bool:
    """Whether some code answers ``response`` to ``guess``."""
    from solver.errors import InconsistentHistoryError

    try:
        return len(game.candidates(game.parse_history(f"{guess} {response}"))) > 0
    except InconsistentHistoryError:
        return False


def _unsolved_copy(tmp_path: Path, spec: str) -> tuple[Path, int]:
    """An atlas file holding ``spec`` with its total unproven (bracket [truth - 40, truth + 10]) and a solved game."""
    path = tmp_path / "atlas.json"
    entry = json.loads(json.dumps(atlas.load()[spec]))
    truth = entry["values"]["total"]["value"]
    entry["values"]["total"].update(exact=False, value=None, lower=truth - 40, upper=truth + 10)
    atlas_keeping.save({spec: entry, "3,3,1": json.loads(json.dumps(atlas.load()["3,3,1"]))}, str(path))
    return path, truth


def test_settled_parts_are_kept_exact_and_raise_the_bound_the_file_proves(tmp_path: Path) -> None:
    """`atlas settle`: each named part under every first guess gets the exact search's optimum, kept as the part's
    exact bound (no deeper pass refines it), and the bound the file then proves is recorded in the atlas; run
    again, nothing is swept; a response that is not the game's, or a solved game, is refused."""
    from solver.game import Turn
    from solver.search import Searcher, SolveOptions

    spec, game = "4,4,1", Game.from_spec("4,4,1")
    path, truth = _unsolved_copy(tmp_path, spec)
    progress = str(tmp_path / "bounds.json")
    runner = CliRunner()
    args = ["atlas", "settle", "--json", "-g", spec, "--parts", "1.0,0.1", "--progress", progress, "--file", str(path),
            "--kernel-at-most", "8"]
    got = runner.invoke(main, args)
    assert got.exit_code == 0, got.output
    shown = json.loads(got.output.strip().splitlines()[-1])
    doc = bound_campaigns.read(progress) or {}
    searcher = Searcher(game, SolveOptions("total"))
    held = {(game.format_code(g), r) for g in root_classes(game) for r in ("1.0", "0.1")
            if _answers(game, game.format_code(g), r)}
    assert len(held) == 8  # 0000 and 0123 leave no part for 0.1
    assert {(row["first_guess"], row["response"]) for row in shown["parts"]} == held
    for row in shown["parts"]:
        turn = Turn(game.parse_code(row["first_guess"]), game.parse_response(row["response"]))
        assert row["exact"] and row["value"] == searcher.solve([turn]).value
        assert doc["parts"][row["first_guess"]][row["response"]] == [row["value"] - row["codes"], "exact"]
        assert doc["settled"][row["first_guess"]][row["response"]]["value"] == row["value"]
    assert "settle" not in doc
    standing = bound_campaigns.standing(game, doc)
    assert standing <= truth and shown["lower_bound"]["value"] == standing
    # the sweeps' time is the bound's time (no depth campaign ran here)
    assert shown["lower_bound"]["seconds"] == round(sum(row["seconds"] for row in shown["parts"]), 1)
    kept = atlas.load(str(path))[spec]
    assert kept["values"]["total"]["lower"] == max(truth - 40, standing)
    assert kept["lower_bound"]["command"].startswith(f"bullscows atlas settle -g {spec} --parts 1.0,0.1")
    # the same unfinished campaign's record, at the same bound after more time, replaces it; another file's does not
    later = {**kept["lower_bound"], "seconds": kept["lower_bound"]["seconds"] + 5}
    assert atlas_keeping.keep_lower_bound(spec, later, path=str(path))
    assert atlas.load(str(path))[spec]["lower_bound"]["seconds"] == later["seconds"]
    other = {**later, "seconds": later["seconds"] + 5, "campaign": {**later["campaign"], "progress": "other.json"}}
    assert not atlas_keeping.keep_lower_bound(spec, other, path=str(path))
    again = runner.invoke(main, args)
    assert again.exit_code == 0 and "settled already" in again.output
    assert bound_campaigns.read(progress) == doc
    for bad, says in ((["-g", spec, "--parts", "9.9"], "--parts"), (["-g", "3,3,1", "--parts", "1.0"], "unproven")):
        refused = runner.invoke(main, ["atlas", "settle", *bad, "--progress", progress, "--file", str(path)])
        assert refused.exit_code == 2 and says in refused.output, refused.output
    assert bound_campaigns.read(progress) == doc


def test_a_settle_stopped_keeps_what_its_sweep_proved_and_continues_from_it(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of time, a settle changes no part's bound and says so; stopped inside its first guess, the file keeps the
    value of the part it evaluated; stopped after that guess, the guess under ``settle``; the same call continues
    to the optimum; a broken ``settle`` entry is refused before any work."""
    from solver import sweep
    from solver.game import Turn
    from solver.search import Searcher, SolveOptions

    spec, game, path = "4,4,1", Game.from_spec("4,4,1"), str(tmp_path / "bounds.json")
    first = bound_campaigns.settle(spec, path, ["1.0"], seconds=1e-9)
    assert first and all(row["cut"] and not row["exact"] for row in first)
    assert (bound_campaigns.read(path) or {})["parts"] == {}

    original = sweep.Sweeper.value

    def stopping(after_guess: bool) -> object:
        """The sweep stopped right after its first part's value (or its first guess's) is recorded."""

        def stopped(self: sweep.Sweeper, *args: object, record: object = None, **kwargs: object) -> sweep.SweepResult:
            def keep_then_stop(progress: sweep.SweepProgress) -> None:
                record(progress)  # type: ignore[operator]
                if progress.left is not None or not after_guess:
                    raise sweep.OutOfTime

            return original(self, *args, record=keep_then_stop, **kwargs)  # type: ignore[arg-type]

        return stopped

    monkeypatch.setattr(sweep.Sweeper, "value", stopping(after_guess=False))
    inside = bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    kept = (bound_campaigns.read(path) or {})["settle"]
    assert all(row["cut"] and row["found"] is None for row in inside if row["codes"] > 8)
    assert all(len(entry["1.0"]["partial"]) == 1 and "found" not in entry["1.0"] for entry in kept.values())
    monkeypatch.setattr(sweep.Sweeper, "value", stopping(after_guess=True))
    cut = bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    swept = [row for row in cut if row["codes"] > 8]  # the others go to the exact search at once
    assert swept and all(row["cut"] and row["found"] is not None for row in swept)
    assert all(row["exact"] for row in cut if row["codes"] <= 8)
    doc = bound_campaigns.read(path) or {}
    assert set(doc["settle"]) == {row["first_guess"] for row in swept}
    assert not set(doc["parts"]) & set(doc["settle"])
    monkeypatch.setattr(sweep.Sweeper, "value", original)
    # a second guess's bound the depth campaign proved refutes that guess in the sweep
    row = swept[0]
    g2 = next(iter(doc["settle"][row["first_guess"]]["1.0"]["refuted"]), None) or "0123"
    seeded = json.loads(json.dumps(doc))
    seeded.setdefault("seconds", {}).setdefault(row["first_guess"], {})["1.0"] = {g2: [999, 2]}
    Path(path).write_text(json.dumps(seeded))
    resumed: list[sweep.SweepProgress] = []

    def seen(self: sweep.Sweeper, *args: object, resume: sweep.SweepProgress | None = None,
             **kwargs: object) -> sweep.SweepResult:
        if resume is not None:
            resumed.append(resume)
        raise sweep.OutOfTime  # escapes: nothing more is needed of this call

    monkeypatch.setattr(sweep.Sweeper, "value", seen)
    with pytest.raises(sweep.OutOfTime):
        bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    monkeypatch.setattr(sweep.Sweeper, "value", original)
    assert resumed[0].refuted[game.parse_code(g2)] == row["codes"] + 999
    broken = json.loads(json.dumps(doc))
    broken["settle"][swept[0]["first_guess"]]["1.0"]["refuted"] = {"zz": 3}
    Path(path).write_text(json.dumps(broken))
    with pytest.raises(CampaignError, match="sweep progress"):
        bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    assert bound_campaigns.read(path) == broken
    Path(path).write_text(json.dumps(doc))
    done = bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    searcher = Searcher(game, SolveOptions("total"))
    for row, before in zip(done, cut, strict=True):
        turn = Turn(game.parse_code(row["first_guess"]), game.parse_response("1.0"))
        assert row["exact"] and row["value"] == searcher.solve([turn]).value <= before.get("found", row["value"])
    assert "settle" not in (bound_campaigns.read(path) or {})
