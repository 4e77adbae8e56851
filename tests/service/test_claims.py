"""Claims in the database (one driver of a steps campaign at a time), and the store's rewrites of shared files."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.store.claims import Claims
from service.store.db import Database
from service.store.files import read_json, update_json


def test_a_claim_is_held_by_one_and_let_go_at_the_end(db_url: str) -> None:
    db = Database(db_url)
    try:
        claims = Claims(db, stale_after=60.0, beat_every=0.05)
        with claims.held("steps campaign /a") as mine:
            assert mine
            with Claims(db).held("steps campaign /a") as again:  # another driver, live holder: told so at once
                assert not again
            with Claims(db).held("steps campaign /b") as other:  # another name is another claim
                assert other
            row = claims.holder_of("steps campaign /a")
            assert row is not None and row.pid == os.getpid()
        assert claims.names() == []
    finally:
        db.dispose()


def test_a_killed_holders_claim_is_taken_over(db_url: str) -> None:
    """A holder killed without letting go (its row left behind): on its own host its dead pid frees the claim at
    once; on another host, its heartbeat once stale."""
    code = ("import os, sys\nfrom service.store.claims import Claims\nfrom service.store.db import Database\n"
            "c = Claims(Database(sys.argv[1]))\nassert c.take('steps campaign /k')\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, db_url], check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    db = Database(db_url)
    try:
        left = Claims(db).holder_of("steps campaign /k")
        assert left is not None and left.pid != os.getpid()
        with Claims(db).held("steps campaign /k") as mine:
            assert mine
        elsewhere = Claims(db, stale_after=0.0)
        elsewhere.host = "another-machine"
        assert elsewhere.take("steps campaign /k2") is not None
        assert Claims(db, stale_after=3600.0).take("steps campaign /k2") is None  # its holder beats: alive
        assert Claims(db, stale_after=0.0).take("steps campaign /k2") is not None  # stale: taken over
    finally:
        db.dispose()


def _add_many(path: str, who: int, n: int) -> None:
    for i in range(n):
        update_json(path, lambda doc, key=f"{who}-{i}", i=i: {**(doc or {}), key: i})


def test_concurrent_rewrites_of_one_file_lose_nothing(tmp_path: Path) -> None:
    """Two processes each adding their own keys to one file, read and written as one step: every key is there."""
    path = str(tmp_path / "shared.json")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add_many, args=(path, who, 40)) for who in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert all(p.exitcode == 0 for p in procs)
    doc = read_json(path)
    assert sorted(doc) == sorted(f"{w}-{i}" for w in range(2) for i in range(40))


def test_an_update_that_raises_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = str(tmp_path / "kept.json")
    update_json(path, lambda _doc: {"a": 1})
    assert update_json(path, lambda _doc: None) == {"a": 1}  # nothing to change: nothing written

    def broken(_doc: object) -> dict[str, int]:
        raise ValueError("no")

    with pytest.raises(ValueError):
        update_json(path, broken)
    assert json.loads(Path(path).read_text()) == {"a": 1}
