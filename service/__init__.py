"""The product around the solver: HTTP service, persistence, command line.

Importing this package stays cheap (the ``bullscows`` CLI lives here and is started often): Flask,
SQLAlchemy and the solver are imported only by the modules that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The application factory (see :func:`service.app.create_app`)."""
    from service.app import create_app as factory

    return factory(config)
