"""Faults: the database going away and coming back (through a TCP proxy we can cut), a read-only
and a full SQLite database, a process killed in the middle of a bulk write.  Requests fail with a
clear problem and store nothing; the same app recovers without a restart."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select

from service.services import get_db, services
from service.store.migrate import downgrade, upgrade
from service.store.models import Job, Position
from tests.service.conftest import PG_URL, make_app
from tests.service.test_positions_strategies import _line


class Proxy:
    """A TCP relay to PostgreSQL on a port of its own: ``stop()`` is the server going away
    (listener closed, every connection cut), ``start()`` it coming back on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._socks: set[socket.socket] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        self._stop.clear()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", self.port))
        self._listener.listen(16)
        self._listener.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._listener.close()
        with self._lock:
            for s in self._socks:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self._socks.clear()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._socks |= {client, upstream}
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select(0.1):
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    key.data.sendall(data)
        except (OSError, ValueError):
            return
        finally:
            sel.close()


@pytest.fixture
def pg_proxy() -> Iterator[tuple[Proxy, str]]:
    downgrade(PG_URL)
    upgrade(PG_URL)
    proxy = Proxy(("127.0.0.1", 5432))
    proxy.start()
    yield proxy, PG_URL.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    with contextlib.suppress(Exception):
        proxy.stop()
    downgrade(PG_URL)


def _count(app: Any, model: Any) -> int:
    with get_db(app).session() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def test_the_database_goes_away_and_comes_back(pg_proxy: tuple[Proxy, str]) -> None:
    proxy, url = pg_proxy
    app = make_app(url)
    client = app.test_client()
    q = {"game": "mastermind", "max_guesses": 5}
    assert client.post("/v1/solve", json={**q, "history": ["0011 1.0"]}).status_code == 200
    stored = _count(app, Position)
    assert stored > 0
    proxy.stop()
    r = client.post("/v1/solve", json={**q, "history": ["0012 1.1"]})
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    assert r.json["type"] == "/problems/database-unavailable" and r.headers["Retry-After"] == "5"
    assert "cannot be reached" in r.json["detail"]
    assert client.post("/v1/jobs", json={"game": "mastermind", "criterion": "kmovers",
                                         "max_guesses": 6}).status_code == 503
    assert client.get("/v1/positions").status_code == 503  # not a broken stream
    assert client.get("/readyz").status_code == 503 and client.get("/healthz").status_code == 200
    # what needs no database keeps working: moves from the shipped trees, one-step strategies
    assert client.post("/v1/next-move", json={"game": "mastermind"}).status_code == 200
    assert client.post("/v1/next-move", json={"game": "bulls-cows", "strategy": "entropy"}).status_code == 200
    proxy.start()
    # the same app, no restart: stale pooled connections are replaced
    deadline = time.monotonic() + 20
    while client.get("/readyz").status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    r = client.post("/v1/solve", json={**q, "history": ["0012 1.1"]})
    assert r.status_code == 200 and r.json["source"] == "search"
    assert _count(app, Position) > stored and _count(app, Job) == 0  # the refused job was never stored


def _pragma(app: Any, sql: str) -> None:
    """Apply an SQLite pragma to every connection of the app from now on."""
    engine = get_db(app).engine

    def on_connect(conn: Any, _record: Any) -> None:
        cur = conn.cursor()
        cur.execute(sql)
        cur.close()

    event.listen(engine, "connect", on_connect)
    engine.dispose()


def test_a_read_only_sqlite_database_serves_reads_and_refuses_writes_clearly(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ro.sqlite3'}"
    upgrade(url)
    app = make_app(url)
    client = app.test_client()
    _, token = services(app).tokens.create("mirror", ["import"])
    assert client.post("/v1/solve", json={"game": "mastermind", "max_guesses": 5,
                                          "history": ["0011 1.0"]}).status_code == 200
    before = _count(app, Position)
    _pragma(app, "PRAGMA query_only = ON")  # what a read-only file or mount does to writes
    auth = {"Authorization": f"Bearer {token}"}
    r = client.post("/v1/positions", data=_line(), headers=auth)
    assert r.status_code == 503 and r.json["type"] == "/problems/database-read-only"
    assert "refuses writes" in r.json["detail"] and "readonly" in r.json["detail"]
    r = client.post("/v1/jobs", json={"game": "mastermind", "criterion": "kmovers", "max_guesses": 6})
    assert r.status_code == 503 and r.json["type"] == "/problems/database-read-only"
    # reads and answers go on: the export, the cache, and new searches (not cached, still right)
    assert client.get("/v1/positions").status_code == 200
    cached = client.post("/v1/solve", json={"game": "mastermind", "max_guesses": 5, "history": ["0011 1.0"]})
    assert cached.status_code == 200 and cached.json["source"] == "cache"
    fresh = client.post("/v1/solve", json={"game": "mastermind", "max_guesses": 5, "history": ["0012 2.0"]})
    assert fresh.status_code == 200 and fresh.json["source"] == "search" and fresh.json["complete"]
    assert _count(app, Position) == before


def test_a_full_sqlite_database_refuses_an_import_whole(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'full.sqlite3'}"
    upgrade(url)
    app = make_app(url)
    client = app.test_client()
    _, token = services(app).tokens.create("mirror", ["import"])
    with get_db(app).engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    _pragma(app, f"PRAGMA max_page_count = {int(pages or 0) + 2}")  # what a full disk does
    body = "\n".join(_line(bitset=_bits(i), value=None, exact=False) for i in range(3, 1296))
    r = client.post("/v1/positions", data=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 507 and r.json["type"] == "/problems/storage-full"
    assert _count(app, Position) == 0  # all or nothing


def _bits(i: int) -> str:
    """The set of codes {0, 1, i} of Mastermind, as an import's bitset."""
    import base64

    bits = bytearray(162)
    for c in (0, 1, i):
        bits[c // 8] |= 1 << (c % 8)
    return base64.b64encode(bytes(bits)).decode()


WRITER = textwrap.dedent("""
    import sys
    from sqlalchemy.orm import Session
    from service.store.db import Database
    from service.store.positions import PositionStore
    from solver.table import Entry, TableKey
    key = TableKey("4,6,1", "total", None, None, False, False)
    entries = [Entry(key, (a, b, c), 64, 3, False, None, None, 1)
               for a in range(0, 60) for b in range(a + 1, 120) for c in range(b + 1, b + 40)]
    print(len(entries), flush=True)
    execute, calls = Session.execute, [0]
    def counted(self, *args, **kw):  # say when two batches are in, the transaction still open
        out = execute(self, *args, **kw)
        calls[0] += 1
        if calls[0] == 2:
            print("mid-write", flush=True)
        return out
    Session.execute = counted
    PositionStore(Database(sys.argv[1])).save_entries(entries, source="killed")
    print("committed", flush=True)
""")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_process_killed_mid_write_leaves_no_partial_entries(backend: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'kill.sqlite3'}" if backend == "sqlite" else PG_URL
    if backend == "postgresql":
        downgrade(url)
    upgrade(url)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, url], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert proc.stdout is not None
    n = int(proc.stdout.readline())
    assert proc.stdout.readline().strip() == "mid-write"  # rows written, not yet committed
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    rest = proc.stdout.read()
    proc.stdout.close()
    assert "committed" not in rest, "the write finished before the kill: make it longer"
    app = make_app(url)
    got = _count(app, Position)
    assert got == 0, f"{got} of {n} rows survived a killed transaction"
    if backend == "postgresql":
        get_db(app).dispose()
        downgrade(url)
