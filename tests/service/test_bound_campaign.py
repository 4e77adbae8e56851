"""Lower-bound campaigns (:mod:`service.bound_campaigns`, ``bullscows atlas bounds --campaign``): a unit per
first guess, every part's bound written to the progress file as it is proven, resumed after a stop or a SIGKILL
from what was proven, run on Dask processes, and the bound the same as the one refined at once."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service import atlas, bound_campaigns
from service.cli import main
from solver.game import Game
from solver.lowerbound import LEAVES, root_classes, root_lower_bound
from solver.tree import Tree
from tests.service.progress_wait import wait_for_progress

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def _at_once(spec: str, depth: int) -> int:
    return root_lower_bound(Game.from_spec(spec), (), depth).value


def _parts(doc: dict[str, object]) -> dict[tuple[str, str], list[object]]:
    parts = doc["parts"]
    assert isinstance(parts, dict)
    return {(g, r): v for g, row in parts.items() for r, v in row.items()}


def test_a_campaign_proves_the_bound_refined_at_once(tmp_path: Path) -> None:
    """Every first guess a unit: the least of their bounds is the root's bound at the same depth, and the file
    keeps each unit's bound and every part's, the singletons' and pairs' marked exact."""
    path = str(tmp_path / "bounds.json")
    got = bound_campaigns.run("mastermind", 3, None, path)
    assert got is not None and got["value"] == _at_once("4,6,1", 3) and got["depth"] == 3
    doc = bound_campaigns.read(path)
    assert doc is not None and len(doc["units"]) == got["units"] == len(root_classes(Game.from_spec("4,6,1")))
    assert doc["finished"]["value"] == got["value"] and doc["plan"] == {"depth": 3, "target": None}
    assert any(v[1] == "exact" for v in _parts(doc).values())
    seen: list[str] = []
    assert bound_campaigns.run("4,6,1", 3, None, path, log=seen.append) == doc["finished"]
    assert any("finished this plan already" in line for line in seen)


def test_a_campaign_stopped_after_some_units_continues_to_the_same_bound(tmp_path: Path) -> None:
    path = str(tmp_path / "bounds.json")
    assert bound_campaigns.run("4,6,1", 3, None, path, max_units=2) is None
    doc = bound_campaigns.read(path)
    assert doc is not None and len(doc["units"]) == 2 and "finished" not in doc
    got = bound_campaigns.run("4,6,1", 3, None, path)
    assert got is not None and got["value"] == _at_once("4,6,1", 3)
    runs = (bound_campaigns.read(path) or {})["runs"]
    assert [r["units"] for r in runs] == [2, len(root_classes(Game.from_spec("4,6,1"))) - 2]


def test_a_target_is_reached_or_the_full_bound_is_told(tmp_path: Path) -> None:
    """With a target each unit stops when its bound reaches it: a target under the bound is met (and the bound
    is still no more than the optimum); a target above it gives the full bound."""
    full = _at_once("4,6,1", 3)
    under = bound_campaigns.run("4,6,1", 3, full - 10, str(tmp_path / "under.json"))
    assert under is not None and full - 10 <= under["value"] <= 5625 and under["target"] == full - 10
    over = bound_campaigns.run("4,6,1", 3, full + 30, str(tmp_path / "over.json"))
    assert over is not None and over["value"] == full


def test_another_plan_keeps_the_parts_proven_before(tmp_path: Path) -> None:
    """The parts' bounds hold whatever plan proved them: a deeper plan sets the units aside and starts from those
    parts (never lowering one), and reaches Mastermind's 5625 with no more work than from nothing."""
    path = str(tmp_path / "bounds.json")
    bound_campaigns.run("4,6,1", 3, None, path)
    before = _parts(bound_campaigns.read(path) or {})
    deeper = bound_campaigns.run("4,6,1", 4, None, path)
    fresh = bound_campaigns.run("4,6,1", 4, None, str(tmp_path / "fresh.json"))
    assert deeper is not None and fresh is not None and deeper["value"] == fresh["value"] == 5625
    assert deeper["work"] <= fresh["work"]
    doc = bound_campaigns.read(path)
    assert doc is not None and doc["earlier"][0]["plan"] == {"depth": 3, "target": None}
    after = _parts(doc)
    assert all(int(after[k][0]) >= int(v[0]) for k, v in before.items())  # type: ignore[call-overload]


def test_a_campaign_killed_mid_unit_resumes_from_the_parts_it_wrote(tmp_path: Path) -> None:
    """SIGKILL while the single unit of 4×8 refines its parts at four plies, parts written as proven: the parts
    written are kept, the next run reaches the bound refined at once, and it refines only what was not
    written (fewer sets than a run from nothing)."""
    spec, path = "4,8,0", tmp_path / "bounds.json"
    code = ("import sys; from service import bound_campaigns as b; b.FLUSH_SECONDS = 0.0; "
            f"b.run({spec!r}, 4, None, sys.argv[1])")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO)
    try:
        wait_for_progress(proc, path, bound_campaigns.read,
                          lambda doc: sum(v[1] == 3 for v in _parts(doc).values()) >= 3)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    saved = bound_campaigns.read(str(path))
    assert saved is not None and not saved["units"]
    written = _parts(saved)
    resumed = bound_campaigns.run(spec, 4, None, str(path))
    fresh = bound_campaigns.run(spec, 4, None, str(tmp_path / "fresh.json"))
    assert resumed is not None and fresh is not None
    assert resumed["value"] == fresh["value"] == _at_once(spec, 4)
    assert resumed["work"] < fresh["work"]
    doc = bound_campaigns.read(str(path)) or {}
    after = _parts(doc)
    assert all(after[k] == v for k, v in written.items() if v[1] == 3)
    # the time counted is every run's, the killed one's too, not only the run that finished the unit
    assert doc["spent"]["0123"] > doc["units"]["0123"]["seconds"] and resumed["seconds"] == doc["spent"]["0123"]


def test_a_units_time_is_counted_whole_when_its_proofs_come_faster_than_the_file_rounds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file keeps tenths of a second. Forty writes 30 ms apart count 1.2 s; rounding each write's own time,
    as the ledger did, counted none of it (what made the SIGKILL test above flaky on a quiet machine)."""
    game, path = Game.from_spec("4,6,1"), str(tmp_path / "bounds.json")
    bound_campaigns.start(game, 2, None, path)
    clock = [1000.0]
    monkeypatch.setattr(bound_campaigns.time, "monotonic", lambda: clock[0])
    ledger = bound_campaigns.FileLedger(path, game, every=0.0, unit="0011")
    for _ in range(40):
        clock[0] += 0.03
        ledger.flush()
    doc = bound_campaigns.read(path) or {}
    assert abs(doc["spent"]["0011"] - 1.2) <= 0.05 + 1e-9
    clock[0] += 0.04  # a last write: still within a rounding of the whole time
    ledger.flush()
    assert abs((bound_campaigns.read(path) or {})["spent"]["0011"] - 1.24) <= 0.05 + 1e-9


def test_a_campaign_runs_its_units_on_dask_processes(tmp_path: Path) -> None:
    got = bound_campaigns.run("4,6,1", 3, None, str(tmp_path / "bounds.json"), processes=2)
    assert got is not None and got["value"] == _at_once("4,6,1", 3)
    seen: list[str] = []  # one first guess and two processes: it says how to use the second
    got = bound_campaigns.run("4,7,0", 3, None, str(tmp_path / "single.json"), processes=2, log=seen.append)
    assert got is not None and got["value"] == _at_once("4,7,0", 3)
    assert any("start this command again" in line for line in seen)


def test_a_progress_file_of_another_game_or_a_broken_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bounds.json"
    bound_campaigns.run("4,6,1", 2, None, str(path), max_units=1)
    before = path.read_text()
    with pytest.raises(bound_campaigns.CampaignError, match="4,6,1's campaign"):
        bound_campaigns.run("4,4,1", 2, None, str(path))
    assert path.read_text() == before
    doc = json.loads(before)
    doc["parts"][next(iter(doc["parts"]))]["9.9"] = [5, 1]
    path.write_text(json.dumps(doc))
    with pytest.raises(bound_campaigns.CampaignError, match="not 4,6,1's"):
        bound_campaigns.run("4,6,1", 2, None, str(path))
    path.write_text("{not json")
    with pytest.raises(bound_campaigns.CampaignError, match=r"bounds\.json"):
        bound_campaigns.run("4,6,1", 2, None, str(path))
    assert path.read_text() == "{not json"


def test_the_bounds_command_runs_a_resumable_campaign(tmp_path: Path) -> None:
    """`atlas bounds --campaign --max-units` stops with the campaign's progress; the same command finishes it and
    raises the atlas's lower bound, its record naming the campaign; options that need a campaign, a table with a
    campaign and a campaign of two games are refused."""
    path, progress = tmp_path / "atlas.json", str(tmp_path / "bounds.json")
    entry = json.loads(json.dumps(atlas.load()["4,3,1"]))
    truth = entry["values"]["total"]["value"]
    entry["values"]["total"].update(exact=False, value=None, lower=truth - 40, upper=truth + 10)
    atlas.save({"4,3,1": entry, "3,3,1": json.loads(json.dumps(atlas.load()["3,3,1"]))}, str(path))
    runner = CliRunner()
    args = ["atlas", "bounds", "-g", "4,3,1", "--depth", "3", "--campaign", "--progress", progress, "--file", str(path),
            "--json"]
    first = runner.invoke(main, [*args, "--max-units", "1"])
    assert first.exit_code == 0, first.output
    so_far = bound_campaigns.standing(Game.from_spec("4,3,1"), bound_campaigns.read(progress) or {})
    assert json.loads(first.output.strip().splitlines()[-1]) == {
        "game": "4,3,1", "finished": False, "progress": progress, "units_done": 1,
        "plan": {"depth": 3, "target": None}, "standing": so_far}
    # unfinished, the bound its parts prove so far is kept, marked so, when it beats the atlas's
    assert truth - 40 < so_far <= _at_once("4,3,1", 3)
    partly = atlas.load(str(path))["4,3,1"]
    assert partly["values"]["total"]["lower"] == so_far == partly["lower_bound"]["value"]
    assert partly["lower_bound"]["campaign"]["finished"] is False
    assert atlas.lower_bound_of(partly)["finished"] is False  # type: ignore[index]
    done = runner.invoke(main, args)
    assert done.exit_code == 0, done.output
    record = json.loads(done.output.strip().splitlines()[-1])
    assert record["finished"] and record["value"] == _at_once("4,3,1", 3) <= truth
    kept = atlas.load(str(path))["4,3,1"]
    assert kept["values"]["total"]["lower"] == record["value"]
    assert kept["lower_bound"]["campaign"]["progress"] == progress and "finished" not in kept["lower_bound"]["campaign"]
    assert atlas.lower_bound_of(kept)["finished"] is True  # type: ignore[index]
    assert kept["lower_bound"]["command"].endswith(f"--campaign --progress {progress}")
    for bad, says in ((["-g", "4,3,1", "--processes", "2"], "add --campaign"),
                      (["-g", "4,3,1", "--campaign", "--url", "sqlite://"], "--url"),
                      (["--campaign"], "exactly one game")):
        refused = runner.invoke(main, ["atlas", "bounds", *bad, "--file", str(path)])
        assert refused.exit_code == 2 and says in refused.output


def test_a_campaign_stopped_by_sigterm_takes_its_worker_processes_with_it(tmp_path: Path) -> None:
    """SIGTERM to a campaign on Dask processes closes its cluster: no worker process is left refining a unit
    for nobody (the workers hold the GIL in their kernels, so only the cluster's closing stops them)."""
    import psutil

    path = tmp_path / "bounds.json"
    code = ("import sys; from service import bound_campaigns as b; b.FLUSH_SECONDS = 0.0; "
            "b.run('4,8,0', 4, None, sys.argv[1], processes=2)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO)
    children: list[psutil.Process] = []
    try:
        wait_for_progress(proc, path, bound_campaigns.read, lambda doc: any(v[1] == 3 for v in _parts(doc).values()),
                          interval=0.05)
        children = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert children
    _, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [p.cmdline()[:3] for p in alive]


def test_a_unit_whose_campaign_is_gone_stops_and_keeps_what_it_proved(tmp_path: Path) -> None:
    path = str(tmp_path / "bounds.json")
    bound_campaigns.start(Game.from_spec("4,6,1"), 3, None, path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with pytest.raises(bound_campaigns.CampaignError, match="is gone"):
        bound_campaigns._unit("4,6,1", path, 3, None, "0012", owner=dead.pid)
    assert _parts(bound_campaigns.read(path) or {})  # the part it proved before it noticed is kept


def test_two_campaigns_on_one_file_split_a_first_guess_and_agree(tmp_path: Path) -> None:
    """4×8 has a single class of first guess: a second process on the same progress file works on the parts
    the first has not claimed, and on its big parts (504 and 288 codes, refined one second guess at a time) on
    the second guesses the first has not claimed.  Both end with the bound refined at once, and the unit is
    recorded once."""
    path = tmp_path / "bounds.json"
    code = ("import sys; from service import bound_campaigns as b; b.FLUSH_SECONDS = 0.0; "
            "print(b.run('4,8,0', 4, None, sys.argv[1])['value'])")
    first = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    second = None
    try:
        # a second guess claimed alone: "0123 0.1 1045"
        wait_for_progress(first, path, bound_campaigns.read,
                          lambda doc: any(len(key.split()) == 3 for key in doc.get("claims", {})), may_end=True)
        second = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
        outs = [p.communicate(timeout=300)[0] for p in (first, second)]
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert [int(o.strip().splitlines()[-1]) for o in outs] == [_at_once("4,8,0", 4)] * 2
    doc = bound_campaigns.read(str(path))
    assert doc is not None and list(doc["units"]) == ["0123"] and "claims" not in doc


def test_claims_of_processes_gone_are_dropped(tmp_path: Path) -> None:
    """A process killed mid-part leaves its claim in the file: the next run drops it (nobody refines that part
    any more) and leaves another machine's claim alone."""
    import socket

    path = str(tmp_path / "bounds.json")
    game = Game.from_spec("4,6,1")
    bound_campaigns.start(game, 3, None, path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    doc = bound_campaigns.read(path) or {}
    doc["claims"] = {"0012 1.0": {"pid": dead.pid, "host": socket.gethostname()},
                     "0012 0.1": {"pid": dead.pid, "host": "another-machine"}}
    path_obj = Path(path)
    path_obj.write_text(json.dumps(doc))
    bound_campaigns.start(game, 3, None, path)
    assert (bound_campaigns.read(path) or {})["claims"] == {"0012 0.1": {"pid": dead.pid, "host": "another-machine"}}


@pytest.mark.parametrize("before_way", [None, "own-codes"])
def test_a_file_proven_another_way_keeps_its_bounds_at_no_known_depth(tmp_path: Path, before_way: str | None) -> None:
    """A progress file whose sets were valued another way (by size alone, no entry; or by their own codes
    before each set's branching counted): its parts' bounds are kept (each is a proof) but reach no known depth
    now (plies 0; exact parts stay exact), its units are done again, and the campaign then reaches the bound
    refined at once, no part's bound falling; read again, nothing changes."""
    path = str(tmp_path / "bounds.json")
    assert bound_campaigns.run("4,6,1", 3, None, path) is not None
    doc = bound_campaigns.read(path)
    assert doc is not None and doc["leaves"] == LEAVES
    before = _parts(doc)
    assert any(isinstance(p, int) and p >= 2 for _, p in before.values())
    if before_way is None:
        del doc["leaves"]
    else:
        doc["leaves"] = before_way
    Path(path).write_text(json.dumps(doc))
    seen: list[str] = []
    bound_campaigns.start(Game.from_spec("4,6,1"), 3, None, path, log=seen.append)
    assert any("valued another way" in line and (before_way or "by size") in line for line in seen)
    dropped = bound_campaigns.read(path)
    assert dropped is not None and dropped["units"] == {} and "finished" not in dropped
    assert _parts(dropped) == {k: [lower, plies if plies == "exact" else 0] for k, (lower, plies) in before.items()}
    got = bound_campaigns.run("4,6,1", 3, None, path)
    assert got is not None and got["value"] == _at_once("4,6,1", 3)
    after = bound_campaigns.read(path)
    assert after is not None and after["leaves"] == LEAVES
    assert after["earlier"][-1]["finished"]["value"] == got["value"]
    for key, (lower, plies) in before.items():
        now_lower, now_plies = _parts(after)[key]
        assert now_lower >= lower
        if plies == "exact":
            assert now_plies == "exact"
    bound_campaigns.start(Game.from_spec("4,6,1"), 3, None, path)
    assert _parts(bound_campaigns.read(path) or {}) == _parts(after)


def test_second_guesses_bounds_are_kept_and_a_campaign_resumes_from_them(tmp_path: Path) -> None:
    """A part's second guesses are units of their own in the file (``seconds``): a campaign that lost its parts'
    bounds and units but kept those reaches the same bound refining fewer sets, cut bounds no higher than their
    part's are dropped, a bad second guess is refused before any work, and a file from before the own-codes
    leaves keeps their bounds at no known depth."""
    path = tmp_path / "bounds.json"
    first = bound_campaigns.run("5,6,0", 3, None, str(path))
    assert first is not None and first["value"] == _at_once("5,6,0", 3)
    doc = bound_campaigns.read(str(path))
    assert doc is not None and doc["seconds"]
    seconds = bound_campaigns.ledger_seconds(Game.from_spec("5,6,0"), doc)
    assert seconds and all(plies in (0, 2) for _, plies in seconds.values())
    parts = bound_campaigns.ledger_bounds(Game.from_spec("5,6,0"), doc)
    assert all(lower >= parts[(g, r)][0] for (g, r, _), (lower, _) in seconds.items())  # a part: their least
    thirds = bound_campaigns.ledger_thirds(Game.from_spec("5,6,0"), doc)
    assert thirds and all(plies in (0, 1) for _, plies in thirds.values())
    bound_campaigns.start(Game.from_spec("5,6,0"), 3, None, str(path))  # drops cut ones no higher than their part
    compact = bound_campaigns.read(str(path)) or {}
    kept = bound_campaigns.ledger_seconds(Game.from_spec("5,6,0"), compact)
    assert kept == {k: v for k, v in seconds.items() if v[1] == 2 or v[0] > parts[k[:2]][0]}
    assert any(v[1] == 2 for v in kept.values())
    # and the parts of a second guess known in full: what they say, it says
    assert bound_campaigns.ledger_thirds(Game.from_spec("5,6,0"), compact) == {
        k: v for k, v in thirds.items() if kept.get(k[:3], (0, 0))[1] <= v[1]}
    doc = bound_campaigns.read(str(path)) or {}
    doc.update(parts={}, units={})
    del doc["finished"]
    path.write_text(json.dumps(doc))
    again = bound_campaigns.run("5,6,0", 3, None, str(path))
    assert again is not None and again["value"] == first["value"] and again["work"] < first["work"]

    broken = json.loads(path.read_text())
    guess = next(iter(broken["seconds"]))
    response = next(iter(broken["seconds"][guess]))
    broken["seconds"][guess][response]["00123"] = [5, 1]  # a repeated symbol: not a 5,6,0 code
    broken.pop("finished")
    path.write_text(json.dumps(broken))
    with pytest.raises(bound_campaigns.CampaignError, match="second guess"):
        bound_campaigns.run("5,6,0", 3, None, str(path))
    assert json.loads(path.read_text()) == broken
    del broken["seconds"][guess][response]["00123"]
    broken.setdefault("thirds", {}).setdefault(guess, {}).setdefault(response, {})["01234"] = {"9.9": [3, 0]}
    path.write_text(json.dumps(broken))
    with pytest.raises(bound_campaigns.CampaignError, match="below a second guess"):
        bound_campaigns.run("5,6,0", 3, None, str(path))
    assert json.loads(path.read_text()) == broken
    broken["thirds"][guess][response]["01234"] = {"2.2": [3, 0]}
    path.write_text(json.dumps(broken))

    old = bound_campaigns.read(str(path))
    assert old is not None
    del old["leaves"]
    path.write_text(json.dumps(old))
    bound_campaigns.start(Game.from_spec("5,6,0"), 3, None, str(path))
    recounted = bound_campaigns.ledger_seconds(Game.from_spec("5,6,0"), bound_campaigns.read(str(path)) or {})
    old_parts = bound_campaigns.ledger_bounds(Game.from_spec("5,6,0"), old)
    assert recounted == {k: (lower, 0) for k, (lower, plies) in
                         bound_campaigns.ledger_seconds(Game.from_spec("5,6,0"), old).items()
                         if plies > 0 or lower > old_parts[k[:2]][0]}
    assert recounted


def test_the_bound_a_file_proves_as_it_stands_only_rises_and_is_admissible(tmp_path: Path) -> None:
    """``standing``: with nothing proven, the best first guess's one-ply bound; it rises (never falls) with the
    units each run finishes, stays at most the exact total, and once the campaign is finished it is at least
    its bound (each first guess: the larger of its unit's bound and its parts' sum)."""
    game, path = Game.from_spec("4,6,1"), str(tmp_path / "bounds.json")
    seen = [bound_campaigns.standing(game, {"parts": {}, "units": {}})]
    assert seen[0] == root_lower_bound(game, (), 1).value
    for _ in range(3):
        bound_campaigns.run("4,6,1", 3, None, path, max_units=1)
        seen.append(bound_campaigns.standing(game, bound_campaigns.read(path) or {}))
    got = bound_campaigns.run("4,6,1", 3, None, path)
    assert got is not None
    seen.append(bound_campaigns.standing(game, bound_campaigns.read(path) or {}))
    assert seen == sorted(seen) and seen[0] < seen[-1] and got["value"] <= seen[-1] <= 5625
    summary = bound_campaigns.so_far(game, path)
    assert summary is not None and summary["value"] == seen[-1] and summary["units"] == got["units"]
    assert bound_campaigns.so_far(game, str(tmp_path / "none.json")) is None
    doc = bound_campaigns.read(path) or {}
    doc["units"][next(iter(doc["units"]))]["bound"] = "many"
    Path(path).write_text(json.dumps(doc))
    with pytest.raises(bound_campaigns.CampaignError, match="not a number"):
        bound_campaigns.so_far(game, path)
    with pytest.raises(bound_campaigns.CampaignError, match="4,6,1's campaign"):
        bound_campaigns.so_far(Game.from_spec("4,4,1"), path)


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
    entry = json.loads(json.dumps(atlas.load()["4,5,1"]))
    truth = entry["values"]["total"]["value"]
    entry["values"]["total"].update(exact=False, value=None, lower=truth - 40, upper=truth + 10)
    atlas.save({"4,5,1": entry}, str(path))
    runner = CliRunner()
    base = ["atlas", "bounds", "-g", "4,5,1", "--campaign", "--progress", progress, "--file", str(path)]
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
    shown = json.loads(got.output.strip().splitlines()[-1])
    after = bound_campaigns.read(progress) or {}
    assert shown["finished"] is False and after["units"] == {} and after["runs"][-1]["parts"] == [big]
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

    path = str(tmp_path / "bounds.json")
    got = bound_campaigns.run("4,6,1", 3, None, path)
    assert got is not None and got["value"] == 5625
    doc = bound_campaigns.read(path)
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
    path = str(tmp_path / "bounds.json")
    assert bound_campaigns.run("4,6,1", 2, None, path, max_units=1) is None  # one class of first guess only
    doc = bound_campaigns.read(path)
    assert doc is not None and len(doc["parts"]) == 1
    other = "0123" if list(doc["parts"]) != ["0123"] else "0000"
    game = Game.from_spec("4,6,1")
    with pytest.raises(bound_campaigns.CampaignError, match=f"no first guess that is {other} relabelled"):
        bound_campaigns.gaps(game, doc, _mastermind_tree(other))
    with pytest.raises(bound_campaigns.CampaignError, match="not both"):
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
    atlas.save({spec: entry, "3,3,1": json.loads(json.dumps(atlas.load()["3,3,1"]))}, str(path))
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
    assert atlas.keep_lower_bound(spec, later, path=str(path))
    assert atlas.load(str(path))[spec]["lower_bound"]["seconds"] == later["seconds"]
    other = {**later, "seconds": later["seconds"] + 5, "campaign": {**later["campaign"], "progress": "other.json"}}
    assert not atlas.keep_lower_bound(spec, other, path=str(path))
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
    with pytest.raises(bound_campaigns.CampaignError, match="sweep progress"):
        bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    assert bound_campaigns.read(path) == broken
    Path(path).write_text(json.dumps(doc))
    done = bound_campaigns.settle(spec, path, ["1.0"], kernel_at_most=8)
    searcher = Searcher(game, SolveOptions("total"))
    for row, before in zip(done, cut, strict=True):
        turn = Turn(game.parse_code(row["first_guess"]), game.parse_response("1.0"))
        assert row["exact"] and row["value"] == searcher.solve([turn]).value <= before.get("found", row["value"])
    assert "settle" not in (bound_campaigns.read(path) or {})
