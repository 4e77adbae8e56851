"""The ``bullscows`` command line's two forms (text for people by default, JSON with ``--json``), its one-line
errors on bad input, and its limits, which are the service's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from service.cli import main


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def refused(result: Result) -> str:
    """The error line of a command refused for its input: status 2, nothing on stdout, one ``error:`` line on
    stderr, no traceback.  Returns the line."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


ATLAS_ENTRY = {"game": "4,6,1", "codes": 1296, "positions": 4, "symbols": 6, "seconds": 1.0,
               "values": {"total": {"exact": 1}}}

BAD_FILES: list[tuple[str, list[str], str]] = [
    # (the file's text, the command (FILE is replaced by its path), what the message says)
    ("{}", ["atlas", "run", "-g", "2,2,1", "--file", "FILE"], "is not an atlas file: it has no 'games' list"),
    ("{}", ["atlas", "show", "--file", "FILE"], "is not an atlas file"),
    ("[1, 2", ["atlas", "show", "--file", "FILE"], "is not an atlas file: not JSON"),
    ('{"games": [1]}', ["atlas", "one-step", "--file", "FILE"], "games[0] has no 'game'"),
    ('{"games": [{"game": "nope"}]}', ["atlas", "bounds", "--file", "FILE"], "unknown game 'nope'"),
    (json.dumps({"games": [ATLAS_ENTRY]}), ["atlas", "hybrid", "-g", "4,6,1", "--file", "FILE"],
     "game '4,6,1': total.exact is 1"),
    ("{}", ["atlas", "polish", "-g", "4,6,1", "--file", "FILE"], "is not an atlas file"),
    ("{}", ["atlas", "settle", "-g", "4,6,1", "--parts", "0.1", "--file", "FILE"], "is not an atlas file"),
    ("{}", ["atlas", "trees", "--file", "FILE"], "is not an atlas file"),
    ("{}", ["records", "show", "--file", "FILE"], "is not a records file"),
    ("not json", ["records", "show", "--file", "FILE"], "is not a records file"),
    ('{"records": "bullscows", "games": [{"game": "5,8,1", "best_known": 3}]}', ["records", "show", "--file", "FILE"],
     "5,8,1's best_known has no 'total'"),
    ('{"records": "bullscows", "games": [{"game": "5,8,1", "lower_bound": {"value": 1}}]}',
     ["records", "bound", "-g", "5,8,1", "--file", "FILE"], "lower_bound has no 'depth'"),
    ('{"atlas": "bullscows", "games": []}', ["records", "bound", "-g", "5,8,1", "--file", "FILE"],
     "it is an atlas file"),
    ("{}", ["positions", "import", "FILE", "--url", "sqlite://"], "line 1: missing fields"),
    ("[1]", ["positions", "import", "FILE", "--url", "sqlite://"], "line 1: not a JSON object"),
    ("{}", ["solve", "-g", "3,4,1", "--checkpoint", "FILE"], "is not a search's progress"),
    ("{}", ["feasible", "-g", "mastermind", "-k", "6", "--scan", "--progress", "FILE"], "not a scan's progress file"),
    ("0000 x\n", ["records", "compare", "-g", "5,8,1", "--steps", "FILE"], "FILE"),
]


@pytest.mark.parametrize(("text", "args", "says"), BAD_FILES, ids=[" ".join(a[:2]) + f" {t[:12]}"
                                                                   for t, a, _ in BAD_FILES])
def test_a_malformed_file_is_refused_in_one_line(tmp_path: Path, text: str, args: list[str], says: str) -> None:
    """Every command that reads a file the user names refuses one that is not what it should be (an empty
    object, not JSON, the wrong types) with status 2 and one line naming the file, and leaves it as it was."""
    path = tmp_path / "given.json"
    path.write_text(text)
    line = refused(invoke(*[str(path) if a == "FILE" else a for a in args]))
    assert says.replace("FILE", str(path)) in line
    assert path.read_text() == text


@pytest.mark.parametrize(("args", "says"), [
    (["next", "0123", "9.9"], "response"),
    (["next", "-g", "nope"], "unknown game 'nope'"),
    (["next", "-g", "10,10,1"], "game 10,10,1 has 10000000000 codes, more than the limit of 100000"),
    (["tree", "-g", "6,8,1"], "more than the limit of 100000"),
    (["partition", "-g", "mastermind", "--guess", "00"], "has 2 symbols"),
    (["solve", "-g", "mastermind", "0011 5.0"], "impossible"),
    (["tree", "--strategy", "nope"], "unknown strategy 'nope'; strategies are: optimal-total, "),
    (["tree", "-g", "mastermind", "-s", "optimal-total", "--lengths", "/nonexistent/l.txt"],
     "cannot write /nonexistent/l.txt: the folder /nonexistent does not exist"),
    (["tree", "-g", "mastermind", "-s", "optimal-total", "-o", "/nonexistent/t.json"], "the folder /nonexistent"),
    (["feasible", "-g", "nope", "-k", "5"], "unknown game"),
    (["campaign", "-g", "9,9,1"], "more than the limit of 100000"),
    (["records", "show", "--markdown", "--json"], "give one"),
    (["records", "bound", "-g", "4,6,1"], "not a records game"),
    (["atlas", "run", "-g", "5,10,0"], "not atlas games"),
    (["atlas", "gaps", "-g", "nope"], "unknown game"),
    (["trees", "build", "--game", "nope"], "no shipped tree of games 'nope'"),
    (["serve", "--bind", "unix:/tmp/bullscows.sock", "--port", "9000", "--no-migrate"], "not a network address"),
])
def test_bad_input_is_refused_in_one_line(args: list[str], says: str) -> None:
    assert says in refused(invoke(*args))


def test_a_database_without_the_services_tables_is_refused_in_one_line(tmp_path: Path) -> None:
    """Not a traceback of the database driver: what is wrong and the command that mends it.  A database file that
    is not there at all is said so by the commands that only read or change jobs, and not made."""
    missing = tmp_path / "missing" / "jobs.sqlite3"
    for args in (["jobs", "list"], ["jobs", "show", "abc"], ["jobs", "cancel", "abc"]):
        line = refused(invoke(*args, "--url", f"sqlite:///{missing}"))
        assert f"there is no database at {missing}" in line and not missing.parent.exists(), args
    (tmp_path / "empty.sqlite3").touch()
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    for args in (["jobs", "list"], ["jobs", "show", "abc"], ["tokens", "list"], ["positions", "export", "-o",
                                                                                 str(tmp_path / "x.ndjson")]):
        line = refused(invoke(*args, "--url", url))
        assert "no such table" in line and "bullscows db upgrade" in line, args


def test_the_cli_refuses_what_the_api_refuses_in_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's size and the history's length are held to the service's settings (BULLSCOWS_MAX_CODES,
    BULLSCOWS_MAX_HISTORY), and the message is the API's own."""
    from service.api.parse import game_of, history_of
    from service.config import Settings
    from solver.errors import SolverError
    from solver.game import Game

    with pytest.raises(SolverError) as api:
        game_of("10,10,1", Settings())
    assert refused(invoke("next", "-g", "10,10,1")) == f"error: {api.value}"
    turns = ["0123 0.4"] * 33
    with pytest.raises(SolverError) as api:
        history_of(Game.from_spec("bulls-cows"), list(turns), Settings())
    assert refused(invoke("next", *turns)) == f"error: {api.value}"
    # a deployment's own limits are the CLI's too
    small = {"BULLSCOWS_MAX_CODES": "1296", "BULLSCOWS_MAX_HISTORY": "2"}
    assert "more than the limit of 1296" in refused(invoke("next", "-g", "bulls-cows", env=small))
    assert "at most 2 turns" in refused(invoke("next", "-g", "mastermind", "0011 0.0", "2222 0.0",
                                                        "3333 1.0", env=small))
    fine = invoke("next", "-g", "mastermind", "0011 0.0", env=small)
    assert fine.exit_code == 0 and fine.stdout.strip()
    # the time budget's ceiling, refused as the service refuses a request's (BULLSCOWS_MAX_TIME_BUDGET_MS)
    assert refused(invoke("next", "-s", "minimax", "--time-budget-ms", "50000",
                          env={"BULLSCOWS_MAX_TIME_BUDGET_MS": "900"})) == (
        "error: time_budget_ms: must be at most 900 (the service's BULLSCOWS_MAX_TIME_BUDGET_MS), got 50000")


def test_the_commands_print_text_without_none_by_default_and_json_with_json() -> None:
    """The default is for people (no JSON, no 'None'); --json gives the same result with the keys scripts read."""
    for args in (["partition", "-g", "mastermind", "--guess", "0011"], ["solve", "-g", "mastermind"],
                 ["tree", "-g", "mastermind", "-s", "minimax"], ["feasible", "-g", "mastermind", "-k", "5"],
                 ["records", "show"], ["atlas", "show"], ["next", "-g", "mastermind"]):
        text = invoke(*args)
        assert text.exit_code == 0, (args, text.output)
        assert "None" not in text.stdout and not text.stdout.startswith(("{", "[")), args
        as_json = invoke(*args, "--json")
        assert as_json.exit_code == 0 and isinstance(json.loads(as_json.stdout), dict), args
    assert invoke("partition", "-g", "mastermind", "--guess", "0011").stdout.splitlines()[:3] == [
        "guess 0011 (guess 1), 1296 candidates, a possible secret",
        "response  in words          candidates", "0.0       0 black, 0 white         256"]


def test_records_show_is_a_table_per_game_and_json_keeps_its_keys() -> None:
    from service import records

    text = invoke("records", "show").stdout
    assert text.count("\n") < 30 and max(map(len, text.splitlines())) < 400  # not one 10 KB line
    assert "5,8,1  Super Mastermind" in text and "5,10,0  Bulls-and-Cows with five digits" in text
    best = records.load()["5,8,1"]["best_known"]
    row = next(line for line in text.splitlines() if "this project's tree" in line)
    assert str(best["total"]) in row and best["first_guess"] in row
    assert "\u2265 " in text and "None" not in text  # the lower bounds, and a dash where nothing is known
    doc = json.loads(invoke("records", "show", "--json").stdout)
    assert [g["game"] for g in doc["games"]] == list(records.load())


def test_atlas_run_says_impossible_and_ends_with_a_table(tmp_path: Path) -> None:
    """The searches' log names a limit within which no strategy exists 'impossible' (not None), and the run ends
    with its games' numbers; --json prints their entries.  A real process: the searches log from workers."""
    path = tmp_path / "atlas.json"

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "service.cli", "atlas", "run", "-g", "2,2,1", "--file",
                               str(path), "--url", f"sqlite:///{tmp_path / 'jobs.sqlite'}", *extra],
                              capture_output=True, text=True, timeout=300, check=False)

    ran = run()
    assert ran.returncode == 0, ran.stderr
    assert "# 2,2,1 total within 1: impossible (" in ran.stderr and "None" not in ran.stderr + ran.stdout
    header, row = ran.stdout.splitlines()
    assert header.split() == ["game", "codes", "T", "average", "W", "T_W", "D", "W-movers", "seconds"]
    assert row.split()[:8] == ["2,2,1", "4", "8", "2", "3", "8", "3", "1"]
    again = run("--json")  # finished: nothing computed, the entry printed
    assert again.returncode == 0 and json.loads(again.stdout)["games"][0]["values"]["total"]["value"] == 8


def test_jobs_print_tables_and_text(tmp_path: Path) -> None:
    from service.store.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'jobs.sqlite3'}"
    upgrade(url)
    assert invoke("jobs", "list", "--url", url).stdout == "no jobs\n"
    submitted = invoke("solve", "-g", "3,4,1", "--job", "--no-wait", "--url", url)
    assert submitted.exit_code == 0 and submitted.stdout.startswith("job ") and "queued" in submitted.stdout
    job_id = submitted.stdout.split()[1]
    listed = invoke("jobs", "list", "--url", url).stdout.splitlines()
    assert listed[0].split() == ["id", "status", "game", "what", "k", "mde", "fso", "history", "units", "value"]
    assert listed[1].split()[:4] == [job_id, "queued", "3,4,1", "total"] and "None" not in listed[1]
    shown = invoke("jobs", "show", job_id, "--url", url).stdout
    assert "id:" in shown and job_id in shown and "status:" in shown and "None" not in shown
    assert "result" not in shown  # not known yet: the line is left out
    assert json.loads(invoke("jobs", "show", job_id, "--url", url, "--json").stdout)["result"] is None


def test_next_says_a_won_game_is_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A history whose last turn is all bulls is a finished game: the answer has no guess (service.answers), and
    the text says the secret and when it was found."""
    from service.cli import solving

    class Finished:
        note = None

        def as_dict(self, *_: Any) -> dict[str, Any]:
            return {"guess": None, "secret": "0011", "finished": True, "guess_number": 2, "candidates": 1,
                    "candidate_list": ["0011"], "note": None}

    class Chain:
        def next_move(self, *_: Any, **__: Any) -> Finished:
            return Finished()

    monkeypatch.setattr(solving, "_chain", lambda url: Chain())
    text = invoke("next", "-g", "mastermind", "0011 4.0")
    assert text.exit_code == 0 and text.stdout == "solved: the secret is 0011, found at guess 1\n"
    out = json.loads(invoke("next", "-g", "mastermind", "0011 4.0", "--json").stdout)
    assert out["guess"] is None and out["secret"] == "0011" and out["finished"] is True


@pytest.mark.parametrize(("bind", "port", "address"), [
    ("127.0.0.1:8000", None, "127.0.0.1:8000"), ("127.0.0.1:8000", 9000, "127.0.0.1:9000"),
    ("0.0.0.0", 8080, "0.0.0.0:8080"), ("[::1]:8000", 9000, "[::1]:9000"), ("::", 9000, "[::]:9000"),
    ("localhost:1", 65535, "localhost:65535"), ("unix:/tmp/s.sock", None, "unix:/tmp/s.sock"),
])
def test_serve_port_replaces_the_port_of_the_bind_address(bind: str, port: int | None, address: str) -> None:
    from service.cli.admin import _bind_address

    assert _bind_address(bind, port) == address


def test_serve_hands_gunicorn_the_address(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    ran: list[list[str]] = []
    monkeypatch.setattr(os, "execv", lambda path, args: ran.append(list(args)))
    result = invoke("serve", "--no-migrate", "--port", "9123")
    assert result.exit_code == 0, result.output
    args = ran[0]
    assert args[args.index("--bind") + 1] == "127.0.0.1:9123"
    result = invoke("serve", "--no-migrate", "--bind", "0.0.0.0:80", "-p", "8081")
    assert ran[1][ran[1].index("--bind") + 1] == "0.0.0.0:8081"
    assert invoke("serve", "--port", "0").exit_code == 2  # click's range check


def test_the_text_helpers_never_show_none(capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli.common import _print_fields, print_table, shown_value

    assert [shown_value(v) for v in (None, True, False, 2.0, 5.677480001, [], ["0123", "4567"])] == [
        "\u2014", "yes", "no", "2", "5.67748", "\u2014", "0123 4567"]
    _print_fields({"value": 5, "note": None, "exact": True, "inner": {"a_b": 1, "gone": None}, "empty": {},
                   "rows": [{"response": "0.1", "size": 3}, {"response": "1.0", "size": None}]})
    print_table([{"x": 1, "y": None}])
    out = capsys.readouterr().out
    assert out.splitlines() == ["value: 5", "exact: yes", "inner:", "  a b: 1", "rows:",
                                "  response  size", "  0.1          3", "  1.0          \u2014",
                                "x  y", "1  \u2014"]


def test_partition_explains_the_guess_as_the_api_does() -> None:
    """The parts in the family's words, the summary, and the values when known; a note where they are not."""
    lines = invoke("partition", "-g", "mastermind", "--guess", "0012").stdout.splitlines()
    assert lines[-3:] == ["parts: 14, largest: 276, expected size: 185.27, entropy: 3.044 bits",
                          "optimal total guesses: 5625 (4.3403 a secret) with 0012, from tree",
                          "this guess: 5625 (4.3403 a secret), optimal"]
    text = invoke("partition", "--guess", "0123", "0123 0.1").stdout
    assert "0.1       0 bulls, 1 cow" in text and "1440 more than optimal" in text
    big = invoke("partition", "-g", "5,8,1", "--guess", "00123")
    assert big.exit_code == 0 and big.stdout.splitlines()[-1].startswith("note: super-mastermind has 32768 codes")
    assert "optimal total guesses" not in big.stdout and "this guess:" not in big.stdout
    out = json.loads(invoke("partition", "-g", "5,8,1", "--guess", "00123", "--json").stdout)
    assert out["optimal"]["position"] is None and sum(p["candidates"] for p in out["parts"]) == 32768
    assert refused(invoke("partition", "-g", "mastermind", "--guess", "0012", "0012 4.0")).startswith(
        "error: the game was won at guess 1")


def test_tree_takes_shipped_trees_and_writes_their_lengths(tmp_path: Path) -> None:
    """Shipped trees are taken as they are (not built again), saved whole and as CODE LENGTH lines."""
    from solver.compare import read_steps
    from solver.game import Game

    lengths, whole = tmp_path / "l.txt", tmp_path / "t.json"
    out = json.loads(invoke("tree", "-g", "5,6,1", "-s", "best-known", "-o", str(whole), "--lengths", str(lengths),
                            "--json").stdout)
    assert out["source"] == "shipped" and out["total"] == 36734
    with lengths.open(encoding="utf-8") as fh:
        assert int(read_steps(Game.from_spec("5,6,1"), fh).sum()) == 36734
    assert json.loads(whole.read_text())["stats"]["total"] == 36734
    text = invoke("tree", "-g", "mastermind", "-s", "optimal-total", "--lengths", str(lengths)).stdout
    assert text.startswith("strategy     optimal-total (shipped)\n")
    assert lengths.read_text(encoding="utf-8").startswith("# game 4,6,1 (mastermind): 1296 codes\n")
    built = json.loads(invoke("tree", "-g", "mastermind", "-s", "minimax", "--lengths", str(lengths), "--json").stdout)
    assert built["source"] == "built"
    with lengths.open(encoding="utf-8") as fh:
        assert int(read_steps(Game.from_spec("mastermind"), fh).sum()) == built["total"]
    assert "ships no best-known tree" in refused(invoke("tree", "-g", "mastermind", "-s", "best-known"))


def test_a_worker_whose_scheduler_cannot_be_reached_says_so_in_one_line(tmp_path: Path) -> None:
    """`worker --scheduler` of an address nothing listens on: one line naming it, not Dask's traceback."""
    import os

    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    got = subprocess.run([sys.executable, "-m", "service.cli", "worker", "--url", url, "--scheduler", "tcp://127.0.0.1:9"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"})
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "error: the Dask scheduler tcp://127.0.0.1:9 cannot be reached" in got.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(("url", "says"), [
    ("foo://bar", "the database foo://bar cannot be used: Can't load plugin"),
    ("postgresql+psycopg://nobody@127.0.0.1:1/db", "the database postgresql+psycopg://nobody@127.0.0.1:1/db cannot "
                                                   "be used: connection failed"),
])
def test_a_campaign_on_a_database_it_cannot_use_is_refused_in_one_line(tmp_path: Path, url: str, says: str) -> None:
    """A campaign's --url of a driver there is none of, or of a server nothing answers at: one line, nothing written."""
    spec = tmp_path / "bounds-3-3-1.campaign.json"
    spec.write_text(json.dumps({"format": "bullscows-campaign", "version": 1, "kind": "bound", "game": "3,3,1",
                                "depth": 1, "target": None, "progress": "bounds-3-3-1.json"}))
    assert says in refused(invoke("campaign", "run", str(spec), "--url", url))
    assert sorted(p.name for p in tmp_path.iterdir()) == [spec.name]
