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
from solver.tree import Node, Tree, build_tree, from_compact, strategy_chooser, to_compact, to_json
from solver.vocabulary import STRATEGIES as ALL_STRATEGIES
from solver.vocabulary import criterion_of

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
    shipped = _shipped(game, strategy, max_guesses) if first_code is None else None
    text = store.get(game.spec, strategy, params) if shipped is None else ""
    if shipped is not None:
        tree = shipped
    elif text is not None:
        tree = from_compact(text)
    elif strategy in STRATEGIES:
        if game.size > settings.tree_max_codes:
            return problem(422, "strategy-too-expensive", "Too expensive",
                           f"building the {strategy} tree of game {game.spec} ({game.size} codes) takes too long "
                           f"for a request; trees are built for games of at most {settings.tree_max_codes} codes")
        tree = build_tree(game, strategy_chooser(game, get_strategy(strategy)), first=first_code, strategy=strategy)
    elif (criterion := criterion_of(strategy)) is not None:
        if game.size > STRATEGY_MAX_CODES:
            return problem(422, "strategy-too-expensive", "Too expensive",
                           f"building {strategy} for game {game.spec} ({game.size} codes) is a long job; "
                           f"within a request only games of at most {STRATEGY_MAX_CODES} codes are built")
        options = SolveOptions(criterion, max_guesses)
        options.validate(game, 1)
        tree = optimal_tree(game, options, first=first_code)
    else:
        return problem(404, "unknown-strategy", "Unknown strategy",
                       f"unknown strategy {strategy!r}; known: {', '.join(ALL_STRATEGIES)}")
    if text is None:
        stats = tree.stats()
        store.put(game.spec, strategy, params, to_compact(tree), stats.total, stats.nodes,
                  exact=criterion_of(strategy) is not None)
    with _lock:
        memory[key] = tree
        while len(memory) > 32:
            memory.popitem(last=False)
    return tree


def _shipped(game: Game, strategy: str, max_guesses: int | None) -> Tree | None:
    """A shipped tree (service/data/trees) answering this question; for k-movers without
    ``max_guesses``, the one shipped whatever its k (the explorer lists what exists)."""
    if criterion_of(strategy) is None:
        return None
    library = current_app.extensions["bullscows_trees"]
    stored = library.get(game, strategy, max_guesses)
    if stored is None and max_guesses is None:
        meta = library.metas().get((game.spec, strategy))
        if meta is not None:
            stored = library.get(game, strategy, meta["max_guesses"])
    if stored is None:
        return None
    tree: Tree = stored.tree
    current_app.extensions.setdefault("bullscows_tree_meta", {})[id(tree)] = stored.meta
    return tree


def _about(tree: Tree, strategy: str) -> dict[str, Any]:
    """Whether the tree is proven optimal for its criterion, and its parameters when shipped."""
    meta = current_app.extensions.get("bullscows_tree_meta", {}).get(id(tree))
    if meta is not None:
        return {"optimal": bool(meta["exact"]), "source": "shipped", "max_guesses": meta["max_guesses"],
                "mde": meta["mde"], "from_set_only": meta["from_set_only"]}
    return {"optimal": criterion_of(strategy) is not None, "source": "built",
            "max_guesses": request.args.get("max_guesses", type=int)}


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
    return {"game": tree.game.name, "strategy": strategy, **_about(tree, strategy), **tree.stats().as_dict()}


@bp.get("/strategies/<game>/<strategy>/tree")
def whole_tree(game: str, strategy: str) -> Any:
    """The whole tree (nested JSON; guesses and responses as text).

    With ``path`` (turns from the root, ``"0123 0.1, 4567 1.2"``) and/or ``depth`` (levels of
    children to include, 1–8), only that part: nodes beyond ``depth`` say ``more: true`` and are
    fetched by a further request, so that a browser can open a big tree level by level."""
    tree = _loaded(game, strategy)
    if not isinstance(tree, Tree):
        return tree
    path = request.args.get("path")
    depth = request.args.get("depth")
    if path is None and depth is None:
        return to_json(tree)
    g = tree.game
    try:
        levels = int(depth) if depth is not None else 1
    except ValueError:
        levels = 0
    if not 1 <= levels <= 8:
        return problem(400, "invalid-depth", "Invalid depth", f"depth must be an integer from 1 to 8, got {depth!r}")
    try:
        turns = g.parse_history(path or "")
    except SolverError as exc:
        return problem(400, exc.slug, type(exc).__name__, str(exc))
    node = tree.node_at(turns)
    if node is None:
        return problem(404, "not-in-tree", "Not in the tree",
                       f"the tree of {strategy} does not play {path!r} (each turn must be the tree's "
                       "guess followed by a response it has a branch for)")

    def enc(n: Node, left: int) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": g.format_code(n.guess), "candidates": n.size, "hit": n.hit}
        if n.children and left > 0:
            out["children"] = {g.format_response(r): enc(c, left - 1) for r, c in sorted(n.children.items())}
        elif n.children:
            out["more"] = True
        return out

    return {"game": g.name, "strategy": strategy, "path": [g.format_turn(t) for t in turns],
            "turn": tree.root_depth + len(turns), "node": enc(node, levels)}
