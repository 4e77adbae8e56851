"""Campaigns and the files that carry them: `bullscows positions export/import` on both backends,
and `bullscows campaign` solving a whole game through real jobs, then resuming from its file on a
fresh database without searching again what it had proven."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import main as cli
from service.jobs import unit_kit
from service.store.db import Database
from service.store.migrate import upgrade
from service.store.positions import PositionStore
from solver.game import Game
from solver.search import Searcher, SolveOptions


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def _rows(url: str) -> set[tuple[Any, ...]]:
    db = Database(url)
    try:
        return {(r.game, r.criterion, r.max_guesses, r.mde, r.bitset, r.m, r.exact, r.value, r.best_guess)
                for r in PositionStore(db).iter_rows()}
    finally:
        db.dispose()


def _fill(url: str) -> int:
    """Solve Mastermind within 5 guesses and keep every entry that cost anything."""
    s = Searcher(Game.from_spec("mastermind"), SolveOptions("total", 5), export_threshold=1)
    s.solve()
    entries = [e for t in s.tables for e in t.export()]
    db = Database(url)
    try:
        return PositionStore(db).save_entries(entries, source="test")
    finally:
        db.dispose()


def test_export_import_round_trip(db_url: str, tmp_path: Path) -> None:
    """Every stored position goes to a .ndjson.gz file and comes back, unchanged, into another
    database (each backend to a fresh SQLite file, whose schema the import creates: how a new machine
    starts from a committed campaign file)."""
    assert _fill(db_url) > 100
    path = tmp_path / "progress.ndjson.gz"
    code, _, err = _run("positions", "export", "--url", db_url, "-o", str(path))
    assert code == 0 and "exported" in err
    lines = gzip.decompress(path.read_bytes()).splitlines()
    assert len(lines) == len(_rows(db_url)) and json.loads(lines[0])["game"] == "4,6,1"
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    code, out, err = _run("positions", "import", str(path), "--url", other)
    assert code == 0, err
    assert f"imported {len(lines)} positions" in out
    assert _rows(other) == _rows(db_url)
    # filters: another criterion exports nothing; plain NDJSON to stdout
    code, out, _ = _run("positions", "export", "--url", db_url, "-c", "kmovers")
    assert code == 0 and out == ""
    code, out, _ = _run("positions", "export", "--url", db_url, "-g", "mastermind")
    assert code == 0 and len(out.splitlines()) == len(lines)


def test_bad_progress_files_change_nothing(db_url: str, tmp_path: Path) -> None:
    _fill(db_url)
    good = tmp_path / "good.ndjson"
    assert _run("positions", "export", "--url", db_url, "-o", str(good))[0] == 0
    lines = good.read_bytes().splitlines()
    before = _rows(db_url)
    first = json.loads(lines[0])
    corrupt: dict[str, bytes] = {
        "truncated.ndjson.gz": gzip.compress(good.read_bytes())[:-40],
        "garbage.ndjson": b"\n".join([lines[0], b"{not json", *lines[1:3]]),
        "other-game.ndjson": json.dumps({**first, "game": "4,10,0"}).encode(),
        "too-good.ndjson": json.dumps({**first, "value": 1, "exact": True}).encode(),
        "unknown-question.ndjson": json.dumps({**first, "criterion": "fastest"}).encode(),
    }
    why = {
        "truncated.ndjson.gz": "end-of-stream", "garbage.ndjson": "line 2: not valid JSON",
        "other-game.ndjson": "line 1: bitset", "too-good.ndjson": "outside the provable range",
        "unknown-question.ndjson": "unknown criterion",
    }
    for name, data in corrupt.items():
        path = tmp_path / name
        path.write_bytes(b"\n".join([*lines[3:20], data]) if name.startswith("too") else data)
        code, _, err = _run("positions", "import", str(path), "--url", db_url)
        assert code == 2, name
        assert err.startswith("error: ") and why[name] in err and "nothing stored" in err, (name, err)
    assert _rows(db_url) == before
    # the import of an exact value that a re-search contradicts is refused too
    small = [obj for obj in map(json.loads, lines)
             if bin(int.from_bytes(base64.b64decode(obj["bitset"]), "little")).count("1") <= 12]
    assert small
    wrong = {**small[0], "value": small[0]["value"] + 1, "exact": True}
    (tmp_path / "wrong.ndjson").write_text(json.dumps(wrong))
    code, _, err = _run("positions", "import", str(tmp_path / "wrong.ndjson"), "--url", db_url)
    assert code == 2 and "re-searched" in err
    assert _rows(db_url) == before


def _campaign(url: str, path: Path, *extra: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli", "campaign", "-g", "mastermind", "-c", "total", "--max-guesses", "5",
         "--progress-file", str(path), "--processes", "1", "--url", url, "--json", *extra],
        # a game this small is mostly searches of under 64 nodes: keep them all, so that the
        # resumed run visibly searches nothing twice
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "BULLSCOWS_JOB_HEARTBEAT_S": "0.5", "BULLSCOWS_EXPORT_THRESHOLD": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: dict[str, Any] = json.loads(proc.stdout)
    out["stderr"] = proc.stderr
    return out


@pytest.mark.slow  # tens of seconds; the whole suite (CI) runs it
def test_campaign_solves_and_resumes_on_a_fresh_database(tmp_path: Path) -> None:
    """fso first, then the exact job seeded by it: Mastermind 5626 within 5 guesses.  A second
    machine (a fresh database) imports the progress file and proves the same answer without searching
    what the first had proven."""
    path = tmp_path / "mastermind.ndjson.gz"
    first = _campaign(f"sqlite:///{tmp_path / 'a.sqlite3'}", path)
    fso, exact = first["stages"]["total/fso"], first["stages"]["total/exact"]
    direct = Searcher(Game.from_spec("mastermind"), SolveOptions("total", 5)).solve()
    assert exact["value"] == direct.value == 5626 and exact["best_guess"] == "0012"
    assert fso["value"] >= exact["value"]
    assert path.exists() and len(gzip.decompress(path.read_bytes()).splitlines()) > 10
    # the exact plan was seeded with fso's values: its units started with a β
    db = Database(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    try:
        from service.store.jobs import JobStore

        js = JobStore(db)
        job = js.get(exact["job"])
        assert job is not None and job.plan is not None and '"seeds"' in job.plan
        assert all(u.beta is not None for u in js.units(job.id, job.phase) if u.status == "done")
    finally:
        db.dispose()
        unit_kit.dispose_all()
    second = _campaign(f"sqlite:///{tmp_path / 'b.sqlite3'}", path)
    assert "imported" in second["stderr"]
    again = second["stages"]["total/exact"]
    assert again["value"] == 5626 and again["per_response"] == exact["per_response"]
    assert again["nodes"] * 10 < exact["nodes"], (again["nodes"], exact["nodes"])


@pytest.mark.slow  # a whole campaign with its own worker; the quick run keeps the campaigns within a limit
def test_campaign_without_a_depth_limit(tmp_path: Path) -> None:
    """--unlimited: the true optimum of the totals, as one search without a depth limit finds it."""
    out = _campaign(f"sqlite:///{tmp_path / 'u.sqlite3'}", tmp_path / "u.ndjson.gz", "--unlimited", "-g", "4,4,1")
    assert out["max_guesses"] is None and out["game"] == "4,4,1"
    direct = Searcher(Game.from_spec("4,4,1"), SolveOptions("total")).solve()
    assert direct.exact and out["stages"]["total/exact"]["value"] == direct.value


def test_campaign_bad_input(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    for args, why in [
        (["-g", "chess"], "unknown game"),
        (["-g", "mastermind", "--max-guesses", "70"], "max_guesses must be between"),
        (["-g", "5,10,0"], "more than the 8192 the exact search takes"),
        (["-g", "mastermind", "--unlimited"], "k-movers need a depth limit"),
        (["-g", "mastermind", "--unlimited", "-c", "kmovers"], "k-movers need a depth limit"),
    ]:
        code, _, err = _run("campaign", *args, "--url", url, "--no-worker")
        assert code == 2 and why in err.lower(), (args, err)
    # a progress file of another game is refused before anything is stored
    small_url = f"sqlite:///{tmp_path / 'small.sqlite3'}"
    upgrade(small_url)
    s = Searcher(Game.from_spec("3,4,1"), SolveOptions("total"), export_threshold=1)
    s.solve()
    db = Database(small_url)
    try:
        assert PositionStore(db).save_entries([e for t in s.tables for e in t.export()]) > 0
    finally:
        db.dispose()
    other = tmp_path / "other.ndjson.gz"
    assert _run("positions", "export", "--url", small_url, "-o", str(other))[0] == 0
    code, _, err = _run("campaign", "-g", "mastermind", "--url", url, "--no-worker", "--progress-file", str(other))
    assert code == 2 and "another game" in err
    assert _rows(url) == set()
