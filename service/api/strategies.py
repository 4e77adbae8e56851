"""``GET /v1/strategies/{game}/{strategy}`` (statistics) and ``…/tree`` (the whole tree).

One-step strategies are built on demand (about a second for Bulls-and-Cows); optimal strategies by
the exact search, for games small enough to do it within a request (at most ``STRATEGY_MAX_CODES``
codes), with ``max_guesses`` as a query parameter, resolved as every route resolves it
(:func:`service.rules.max_guesses_of`) and echoed as the value used.  A built tree is kept in memory
and in the ``strategies`` table, so that no process sharing the database builds it again: the trees and their
cache are :mod:`service.strategy_trees`'; this module parses and answers.
"""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response

from service import calls
from service.api.accepted import accepted
from service.api.parse import game_of
from service.problems import fail, problem
from service.schemas.strategies import TreeBuildIn, TreePartQuery, TreeQuery
from service.services import services
from service.strategy_trees import FoundTree, TreeQuestion
from service.trees import download_name
from solver.compare import lengths_lines
from solver.tree import Node, to_json

bp = APIBlueprint("strategies", __name__, tag="strategies", url_prefix="/v1")


def _question(game_spec: str, strategy: str, max_guesses: int | None, first: str | None) -> TreeQuestion:
    """The question, validated: the game (within the service's limits), then the rest (:meth:`TreeQuestion.of`)."""
    return TreeQuestion.of(game_of(game_spec, services().settings), strategy, max_guesses, first)


def _tree(game_spec: str, strategy: str, query: TreeQuery) -> tuple[TreeQuestion, FoundTree]:
    """The tree a GET asks for: known, or built within the request; else a 422 pointing at the job."""
    q = _question(game_spec, strategy, query.max_guesses, query.first)
    trees = services().strategy_trees
    found = trees.known(q)
    if found is not None:
        return q, found
    reason = q.too_long_for_a_request(services().settings)
    if reason is not None:
        raise fail("strategy-too-expensive", reason)
    return q, trees.build(q)


def _statistics(q: TreeQuestion, found: FoundTree) -> dict[str, Any]:
    """The answer of ``GET`` and ``POST``: the question, the tree's origin and its statistics (the worst
    case among them, always)."""
    return {"game": found.tree.game.name, "strategy": q.strategy, **found.about(q), **found.tree.stats().as_dict()}


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
    q = _question(game, strategy, body.max_guesses, None)  # errors: the app's solver handlers
    trees = services().strategy_trees
    found = trees.known(q)
    if found is None and q.too_long_for_a_request(services().settings) is None:
        found = trees.build(q)
    if found is None:
        job = calls.tree_job(q.game, strategy, q.options(), q.max_guesses, body.wait_ms)
        if job.status != "done":
            return accepted(calls.view_of(job))
        found = trees.known(q)
        assert found is not None, "a finished tree job stores its tree"
    return _statistics(q, found)


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
    q, found = _tree(game, strategy, query)
    tree = found.tree
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
    turn = tree.root_depth + len(turns)

    def enc(n: Node, at: int, left: int) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": g.format_code(n.guess), "candidates": n.size, "hit": n.hit,
                               "worst_case": at - 1 + n.subtree.height}
        if n.children and left > 0:
            out["children"] = {g.format_response(r): enc(c, at + 1, left - 1) for r, c in sorted(n.children.items())}
        elif n.children:
            out["more"] = True
        return out

    return {"game": g.name, "strategy": strategy, "max_guesses": q.max_guesses,
            "path": [g.format_turn(t) for t in turns], "turn": turn,
            "worst_case": turn - 1 + node.subtree.height, "node": enc(node, turn, query.depth or 1)}, 200, headers
