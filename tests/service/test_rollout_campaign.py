"""Rollout campaigns (:mod:`service.rollouts`, ``bullscows records rollout``): units per response to the first
guess, saved as each finishes, resumed after a stop or a SIGKILL, run on Dask processes, and the finished tree
the same as the one built at once."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from service import records, records_keeping, rollouts
from service.cli import main
from solver.game import Game
from solver.rollout import RolloutPlan, branch_responses, plan_chooser, rollout_tree
from solver.tree import Tree, build_tree, from_compact, to_compact

SPEC = "4,6,1"
PLAN = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1)
REPO = Path(__file__).resolve().parents[2]


def _whole() -> str:
    game = Game.from_spec(SPEC)
    return to_compact(rollout_tree(game, PLAN.strategy, PLAN.exact_at_most, width=PLAN.width, levels=PLAN.levels,
                                   min_size=PLAN.min_size, from_turn=PLAN.from_turn))


def _done_lines(output: str) -> dict[str, str]:
    """The units the command said it built, each with its line."""
    return {line.split("unit ", 1)[1].split(" ", 1)[0]: line for line in output.splitlines() if " done in " in line}


def test_a_progress_file_of_another_plan_or_a_broken_one_is_refused(tmp_path: Path) -> None:
    """The campaign's job is started from its progress file only when the file is this game's and plan's: another
    plan's, another game's, one already judged and a broken one are refused with the file's name, the file left as
    it was and no job submitted."""
    from service.store.db import Database
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade
    from solver.rollout import first_guess

    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    upgrade(url)
    jobs = JobStore(Database(url))
    game = Game.from_spec(SPEC)
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(rollouts.begin(game, PLAN, first_guess(game, PLAN), 0.1)))
    before = path.read_text()
    other = RolloutPlan("entropy", 6, 2, 3, 6, from_turn=1)
    with pytest.raises(rollouts.CampaignError, match=r"progress\.json continues another campaign \(with width 3, "
                                                     r"not 2\)"):
        rollouts.start_job(jobs, game, other, str(path), "test")
    with pytest.raises(rollouts.CampaignError, match=r"progress\.json continues another campaign"):
        rollouts.start_job(jobs, Game.from_spec("3,4,1"), PLAN, str(path), "test")
    assert path.read_text() == before
    judged = {**json.loads(before), "finished": {"total": 5000}}
    path.write_text(json.dumps(judged))
    with pytest.raises(rollouts.CampaignError, match="is a finished campaign"):
        rollouts.start_job(jobs, game, PLAN, str(path), "test")
    for broken, message in [("{not json", "is not JSON"), ("[]", "not a rollout campaign's progress file"),
                            (json.dumps({**json.loads(before), "units": {"1.2": 5}}), "unit 1.2 is not a unit"),
                            (json.dumps({**json.loads(before), "units": {"1.2": {"tree": "x", "seconds": 1}}}),
                             "the subtree of unit 1.2 is broken")]:
        path.write_text(broken)
        with pytest.raises(rollouts.CampaignError, match=message):
            rollouts.start_job(jobs, game, PLAN, str(path), "test")
        assert path.read_text() == broken
    assert jobs.list_jobs() == []


@pytest.fixture
def small_records(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(records.PUBLISHED, SPEC, {
        "name": "a small stand-in", "published": [
            {"total": 99999, "worst_case": None, "first_guess": None, "how": "made up", "source": "this test"}]})
    return SPEC


def _small_rollout(tmp_path: Path) -> tuple[Path, Path, Path, list[str]]:
    """(records file, trees folder, progress file, the rollout command's arguments on them) of a small campaign, its
    job in a database of the test's own."""
    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "campaign.json"
    folder.mkdir()
    args = ["records", "rollout", "--json", "-g", SPEC, "--strategy", "entropy", "--exact-at-most", "6", "--width", "3",
            "--from-turn", "1", "--levels", "3", "--min-size", "6", "--file", str(path), "--trees", str(folder),
            "--progress", str(progress), "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    return path, folder, progress, args


def test_the_rollout_command_is_a_resumable_campaign(small_records: str, tmp_path: Path) -> None:
    """`records rollout --max-units` stops with the campaign's progress, each unit built said with what its subtree
    costs; the same command (a worker of two processes) builds only the units left, ships the tree built at once
    with the units' summed time and how it was split, and closes the progress file (its subtrees dropped: the
    shipped tree is what is kept); a third run has nothing to do, and another plan on the file is refused."""
    path, folder, progress, args = _small_rollout(tmp_path)
    runner = CliRunner()
    first = runner.invoke(main, [*args, "--max-units", "3"])
    assert first.exit_code == 0, first.output
    part = json.loads(first.stdout)
    assert part["finished"] is False and part["units_done"] == 3 and part["units_left"] > 0
    assert not path.exists()  # nothing is claimed before every unit is done
    doc = rollouts.read(str(progress))
    assert doc is not None and doc["plan"] == PLAN.as_dict() and set(doc["units"]) == set(_done_lines(first.output))
    for name, line in _done_lines(first.output).items():
        stats = from_compact(doc["units"][name]["tree"]).stats()
        assert line.endswith(f": {stats.secrets} secrets, {stats.total} guesses (the first included), worst case "
                             f"{stats.worst_case}")
    second = runner.invoke(main, [*args, "--processes", "2"])
    assert second.exit_code == 0, second.output
    assert len(_done_lines(second.output)) == part["units_left"]  # only the missing units were built
    done = json.loads(second.stdout)
    assert done["finished"] and done["kept"] and done["campaign"]["units"] == 3 + part["units_left"]
    shipped = (folder / f"{SPEC.replace(',', '-')}-best-known.tree").read_text()
    assert to_compact(from_compact(shipped)) == _whole()
    stored = json.loads(progress.read_text())
    assert stored["finished"]["total"] == done["total"] and all("tree" not in u for u in stored["units"].values())
    assert abs(stored["finished"]["seconds"] - done["seconds"]) < 0.2
    recorded = records.load(str(path))[SPEC]["best_known"]
    assert recorded["total"] == done["total"] == from_compact(_whole()).stats().total
    assert recorded["campaign"] == {"units": done["campaign"]["units"], "progress": str(progress)}
    third = runner.invoke(main, args)
    assert third.exit_code == 0 and json.loads(third.stdout)["kept"] is False and "nothing to do" in third.output
    other = runner.invoke(main, [*args, "--width", "2"])
    assert other.exit_code == 2 and "continues another campaign" in other.output


LONG = RolloutPlan("entropy", 60, 6, 3, 20, from_turn=2)
"""4 positions of 7 colours with repetition: thirteen units of 2 to 4 s each, long enough to kill a run mid-way."""


@pytest.mark.slow  # half a minute; the whole suite (CI) runs it
def test_a_campaign_killed_with_sigkill_loses_no_subtree_it_built(tmp_path: Path) -> None:
    """`campaign run` of a rollout spec killed with SIGKILL mid-way (its worker then stops with it): every subtree
    built before is in the database even where the progress file does not have it yet, the next run writes them
    to the file and builds only the others, and the tree is the one built at once."""
    from service.store.db import Database, StorageError
    from service.store.jobs import JobStore

    spec_file = tmp_path / "rollout-4-7-1.campaign.json"
    spec_file.write_text(json.dumps({"format": "bullscows-campaign", "version": 1, "kind": "rollout",
                                     "game": "4,7,1", "plan": LONG.as_dict(), "progress": "rollout-4-7-1.json"}))
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    run = [sys.executable, "-m", "service.cli", "campaign", "run", str(spec_file), "--url", url, "--processes", "1"]
    proc = subprocess.Popen(run, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    jobs: JobStore | None = None
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if (tmp_path / "jobs.sqlite").exists():
                jobs = jobs or JobStore(Database(url))
                with contextlib.suppress(StorageError):  # its tables are still being made
                    if sum(u.status == "done" for j in jobs.list_jobs() for u in jobs.units(j.id)) >= 2:
                        break
            time.sleep(0.1)
        assert proc.poll() is None, "the campaign ended before the test could kill it"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert jobs is not None
    time.sleep(3)  # the worker sees its command gone (each second) and stops, its running unit given back
    built = {u.response for j in jobs.list_jobs() for u in jobs.units(j.id) if u.status == "done"}
    game = Game.from_spec("4,7,1")
    units = len(branch_responses(game, int(json.loads(jobs.list_jobs()[0].plan or "")["guesses"][0]["guess"])))
    assert 2 <= len(built) < units
    again = subprocess.run(run, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(_done_lines(again.stderr)) == units - len(built)  # the others only
    doc = rollouts.read(str(tmp_path / "rollout-4-7-1.json"))
    assert doc is not None
    tree = rollouts.tree_of(game, LONG, doc)
    whole = rollout_tree(game, LONG.strategy, LONG.exact_at_most, width=LONG.width, levels=LONG.levels,
                         min_size=LONG.min_size, from_turn=LONG.from_turn)
    assert tree is not None and to_compact(tree) == to_compact(whole)


def test_the_rollout_command_builds_only_the_units_asked(small_records: str, tmp_path: Path) -> None:
    """`records rollout --units` builds the units of the responses named (a trial of one part), logs each, and
    leaves the campaign open; a response that is not a unit is refused with the units there are, before any unit
    is built."""
    path, _, progress, args = _small_rollout(tmp_path)
    runner = CliRunner()
    wrong = runner.invoke(main, [*args, "--units", "1.0,4.0"])
    assert wrong.exit_code == 2 and "--units: 4.0 is not a unit" in wrong.output
    assert json.loads(progress.read_text())["units"] == {}
    bad = runner.invoke(main, [*args, "--units", "1.x"])
    assert bad.exit_code == 2 and "--units:" in bad.output
    some = runner.invoke(main, [*args, "--units", "1.0, 0.2"])
    assert some.exit_code == 0, some.output
    part = json.loads(some.stdout)
    assert part["finished"] is False and part["units_done"] == 2 and not path.exists()
    assert set(json.loads(progress.read_text())["units"]) == {"1.0", "0.2"}
    assert "unit 1.0 done in" in some.output and "unit 0.2 done in" in some.output
    again = runner.invoke(main, [*args, "--units", "0.2"])  # asked again: built before, its line said again
    assert again.exit_code == 0 and json.loads(again.stdout)["units_done"] == 2, again.output
    line = [t for t in again.output.splitlines() if "unit 0.2 done in" in t]
    assert len(line) == 1 and line[0].endswith("(built before)")


def test_a_units_line_counts_the_secrets_beyond_the_plans_limit() -> None:
    from solver.atlas import hybrid_tree

    game = Game.from_spec("mastermind")
    tree = hybrid_tree(game, "entropy", 5)
    beyond = sum(v for d, v in tree.stats().histogram.items() if d > 4)
    line = rollouts.unit_done(game, RolloutPlan("entropy", 5, 1, 3, 5, max_guesses=4), 3, to_compact(tree), 1.0)
    assert beyond > 0 and line.endswith(f"worst case {tree.stats().worst_case}, {beyond} beyond 4")


def test_the_rollout_command_plays_the_guesses_given(small_records: str, tmp_path: Path) -> None:
    """`records rollout --play`: the tree plays the given guesses where given, the record and its command keep
    them (the command, pasted, rebuilds the same campaign), a given position the tree never reaches is
    reported, and a bad one is refused before anything is written."""
    path, folder, progress, args = _small_rollout(tmp_path)
    play = ["--play", ": 0000", "--play", "0000 1.0: 0111", "--play", "1111 1.0: 0123"]
    runner = CliRunner()
    bad = runner.invoke(main, [*args, "--play", "0000 1.0: 0000"])
    assert bad.exit_code == 2 and "--play '0000 1.0: 0000': 0000 does not split" in bad.output
    unkept = runner.invoke(main, [*args, "--keep-width", "8"])
    assert unkept.exit_code == 2 and "--keep-width keeps the hybrid to --max-guesses: give both" in unkept.output
    assert not progress.exists() and not path.exists()
    done = runner.invoke(main, [*args, *play])
    assert done.exit_code == 0, done.output
    assert "never reaches the position of --play 1111 1.0: 0123" in done.output
    assert "unit 1.0 done in" in done.output and " beyond " not in done.output  # no limit, none counted
    record = records.load(str(path))[SPEC]["best_known"]
    assert record["rollout"]["play"] == [": 0000", "0000 1.0: 0111", "1111 1.0: 0123"]
    assert "3 given" in record["strategy"] and record["first_guess"] == "0000"
    tree = from_compact((folder / f"{SPEC.replace(',', '-')}-best-known.tree").read_text())
    game = Game.from_spec(SPEC)
    node = tree.node_at(game.parse_history("0000 1.0"))
    assert node is not None and game.format_code(node.guess) == "0111"
    pasted = shlex.split(record["command"].split(" && ")[-1])[1:]
    again = runner.invoke(main, [*pasted, "--file", str(path), "--trees", str(folder), "--progress", str(progress)])
    assert again.exit_code == 0 and "nothing to do" in again.output


def test_a_rollout_keeps_the_shipped_trees_better_branches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """3 positions of 6 colours with repetition as a stand-in records game: its most-parts hybrid (859) shipped
    first, then a rollout over the entropy hybrid (857 alone) that opens with the same guess.  Below some
    responses the shipped subtree is cheaper: the tree kept takes those, so it needs fewer guesses than either
    (856), and its record says which responses came from before and chains both commands."""
    from solver.atlas import hybrid_tree
    from solver.rollout import best_branches

    spec = "3,6,1"
    monkeypatch.setitem(records.PUBLISHED, spec, {"name": "a small stand-in", "published": []})
    path, folder = tmp_path / "records.json", tmp_path / "trees"
    folder.mkdir()
    first = records_keeping.add_hybrid(spec, "most-parts", 6, path=str(path), folder=str(folder))
    game = Game.from_spec(spec)
    alone = rollout_tree(game, "entropy", 3, width=2, levels=3, min_size=3, from_turn=2)
    combined, taken = best_branches(alone, hybrid_tree(game, "most-parts", 6))
    expected = combined.stats().total
    assert taken and expected < min(first["total"], alone.stats().total)
    ran = CliRunner().invoke(main, [
        "records", "rollout", "--json", "-g", spec, "--strategy", "entropy", "--exact-at-most", "3", "--width", "2",
        "--from-turn", "2", "--levels", "3", "--min-size", "3", "--file", str(path), "--trees", str(folder),
        "--progress", str(tmp_path / "campaign.json"), "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"])
    assert ran.exit_code == 0, ran.output
    got = json.loads(ran.stdout)
    assert got["kept"] and got["total"] == expected
    assert got["branches_kept"] == [game.format_response(r) for r in sorted(taken)]
    assert got["command"].startswith(first["command"] + " && bullscows records rollout -g 3,6,1")
    assert all(combined.play(secret)[-1] == secret for secret in range(game.size))


def test_units_grafted_into_the_shipped_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`records rollout --units R --graft`: only R's unit is built, every unit built before (a trial, worse than the
    shipped subtree) goes in and is judged, every other response keeps the shipped tree's subtree as it was, and
    the tree (cheaper by what R's unit saves) is played, shipped, and recorded with both commands chained.
    --graft without --units, or with no shipped tree, is refused before anything is built."""
    from solver.atlas import hybrid_tree
    from solver.polish import subtree_cost
    from solver.rollout import branch_tree

    spec = "3,6,1"
    monkeypatch.setitem(records.PUBLISHED, spec, {"name": "a small stand-in", "published": []})
    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "campaign.json"
    folder.mkdir()
    args = ["records", "rollout", "-g", spec, "--strategy", "entropy", "--exact-at-most", "3", "--width", "2",
            "--from-turn", "2", "--levels", "3", "--min-size", "3", "--file", str(path), "--trees", str(folder),
            "--progress", str(progress), "--json", "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    runner = CliRunner()
    alone = runner.invoke(main, [*args, "--graft"])
    assert alone.exit_code == 2 and "--graft puts the units of --units into the shipped tree" in alone.output
    nothing = runner.invoke(main, [*args, "--units", "1.0", "--graft"])
    assert nothing.exit_code == 2 and "has none yet" in nothing.output and not progress.exists()
    first = records_keeping.add_hybrid(spec, "most-parts", 6, path=str(path), folder=str(folder))
    game = Game.from_spec(spec)
    old = hybrid_tree(game, "most-parts", 6)
    plan = RolloutPlan("entropy", 3, 2, 3, 3, from_turn=2)
    gains = {r: subtree_cost(old.root.children[r], 2, None)[1]
             - subtree_cost(branch_tree(game, plan, old.root.guess, r).root, 2, None)[1] for r in old.root.children}
    r = max(gains, key=lambda k: gains[k])
    assert gains[r] > 0
    name = game.format_response(r)
    worse = min(gains, key=lambda k: gains[k])  # a trial built before, worse than the shipped subtree there
    assert gains[worse] < 0
    trial = runner.invoke(main, [*args, "--units", game.format_response(worse)])
    assert trial.exit_code == 0 and json.loads(trial.stdout)["finished"] is False, trial.output
    done = runner.invoke(main, [*args, "--units", name, "--graft"])
    assert done.exit_code == 0, done.output
    got = json.loads(done.stdout)
    assert got["kept"] and got["total"] == first["total"] - gains[r]  # the trial's unit judged and put back
    both = ", ".join(game.format_response(k) for k in sorted({r, worse}))
    assert f"(units {both} grafted)" in got["strategy"]  # every unit built went in, none was lost
    assert f"unit {name} done in" in done.output and done.output.count("done in") == 1
    others = sorted(set(old.root.children) - {r})
    assert got["branches_kept"] == [game.format_response(k) for k in others]
    assert got["command"] == f"{first['command']} && bullscows {' '.join(args[:16])} --units {name} --graft"
    shipped = from_compact((folder / f"{spec.replace(',', '-')}-best-known.tree").read_text())
    assert all(to_compact(Tree(game, shipped.root.children[k])) == to_compact(Tree(game, old.root.children[k]))
               for k in others)
    assert all(shipped.play(secret)[-1] == secret for secret in range(game.size))
    assert set(json.loads(progress.read_text())["units"]) == {name, game.format_response(worse)}


@pytest.mark.slow  # 14 s of judged units; tests/test_rollout.py judges by the rollout below in the quick run
def test_the_rollout_command_judges_by_the_rollout_below(small_records: str, tmp_path: Path) -> None:
    """`records rollout --judge-width K --judge-turns A-B`: a judge without its turns, at turns not rolled out or
    malformed is refused before anything is written; the campaign's tree is the judged plan's, and its record and
    command keep the judge (the command, pasted, is the same campaign)."""
    path, folder, progress, args = _small_rollout(tmp_path)
    runner = CliRunner()
    for wrong, message in [(["--judge-width", "3"], "--judge-width and --judge-turns go together"),
                           (["--judge-width", "3", "--judge-turns", "2-4"], "only the rolled-out guesses"),
                           (["--judge-width", "3", "--judge-turns", "two"], "give a guess number or a range"),
                           (["--judge-width", "1", "--judge-turns", "2"], "--judge-width"),
                           (["--judge-pool", "5"], "--judge-pool widens"),
                           (["--judge-width", "3", "--judge-turns", "2", "--judge-pool", "3"], "--judge-pool widens")]:
        refused = runner.invoke(main, [*args, *wrong])
        assert refused.exit_code == 2 and message in refused.output, refused.output
    assert not progress.exists() and not path.exists()
    done = runner.invoke(main, [*args, "--judge-width", "3", "--judge-turns", "2"])
    assert done.exit_code == 0, done.output
    plan = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1, judge_width=3, judge_turns=(2, 2))
    game = Game.from_spec(SPEC)
    choose, arrays = plan_chooser(game, plan)
    record = records.load(str(path))[SPEC]["best_known"]
    assert record["total"] == build_tree(game, choose, arrays=arrays).stats().total
    assert record["rollout"]["judge_width"] == 3 and record["rollout"]["judge_turns"] == [2, 2]
    assert "--judge-width 3 --judge-turns 2" in record["command"] and "judged by the rollout" in record["strategy"]
    pasted = shlex.split(record["command"].split(" && ")[-1])[1:]
    again = runner.invoke(main, [*pasted, "--file", str(path), "--trees", str(folder), "--progress", str(progress)])
    assert again.exit_code == 0 and "nothing to do" in again.output
    # a pool: the judge picks among the 5 best there, and the record and command say so
    pooled_progress = tmp_path / "pooled.json"
    pooled_args = [str(pooled_progress) if a == str(progress) else a for a in args]
    pooled = runner.invoke(main, [*pooled_args, "--judge-width", "3", "--judge-turns", "2", "--judge-pool", "5"])
    assert pooled.exit_code == 0, pooled.output
    plan = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1, judge_width=3, judge_turns=(2, 2), judge_pool=5)
    choose, arrays = plan_chooser(game, plan)
    got = json.loads(pooled.stdout)
    assert got["total"] == build_tree(game, choose, arrays=arrays).stats().total
    assert got["rollout"]["judge_pool"] == 5 and "--judge-turns 2 --judge-pool 5" in got["command"]
    assert "best 3 of 5 judged" in got["strategy"]


def test_the_rollout_command_polishes_its_units(small_records: str, tmp_path: Path) -> None:
    """`records rollout --polish-units ABOVE,AT_MOST,SECONDS`: each unit is polished once built, so the tree needs
    fewer guesses than the same campaign unpolished; the record and command keep the polish; malformed values are
    refused before anything is written."""
    path, _, progress, args = _small_rollout(tmp_path)
    runner = CliRunner()
    for wrong, message in [("60,300", "give ABOVE,AT_MOST,SECONDS"), ("300,60,5", "ABOVE below AT_MOST"),
                           ("6,300,x", "give ABOVE,AT_MOST,SECONDS")]:
        refused = runner.invoke(main, [*args, "--polish-units", wrong])
        assert refused.exit_code == 2 and message in refused.output, refused.output
    assert not progress.exists() and not path.exists()
    done = runner.invoke(main, [*args, "--polish-units", "6,300,5"])
    assert done.exit_code == 0, done.output
    record = records.load(str(path))[SPEC]["best_known"]
    assert record["total"] < from_compact(_whole()).stats().total
    assert record["rollout"]["polish_units"] == [6, 300, 5.0] and "--polish-units 6,300,5" in record["command"]
    assert "units polished exact<=300" in record["strategy"]
