"""Steps campaigns (kind ``steps``, :mod:`service.step_runs`): a best-known tree built by its steps in order, each a
job, judged before the next; the spec written from a record's command chain (`bullscows campaign steps`), run to the
same tree as the commands it replays, resumed after a run killed while judging, and bad specs refused."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service import records, step_runs
from service.atlas_keeping import ATLAS_KEEPER
from service.campaign_files import CampaignError
from service.campaign_spec import load_spec
from service.cli import main as cli
from service.records_keeping import RECORDS_KEEPER
from service.store.claims import Claims
from service.store.db import Database
from service.store.migrate import upgrade

REPO = Path(__file__).resolve().parents[2]
SMALL = "4,6,1"
ROLLOUT = {"strategy": "entropy", "exact_at_most": 6, "width": 1, "levels": 2, "min_size": 6, "from_turn": 1}
STEPS: list[dict[str, Any]] = [
    {"step": "rollout", "plan": ROLLOUT, "units": None, "graft": False},
    {"step": "polish", "above": 6, "at_most": 40, "budget_s": 5.0, "max_guesses": None, "sweep": None,
     "parts": None},
    {"step": "rollout", "plan": {**ROLLOUT, "width": 5, "levels": 3, "from_turn": 2}, "units": ["1.1", "0.2"],
     "graft": True},
]
"""A narrow rollout, a polish of what it kept, then two parts rolled out wider and grafted into the polished tree:
each step keeps a tree cheaper than the one before."""


@pytest.fixture
def small_records(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(records.PUBLISHED, SMALL, {"name": "a small stand-in", "published": [
        {"total": 99999, "worst_case": None, "first_guess": None, "how": "made up", "source": "this test"}]})
    return SMALL


def _spec(folder: Path, steps: list[dict[str, Any]], game: str = SMALL, progress: str = "tree/steps.json") -> Path:
    path = folder / "tree.campaign.json"
    path.write_text(json.dumps({"format": "bullscows-campaign", "version": 1, "kind": "steps", "game": game,
                                "steps": steps, "progress": progress}))
    return path


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_every_recorded_chain_is_a_steps_spec_that_says_it_again(tmp_path: Path) -> None:
    """`campaign steps` reads every best-known tree's command chain, of the records and of the atlas, into steps by
    each command's own options and renders them back into the same chain (it refuses to write a spec otherwise); the
    committed specs are what it writes today."""
    games = [*(s for s, e in RECORDS_KEEPER.shipped().items() if e.get("best_known")),
             *(s for s, e in ATLAS_KEEPER.shipped().items() if e.get("hybrid"))]
    assert {"5,8,1", "5,10,0", "4,9,1", "5,8,0", "6,7,0", "8,3,1"} <= set(games)
    for game in games:
        out = tmp_path / f"{game}.campaign.json"
        got = _invoke("campaign", "steps", "-g", game, str(out), "--json")
        assert got.exit_code == 0, got.output
        spec = load_spec(str(out))
        registry = RECORDS_KEEPER if game in RECORDS_KEEPER.shipped() else ATLAS_KEEPER
        record = registry.shipped()[game][registry.tree_key]
        assert step_runs.chain(spec) == record["command"]
        name = game.replace(",", "-")
        assert json.loads(got.stdout) == {"spec": str(out), "game": game, "steps": len(spec.steps),
                                          "total": record["total"], "progress": f"tree-{name}/steps.json"}
        committed = REPO / "campaigns" / f"tree-{name}.campaign.json"
        if committed.exists():
            assert json.loads(committed.read_text()) == json.loads(out.read_text())
    five = load_spec(str(tmp_path / "5,10,0.campaign.json"))
    assert len(five.steps) > 20 and {s.kind for s in five.steps} == {"rollout", "polish"}
    assert any(s.params["graft"] for s in five.steps if s.kind == "rollout")
    again = _invoke("campaign", "steps", "-g", "5,10,0", str(tmp_path / "5,10,0.campaign.json"))
    assert again.exit_code == 2 and "is there already" in again.output
    solved = _invoke("campaign", "steps", "-g", "mastermind", str(tmp_path / "mm.json"))
    assert solved.exit_code == 2 and "has no best-known tree" in solved.output and not (tmp_path / "mm.json").exists()


def _commands(tmp_path: Path, url: str) -> tuple[dict[str, Any], str]:
    """The same steps taken by the commands they stand for, on files of their own: (the record, the tree)."""
    folder = tmp_path / "by-commands"
    (folder / "trees").mkdir(parents=True)
    spec = load_spec(str(_spec(tmp_path, STEPS)))
    for i, step in enumerate(spec.steps):
        words = shlex.split(step_runs.command(spec, step))[1:]
        got = _invoke(*words, "--file", str(folder / "records.json"), "--trees", str(folder / "trees"),
                      "--progress", str(folder / f"{i}.json"), "--url", url)
        assert got.exit_code == 0, got.output
    record = records.load(str(folder / "records.json"))[SMALL]["best_known"]
    return record, (folder / "trees" / f"{SMALL.replace(',', '-')}-best-known.tree").read_text()


@pytest.mark.slow  # the steps, then their commands, each step a worker of its own: half a minute
def test_a_steps_campaign_builds_the_tree_its_commands_build(small_records: str, tmp_path: Path) -> None:
    """The tree and the record's chain of a steps campaign are those of the same commands run one after another on
    files of their own."""
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    got = _invoke("campaign", "run", str(_spec(tmp_path, STEPS)), "--url", url, "--processes", "1")
    assert got.exit_code == 0, got.output
    kept = records.load(str(tmp_path / "tree" / "records.json"))[SMALL]["best_known"]
    record, tree = _commands(tmp_path, url)
    assert (record["total"], record["command"]) == (kept["total"], kept["command"])
    assert tree == (tmp_path / "tree" / "trees" / f"{SMALL.replace(',', '-')}-best-known.tree").read_text()


def test_a_steps_campaign_is_judged_in_its_folder_kept_when_asked_and_finished_after(small_records: str,
                                                                                    tmp_path: Path) -> None:
    """`campaign run` of a steps spec takes its steps in order, each a job of its database, judged in the
    campaign's own folder; `steps.json` says what each step did; run again it has nothing to do; `campaign show` says
    where it stands; `--keep` ships the tree once; a run killed while judging is undone or completed."""
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    path = _spec(tmp_path, STEPS)
    got = _invoke("campaign", "run", str(path), "--url", url, "--processes", "1", "--json")
    assert got.exit_code == 0, got.output
    out = json.loads(got.stdout)["progress"]
    assert out["steps"] == out["steps_done"] == 3 and out["next"] is None and out["finished"] is True
    folder = tmp_path / "tree"
    kept = records.load(str(folder / "records.json"))[SMALL]["best_known"]
    spec = load_spec(str(path))
    assert out["tree"]["total"] == kept["total"] == out["done"][-1]["total"]
    assert json.loads((tmp_path / "tree" / "steps.json").read_text())["finished"]["total"] == kept["total"]
    assert kept["campaign"]["progress"] == "03-rollout.json"  # the folder reads the same wherever it is
    assert [d["step"] for d in out["done"]] == [1, 2, 3] and all(d["kept"] for d in out["done"])
    assert [d["command"] for d in out["done"]] == [step_runs.command(spec, s) for s in spec.steps]
    assert out["done"][0]["total"] > out["done"][1]["total"] > out["done"][2]["total"]
    assert kept["command"] == step_runs.chain(spec)  # each step kept: the record chains every step's command
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock")) == [
        "01-rollout.json", "02-polish.json", "03-rollout.json", "records.json", "steps.json", "trees"]
    tree = (folder / "trees" / f"{SMALL.replace(',', '-')}-best-known.tree").read_text()
    again = _invoke("campaign", "run", str(path), "--url", url, "--json")
    assert again.exit_code == 0 and "step 1 of" not in again.output and "nothing to run" in again.output
    assert json.loads(again.stdout)["progress"]["done"] == out["done"]
    shown = _invoke("campaign", "show", str(path), "--url", url, "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["progress"]["steps_done"] == 3 and json.loads(shown.stdout)["job"] is None
    assert "job: none (every step is done)" in _invoke("campaign", "show", str(path), "--url", url).output

    # a graft into a tree of another first guess is refused before its units are built
    other = {**STEPS[2], "plan": {**ROLLOUT, "width": 5, "levels": 3}}  # its first guess rolled out: not 0123's
    refused = _invoke("campaign", "run", str(_spec(tmp_path, [*STEPS, other])), "--url", url)
    assert refused.exit_code == 2 and "step 4: its rollout opens with" in refused.output, refused.output
    assert not (folder / "04-rollout.json").exists()
    path = _spec(tmp_path, STEPS)

    # kept in a registry file of the package's kind when it beats the one there, once; never before every step is done
    package = tmp_path / "package" / "records.json"
    (package.parent / "trees").mkdir(parents=True)
    shipped = _invoke("campaign", "run", str(path), "--url", url, "--keep", "--keep-in", str(package), "--json")
    assert shipped.exit_code == 0, shipped.output
    assert json.loads(shipped.stdout)["kept"] is True
    ours = records.load(str(package))[SMALL]["best_known"]
    assert (ours["total"], ours["command"], ours["histogram"]) == (kept["total"], kept["command"], kept["histogram"])
    assert ours["campaign"] == {"spec": str(path), "progress": str(folder / "steps.json")}  # outside the checkout
    assert (package.parent / "trees" / f"{SMALL.replace(',', '-')}-best-known.tree").read_text() == tree
    again = _invoke("campaign", "run", str(path), "--url", url, "--keep", "--keep-in", str(package), "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["kept"] is False
    longer = load_spec(str(_spec(tmp_path, [*STEPS, STEPS[1]])))
    with pytest.raises(CampaignError, match="1 of its steps are not done"):
        step_runs.KIND.keep(longer, str(package))
    path = _spec(tmp_path, STEPS)

    # a run killed while judging its last step: the copy it made is put back (a records file that was not there
    # removed), or the closed step's outcome taken; a copy half made or half removed is dropped
    before = folder / ".before"
    state = json.loads((folder / "steps.json").read_text())
    for case in ("closed", "open", "absent"):
        shutil.copytree(folder, tmp_path / "judged", dirs_exist_ok=True)
        (folder / "steps.json").write_text(json.dumps({**state, "done": state["done"][:2],
                                                       "steps_asked": state["steps_asked"][:2]}))
        (before / "trees").mkdir(parents=True)
        if case == "absent":
            (before / step_runs.ABSENT).write_text("")
        else:
            (before / "records.json").write_text("{\"records\": \"bullscows\", \"games\": []}")
        (before / "step").write_text("2")
        (folder / ".before.gone").mkdir()
        (folder / ".before.part").mkdir()
        if case != "closed":
            third = json.loads((folder / "03-rollout.json").read_text())
            (folder / "03-rollout.json").write_text(json.dumps({k: v for k, v in third.items() if k != "finished"}))
        step_runs._prepare(spec)
        assert not [p for p in folder.iterdir() if p.name.startswith(".before")]
        if case == "closed":  # judged and closed: only its line was missing
            assert len(json.loads((folder / "steps.json").read_text())["done"]) == 3
            assert records.load(str(folder / "records.json"))[SMALL]["best_known"] == kept
        else:  # put back as it was before the judgment, which is taken again
            assert (folder / "records.json").exists() == (case == "open")
            assert records.load(str(folder / "records.json"))[SMALL].get("best_known") is None
            assert not os.listdir(folder / "trees")
        shutil.rmtree(folder)
        shutil.copytree(tmp_path / "judged", folder)


def test_bad_steps_specs_are_refused_in_their_own_words(small_records: str, tmp_path: Path) -> None:
    """A step that is none, lacks a key or has one too many, a graft with no units, a polish searching nothing, a
    game no registry keeps a tree of, a records-only option on an atlas game, another campaign's folder and a
    second run at once: each refused before any work, nothing written."""
    polish = STEPS[1]
    bad: list[tuple[Any, str]] = [
        ([], "give the steps in order"),
        ([{"step": "sweep"}], "step 1: step \"sweep\"; each step is one of hybrid, rollout, polish"),
        ([{**polish, "budget": 3}], "step 1: unknown budget"),
        ([{k: v for k, v in polish.items() if k != "at_most"}], "step 1: missing at_most"),
        ([{**polish, "at_most": 6}], "at_most 6 is not above the step's above (6)"),
        ([{**polish, "budget_s": "long"}], "budget_s \"long\""),
        ([{**polish, "parts": []}], "give responses to the first guess"),
        ([STEPS[0], {**STEPS[2], "units": None}], "step 2: graft true with no units"),
        ([{**STEPS[2], "graft": False}], "step 1: units without graft"),
        ([{**STEPS[2], "units": ["zz"]}], "step 1: units: "),
        ([{**STEPS[2], "units": ["1.1", "1,1"]}], "step 1: units [\"1.1\", \"1,1\"]: a response named twice"),
        ([{**polish, "parts": ["9.9"]}], "step 1: parts: "),
        (["hybrid"], "step 1: \"hybrid\"; give an object"),
        ([{**STEPS[0], "plan": {**ROLLOUT, "over_width": 9}}], "step 1: plan: over_width widens the positions that "
                                                               "break max_guesses"),
        ([{**STEPS[0], "plan": {**ROLLOUT, "play": ["nonsense"]}}], "step 1: plan: "),
        ([{**STEPS[0], "plan": {**ROLLOUT, "min_size": 0}}], "step 1: plan: min_size 0"),
        ([{**STEPS[0], "plan": {**ROLLOUT, "width": 0}}], "step 1: plan: width 0"),
        ([{"step": "hybrid", "strategy": "coin", "exact_at_most": 5, "max_guesses": None}], "strategy \"coin\""),
    ]
    spelled = load_spec(str(_spec(tmp_path, [STEPS[0], {**STEPS[1], "parts": ["1,1", "0 2"]}])))
    assert spelled.steps[1].params["parts"] == ["1.1", "0.2"]  # as the commands and the polish's file spell them
    for steps, message in bad:
        with pytest.raises(CampaignError, match=re.escape(message)):
            load_spec(str(_spec(tmp_path, steps)))
    refused = [
        ("3,4,1", STEPS, "neither a records game nor an unsolved atlas game"),
        ("8,3,1", [{**STEPS[0], "plan": {**ROLLOUT, "over_width": 9, "max_guesses": 7}}],
         "step 1: over_width: only a records game's steps take them"),
    ]
    refused += [
        (SMALL, [{"step": "hybrid", "strategy": "entropy", "exact_at_most": 5, "max_guesses": 7}],
         "step 1: max_guesses 7; records hybrid keeps to no limit"),
    ]
    for game, steps, message in refused:
        path = _spec(tmp_path, steps, game=game)
        got = _invoke("campaign", "run", str(path), "--url", f"sqlite:///{tmp_path / 'no.sqlite'}")
        assert got.exit_code == 2 and message in got.output, got.output
        assert not (tmp_path / "tree").exists() and not (tmp_path / "no.sqlite").exists()
    for progress, message in [("steps.json", "keeps its files in a folder of its own"),
                              ("tree/progress.json", "keeps its files in a folder of its own"),
                              (str(REPO / "service" / "data" / "steps.json"), "folder is below its spec's"),
                              ("../steps/steps.json", "folder is below its spec's")]:
        got = _invoke("campaign", "run", str(_spec(tmp_path, STEPS, progress=progress)), "--url",
                      f"sqlite:///{tmp_path / 'no.sqlite'}")
        assert got.exit_code == 2 and message in got.output, got.output
    got = _invoke("campaign", "run", str(_spec(tmp_path, [STEPS[0], STEPS[2]])), "--progress",
                  str(REPO / "service" / "data" / "steps.json"), "--url", f"sqlite:///{tmp_path / 'no.sqlite'}")
    assert got.exit_code == 2 and "keeps its files in a folder of its own" in got.output, got.output
    for first in (STEPS[1], STEPS[2]):  # a first step that needs a tree: refused before any work
        got = _invoke("campaign", "run", str(_spec(tmp_path, [first])), "--url", f"sqlite:///{tmp_path / 'no.sqlite'}")
        assert got.exit_code == 2 and "the first step builds one" in got.output, got.output
    path = _spec(tmp_path, STEPS)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "steps.json").write_text(json.dumps({
        "format": step_runs.FORMAT, "game": SMALL, "steps_asked": [STEPS[1]], "done": [{"step": 1}]}))
    got = _invoke("campaign", "run", str(path), "--url", f"sqlite:///{tmp_path / 'no.sqlite'}")
    assert got.exit_code == 2 and "another steps campaign's" in got.output
    (tmp_path / "tree" / "steps.json").unlink()
    url = f"sqlite:///{tmp_path / 'no.sqlite'}"
    upgrade(url)
    with Claims(Database(url)).held(step_runs.claim_name(load_spec(str(path)))) as mine:  # another run's claim
        assert mine
        got = _invoke("campaign", "run", str(path), "--url", url)
    assert got.exit_code == 2 and "another run of this steps campaign" in got.output
    keep = _invoke("campaign", "run", str(path), "--keep-in", "x.json")
    assert keep.exit_code == 2 and "--keep-in names where --keep keeps the tree" in keep.output
    assert os.listdir(tmp_path / "tree") == []  # nothing written by a run refused


def test_the_committed_replay_of_super_mastermind_is_finished_and_its_tree_needs_what_it_says() -> None:
    """`campaigns/tree-5-8-1/` is the committed spec's replay, run to its end: each step's command is the spec's and
    the record's, and its tree, played through every secret, needs the total and worst case its `steps.json` and
    its records file give; it is the shipped record tree (the polishes' budgets settled more positions this time
    than when the tree shipped before it was built, and `campaign run --keep` shipped it)."""
    from solver.tree import from_compact

    spec = load_spec(str(REPO / "campaigns" / "tree-5-8-1.campaign.json"))
    shown = step_runs.KIND.progress(spec)
    assert shown is not None and shown["steps_done"] == len(spec.steps) == 3 and shown["finished"] is True
    assert [d["command"] for d in shown["done"]] == [step_runs.command(spec, s) for s in spec.steps]
    chain = " && ".join(d["command"] for d in shown["done"])
    assert chain == RECORDS_KEEPER.shipped()["5,8,1"]["best_known"]["command"]
    stats = from_compact(Path(step_runs.tree_file(spec)).read_text()).stats()
    kept = records.load(str(REPO / "campaigns" / "tree-5-8-1" / "records.json"))["5,8,1"]["best_known"]
    assert stats.secrets == 32768 and stats.total == shown["tree"]["total"] == kept["total"]
    assert stats.worst_case == kept["worst_case"] == 7
    assert {str(k): v for k, v in stats.histogram.items()} == kept["histogram"]
    shipped = RECORDS_KEEPER.shipped()["5,8,1"]["best_known"]  # `campaign run --keep` shipped it
    assert shipped["campaign"] == {"spec": "campaigns/tree-5-8-1.campaign.json",
                                   "progress": "campaigns/tree-5-8-1/steps.json"}
    assert (REPO / "service" / "data" / "trees" / shipped["tree"]).read_text() == Path(
        step_runs.tree_file(spec)).read_text()


def test_a_graft_with_no_tree_to_graft_into_is_refused_before_anything_is_made(small_records: str,
                                                                                tmp_path: Path) -> None:
    """A first step that grafts units is refused, as `records rollout --graft` refuses it with no tree, before any
    unit is built or any folder made; a --progress in a folder not made yet is taken (the campaign makes it)."""
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    other = tmp_path / "other" / "steps.json"
    got = _invoke("campaign", "run", str(_spec(tmp_path, [STEPS[2]])), "--url", url, "--progress", str(other))
    assert got.exit_code == 2 and "the first step builds one" in got.output, got.output
    assert not other.parent.exists() and not (tmp_path / "tree").exists()
    shown = _invoke("campaign", "show", str(_spec(tmp_path, STEPS)), "--url", url, "--progress", str(other))
    assert shown.exit_code == 0 and "progress: no file yet" in shown.output, shown.output
    assert "job: none on this database yet (`bullscows campaign run SPEC` starts one for step 1)" in shown.output


def test_a_polish_step_is_replayed_as_it_was_run_whatever_the_commands_default_is_now() -> None:
    """8×3's record was polished with no limit before its W was proven 6; `atlas polish` with no --max-guesses now
    keeps to W, so a steps campaign asks its polish as given (no limit), as the record ran it."""
    from service import atlas_keeping

    entry = ATLAS_KEEPER.shipped()["8,3,1"]
    assert entry["values"]["worst_case"]["exact"] and entry["hybrid"]["worst_case"] <= 6
    _, today = atlas_keeping.ATLAS_KEEPER.polish_target("8,3,1", above=40, at_most=400, budget_s=20.0)
    _, replayed = atlas_keeping.ATLAS_KEEPER.polish_target("8,3,1", above=40, at_most=400, budget_s=20.0, as_given=True)
    assert (today["max_guesses"], today["keep_movers"]) == (6, True)
    assert (replayed["max_guesses"], replayed["keep_movers"]) == (None, False)
