"""Rollout campaigns (:mod:`service.rollouts`, ``bullscows records rollout``): units per response to the first
guess, saved as each finishes, resumed after a stop or a SIGKILL, run on Dask processes, and the finished tree
the same as the one built at once."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service import records, rollouts
from service.cli import main
from solver.game import Game
from solver.rollout import RolloutPlan, plan_chooser, rollout_tree
from solver.tree import Tree, build_tree, from_compact, to_compact
from tests.service.progress_wait import wait_for_progress

SPEC = "4,6,1"
PLAN = RolloutPlan("entropy", 6, 3, 3, 6, from_turn=1)
REPO = Path(__file__).resolve().parents[2]


def _whole() -> str:
    game = Game.from_spec(SPEC)
    return to_compact(rollout_tree(game, PLAN.strategy, PLAN.exact_at_most, width=PLAN.width, levels=PLAN.levels,
                                   min_size=PLAN.min_size, from_turn=PLAN.from_turn))


def test_a_campaign_stopped_after_some_units_continues_to_the_same_tree(tmp_path: Path) -> None:
    path = str(tmp_path / "progress.json")
    seen: list[str] = []
    assert rollouts.run(SPEC, PLAN, path, max_units=4, log=seen.append) is None
    doc = rollouts.read(path)
    assert doc is not None and len(doc["units"]) == 4 and doc["plan"] == PLAN.as_dict()
    for name, unit in doc["units"].items():  # each unit's line says what its subtree costs
        stats = from_compact(unit["tree"]).stats()
        assert sum(f"unit {name} done in" in line and f": {stats.secrets} secrets, {stats.total} guesses (the first "
                   f"included), worst case {stats.worst_case}" in line for line in seen) == 1
    left = len(rollouts.missing(Game.from_spec(SPEC), doc))
    seen.clear()
    tree = rollouts.run(SPEC, PLAN, path, log=seen.append)
    assert tree is not None and to_compact(tree) == _whole()
    assert sum("done in" in line for line in seen) == left  # only the missing units were built
    runs = (rollouts.read(path) or {})["runs"]
    assert [r["units"] for r in runs] == [4, left] and all(r["wall_seconds"] >= 0 for r in runs)


def test_a_campaign_killed_mid_unit_loses_only_the_running_unit(tmp_path: Path) -> None:
    """SIGKILL while units run: the units saved before are kept, the next run builds only the others, and the
    tree is the one built at once."""
    path = tmp_path / "progress.json"
    code = ("import sys; from service import rollouts; from solver.rollout import RolloutPlan; "
            f"rollouts.run({SPEC!r}, RolloutPlan(**{PLAN.as_dict()!r}), sys.argv[1])")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO)
    try:
        wait_for_progress(proc, path, rollouts.read, lambda doc: len(doc["units"]) >= 2, timeout=120)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    saved = rollouts.read(str(path))
    assert saved is not None and 2 <= len(saved["units"]) < len(rollouts.missing(Game.from_spec(SPEC), {
        **saved, "units": {}}))
    seen: list[str] = []
    tree = rollouts.run(SPEC, PLAN, str(path), log=seen.append)
    assert tree is not None and to_compact(tree) == _whole()
    rebuilt = sum("done in" in line for line in seen)
    assert rebuilt == len(rollouts.missing(Game.from_spec(SPEC), {**saved, "units": {}})) - len(saved["units"])


def test_a_campaign_runs_its_units_on_dask_processes(tmp_path: Path) -> None:
    tree = rollouts.run(SPEC, PLAN, str(tmp_path / "progress.json"), processes=2)
    assert tree is not None and to_compact(tree) == _whole()


def test_a_progress_file_of_another_plan_or_a_broken_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "progress.json"
    rollouts.run(SPEC, PLAN, str(path), max_units=1)
    before = path.read_text()
    other = RolloutPlan("entropy", 6, 2, 3, 6, from_turn=1)
    with pytest.raises(rollouts.CampaignError, match="continues another campaign"):
        rollouts.run(SPEC, other, str(path))
    with pytest.raises(rollouts.CampaignError, match="continues another campaign"):
        rollouts.run("3,4,1", PLAN, str(path))
    assert path.read_text() == before
    path.write_text("{not json")
    with pytest.raises(rollouts.CampaignError, match=r"progress\.json"):
        rollouts.run(SPEC, PLAN, str(path))
    assert path.read_text() == "{not json"


@pytest.fixture
def small_records(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(records.PUBLISHED, SPEC, {
        "name": "a small stand-in", "published": [
            {"total": 99999, "worst_case": None, "first_guess": None, "how": "made up", "source": "this test"}]})
    return SPEC


def _small_rollout(tmp_path: Path) -> tuple[Path, Path, Path, list[str]]:
    """(records file, trees folder, progress file, the rollout command's arguments on them) of a small campaign."""
    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "campaign.json"
    folder.mkdir()
    args = ["records", "rollout", "--json", "-g", SPEC, "--strategy", "entropy", "--exact-at-most", "6", "--width", "3",
            "--from-turn", "1", "--levels", "3", "--min-size", "6", "--file", str(path), "--trees", str(folder),
            "--progress", str(progress)]
    return path, folder, progress, args


def test_the_rollout_command_is_a_resumable_campaign(small_records: str, tmp_path: Path) -> None:
    """`records rollout --max-units` stops with the campaign's progress; the same command finishes it, ships the
    tree with the units' summed time and how it was split, and closes the progress file (its subtrees dropped:
    the shipped tree is what is kept); a third run has nothing to do."""
    path, _, progress, args = _small_rollout(tmp_path)
    runner = CliRunner()
    first = runner.invoke(main, [*args, "--max-units", "3"])
    assert first.exit_code == 0, first.output
    part = json.loads(first.stdout)
    assert part["finished"] is False and part["units_done"] == 3 and part["units_left"] > 0
    assert not path.exists()  # nothing is claimed before every unit is done
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    done = json.loads(second.stdout)
    assert done["finished"] and done["kept"] and done["campaign"]["units"] == 3 + part["units_left"]
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
    first = records.add_hybrid(spec, "most-parts", 6, path=str(path), folder=str(folder))
    game = Game.from_spec(spec)
    alone = rollout_tree(game, "entropy", 3, width=2, levels=3, min_size=3, from_turn=2)
    combined, taken = best_branches(alone, hybrid_tree(game, "most-parts", 6))
    expected = combined.stats().total
    assert taken and expected < min(first["total"], alone.stats().total)
    got = records.add_rollout(spec, "entropy", 3, width=2, from_turn=2, levels=3, min_size=3, path=str(path),
                              folder=str(folder), progress=str(tmp_path / "campaign.json"))
    assert got["kept"] and got["total"] == expected
    assert got["branches_kept"] == [game.format_response(r) for r in sorted(taken)]
    assert got["command"].startswith(first["command"] + " && bullscows records rollout -g 3,6,1")
    assert all(combined.play(secret)[-1] == secret for secret in range(game.size))


def test_units_grafted_into_the_shipped_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`records rollout --units R --graft`: only R's unit is built, every other response keeps the shipped tree's
    subtree as it was, and the tree (cheaper by what R's unit saves) is played, shipped, and recorded with both
    commands chained.  --graft without --units, or with no shipped tree, is refused before anything is built."""
    from solver.atlas import hybrid_tree
    from solver.polish import subtree_cost
    from solver.rollout import branch_tree

    spec = "3,6,1"
    monkeypatch.setitem(records.PUBLISHED, spec, {"name": "a small stand-in", "published": []})
    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "campaign.json"
    folder.mkdir()
    args = ["records", "rollout", "-g", spec, "--strategy", "entropy", "--exact-at-most", "3", "--width", "2",
            "--from-turn", "2", "--levels", "3", "--min-size", "3", "--file", str(path), "--trees", str(folder),
            "--progress", str(progress), "--json"]
    runner = CliRunner()
    alone = runner.invoke(main, [*args, "--graft"])
    assert alone.exit_code == 2 and "--graft puts the units of --units into the shipped tree" in alone.output
    nothing = runner.invoke(main, [*args, "--units", "1.0", "--graft"])
    assert nothing.exit_code == 2 and "has none yet" in nothing.output and not progress.exists()
    first = records.add_hybrid(spec, "most-parts", 6, path=str(path), folder=str(folder))
    game = Game.from_spec(spec)
    old = hybrid_tree(game, "most-parts", 6)
    plan = RolloutPlan("entropy", 3, 2, 3, 3, from_turn=2)
    gains = {r: subtree_cost(old.root.children[r], 2, None)[1]
             - subtree_cost(branch_tree(game, plan, old.root.guess, r).root, 2, None)[1] for r in old.root.children}
    r = max(gains, key=lambda k: gains[k])
    assert gains[r] > 0
    name = game.format_response(r)
    done = runner.invoke(main, [*args, "--units", name, "--graft"])
    assert done.exit_code == 0, done.output
    got = json.loads(done.stdout)
    assert got["kept"] and got["total"] == first["total"] - gains[r]
    assert got["strategy"].endswith(f"(units {name} grafted)")
    assert f"unit {name} done in" in done.output and done.output.count("done in") == 1
    others = sorted(set(old.root.children) - {r})
    assert got["branches_kept"] == [game.format_response(k) for k in others]
    assert got["command"] == f"{first['command']} && bullscows {' '.join(args[:16])} --units {name} --graft"
    shipped = from_compact((folder / f"{spec.replace(',', '-')}-best-known.tree").read_text())
    assert all(to_compact(Tree(game, shipped.root.children[k])) == to_compact(Tree(game, old.root.children[k]))
               for k in others)
    assert all(shipped.play(secret)[-1] == secret for secret in range(game.size))
    assert set(json.loads(progress.read_text())["units"]) == {name}


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
    pooled = runner.invoke(main, [*args[:-2], "--progress", str(pooled_progress), "--judge-width", "3",
                                  "--judge-turns", "2", "--judge-pool", "5"])
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
    assert "units polished exact<=300" in record["strategy"] and "unit 0.1 polished:" in done.output
