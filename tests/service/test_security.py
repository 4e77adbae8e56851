"""Who may write, and how much anyone may ask: hashed bearer tokens, the free job budget, rate
limits (429 + Retry-After) — through the real app on SQLite and PostgreSQL."""

from __future__ import annotations

import os
from typing import Any

from click.testing import CliRunner
from flask.testing import FlaskClient
from sqlalchemy import select

from service.cli import main as cli
from service.services import get_db, services
from service.store.models import ApiToken, Job
from tests.service.conftest import make_app
from tests.service.test_positions_strategies import _line

JOB = {"game": "mastermind", "criterion": "kmovers", "max_guesses": 5}
REDIS_URL = os.environ.get("BULLSCOWS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _jobs(app: Any) -> int:
    with get_db(app).session() as s:
        return len(s.scalars(select(Job)).all())


def test_tokens_are_stored_hashed_scoped_and_revocable(db_url: str) -> None:
    runner = CliRunner()
    made = runner.invoke(cli, ["tokens", "create", "mirror-1", "--scope", "import", "--url", db_url])
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    assert token.startswith("bc_") and len(token) > 40 and "shown only now" in made.stderr
    jobs_only = runner.invoke(cli, ["tokens", "create", "batch", "--scope", "jobs", "--url", db_url]).stdout.strip()
    assert runner.invoke(cli, ["tokens", "create", "mirror-1", "--scope", "jobs", "--url", db_url]).exit_code == 2
    app = make_app(db_url)
    with get_db(app).session() as s:
        rows = s.scalars(select(ApiToken)).all()
        assert {r.name for r in rows} == {"mirror-1", "batch"}
        assert all(len(r.token_hash) == 64 and token not in r.token_hash for r in rows)  # only the digest
    client = app.test_client()

    def put(tok: str, line: str = _line()) -> int:
        return client.post("/v1/positions", data=line, headers={"Authorization": f"Bearer {tok}"}).status_code

    assert put(jobs_only) == 401  # valid, but not for imports
    assert put(token[:-1] + ("A" if token[-1] != "A" else "B")) == 401
    assert put(token) == 200
    exported = client.get("/v1/positions").data.decode()
    assert '"source":"import:mirror-1"' in exported.replace(" ", "")  # provenance: which token wrote it
    listed = runner.invoke(cli, ["tokens", "list", "--url", db_url]).stdout
    assert "mirror-1" in listed and "import" in listed and token not in listed and "last used 20" in listed
    assert runner.invoke(cli, ["tokens", "revoke", "mirror-1", "--url", db_url]).exit_code == 0
    assert put(token) == 401  # at once, in a running app
    assert runner.invoke(cli, ["tokens", "revoke", "nobody", "--url", db_url]).exit_code == 2


def test_jobs_beyond_the_free_budget_need_a_token(db_url: str) -> None:
    app = make_app(db_url, FREE_JOBS=2)
    client: FlaskClient = app.test_client()
    first = client.post("/v1/jobs", json=JOB)
    second = client.post("/v1/jobs", json={**JOB, "max_guesses": 6})
    assert first.status_code == second.status_code == 202
    # asking again for a job that exists costs nothing: always allowed
    assert client.post("/v1/jobs", json=JOB).json["id"] == first.json["id"]
    third = client.post("/v1/jobs", json={**JOB, "max_guesses": 7})
    assert third.status_code == 401 and third.mimetype == "application/problem+json"
    assert "free budget" in third.json["detail"] and third.headers["WWW-Authenticate"].startswith("Bearer")
    # a solve that would become a job is refused the same way, and stores nothing
    solve = client.post("/v1/solve", json={"game": "bulls-cows", "history": ["0123 0.1", "0132 0.1"],
                                           "time_budget_ms": 1})
    assert solve.status_code == 401 and _jobs(app) == 2
    # another client has its own budget; a token with the jobs scope lifts it
    other = client.post("/v1/jobs", json={**JOB, "max_guesses": 7}, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 202
    _, token = services(app).tokens.create("batch", ["jobs"])
    ok = client.post("/v1/jobs", json={**JOB, "max_guesses": 8}, headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 202
    with get_db(app).session() as s:
        owners = {j.submitted_by for j in s.scalars(select(Job))}
    assert owners == {"ip:127.0.0.1", "ip:10.1.2.3", "token:batch"}
    # a finished or cancelled job frees its place
    assert client.delete(f"/v1/jobs/{first.json['id']}").status_code == 200
    assert client.post("/v1/jobs", json={**JOB, "max_guesses": 9}).status_code == 202


def test_rate_limits_answer_429_with_retry_after(db_url: str) -> None:
    app = make_app(db_url, RATE_LIMIT_EXPENSIVE="3/minute", RATE_LIMIT_MOVES="5/minute")
    client: FlaskClient = app.test_client()
    body = {"game": "mastermind", "history": ["0011 0.0"]}  # on the proven tree: answered at once, however busy
    assert [client.post("/v1/solve", json=body).status_code for _ in range(3)] == [200, 200, 200]
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 429 and r.mimetype == "application/problem+json"
    assert r.json["type"] == "/problems/too-many-requests" and 0 < int(r.headers["Retry-After"]) <= 61
    # counted per call class and per client; reads are not limited
    assert client.post("/v1/next-move", json={"game": "mastermind"}).status_code == 200
    assert client.post("/v1/solve", json=body, environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 200
    assert all(client.get("/v1/games/mastermind").status_code == 200 for _ in range(10))
    moves = [client.post("/v1/next-move", json={"game": "mastermind"}).status_code for _ in range(5)]
    assert moves == [200, 200, 200, 200, 429]


def test_rate_limits_are_shared_through_redis(db_url: str) -> None:
    """Two processes of one deployment (two apps here) count a client together on Redis."""
    import uuid

    prefix = f"bullscows-test-{uuid.uuid4().hex[:8]}"
    config = {"RATE_LIMIT_STORAGE": REDIS_URL, "RATE_LIMIT_PREFIX": prefix, "RATE_LIMIT_MOVES": "4/minute"}
    one, two = make_app(db_url, **config).test_client(), make_app(db_url, **config).test_client()
    body = {"game": "mastermind"}
    got = [c.post("/v1/next-move", json=body).status_code for c in (one, two, one, two, one, two)]
    assert got == [200, 200, 200, 200, 429, 429]
    import redis

    r = redis.Redis.from_url(REDIS_URL)
    keys = list(r.scan_iter(f"*/{prefix}/*"))  # limits names them LIMITS:LIMITER/<prefix>/…
    assert keys
    r.delete(*keys)
    r.close()
