"""The Dockerfile, built and run: the image a user deploys is the one tested.

The image is built on a base made from Debian's packages (``scripts/setup-container``: no registry image can
be pulled on CI's machine), started beside the machine's PostgreSQL, and checked from outside the way an
operator would see it: its HEALTHCHECK turns healthy, a game is played over HTTP, a search runs without
compiling a kernel (numba's cache in the container is the one the image was built with), and the server runs
as an unprivileged user.

Without a reachable container engine the test is skipped, unless ``BULLSCOWS_REQUIRE_CONTAINER`` is set (CI
sets it), when that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from solver.game import Game

pytestmark = [pytest.mark.slow, pytest.mark.container]

ROOT = Path(__file__).resolve().parents[2]
BASE = os.environ.get("BULLSCOWS_CONTAINER_BASE", "bullscows-base:bookworm")
PG_BASE = os.environ.get("BULLSCOWS_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
TAG = f"bullscows:test-{os.getpid()}"


def _docker() -> str | None:
    """A docker client that builds with BuildKit: Debian's (it needs no buildx plugin), else the one on PATH."""
    for candidate in ("/usr/bin/docker", shutil.which("docker")):
        if candidate and os.path.exists(candidate) and \
                subprocess.run([candidate, "info"], capture_output=True).returncode == 0:
            return candidate
    return None


def _unavailable(reason: str) -> None:
    if os.environ.get("BULLSCOWS_REQUIRE_CONTAINER"):
        pytest.fail(f"{reason} (BULLSCOWS_REQUIRE_CONTAINER is set; run scripts/setup-container as root)")
    pytest.skip(f"{reason}: run scripts/setup-container as root")


def _run(*args: str, timeout: float = 60) -> str:
    env = {**os.environ, "DOCKER_BUILDKIT": "1"}  # build secrets need BuildKit
    out = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    assert out.returncode == 0, f"{' '.join(args)}\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def image() -> Iterator[tuple[str, str, float]]:
    """(docker client, tag, build seconds) of an image built from the working tree, removed afterwards."""
    docker = _docker()
    if docker is None:
        _unavailable("no container engine answers")
    assert docker is not None
    if subprocess.run([docker, "image", "inspect", BASE], capture_output=True).returncode != 0:
        _unavailable(f"the base image {BASE} is missing")
    build = [docker, "build", "--pull=false", "--build-arg", f"BASE={BASE}", "-t", TAG]
    if CA_BUNDLE.exists():  # the package index is reached through this machine's certificate authority
        build += ["--secret", f"id=pip-cert,src={CA_BUNDLE}"]
    started = time.monotonic()
    _run(*build, str(ROOT), timeout=1800)
    seconds = time.monotonic() - started
    yield docker, TAG, seconds
    subprocess.run([docker, "image", "rm", "-f", TAG], capture_output=True)
    subprocess.run([docker, "builder", "prune", "-f"], capture_output=True)


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A schema of the test database of its own: the container's migrations run there."""
    from sqlalchemy import create_engine, text

    schema = f"bullscows_container_{os.getpid()}"
    engine = create_engine(PG_BASE)
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield schema
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    engine.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return dict(json.load(r))


def _cache_listing(docker: str, *args: str) -> set[str]:
    """Every file of numba's cache with its size and modification time."""
    script = 'find "$NUMBA_CACHE_DIR" -type f -printf "%P %s %T@\\n"'
    return set(_run(docker, *args, "sh", "-c", script).splitlines())


def test_the_image_serves_healthy_as_an_unprivileged_user_without_compiling(
        image: tuple[str, str, float], pg_schema: str) -> None:
    docker, tag, build_s = image
    size = int(_run(docker, "image", "inspect", "--format", "{{.Size}}", tag).strip())
    print(json.dumps({"image": tag, "base": BASE, "build_s": round(build_s, 1), "size_mb": round(size / 1e6)}))
    built_cache = _cache_listing(docker, "run", "--rm", "--entrypoint", "", tag)
    assert any("/searchkernels." in name for name in built_cache), built_cache

    port = _free_port()
    url = f"{PG_BASE}{'&' if '?' in PG_BASE else '?'}options=-csearch_path%3D{pg_schema}"
    name = f"bullscows-test-{os.getpid()}"
    _run(docker, "run", "-d", "--name", name, "--network", "host", "-e", f"PORT={port}",
         "-e", f"DATABASE_URL={url}", "-e", "WEB_CONCURRENCY=1", "--health-interval=1s", tag)
    try:
        deadline = time.monotonic() + 180
        while (status := _run(docker, "inspect", "--format", "{{.State.Health.Status}}", name).strip()) != "healthy":
            assert status in ("starting", ""), (status, _run(docker, "logs", name))
            assert time.monotonic() < deadline, _run(docker, "logs", name)
            time.sleep(1)

        # The server (PID 1, exec'd by boot.sh) runs as the image's unprivileged user.
        assert _run(docker, "inspect", "--format", "{{.Config.User}}", name).strip() == "app"
        uids = next(line for line in _run(docker, "exec", name, "cat", "/proc/1/status").splitlines()
                    if line.startswith("Uid:")).split()[1:]
        assert uids == ["10001"] * 4, uids

        # A whole game over HTTP, answered from the shipped tree.
        mm = Game.from_spec("mastermind")
        secret = mm.parse_code("5142")
        history: list[str] = []
        while True:
            out = _post(port, "/v1/next-move", {"game": "mastermind", "history": history})
            assert (out["source"], out["exact"]) == ("tree", True), out
            guess = mm.parse_code(out["guess"])
            history.append(f"{out['guess']} {mm.format_response(mm.response(guess, secret))}")
            if guess == secret:
                break
        assert len(history) <= 6

        # A position no tree or shipped knowledge holds: searched, exactly, and written to PostgreSQL.
        started = time.monotonic()
        searched = _post(port, "/v1/solve", {"game": "mastermind", "history": ["0000 0.0"], "time_budget_ms": 20_000})
        first_search_s = time.monotonic() - started
        assert (searched["source"], searched["exact"]) == ("search", True), searched
        again = _post(port, "/v1/solve", {"game": "mastermind", "history": ["1111 0.0"], "time_budget_ms": 20_000})
        assert (again["source"], again["value"]) == ("cache", searched["value"]), again
        print(json.dumps({"first_search_s": round(first_search_s, 2), "nodes": searched.get("nodes")}))

        # Start-up, the game and the search loaded every kernel from the image's cache: nothing compiled.
        assert _cache_listing(docker, "exec", name) == built_cache
    finally:
        logs = subprocess.run([docker, "logs", name], capture_output=True, text=True)
        subprocess.run([docker, "rm", "-f", name], capture_output=True)
        if logs.returncode == 0:
            print(logs.stderr[-4000:])
