"""Operations: request ids and JSON logs; metrics aggregated across real gunicorn workers."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Any

from flask.testing import FlaskClient
from structlog.testing import capture_logs

from tests.service.conftest import backend_agnostic


@backend_agnostic
def test_request_id_is_echoed_and_logged(client: FlaskClient) -> None:
    with capture_logs() as logs:
        r = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["X-Request-ID"] == "abc-123"
    line = next(x for x in logs if x["event"] == "request")
    assert line["path"] == "/healthz" and line["status"] == 200 and line["log_level"] == "info"
    generated = client.get("/healthz", headers={"X-Request-ID": "bad id with $paces"}).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", generated)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode()
    finally:
        conn.close()  # gunicorn's threaded workers keep connections alive: close ours


def _wait_ready(port: int, seconds: float) -> None:
    """Until the server on ``port`` answers ``/readyz`` 200; fails after ``seconds``."""
    deadline = time.time() + seconds
    while True:
        try:
            if _get(port, "/readyz")[0] == 200:
                return
        except OSError:
            pass
        assert time.time() < deadline, "service did not start"
        time.sleep(0.2)


def test_metrics_aggregate_gunicorn_workers(tmp_path: Any) -> None:
    port = _free_port()
    env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": str(tmp_path), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    bullscows = os.path.join(os.path.dirname(sys.executable), "bullscows")
    proc = subprocess.Popen([bullscows, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_ready(port, 60)
        for _ in range(40):
            assert _get(port, "/healthz")[0] == 200
        status, text = _get(port, "/metrics")
        assert status == 200
        m = re.search(r'bullscows_requests_total\{endpoint="health.healthz",status="200"\} (\d+(?:\.\d+)?)', text)
        assert m and float(m.group(1)) == 40, "every worker's requests are counted, whichever worker answers"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            # gunicorn gives its workers graceful_timeout (30 s by default) before it kills them: a loaded
            # machine can use it all, so wait past it; a server still up after that is a hang, and fails
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # leave no server behind, whatever the outcome
            proc.wait(10)
            raise


def test_warm_up_loads_every_kernel_python_calls() -> None:
    """``warm_up`` (run by set-up, by the image's build and before a server listens) must reach every kernel
    that Python code calls, or the first request that needs a missed one compiles it for seconds (in the
    container, into a cache the image was meant to hold).  Kernels called only from other kernels are
    compiled with their callers."""
    from pathlib import Path

    from numba.core.registry import CPUDispatcher

    import solver.kernels
    import solver.searchkernels
    import solver.ttkernels
    from service.engine import warm_up

    warm_up()
    root = Path(__file__).resolve().parents[2]
    called: set[tuple[str, str]] = set()
    for path in [*root.joinpath("solver").glob("*.py"), *root.joinpath("service").rglob("*.py")]:
        if path.name in ("kernels.py", "searchkernels.py", "ttkernels.py"):
            continue
        for module, name in re.findall(r"\b(searchkernels|sk|ttkernels|tk|kernels)\.([a-z_]\w*)\(", path.read_text()):
            called.add((module, name))
    modules = {"kernels": solver.kernels, "searchkernels": solver.searchkernels, "sk": solver.searchkernels,
               "ttkernels": solver.ttkernels, "tk": solver.ttkernels}
    assert len(called) >= 10, called
    cold = sorted(f"{m}.{n}" for m, n in called
                  if isinstance(getattr(modules[m], n), CPUDispatcher) and not getattr(modules[m], n).signatures)
    assert cold == [], f"warm_up never runs {cold}"


def test_sigterm_stops_a_long_search_and_the_worker(tmp_path: Any) -> None:
    """A worker told to stop does not finish a 20 s search first: the search stops at once, its request is
    answered (its heuristic's guess, as at the end of a budget), and the server is gone within seconds."""
    import json
    import threading

    port = _free_port()
    env = {**os.environ, "BULLSCOWS_INSTANCE_PATH": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    bullscows = os.path.join(os.path.dirname(sys.executable), "bullscows")
    proc = subprocess.Popen([bullscows, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    answer: dict[str, Any] = {}

    def ask() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            # 1200 candidates off every tree: an exact search of far more than 20 s
            body = {"game": "bulls-cows", "history": ["0123 0.1", "0132 0.1"], "time_budget_ms": 20000}
            conn.request("POST", "/v1/next-move", body=json.dumps(body), headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            answer.update(status=resp.status, body=json.loads(resp.read()), at=time.monotonic())
        finally:
            conn.close()

    try:
        _wait_ready(port, 90)
        asking = threading.Thread(target=ask)
        asking.start()
        time.sleep(3)  # the search is under way
        assert not answer, "the search ended before the test could stop it"
        stopped = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        asking.join(30)
        assert answer["status"] == 200 and answer["body"]["source"] == "heuristic", answer
        assert answer["at"] - stopped < 5, "the search went on after SIGTERM"
        proc.wait(20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
