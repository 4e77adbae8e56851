"""Stored trees: shipped files verified by playing every secret; next-move follows them over HTTP."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.trees import SPECS, StoredTree, TreeLibrary, tree_note
from solver.game import Game
from tests.service.conftest import backend_agnostic


@pytest.fixture(scope="module")
def library() -> TreeLibrary:
    return TreeLibrary()


def test_manifest_covers_the_specs(library: TreeLibrary) -> None:
    """The presets' trees are the specs' (`trees build`); every other shipped tree is the atlas's: an
    exact game's optimal trees (`atlas trees`), or an unsolved game's best known hybrid (`atlas hybrid`,
    never claimed exact), both played in tests/test_atlas.py; or a records game's best-known tree
    (`records hybrid` / `records rollout`, never claimed exact, played in tests/service/test_records.py)."""
    from service.records import PUBLISHED

    shipped = {(t.meta["game"], t.meta["strategy"]) for t in library.presets()}
    assert shipped == {(s["game"], s["strategy"]) for s in SPECS}
    others = [m for key, m in library.metas().items() if (m["game"], m["strategy"]) not in shipped]
    assert all(m.get("source") == "atlas"
               or (m.get("source") in ("hybrid", "records") and m["strategy"] == "best-known" and m["exact"] is False)
               for m in others)
    assert {m["game"] for m in others if m.get("source") == "records"} <= set(PUBLISHED)


def test_shipped_trees_play_every_secret(library: TreeLibrary, published: dict[str, Any]) -> None:
    for stored in library.presets():
        tree, meta = stored.tree, stored.meta
        game = tree.game
        lengths = [len(tree.play(secret)) for secret in range(game.size)]
        assert sum(lengths) == tree.stats().total == meta["total"]
        if meta["game"] == "mastermind" and meta["strategy"] == "optimal-total":
            assert meta["total"] == published["min_total"]["mastermind"]["optimum_total_unlimited"]
        if meta["game"] == "bulls-cows" and meta["strategy"] == "optimal-total":
            # the exact optimum, and the article's exact column response by response after 0123
            table = published["min_total"]["bulls-cows"]["by_response_after_0123"]
            exact = table["_columns"].index("exact")
            assert meta["exact"] is True and meta["mde"] is None and meta["max_guesses"] is None
            assert meta["total"] == published["min_total"]["bulls-cows"]["optimum_total"] == 26274
            assert tree.root.guess == game.parse_code("0123")
            per = {game.format_response(r): child.subtree.total + child.subtree.secrets
                   for r, child in tree.root.children.items()}
            per["4.0"] = 1
            assert per == {r: row[exact] for r, row in table.items() if r not in ("_columns", "total")}
            assert max(lengths) == 7
        if meta["strategy"] == "optimal-kmovers":
            optimum = published["min_kmovers"][meta["game"]]["optimum"]
            assert lengths.count(meta["max_guesses"]) == optimum
            assert max(lengths) == meta["max_guesses"]
        if meta["game"] == "bulls-cows" and meta["strategy"] == "optimal-kmovers":
            # 50 seven-movers: 46 after 0123 0.1, 4 after 0.2, none after any other response
            exact = published["min_kmovers"]["bulls-cows"]["by_first_response"]["exact"]
            assert tree.root.guess == game.parse_code("0123") and meta["exact"] is True
            sevens: dict[str, int] = {}
            for secret, n in enumerate(lengths):
                if n == 7:
                    r = game.format_response(game.response(tree.root.guess, secret))
                    sevens[r] = sevens.get(r, 0) + 1
            assert sevens == {r: v for r, v in exact.items() if r != "total" and v} == {"0.1": 46, "0.2": 4}


def _play(client: FlaskClient, game: Game, secret: int, strategy: str, **extra: Any) -> tuple[int, set[str]]:
    history: list[str] = []
    sources: set[str] = set()
    while True:
        r = client.post("/v1/next-move", json={"game": game.name, "history": history, "strategy": strategy,
                                               **extra}).json
        sources.add(r["source"])
        guess = game.parse_code(r["guess"])
        resp = game.response(guess, secret)
        history.append(f"{r['guess']} {game.format_response(resp)}")
        if guess == secret:
            return len(history), sources


@pytest.mark.slow  # tens of seconds; the whole suite (CI) runs it
def test_http_bot_reproduces_the_mastermind_trees(client: FlaskClient, library: TreeLibrary) -> None:
    mm = Game.from_spec("mastermind")
    for strategy, extra in (("optimal-total", {}), ("optimal-kmovers", {"max_guesses": 5})):
        stored = library.get(mm, strategy, extra.get("max_guesses"))
        assert stored is not None
        total = 0
        sources: set[str] = set()
        for secret in range(mm.size):
            n, s = _play(client, mm, secret, strategy, **extra)
            total += n
            sources |= s
        assert total == stored.meta["total"]
        assert sources == {"tree"}


def test_which_questions_a_tree_answers(library: TreeLibrary) -> None:
    """A totals tree proven without a depth limit is optimal for every limit it keeps to (Mastermind's:
    6 guesses and more, not 5); a tree proven under a limit answers that limit only."""
    mm = library.get(Game.from_spec("mastermind"), "optimal-total", 6)
    assert mm is not None and mm.meta["max_guesses"] is None and mm.meta["worst_case"] == 6
    assert mm.answers(None) and mm.answers(6) and mm.answers(9) and not mm.answers(5)
    assert library.get(Game.from_spec("mastermind"), "optimal-total", 5) is None
    limited = StoredTree({**mm.meta, "max_guesses": 6}, mm.tree)
    assert limited.answers(6) and not limited.answers(None) and not limited.answers(7)
    assert tree_note(limited, 6) is None and "within 6 guesses" in (tree_note(limited, None) or "")
    heuristic = StoredTree({**mm.meta, "exact": False}, mm.tree)
    assert not heuristic.answers(None) and "not proven optimal" in (tree_note(heuristic, None) or "")


@backend_agnostic
def test_tree_answers_carry_values(client: FlaskClient) -> None:
    r = client.post("/v1/next-move", json={"game": "mastermind", "strategy": "optimal-total"}).json
    assert r["source"] == "tree" and r["guess"] == "0012" and r["exact"] is True
    assert r["value"]["expected"] == pytest.approx(5625 / 1296) and r["value"]["worst_case"] == 6
    # leaving the tree (a guess it would not play, in a position no campaign kept) falls back to the
    # cache/search
    r = client.post("/v1/next-move", json={"game": "mastermind", "strategy": "optimal-total",
                                           "history": ["0000 0.0"], "time_budget_ms": 5000}).json
    assert r["source"] in ("search", "cache")


def _bulls_cows_bot(tmp_path: Any, strategy: str, **extra: Any) -> tuple[list[int], FlaskClient]:
    """Every secret's game length, played over HTTP by an app on a fresh SQLite file (its client is
    returned too); every answer must come from the shipped tree."""
    from service.store.migrate import upgrade
    from tests.service.conftest import make_app

    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    upgrade(url)
    client = make_app(url).test_client()
    bc = Game.from_spec("bulls-cows")
    lengths = []
    for secret in range(bc.size):
        n, sources = _play(client, bc, secret, strategy, **extra)
        assert sources == {"tree"}
        lengths.append(n)
    return lengths, client


@pytest.mark.slow
def test_http_bot_reproduces_the_bulls_cows_seven_movers(tmp_path: Any, library: TreeLibrary) -> None:
    """All 5040 secrets through HTTP along the shipped optimal-kmovers tree: 50 need a 7th guess."""
    stored = library.get(Game.from_spec("bulls-cows"), "optimal-kmovers", 7)
    assert stored is not None and stored.meta["exact"] is True
    lengths, _ = _bulls_cows_bot(tmp_path, "optimal-kmovers", max_guesses=7)
    assert lengths.count(7) == 50 and max(lengths) == 7 and sum(lengths) == stored.meta["total"]


@pytest.mark.slow
def test_http_bot_reproduces_the_bulls_cows_tree(tmp_path: Any, library: TreeLibrary) -> None:
    """All 5040 secrets through HTTP along the shipped exact tree: 26274 in all."""
    stored = library.get(Game.from_spec("bulls-cows"), "optimal-total", None)
    assert stored is not None and stored.meta["exact"] is True
    lengths, client = _bulls_cows_bot(tmp_path, "optimal-total")
    total = sum(lengths)
    assert total == stored.meta["total"] == stored.tree.stats().total == 26274
    # proven without a depth limit (a campaign with --unlimited): exact without one, and within 7
    assert stored.meta["max_guesses"] is None
    r7 = client.post("/v1/next-move", json={"game": "bulls-cows", "strategy": "optimal-total", "max_guesses": 7}).json
    assert r7["exact"] is True and r7["source"] == "tree" and r7["guess"] == "0123" and r7["note"] is None
    r = client.post("/v1/next-move", json={"game": "bulls-cows", "strategy": "optimal-total"}).json
    assert (r["source"], r["guess"], r["exact"], r["note"]) == ("tree", "0123", True, None)


@backend_agnostic
def test_atlas_games_are_answered_from_their_trees(client: FlaskClient) -> None:
    """A game the atlas solved is played from its shipped tree, under relabelling too, with the atlas's
    value; its strategy tree is served as proven optimal."""
    from service import atlas

    game = Game.from_spec("4,7,1")
    values = atlas.load()[game.spec]["values"]
    r = client.post("/v1/next-move", json={"game": "4,7,1", "strategy": "optimal-total"}).json
    assert (r["source"], r["exact"]) == ("tree", True)
    assert r["value"]["expected"] == pytest.approx(values["total"]["value"] / game.size)
    rng = random.Random(7)
    for secret in rng.sample(range(game.size), 20):
        for perm in ("0123456", "6543210"):  # the secret as written, and with its symbols renamed
            relabelled = game.code_of([int(perm[s]) for s in game.symbols_of(secret)])
            n, sources = _play(client, game, relabelled, "optimal-total")
            assert sources == {"tree"} and n <= values["total_depth"]["value"] + 1
    worst = values["worst_case"]["value"]
    movers = client.post("/v1/next-move", json={"game": "4,7,1", "strategy": "optimal-kmovers",
                                                "max_guesses": worst}).json
    assert (movers["source"], movers["exact"]) == ("tree", True)
    strategy = client.get("/v1/strategies/4,7,1/optimal-total").json
    assert strategy["optimal"] is True and strategy["total"] == values["total"]["value"]
