"""The records games (Super Mastermind, five-digit Bulls-and-Cows): the records file, its commands, the shipped
best-known trees and how the service answers from them (``service.records``, ``bullscows records``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from service import records, records_keeping
from service.trees import TreeLibrary, read_manifest
from solver.game import Game, Turn
from solver.search import Searcher, SolveOptions
from solver.symmetry import Relabelling
from solver.vocabulary import BEST_KNOWN
from tests.service.conftest import backend_agnostic, make_app, quick_on_postgresql

SMALL = "3,4,1"
"""A game small enough to build and solve in a test, standing in for a records game."""


@pytest.fixture
def small_records(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(records.PUBLISHED, SMALL, {
        "name": "a small stand-in", "published": [
            {"total": 999, "worst_case": None, "first_guess": None, "how": "made up", "source": "this test"}]})
    return SMALL


def test_a_records_tree_is_kept_only_when_it_improves(small_records: str, tmp_path: Path) -> None:
    """The hybrid is played through every secret, shipped under best-known with its manifest entry, and
    recorded; a second tree that is no better leaves file and tree as they were."""
    path, folder = str(tmp_path / "records.json"), tmp_path / "trees"
    folder.mkdir()
    worse = records_keeping.add_hybrid(SMALL, "first-consistent", 1, path=path, folder=str(folder))
    assert worse["kept"] and (folder / worse["tree"]).exists()
    meta = read_manifest(str(folder))[(SMALL, BEST_KNOWN)]
    assert meta["total"] == worse["total"] and meta["exact"] is False
    stored = TreeLibrary(str(folder)).get(Game.from_spec(SMALL), BEST_KNOWN, None)
    assert stored is not None and stored.tree.stats().total == worse["total"]

    optimum = Searcher(Game.from_spec(SMALL), SolveOptions("total")).solve(()).value
    better = records_keeping.add_hybrid(SMALL, "entropy", 64, path=path, folder=str(folder))  # exact everywhere
    assert better["kept"] and better["total"] == optimum <= worse["total"]
    again = records_keeping.add_hybrid(SMALL, "entropy", 64, path=path, folder=str(folder))
    assert not again["kept"]
    kept = records.load(path)[SMALL]["best_known"]
    assert kept["total"] == optimum and kept["command"].startswith(f"bullscows records hybrid -g {SMALL}")
    if better["total"] < worse["total"]:
        assert read_manifest(str(folder))[(SMALL, BEST_KNOWN)]["total"] == optimum


@pytest.mark.parametrize("stated", [5, None])
def test_a_records_tree_within_the_published_worst_case_beats_a_cheaper_one_beyond_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stated: int | None) -> None:
    """Where the best published strategy states a worst case, a tree is ranked by its secrets beyond it first:
    a dearer tree within it replaces a cheaper one beyond it, and not the other way round.  Where none is
    stated, the total alone decides.  (3 of 6 digits: first-consistent with the exact search at one candidate
    needs fewer guesses than the worst-case search's tree of 5, but 6 for some secrets.)"""
    from solver.feasible import feasible_chooser
    from solver.tree import build_tree

    spec = "3,6,0"
    monkeypatch.setitem(records.PUBLISHED, spec, {"name": "a small stand-in", "published": [
        {"total": 999, "worst_case": stated, "first_guess": None, "how": "made up", "source": "this test"},
        {"total": 9999, "worst_case": 4, "first_guess": None, "how": "dearer", "source": "this test"}]})
    assert records_keeping.worst_case_target(spec) == stated
    path, folder = str(tmp_path / "records.json"), tmp_path / "trees"
    folder.mkdir()
    cheap = records_keeping.add_hybrid(spec, "first-consistent", 1, path=path, folder=str(folder))
    assert cheap["kept"] and cheap["worst_case"] > 5
    within = records_keeping.add_tree(
        spec, lambda game: build_tree(game, feasible_chooser(game, 5), strategy="within 5"), {}, "a test's", path=path,
        folder=str(folder))
    assert within["worst_case"] == 5 and within["total"] > cheap["total"]
    assert within["kept"] is (stated is not None)
    again = records_keeping.add_hybrid(spec, "first-consistent", 1, path=path, folder=str(folder))
    assert not again["kept"]
    shipped = records.load(path)[spec]["best_known"]
    assert shipped["total"] == (within if stated is not None else cheap)["total"]
    stored = TreeLibrary(str(folder)).get(Game.from_spec(spec), BEST_KNOWN, None)
    assert stored is not None and stored.tree.stats().total == shipped["total"]


def test_a_records_bound_is_below_the_optimum_and_only_rises(small_records: str, tmp_path: Path) -> None:
    path = str(tmp_path / "records.json")
    optimum = Searcher(Game.from_spec(SMALL), SolveOptions("total")).solve(()).value
    one = records_keeping.RECORDS_KEEPER.add_lower_bound(SMALL, 1, path=path)[0]
    two = records_keeping.RECORDS_KEEPER.add_lower_bound(SMALL, 2, path=path)[0]
    assert one["size_only"] <= one["value"] <= two["value"] <= optimum
    records_keeping.RECORDS_KEEPER.add_lower_bound(SMALL, 1, path=path)
    assert records.load(path)[SMALL]["lower_bound"]["value"] == two["value"]
    table = records.markdown(records.load(path))
    assert f"≥ {two['value']}" in table and "made up" in table


def test_the_shipped_records_file_matches_its_trees() -> None:
    """Every records game ships its published rows; each best-known tree is loaded (played through every
    secret by the loader), its numbers are the file's, and it needs fewer guesses than the best published
    strategy within the worst case that one states; each bound is below the tree it bounds."""
    entries = records.load()
    assert set(entries) == {"5,8,1", "5,10,0"}
    assert entries["5,8,1"]["published"][0]["total"] == 179274
    assert entries["5,10,0"]["published"][0]["total"] == 171689
    library = TreeLibrary()
    for spec, entry in entries.items():
        best = entry.get("best_known")
        if best is None:
            continue
        game = Game.from_spec(spec)
        stored = library.get(game, BEST_KNOWN, None)
        assert stored is not None, spec
        stats = stored.tree.stats()
        assert (stats.total, stats.worst_case) == (best["total"], best["worst_case"])
        assert sum(stats.histogram.values()) == game.size
        published = entry["published"][0]  # the best strategy published, and the worst case it states
        assert stats.total < published["total"], spec
        if published["worst_case"] is not None:
            assert stats.worst_case <= published["worst_case"], spec
        bound = entry.get("lower_bound")
        if bound is not None:
            assert bound["value"] <= best["total"]


@pytest.mark.slow  # 14 s; the same campaign runner resumes atlas bounds in test_bound_campaign's quick tests
def test_a_records_bound_as_a_campaign_resumes_and_records_what_it_proved(small_records: str, tmp_path: Path) -> None:
    """``records bound --campaign`` (units per first guess, parts in a progress file): stopped after one unit it
    says so and records what its parts prove so far, marked unfinished; the same command continues and records
    the bound refined at once, with the campaign that proved it, and only a higher bound replaces it."""
    from click.testing import CliRunner

    from service.cli import main
    from solver.lowerbound import root_classes, root_lower_bound

    path, progress = str(tmp_path / "records.json"), str(tmp_path / "bounds.json")
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    args = ["records", "bound", "-g", SMALL, "--campaign", "--progress", progress, "--file", path, "--url", url,
            "--json"]
    game = Game.from_spec(SMALL)
    assert len(root_classes(game)) > 1
    first = CliRunner().invoke(main, [*args, "--depth", "2", "--max-units", "1"])
    assert first.exit_code == 0, first.output
    shown = json.loads(first.stdout)
    assert shown["finished"] is False and shown["units_done"] == 1 and shown["plan"] == {"depth": 2, "target": None}
    partly = records.load(path)[SMALL]["lower_bound"]  # what its parts prove so far, marked unfinished
    assert partly["value"] == shown["standing"] and partly["campaign"]["finished"] is False
    done = CliRunner().invoke(main, [*args, "--depth", "2"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["finished"] and record["value"] == root_lower_bound(game, (), 2).value
    kept = records.load(path)[SMALL]["lower_bound"]
    assert kept["value"] == record["value"] and kept["campaign"] == {"units": len(root_classes(game)),
                                                                      "progress": progress}
    assert kept["command"] == f"bullscows records bound -g {SMALL} --depth 2 --campaign --progress {progress}"
    shallower = CliRunner().invoke(main, [*args, "--depth", "1"])
    assert shallower.exit_code == 0, shallower.output
    assert json.loads(shallower.stdout)["value"] <= kept["value"]
    assert records.load(path)[SMALL]["lower_bound"] == kept


def test_a_records_bound_asked_for_a_target_records_it(small_records: str, tmp_path: Path) -> None:
    from solver.lowerbound import root_lower_bound

    path = str(tmp_path / "records.json")
    full = root_lower_bound(Game.from_spec(SMALL), (), 2).value
    asked = records_keeping.RECORDS_KEEPER.add_lower_bound(SMALL, 2, target=full - 3, path=path)[0]
    assert full - 3 <= asked["value"] <= full and asked["target"] == full - 3
    assert asked["command"].endswith(f"--depth 2 --target {full - 3}")
    assert f"asked for {full - 3}) | ≥ {asked['value']}" in records.markdown(records.load(path))


def test_records_bound_refuses_campaign_options_without_a_campaign_and_foreign_progress(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from service.cli import main

    path = tmp_path / "r.json"
    for extra in (["--progress", str(tmp_path / "p.json")], ["--processes", "2"], ["--max-units", "1"]):
        result = CliRunner().invoke(main, ["records", "bound", "-g", "5,10,0", "--file", str(path), *extra])
        assert result.exit_code == 2 and "add --campaign" in result.output, extra
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "bullscows-bound-campaign", "game": "5,8,1", "plan": {}, "parts": {},
                                 "units": {}}))
    before = other.read_text()
    result = CliRunner().invoke(main, ["records", "bound", "-g", "5,10,0", "--depth", "1", "--campaign",
                                       "--progress", str(other), "--file", str(path)])
    assert result.exit_code == 2 and "5,8,1" in result.output
    assert other.read_text() == before and not path.exists()


def test_records_command_refuses_other_games(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from service.cli import main

    result = CliRunner().invoke(main, ["records", "bound", "-g", "4,6,1", "--file", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "not a records game" in result.output
    result = CliRunner().invoke(main, ["records", "hybrid", "-g", "5,8,1", "--strategy", "knuth",
                                       "--file", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "unknown one-step strategy" in result.output
    assert not (tmp_path / "r.json").exists()
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    for args in (["records", "show"], ["records", "bound", "-g", "5,8,1"], ["records", "rollout", "-g", "5,10,0"]):
        result = CliRunner().invoke(main, [*args, "--file", str(broken)])
        assert result.exit_code == 2 and "is not a records file" in result.output, args
    assert broken.read_text() == "{not json"
    shown = CliRunner().invoke(main, ["records", "show", "--json"])
    assert shown.exit_code == 0 and {g["game"] for g in json.loads(shown.output)["games"]} == {"5,8,1", "5,10,0"}


@backend_agnostic
def test_games_endpoint_reports_records(client: FlaskClient) -> None:
    body = client.get("/v1/games/5,8,1").get_json()
    record = body["record"]
    assert record["published"][0]["total"] == 179274 and body["atlas"] is None
    best = records.load()["5,8,1"].get("best_known")
    if best is not None:
        assert record["best_known"]["total"] == best["total"] and record["best_known"]["proven_optimal"] is False
        assert record["best_known"]["tree"] == BEST_KNOWN
    check = records.load()["5,8,1"].get("check")
    if check is None:
        assert record["check"] is None
    else:  # the recomputed figure, as the records file holds it (a finished check agrees or says it does not)
        served = record["check"]
        assert served["published"] == 179929 and served["first_guess"] == "01122" and served["from_set_only"]
        assert served["parts"] == len(check["parts"]) and served["finished"] is check["finished"]
        assert served["value"] == check.get("value") and served["agrees"] == check.get("agrees")
        if served["finished"]:
            assert served["agrees"] is (served["value"] == 179929)
    assert client.get("/v1/games/5,10,0").get_json()["record"]["check"] is None
    assert client.get("/v1/games/mastermind").get_json()["record"] is None


def _shipped_specs() -> list[str]:
    return [spec for spec, e in records.load().items() if e.get("best_known") is not None]


@backend_agnostic
@pytest.mark.parametrize("spec", _shipped_specs())
def test_next_move_follows_the_best_known_tree_under_relabelling(client: FlaskClient, spec: str) -> None:
    """On the tree (in any relabelling) the answer is the tree's guess, not proven optimal; off the tree,
    or within fewer guesses than the tree needs, it is the heuristic's, within its budget."""
    game = Game.from_spec(spec)
    stored = TreeLibrary().get(game, BEST_KNOWN, None)
    assert stored is not None
    root = stored.tree.root
    first = client.post("/v1/next-move", json={"game": spec}).get_json()
    assert (first["guess"], first["source"], first["exact"]) == (game.format_code(root.guess), "best-known", False)
    # named in a few words, as the page and the CLI say it; how the tree was made is its provenance, apart
    assert first["note"] == f"best known tree, not proven optimal: {stored.meta['total']} guesses over every secret"
    sources = {s["name"]: s["label"] for s in client.get("/v1/games").get_json()["sources"]}
    assert first["note"].startswith(sources["best-known"] + ": ")
    about = client.get(f"/v1/games/{spec}").get_json()["known"]["tree"]
    assert about["strategy"] == BEST_KNOWN and about["provenance"]["command"]
    # a relabelled first move: the symbols renamed in reverse
    psi = Relabelling(tuple(range(game.positions)), tuple(reversed(range(game.symbols))))
    response, child = max(root.children.items(), key=lambda rc: len(rc[1].children))
    moved = psi.apply(game, root.guess)
    history = [f"{game.format_code(moved)} {game.format_response(response)}"]
    second = client.post("/v1/next-move", json={"game": spec, "history": history}).get_json()
    assert second["source"] == "best-known" and second["value"]["worst_case"] == 1 + child.subtree.height
    # the tree's guess under a symmetry mapping the history onto the tree's path: it splits the relabelled
    # candidates exactly as the tree's guess splits the tree's
    cands = game.candidates(game.parse_history(history))
    tree_cands = game.candidates([Turn(root.guess, response)])
    sizes = sorted(np.bincount([game.response(game.parse_code(second["guess"]), int(c)) for c in cands]))
    tree_sizes = sorted(np.bincount([game.response(child.guess, int(c)) for c in tree_cands]))
    assert sizes == tree_sizes
    worst = root.subtree.height
    limited = client.post("/v1/next-move", json={"game": spec, "max_guesses": worst - 1}).get_json()
    assert limited["source"] == "heuristic"


@pytest.mark.slow
@backend_agnostic
@pytest.mark.parametrize("spec", _shipped_specs())
def test_secrets_played_through_next_move_take_the_trees_guesses(client: FlaskClient, spec: str) -> None:
    """A bot following POST /v1/next-move on sampled secrets plays the tree's game for each, every answer
    from the tree (the whole game is played by the loader and by benchmarks/bench_records.py)."""
    game = Game.from_spec(spec)
    stored = TreeLibrary().get(game, BEST_KNOWN, None)
    assert stored is not None
    secrets = np.random.default_rng(7).choice(game.size, size=150, replace=False)
    for secret in (int(s) for s in secrets):
        history: list[str] = []
        while True:
            r = client.post("/v1/next-move", json={"game": spec, "history": history}).get_json()
            assert r["source"] == "best-known", r
            guess = game.parse_code(r["guess"])
            response = game.response(guess, secret)
            history.append(f"{r['guess']} {game.format_response(response)}")
            if response == game.all_bulls:
                break
        assert len(history) == len(stored.tree.play(secret))


def test_the_records_page_shows_the_shipped_file() -> None:
    """docs/records.md's table is `bullscows records show --markdown` of the shipped file
    (scripts/records_report.py redraws it)."""
    from click.testing import CliRunner

    from service.cli import main

    page = (Path(__file__).resolve().parents[2] / "docs" / "records.md").read_text(encoding="utf-8")
    printed = CliRunner().invoke(main, ["records", "show", "--markdown"])
    assert printed.exit_code == 0 and printed.output in page


@backend_agnostic
def test_the_best_known_trees_statistics_say_how_they_were_built(client: FlaskClient) -> None:
    for spec in _shipped_specs():
        best = records.load()[spec]["best_known"]
        stats = client.get(f"/v1/strategies/{spec}/best-known").get_json()
        assert (stats["total"], stats["worst_case"], stats["optimal"]) == (best["total"], best["worst_case"], False)
        assert stats["hybrid"]["above"] == best["above"] and stats["hybrid"]["rollout"] == best.get("rollout")


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_polish_ships_a_cheaper_tree_with_its_command_chain(small_records: str, tmp_path: Path, db_url: str) -> None:
    """`records polish` runs its polish as a job (its worker on either database), ships the cheaper tree, and
    records the commands that rebuild it (the first tree's, then the polish) and what the polish did; without a
    tree to polish it stops with a clear error and writes nothing."""
    from click.testing import CliRunner

    from service.cli import main

    path, folder = tmp_path / "records.json", tmp_path / "trees"
    folder.mkdir()
    args = ["records", "polish", "-g", SMALL, "--above", "0", "--at-most", "64", "--budget", "60",
            "--file", str(path), "--trees", str(folder), "--progress", str(tmp_path / "polish.json"), "--url", db_url]
    missing = CliRunner().invoke(main, args)
    assert missing.exit_code == 2 and "no best-known tree to polish" in missing.output and not path.exists()
    first = records_keeping.add_hybrid(SMALL, "first-consistent", 1, path=str(path), folder=str(folder))
    optimum = Searcher(Game.from_spec(SMALL), SolveOptions("total")).solve(()).value
    assert first["total"] > optimum
    ran = CliRunner().invoke(main, args)
    assert ran.exit_code == 0, ran.output
    assert "polish campaign of 3,4,1: 0 positions settled before" in ran.output
    assert "3,4,1: the whole tree polished in" in ran.output  # its 64 candidates are the first position searched
    got = records.load(str(path))[SMALL]["best_known"]
    assert got["total"] == optimum and got["polish"]["before"] == first["total"]
    assert got["polish"]["gained"] == first["total"] - optimum and got["polish"]["improved"] >= 1
    assert got["command"].startswith(first["command"] + " && bullscows records polish -g " + SMALL)
    assert got["strategy"].endswith("polished exact<=64")
    stored = TreeLibrary(str(folder)).get(Game.from_spec(SMALL), BEST_KNOWN, None)
    assert stored is not None and stored.tree.stats().total == optimum
    done = json.loads((tmp_path / "polish.json").read_text())
    assert done["finished"]["kept"] is True and all("tree" not in p for p in done["positions"].values())
    client = make_app(db_url).test_client()  # the job, as the service shows it
    listed = client.get("/v1/jobs").get_json()["jobs"]
    assert [j["request"]["kind"] for j in listed] == ["polish"]
    shown = client.get(f"/v1/jobs/{listed[0]['id']}?units=true")
    assert shown.status_code == 200, shown.get_json()
    job = shown.get_json()
    assert job["result"]["value"] == got["polish"]["gained"] and job["result"]["improved"] == got["polish"]["improved"]
    assert [u["kind"] for u in job["units"]] == ["polish"] and job["request"]["polish"]["params"]["at_most"] == 64


def test_a_polish_stopped_midway_continues_where_it_was(small_records: str, tmp_path: Path) -> None:
    """`records polish` keeps each settled position in the database and its --progress file.  Stopped after one
    unit (one part of the first guess), it has shipped nothing, says so, and its file holds that part's positions;
    the same command then searches only the other parts and ships the tree of a polish never stopped, with the
    same record.  While the file is unfinished, a polish with other parameters, or a file that is not a polish's
    progress, is refused and changes nothing."""
    import shutil

    from click.testing import CliRunner

    from service.cli import main

    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "polish.json"
    folder.mkdir()
    first = records_keeping.add_hybrid(SMALL, "first-consistent", 1, path=str(path), folder=str(folder))
    shutil.copytree(folder, tmp_path / "whole")
    shutil.copy(path, tmp_path / "whole.json")

    def polish_args(file: Path, trees: Path, to: Path, db: str) -> list[str]:
        return ["records", "polish", "-g", SMALL, "--above", "0", "--at-most", "20", "--budget", "60",
                "--file", str(file), "--trees", str(trees), "--url", f"sqlite:///{tmp_path / db}",
                "--progress", str(to)]

    never_stopped = CliRunner().invoke(main, polish_args(tmp_path / "whole.json", tmp_path / "whole",
                                                         tmp_path / "whole-polish.json", "whole.sqlite"))
    assert never_stopped.exit_code == 0, never_stopped.output
    whole = records.load(str(tmp_path / "whole.json"))[SMALL]["best_known"]
    assert whole["total"] < first["total"] and whole["polish"]["tried"] > 2
    args = polish_args(path, folder, progress, "jobs.sqlite")
    stopped = CliRunner().invoke(main, [*args, "--max-units", "1", "--json"])
    assert stopped.exit_code == 0, stopped.output
    assert "parts left; run the same command again to continue" in stopped.output
    assert "guess " not in stopped.output  # nothing replayed or judged: no position's line
    out = json.loads(stopped.stdout)
    assert out["finished"] is False and out["units_done"] == 1 and out["units_left"] >= 1
    listed = CliRunner().invoke(main, ["jobs", "list", "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"])
    assert listed.exit_code == 0 and " waiting " in listed.output  # its worker gone, no unit of it runs
    doc = json.loads(progress.read_text())
    parts = {key.split(",")[0] for key in doc["positions"]}
    assert len(parts) == 1 and "finished" not in doc  # one unit: one part of the first guess
    assert records.load(str(path))[SMALL]["best_known"]["total"] == first["total"]

    before = path.read_bytes()
    other = CliRunner().invoke(main, [*args[:-2], "--budget", "30", "--progress", str(progress)])
    assert other.exit_code == 2 and "unfinished polish with budget_s 60.0, not 30.0" in other.output
    assert path.read_bytes() == before and json.loads(progress.read_text()) == doc
    corrupt = tmp_path / "corrupt.json"
    for text, says in (("{not json", "is not JSON"),
                       (json.dumps({**doc, "positions": {"x": {"outcome": "maybe", "seconds": 1}}}),
                        "is not a settled position")):
        corrupt.write_text(text)
        refused = CliRunner().invoke(main, [*args[:-2], "--progress", str(corrupt)])
        assert refused.exit_code == 2 and f"{corrupt}" in refused.output and says in refused.output
        assert path.read_bytes() == before and corrupt.read_text() == text

    ran = CliRunner().invoke(main, args)
    assert ran.exit_code == 0, ran.output
    assert f"{len(doc['positions'])} positions settled before" in ran.output
    got = records.load(str(path))[SMALL]["best_known"]
    assert got["total"] == whole["total"] and got["polish"] == {**whole["polish"], "seconds": got["polish"]["seconds"]}
    assert (folder / got["tree"]).read_bytes() == (tmp_path / "whole" / whole["tree"]).read_bytes()
    done = json.loads(progress.read_text())
    assert done["finished"] == {"total": whole["total"], "kept": True, "date": done["finished"]["date"]}
    assert set(doc["positions"]) < set(done["positions"]) and all("tree" not in p for p in done["positions"].values())
    assert len(done["positions"]) == got["polish"]["tried"]


def test_a_polish_of_some_parts_leaves_the_others_as_they_were(small_records: str, tmp_path: Path) -> None:
    """`records polish --parts` searches only below the responses to the first guess it names: every position it
    settles is in them, the subtrees of the other responses are the tree's own, and the record's command keeps
    the parts.  A response that leaves no candidate is refused before anything is written."""
    from click.testing import CliRunner

    from service.cli import main

    path, folder, progress = tmp_path / "records.json", tmp_path / "trees", tmp_path / "polish.json"
    folder.mkdir()
    first = records_keeping.add_hybrid(SMALL, "first-consistent", 1, path=str(path), folder=str(folder))
    game = Game.from_spec(SMALL)
    library = TreeLibrary(str(folder))
    before = library.get(game, BEST_KNOWN, None)
    assert before is not None
    sizes = {game.format_response(r): c.size for r, c in before.tree.root.children.items()}
    part = max(sizes, key=lambda k: sizes[k])
    args = ["records", "polish", "-g", SMALL, "--above", "0", "--at-most", "20", "--budget", "60",
            "--file", str(path), "--trees", str(folder), "--progress", str(progress),
            "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    bad = CliRunner().invoke(main, [*args, "--parts", f"{part},3.0"])
    assert bad.exit_code == 2 and "--parts: 3.0 is not a part of the tree" in bad.output and not progress.exists()
    malformed = CliRunner().invoke(main, [*args, "--parts", "1.x"])
    assert malformed.exit_code == 2 and "--parts: " in malformed.output and not progress.exists()
    ran = CliRunner().invoke(main, [*args, "--parts", part])
    assert ran.exit_code == 0, ran.output
    settled = json.loads(progress.read_text())["positions"]
    turn = f"{first['first_guess']} {part}"
    assert settled and all(key.startswith(turn) for key in settled)
    got = records.load(str(path))[SMALL]["best_known"]
    assert got["total"] < first["total"] and got["command"].endswith(f" --parts {part}")
    after = TreeLibrary(str(folder)).get(game, BEST_KNOWN, None)
    assert after is not None
    for r, child in before.tree.root.children.items():
        if game.format_response(r) != part:
            assert after.tree.root.children[r] == child


def _assert_parts_guesses(spec: str, first: str, parts: dict[str, dict[str, Any]]) -> None:
    """Each part of a check names a second guess that is still possible there and whose own exact evaluation,
    from possible codes only, gives the part's value: the record says how its value is reached."""
    game = Game.from_spec(spec)
    searcher = Searcher(game, SolveOptions("total", from_set_only=True))
    for name, part in parts.items():
        history = [Turn(game.parse_code(first), game.parse_response(name))]
        guess = game.parse_code(part["guess"])
        assert guess in game.candidates(history), (name, part)
        assert searcher.evaluate_guess(history, guess).value == part["value"], (name, part)


@quick_on_postgresql
def test_a_published_figure_is_checked_part_by_part_against_the_plain_reference(monkeypatch: pytest.MonkeyPatch,
                                                                                tmp_path: Path, db_url: str) -> None:
    """``records check`` recomputes a row that says how (the optimum among strategies that open with a given
    guess, then play only possible codes) as a check job on either database: its value is the plain exhaustive
    search's, part by part.  Stopped after some units (``--max-units``), the file keeps their parts, marked
    unfinished, and the same command solves only the others.  A published figure it does not reproduce is
    recorded as such, not hidden."""
    from click.testing import CliRunner

    from service.cli import main
    from tests.reference import all_codes, bulls_cows, exhaustive

    spec = "3,5,1"  # a game where playing impossible codes saves guesses after this first guess
    game = Game.from_spec(spec)
    codes = all_codes(game.positions, game.symbols, game.repetition, "0123456789")
    first = "001"
    groups: dict[tuple[int, int], list[str]] = {}
    for c in codes:
        groups.setdefault(bulls_cows(first, c), []).append(c)
    memo: dict[tuple[object, ...], float] = {}
    expected = 1 + sum(len(v) + int(exhaustive(codes, tuple(v), None, "total", True, memo))
                       for k, v in groups.items() if k != (game.positions, 0))
    free = Searcher(game, SolveOptions("total")).evaluate_guess((), game.parse_code(first)).value
    assert free is not None and free < expected  # playing impossible codes helps here: the check is not the free value
    stop_after, left = 2, len(groups) - 1
    for published in (expected, expected + 1):
        _stand_in(monkeypatch, spec, first, published)
        path = str(tmp_path / f"records-{published}.json")
        args = ["records", "check", "-g", spec, "--file", path, "--url", db_url, "--json"]
        if published == expected:
            stopped = CliRunner().invoke(main, [*args, "--max-units", str(stop_after)])
            assert stopped.exit_code == 0, stopped.output
            assert f"stopped after --max-units: {left - stop_after} of {left} units left" in stopped.stderr
            partly = records.load(path)[spec]["check"]
            assert partly["finished"] is False and len(partly["parts"]) == stop_after
            assert json.loads(stopped.stdout)["parts"] == partly["parts"]
            waiting = stopped.stderr.split("; job ")[1].split(" ")[0]
            progress = make_app(db_url).test_client().get(f"/v1/jobs/{waiting}").json["progress"]
            assert progress["units_done"] == stop_after and progress["lower_bound"] is None  # a check bounds nothing
            left -= stop_after
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 0, done.output
        # the parts kept are not solved again: those of the stopped run, then (another records file on the same
        # database) every part, written to the new file from the jobs that solved them, and no job asked
        if left:
            assert f"{len(groups) - 1 - left} of {len(groups) - 1} parts solved before" in done.stderr
        else:
            assert f"{len(groups) - 1} parts solved by earlier jobs in this database written to" in done.stderr
            assert "has every part of this check already" in done.stderr and "(submitted)" not in done.stderr
        assert len(_solved_lines(done.stderr)) == left
        record = json.loads(done.stdout)
        assert record["finished"] and record["value"] == expected
        assert record["agrees"] is (published == expected)
        assert sum(p["value"] for p in record["parts"].values()) + 1 == expected
        _assert_parts_guesses(spec, first, record["parts"])
        assert records.load(path)[spec]["check"] == {k: v for k, v in record.items() if k != "game"}
        row = [line for line in records.markdown(records.load(path)).splitlines() if "colours counted from 0" in line]
        assert len(row) == 1 and f"| {expected} |" in row[0]
        assert ("reproduced" in row[0]) is (published == expected)
        again = CliRunner().invoke(main, args)  # nothing left: no search, the same record
        assert again.exit_code == 0 and "has every part of this check already" in again.stderr
        assert not _solved_lines(again.stderr) and json.loads(again.stdout)["value"] == expected
        left = 0
    view = make_app(db_url).test_client().get("/v1/jobs?limit=200").json["jobs"]
    superseded = [j for j in view if j["request"].get("kind") == "check" and j["status"] == "cancelled"]
    assert superseded and all("superseded by job " in j["error"] for j in superseded)
    checks_done = [j for j in view if j["request"].get("kind") == "check" and j["status"] == "done"]
    assert checks_done and all(j["result"]["first_guess"] == first for j in checks_done)
    assert any(j["result"]["total"] == expected for j in checks_done)


def _stand_in(monkeypatch: pytest.MonkeyPatch, spec: str, first: str, total: int) -> None:
    """Publish a figure of ``spec`` that says how to check it: the optimum from possible codes after ``first``."""
    monkeypatch.setitem(records.PUBLISHED, spec, {"name": "a small stand-in", "published": [
        {"total": total, "worst_case": None, "first_guess": "112", "how": "only possible codes",
         "source": "this test", "check": {"first_guess": first, "from_set_only": True}}]})


def _solved_lines(stderr: str) -> list[str]:
    """The lines a check logs for each unit it finished."""
    return [line for line in stderr.splitlines() if line.startswith("# ") and " candidates: " in line]


def _alone(spec: str, first: str) -> dict[str, Any]:
    """The check of ``spec`` after ``first`` as one from-set-only search of each part in this process gives it (the
    reference the jobs' parts are held to): ``{"value", "parts": {response: {"candidates", "value"}}}``."""
    game = Game.from_spec(spec)
    searcher = Searcher(game, SolveOptions("total", from_set_only=True))
    guess = game.parse_code(first)
    parts = {}
    for r in {bulls for bulls in (game.response(guess, int(c)) for c in game.all_codes)} - {game.all_bulls}:
        history = [Turn(guess, r)]
        parts[game.format_response(r)] = {"candidates": len(game.candidates(history)),
                                          "value": int(searcher.solve(history).value or 0)}
    return {"value": 1 + sum(p["value"] for p in parts.values()), "parts": parts}


def _check(path: str, url: str, *extra: str, spec: str = "3,6,1") -> Any:
    """``records check`` of ``spec`` on ``path`` and ``url``, as JSON."""
    from click.testing import CliRunner

    from service.cli import main

    return CliRunner().invoke(main, ["records", "check", "-g", spec, "--file", path, "--url", url, "--json", *extra])


def test_commands_with_parts_share_one_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``records check --parts``: a command solves only the parts it names and leaves the check unfinished; a
    second command with the other parts finds the first one's in the file, solves only its own, and finishes
    it, at the value one command gives alone.  A response that is not a part is refused before any search."""
    spec = "3,5,1"
    _stand_in(monkeypatch, spec, "001", 456)
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    alone = _alone(spec, "001")
    names = sorted(alone["parts"])
    path = str(tmp_path / "shared.json")
    bad = _check(path, url, "--parts", "9.9", spec=spec)
    assert bad.exit_code == 2 and "9.9: not a response to 001" in bad.output and not Path(path).exists()
    mine, theirs = names[::2], names[1::2]
    from service import checks
    from service.campaign_spec import CampaignSpec
    from service.store import db as store_db
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade

    upgrade(url)  # a job of the other parts, asked on this database by another command, not run yet
    db = store_db.Database(url)
    jobs = JobStore(db)
    beside, _, _ = checks.KIND.start(jobs, CampaignSpec.check(Game.from_spec(spec), "001", 1, theirs, path))
    first = _check(path, url, "--parts", ",".join(mine), spec=spec)
    assert jobs.get(beside.id).status == "queued"  # other parts: it goes on beside the first command's
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["finished"] is False and sorted(records.load(path)[spec]["check"]["parts"]) == mine
    second = _check(path, url, "--parts", ",".join(theirs), spec=spec)
    assert second.exit_code == 0, second.output
    assert jobs.get(beside.id).status == "cancelled"  # the same parts: the second command's job took over
    db.dispose()
    assert len(_solved_lines(second.stderr)) == len(theirs)
    shared = json.loads(second.stdout)
    assert shared["finished"] and shared["value"] == alone["value"] and shared["agrees"] is (alone["value"] == 456)
    assert {k: p["value"] for k, p in shared["parts"].items()} == {k: p["value"] for k, p in alone["parts"].items()}


def _stopped_inside(monkeypatch: pytest.MonkeyPatch, spec: str, path: str, url: str, part: str,
                    writes: int) -> dict[str, Any]:
    """Run the check of ``part`` alone as a job whose one unit runs here and loses its lease at its ``writes``-th
    keep of progress (:func:`tests.stopped_units.stop_a_unit_at_its_write`); the check's records file is then
    written from the job (as the command does every minute).  Returns the progress the unit kept last."""
    from service import checks
    from service.campaign_spec import CampaignSpec
    from service.store import db as store_db
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade
    from tests.stopped_units import stop_a_unit_at_its_write

    campaign = CampaignSpec.check(Game.from_spec(spec), "001", 1, [part], path)
    kept = stop_a_unit_at_its_write(monkeypatch, url, lambda jobs: checks.KIND.start(jobs, campaign),
                                    writes)
    upgrade(url)
    db = store_db.Database(url)
    checks.KIND.export(JobStore(db), campaign)
    db.dispose()
    return kept


def test_a_check_stopped_inside_a_part_continues_from_where_it_was(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """A check unit keeps how far its part's search has come in the database, and the records file gets it
    (``searching``); a unit stopped in the middle of its part leaves it there, ``--status`` reads it, and the same
    command continues that part from it (it says so) and finishes with the value of a run that was never stopped,
    the part's time counting both runs."""
    spec = "3,6,1"
    _stand_in(monkeypatch, spec, "001", 1)
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    alone = _alone(spec, "001")
    biggest = max(alone["parts"], key=lambda k: alone["parts"][k]["candidates"])
    path = str(tmp_path / "records.json")
    kept = _stopped_inside(monkeypatch, spec, path, url, biggest, 4)
    partly = records.load(path)[spec]["check"]
    assert partly["finished"] is False and biggest not in partly["parts"]
    assert partly["searching"] == {biggest: kept} and kept["search"]["done"] + kept["search"]["parts"] > 0
    status = _check(path, url, "--status")
    assert status.exit_code == 0, status.output
    standing = json.loads(status.stdout)
    assert standing["parts"] == len(alone["parts"]) and standing["solved"] == 0
    assert biggest in standing["missing"] and "finished" not in standing
    assert standing["solved_guesses"] == 1 and standing["left_for_published"] == 0
    [under_way] = standing["searching"]
    assert (under_way["part"], under_way["share"], under_way["done"], under_way["of"]) == \
        (biggest, None, kept["search"]["done"], kept["search"]["guesses"])
    if kept["search"]["best_value"] is not None:  # a total of the game: never below the part's optimum
        assert under_way["best"] >= alone["parts"][biggest]["value"]
    assert records.load(path)[spec]["check"] == partly  # it only reads
    entries = records.load(path)  # as if the command was killed before it wrote the file: the database is ahead
    del entries[spec]["check"]["searching"]
    records_keeping.save(entries, path)
    ahead = json.loads(_check(path, url, "--status").stdout)
    assert [w["done"] for w in ahead["searching"]] == [kept["search"]["done"]]
    alone_file = json.loads(_check(path, f"sqlite:///{tmp_path / 'none.sqlite'}", "--status").stdout)
    assert alone_file["searching"] == [] and not (tmp_path / "none.sqlite").exists()
    refused = _check(path, url, "--status", "--shares", "2")
    assert refused.exit_code == 2 and "--status only reads the file" in refused.output
    nowhere = _check(path, f"sqlite:///{tmp_path / 'no' / 'such' / 'jobs.sqlite'}")
    assert nowhere.exit_code == 2 and "is not there" in nowhere.output and not (tmp_path / "no").exists()
    done = _check(path, url)
    assert done.exit_code == 0, done.output
    assert "1 search to go on from" in done.stderr
    assert f"{biggest}, {alone['parts'][biggest]['candidates']} candidates: {alone['parts'][biggest]['value']} " \
        f"guesses" in done.stderr and f"going on from guess {kept['search']['done']})" in done.stderr
    record = json.loads(done.stdout)
    assert record["finished"] and record["value"] == alone["value"] and "searching" not in record
    assert {k: p["value"] for k, p in record["parts"].items()} == {k: p["value"] for k, p in alone["parts"].items()}
    assert record["parts"][biggest]["seconds"] >= kept["seconds"]
    from service import checks

    finished = checks.status(spec, path=path)
    assert finished["finished"] and finished["value"] == alone["value"] and finished["agrees"] is False
    assert not finished["missing"] and not finished["searching"] and finished["solved"] == finished["parts"]


def test_shares_of_a_check_finish_its_parts_together(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``records check --shares N``: each part is N units, each searching every N-th second guess cut by the
    others' best; together they finish every part at the value of one search alone, with an optimal guess.  Shares
    also go on from the progress of a whole search that was stopped."""
    spec = "3,6,1"
    _stand_in(monkeypatch, spec, "001", 1)
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    alone = _alone(spec, "001")
    values = {k: p["value"] for k, p in alone["parts"].items()}
    path = str(tmp_path / "shared.json")
    shared = _check(path, url, "--shares", "2", "--processes", "2")
    assert shared.exit_code == 0, shared.output
    assert len(_solved_lines(shared.stderr)) == 2 * len(values)
    record = json.loads(shared.stdout)
    assert record["finished"] and record["value"] == alone["value"] and "searching" not in record
    assert {k: p["value"] for k, p in record["parts"].items()} == values
    assert all(p["shares"] == 2 for p in record["parts"].values())
    _assert_parts_guesses(spec, "001", record["parts"])  # the best of the shares' guesses

    biggest = max(values, key=lambda k: alone["parts"][k]["candidates"])
    whole, url = str(tmp_path / "whole.json"), f"sqlite:///{tmp_path / 'whole.sqlite'}"  # a database with no part
    kept = _stopped_inside(monkeypatch, spec, whole, url, biggest, 3)
    went_on = _check(whole, url, "--shares", "3", "--parts", biggest)
    assert went_on.exit_code == 0, went_on.output
    for k in (1, 2, 3):
        assert f"{biggest} share {k}/3, " in went_on.stderr
    assert went_on.stderr.count(f"going on from guess {kept['search']['done']})") == 3
    record = records.load(whole)[spec]["check"]
    assert record["parts"][biggest]["value"] == values[biggest] and record["parts"][biggest]["shares"] == 3
    assert record["parts"][biggest]["seconds"] >= kept["seconds"] and "searching" not in record


def test_records_check_refuses_a_game_with_nothing_to_check(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from service.cli import main

    for extra in ([], ["--status"]):
        result = CliRunner().invoke(main, ["records", "check", "-g", "5,10,0", "--file", str(tmp_path / "r.json"),
                                           *extra])
        assert result.exit_code == 2 and "says how this project can check it" in result.output
    assert not (tmp_path / "r.json").exists()


def test_records_compare_names_where_another_strategy_parts_from_the_shipped_tree(small_records: str,
                                                                                tmp_path: Path) -> None:
    """``records compare`` reads another strategy's game lengths and reports the positions where it parts from
    the shipped tree, with the guesses the other really plays there and a ``--play`` text to try it; a
    malformed lengths file is refused with its line, and nothing is written."""
    from click.testing import CliRunner

    from service.cli import main
    from solver.heuristics import STRATEGIES
    from solver.tree import build_tree, solved_depths, strategy_chooser

    path, folder = str(tmp_path / "records.json"), tmp_path / "trees"
    folder.mkdir()
    records_keeping.add_hybrid(SMALL, "entropy", 1, path=path, folder=str(folder))
    game = Game.from_spec(SMALL)
    stored = TreeLibrary(str(folder)).get(game, BEST_KNOWN, None)
    assert stored is not None
    tree = stored.tree
    other = build_tree(game, strategy_chooser(game, STRATEGIES["first-consistent"]()), first=tree.root.guess)
    steps = solved_depths(other)
    assert int(steps.sum()) != tree.stats().total
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("".join(f"{game.format_code(c)} {steps[c]}\n" for c in range(game.size)))
    args = ["records", "compare", "-g", SMALL, "--steps", str(lengths), "--trees", str(folder), "--depth", "4",
            "--json"]
    ran = CliRunner().invoke(main, args)
    assert ran.exit_code == 0, ran.output
    doc = json.loads(ran.output)
    assert doc["theirs"]["total"] == int(steps.sum()) and doc["ours"]["total"] == tree.stats().total
    assert doc["positions"]
    for row in doc["positions"]:
        node = other.node_at(game.parse_history(row["position"]))
        assert node is not None and game.format_code(node.guess) in row["their_guesses"]
        if "play" in row:
            assert row["play"] == f"{row['position']}: {row['their_guesses'][0]}" and not row["same_guess"]
    before = sorted(p.name for p in folder.iterdir()), Path(path).read_text()
    text = lengths.read_text().splitlines()
    lengths.write_text("\n".join([*text, text[3]]) + "\n")
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and f"line {len(text) + 1}: {text[3].split()[0]} is given twice" in refused.output
    assert (sorted(p.name for p in folder.iterdir()), Path(path).read_text()) == before
