"""The web page at ``/``: play against the solver, explore its strategies, and browse the atlas.

Plain HTML, CSS and JavaScript ES modules served from ``static/`` (``app.js`` and the modules it
imports; no build step, no framework, no third-party request): the page talks only to the public
``/v1`` API, like any other client.  A strict Content-Security-Policy keeps it that way.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, send_from_directory

bp = Blueprint("web", __name__, static_folder="static", static_url_path="/static/web")

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


@bp.get("/")
def index() -> Response:
    """The single page (its scripts and styles are under ``/static/web/``)."""
    return send_from_directory(bp.static_folder or "static", "index.html", max_age=0)


DOCS_ASSETS = frozenset({"swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"})
"""The files of the ``swagger-ui-bundle-v2`` package that ``/docs`` loads (nothing from a CDN)."""


@bp.get("/docs")
def docs() -> Response:
    """The API's docs page: Swagger UI on ``/openapi.json``, every file served from here, so it
    works without internet access and under the same Content-Security-Policy as the page."""
    return send_from_directory(bp.static_folder or "static", "docs.html", max_age=0)


@bp.get("/docs/assets/<name>")
def docs_asset(name: str) -> Response:
    """One of Swagger UI's files, from the installed package."""
    from swagger_ui_bundle import swagger_ui_path

    if name not in DOCS_ASSETS:
        abort(404)
    return send_from_directory(str(swagger_ui_path), name, max_age=86400)


@bp.after_request
def _headers(resp: Response) -> Response:
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp
