"""``/v1/games``, ``/v1/matches`` and the lazily loaded strategy tree, through the real app."""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from flask.testing import FlaskClient

from service.api.games import KEY_FILE
from service.services import services
from solver.game import Game
from solver.presets import PRESETS
from tests.service.conftest import backend_agnostic, make_app


@backend_agnostic
def test_games_lists_presets_limits_and_strategies(client: FlaskClient) -> None:
    """One vocabulary: the strategies next-move accepts (its OpenAPI enum), the CLI's choices, the
    one-step registry, the default of all of them, and the answer sources of both answers' schemas."""
    from service.cli import main
    from solver.heuristics import STRATEGIES as ONE_STEP

    r = client.get("/v1/games")
    assert r.status_code == 200
    body = r.json
    assert [g["name"] for g in body["presets"]] == list(PRESETS)  # the registry's order: the classic two first
    assert list(PRESETS)[:2] == ["bulls-cows", "mastermind"]
    assert all(g["label"] == PRESETS[g["name"]].label and g["known"]["headline"] for g in body["presets"])
    assert body["presets"][1]["codes"] == 1296 and "4.0" in body["presets"][1]["responses"]
    names = [s["name"] for s in body["strategies"]]
    schemas = client.get("/openapi.json").json["components"]["schemas"]
    cli_next = next(p for p in main.commands["next"].params if p.name == "strategy")
    assert names == schemas["NextMoveIn"]["properties"]["strategy"]["enum"]
    assert ", ".join(names) in (cli_next.help or "")
    assert [s["name"] for s in body["strategies"] if s["kind"] == "one-step"] == list(ONE_STEP)
    assert body["default_strategy"] == names[0] == "optimal-total" == cli_next.default
    assert schemas["NextMoveIn"]["properties"]["strategy"]["default"] == "optimal-total"
    assert all(s["label"] and s["description"] for s in body["strategies"])
    sources = [s["name"] for s in body["sources"]]
    assert sources == ["history", "tree", "cache", "search", "job", "busy", "heuristic", "best-known"]
    assert schemas["NextMoveOut"]["properties"]["source"]["enum"] == sources
    assert schemas["SolveOut"]["properties"]["source"]["enum"] == sources
    assert body["limits"]["exact_search_max_codes"] == 8192
    assert body["limits"]["max_codes"] == 100_000 and body["limits"]["tree_max_codes"] == 6_000

@backend_agnostic
def test_game_info_reports_the_atlas_with_its_flags(client: FlaskClient) -> None:
    """An atlas game carries its numbers, each exact or with bounds, and the command that recomputes it;
    a game outside the atlas carries null."""
    from service import atlas

    mm = client.get("/v1/games/mastermind").json["atlas"]
    shipped = atlas.load()["4,6,1"]["values"]
    assert mm["total"] == {"label": "optimal total (no depth limit)", "value": shipped["total"]["value"],
                           "exact": True, "lower": shipped["total"]["value"], "upper": shipped["total"]["value"]}
    assert (mm["worst_case"]["value"], mm["total_within_worst_case"]["value"]) == (5, 5626)
    assert mm["average"] == round(mm["total"]["value"] / 1296, 6)
    assert mm["command"].startswith("bullscows atlas run --game 4,6,1")
    same = client.get("/v1/games/4,6,1").json["atlas"]
    assert same == mm
    for name in ("5,10,0", "9,2,1"):  # too big for the atlas; more positions than it has
        assert client.get(f"/v1/games/{name}").json["atlas"] is None
    presets = {p["name"]: p for p in client.get("/v1/games").json["presets"]}
    assert presets["mastermind"]["atlas"] == mm


@backend_agnostic
def test_game_info_lists_the_responses_the_game_allows(client: FlaskClient) -> None:
    for spec in ("bulls-cows", "mastermind", "4,5,0", "3,2,1", "2,1,1"):
        game = Game.from_spec(spec)
        got = client.get(f"/v1/games/{spec}").json
        # every response that some pair of codes produces, and no other
        seen = {game.format_response(int(r)) for r in np.unique(game.arrays(table=True).table)}
        assert set(got["responses"]) == seen and got["codes"] == game.size
    r = client.get("/v1/games/10,10,0")
    assert r.status_code == 422 and r.json["type"] == "/problems/game-too-large"
    assert client.get("/v1/games/3,x,1").json["type"] == "/problems/invalid-game"


@backend_agnostic
def test_a_match_scores_guesses_without_revealing_its_secret(client: FlaskClient) -> None:
    game = Game.from_spec("mastermind")
    r = client.post("/v1/matches", json={"game": "mastermind"})
    assert r.status_code == 201 and set(r.json) == {"token", "game"}
    token = r.json["token"]
    secret = client.post("/v1/matches/reveal", json={"token": token}).json["secret"]
    # encrypted, not just encoded: neither the document's keys nor the secret show in the raw bytes
    # (a 4-digit secret inside the token's hex digits would be chance, ~1 in 400, not a leak)
    raw = base64.urlsafe_b64decode(token + "==")
    assert b"secret" not in raw and b"alphabet" not in raw and secret.encode() not in raw
    for guess in ("0011", "1234", "5555", secret):
        got = client.post("/v1/matches/guess", json={"token": token, "guess": guess}).json
        b, c = game.bulls_cows(game.response(game.parse_code(guess), game.parse_code(secret)))
        assert (got["bulls"], got["cows"], got["response"]) == (b, c, f"{b}.{c}")
        assert got["solved"] is (guess == secret) and got["secret"] == (secret if guess == secret else None)
    # the same secret twice gives different tokens; secrets vary from match to match
    secrets_ = Counter(client.post("/v1/matches/reveal", json={
        "token": client.post("/v1/matches", json={"game": "3,2,1"}).json["token"]}).json["secret"] for _ in range(64))
    assert len(secrets_) >= 5  # 8 codes: all 64 equal would be a broken generator
    a = client.post("/v1/matches", json={"game": {"positions": 1, "symbols": 1, "repetition": True}}).json
    b = client.post("/v1/matches", json={"game": {"positions": 1, "symbols": 1, "repetition": True}}).json
    assert a["token"] != b["token"]


@backend_agnostic
def test_bad_match_requests_get_problems(client: FlaskClient) -> None:
    token = client.post("/v1/matches", json={"game": "bulls-cows"}).json["token"]
    for bad in (token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"), "not-a-token"):
        r = client.post("/v1/matches/guess", json={"token": bad, "guess": "0123"})
        assert r.status_code == 400 and r.json["type"] == "/problems/invalid-match-token"
        assert r.mimetype == "application/problem+json"
    assert client.post("/v1/matches/guess", json={"token": "", "guess": "0123"}).status_code == 422
    r = client.post("/v1/matches/guess", json={"token": token, "guess": "0012"})
    assert r.status_code == 400 and r.json["type"] == "/problems/invalid-code"
    r = client.post("/v1/matches/guess", json={"token": token})
    assert r.status_code == 422
    r = client.post("/v1/matches", json={"game": "12,12,1"})
    assert r.status_code == 422 and r.json["type"] == "/problems/game-too-large"
    assert client.post("/v1/matches", json={"game": "bulls-cows", "secret": "0123"}).status_code == 422


def test_match_tokens_need_the_same_key_and_expire(db_url: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BULLSCOWS_INSTANCE_PATH", str(tmp_path / "instance"))
    one, two = make_app(db_url).test_client(), make_app(db_url).test_client()
    token = one.post("/v1/matches", json={"game": "bulls-cows"}).json["token"]
    # two processes of one instance share its key file (made once, owner-only)
    assert two.post("/v1/matches/guess", json={"token": token, "guess": "0123"}).status_code == 200
    key = tmp_path / "instance" / KEY_FILE
    assert key.stat().st_mode & 0o777 == 0o600
    other = make_app(db_url, SECRET_KEY="another instance").test_client()
    assert other.post("/v1/matches/guess", json={"token": token, "guess": "0123"}).status_code == 400
    short_app = make_app(db_url, SECRET_KEY="k", MATCH_TTL_S=60)
    clock = [1_000_000.0]
    services(short_app).clock = lambda: clock[0]  # moved by the test, instead of sleeping
    short = short_app.test_client()
    token = short.post("/v1/matches", json={"game": "bulls-cows"}).json["token"]
    clock[0] += 60
    assert short.post("/v1/matches/guess", json={"token": token, "guess": "0123"}).status_code == 200
    clock[0] += 1
    r = short.post("/v1/matches/guess", json={"token": token, "guess": "0123"})
    assert r.status_code == 400 and "expired" in r.json["detail"]


@backend_agnostic
def test_a_tree_loads_level_by_level(client: FlaskClient) -> None:
    whole = client.get("/v1/strategies/mastermind/optimal-total/tree").json["root"]
    top = client.get("/v1/strategies/mastermind/optimal-total/tree?depth=1").json
    assert top["turn"] == 1 and top["path"] == [] and top["node"]["guess"] == whole["guess"]
    # one level: the children's guesses and sizes, with `more` where the whole tree goes deeper
    for r, child in top["node"]["children"].items():
        full = whole["children"][r]
        assert (child["guess"], child["candidates"]) == (full["guess"], full["candidates"])
        assert child.get("more", False) == ("children" in full) and "children" not in child
    # following a path reaches the same node as the whole tree
    r, child = max(top["node"]["children"].items(), key=lambda kv: kv[1]["candidates"])
    sub = client.get(f"/v1/strategies/mastermind/optimal-total/tree?path={whole['guess']} {r}&depth=2").json
    assert sub["turn"] == 2 and sub["node"]["guess"] == child["guess"]
    full = whole["children"][r]
    for r2, c2 in sub["node"]["children"].items():
        assert c2["candidates"] == full["children"][r2]["candidates"]
        assert ("children" in c2) == ("children" in full["children"][r2])
    bad = client.get("/v1/strategies/mastermind/optimal-total/tree?path=5555 0.0")
    assert bad.status_code == 404 and bad.json["type"] == "/problems/not-in-tree"
    assert client.get("/v1/strategies/mastermind/optimal-total/tree?path=00 1.0").json["type"] == \
        "/problems/invalid-code"
    assert client.get("/v1/strategies/mastermind/optimal-total/tree?depth=0").json["type"] == \
        "/problems/validation-error"


@backend_agnostic
def test_shipped_trees_serve_the_explorer(client: FlaskClient) -> None:
    mm = client.get("/v1/strategies/mastermind/optimal-total").json
    assert (mm["total"], mm["optimal"], mm["source"]) == (5625, True, "shipped")
    km = client.get("/v1/strategies/mastermind/optimal-kmovers").json
    assert km["max_guesses"] == 5 and km["histogram"]["5"] == 539 and km["optimal"] is True
    bc = client.get("/v1/strategies/bulls-cows/optimal-total").json
    # proven without a depth limit, and keeping to 7 guesses: the same tree answers "within 7"
    assert (bc["total"], bc["optimal"], bc["source"], bc["max_guesses"], bc["worst_case"]) == (
        26274, True, "shipped", None, 7)
    bc7 = client.get("/v1/strategies/bulls-cows/optimal-total?max_guesses=7").json
    assert (bc7["total"], bc7["optimal"], bc7["source"]) == (26274, True, "shipped")
    bk = client.get("/v1/strategies/bulls-cows/optimal-kmovers?max_guesses=7").json
    assert (bk["histogram"]["7"], bk["optimal"], bk["source"], bk["worst_case"]) == (50, True, "shipped", 7)
    other = client.get("/v1/strategies/mastermind/optimal-kmovers?max_guesses=6")
    assert other.status_code == 200 and other.json["source"] == "built"  # a different question


@backend_agnostic
def test_the_page_is_served_with_a_strict_policy(client: FlaskClient) -> None:
    with client.get("/") as r:
        assert r.status_code == 200 and r.mimetype == "text/html"
        csp = r.headers["Content-Security-Policy"]
        html = r.get_data(as_text=True)
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    assert "http://" not in html and "https://" not in html  # nothing fetched from elsewhere
    modules = ("app", "api", "errors", "game", "computer", "person", "explorer")
    for asset in [*(f"/static/web/{m}.js" for m in modules), "/static/web/style.css"]:
        with client.get(asset) as a:
            assert a.status_code == 200 and "https://" not in a.get_data(as_text=True), asset
            if asset.endswith(".js"):
                assert a.mimetype in ("text/javascript", "application/javascript"), asset  # a module needs it
