"""Stored strategy trees: shipped as package data, produced by ``bullscows trees build``.

``next-move`` answers a preset game from its stored tree while the history follows the tree — no
search, no database.  Each tree is a compact file (:func:`solver.tree.to_compact`) listed in
``manifest.json`` with the command parameters that produced it and its total; loading re-verifies it
against its game (:func:`solver.tree.from_compact`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from solver.game import Game, Turn
from solver.search import SolveOptions, SolveResult
from solver.tree import Node, Tree, from_compact

TREE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "trees")
MANIFEST = os.path.join(TREE_DIR, "manifest.json")

# What `bullscows trees build` produces: (game, strategy, options, exact).  The Bulls-and-Cows trees
# come from a campaign's table (`bullscows campaign`, then `trees build --url`): from scratch they
# are the campaign itself, hours of search.
SPECS: list[dict[str, Any]] = [
    {"game": "mastermind", "strategy": "optimal-total", "criterion": "total", "max_guesses": None,
     "mde": None, "from_set_only": False, "exact": True},
    {"game": "mastermind", "strategy": "optimal-kmovers", "criterion": "kmovers", "max_guesses": 5,
     "mde": None, "from_set_only": False, "exact": True},
    # proven without a depth limit (`bullscows campaign --unlimited`): exact for every limit from 7 up
    {"game": "bulls-cows", "strategy": "optimal-total", "criterion": "total", "max_guesses": None,
     "mde": None, "from_set_only": False, "exact": True},
    # fewest 7-movers (every other secret within 6); positions with none are not chained further
    {"game": "bulls-cows", "strategy": "optimal-kmovers", "criterion": "kmovers", "max_guesses": 7,
     "depth_count": 7, "mde": None, "from_set_only": False, "exact": True},
]


@dataclass
class StoredTree:
    """A loaded tree with, per node, the secrets below it and the guesses they still need."""

    meta: dict[str, Any]
    tree: Tree
    below: dict[int, tuple[int, int, int]]
    """id(node) → (secrets, total guesses still needed from this node, most guesses still needed)."""

    def answers(self, max_guesses: int | None) -> bool:
        """Whether this tree is exactly optimal for its strategy's question with ``max_guesses``: the
        question it was built for or, for a totals tree built without a depth limit, any limit the
        tree keeps to (a limit only removes strategies, so it cannot lower the optimum, and this tree
        is still one of them)."""
        if not self.meta["exact"]:
            return False
        built = self.meta["max_guesses"]
        if built == max_guesses:
            return True
        return (self.meta["criterion"] == "total" and built is None and max_guesses is not None
                and max_guesses >= int(self.meta["worst_case"]))

    def lookup(self, history: list[Turn]) -> tuple[Node, tuple[int, int, int]] | None:
        node = self.tree.node_at(history)
        if node is None:
            return None
        return node, self.below[id(node)]


def _annotate(tree: Tree) -> dict[int, tuple[int, int, int]]:
    out: dict[int, tuple[int, int, int]] = {}

    def walk(node: Node) -> tuple[int, int, int]:
        secrets, total, worst = (1, 1, 1) if node.hit else (0, 0, 0)
        for child in node.children.values():
            s, t, w = walk(child)
            secrets += s
            total += t + s  # every secret below also pays this node's guess
            worst = max(worst, w + 1)
        out[id(node)] = (secrets, total, worst)
        return secrets, total, worst

    walk(tree.root)
    return out


class TreeLibrary:
    """The shipped trees, loaded on first use."""

    def __init__(self, folder: str = TREE_DIR) -> None:
        self.folder = folder
        self._trees: dict[tuple[str, str], StoredTree] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[tuple[str, str], StoredTree]:
        with self._lock:
            if self._trees is None:
                trees: dict[tuple[str, str], StoredTree] = {}
                manifest = os.path.join(self.folder, "manifest.json")
                if os.path.exists(manifest):
                    with open(manifest, encoding="utf-8") as fh:
                        for meta in json.load(fh)["trees"]:
                            with open(os.path.join(self.folder, meta["file"]), encoding="utf-8") as tf:
                                tree = from_compact(tf.read())
                            trees[(Game.from_spec(meta["game"]).spec, meta["strategy"])] = StoredTree(
                                meta, tree, _annotate(tree))
                self._trees = trees
            return self._trees

    def get(self, game: Game, strategy: str, max_guesses: int | None) -> StoredTree | None:
        """The stored tree for this game and strategy, if it answers the same question."""
        stored = self._load().get((game.spec, strategy))
        if stored is None or stored.tree.game.alphabet[: game.symbols] != game.alphabet[: game.symbols]:
            return None
        if strategy == "optimal-kmovers" and stored.meta["max_guesses"] != max_guesses:
            return None
        if (strategy == "optimal-total" and max_guesses is not None and max_guesses != stored.meta["max_guesses"]
                and not stored.answers(max_guesses)):
            return None
        return stored

    def all(self) -> list[StoredTree]:
        """Every stored tree."""
        return list(self._load().values())


def shipped_answer(game: Game, history: list[Turn], options: SolveOptions,
                   library: TreeLibrary | None = None) -> SolveResult | None:
    """The exact answer a shipped tree gives, or None when no shipped tree answers this question.

    A tree built by an exact search for a criterion is optimal at every node it reaches (a better
    subtree would make a better tree), so the node after ``history`` carries the position's value,
    its best guess and the value of each response — the answer of :meth:`Searcher.solve` without a
    search.  Only the question the tree was built for qualifies: same criterion and depth limit, no
    hybrid, no bound or chain of the caller's own (see :meth:`StoredTree.answers`).
    """
    t0 = time.perf_counter()
    if (options.mde is not None or options.from_set_only or options.upper_bound is not None
            or options.node_limit or options.depth_count is not None):
        return None
    strategy = "optimal-total" if options.criterion == "total" else "optimal-kmovers"
    stored = (library or _LIBRARY).get(game, strategy, options.max_guesses)
    if stored is None or not stored.answers(options.max_guesses):
        return None
    found = stored.lookup(history)
    if found is None:
        return None
    node, (secrets, _total, _worst) = found
    turn = len(history) + 1
    k = options.max_guesses
    total = options.criterion == "total"

    def value(n: Node, t: int) -> int:
        if total:
            s, b, _ = stored.below[id(n)]
            return b + s * (t - 1)
        assert k is not None
        return _count_at(n, k - t + 1)

    per: dict[int, int | None] = {r: value(child, turn + 1) for r, child in node.children.items()}
    if node.hit:
        per[game.all_bulls] = turn if total else int(k == turn)
    v = value(node, turn)
    return SolveResult(v, True, True, node.guess, dict(sorted(per.items())), 0, time.perf_counter() - t0, secrets,
                       None if total else k, {} if total or k is None else {k: v})


def tree_note(stored: StoredTree, max_guesses: int | None) -> str | None:
    """Why a shipped tree's answer is not exact for this question (None when it is)."""
    if stored.answers(max_guesses):
        return None
    if not stored.meta["exact"]:
        return "this tree is a heuristic strategy's, not proven optimal"
    k = stored.meta["max_guesses"]
    return (f"this tree is optimal within {k} guesses; without that limit the optimum is not proven "
            f"(ask with max_guesses {k} for the proven answer)")


def _count_at(node: Node, depth: int) -> int:
    """Secrets solved at exactly the ``depth``-th guess from ``node`` (its own guess is the first)."""
    if depth <= 0:
        return 0
    here = 1 if node.hit and depth == 1 else 0
    return here + sum(_count_at(child, depth - 1) for child in node.children.values())


_LIBRARY = TreeLibrary()
