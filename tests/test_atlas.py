"""The atlas: its numbers against a plain exhaustive search, its shipped file against itself and against the
published figures, and its bounds when searches are cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service import atlas, atlas_keeping
from service.cli import main as cli
from solver.atlas import NAMES, Value, atlas_games, solve_game
from solver.game import DEFAULT_ALPHABET, Game
from solver.question import SolveOptions, SolveResult
from solver.search import Searcher
from solver.vocabulary import BEST_KNOWN
from tests import reference

SHIPPED = atlas.load()


def reference_numbers(game: Game) -> dict[str, int]:
    """The five numbers by :func:`tests.reference.exhaustive`: every guess, no pruning, no kernels."""
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, DEFAULT_ALPHABET)
    cands = tuple(codes)
    memo: dict[tuple[object, ...], float] = {}
    total = int(reference.exhaustive(codes, cands, None, "total", memo=memo))
    within: dict[int, float] = {}
    k = 1
    while not within or within[max(within)] != total:
        within[k] = reference.exhaustive(codes, cands, k, "total", memo=memo)
        k += 1
    worst = min(k for k, v in within.items() if v != reference.INF)
    return {"total": total, "worst_case": worst, "total_within_worst_case": int(within[worst]),
            "total_depth": min(k for k, v in within.items() if v == total),
            "worst_case_movers": int(reference.exhaustive(codes, cands, worst, "kmovers", memo=memo))}


def fresh(game: Game) -> dict[str, Value]:
    """The five numbers by the exact search, from an empty table."""
    def search(options: SolveOptions, seconds: float) -> SolveResult:
        return Searcher(game, options).solve_within((), seconds)

    return solve_game(game, search, 60.0)


def test_the_atlas_has_the_69_games_smallest_first() -> None:
    games = atlas_games()
    assert len(games) == 69 and len({g.spec for g in games}) == 69
    assert all(g.size <= 8192 and 2 <= g.positions <= 8 and 2 <= g.symbols <= 10 for g in games)
    assert [g.size for g in games] == sorted(g.size for g in games)
    assert {"4,6,1", "4,10,0", "4,7,1", "5,6,1"} <= {g.spec for g in games}


SMALL = [g for g in atlas_games() if g.size <= 16]
LARGER = [g for g in atlas_games() if 16 < g.size <= 36]


def _check_against_reference(game: Game) -> None:
    expected = reference_numbers(game)
    searched = fresh(game)
    assert {k: v.value for k, v in searched.items()} == expected
    assert all(v.exact for v in searched.values())
    entry = SHIPPED[game.spec]
    assert {k: entry["values"][k]["value"] for k in NAMES} == expected


@pytest.mark.parametrize("game", SMALL, ids=lambda g: g.spec)
def test_small_games_agree_with_the_exhaustive_reference(game: Game) -> None:
    _check_against_reference(game)


@pytest.mark.slow  # the reference is plain Python: seconds per game
@pytest.mark.parametrize("game", LARGER, ids=lambda g: g.spec)
def test_larger_games_agree_with_the_exhaustive_reference(game: Game) -> None:
    _check_against_reference(game)


def test_every_shipped_entry_is_consistent() -> None:
    """Bounds bracket, and the numbers obey what they mean: T <= T_W, W <= D, T_W = T exactly when D = W,
    one secret takes one guess and every other at least two, and W-movers exist."""
    assert SHIPPED, "service/data/atlas.json is empty"
    games = {g.spec: g for g in atlas_games()}
    for spec, e in SHIPPED.items():
        assert spec in games and e["codes"] == games[spec].size
        v = e["values"]
        for name in NAMES:
            n = v[name]
            assert n["upper"] is None or n["lower"] <= n["upper"], (spec, name)
            assert n["exact"] == (n["upper"] is not None and n["lower"] == n["upper"]), (spec, name)
            assert n["value"] == (n["lower"] if n["exact"] else None), (spec, name)
        assert v["total"]["lower"] >= 2 * e["codes"] - 1
        assert v["worst_case"]["lower"] <= v["total_depth"]["lower"]
        assert v["total"]["lower"] <= v["total_within_worst_case"]["lower"]
        if all(v[n]["exact"] for n in NAMES):
            assert (v["total_within_worst_case"]["value"] == v["total"]["value"]) == (
                v["total_depth"]["value"] == v["worst_case"]["value"]), spec
            assert 1 <= v["worst_case_movers"]["value"] <= e["codes"]


def test_the_shipped_mastermind_entry_is_the_published_one(published: dict[str, Any]) -> None:
    mm = SHIPPED["4,6,1"]["values"]
    total = published["min_total"]["mastermind"]
    assert (mm["total"]["value"], mm["total_within_worst_case"]["value"]) == (
        total["optimum_total_unlimited"], total["optimum_total_at_most_5_guesses"])
    assert mm["worst_case"]["value"] == published["worst_case"]["mastermind"]
    assert mm["worst_case_movers"]["value"] == published["min_kmovers"]["mastermind"]["optimum"]
    assert mm["total_depth"]["value"] == 6  # 5625 needs a sixth guess somewhere: 5626 is the best within 5


@pytest.mark.slow  # seconds: the whole Mastermind entry searched again
def test_the_atlas_recomputes_mastermind(published: dict[str, Any]) -> None:
    entry = atlas_keeping.compute("4,6,1", 120.0, None)
    numbers = {k: entry["values"][k]["value"] for k in NAMES}
    assert numbers == {k: SHIPPED["4,6,1"]["values"][k]["value"] for k in NAMES}
    assert numbers["total"] == published["min_total"]["mastermind"]["optimum_total_unlimited"]


def test_cut_searches_leave_bounds_that_bracket_the_truth() -> None:
    """With every search cut, each number is bracketed by proven bounds; with only the movers cut, the rest
    is exact and the movers bracketed."""
    game = Game(3, 3, True)
    truth = reference_numbers(game)
    searcher = Searcher(game, SolveOptions("total"))

    def cut_all(options: SolveOptions, seconds: float) -> SolveResult:
        return searcher.solve((), options=SolveOptions(options.criterion, options.max_guesses, node_limit=1))

    for bound in (None, lambda k: searcher.lower_bound(game.size, 1, k)):  # trivial, or the searcher's own
        bounded = solve_game(game, cut_all, 1.0, bound=bound)
        assert not any(v.exact for v in bounded.values())
        for name, v in bounded.items():
            assert v.lower <= truth[name] and (v.upper is None or truth[name] <= v.upper), (name, v)
    assert bounded["total"].lower > 2 * game.size - 1  # the searcher's bound is the stronger one

    def cut_movers(options: SolveOptions, seconds: float) -> SolveResult:
        limit = 1 if options.criterion == "kmovers" else 0
        return Searcher(game, options).solve((), options=SolveOptions(options.criterion, options.max_guesses,
                                                                      node_limit=limit))

    partly = solve_game(game, cut_movers, 1.0)
    assert {k: v.value for k, v in partly.items() if k != "worst_case_movers"} == {
        k: truth[k] for k in NAMES if k != "worst_case_movers"}
    movers = partly["worst_case_movers"]
    assert movers.lower <= truth["worst_case_movers"] <= (movers.upper or 0)
    # here a one-step tree within W has a single W-mover, which proves the movers' value with no search
    assert movers.exact and movers.upper == 1 and movers.nodes == 0


def test_a_known_strategy_spares_the_searches_past_its_depth() -> None:
    """A witness (total, worst case) of a strategy that exists settles T_k = T from its depth on, once T is
    proven equal to its total: the searches stop there, and the numbers are still the reference's.  A
    witness whose total is not T proves nothing and changes nothing."""
    game = Game(3, 3, True)
    truth = reference_numbers(game)
    for witness, searched_to in (((truth["total"], truth["total_depth"]), truth["total_depth"] - 1),
                                 ((truth["total"] + 1, truth["worst_case"]), truth["total_depth"])):
        asked: list[int | None] = []

        def search(options: SolveOptions, seconds: float, asked: list[int | None] = asked) -> SolveResult:
            if options.criterion == "total":
                asked.append(options.max_guesses)
            return Searcher(game, options).solve_within((), seconds)

        numbers = solve_game(game, search, 60.0, witness=witness)
        assert {k: v.value for k, v in numbers.items()} == truth
        assert max(k for k in asked if k is not None) == searched_to, witness


def test_the_shipped_bulls_and_cows_entry_is_the_published_one(published: dict[str, Any]) -> None:
    """Bulls-and-Cows comes from its campaigns' proofs (the shipped knowledge warms the atlas's searches,
    and the optimal-total tree is the witness of T_7 = T); W = 7 is the atlas's own search."""
    bc = SHIPPED["4,10,0"]
    values = {k: bc["values"][k]["value"] for k in NAMES}
    assert values["total"] == published["min_total"]["bulls-cows"]["optimum_total"]
    assert values["worst_case"] == values["total_depth"] == 7
    assert values["total_within_worst_case"] == values["total"]
    assert values["worst_case_movers"] == published["min_kmovers"]["bulls-cows"]["optimum"]
    assert any(s.startswith("knowledge total") for s in bc["sources"])


def test_a_run_keeps_finished_games_and_resumes_bounded_ones(tmp_path: Path) -> None:
    """``atlas run`` computes, as a job of one unit per game, only the games the file has not finished, each from
    its entry there, and writes each entry to the file; a run with nothing left asks no job."""
    path = str(tmp_path / "atlas.json")
    done = atlas_keeping.compute("2,2,0", 10.0, None)
    done["seconds"] = 12345.0  # a mark: a finished game is not computed again
    bounded = atlas_keeping.compute("2,2,1", 10.0, None)
    bounded["values"]["total"] = Value(7, 9).as_dict()
    atlas_keeping.save({"2,2,0": done, "2,2,1": bounded}, path)
    assert not atlas.finished(atlas.load(path)["2,2,1"])
    args = ["atlas", "run", "-g", "2,2,0", "-g", "2,2,1", "--budget", "10", "--file", path, "--url",
            f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    ran = CliRunner().invoke(cli, args)
    assert ran.exit_code == 0, ran.output
    assert "1 game to compute" in ran.stderr and "2,2,1 (4 codes, " in ran.stderr
    out = atlas.load(path)
    assert out["2,2,0"]["seconds"] == 12345.0
    assert atlas.finished(out["2,2,1"]) and out["2,2,1"]["values"]["total"]["value"] == 8
    assert Path(path).stat().st_mode & 0o444 == 0o444  # shipped as package data: readable by every user
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0 and "has every one of these 2 games finished already" in again.stderr
    assert "(submitted)" not in again.stderr and atlas.load(path) == out


def test_the_atlas_commands(tmp_path: Path) -> None:
    path = str(tmp_path / "atlas.json")
    runner = CliRunner()
    ran = runner.invoke(cli, ["atlas", "run", "-g", "2,3,1", "-g", "3,2,1", "--budget", "10", "--file", path,
                              "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"])
    assert ran.exit_code == 0, ran.output
    shown = runner.invoke(cli, ["atlas", "show", "--file", path])
    assert shown.exit_code == 0 and "2,3,1" in shown.output and "3,2,1" in shown.output
    table = runner.invoke(cli, ["atlas", "show", "--markdown", "--file", path])
    assert table.output.count("\n") == 4 and "| 3,2,1 | 3 | 2 | yes | 8 | 18 |" in table.output
    with open(path, encoding="utf-8") as fh:
        assert [e["game"] for e in json.load(fh)["games"]] == ["3,2,1", "2,3,1"]  # smallest first
    bad = runner.invoke(cli, ["atlas", "run", "-g", "5,10,0", "--file", path])
    assert bad.exit_code == 2 and "not atlas games" in bad.output
    empty = runner.invoke(cli, ["atlas", "show", "--file", str(tmp_path / "none.json")])
    assert empty.exit_code == 2 and "empty" in empty.output


def test_the_one_step_command_restores_an_entrys_upper_bounds(tmp_path: Path) -> None:
    """An entry of 7×7 without its one-step trees, and with no upper bounds of T_W and the W-movers: the
    command builds the trees again and proves the shipped bounds, and leaves the other entries alone."""
    path = tmp_path / "atlas.json"
    entries = {spec: json.loads(json.dumps(SHIPPED[spec])) for spec in ("3,3,1", "7,7,0")}
    stripped = entries["7,7,0"]
    del stripped["one_step"]
    for name in ("total_within_worst_case", "worst_case_movers"):
        stripped["values"][name].update(upper=None, exact=False, value=None)
    atlas_keeping.save(entries, str(path))
    runner = CliRunner()
    ran = runner.invoke(cli, ["atlas", "one-step", "--file", str(path)])
    assert ran.exit_code == 0 and "1 entries" in ran.output, ran.output
    again = atlas.load(str(path))
    assert again["7,7,0"]["one_step"] == SHIPPED["7,7,0"]["one_step"]
    assert again["7,7,0"]["values"] == SHIPPED["7,7,0"]["values"]
    assert again["3,3,1"] == SHIPPED["3,3,1"]
    bad = runner.invoke(cli, ["atlas", "one-step", "-g", "5,5,0", "--file", str(path)])
    assert bad.exit_code == 2 and "not in the atlas file: 5,5,0" in bad.output


LITERATURE = json.loads((Path(__file__).parent / "data" / "literature.json").read_text(encoding="utf-8"))


def test_the_atlas_agrees_with_the_literature() -> None:
    """Every published value for a game the atlas has computed: worst cases (Knuth; Jäger and Peczarski's
    formula for 3 positions) and averages (Koyama and Lai; Ville, to the 3 decimals published; the
    arfst23 table, whose 4×8 rows give both the optimum, which needs 7 guesses, and the optimum within 6)."""
    checked = 0
    for item in LITERATURE["worst_case"]:
        if "formula" in item:
            games = [g for g in atlas_games() if g.positions == item["positions"] and g.repetition
                     and g.symbols >= item["symbols_from"]]
            expected = {g.spec: (g.symbols - 1) // 3 + 4 for g in games}
        else:
            expected = {item["game"]: item["worst_case"]}
        for spec, worst in expected.items():
            if spec in SHIPPED and SHIPPED[spec]["values"]["worst_case"]["exact"]:
                assert SHIPPED[spec]["values"]["worst_case"]["value"] == worst, (spec, item["source"])
                checked += 1
    for item in LITERATURE["mastermind_average"]:
        entry = SHIPPED.get(item["game"])
        if entry is None:
            continue
        values = entry["values"]
        # no limit: the optimal total T; the optimum within the fewest guesses at worst: T_W
        limit = item.get("max_guesses")
        if limit is None:
            number = values["total"]
        elif values["worst_case"]["exact"] and values["worst_case"]["value"] == limit:
            number = values["total_within_worst_case"]
        else:
            continue
        if number["exact"]:
            average = number["value"] / entry["codes"]
            decimals = len(str(item["average"]).split(".")[1])
            assert round(average, decimals) == item["average"], (item["game"], average, item["source"])
            checked += 1
    assert checked >= 10


def test_two_position_bulls_and_cows_follows_chen_and_lin() -> None:
    """Chen and Lin's closed forms for the 2×n AB game (Bulls-and-Cows with two positions): the optimal
    total and the worst case of every such game in the atlas, n = 2..10."""
    item = LITERATURE["two_position_ab_game"]
    games = [g for g in atlas_games() if g.positions == item["positions"] and g.repetition == item["repetition"]]
    assert len(games) == 9
    for g in games:
        n = g.symbols
        total = (4 * n**3 + 21 * n**2 - 76 * n + 72) if n % 2 == 0 else (4 * n**3 + 21 * n**2 - 82 * n + 105)
        assert total % 12 == 0
        values = SHIPPED[g.spec]["values"]
        assert values["total"]["value"] == total // 12, (g.spec, item["source"])
        assert values["worst_case"]["value"] == -(-n // 2) + 1, (g.spec, item["source"])


def test_the_atlas_page_shows_the_shipped_atlas() -> None:
    """docs/atlas.md's table is `bullscows atlas show --markdown` of the shipped file (scripts/atlas_report.py
    redraws it): the page never shows numbers the package does not have."""
    page = (Path(__file__).parents[1] / "docs" / "atlas.md").read_text(encoding="utf-8")
    begin, end = "<!-- atlas table: begin (scripts/atlas_report.py) -->", "<!-- atlas table: end -->"
    shown = page.split(begin, 1)[1].split(end, 1)[0].strip()
    printed = CliRunner().invoke(cli, ["atlas", "show", "--markdown"])
    assert printed.exit_code == 0
    assert shown == printed.output.strip()


def test_every_solved_game_ships_its_two_trees() -> None:
    """Each game whose numbers are all exact has its optimal-total tree and its fewest-W-movers tree in
    the package (the atlas's own, or a preset's from its campaigns), so next-move answers it at once."""
    from service.trees import read_manifest

    manifest = read_manifest()
    for spec, e in SHIPPED.items():
        if atlas.finished(e):
            total, movers = manifest.get((spec, "optimal-total")), manifest.get((spec, "optimal-kmovers"))
            assert total is not None and movers is not None, spec
            assert total["total"] == e["values"]["total"]["value"], spec
            assert movers["max_guesses"] == e["values"]["worst_case"]["value"], spec
            assert movers["histogram"][str(movers["max_guesses"])] == e["values"]["worst_case_movers"]["value"]


def _atlas_trees() -> list[tuple[str, str]]:
    from service.trees import read_manifest

    return sorted(key for key, meta in read_manifest().items() if meta.get("source") == "atlas")


@pytest.mark.parametrize("key", _atlas_trees(), ids=lambda k: f"{k[0]}-{k[1]}")
def test_atlas_trees_play_every_secret_to_the_atlas_numbers(key: tuple[str, str]) -> None:
    _play_atlas_tree(key)


def _play_atlas_tree(key: tuple[str, str]) -> None:
    """A shipped atlas tree, loaded (verified against its game), solves every secret, and its total (or
    its count of W-movers, within W) is the atlas's number."""
    from service.trees import TreeLibrary

    spec, strategy = key
    game = Game.from_spec(spec)
    values = SHIPPED[spec]["values"]
    worst = values["worst_case"]["value"]
    stored = TreeLibrary().get(game, strategy, worst if strategy == "optimal-kmovers" else None)
    assert stored is not None
    lengths = [len(stored.tree.play(secret)) for secret in range(game.size)]
    if strategy == "optimal-total":
        assert sum(lengths) == stored.meta["total"] == values["total"]["value"]
    else:
        assert max(lengths) == worst and lengths.count(worst) == values["worst_case_movers"]["value"]


def test_a_depth_past_the_worst_case_is_found_under_a_bound() -> None:
    """Bulls-and-Cows with 3 digits needs a seventh guess to reach its optimal total, one more than its
    worst case: past W the search only asks whether T_k reaches T (pruning at T + 1), and still finds the
    numbers that full searches of every k found for the shipped file."""
    entry = atlas_keeping.compute("3,10,0", 120.0, None)
    numbers = {k: entry["values"][k]["value"] for k in NAMES}
    assert numbers["total_depth"] == numbers["worst_case"] + 1
    assert numbers == {k: SHIPPED["3,10,0"]["values"][k]["value"] for k in NAMES}


def test_one_step_trees_bound_every_exact_entry_from_above() -> None:
    """The one-step trees are strategies: on every solved game none beats an optimum, a tree within W has at
    least the W-movers, and tightening by them changes no exact number.  Their numbers are built again here
    for the games up to 1296 codes, not read back."""
    from solver.atlas import OneStep, one_step_trees, tighten

    for spec, e in SHIPPED.items():
        v = e["values"]
        if not all(v[n]["exact"] for n in NAMES):
            continue
        trees = {name: OneStep(**t) for name, t in e["one_step"].items()}
        if e["codes"] <= 1296:
            assert one_step_trees(Game.from_spec(spec)) == trees, spec
        w = v["worst_case"]["value"]
        for name, t in trees.items():
            assert t.total >= v["total"]["value"] and t.worst_case >= w, (spec, name)
            assert t.worst_case > w or (t.total >= v["total_within_worst_case"]["value"]
                                        and t.movers >= v["worst_case_movers"]["value"]), (spec, name)
        values = {n: Value.from_dict(v[n]) for n in NAMES}
        assert tighten(values, trees) == values, spec


def test_tightening_lowers_only_the_upper_bounds_a_tree_proves() -> None:
    from solver.atlas import OneStep, tighten

    open_ = {"total": Value(100, 140), "worst_case": Value(6, 6), "total_within_worst_case": Value(100, None),
             "total_depth": Value(6, None), "worst_case_movers": Value(1, 50)}
    trees = {"a": OneStep(130, 7, 3), "b": OneStep(135, 6, 20), "c": OneStep(138, 6, 9)}
    got = tighten(open_, trees)
    assert got["total"] == Value(100, 130)  # the best total, whatever its worst case
    assert got["total_within_worst_case"] == Value(100, 135)  # only the trees within W = 6
    assert got["worst_case_movers"] == Value(1, 9)
    assert got["worst_case"] == open_["worst_case"] and got["total_depth"] == open_["total_depth"]
    # W not proven: nothing about T_W or the movers follows; an upper bound never goes below the lower
    unsure = {**open_, "worst_case": Value(5, 7)}
    assert tighten(unsure, trees)["total_within_worst_case"] == Value(100, None)
    assert tighten(unsure, trees)["worst_case"] == Value(5, 6)
    assert tighten({**open_, "total": Value(132, 140)}, trees)["total"] == Value(132, 132)


def test_every_open_entry_carries_its_best_known_tree() -> None:
    """Each unsolved game's upper bounds are what its one-step trees prove, and its best known strategy
    (served with the entry) is the one of the fewest guesses; built again here for one of them."""
    from solver.atlas import OneStep, one_step_trees, tighten

    open_specs = [s for s, e in SHIPPED.items() if not atlas.finished(e)]
    assert open_specs
    for spec in open_specs:
        e = SHIPPED[spec]
        trees = {name: OneStep(**t) for name, t in e["one_step"].items()}
        values = {n: Value.from_dict(e["values"][n]) for n in NAMES}
        trees.update(atlas_keeping.played_hybrid(e.get("hybrid")))
        assert tighten(values, trees) == values, spec  # nothing left to lower
        best = atlas.best_known(e)
        assert best is not None
        assert best["total"] == e["values"]["total"]["upper"] == min(t.total for t in trees.values())
        assert (best["strategy"] == BEST_KNOWN) == ("hybrid" in e)
    assert one_step_trees(Game.from_spec("7,7,0"))["minimax"] == OneStep(**SHIPPED["7,7,0"]["one_step"]["minimax"])


def test_a_hybrid_plays_one_step_above_its_size_and_the_optimum_below() -> None:
    """4 of 3 with repeats (81 codes, T proven): exact nowhere, it is the one-step tree; exact everywhere, the
    optimum; in between, between the two, every secret played."""
    from solver.atlas import hybrid_tree

    game = Game.from_spec("4,3,1")
    optimum = SHIPPED["4,3,1"]["values"]["total"]["value"]
    one_step = SHIPPED["4,3,1"]["one_step"]["minimax"]["total"]
    assert hybrid_tree(game, "minimax", 1).stats().total == one_step
    assert hybrid_tree(game, "minimax", game.size).stats().total == optimum
    middle = hybrid_tree(game, "minimax", 8)
    assert optimum <= middle.stats().total <= one_step
    assert sum(len(middle.play(secret)) for secret in range(game.size)) == middle.stats().total


def test_the_hybrid_command_ships_a_tree_and_can_close_a_bracket(tmp_path: Path) -> None:
    """An entry of 4×3 with repeats made unsolved (its total's upper bound the one-step trees', its tree not
    shipped): a hybrid exact everywhere is the optimum, so the command closes the bracket, ships the tree
    as best-known, and the entry serves it; a worse hybrid afterwards is not kept."""
    path = tmp_path / "atlas.json"
    folder = tmp_path / "trees"
    folder.mkdir()
    entry = json.loads(json.dumps(SHIPPED["4,3,1"]))
    optimum = entry["values"]["total"]["value"]
    upper = min(t["total"] for t in entry["one_step"].values())
    entry["values"]["total"].update(exact=False, value=None, upper=upper)
    atlas_keeping.save({"4,3,1": entry}, str(path))
    runner = CliRunner()
    ran = runner.invoke(cli, ["atlas", "hybrid", "-g", "4,3,1", "--exact-at-most", "81", "--file", str(path),
                              "--trees", str(folder)])
    assert ran.exit_code == 0, ran.output
    got = atlas.load(str(path))["4,3,1"]
    assert got["values"]["total"] == {**entry["values"]["total"], "exact": True, "value": optimum, "upper": optimum}
    assert got["hybrid"]["total"] == optimum and got["hybrid"]["tree"] == "4-3-1-best-known.tree"
    from service.trees import TreeLibrary

    stored = TreeLibrary(str(folder)).get(Game.from_spec("4,3,1"), BEST_KNOWN, None)
    assert stored is not None and stored.meta["exact"] is False and stored.meta["source"] == "hybrid"
    assert stored.tree.stats().total == optimum
    worse = runner.invoke(cli, ["atlas", "hybrid", "-g", "4,3,1", "--exact-at-most", "1", "--file", str(path),
                                "--trees", str(folder)])
    assert worse.exit_code == 2 and "not an unsolved atlas game" in worse.output  # solved now: nothing to do
    bad = runner.invoke(cli, ["atlas", "hybrid", "-g", "4,3,1", "--strategy", "nope", "--file", str(path)])
    assert bad.exit_code == 2 and "unknown one-step strategy" in bad.output


def test_the_hybrid_command_rolls_out_when_asked(tmp_path: Path) -> None:
    """`atlas hybrid --rollout-width`: the rolled-out tree is kept when it beats the plain hybrid, lies between
    the optimum and that hybrid, and records how it was rolled out (served under best_known.hybrid)."""
    from solver.atlas import hybrid_tree

    path, folder = tmp_path / "atlas.json", tmp_path / "trees"
    folder.mkdir()
    entry = json.loads(json.dumps(SHIPPED["4,3,1"]))
    optimum = entry["values"]["total"]["value"]
    entry["values"]["total"].update(exact=False, value=None, upper=min(t["total"] for t in entry["one_step"].values()))
    atlas_keeping.save({"4,3,1": entry}, str(path))
    plain = hybrid_tree(Game.from_spec("4,3,1"), "entropy", 3).stats().total
    progress = tmp_path / "campaign.json"
    args = ["atlas", "hybrid", "-g", "4,3,1", "--strategy", "entropy", "--exact-at-most", "3", "--rollout-width", "3",
            "--file", str(path), "--trees", str(folder), "--progress", str(progress),
            "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"]
    stopped = CliRunner().invoke(cli, [*args, "--max-units", "2"])
    assert stopped.exit_code == 0 and "run the same command again" in stopped.output
    assert "hybrid" not in atlas.load(str(path))["4,3,1"]  # nothing claimed before every unit is done
    ran = CliRunner().invoke(cli, args)
    assert ran.exit_code == 0, ran.output
    got = atlas.load(str(path))["4,3,1"]
    assert optimum <= got["hybrid"]["total"] <= plain
    assert got["hybrid"]["rollout"] == {"width": 3, "from_turn": 1, "levels": 3, "min_size": 3, "max_guesses": None}
    assert got["hybrid"]["campaign"]["progress"] == str(progress) and got["hybrid"]["campaign"]["units"] > 2
    assert json.loads(progress.read_text())["finished"]["total"] == got["hybrid"]["total"]
    assert "--rollout-width 3" in got["hybrid"]["command"]
    assert atlas.best_known(got) is None or atlas.best_known(got)["hybrid"]["rollout"]["width"] == 3


def _hybrid_entries() -> list[str]:
    return sorted(spec for spec, e in SHIPPED.items() if "hybrid" in e)


@pytest.mark.parametrize("spec", _hybrid_entries())
def test_shipped_hybrid_trees_play_every_secret_to_their_record(spec: str) -> None:
    from service.trees import TreeLibrary

    record = SHIPPED[spec]["hybrid"]
    game = Game.from_spec(spec)
    stored = TreeLibrary().get(game, BEST_KNOWN, None)
    assert stored is not None and stored.meta["exact"] is False
    lengths = [len(stored.tree.play(secret)) for secret in range(game.size)]
    assert sum(lengths) == record["total"] == stored.meta["total"]
    assert max(lengths) == record["worst_case"] and lengths.count(record["worst_case"]) == record["movers"]
    assert record["total"] < min(t["total"] for t in SHIPPED[spec]["one_step"].values())


def test_the_bounds_command_raises_lower_bounds_and_keeps_them_in_a_table(tmp_path: Path) -> None:
    """`atlas bounds` proves T >= a refined bound for an unsolved game (below its upper bound, above the
    size-only one), raises T and T_W with it and records how; a shallower run changes nothing; with
    --url the root parts' bounds go to the positions table, and the next run starts from them."""
    path = tmp_path / "atlas.json"
    entries = {spec: json.loads(json.dumps(SHIPPED[spec])) for spec in ("3,3,1", "6,7,0")}
    entry = entries["6,7,0"]
    entry.pop("lower_bound", None)
    size_only = 23590  # the level-fill bound of 5040 codes and 11 non-winning responses
    for name in ("total", "total_within_worst_case"):
        entry["values"][name]["lower"] = size_only
    atlas_keeping.save(entries, str(path))
    url = f"sqlite:///{tmp_path / 'table.sqlite3'}"
    runner = CliRunner()
    ran = runner.invoke(cli, ["atlas", "bounds", "-g", "6,7,0", "--depth", "2", "--file", str(path), "--url", url,
                              "--json"])
    assert ran.exit_code == 0, ran.output
    record = json.loads(ran.output.strip().splitlines()[-1])
    got = atlas.load(str(path))["6,7,0"]
    assert size_only == record["size_only"] < record["value"] == got["values"]["total"]["lower"]
    assert got["values"]["total_within_worst_case"]["lower"] == record["value"]
    assert record["value"] <= got["values"]["total"]["upper"]
    assert got["lower_bound"]["command"] == "bullscows atlas bounds -g 6,7,0 --depth 2"
    assert "root parts' bounds kept" in ran.output
    from service.store.db import Database
    from service.store.positions import PositionStore

    stored = PositionStore(Database(url)).load_entries(SolveOptions("total").table_key(Game.from_spec("6,7,0")))
    assert stored and all(not e.exact and e.m == 64 and e.turn == 2 for e in stored)
    shallow = runner.invoke(cli, ["atlas", "bounds", "-g", "6,7,0", "--depth", "1", "--file", str(path)])
    assert shallow.exit_code == 0
    assert atlas.load(str(path))["6,7,0"] == got  # a weaker bound is not kept
    # from the table, one ply already knows what two plies proved of each part
    table_run = runner.invoke(cli, ["atlas", "bounds", "-g", "6,7,0", "--depth", "1", "--file", str(path),
                                    "--url", url, "--json"])
    assert json.loads(table_run.output.strip().splitlines()[-1])["value"] == record["value"]
    solved = runner.invoke(cli, ["atlas", "bounds", "-g", "3,3,1", "--file", str(path)])
    assert solved.exit_code == 2 and "unproven total" in solved.output


def test_a_bound_asked_for_a_target_records_it(tmp_path: Path) -> None:
    """`atlas bounds --target` proves T reaches the target (not more is asked), raises T to it, and
    says so in its record and command; a target is one game's, so two games with one are refused."""
    path = tmp_path / "atlas.json"
    entry = json.loads(json.dumps(SHIPPED["4,3,1"]))
    truth = entry["values"]["total"]["value"]
    entry["values"]["total"].update(exact=False, value=None, lower=truth - 40, upper=truth + 10)
    atlas_keeping.save({"4,3,1": entry, "3,3,1": json.loads(json.dumps(SHIPPED["3,3,1"]))}, str(path))
    runner = CliRunner()
    ran = runner.invoke(cli, ["atlas", "bounds", "-g", "4,3,1", "--depth", "3", "--target", str(truth - 3),
                              "--file", str(path), "--json"])
    assert ran.exit_code == 0, ran.output
    record = json.loads(ran.output.strip().splitlines()[-1])
    assert truth - 3 <= record["value"] <= truth and record["target"] == truth - 3
    got = atlas.load(str(path))["4,3,1"]
    assert got["values"]["total"]["lower"] == record["value"]
    assert got["lower_bound"]["command"] == f"bullscows atlas bounds -g 4,3,1 --depth 3 --target {truth - 3}"
    two = runner.invoke(cli, ["atlas", "bounds", "--target", "100", "--file", str(path)])
    assert two.exit_code == 2 and "exactly one game" in two.output


def test_a_lower_bound_past_an_upper_one_is_refused() -> None:
    from solver.atlas import raise_lower

    values = {k: Value.from_dict(v) for k, v in SHIPPED["6,7,0"]["values"].items()}
    raised = raise_lower(values, values["total"].lower + 1)
    assert raised["total"].lower == raised["total_within_worst_case"].lower == values["total"].lower + 1
    assert raised["worst_case"] == values["worst_case"]
    with pytest.raises(ValueError, match="passes"):
        raise_lower(values, int(values["total"].upper or 0) + 1)


def test_a_hybrid_finishing_keeps_what_another_run_wrote_meanwhile(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two long commands on one atlas file (two games, two cores): the one that finishes last re-reads the
    file as it keeps its own, so the other's result is not overwritten by the copy it read when it started."""
    from solver import atlas as solver_atlas

    path, folder = tmp_path / "atlas.json", tmp_path / "trees"
    folder.mkdir()
    entry = json.loads(json.dumps(SHIPPED["4,3,1"]))
    entry["values"]["total"].update(exact=False, value=None, upper=min(t["total"] for t in entry["one_step"].values()))
    other = json.loads(json.dumps(SHIPPED["3,3,1"]))
    atlas_keeping.save({"4,3,1": entry, "3,3,1": other}, str(path))

    def meanwhile(game: Game, strategy: str, exact_at_most: int, **kwargs: Any) -> object:
        entries = atlas.load(str(path))  # another run finishes while this one computes
        entries["3,3,1"]["hybrid"] = {"written": "by the other run"}
        atlas_keeping.save(entries, str(path))
        return solver_atlas.hybrid_tree(game, strategy, exact_at_most, **kwargs)

    monkeypatch.setattr(atlas_keeping, "hybrid_tree", meanwhile)
    record = atlas_keeping.add_hybrid("4,3,1", 81, "entropy", path=str(path), folder=str(folder))
    got = atlas.load(str(path))
    assert record is not None and got["4,3,1"]["hybrid"]["total"] == record["total"]
    assert got["3,3,1"]["hybrid"] == {"written": "by the other run"}


def test_the_hybrid_command_keeps_to_a_worst_case_when_asked(tmp_path: Path) -> None:
    """4 of 4 symbols without repetition: W = 5.  The entropy hybrid exact at 5 candidates needs 6 guesses for some
    secrets; with --max-guesses 5 its tree keeps every secret within 4, so it bounds T_W as well (recorded and in the
    command)."""
    from solver.atlas import hybrid_tree

    game = Game.from_spec("4,4,0")
    entry = json.loads(json.dumps(SHIPPED["4,4,0"]))
    w = entry["values"]["worst_case"]["value"]
    loose = hybrid_tree(game, "entropy", 5).stats()
    assert loose.worst_case > w
    within = hybrid_tree(game, "entropy", 5, max_guesses=w).stats()
    assert within.worst_case == w and within.total >= entry["values"]["total_within_worst_case"]["value"]
    path, folder = tmp_path / "atlas.json", tmp_path / "trees"
    folder.mkdir()
    for tree in entry["one_step"].values():  # a stand-in entry whose known trees are worse than this hybrid
        tree["total"] = max(tree["total"], within.total + 1)
    entry["values"]["total"].update(exact=False, value=None, upper=within.total + 1)
    atlas_keeping.save({"4,4,0": entry}, str(path))
    ran = CliRunner().invoke(cli, ["atlas", "hybrid", "-g", "4,4,0", "--strategy", "entropy", "--exact-at-most", "5",
                                   "--max-guesses", str(w), "--file", str(path), "--trees", str(folder)])
    assert ran.exit_code == 0, ran.output
    got = atlas.load(str(path))["4,4,0"]["hybrid"]
    assert (got["total"], got["worst_case"], got["max_guesses"]) == (within.total, w, w)
    assert f"--max-guesses {w}" in got["command"]


def test_the_polish_command_lowers_a_best_known_tree(tmp_path: Path) -> None:
    """4x3 with repetition made unsolved, with a weak hybrid shipped (exact at 2 candidates): polished from 3
    candidates up to the whole game, its tree is the optimum; the record chains both commands and says what the
    polish did; a game without a best-known tree is refused."""
    path, folder = tmp_path / "atlas.json", tmp_path / "trees"
    folder.mkdir()
    entry = json.loads(json.dumps(SHIPPED["4,3,1"]))
    optimum = entry["values"]["total"]["value"]
    for tree in entry["one_step"].values():  # a stand-in entry whose one-step trees are worse than any hybrid
        tree["total"] = 999
    entry["values"]["total"].update(exact=False, value=None, upper=999)
    atlas_keeping.save({"4,3,1": entry}, str(path))
    runner = CliRunner()
    progress = str(tmp_path / "polish.json")
    refused = runner.invoke(cli, ["atlas", "polish", "-g", "4,3,1", "--file", str(path), "--trees", str(folder),
                                  "--progress", progress])
    assert refused.exit_code == 2 and "best-known tree" in refused.output
    weak = atlas_keeping.add_hybrid("4,3,1", 2, "minimax", path=str(path), folder=str(folder))
    assert weak is not None and weak["total"] > optimum
    ran = runner.invoke(cli, ["atlas", "polish", "-g", "4,3,1", "--at-most", "81", "--budget", "60",
                              "--file", str(path), "--trees", str(folder), "--progress", progress,
                              "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}"])
    assert ran.exit_code == 0, ran.output
    got = atlas.load(str(path))["4,3,1"]
    assert got["hybrid"]["total"] == optimum and got["values"]["total"]["exact"]
    assert got["hybrid"]["polish"]["before"] == weak["total"] and got["hybrid"]["polish"]["above"] == 2
    assert got["hybrid"]["command"] == weak["command"] + " && bullscows atlas polish -g 4,3,1 --above 2 " \
        "--at-most 81 --budget 60" + ("" if got["hybrid"]["polish"]["max_guesses"] is None
                                      else f" --max-guesses {got['hybrid']['polish']['max_guesses']}")
