"""Service load benchmark: gunicorn on this machine, load from separate processes, figures as JSON.

1. ``next-move`` answered from the stored Mastermind tree: requests per second and latency
   percentiles under ``--clients`` concurrent clients for ``--seconds`` seconds (histories drawn
   along the tree, so every answer is a tree answer).
2. ``solve`` of a cached position with PostgreSQL behind the service: end-to-end latency of
   repeated requests after one priming search.

Targets (issue 4): next-move from a stored tree at >= 1000 requests/s with p99 < 20 ms; a cached
position from PostgreSQL in < 20 ms end to end.  The load generator shares the 2 cores with the
server, so the figures are a lower bound of what the server alone would do.

3. ``mixed`` (issue 12), under ``bullscows serve --with-worker`` as the README runs it: four
   off-tree optimal Bulls-and-Cows questions at once with a 1000 ms budget while health checks and
   stored-tree moves go on; each search's wall time against its budget (target <= 1.5x), the cheap
   calls' p50/p99 (target p99 < 250 ms), and, once each question's job is done, how fast the same
   question comes back exact from the cache (target < 200 ms).

4. ``big`` (issue 12): one-step strategies, and the heuristic standing in for an optimal one, on
   games of up to 100000 codes whose scan (every code against the candidates, no symmetry left)
   takes longer than ``--big-budget-ms``: each answer's wall time with that budget (target <= 1.5x,
   the answer noting the cut) beside the same question with the maximum budget (the whole scan).

    python benchmarks/bench_service.py [--scenarios tree,cached,mixed,big] [--seconds 10] [--clients 16]
        [--workers 2] [--budget-ms 1000] [--big-budget-ms 50]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_BIN = os.path.dirname(sys.executable)
PG_URL = os.environ.get("BULLSCOWS_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(env: dict[str, str], workers: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    subprocess.run([os.path.join(VENV_BIN, "bullscows"), "db", "upgrade"], env=env, check=True,
                   capture_output=True, cwd=ROOT)
    proc = subprocess.Popen(
        [os.path.join(VENV_BIN, "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
         "--log-level", "warning", "service.wsgi:app"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_ready(port, 60):
        proc.kill()
        raise RuntimeError("server did not become ready")
    return proc, port


@contextlib.contextmanager
def served(env: dict[str, str], seconds: float = 180) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``bullscows serve --workers 1`` the README's way (gunicorn with the project's settings: threads, every tree
    loaded before the fork), ready, as (process, port); stopped (SIGTERM, then SIGKILL) when the block ends."""
    port = free_port()
    proc = subprocess.Popen([os.path.join(VENV_BIN, "bullscows"), "serve", "--bind", f"127.0.0.1:{port}",
                             "--workers", "1"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        if not wait_ready(port, seconds):
            raise SystemExit("the service did not become ready")
        yield proc, port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def wait_ready(port: int, seconds: float) -> bool:
    """Whether ``/readyz`` answers 200 within ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            try:
                conn.request("GET", "/readyz")
                if conn.getresponse().status == 200:
                    return True
            finally:
                conn.close()
        except OSError:
            time.sleep(0.2)
    return False


def post(port: int, path: str, body: dict[str, Any]) -> tuple[int, float, dict[str, Any]]:
    data = json.dumps(body)
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    payload = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return resp.status, elapsed, json.loads(payload) if payload else {}


def tree_histories(count: int, seed: int = 1) -> list[list[str]]:
    """Histories that follow the stored optimal Mastermind tree (prefixes of real games)."""
    from service.trees import TreeLibrary
    from solver.game import Game

    mm = Game.from_spec("mastermind")
    stored = TreeLibrary().get(mm, "optimal-total", None)
    assert stored is not None, "no stored Mastermind tree (run bullscows trees build)"
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        secret = rng.randrange(mm.size)
        guesses = stored.tree.play(secret)
        cut = rng.randrange(len(guesses))
        out.append([f"{mm.format_code(g)} {mm.format_response(mm.response(g, secret))}" for g in guesses[:cut]])
    return out


def _client(port: int, histories: list[list[str]], seconds: float, threads: int, queue: Any) -> None:
    import threading

    lat: list[float] = []
    errors = [0]
    stop = time.time() + seconds
    lock = threading.Lock()

    def run(k: int) -> None:
        rng = random.Random(k)
        mine: list[float] = []
        bad = 0
        while time.time() < stop:
            h = histories[rng.randrange(len(histories))]
            try:
                status, elapsed, body = post(port, "/v1/next-move",
                                             {"game": "mastermind", "history": h, "strategy": "optimal-total"})
                if status != 200 or body.get("source") != "tree":
                    bad += 1
                mine.append(elapsed)
            except OSError:
                bad += 1
        with lock:
            lat.extend(mine)
            errors[0] += bad

    ts = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    queue.put((lat, errors[0]))


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def load_tree(port: int, seconds: float, clients: int) -> dict[str, Any]:
    histories = tree_histories(2000)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = 2
    ps = [ctx.Process(target=_client, args=(port, histories, seconds, max(1, clients // procs), queue))
          for _ in range(procs)]
    t0 = time.perf_counter()
    for p in ps:
        p.start()
    results = [queue.get() for _ in ps]
    for p in ps:
        p.join()
    wall = time.perf_counter() - t0
    lat = [x for r in results for x in r[0]]
    return {
        "requests": len(lat), "errors": sum(r[1] for r in results), "seconds": round(wall, 2),
        "requests_per_s": round(len(lat) / seconds, 1),
        "p50_ms": round(pct(lat, 0.5) * 1000, 2), "p90_ms": round(pct(lat, 0.9) * 1000, 2),
        "p99_ms": round(pct(lat, 0.99) * 1000, 2), "max_ms": round(max(lat) * 1000, 2) if lat else None,
    }


def cached_solves(port: int, repeats: int) -> dict[str, Any]:
    body = {"game": "mastermind", "criterion": "kmovers", "max_guesses": 5, "history": ["0012 1.0"]}
    status, first, r = post(port, "/v1/solve", body)
    assert status == 200 and r["source"] == "search", r
    times = []
    for _ in range(repeats):
        status, elapsed, r = post(port, "/v1/solve", body)
        assert status == 200 and r["source"] == "cache" and r["nodes"] == 0, r
        times.append(elapsed)
    return {"priming_search_ms": round(first * 1000, 1), "repeats": repeats,
            "median_ms": round(statistics.median(times) * 1000, 2), "p99_ms": round(pct(times, 0.99) * 1000, 2)}


MIXED_QUESTIONS = [["0123 0.1", "1245 0.2"], ["0123 0.2", "1456 0.1"], ["0123 1.1", "1456 0.1"],
                   ["0123 1.0", "1245 0.1"]]
"""Bulls-and-Cows positions off the stored optimal tree (its second guesses are 1456, 1245, 0245 and
0456 after 0.1, 0.2, 1.1 and 1.0), each 1.6 to 57 s of exact search on one core: the budget cuts
them, and jobs finish them."""


def start_serve(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """``bullscows serve --with-worker``, the README's way, on a free port."""
    port = free_port()
    proc = subprocess.Popen([os.path.join(VENV_BIN, "bullscows"), "serve", "--with-worker", "--bind",
                             f"127.0.0.1:{port}"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    if not wait_ready(port, 120):
        os.killpg(proc.pid, 9)
        raise RuntimeError("server did not become ready")
    return proc, port


def get(port: int, path: str) -> tuple[int, float, dict[str, Any]]:
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    resp = conn.getresponse()
    payload = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return resp.status, elapsed, json.loads(payload) if payload and payload[:1] in b"{[" else {}


def mixed(port: int, budget_ms: int, job_timeout_s: float) -> dict[str, Any]:
    """Four off-tree optimal questions at once with ``budget_ms``; meanwhile health checks and
    stored-tree moves; then how soon each question comes back exact from the cache once its job ends."""
    import threading

    done = threading.Event()
    cheap: dict[str, list[float]] = {"healthz": [], "tree_move": []}
    cheap_bad = [0]

    def cheap_calls() -> None:
        while not done.is_set():
            status, elapsed, _ = get(port, "/healthz")
            cheap["healthz"].append(elapsed)
            cheap_bad[0] += status != 200
            status, elapsed, body = post(port, "/v1/next-move", {"game": "bulls-cows", "strategy": "optimal-total",
                                                                 "history": ["0123 0.2"]})
            cheap["tree_move"].append(elapsed)
            cheap_bad[0] += status != 200 or body.get("source") != "tree"
            time.sleep(0.01)

    searches: list[dict[str, Any]] = [{} for _ in MIXED_QUESTIONS]

    def ask(k: int) -> None:
        body = {"game": "bulls-cows", "strategy": "optimal-total", "history": MIXED_QUESTIONS[k],
                "time_budget_ms": budget_ms}
        status, elapsed, r = post(port, "/v1/next-move", body)
        searches[k] = {"history": MIXED_QUESTIONS[k], "status": status, "wall_ms": round(elapsed * 1000, 1),
                       "ratio_to_budget": round(elapsed * 1000 / budget_ms, 3), "exact": r.get("exact"),
                       "source": r.get("source"), "job": r.get("job"), "note": r.get("note")}

    watcher = threading.Thread(target=cheap_calls)
    watcher.start()
    time.sleep(0.5)
    askers = [threading.Thread(target=ask, args=(k,)) for k in range(len(MIXED_QUESTIONS))]
    for t in askers:
        t.start()
    for t in askers:
        t.join()
    time.sleep(0.5)
    done.set()
    watcher.join()
    # follow the jobs; once one is done, ask its question again until it comes back exact
    for k, q in enumerate(searches):
        if not q.get("job"):
            continue
        t0 = time.perf_counter()
        status_text = "queued"
        while time.perf_counter() - t0 < job_timeout_s:
            _, _, job = get(port, f"/v1/jobs/{q['job']}")
            status_text = job.get("status", "?")
            if status_text in ("done", "failed", "cancelled"):
                break
            time.sleep(0.5)
        q["job_status"] = status_text
        q["job_wait_s"] = round(time.perf_counter() - t0, 1)
        if status_text != "done":
            continue
        body = {"game": "bulls-cows", "strategy": "optimal-total", "history": MIXED_QUESTIONS[k],
                "time_budget_ms": budget_ms}
        _, elapsed, r = post(port, "/v1/next-move", body)
        q["after_job"] = {"ms": round(elapsed * 1000, 1), "exact": r.get("exact"), "source": r.get("source")}
    return {
        "budget_ms": budget_ms, "searches": searches,
        "cheap_calls": {name: {"count": len(v), "p50_ms": round(pct(v, 0.5) * 1000, 2),
                               "p99_ms": round(pct(v, 0.99) * 1000, 2), "max_ms": round(max(v) * 1000, 2)}
                        for name, v in cheap.items() if v},
        "cheap_errors": cheap_bad[0],
    }


BIG_QUESTIONS = [
    ("5,10,1", ["00123 1.2", "34567 1.1", "78901 0.2"], "entropy"),
    ("5,10,1", ["00123 1.2", "34567 1.1", "78901 0.2"], "most-parts"),
    ("5,10,1", ["00123 1.2", "34567 1.1"], "expected-size"),
    ("7,5,1", ["0011234 1.3", "1234012 2.2"], "most-parts"),
    ("5,10,1", ["00123 1.2", "34567 1.1", "78901 0.2"], "optimal-total"),
]
"""(game, history, strategy): positions of 100000 and 78125 codes where no symmetry is left, so every
code is scored against the candidates (0.1 to 0.3 s on this machine); optimal-total there is answered
by the Larmouth heuristic (no response table fits)."""


def big(port: int, budget_ms: int, runs: int) -> list[dict[str, Any]]:
    """Median wall time of each big one-step question with ``budget_ms`` and with the maximum budget."""
    out = []
    for game, history, strategy in BIG_QUESTIONS:
        body = {"game": game, "history": history, "strategy": strategy}
        post(port, "/v1/next-move", {**body, "time_budget_ms": 20_000})  # symmetry caches, like a client's 2nd call
        row: dict[str, Any] = {"game": game, "history": history, "strategy": strategy}
        for label, ms in (("budgeted", budget_ms), ("whole", 20_000)):
            times, notes = [], []
            for _ in range(runs):
                status, elapsed, r = post(port, "/v1/next-move", {**body, "time_budget_ms": ms})
                assert status == 200, r
                times.append(elapsed)
                notes.append(r.get("note"))
            row[label] = {"budget_ms": ms, "median_ms": round(statistics.median(times) * 1000, 1),
                          "cut": sum("budget after scoring" in (n or "") for n in notes), "runs": runs,
                          "note": notes[-1]}
        row["budgeted"]["ratio_to_budget"] = round(row["budgeted"]["median_ms"] / budget_ms, 2)
        out.append(row)
    return out


@contextlib.contextmanager
def fresh_service(workers: int | None) -> Iterator[int]:
    """A service on an SQLite database of its own, stopped afterwards; yields its port.  ``workers``
    None runs ``bullscows serve --with-worker`` (the README's way), else gunicorn with that many
    workers."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": tmp}
        env.pop("DATABASE_URL", None)
        proc, port = start_serve(env) if workers is None else start_server(env, workers)
        try:
            yield port
        finally:
            if workers is None:
                os.killpg(proc.pid, 15)  # the server and its worker
            else:
                proc.terminate()
            proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--scenarios", default="tree,cached,mixed",
                    help="tree (load on stored-tree moves), cached (PostgreSQL cache), mixed (searches "
                         "beside cheap calls, under `bullscows serve --with-worker`), big (one-step "
                         "budgets on 100000-code games)")
    ap.add_argument("--budget-ms", type=int, default=1000, help="mixed: budget of each search")
    ap.add_argument("--job-timeout-s", type=float, default=600, help="mixed: how long to follow each job")
    ap.add_argument("--big-budget-ms", type=int, default=50, help="big: budget of each one-step question")
    ap.add_argument("--runs", type=int, default=5, help="big: runs of each question (median)")
    args = ap.parse_args()
    scenarios = set(args.scenarios.split(","))
    out: dict[str, Any] = {"benchmark": "service", "machine": machine(), "workers": args.workers}
    if "mixed" in scenarios:
        with fresh_service(None) as port:
            post(port, "/v1/next-move", {"game": "bulls-cows", "strategy": "optimal-total"})  # load the trees
            out["mixed_sqlite"] = mixed(port, args.budget_ms, args.job_timeout_s)
    if "tree" in scenarios:
        with fresh_service(args.workers) as port:
            post(port, "/v1/next-move", {"game": "mastermind", "strategy": "optimal-total"})  # load the trees
            out["next_move_from_tree_sqlite"] = load_tree(port, args.seconds, args.clients)
    if "big" in scenarios:
        with fresh_service(args.workers) as port:
            out["big_one_step"] = big(port, args.big_budget_ms, args.runs)
    if "cached" in scenarios:
        out["cached_solve_postgresql"] = cached_postgresql(args.workers, args.repeats)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


def cached_postgresql(workers: int, repeats: int) -> dict[str, Any]:
    """The cached-solve scenario on a PostgreSQL schema of its own."""
    schema = f"bullscows_bench_{os.getpid()}"
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
        proc, port = start_server({**os.environ, "DATABASE_URL": url}, workers)
        try:
            return cached_solves(port, repeats)
        finally:
            proc.terminate()
            proc.wait(30)
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


if __name__ == "__main__":
    main()
