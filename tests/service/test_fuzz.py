"""Schemathesis against the served OpenAPI document: every operation, generated valid and invalid
requests, through the real app (SQLite).  Zero server errors; every response (status, media type,
body, headers) conforms to what the document says.

Checks: all of schemathesis's except ``positive_data_acceptance``, because some rules cannot be
written in a schema (a game's code count against the service's limit, a history that contradicts
itself, a code in the game's alphabet): such requests are schema-valid and rightly refused with a
problem.  The budget (examples per operation) is ``BULLSCOWS_FUZZ_EXAMPLES``, default 25.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from apiflask import APIFlask
from hypothesis import HealthCheck, settings
from schemathesis import checks

from service.app import create_app, warm
from service.store.migrate import upgrade
from tests.service.conftest import NO_LIMITS

EXAMPLES = int(os.environ.get("BULLSCOWS_FUZZ_EXAMPLES", "25"))


def _app() -> APIFlask:
    """The app under test, on a migrated SQLite file of its own (made at collection: schemathesis
    reads the document to generate the test cases)."""
    url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='bullscows-fuzz-')) / 'fuzz.sqlite3'}"
    upgrade(url)
    # small budgets: a generated request may ask for any game the limits allow
    app = create_app({"DATABASE_URL": url, **NO_LIMITS, "SECRET_KEY": "fuzz", "MAX_TIME_BUDGET_MS": 200,
                      "DEFAULT_TIME_BUDGET_MS": 100, "SOLVE_WAIT_MS": 0, "MAX_WAIT_MS": 100}, warm_in_background=False)
    # warmed here, not in a thread beside the collection: the warm-up's imports parse Python source (numba's) while
    # pytest parses the modules schemathesis imports, and CPython 3.11 can fail one of two parses that run in two
    # threads at once ("AST constructor recursion depth mismatch")
    warm(app)
    return app


APP = _app()
schema = schemathesis.openapi.from_wsgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def _close_app() -> Iterator[None]:
    yield
    from service.services import get_db

    get_db(APP).dispose()


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
def test_every_operation_conforms(case: Any) -> None:
    case.call_and_validate(excluded_checks=[checks.positive_data_acceptance])


# Stateful: sequences of calls that follow the document's links (submit a job, then read or cancel
# it; start a match, then reveal it), with the same checks on every answer.
class LinkedCalls(schema.as_state_machine()):  # type: ignore[misc]
    def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
        case.validate_response(response, additional_checks=additional_checks, transport_kwargs=kwargs,
                               excluded_checks=[checks.positive_data_acceptance])


LinkedCalls.TestCase.settings = settings(max_examples=max(5, EXAMPLES // 2), stateful_step_count=4, deadline=None,
                                         suppress_health_check=list(HealthCheck))
TestLinkedCalls = LinkedCalls.TestCase
