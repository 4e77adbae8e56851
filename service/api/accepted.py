"""The ``202 Accepted`` answer of a question handed to a durable job (``/v1/solve``, ``/v1/jobs``,
``/v1/strategies``): what the job is and where to follow it.  Submitting it is :mod:`service.calls`'.
"""

from __future__ import annotations

from typing import Any

from flask import Response, json, url_for

from service import calls


def accepted(view: dict[str, Any]) -> Response:
    """202 with the job's ``view`` (:func:`service.calls.view_of`) and where to follow it, and a note when no worker
    is there to run it (the job is kept, and runs when one starts)."""
    body = dict(view)
    if not calls.workers_alive():
        body["note"] = ("no job worker is running on this service's database: the job waits until one starts "
                        "(`bullscows worker`, or `bullscows serve --with-worker`)")
    resp = Response(json.dumps(body), status=202, mimetype="application/json")
    resp.headers["Location"] = url_for("jobs.get_job", job_id=body["id"])
    resp.headers["Retry-After"] = "1"
    return resp
