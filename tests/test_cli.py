"""The ``bullscows`` command line, through click's runner and once as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> Any:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_next_defaults_and_history_forms() -> None:
    assert run("next")[1].strip() == "0123"
    a = run_json("next", "--game", "bulls-cows", "--history", "0123 0.1", "1245 0.2", "-s", "minimax")
    b = run_json("next", "0123", "0.1", "1245", "0.2", "-s", "minimax")
    c = run_json("next", "-H", "0123 0.1, 1245 0.2", "-s", "minimax")
    for out in (a, b, c):
        assert out.pop("elapsed_ms") >= 0
    assert a == b == c
    assert a["candidates"] == 312 and a["guess_number"] == 3


def test_next_reads_a_history_as_the_api_does() -> None:
    """One reader for the shell and for JSON (``solver.game``): a turn ``POST /v1/next-move`` takes, such as
    ``"0012 1,0"`` with a comma inside its response, is the same turn on the command line."""
    from solver.game import Game

    mastermind = Game.from_spec("mastermind")
    assert mastermind.parse_turn("0012 1,0") == mastermind.parse_turn("0012 1.0")  # as the HTTP route reads it
    comma = run_json("next", "-g", "mastermind", "0012 1,0")
    dot = run_json("next", "-g", "mastermind", "0012", "1.0")
    for out in (comma, dot):
        assert out.pop("elapsed_ms") >= 0
    assert comma == dot and comma["candidates"] == 182
    two = run_json("next", "0123 0,1, 1245 0,2", "-s", "minimax")
    assert two["candidates"] == 312 and two["guess_number"] == 3
    code, _, err = run("next", "-g", "mastermind", "0012 1,0 1122")
    assert code != 0 and "has a guess without a response" in err


def test_next_speaks_the_apis_vocabulary() -> None:
    """Same default (optimal-total) and the same strategies as POST /v1/next-move."""
    from service.schemas.moves import NextMoveIn

    top = run_json("next", "-g", "mastermind")
    assert (top["guess"], top["strategy"], top["exact"], top["source"]) == ("0012", "optimal-total", True, "tree")
    assert NextMoveIn.model_fields["strategy"].default == "optimal-total"
    k5 = run_json("next", "-g", "mastermind", "-s", "optimal-kmovers", "--max-guesses", "5")
    assert (k5["guess"], k5["source"]) == ("0012", "tree")
    # a search of about a second: a budget of its own, so that a loaded machine does not turn it into the heuristic
    off_tree = run_json("next", "-g", "mastermind", "0000 0.0", "--time-budget-ms", "20000")
    assert off_tree["exact"] is True and off_tree["source"] == "search" and off_tree["consistent"]
    cut = run_json("next", "0123 0.1", "0132 0.1", "--time-budget-ms", "100")  # 1200 left, unknown
    assert cut["exact"] is False and cut["source"] == "heuristic" and "100 ms" in cut["note"]
    big = run_json("next", "-g", "5,8,1", "-s", "optimal-kmovers", "--max-guesses", "8")
    assert big["exact"] is False and big["source"] == "heuristic"
    assert "at most 8192 codes" in big["note"] and "32768" in big["note"]
    best = run_json("next", "-g", "5,8,1")  # the shipped best-known tree answers totals
    assert best["exact"] is False and best["source"] == "best-known"
    assert best["note"].startswith("best known tree, not proven optimal: ") and len(best["note"]) < 80  # few words
    code, _, err = run("next", "-s", "knuth")
    assert code == 2 and all(name in err for name in ("optimal-total", "optimal-kmovers", "minimax", "crush"))
    # the API's rule for k-movers without a limit: the game's proven smallest worst case, else an error
    k7 = run_json("next", "-s", "optimal-kmovers")
    assert (k7["max_guesses"], k7["source"], k7["exact"]) == (7, "tree", True)
    code, _, err = run("next", "-g", "2,11,1", "-s", "optimal-kmovers")
    assert code == 2 and "max_guesses" in err and "not known" in err


def test_next_one_step_budget_only_when_asked() -> None:
    """One-step strategies score every guess unless --time-budget-ms is given; then they stop there."""
    turns = ("00123 1.2", "34567 1.1", "78901 0.2")
    whole = run_json("next", "-g", "5,10,1", *turns, "-s", "entropy")
    assert whole["note"] is None and whole["source"] == "heuristic"
    cut = run_json("next", "-g", "5,10,1", *turns, "-s", "entropy", "--time-budget-ms", "1")
    assert cut["consistent"] and "1 ms budget" in cut["note"] and "of 100000 guesses" in cut["note"]


def test_next_mastermind_strategies() -> None:
    assert run_json("next", "-g", "mastermind", "--strategy", "minimax")["guess"] == "0011"
    assert run_json("next", "-g", "mastermind", "--strategy", "most-parts")["guess"] == "0012"
    out = run_json("next", "-g", "4,6,1", "0011 2.0", "0123 1.1", "--strategy", "first-consistent")
    assert out["consistent"] and out["candidate_list"] is not None


def test_next_custom_alphabet() -> None:
    out = run_json("next", "-g", "3,7,0", "--alphabet", "1234567", "--strategy", "expected-size", "123 2.0")
    assert out["consistent"] is False, "the blog: an inconsistent guess (such as 134) is best here"
    assert out["candidates"] == 12


def test_partition() -> None:
    out = run_json("partition", "--guess", "0123")
    parts = {p["response"]: p["candidates"] for p in out["parts"]}
    assert parts["0.1"] == 1440 and sum(parts.values()) == 5040 == out["candidates"]
    assert out["parts"][0] == {"response": "0.1", "bulls": 0, "cows": 1, "words": "0 bulls, 1 cow", "candidates": 1440}
    assert out["optimal"]["position"]["value"] == 26274 and out["optimal"]["guess"]["is_best"] is True


def test_tree_json_keys(tmp_path: Any) -> None:
    target = tmp_path / "t.json"
    out = run_json("tree", "-g", "mastermind", "--strategy", "minimax", "--first", "0011", "-o", str(target))
    assert {"total", "average", "worst_case", "histogram", "nodes", "first_guess"} <= set(out)
    assert out["worst_case"] == 5 and out["first_guess"] == "0011"
    assert json.loads(target.read_text())["stats"]["total"] == out["total"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["next", "0123", "5.0"], "impossible"), (["next", "0113", "0.1"], "repeats symbol"),
     (["next", "0123", "0.0", "4567", "0.4", "5674", "0.0"], "turn 3"),
     (["next", "--strategy", "nope"], "unknown strategy"), (["next", "-g", "4,3,0"], "distinct"),
     (["tree", "--first", "01"], "has 2 symbols"), (["partition", "--guess", "abcd"], "not one of"),
     (["next", "0123"], "without a response")],
)
def test_errors_exit_non_zero_with_a_message(args: list[str], needle: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and needle in err


def test_console_script_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "service.cli", "next", "-g", "mastermind", "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["guess"] == "0012", "the default strategy is optimal-total, as in the API"


HEAVY = ("numba", "llvmlite", "sqlalchemy", "alembic", "flask", "apiflask", "dask", "distributed", "structlog",
         "prometheus_client", "psycopg")
"""What a question a shipped tree answers must not load: the search's kernels, the database, the web service, the
job engine.  Importing them took most of the 1.8 s such a command once took; ``benchmarks/bench_cli.py`` times it."""

_LOADED = """
import json, sys
from service.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
"""


@pytest.mark.parametrize(("args", "answer"), [
    (["next", "-g", "mastermind", "0012", "1.0"], "0334"),
    (["solve", "-g", "mastermind", "0012", "1.0", "--json"], '"best_guess":"0334"'),
    (["next", "-g", "bulls-cows", "9876", "0.1"], "8012"),
    (["--help"], "Usage"),
])
def test_a_question_a_shipped_tree_answers_loads_no_heavy_module(args: list[str], answer: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    proc = subprocess.run([sys.executable, "-c", _LOADED, *args], capture_output=True, text=True, timeout=120,
                          check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    assert answer in proc.stdout
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_solve_json_keys_and_values() -> None:
    out = run_json("solve", "-g", "mastermind", "-c", "kmovers", "--max-guesses", "5")
    assert {"value", "possible", "exact", "best_guess", "per_response", "nodes", "seconds"} <= set(out)
    assert out["value"] == 539 and out["possible"] and out["exact"] and out["best_guess"] == "0012"
    assert sum(out["per_response"].values()) == 539


def test_solve_after_history_counts_the_whole_game() -> None:
    out = run_json("solve", "-g", "mastermind", "--max-guesses", "5", "0012 1.1")
    parts = {p["response"]: p["candidates"]
             for p in run_json("partition", "-g", "mastermind", "--guess", "0012")["parts"]}
    assert out["value"] == 1029 and out["candidates"] == parts["1.1"]
    assert sum(out["per_response"].values()) == out["value"]


def test_solve_impossible_and_forced_guess() -> None:
    out = run_json("solve", "-g", "mastermind", "-c", "kmovers", "--max-guesses", "4")
    assert out["possible"] is False and out["value"] is None and out["exact"] is True
    forced = run_json("solve", "-g", "mastermind", "--max-guesses", "5", "--guess", "0000")
    assert forced["possible"] is False and forced["value"] is None
    forced = run_json("solve", "-g", "mastermind", "--max-guesses", "5", "--guess", "0011")
    assert forced["value"] == 5702


def test_solve_depth_count_chain() -> None:
    out = run_json("solve", "-c", "kmovers", "--max-guesses", "7", "--depth-count", "4", "0123 2.2")
    assert out["chain"] == {"7": 0, "6": 0, "5": 0, "4": 4} and out["value"] == 4 and out["movers"] == 4


def test_optimal_tree_cli() -> None:
    out = run_json("tree", "-g", "mastermind", "-s", "optimal-total", "--max-guesses", "5")
    assert out["total"] == 5626 and out["worst_case"] == 5 and out["first_guess"] == "0012"


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["solve", "-c", "kmovers"], "needs max_guesses"),
     (["solve", "--depth-count", "5"], "kmovers criterion only"),
     (["solve", "--max-guesses", "1", "0123 0.1"], "already used up"),
     (["tree", "-s", "optimal-kmovers"], "needs max_guesses"),
     (["solve", "-c", "kmovers", "--max-guesses", "7", "--depth-count", "9"], "depth_count must be"),
     (["solve", "-g", "5,10,0", "01234 1.2"], "more than the 8192 the exact search takes")],
)
def test_solve_errors(args: list[str], needle: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and needle in err


@pytest.mark.parametrize("args", [
    ["-g", "mastermind"], ["-g", "mastermind", "0012 1.1"], ["-g", "mastermind", "0012 0.1", "1334 0.2"],
    ["-g", "mastermind", "-c", "kmovers", "--max-guesses", "5"],
    ["-g", "mastermind", "-c", "kmovers", "--max-guesses", "5", "0012 1.1"],
    ["-g", "mastermind", "--max-guesses", "6"],  # the unlimited tree keeps to 6 guesses: optimal there too
])
def test_solve_answers_from_the_shipped_trees_as_the_search_does(args: list[str]) -> None:
    """Positions on a shipped exact tree are answered from it (no search) with the search's values."""
    shipped = run_json("solve", *args)
    searched = run_json("solve", *args, "--search")
    assert (shipped["source"], shipped["nodes"], searched["source"]) == ("tree", 0, "search")
    assert searched["nodes"] > 0
    for key in ("value", "possible", "exact", "per_response", "candidates", "movers", "chain"):
        assert shipped[key] == searched[key], key
    # the tree's guess is an optimal one: the search values it the same
    forced = run_json("solve", *args, "--guess", shipped["best_guess"])
    assert forced["value"] == searched["value"]


def test_solve_off_the_trees_searches() -> None:
    # another depth limit than the tree's, a hybrid, and a history the tree does not play
    for args in (["-g", "mastermind", "--max-guesses", "5"], ["-g", "mastermind", "--mde", "2"],
                 ["-g", "mastermind", "0000 0.0"]):
        assert run_json("solve", *args)["source"] == "search", args


def test_bulls_cows_optimum_is_answered_from_the_shipped_tree(published: dict[str, Any]) -> None:
    """The campaign's result, shipped: 26274 without a depth limit (and so within 7 guesses, which the
    tree keeps to), each response as the article's exact column, with no search."""
    table = published["min_total"]["bulls-cows"]["by_response_after_0123"]
    exact = table["_columns"].index("exact")
    for limit in ([], ["--max-guesses", "7"], ["--max-guesses", "9"]):
        out = run_json("solve", "-g", "bulls-cows", *limit)
        assert (out["value"], out["best_guess"], out["source"], out["nodes"]) == (26274, "0123", "tree", 0), limit
        assert out["per_response"] == {r: row[exact] for r, row in table.items() if r not in ("_columns", "total")}
    assert published["min_total"]["bulls-cows"]["optimum_total"] == 26274


def test_bulls_cows_seven_movers_are_answered_from_the_shipped_tree(published: dict[str, Any]) -> None:
    out = run_json("solve", "-g", "bulls-cows", "-c", "kmovers", "--max-guesses", "7")
    exact = published["min_kmovers"]["bulls-cows"]["by_first_response"]["exact"]
    assert (out["value"], out["best_guess"], out["source"], out["chain"]) == (50, "0123", "tree", {"7": 50})
    assert {r: v for r, v in out["per_response"].items() if v} == {r: v for r, v in exact.items()
                                                                     if r != "total" and v}


@pytest.mark.slow  # 16 s; a search spec run, replayed and answered from its file (test_campaign_jobs) is quick
def test_solve_with_a_checkpoint_continues_a_stopped_search(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``solve --checkpoint FILE`` searches the position as a job whose unit keeps how far it has come, in the
    database and in FILE; a unit stopped in the middle (its worker lost) leaves its progress there, and the same
    command goes on from it (it says so) and gives the answer of a search that never stopped; once done it
    answers from the file at once.  Shares (``--shares``) give the same value.  A file of another question, or
    not a progress at all, is refused and left as it was."""
    from service import searches
    from service.campaign_spec import CampaignSpec
    from service.store import db as store_db
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade
    from solver.game import Game
    from solver.search import SolveOptions
    from tests.stopped_units import stop_a_unit_at_its_write

    question = ["solve", "-g", "3,6,1", "--from-set-only"]
    plain = run_json(*question, "--search")
    path, url = tmp_path / "progress.json", f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    game = Game.from_spec("3,6,1")
    asked = {k: getattr(SolveOptions(from_set_only=True), k) for k in searches.QUESTION_OPTIONS}
    spec = CampaignSpec.search(game, [], asked, 1, str(path))
    kept = stop_a_unit_at_its_write(monkeypatch, url, lambda jobs: searches.KIND.start(jobs, spec), 3)
    upgrade(url)
    db = store_db.Database(url)
    searches.KIND.export(JobStore(db), spec)
    db.dispose()
    on_file = json.loads(path.read_text())
    assert on_file["game"] == "3,6,1" and on_file["options"]["from_set_only"] is True
    assert on_file["search"] == kept["search"] and "result" not in on_file
    done, guesses = kept["search"]["done"], kept["search"]["guesses"]
    assert done + kept["search"]["parts"] > 0 and done < guesses
    args = [*question, "--checkpoint", str(path), "--url", url, "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"going on: search from guess {done} of {guesses}" in result.stderr
    assert f"going on from guess {done})" in result.stderr
    went_on = json.loads(result.stdout)
    assert (went_on["value"], went_on["best_guess"], went_on["per_response"]) == \
        (plain["value"], plain["best_guess"], plain["per_response"])
    finished = json.loads(path.read_text())
    assert finished["search"]["done"] == guesses and finished["result"]["value"] == plain["value"]
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "holds this search's answer already" in again.stderr
    assert json.loads(again.stdout) == finished["result"]
    told = CliRunner().invoke(main, [*question, "--checkpoint", str(tmp_path / "told.json"), "--url", url, "--json"])
    assert told.exit_code == 0 and "what earlier jobs in this database did written to told.json" in told.stderr
    assert json.loads(told.stdout) == finished["result"]  # a new file, the same question: the database's answer
    shared = CliRunner().invoke(main, [*question, "--checkpoint", str(tmp_path / "shared.json"), "--url",
                                       f"sqlite:///{tmp_path / 'shared.sqlite'}", "--shares", "3", "--json"])
    assert shared.exit_code == 0, shared.output
    assert shared.stderr.count("search share ") == 3
    by_shares = json.loads(shared.stdout)  # the least share's guess, searched whole: each response's value too
    assert (by_shares["value"], by_shares["per_response"]) == (plain["value"], plain["per_response"])

    finished_bytes = path.read_bytes()
    other = CliRunner().invoke(main, [*question, "--max-guesses", "5", "--checkpoint", str(path), "--url", url])
    assert other.exit_code == 2 and "progress of another search" in other.output and path.read_bytes() == finished_bytes
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2")
    refused = CliRunner().invoke(main, [*question, "--checkpoint", str(broken), "--url", url])
    assert refused.exit_code == 2 and "is not a search's progress" in refused.output
    assert broken.read_text() == "[1, 2"
    with_guess = CliRunner().invoke(main, [*question, "--guess", "012", "--checkpoint", str(tmp_path / "g.json")])
    assert with_guess.exit_code == 2 and "do not apply" in with_guess.output and not (tmp_path / "g.json").exists()
    bare = tmp_path / "bare.json"  # the question alone, as a run stopped before any progress leaves it
    bare.write_text(json.dumps({k: on_file[k] for k in ("game", "history", "options")}))
    started = CliRunner().invoke(main, [*question, "--checkpoint", str(bare), "--url",
                                        f"sqlite:///{tmp_path / 'bare.sqlite'}", "--json"])
    assert started.exit_code == 0, started.output
    assert "from nothing" in started.stderr and json.loads(started.stdout)["value"] == plain["value"]
    lone = CliRunner().invoke(main, [*question, "--shares", "2"])
    assert lone.exit_code == 2 and "with --checkpoint" in lone.output


def test_solve_with_a_checkpoint_says_when_a_position_keeps_no_progress(tmp_path: Any) -> None:
    """A position searched in one kernel call (a long history, a small set) cannot be checkpointed: the command
    says so, and still answers as the plain search does."""
    question = ["solve", "-g", "mastermind", "0011 0.1", "0123 1.1", "2245 0.1", "--json"]
    plain = run_json(*question[:-1], "--search")
    result = CliRunner().invoke(main, [*question, "--checkpoint", str(tmp_path / "p.json"), "--url",
                                       f"sqlite:///{tmp_path / 'jobs.sqlite'}"])
    assert result.exit_code == 0, result.output
    assert "no progress can be kept" in result.stderr
    assert json.loads(result.stdout)["value"] == plain["value"]


def test_feasible_answers_the_worst_case_alone() -> None:
    """Mastermind keeps 5 guesses and not 4; the strategy found is played through every candidate; after a
    turn the limit counts the history's guess; a limit with no guess left is refused."""
    yes = run_json("feasible", "-g", "mastermind", "--max-guesses", "5", "--strategy")
    assert yes["possible"] is True and yes["answer"] == "yes" and yes["left"] == 5 and yes["candidates"] == 1296
    assert yes["strategy"]["worst_case"] <= 5 and sum(yes["strategy"]["histogram"].values()) == 1296
    no = run_json("feasible", "-g", "mastermind", "-k", "4")
    assert no["possible"] is False and no["guess"] is None
    after = run_json("feasible", "-g", "mastermind", "-k", "5", "0011 0.0")
    assert after["left"] == 4 and after["candidates"] == 256 and after["possible"] is True
    code, out, _ = run("feasible", "-g", "mastermind", "-k", "4")
    assert code == 0 and out.startswith("no: no strategy finds all 1296 candidates within 4 guesses")
    code, out, _ = run("feasible", "-g", "mastermind", "-k", "5", "--strategy")
    assert code == 0 and out.startswith("yes: ") and "worst case 5 (every candidate played)" in out
    code, _, err = run("feasible", "-g", "mastermind", "-k", "1", "0011 0.0")
    assert code == 2 and "--max-guesses 1 leaves no guess" in err
    code, _, err = run("feasible", "-g", "5,10,0", "-k", "7")
    assert code == 2 and "more than the 8192 the worst-case search takes" in err
    code, _, err = run("feasible", "-g", "mastermind", "-k", "5", "0011 3.1")
    assert code == 2 and err.startswith("error: ")


def test_feasible_scan_logs_each_guess_and_continues_from_its_progress_file(tmp_path: Any) -> None:
    """A scan settles the position's guesses one by one, as a job whose progress file lets the same command
    continue: a scan stopped after Mastermind's first guess in order (0011) goes on with the second and answers
    with it; a finished file answers at once; shares of the guesses answer alike.  Another question, a corrupt
    file, --progress without --scan, the job's options without --progress and --scan with fewer than five guesses
    left are refused, and the file is left as it was.  Without --progress the scan runs here, each guess logged."""
    path, url = tmp_path / "scan.json", f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    scan = ["feasible", "-g", "mastermind", "-k", "5", "--scan", "--url", url, "--progress"]
    code, out, err = run(*scan, str(path))
    assert code == 0 and out.startswith("yes: 0011 ")
    assert "scan: guess 1/5 0011 (largest part 256): keeps the limit" in err
    state = json.loads(path.read_text())
    assert state["found"] == "0011" and state["next"] == 1 and state["guesses"] == 5
    assert state["result"]["answer"] == "yes" and state["result"]["guess"] == "0011"
    again = run_json(*scan, str(path))
    assert again["guess"] == "0011" and again["answer"] == "yes"
    state.update(found=None)  # as if stopped once the first guess was settled
    del state["result"]
    resumed = tmp_path / "resumed.json"  # on a database of its own (a fresh clone's): the file alone says where
    resumed.write_text(json.dumps(state))
    code, out, err = run(*scan[:-2], f"sqlite:///{tmp_path / 'fresh.sqlite'}", "--progress", str(resumed))
    assert code == 0 and "going on: scan from guess 1 of 5" in err and "scan: guess 2/5 " in err
    assert out.startswith("yes: ") and not out.startswith("yes: 0011 ")
    code, out, err = run(*scan[:-2], f"sqlite:///{tmp_path / 'shared.sqlite'}", "--progress",
                         str(tmp_path / "shared.json"), "--shares", "2", "--processes", "2")
    assert code == 0 and out.startswith("yes: ")  # whichever share found its guess first answers
    assert "found" in "".join(line for line in err.splitlines() if "scan share " in line)
    listed = CliRunner().invoke(main, ["jobs", "list", "--url", url])
    assert listed.exit_code == 0 and "scan within 5, 1 share" in listed.output and " yes" in listed.output
    code, out, err = run("feasible", "-g", "mastermind", "-k", "5", "--scan")
    assert code == 0 and out.startswith("yes: 0011 ") and "# guess 1/5 0011 (largest part 256): keeps the limit" in err
    before = path.read_text()
    code, _, err = run("feasible", "-g", "mastermind", "-k", "6", "--scan", "--url", url, "--progress", str(path))
    assert code == 2 and "holds another question" in err and path.read_text() == before
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(*scan, str(bad))
    assert code == 2 and "not a scan's progress file" in err and bad.read_text() == "{not json"
    code, _, err = run("feasible", "-g", "mastermind", "-k", "5", "--progress", str(bad))
    assert code == 2 and "give --scan too" in err
    code, _, err = run("feasible", "-g", "mastermind", "-k", "5", "--scan", "--shares", "2")
    assert code == 2 and "give --scan and --progress FILE" in err
    code, _, err = run("feasible", "-g", "mastermind", "-k", "4", "--scan")
    assert code == 2 and "five guesses left or more" in err


def test_lab_commands_work_from_any_folder_with_their_campaigns_folder(tmp_path: Any) -> None:
    """``atlas gaps`` from another folder reads the checkout's campaigns/; ``--campaigns DIR`` (or
    BULLSCOWS_CAMPAIGNS) names another folder, and one that does not exist is an ``error:`` line."""
    import shutil
    from pathlib import Path

    from service.campaign_files import CAMPAIGNS_ENV, CHECKOUT_CAMPAIGNS

    env = {k: v for k, v in os.environ.items() if k != CAMPAIGNS_ENV}

    def gaps(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "service.cli", *args, "atlas", "gaps", "-g", "6,7,0"],
                              cwd=tmp_path, env={**env, **extra}, capture_output=True, text=True, timeout=120,
                              check=False)

    anywhere = gaps()
    assert anywhere.returncode == 0, anywhere.stderr
    assert anywhere.stdout.startswith("6,7,0: first guess 012345: the tree spends 29154")
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    shutil.copy(Path(CHECKOUT_CAMPAIGNS) / "bounds-6-7-0.json", elsewhere / "bounds-6-7-0.json")
    assert gaps("--campaigns", "mine").stdout == anywhere.stdout
    assert gaps(**{CAMPAIGNS_ENV: str(elsewhere)}).stdout == anywhere.stdout
    (elsewhere / "bounds-6-7-0.json").unlink()
    empty = gaps("--campaigns", "mine")
    assert empty.returncode == 2 and "no lower-bound campaign of 6,7,0" in empty.stderr
    missing = gaps("--campaigns", "nowhere")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith(f"error: {tmp_path / 'nowhere'}: no campaigns folder there")
