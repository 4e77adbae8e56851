"""``GET /v1/strategies/{game}/{strategy}`` (statistics) and ``…/tree`` (the whole tree).

One-step strategies are built on demand (about a second for Bulls-and-Cows); optimal strategies by
the exact search, for games small enough to do it within a request (at most ``STRATEGY_MAX_CODES``
codes), with ``max_guesses`` as a query parameter.  A built tree is kept in memory and in the
``strategies`` table, so that no process sharing the database builds it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from apiflask import APIBlueprint
from flask import current_app, request

from service.problems import problem
from service.store.strategies import StrategyStore
from solver.errors import SolverError
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy
from solver.search import SolveOptions, optimal_tree
from solver.tree import Tree, build_tree, from_compact, strategy_chooser, to_compact, to_json

bp = APIBlueprint("strategies", __name__, tag="strategies", url_prefix="/v1")
STRATEGY_MAX_CODES = 2000
_lock = threading.Lock()


def _memory() -> OrderedDict[tuple[Any, ...], Tree]:
    """This app's trees in memory (per app: two apps in one process may use different databases)."""
    cache: OrderedDict[tuple[Any, ...], Tree] = current_app.extensions.setdefault(
        "bullscows_tree_cache", OrderedDict())
    return cache


def _tree(game_spec: str, strategy: str) -> Tree | Any:
    settings = current_app.config["SETTINGS"]
    game = Game.from_spec(game_spec, max_codes=settings.max_codes)
    max_guesses = request.args.get("max_guesses", type=int)
    first = request.args.get("first")
    first_code = game.parse_code(first) if first else None
    key = (game.spec, strategy, max_guesses, first_code)
    memory = _memory()
    with _lock:
        if key in memory:
            memory.move_to_end(key)
            return memory[key]
    store: StrategyStore = current_app.extensions["bullscows_strategies"]
    params = f"max_guesses={max_guesses};first={first_code}"
    text = store.get(game.spec, strategy, params)
    if text is not None:
        tree = from_compact(text)
    elif strategy in STRATEGIES:
        tree = build_tree(game, strategy_chooser(game, get_strategy(strategy)), first=first_code, strategy=strategy)
    elif strategy in ("optimal-total", "optimal-kmovers"):
        if game.size > STRATEGY_MAX_CODES:
            return problem(422, "strategy-too-expensive", "Too expensive",
                           f"building {strategy} for game {game.spec} ({game.size} codes) is a long job; "
                           f"within a request only games of at most {STRATEGY_MAX_CODES} codes are built")
        options = SolveOptions(strategy.removeprefix("optimal-"), max_guesses)
        options.validate(game, 1)
        tree = optimal_tree(game, options, first=first_code)
    else:
        names = [*STRATEGIES, "optimal-total", "optimal-kmovers"]
        return problem(404, "unknown-strategy", "Unknown strategy",
                       f"unknown strategy {strategy!r}; known: {', '.join(names)}")
    if text is None:
        stats = tree.stats()
        store.put(game.spec, strategy, params, to_compact(tree), stats.total, stats.nodes,
                  exact=strategy.startswith("optimal-"))
    with _lock:
        memory[key] = tree
        while len(memory) > 32:
            memory.popitem(last=False)
    return tree


def _loaded(game: str, strategy: str) -> Tree | Any:
    """The tree, or the problem response explaining why there is none."""
    try:
        return _tree(game, strategy)
    except SolverError as exc:
        return problem(400, exc.slug, type(exc).__name__, str(exc))


@bp.get("/strategies/<game>/<strategy>")
def statistics(game: str, strategy: str) -> Any:
    """Total, average, worst case, histogram of game lengths and node counts of a whole tree."""
    tree = _loaded(game, strategy)
    if not isinstance(tree, Tree):
        return tree
    return {"game": tree.game.name, "strategy": strategy, **tree.stats().as_dict()}


@bp.get("/strategies/<game>/<strategy>/tree")
def whole_tree(game: str, strategy: str) -> Any:
    """The whole tree (nested JSON; guesses and responses as text)."""
    tree = _loaded(game, strategy)
    if not isinstance(tree, Tree):
        return tree
    return to_json(tree)
