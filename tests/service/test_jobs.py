"""Durable jobs with real workers: `bullscows worker` processes, each a Dask LocalCluster, on SQLite
and PostgreSQL; killed with SIGKILL mid-job and restarted; two of them sharing one job.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from service.cli import main as cli
from service.jobs import manage, unit_kit, unit_runs
from service.jobs.plan import JobRequest
from service.jobs.runner import run_unit
from service.lookups import cached_solve
from service.services import services
from service.store import db as store_db
from service.store import jobs as store_jobs
from service.store.jobs import JobStore, as_aware
from service.store.positions import PositionStore
from solver.game import Game
from solver.search import Searcher, SolveOptions
from tests.service.conftest import PG_URL, make_app, quick_on_postgresql

ENV = {"BULLSCOWS_JOB_STALE_AFTER_S": "5", "BULLSCOWS_JOB_HEARTBEAT_S": "0.5"}
MM_TOTAL = SolveOptions("total")


_dbs: list[store_db.Database] = []


def Database(url: str) -> store_db.Database:
    db = store_db.Database(url)
    _dbs.append(db)
    return db


@pytest.fixture(autouse=True)
def _close_connections() -> Iterator[None]:
    yield
    while _dbs:
        _dbs.pop().dispose()
    unit_kit.dispose_all()


@pytest.fixture(scope="module")
def mm_direct() -> Any:
    """The in-process search the jobs must agree with."""
    return Searcher(Game.from_spec("mastermind"), MM_TOTAL).solve()


class Workers:
    """Start `bullscows worker` processes (each in its own session) and always clean them up."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url = url
        self.logs = logs
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, processes: int = 2, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}-{len(self.procs)}.log", "wb")  # noqa: SIM115 (closed with the process)
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--processes", str(processes), "--name", name,
             "--url", self.url, "--no-migrate"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **ENV, **(env or {})}, start_new_session=True,
            cwd=cwd,
        )
        log.close()
        self.procs.append(proc)
        return proc

    def tails(self, lines: int = 30) -> str:
        """The last lines of every worker's log, for a failure's message: the logs live in the test's
        temporary folder, which a CI run does not keep."""
        out = []
        for log in sorted(self.logs.glob("*.log")):
            text = log.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {log.name}\n" + "\n".join(text))
        return "\n".join(out)

    def stop_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)


@pytest.fixture
def workers(db_url: str, tmp_path: Path) -> Iterator[Workers]:
    w = Workers(db_url, tmp_path)
    yield w
    w.stop_all()


class ManualClock:
    """A clock the test moves by hand, so that leases and heartbeats age without waiting."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """The clock of every job store of this process, the ones a worker's task makes included."""
    manual = ManualClock()
    monkeypatch.setattr(store_jobs, "_now", manual)
    return manual


def _wait(cond: Callable[[], Any], timeout: float, what: str, poll: float = 0.05,
          explain: Callable[[], str] | None = None) -> Any:
    """Poll ``cond`` until it is truthy; on a timeout, ``explain()`` adds what the state was."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(poll)
    detail = f"\n{explain()}" if explain is not None else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{detail}")


def _ended(units: list[Any]) -> list[Any] | None:
    """The units, once none is running (rows or JSON objects)."""
    running = [u for u in units if (u["status"] if isinstance(u, dict) else u.status) == "running"]
    return None if running else units


def _session_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _submit(url: str, options: SolveOptions = MM_TOTAL, game: str = "mastermind", history: str = "") -> str:
    g = Game.from_spec(game)
    job, created = JobStore(Database(url)).submit(JobRequest.of(g, g.parse_history(history), options), "test")
    assert created
    return job.id


@quick_on_postgresql
def test_solve_past_its_budget_becomes_a_job(db_url: str, workers: Workers, mm_direct: Any) -> None:
    """POST /v1/solve → 202 + Location; a worker (2 Dask processes) finishes it with the in-process
    value; then the same question is answered from the database with no search."""
    app = make_app(db_url)
    client: FlaskClient = app.test_client()
    # the shipped tree knows this answer: search: true has it proven again
    body = {"game": "mastermind", "time_budget_ms": 1, "wait_ms": 0, "search": True}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 202, r.json
    location = r.headers["Location"]
    assert location.startswith("/v1/jobs/") and r.json["status"] == "queued"
    # asking again while it waits reuses the job instead of searching again
    again = client.post("/v1/solve", json=body)
    assert again.status_code == 202 and again.headers["Location"] == location
    workers.start("w", processes=2)
    job = _wait(lambda: (j := client.get(location).json)["status"] in ("done", "failed") and j, 180, "the job")
    assert job["status"] == "done", job
    result = job["result"]
    mm = Game.from_spec("mastermind")
    assert result["value"] == mm_direct.value == 5625 and result["exact"] is True
    assert result["best_guess"] == mm.format_code(mm_direct.best_guess)
    assert result["per_response"] == {mm.format_response(k): v for k, v in mm_direct.per_response.items()}
    listed = client.get("/v1/jobs").json
    assert listed["workers_alive"] >= 1 and listed["jobs"][0]["id"] == job["id"]
    # a job may be proven while units it no longer needs still run: they end (done) soon after
    units = _wait(lambda: _ended(client.get(f"{location}?units=true").json["units"]), 60, "units to end")
    p = client.get(location).json["progress"]
    assert p["units_done"] == p["units_total"] > 10 and p["best_exact"] and p["lower_bound"] == 5625
    assert len(units) == p["units_total"]
    assert all(u["attempts"] == (1 if u["status"] == "done" else 0) for u in units), units  # none ran twice
    assert {u["status"] for u in units} <= {"done", "skipped"}
    # the job's proof is in the table: the chain's table step answers it with no search
    cached = cached_solve(services(app).positions, mm, [], MM_TOTAL, mm.all_codes)
    assert cached is not None and cached.nodes == 0 and cached.value == 5625
    assert {mm.format_response(k): v for k, v in cached.per_response.items()} == result["per_response"]
    asked = client.post("/v1/solve", json={"game": "mastermind"}).json
    assert (asked["source"], asked["value"]) == ("tree", 5625)


@quick_on_postgresql
def _scrape(client: FlaskClient) -> dict[str, float]:
    """``/metrics`` as {sample with its labels: value}."""
    r = client.get("/metrics")
    assert r.status_code == 200
    samples = (line.rsplit(" ", 1) for line in r.data.decode().splitlines() if line and not line.startswith("#"))
    return {name: float(value) for name, value in samples}


def test_metrics_show_the_queue_while_a_worker_runs_a_job(db_url: str, workers: Workers) -> None:
    """An operator's view: ``/metrics`` scraped while a real worker runs a job gives the job running, its units by
    state (some running), the live worker and its last heartbeat; the job cancelled, the next scrapes say so."""
    client: FlaskClient = make_app(db_url).test_client()
    body = {"game": "mastermind", "time_budget_ms": 1, "wait_ms": 0, "search": True}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 202, r.json
    location = r.headers["Location"]
    before = _scrape(client)
    assert before["bullscows_job_store_up"] == 1 and before['bullscows_jobs{state="queued"}'] == 1
    assert before["bullscows_workers_alive"] == 0 and before['bullscows_job_units{state="running"}'] == 0
    started = time.time()
    workers.start("metrics-worker", processes=1)
    during = _wait(lambda: (m := _scrape(client))['bullscows_job_units{state="running"}'] >= 1 and m, 120,
                   "a unit running", explain=workers.tails)
    assert during['bullscows_jobs{state="running"}'] == 1 and during['bullscows_jobs{state="queued"}'] == 0
    assert during["bullscows_workers_alive"] == 1
    heartbeat = during['bullscows_worker_last_heartbeat_timestamp_seconds{worker="metrics-worker"}']
    assert started - 5 <= heartbeat <= time.time() + 5
    assert client.delete(location).status_code in (200, 202)
    after = _wait(lambda: (m := _scrape(client))['bullscows_jobs{state="cancelled"}'] == 1 and m, 60,
                  "the job cancelled", explain=workers.tails)
    assert after['bullscows_jobs{state="running"}'] == 0


def test_next_move_cut_short_finishes_as_a_job(db_url: str, workers: Workers) -> None:
    """An optimal next move past its budget that asks for a job answers the heuristic and the job; once a worker
    has done it, the same question comes back exact from the cache, on this instance and on another one."""
    client: FlaskClient = make_app(db_url).test_client()
    body = {"game": "mastermind", "strategy": "optimal-total", "history": ["0000 0.0"], "time_budget_ms": 1,
            "job": True}
    first = client.post("/v1/next-move", json=body).json
    assert first["exact"] is False and first["job"], first
    workers.start("w", processes=2)
    job = _wait(lambda: (j := client.get(first["job_url"]).json)["status"] in ("done", "failed") and j, 180,
                "the job")
    assert job["status"] == "done", job
    for c in (client, make_app(db_url).test_client()):
        t0 = time.perf_counter()
        r = c.post("/v1/next-move", json=body).json
        assert (r["exact"], r["source"], r["job"]) == (True, "cache", None), r
        assert r["guess"] == job["result"]["best_guess"]
        assert time.perf_counter() - t0 < 1.0


@pytest.mark.slow  # tens of seconds; the whole suite (CI) runs it
def test_killed_worker_resumes_without_redoing_units(db_url: str, workers: Workers, mm_direct: Any) -> None:
    """SIGKILL the worker mid-job: its Dask processes go with it; a new worker re-queues the lost
    units (heartbeats stopped) and finishes with the same value, never re-running a finished unit."""
    jobs = JobStore(Database(db_url))
    job_id = _submit(db_url)
    first = workers.start("a", processes=2)

    def some_done() -> bool:
        units = jobs.units(job_id)
        return sum(u.status == "done" for u in units) >= 6 and any(u.status == "running" for u in units)

    _wait(some_done, 180, "units to finish")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    _wait(lambda: _session_gone(first.pid), 30, "the killed worker's Dask processes to exit")
    before = {u.id: (u.nodes, u.finished_at, u.attempts) for u in jobs.units(job_id) if u.status == "done"}
    job = jobs.get(job_id)
    assert job is not None and job.status == "running"
    workers.start("b", processes=2)
    job = _wait(lambda: (j := jobs.get(job_id)) is not None and j.status in ("done", "failed") and j, 180, "the job")
    assert job.status == "done", job.error
    result = orjson.loads(job.result)
    assert result["value"] == mm_direct.value
    # units the dead worker held end as stale (re-queued, or skipped once the job is proven), and
    # units the proven job no longer needs end too
    units = _wait(lambda: _ended(jobs.units(job_id)), 60, "every unit to end")
    after = {u.id: u for u in units}
    for uid, (nodes, finished, attempts) in before.items():
        u = after[uid]
        assert attempts == 1 and (u.status, u.nodes, u.finished_at, u.attempts) == ("done", nodes, finished, 1)
    rerun = [u for u in units if u.id not in before]
    assert all(u.attempts <= 2 for u in units) and all(u.status in ("done", "skipped") for u in units)
    nodes_before = sum(n for n, _, _ in before.values())
    nodes_b = sum(int(u.nodes) for u in rerun if u.worker == "b")
    # the second worker searched only what the first had not finished
    assert nodes_before > 0 and 0 < nodes_b < result["nodes"]
    assert any(u.worker == "b" for u in rerun)
    assert all(u.worker and u.worker.startswith("a") for u in after.values() if u.id in before)


@pytest.mark.slow  # about a minute; the whole suite (CI) runs it
def test_a_worker_killed_mid_unit_loses_at_most_a_checkpoint(db_url: str, workers: Workers, tmp_path: Path) -> None:
    """SIGKILL a worker in the middle of a long unit that saves its proven positions every 2 s: the
    unit's next attempt, on another worker, reaches the same value and searches only what was left
    after the last save, plus a walk back through the saved positions (about 0.1 M nodes, whatever the
    progress: the positions too cheap to save, on the way back).  The figures are written to
    ``build/test-artifacts/checkpoint-resume.json``."""
    bc = Game.from_spec("bulls-cows")
    history = "0123 0.1, 1456 0.2"  # 369 candidates, 1010 guesses to try: one root unit of 3.1 M nodes
    ref = Searcher(bc, SolveOptions("total")).solve(bc.parse_history(history))
    jobs = JobStore(Database(db_url))
    job_id = _submit(db_url, SolveOptions("total"), "bulls-cows", history)
    env = {"BULLSCOWS_JOB_CHECKPOINT_S": "2"}
    first = workers.start("a", processes=1, env=env)

    def saved_twice() -> Any:
        # two saves of about four the unit makes: the kill lands with half of it to go, on a fast
        # machine as on a slow one (waiting for a third left a window of one interval, missed once)
        units = jobs.units(job_id)
        return len(units) == 1 and units[0].status == "running" and units[0].checkpoints >= 2 and units[0]

    def state() -> str:
        rows = [(u.status, u.attempts, u.checkpoints, u.nodes, u.error) for u in jobs.units(job_id)]
        return f"units (status, attempts, checkpoints, nodes, error): {rows}\n{workers.tails()}"

    _wait(saved_twice, 120, "the unit's second checkpoint", poll=0.1, explain=state)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    _wait(lambda: _session_gone(first.pid), 30, "the killed worker's Dask processes to exit")
    (killed,) = jobs.units(job_id)
    assert killed.status == "running" and killed.attempts == 1
    k1, s1, c1 = int(killed.nodes), int(killed.saved_nodes), int(killed.checkpoints)
    assert 0 < s1 <= k1 < ref.nodes
    workers.start("b", processes=1, env=env)
    job = _wait(lambda: (j := jobs.get(job_id)) is not None and j.status in ("done", "failed") and j, 180, "the job",
                explain=state)
    assert job.status == "done", job.error
    result = orjson.loads(job.result)
    assert (result["value"], result["best_guess"]) == (ref.value, bc.format_code(ref.best_guess))
    (unit,) = jobs.units(job_id)
    assert (unit.status, unit.attempts, unit.worker) == ("done", 2, "b")
    n2 = int(unit.nodes)
    interval = s1 / c1  # nodes the first attempt searched per checkpoint interval
    walk_back = n2 - (ref.nodes - s1)  # what the second attempt searched beyond what was left
    redone = k1 + n2 - ref.nodes  # all the work done twice: the lost tail of attempt 1, and the walk back
    figures = {"reference_nodes": ref.nodes, "killed_at_nodes": k1, "saved_nodes": s1, "checkpoints": c1,
               "resumed_nodes": n2, "nodes_per_interval": round(interval), "walk_back_nodes": walk_back,
               "redone_nodes": redone, "redone_intervals": round(redone / interval, 3)}
    out = Path("build/test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    (out / "checkpoint-resume.json").write_text(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
    # the resumed attempt did not start over: it searched what was left, and less than half an
    # interval more to walk back to it
    assert walk_back < interval / 2, figures
    # what was done twice is the killed attempt's tail since its last save and that walk: about one
    # interval at most (the tail is read from the last heartbeat, so it can be a beat short)
    assert redone < 1.5 * interval, figures


@pytest.mark.slow  # tens of seconds; the whole suite (CI) runs it
def test_two_workers_share_a_job_and_cancel_stops_them(tmp_path: Path) -> None:
    """Two workers on one PostgreSQL, each in a working folder of its own (two machines as far as
    they can tell): every unit runs once, both take part; cancelling a long job stops its running
    units within a few heartbeats and leaves the workers ready for more."""
    from service.store.migrate import downgrade, upgrade

    url = PG_URL
    downgrade(url)
    upgrade(url)
    w = Workers(url, tmp_path)
    try:
        job_id = _submit(url)
        for side in ("left", "right"):
            folder = tmp_path / side
            folder.mkdir()
            w.start(side, processes=1, cwd=folder)
        jobs = JobStore(Database(url))
        job = _wait(lambda: (j := jobs.get(job_id)) is not None and j.status in ("done", "failed") and j, 180,
                    "the shared job")
        assert job.status == "done" and orjson.loads(job.result)["value"] == 5625
        # a job may be proven while units it no longer needs still run: they end soon after
        units = _wait(lambda: _ended(jobs.units(job_id)), 60, "units the proven job no longer needs to end")
        twice = [(u.id, u.status, u.attempts) for u in units if u.attempts != (1 if u.status == "done" else 0)]
        assert not twice, twice  # none ran twice
        assert {u.worker for u in units if u.status == "done"} == {"left", "right"}

        long_id = _submit(url, SolveOptions("total"), "bulls-cows")  # hours of search
        _wait(lambda: sum(u.status == "running" for u in jobs.units(long_id)) >= 2, 120, "units to start")
        assert jobs.cancel(long_id) == ("cancelled", True)
        _wait(lambda: not any(u.status in ("running", "queued") for u in jobs.units(long_id)), 30,
              "running units to stop")
        assert {u.status for u in jobs.units(long_id)} <= {"cancelled", "done"}
        assert all(p.poll() is None for p in w.procs)  # the workers carry on
        again = _submit(url, SolveOptions("kmovers", 5))
        job = _wait(lambda: (j := jobs.get(again)) is not None and j.status == "done" and j, 120, "a later job")
        assert orjson.loads(job.result)["value"] == 539
    finally:
        w.stop_all()
        downgrade(url)


def test_a_unit_run_twice_writes_nothing_twice(db_url: str) -> None:
    """Idempotence: a unit re-queued and run again gives the same result, adds no position rows,
    and the stale run's late report is refused (its lease is gone)."""
    db = Database(db_url)
    jobs, positions = JobStore(db), PositionStore(db)
    bc = Game.from_spec("bulls-cows")
    job_id = _submit(db_url, SolveOptions("kmovers", 7, mde=3), "bulls-cows", "0123 0.2, 1045 1.1")
    job = jobs.claim_for_planning("t", 60)
    assert job is not None and job.id == job_id
    req = JobRequest.from_json(job.request)
    assert manage.plan_job(jobs, positions, job, "t", Searcher(bc, req.options(7)))
    claim = jobs.claim_units("t", 1)[0]
    first = run_unit(db_url, claim.unit_id, claim.lease, 0.5)
    assert first["status"] == "done"
    unit = next(u for u in jobs.units(job_id) if u.id == claim.unit_id)
    rows = positions.count()
    # put it back as a stale unit would be, and run it again under a new lease
    with db.session() as s:
        from sqlalchemy import update

        from service.store.models import JobUnit

        s.execute(update(JobUnit).where(JobUnit.id == claim.unit_id).values(status="queued"))
    again = next(c for c in jobs.claim_units("t", 50) if c.unit_id == claim.unit_id)
    assert run_unit(db_url, again.unit_id, again.lease, 0.5)["status"] == "done"
    rerun = next(u for u in jobs.units(job_id) if u.id == claim.unit_id)
    assert (rerun.value, rerun.exact, rerun.best_guess) == (unit.value, unit.exact, unit.best_guess)
    assert positions.count() == rows and rerun.attempts == 2
    assert run_unit(db_url, claim.unit_id, claim.lease, 0.5)["status"] == "lost"  # the old lease


def test_a_unit_slow_to_start_is_not_taken_for_lost(db_url: str, monkeypatch: pytest.MonkeyPatch,
                                                    clock: ManualClock) -> None:
    """A claimed unit is silent until its task starts and its searcher is warm (numba compiling on a
    fresh machine takes many heartbeats): its task beats from its first instant, and its worker
    vouches for it while it waits; a unit nobody vouches for is re-queued."""
    import threading

    db = Database(db_url)
    jobs, positions = JobStore(db), PositionStore(db)
    mm = Game.from_spec("mastermind")
    job_id = _submit(db_url, SolveOptions("kmovers", 6), "mastermind", "0011 1.0")
    job = jobs.claim_for_planning("t", 60)
    assert job is not None and job.id == job_id
    assert manage.plan_job(jobs, positions, job, "t", Searcher(mm, SolveOptions("kmovers", 6)))
    a, b, c = jobs.claim_units("t", 3)
    clock.advance(0.6)
    assert jobs.vouch([(a.unit_id, a.lease), (b.unit_id, "not-its-lease")]) == 1
    assert jobs.requeue_stale(0.5, 3) == 2  # b and c: nobody holding their lease spoke for them
    status = {u.id: u.status for u in jobs.units(job_id)}
    assert (status[a.unit_id], status[b.unit_id], status[c.unit_id]) == ("running", "queued", "queued")

    real = unit_runs.searcher_for
    warming, compiled = threading.Event(), threading.Event()

    def slow_searcher_for(*args: Any, **kw: Any) -> Searcher:
        warming.set()
        assert compiled.wait(60)  # a first compile: as long as the test keeps it waiting
        return real(*args, **kw)

    monkeypatch.setattr(unit_runs, "searcher_for", slow_searcher_for)
    report: dict[str, Any] = {}
    t = threading.Thread(target=lambda: report.update(run_unit(db_url, a.unit_id, a.lease, 0.05)))
    t.start()
    try:
        assert warming.wait(30)
        clock.advance(1.0)  # twice the staleness limit since a's last word ...
        aged = clock()

        def beat_of_a() -> bool:
            beat = as_aware(next(u for u in jobs.units(job_id) if u.id == a.unit_id).heartbeat_at)
            return beat is not None and beat >= aged

        _wait(beat_of_a, 30, "a heartbeat while the searcher warms up")  # ... but its task beats meanwhile
        assert jobs.requeue_stale(0.5, 3) == 0
    finally:
        compiled.set()
        t.join(60)
    assert report["status"] == "done"


def test_a_stale_unit_of_an_ended_job_is_not_queued_again(db_url: str, clock: ManualClock) -> None:
    """A dead worker's unit whose job was cancelled (or proven) meanwhile must not wait in the queue
    for ever: it ends with its job."""
    db = Database(db_url)
    jobs, positions = JobStore(db), PositionStore(db)
    job_id = _submit(db_url, SolveOptions("kmovers", 6), "mastermind", "0011 1.0")
    job = jobs.claim_for_planning("t", 60)
    assert job is not None
    planner = Searcher(Game.from_spec("mastermind"), SolveOptions("kmovers", 6))
    assert manage.plan_job(jobs, positions, job, "t", planner)
    claim = jobs.claim_units("t", 1)[0]
    assert jobs.cancel(job_id) == ("cancelled", True)
    clock.advance(0.6)
    assert jobs.requeue_stale(0.5, 3) == 1
    unit = next(u for u in jobs.units(job_id) if u.id == claim.unit_id)
    assert unit.status == "cancelled" and unit.lease is None
    assert not jobs.claim_units("t", 10)


def test_jobs_api_errors_change_nothing(client: FlaskClient) -> None:
    r = client.get("/v1/jobs/0123456789abcdef0123456789abcdef")
    assert r.status_code == 404 and r.json["type"] == "/problems/job-not-found"
    assert r.mimetype == "application/problem+json"
    assert client.delete("/v1/jobs/nope").status_code == 404
    assert client.get("/v1/jobs?status=sleeping").status_code == 422
    assert client.get("/v1/jobs?limit=0").status_code == 422
    bad = client.post("/v1/jobs", json={"game": "bulls-cows", "history": ["0123 0.0", "4567 0.4", "5674 0.0"]})
    assert bad.status_code == 400 and bad.json["type"] == "/problems/inconsistent-history"
    bad = client.post("/v1/jobs", json={"game": "2,11,1", "criterion": "kmovers"})  # no known smallest worst case
    assert bad.status_code == 422 and bad.json["type"] == "/problems/max-guesses-needed"
    bad = client.post("/v1/jobs", json={"game": "5,10,0"})  # 30240 codes: no response table
    assert bad.status_code == 400 and bad.json["type"] == "/problems/invalid-search-parameters"
    assert client.get("/v1/jobs").json["jobs"] == []
    ok = client.post("/v1/jobs", json={"game": "mastermind", "criterion": "kmovers", "max_guesses": 5})
    assert ok.status_code == 202 and ok.json["status"] == "queued"
    job_id = ok.json["id"]
    same = client.post("/v1/jobs", json={"game": "mastermind", "criterion": "kmovers", "max_guesses": 5})
    assert same.json["id"] == job_id
    gone = client.delete(f"/v1/jobs/{job_id}")
    assert gone.status_code == 200 and gone.json["status"] == "cancelled"
    assert client.delete(f"/v1/jobs/{job_id}").status_code == 409
    # a cancelled job is not reused: submitting again starts afresh
    fresh = client.post("/v1/jobs", json={"game": "mastermind", "criterion": "kmovers", "max_guesses": 5})
    assert fresh.status_code == 202 and fresh.json["id"] != job_id
    # evaluations and bounded questions never become jobs
    r = client.post("/v1/solve", json={"game": "bulls-cows", "guess": "4567", "history": ["0123 0.1"],
                                       "time_budget_ms": 1})
    assert r.status_code == 200 and r.json["complete"] is False
    off_tree = ["0123 0.1", "0132 0.1"]  # no proven tree, knowledge or table knows it: the search is cut
    r = client.post("/v1/solve", json={"game": "bulls-cows", "history": off_tree, "time_budget_ms": 1,
                                       "job": False})
    assert r.status_code == 200 and r.json["complete"] is False and r.json["value"] is None


def test_cli_submits_lists_shows_and_cancels(tmp_path: Path) -> None:
    from service.store.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    upgrade(url)
    runner = CliRunner()
    r = runner.invoke(cli, ["solve", "-g", "mastermind", "-c", "kmovers", "--max-guesses", "5", "--job",
                            "--no-wait", "--json", "--url", url])
    assert r.exit_code == 0, r.output
    job_id = orjson.loads(r.stdout.strip().splitlines()[-1])["id"]
    assert "no worker is alive" in r.stderr
    r = runner.invoke(cli, ["jobs", "list", "--json", "--url", url])
    assert r.exit_code == 0 and [v["id"] for v in orjson.loads(r.stdout)] == [job_id]
    r = runner.invoke(cli, ["jobs", "show", job_id, "--url", url, "--json"])
    assert r.exit_code == 0 and orjson.loads(r.stdout)["status"] == "queued"
    r = runner.invoke(cli, ["jobs", "cancel", job_id, "--url", url])
    assert r.exit_code == 0 and "cancelled" in r.stdout
    r = runner.invoke(cli, ["jobs", "cancel", job_id, "--url", url])
    assert r.exit_code == 2 and "only queued or running" in r.stderr
    r = runner.invoke(cli, ["jobs", "show", "nope", "--url", url])
    assert r.exit_code == 2 and "no job" in r.stderr
    r = runner.invoke(cli, ["solve", "-g", "mastermind", "--guess", "0011", "--job", "--url", url])
    assert r.exit_code == 2 and "--job solves a position exactly" in r.stderr


def test_cli_job_commands_close_their_connections(db_url: str) -> None:
    """A job command run inside another program's process (a script, these tests) closes its database connections
    when it ends: left to the garbage collector, PostgreSQL's would warn in whatever runs next."""
    import gc
    import warnings

    gc.collect()
    r = CliRunner().invoke(cli, ["jobs", "list", "--json", "--url", db_url])
    assert r.exit_code == 0 and orjson.loads(r.stdout) == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
