"""The answer chain (service.answers): proven trees under symmetry, the table at canonical labels,
bounded searches, and the same answers over HTTP, from the CLI and from Python."""

from __future__ import annotations

import itertools
import json
import random
import time
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from service.answers import AnswerChain
from service.cli import main
from service.config import Settings
from service.engine import SolverPool
from solver.game import Game, Turn
from solver.search import SolveOptions
from tests.reference import INF, all_codes, exhaustive
from tests.service.conftest import backend_agnostic


def solve(client: FlaskClient, **body: Any) -> dict[str, Any]:
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 200, r.json
    out: dict[str, Any] = r.json
    return out


def test_published_optima_and_their_relabellings_come_from_the_trees(
        client: FlaskClient, published: dict[str, Any]) -> None:
    """On a fresh install: no search, no job, whether the history is the tree's or a relabelling of it."""
    table = published["min_total"]["bulls-cows"]["by_response_after_0123"]
    after_01 = table["0.1"][table["_columns"].index("exact")]
    assert after_01 == 7935
    cases = [
        ({"game": "bulls-cows"}, published["min_total"]["bulls-cows"]["optimum_total"]),
        ({"game": "bulls-cows", "history": ["0123 0.1"]}, after_01),
        ({"game": "bulls-cows", "history": ["9876 0.1"]}, after_01),
        ({"game": "bulls-cows", "history": ["3071 0.1"]}, after_01),
        ({"game": "mastermind"}, published["min_total"]["mastermind"]["optimum_total_unlimited"]),
    ]
    for body, value in cases:
        t0 = time.perf_counter()
        out = solve(client, **body)
        assert (out["value"], out["exact"], out["source"], out["nodes"]) == (value, True, "tree", 0), body
        assert time.perf_counter() - t0 < 5  # no search: a generous bound for a loaded machine
    # the relabelled answer's guess is the image of the tree's: it splits the same way, response by response
    plain = solve(client, game="bulls-cows", history=["0123 0.1"])
    image = solve(client, game="bulls-cows", history=["9876 0.1"])
    assert image["per_response"] == plain["per_response"] and image["best_guess"] != plain["best_guess"]
    bc = Game.from_spec("bulls-cows")
    cands = bc.candidates(bc.parse_history(["9876 0.1"]))
    guess = bc.parse_code(image["best_guess"])
    given = {bc.format_response(bc.response(guess, int(c))) for c in cands}
    assert given == set(image["per_response"])


@backend_agnostic
@pytest.mark.parametrize(("game", "opening"), [("bulls-cows", "9876"), ("bulls-cows", "5173"),
                                               ("mastermind", "5530"), ("mastermind", "2241")])
def test_a_bot_opening_anywhere_gets_only_exact_instant_answers(client: FlaskClient, game: str, opening: str) -> None:
    """Every move after a relabelling of the tree's opening is the tree's, mapped: exact and from the tree."""
    g = Game.from_spec(game)
    rng = random.Random(opening)
    for secret in rng.sample(range(g.size), 12):
        history: list[str] = []
        guess = opening
        while True:
            b, c = g.bulls_cows(g.response(g.parse_code(guess), secret))
            if b == g.positions:
                break
            history.append(f"{guess} {b}.{c}")
            out = client.post("/v1/next-move", json={"game": game, "history": history}).json
            assert (out["source"], out["exact"]) == ("tree", True), (history, out)
            guess = out["guess"]
        assert len(history) + 1 <= (7 if game == "bulls-cows" else 6)


def test_a_relabelled_off_tree_position_is_answered_from_the_table(client: FlaskClient) -> None:
    """One proof serves every relabelling: the second question is answered without a search, and its
    best guess (mapped back to its own labels) is worth exactly the value."""
    first = solve(client, game="mastermind", history=["0000 0.0"], time_budget_ms=20_000)
    assert first["source"] == "search" and first["exact"]
    for history in (["1111 0.0"], ["5555 0.0"]):
        again = solve(client, game="mastermind", history=history, time_budget_ms=20_000)
        assert (again["source"], again["nodes"]) == ("cache", 0), again
        assert (again["value"], again["per_response"]) == (first["value"], first["per_response"])
        checked = solve(client, game="mastermind", history=history, guess=again["best_guess"], job=False,
                        time_budget_ms=20_000)
        assert checked["value"] == first["value"]
    moved = client.post("/v1/next-move", json={"game": "mastermind", "history": ["3333 0.0"]}).json
    assert (moved["source"], moved["exact"]) == ("cache", True)


def test_the_cli_with_a_database_url_reads_and_writes_the_table(db_url: str, client: FlaskClient) -> None:
    """The CLI goes down the same chain: with --url it finds what the service proved, and the reverse."""
    searched = solve(client, game="mastermind", history=["0000 0.0"], time_budget_ms=20_000)
    out = CliRunner().invoke(main, ["solve", "-g", "mastermind", "2222 0.0", "--url", db_url, "--json"])
    assert out.exit_code == 0, out.stderr
    got = json.loads(out.stdout)
    assert (got["source"], got["value"], got["nodes"]) == ("cache", searched["value"], 0)
    # and a position the CLI proves (no tree or shipped knowledge has it) is answered by the service from
    # the table, under another labelling (symbols 0→2, 1→3, 2→4, 3→0, 4→1)
    out = CliRunner().invoke(main, ["solve", "-g", "mastermind", "0011 0.0", "2345 1.1", "--url", db_url, "--json"])
    assert json.loads(out.stdout)["source"] == "search"
    assert solve(client, game="mastermind", history=["2233 0.0", "4015 1.1"])["source"] == "cache"
    # next speaks the same keys as POST /v1/next-move
    cli = json.loads(CliRunner().invoke(main, ["next", "-g", "mastermind", "4444 0.0", "--url", db_url,
                                               "--json"]).stdout)
    http = client.post("/v1/next-move", json={"game": "mastermind", "history": ["4444 0.0"]}).json
    assert set(http) - set(cli) == {"job", "job_url"} and set(cli) - set(http) == {"game"}
    assert (cli["guess"], cli["source"], cli["exact"]) == (http["guess"], http["source"], http["exact"])


def _reference_value(game: Game, history: list[Turn], options: SolveOptions) -> float:
    codes = all_codes(game.positions, game.symbols, game.repetition, game.alphabet)
    cands = tuple(codes[int(c)] for c in game.candidates(history))
    turn = len(history) + 1
    m = None if options.max_guesses is None else options.max_guesses - turn + 1
    value = exhaustive(codes, cands, m, options.criterion)
    if value == INF or options.criterion == "kmovers":
        return value
    return value + len(cands) * (turn - 1)


@pytest.mark.parametrize(("spec", "options"), [("3,4,1", SolveOptions("total")),
                                               ("3,5,0", SolveOptions("total")),
                                               ("3,4,1", SolveOptions("kmovers", 4))])
def test_the_chain_agrees_with_an_exhaustive_reference_under_relabellings(spec: str, options: SolveOptions) -> None:
    """Random histories and random relabellings of them, asked of one chain in turn: every value equals
    the plain exhaustive search's, and every best guess (mapped back) is worth that value."""
    game = Game.from_spec(spec)
    chain = AnswerChain(SolverPool(None, Settings()))
    rng = random.Random(spec)
    for _ in range(6):
        secret = rng.randrange(game.size)
        guesses = [g for g in rng.sample(range(game.size), 2) if g != secret]
        history = [Turn(g, game.response(g, secret)) for g in guesses]
        perms = list(itertools.permutations(range(game.positions)))
        for _ in range(2):
            from solver.symmetry import Relabelling

            sym = list(range(game.symbols))
            rng.shuffle(sym)
            psi = Relabelling(rng.choice(perms), tuple(sym))
            image = psi.apply_turns(game, history)
            cands = game.candidates(image)
            answer = chain.solve(game, image, cands, options, None)
            want = _reference_value(game, image, options)
            assert answer.complete and answer.result.exact
            assert (answer.result.value if answer.result.possible else INF) == want
            if answer.result.best_guess is not None:
                worth = chain.solve(game, image, cands, options, None, answer.result.best_guess)
                assert worth.result.value == want


def test_published_two_turn_seven_movers_come_from_the_shipped_knowledge(published: dict[str, Any]) -> None:
    """The article's 7-mover counts after two turns (its exact column), under the published labelling
    and under a relabelling; the ones the campaigns kept are answered from the shipped knowledge (no
    search of the position), the others by a search."""
    bc = Game.from_spec("bulls-cows")
    chain = AnswerChain.open()
    options = SolveOptions("kmovers", 7)
    rng = random.Random(7)
    rows = [r for r in published["min_kmovers"]["bulls-cows"]["exact_second_turn_details"] if "exact" in r]
    assert len(rows) >= 3
    shipped = set()
    for row in rows:
        history = bc.parse_history(row["turns"])
        for turns in (history, _relabelled(bc, history, rng)):
            answer = chain.solve(bc, turns, bc.candidates(turns), options, 60_000)
            assert (answer.result.value, answer.result.exact) == (row["exact"], True), row
            if answer.source == "tree":
                shipped.add(row["turns"])
    assert {"0123 0.1, 1245 0.1", "0123 0.1, 1245 0.2"} <= shipped


def _relabelled(game: Game, history: list[Turn], rng: random.Random) -> list[Turn]:
    from solver.symmetry import Relabelling

    perm = list(range(game.positions))
    sym = list(range(game.symbols))
    rng.shuffle(perm)
    rng.shuffle(sym)
    return Relabelling(tuple(perm), tuple(sym)).apply_turns(game, history)


@pytest.mark.parametrize("turns", ["0123 0.1, 0234 2.0", "0123 0.3, 0245 1.1", "0123 1.0, 1456 1.0"])
def test_shipped_knowledge_agrees_with_a_search_from_nothing(turns: str) -> None:
    """Off-tree positions the campaigns proved, relabelled: the shipped answer's value is a fresh
    search's (no tree, no knowledge, no table), and its best guess is worth that value."""
    from solver.search import Searcher

    bc = Game.from_spec("bulls-cows")
    chain = AnswerChain.open()
    history = _relabelled(bc, bc.parse_history(turns), random.Random(turns))
    cands = bc.candidates(history)
    assert chain.tree_node(bc, history, "optimal-total", None) is None
    answer = chain.known(bc, history, cands, SolveOptions("total"))
    assert answer is not None and answer.source == "tree"
    fresh = Searcher(bc, SolveOptions("total")).solve(history)
    assert answer.result.value == fresh.value and answer.result.best_guess is not None
    played = Searcher(bc, SolveOptions("total")).evaluate_guess(history, answer.result.best_guess)
    assert played.value == fresh.value


def test_the_shipped_knowledge_is_built_from_the_committed_campaigns() -> None:
    """The knowledge names the campaign files it was built from by their digests: rebuild it
    (``bullscows knowledge build``) whenever a campaign file changes."""
    import hashlib
    from pathlib import Path

    from service.knowledge import KNOWLEDGE_DIR

    manifest = json.loads((Path(KNOWLEDGE_DIR) / "manifest.json").read_text())
    campaigns = Path(__file__).resolve().parents[2] / "campaigns"
    assert manifest["sources"], "built from no campaign"
    for name, digest in manifest["sources"].items():
        assert hashlib.sha256((campaigns / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.slow
def test_rebuilding_the_knowledge_gives_the_shipped_files(tmp_path: Any) -> None:
    from pathlib import Path

    import numpy as np

    from service.knowledge import KNOWLEDGE_DIR, build

    manifest = json.loads((Path(KNOWLEDGE_DIR) / "manifest.json").read_text(encoding="utf-8"))
    campaigns = Path(__file__).resolve().parents[2] / "campaigns"
    rebuilt = build([str(campaigns / name) for name in manifest["sources"]], str(tmp_path))
    assert rebuilt == manifest
    for q in manifest["questions"]:
        with np.load(f"{KNOWLEDGE_DIR}/{q['file']}") as a, np.load(tmp_path / q["file"]) as b:
            for name in ("k1", "k2", "small", "value", "best"):
                assert np.array_equal(a[name], b[name]), (q["file"], name)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["mastermind", "bulls-cows"])
def test_random_two_guess_positions_get_the_optimal_value(spec: str) -> None:
    """Arbitrary two-guess histories, as people play them: whatever step answers (a tree, the shipped
    knowledge, a search), the value is a fresh search's from nothing (no tree, no knowledge, no table),
    and the best guess is worth it."""
    from solver.search import Searcher

    game = Game.from_spec(spec)
    chain = AnswerChain.open()
    rng = random.Random(spec)
    for _ in range(3 if spec == "bulls-cows" else 8):
        secret = rng.randrange(game.size)
        history = [Turn(g, game.response(g, secret)) for g in rng.sample(range(game.size), 2) if g != secret]
        cands = game.candidates(history)
        answer = chain.solve(game, history, cands, SolveOptions("total"), None)
        fresh = Searcher(game, SolveOptions("total")).solve(history)
        assert answer.complete and answer.result.value == fresh.value, [game.format_turn(t) for t in history]
        assert answer.result.best_guess is not None
        worth = Searcher(game, SolveOptions("total")).evaluate_guess(history, answer.result.best_guess)
        assert worth.value == fresh.value
