"""Browser fixtures: the real app served over HTTP on a free port (SQLite, migrated), and Debian's
Chromium driven by Playwright.  Every page records the requests it makes and the errors it throws;
a test fails if the page reached outside the service or raised a JavaScript error."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service.app import create_app
from service.migrate import upgrade
from tests.service.conftest import NO_LIMITS

CHROMIUM = os.environ.get("BULLSCOWS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = Path(os.environ.get("BULLSCOWS_ARTIFACTS",
                                Path(__file__).resolve().parents[2] / "build" / "test-artifacts"))


class LiveServer:
    """The app on 127.0.0.1 in a background thread (threaded werkzeug server)."""

    def __init__(self, app: Any) -> None:
        self.app = app
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
    with LiveServer(app) as server:
        yield server
    from service.store.db import get_db

    get_db(app).dispose()


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
    """What a page did: every request URL, and JavaScript errors."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []


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
    p.goto("/")
    p.wait_for_selector("body[data-ready='true']")
    yield p
    context.close()
    outside = [u for u in page_log.requests if not (u.startswith(live.url + "/") or u.startswith("data:"))]
    assert not outside, f"the page made requests outside the service: {outside}"
    assert not page_log.errors, f"JavaScript errors: {page_log.errors}"
