"""``/docs`` in a real headless Chromium: rendered from the service's own files, offline."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import LiveServer


def test_docs_render_without_internet(browser: Any, live: LiveServer) -> None:
    """Swagger UI lists the API's operations with every file from the service (no CDN), no
    JavaScript error, and no Content-Security-Policy violation under ``script-src 'self'``."""
    context = browser.new_context(base_url=live.url)
    # anything outside the service fails, as it would on a machine without internet access
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(live.url)
                  else route.abort())
    page = context.new_page()
    page.set_default_timeout(30_000)
    requests: list[str] = []
    errors: list[str] = []
    console: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    try:
        resp = page.goto("/docs")
        assert resp is not None and resp.status == 200
        assert "script-src 'self'" in resp.headers["content-security-policy"]
        page.wait_for_selector(".opblock-summary-path", state="attached")
        paths = page.locator(".opblock-summary-path").all_text_contents()
        assert any("/v1/next-move" in p for p in paths) and any("/v1/games" in p for p in paths)
        assert "bullscows" in (page.text_content(".info .title") or "")
    finally:
        context.close()
    outside = [u for u in requests if not (u.startswith(live.url + "/") or u.startswith("data:"))]
    assert not outside, f"/docs made requests outside the service: {outside}"
    assert not errors, f"JavaScript errors: {errors}"
    assert not [c for c in console if "Content Security Policy" in c], console
