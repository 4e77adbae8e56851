"""``GET /v1/strategies/{game}/{strategy}`` (statistics) and ``…/tree`` (the whole tree).

One-step strategies are built on demand (about a second for Bulls-and-Cows); optimal strategies by
the exact search, for games small enough to do it within a request (at most ``STRATEGY_MAX_CODES``
codes), with ``max_guesses`` as a query parameter, resolved as every route resolves it
(:func:`service.rules.max_guesses_of`) and echoed as the value used.  A built tree is kept in memory
and in the ``strategies`` table, so that no process sharing the database builds it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from apiflask import APIBlueprint
from flask import Response, current_app

from service.api.parse import game_of
from service.api.submit import accepted, submit_request, wait_budget
from service.atlas import BEST_KNOWN, NoBestKnownTreeError
from service.config import Settings
from service.jobs.plan import JobRequest
from service.problems import fail, problem
from service.rules import max_guesses_of
from service.schemas import TreeBuildIn, TreePartQuery, TreeQuery
from service.services import services
from service.store.strategies import tree_params
from service.trees import download_name
from solver.compare import lengths_lines
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy
from solver.search import SolveOptions, optimal_tree, require_searchable
from solver.tree import Node, Tree, build_tree, from_compact, strategy_chooser, to_compact, to_json
from solver.vocabulary import STRATEGIES as ALL_STRATEGIES
from solver.vocabulary import criterion_of

bp = APIBlueprint("strategies", __name__, tag="strategies", url_prefix="/v1")
STRATEGY_MAX_CODES = 2000
_lock = threading.Lock()


def _memory() -> OrderedDict[tuple[Any, ...], Tree]:
    """This app's trees in memory (per app: two apps in one process may use different databases)."""
    return services().tree_memory


@dataclass(frozen=True)
class TreeQuestion:
    """Which tree a request asks for: the game, the strategy and its parameters."""

    game: Game
    strategy: str
    max_guesses: int | None
    """The depth limit used: as asked, or the k-movers default; None for a one-step strategy."""
    first: int | None
    """A forced first guess (GET only), None for the strategy's own."""

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.game.spec, self.strategy, self.max_guesses, self.first)

    @property
    def params(self) -> str:
        return tree_params(self.max_guesses, self.first)


def _question(game_spec: str, strategy: str, max_guesses: int | None, first: str | None) -> TreeQuestion:
    """The question, validated: the game, a known strategy, a first guess of the game, and the depth
    limit it is answered under."""
    settings = current_app.config["SETTINGS"]
    game = game_of(game_spec, settings)
    if strategy not in STRATEGIES and criterion_of(strategy) is None and strategy != BEST_KNOWN:
        raise fail("unknown-strategy", f"unknown strategy {strategy!r}; known: {', '.join(ALL_STRATEGIES)}, "
                                       f"and {BEST_KNOWN} for the unsolved games that ship one")
    used = max_guesses_of(game, criterion_of(strategy), max_guesses)
    return TreeQuestion(game, strategy, used, game.parse_code(first) if first else None)


def _known(q: TreeQuestion) -> Tree | None:
    """The tree if it exists already: in this app's memory, shipped, or stored by any process."""
    memory = _memory()
    with _lock:
        if q.key in memory:
            memory.move_to_end(q.key)
            return memory[q.key]
    tree = _shipped(q.game, q.strategy, q.max_guesses) if q.first is None else None
    if tree is None and q.strategy == BEST_KNOWN:
        raise NoBestKnownTreeError.of(q.game)
    if tree is None:
        text = services().strategies.get(q.game.spec, q.strategy, q.params)
        if text is None:
            return None
        tree = from_compact(text)
    _remember(q, tree)
    return tree


def _remember(q: TreeQuestion, tree: Tree) -> None:
    memory = _memory()
    with _lock:
        memory[q.key] = tree
        while len(memory) > 32:
            memory.popitem(last=False)


def too_long_for_a_request(q: TreeQuestion) -> str | None:
    """Why the tree cannot be built within a request (None when it can): one-step trees of games over
    ``tree_max_codes`` codes, optimal ones over ``STRATEGY_MAX_CODES``.  Such trees are built by jobs."""
    limit = current_app.config["SETTINGS"].tree_max_codes if q.strategy in STRATEGIES else STRATEGY_MAX_CODES
    if q.game.size <= limit:
        return None
    return (f"building the {q.strategy} tree of game {q.game.spec} ({q.game.size} codes) takes too long for a "
            f"request: within a request {q.strategy} trees are built for games of at most {limit} codes; "
            f"POST /v1/strategies/{q.game.spec}/{q.strategy} builds it as a job")


def _options(q: TreeQuestion) -> SolveOptions | None:
    """An optimal strategy's question (validated for the game), None for a one-step strategy."""
    criterion = criterion_of(q.strategy)
    if criterion is None:
        return None
    options = SolveOptions(criterion, q.max_guesses)
    options.validate(q.game, 1)
    return options


def _build(q: TreeQuestion) -> Tree:
    """Build the tree here (within the request) and keep it, in memory and in the table."""
    options = _options(q)
    if options is None:
        tree = build_tree(q.game, strategy_chooser(q.game, get_strategy(q.strategy)), first=q.first,
                          strategy=q.strategy)
    else:
        tree = optimal_tree(q.game, options, first=q.first)
    stats = tree.stats()
    services().strategies.put(q.game.spec, q.strategy, q.params, to_compact(tree), stats.total, stats.nodes,
                              exact=options is not None)
    _remember(q, tree)
    return tree


def _tree(game_spec: str, strategy: str, query: TreeQuery) -> tuple[TreeQuestion, Tree]:
    """The tree a GET asks for: known, or built within the request; else a 422 pointing at the job."""
    q = _question(game_spec, strategy, query.max_guesses, query.first)
    tree = _known(q)
    if tree is not None:
        return q, tree
    reason = too_long_for_a_request(q)
    if reason is not None:
        raise fail("strategy-too-expensive", reason)
    return q, _build(q)


def _shipped(game: Game, strategy: str, max_guesses: int | None) -> Tree | None:
    """A shipped tree (service/data/trees) answering this question (k-movers: with this k, which is the
    game's smallest worst case by default, the k of its shipped tree); a ``best-known`` tree (a hybrid's,
    not proven optimal) for an unsolved atlas game."""
    if criterion_of(strategy) is None and strategy != BEST_KNOWN:
        return None
    stored = services().trees.get(game, strategy, max_guesses)
    if stored is None:
        return None
    tree: Tree = stored.tree
    services().tree_meta[id(tree)] = stored.meta
    return tree


def _about(q: TreeQuestion, tree: Tree) -> dict[str, Any]:
    """Whether the tree is proven optimal for the question, the depth limit it answers under (the value
    used, shipped or built), and a shipped tree's other parameters."""
    meta = services().tree_meta.get(id(tree))
    if meta is not None:
        out = {"optimal": bool(meta["exact"]), "source": "shipped", "max_guesses": q.max_guesses,
               "mde": meta["mde"], "from_set_only": meta["from_set_only"]}
        if meta.get("source") in ("hybrid", "records"):
            out["hybrid"] = {"above": meta["above"], "exact_at_most": meta["exact_at_most"],
                             "rollout": meta.get("rollout")}
        return out
    return {"optimal": criterion_of(q.strategy) is not None, "source": "built", "max_guesses": q.max_guesses}


def _statistics(q: TreeQuestion, tree: Tree) -> dict[str, Any]:
    """The answer of ``GET`` and ``POST``: the question, the tree's origin and its statistics (the worst
    case among them, always)."""
    return {"game": tree.game.name, "strategy": q.strategy, **_about(q, tree), **tree.stats().as_dict()}


@bp.get("/strategies/<game>/<strategy>")
@bp.input(TreeQuery, location="query", arg_name="query")
def statistics(game: str, strategy: str, query: TreeQuery) -> Any:
    """Total, average, worst case, histogram of game lengths and node counts of a whole tree."""
    return _statistics(*_tree(game, strategy, query))


@bp.post("/strategies/<game>/<strategy>")
@bp.input(TreeBuildIn, location="json", arg_name="body")
@bp.doc(responses={200: "The tree's statistics (it existed, or was built within the request)",
                   202: "Too long for a request: being built by a job (follow Location; the job's result says "
                        "where the statistics are once it is done)"})
def build(game: str, strategy: str, body: TreeBuildIn) -> Any:
    """The statistics of a whole tree, building it as a job when it is too big for a request.

    Answers as ``GET`` does when the tree exists or can be built within the request.  Otherwise a job
    builds it (the game's one-step trees take seconds even at 30,000 codes; an optimal tree is an exact
    search, as long as the game needs): 202 with ``Location: /v1/jobs/{id}``, whose ``progress.fraction``
    counts the secrets placed.  The tree is kept in the shared table, so every later request, from any
    client or process, is answered at once.  Waits up to ``wait_ms`` for the job before answering 202."""
    settings: Settings = current_app.config["SETTINGS"]
    q = _question(game, strategy, body.max_guesses, None)  # errors: the app's solver handlers
    tree = _known(q)
    if tree is None and too_long_for_a_request(q) is None:
        tree = _build(q)
    if tree is None:
        options = _options(q)
        if options is not None:
            require_searchable(q.game)
        req = JobRequest.tree(q.game, strategy, "total" if options is None else options.criterion, q.max_guesses)
        job = submit_request(req, wait_budget(settings, body.wait_ms, 0))
        if job.status != "done":
            return accepted(job)
        tree = _known(q)
        assert tree is not None, "a finished tree job stores its tree"
    return _statistics(q, tree)


@bp.get("/strategies/<game>/<strategy>/tree")
@bp.input(TreePartQuery, location="query", arg_name="query")
def whole_tree(game: str, strategy: str, query: TreePartQuery) -> Any:
    """The whole tree (nested JSON; guesses and responses as text).

    With ``path`` (turns from the root, ``"0123 0.1, 4567 1.2"``) and/or ``depth`` (levels of
    children to include, 1–8), only that part: nodes beyond ``depth`` say ``more: true`` and are
    fetched by a further request, so that a browser can open a big tree level by level.  Either way
    the answer says the worst case: the whole tree's in its ``stats``; in a part, each node's
    ``worst_case``, the longest game through it (in guesses from the start, as ``stats`` counts them),
    and the part's own at the top.

    ``format=lengths`` writes the whole tree as ``CODE LENGTH`` lines instead (text/plain, ``#`` lines first), and
    ``download=true`` adds ``Content-Disposition: attachment`` with a file name, for a browser to save."""
    q, tree = _tree(game, strategy, query)
    # an optimal tree is named with the depth limit it answers under: two limits, two files
    named = strategy if q.max_guesses is None else f"{strategy} within {q.max_guesses} guesses"
    headers: dict[str, str] = {}
    if query.download:
        headers["Content-Disposition"] = f'attachment; filename="{download_name(q.game, named, query.format)}"'
    if query.format == "lengths":  # the schema has refused it with a path or a depth
        return Response("".join(lengths_lines(tree, named)), mimetype="text/plain", headers=headers)
    if query.path is None and query.depth is None:
        return {**to_json(tree), "max_guesses": q.max_guesses}, 200, headers
    g = tree.game
    turns = g.parse_history(query.path or "")  # errors: the app's solver handlers
    node = tree.node_at(turns)
    if node is None:
        return problem("not-in-tree",
                       f"the tree of {strategy} does not play {query.path!r} (each turn must be the tree's "
                       "guess followed by a response it has a branch for)")
    heights = _heights(node)
    turn = tree.root_depth + len(turns)

    def enc(n: Node, at: int, left: int) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": g.format_code(n.guess), "candidates": n.size, "hit": n.hit,
                               "worst_case": at - 1 + heights[id(n)]}
        if n.children and left > 0:
            out["children"] = {g.format_response(r): enc(c, at + 1, left - 1) for r, c in sorted(n.children.items())}
        elif n.children:
            out["more"] = True
        return out

    return {"game": g.name, "strategy": strategy, "max_guesses": q.max_guesses,
            "path": [g.format_turn(t) for t in turns], "turn": turn,
            "worst_case": turn - 1 + heights[id(node)], "node": enc(node, turn, query.depth or 1)}, 200, headers


def _heights(top: Node) -> dict[int, int]:
    """Guesses still needed at most from each node under ``top`` (its own guess included), by ``id``:
    one pass over the part of the tree, bottom up, without recursion (trees may be deep)."""
    order: list[Node] = []
    stack = [top]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(n.children.values())
    heights: dict[int, int] = {}
    for n in reversed(order):
        heights[id(n)] = 1 + max((heights[id(c)] for c in n.children.values()), default=0)
    return heights
