"""Browser fixtures: the real app served over HTTP on a free port (SQLite, migrated), a real job worker
on its database for the tests that need one, and Debian's Chromium driven by Playwright.  Every page
records the requests it makes, the errors it throws and what it logs to the console as errors; a test
fails if the page reached outside the service, raised a JavaScript error, or logged a console error it
did not provoke on purpose (a test that makes the service refuse a request names the refusals it
expects in ``page_log.expected``)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service.app import create_app
from service.store.migrate import upgrade
from tests.service.conftest import NO_LIMITS

CHROMIUM = os.environ.get("BULLSCOWS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = Path(os.environ.get("BULLSCOWS_ARTIFACTS",
                                Path(__file__).resolve().parents[2] / "build" / "test-artifacts"))


class LiveServer:
    """The app on 127.0.0.1 in a background thread (threaded werkzeug server)."""

    def __init__(self, app: Any, url_db: str) -> None:
        self.app = app
        self.url_db = url_db
        """The app's database (workers and the tests reach it directly)."""
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.thread.join(10)
        self.server.server_close()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("web")
    url = f"sqlite:///{folder / 'web.sqlite3'}"
    upgrade(url)
    app = create_app({"DATABASE_URL": url, **NO_LIMITS, "SECRET_KEY": "test-key"})
    with LiveServer(app, url) as server:
        yield server
    from service.services import get_db

    get_db(app).dispose()


class Workers:
    """Real `bullscows worker` processes (one Dask process each) on the live server's database, as
    `scripts/run` starts one beside the service; started when a test asks, stopped with the module."""

    def __init__(self, live: LiveServer, folder: Path) -> None:
        self.live = live
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        """Start one and wait until it has registered (so the service counts it alive)."""
        log_path = self.folder / f"worker-{len(self.procs)}.log"
        api = self.live.app.test_client()
        alive = api.get("/v1/jobs?limit=1").json["workers_alive"]
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker", "--processes", "1", "--url", self.live.url_db,
                 "--no-migrate"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "BULLSCOWS_JOB_HEARTBEAT_S": "0.5"})
        self.procs.append(proc)
        deadline = time.monotonic() + 120
        while api.get("/v1/jobs?limit=1").json["workers_alive"] <= alive:
            assert proc.poll() is None, f"the worker died: {log_path.read_text()[-2000:]}"
            assert time.monotonic() < deadline, "the worker did not register within 120 s"
            time.sleep(0.2)
        return proc

    def ensure(self) -> None:
        """A worker running (started unless one of this module's is)."""
        if not any(p.poll() is None for p in self.procs):
            self.start()

    def stop_all(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def workers(live: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    w = Workers(live, tmp_path_factory.mktemp("workers"))
    yield w
    w.stop_all()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup (it installs Debian's chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class PageLog:
    """What a page did: every request URL, JavaScript errors, and console errors."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        self.expected: list[str] = []
        """Patterns (regular expressions) of console errors the test provokes on purpose."""

    def unexpected_console(self) -> list[str]:
        return [m for m in self.console if not any(re.search(p, m) for p in self.expected)]


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def page(browser: Any, live: LiveServer, page_log: PageLog, request: pytest.FixtureRequest) -> Iterator[Any]:
    viewport = getattr(request, "param", None) or {"width": 1100, "height": 900}
    context = browser.new_context(viewport=viewport, base_url=live.url)
    p = context.new_page()
    p.set_default_timeout(30_000)
    p.on("request", lambda r: page_log.requests.append(r.url))
    p.on("pageerror", lambda e: page_log.errors.append(str(e)))
    p.on("console", lambda m: page_log.console.append(f"{m.text} at {m.location.get('url', '')}")
         if m.type == "error" else None)
    p.goto("/")
    p.wait_for_selector("body[data-ready='true']")
    yield p
    context.close()
    outside = [u for u in page_log.requests if not (u.startswith(live.url + "/") or u.startswith("data:"))]
    assert not outside, f"the page made requests outside the service: {outside}"
    assert not page_log.errors, f"JavaScript errors: {page_log.errors}"
    assert not page_log.unexpected_console(), f"console errors: {page_log.unexpected_console()}"
