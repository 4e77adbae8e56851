"""Who is asking: a bearer token with a scope, else the client's address.

Reads stay open.  Writes that change what other clients are served, or that cost real computing,
need a token: importing positions (scope ``import``), and jobs beyond the free budget of
``free_jobs`` active jobs per client (scope ``jobs``).  Rate limits count per token when one is
presented, else per address.
"""

from __future__ import annotations

from flask import Response, g, request

from service.problems import problem
from service.services import services
from service.store.tokens import TokenInfo


def presented() -> str | None:
    """The bearer token of the request, if it carries one."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def _token() -> TokenInfo | None:
    """The request's valid token, if any (looked up once per request)."""
    if "bullscows_token" not in g:
        token = presented()
        g.bullscows_token = None if token is None else services().tokens.check(token)
    info: TokenInfo | None = g.bullscows_token
    return info


def token_for(scope: str) -> TokenInfo | None:
    """The request's token if it is valid and has ``scope``."""
    info = _token()
    return info if info is not None and scope in info.scopes else None


def client_id() -> str:
    """``token:NAME`` for a request with a valid token, else ``ip:ADDRESS``.

    Behind a reverse proxy, run the app with ``BULLSCOWS_TRUSTED_PROXIES`` so that the address is
    the client's, not the proxy's (werkzeug's ProxyFix)."""
    info = _token()
    return f"token:{info.name}" if info is not None else f"ip:{request.remote_addr or 'unknown'}"


def unauthorized(detail: str) -> Response:
    """401 with the challenge a client needs to retry with a token."""
    resp = problem("unauthorized", detail)
    resp.headers["WWW-Authenticate"] = 'Bearer realm="bullscows"'
    return resp
