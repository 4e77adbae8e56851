"""Whole strategy trees asked for by name (``/v1/strategies``): which tree a question means, where it comes from
(this app's memory, the shipped trees, the ``strategies`` table, or a build within the request), and what is
known about it.

The routes parse and answer; this module decides.  A tree found is handed back with its manifest entry when it
is a shipped one (:class:`FoundTree`), so that the answer can say whether it is proven and how it was made
without a side table of its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from service.atlas import NoBestKnownTreeError
from service.config import Settings
from service.problems import fail
from service.rules import max_guesses_of
from service.store.strategies import StrategyStore, tree_params
from service.trees import TreeLibrary
from solver.game import Game
from solver.heuristics import STRATEGIES, get_strategy
from solver.search import SolveOptions, optimal_tree
from solver.tree import Tree, build_tree, from_compact, strategy_chooser, to_compact
from solver.vocabulary import BEST_KNOWN, criterion_of
from solver.vocabulary import STRATEGIES as ALL_STRATEGIES

STRATEGY_MAX_CODES = 2000
"""The largest game whose optimal trees are searched within a request (bigger ones: by a job)."""
MEMORY = 32
"""Trees an app keeps in memory, the most recently asked for."""


@dataclass(frozen=True)
class TreeQuestion:
    """Which tree a request asks for: the game, the strategy and its parameters."""

    game: Game
    strategy: str
    max_guesses: int | None
    """The depth limit used: as asked, or the k-movers default; None for a one-step strategy."""
    first: int | None
    """A forced first guess (GET only), None for the strategy's own."""

    @classmethod
    def of(cls, game: Game, strategy: str, max_guesses: int | None, first: str | None) -> TreeQuestion:
        """The question, validated: a known strategy, a first guess of the game, and the depth limit it is
        answered under."""
        if strategy not in STRATEGIES and criterion_of(strategy) is None and strategy != BEST_KNOWN:
            raise fail("unknown-strategy", f"unknown strategy {strategy!r}; known: {', '.join(ALL_STRATEGIES)}, "
                                           f"and {BEST_KNOWN} for the unsolved games that ship one")
        used = max_guesses_of(game, criterion_of(strategy), max_guesses)
        return cls(game, strategy, used, game.parse_code(first) if first else None)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.game.spec, self.strategy, self.max_guesses, self.first)

    @property
    def params(self) -> str:
        return tree_params(self.max_guesses, self.first)

    def options(self) -> SolveOptions | None:
        """An optimal strategy's question (validated for the game), None for a one-step strategy."""
        criterion = criterion_of(self.strategy)
        if criterion is None:
            return None
        options = SolveOptions(criterion, self.max_guesses)
        options.validate(self.game, 1)
        return options

    def too_long_for_a_request(self, settings: Settings) -> str | None:
        """Why the tree cannot be built within a request (None when it can): one-step trees of games over
        ``tree_max_codes`` codes, optimal ones over :data:`STRATEGY_MAX_CODES`.  Such trees are built by jobs."""
        limit = settings.tree_max_codes if self.strategy in STRATEGIES else STRATEGY_MAX_CODES
        if self.game.size <= limit:
            return None
        return (f"building the {self.strategy} tree of game {self.game.spec} ({self.game.size} codes) takes too "
                f"long for a request: within a request {self.strategy} trees are built for games of at most {limit} "
                f"codes; POST /v1/strategies/{self.game.spec}/{self.strategy} builds it as a job")


@dataclass(frozen=True)
class FoundTree:
    """A tree and, for a shipped one, its manifest entry (None for a tree built here or by a job)."""

    tree: Tree
    shipped: dict[str, Any] | None = None

    def about(self, q: TreeQuestion) -> dict[str, Any]:
        """Whether the tree is proven optimal for the question, the depth limit it answers under (the value
        used, shipped or built), and a shipped tree's other parameters."""
        meta = self.shipped
        if meta is not None:
            out = {"optimal": bool(meta["exact"]), "source": "shipped", "max_guesses": q.max_guesses,
                   "mde": meta["mde"], "from_set_only": meta["from_set_only"]}
            if meta.get("source") in ("hybrid", "records"):
                out["hybrid"] = {"above": meta["above"], "exact_at_most": meta["exact_at_most"],
                                 "rollout": meta.get("rollout")}
            return out
        return {"optimal": criterion_of(q.strategy) is not None, "source": "built", "max_guesses": q.max_guesses}


class StrategyTrees:
    """One app's strategy trees: the last :data:`MEMORY` asked for in memory, then the shipped ones, then the
    ``strategies`` table shared by every process on the database, and what a request builds is kept in both."""

    def __init__(self, store: StrategyStore, library: TreeLibrary) -> None:
        self.store = store
        self.library = library
        self._memory: OrderedDict[tuple[Any, ...], FoundTree] = OrderedDict()
        self._lock = threading.Lock()

    def known(self, q: TreeQuestion) -> FoundTree | None:
        """The tree if it exists already: in this app's memory, shipped, or stored by any process.

        :raises NoBestKnownTreeError: ``best-known`` asked of a game that ships none."""
        with self._lock:
            if q.key in self._memory:
                self._memory.move_to_end(q.key)
                return self._memory[q.key]
        found = self._shipped(q) if q.first is None else None
        if found is None and q.strategy == BEST_KNOWN:
            raise NoBestKnownTreeError.of(q.game)
        if found is None:
            text = self.store.get(q.game.spec, q.strategy, q.params)
            if text is None:
                return None
            found = FoundTree(from_compact(text))
        return self._remember(q, found)

    def build(self, q: TreeQuestion) -> FoundTree:
        """Build the tree here (within the request) and keep it, in memory and in the table."""
        options = q.options()
        if options is None:
            tree = build_tree(q.game, strategy_chooser(q.game, get_strategy(q.strategy)), first=q.first,
                              strategy=q.strategy)
        else:
            tree = optimal_tree(q.game, options, first=q.first)
        stats = tree.stats()
        self.store.put(q.game.spec, q.strategy, q.params, to_compact(tree), stats.total, stats.nodes,
                       exact=options is not None)
        return self._remember(q, FoundTree(tree))

    def _shipped(self, q: TreeQuestion) -> FoundTree | None:
        """A shipped tree (service/data/trees) answering this question (k-movers: with this k, which is the
        game's smallest worst case by default, the k of its shipped tree); a ``best-known`` tree (a hybrid's,
        not proven optimal) for an unsolved atlas game."""
        if criterion_of(q.strategy) is None and q.strategy != BEST_KNOWN:
            return None
        stored = self.library.get(q.game, q.strategy, q.max_guesses)
        return None if stored is None else FoundTree(stored.tree, stored.meta)

    def _remember(self, q: TreeQuestion, found: FoundTree) -> FoundTree:
        with self._lock:
            self._memory[q.key] = found
            while len(self._memory) > MEMORY:
                self._memory.popitem(last=False)
        return found
