"""Stored strategy trees: shipped as package data, produced by ``bullscows trees build``.

The answer chain (:mod:`service.answers`) answers a preset game from its stored tree while the
history follows the tree, under any relabelling — no search, no database.  Each tree is a compact
file (:func:`solver.tree.to_compact`) listed in ``manifest.json`` with the command parameters that
produced it and its total; loading re-verifies it against its game (:func:`solver.tree.from_compact`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from solver.game import Game
from solver.tree import Tree, TreeStats, from_compact, to_compact
from solver.vocabulary import Criterion

TREE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "trees")

# What `bullscows trees build` produces: (game, strategy, options, exact).  The Bulls-and-Cows trees
# come from a campaign's table (`bullscows campaign`, then `trees build --url`): from scratch they
# are the campaign itself, hours of search.
SPECS: list[dict[str, Any]] = [
    {"game": "mastermind", "strategy": "optimal-total", "criterion": Criterion.TOTAL, "max_guesses": None,
     "mde": None, "from_set_only": False, "exact": True},
    {"game": "mastermind", "strategy": "optimal-kmovers", "criterion": Criterion.KMOVERS, "max_guesses": 5,
     "mde": None, "from_set_only": False, "exact": True},
    # proven without a depth limit (`bullscows campaign --unlimited`): exact for every limit from 7 up
    {"game": "bulls-cows", "strategy": "optimal-total", "criterion": Criterion.TOTAL, "max_guesses": None,
     "mde": None, "from_set_only": False, "exact": True},
    # fewest 7-movers (every other secret within 6); positions with none are not chained further
    {"game": "bulls-cows", "strategy": "optimal-kmovers", "criterion": Criterion.KMOVERS, "max_guesses": 7,
     "depth_count": 7, "mde": None, "from_set_only": False, "exact": True},
]


@dataclass
class StoredTree:
    """A loaded tree and its manifest entry (each node measures its own subtree: :attr:`solver.tree.Node.subtree`)."""

    meta: dict[str, Any]
    tree: Tree

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
        return (self.meta["criterion"] == Criterion.TOTAL and built is None and max_guesses is not None
                and max_guesses >= int(self.meta["worst_case"]))


def campaign_games() -> set[str]:
    """The specs of the games whose trees come from their campaigns (:data:`SPECS`, ``trees build``), not from
    the atlas or the records: the trees an app loads at start-up, and the ones ``atlas trees`` leaves alone."""
    return {Game.from_spec(s["game"]).spec for s in SPECS}


def read_manifest(folder: str = TREE_DIR) -> dict[tuple[str, str], dict[str, Any]]:
    """The shipped trees' descriptions by (game spec, strategy), without loading any tree; each criterion is
    parsed here, where it is read, into its :class:`~solver.vocabulary.Criterion`."""
    path = os.path.join(folder, "manifest.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        metas = json.load(fh)["trees"]
    return {(Game.from_spec(m["game"]).spec, m["strategy"]): {**m, "criterion": Criterion.parse(m["criterion"])}
            for m in metas}


def ship_tree(tree: Tree, stats: TreeStats, name: str, folder: str, meta: dict[str, Any]) -> dict[str, Any]:
    """Write ``tree`` as ``folder/name`` and return its manifest entry: ``meta`` (what produced it)
    with the file and the tree's statistics.  Shared by ``trees build`` and ``atlas trees``."""
    with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
        fh.write(to_compact(tree))
    return {**meta, "file": name, "total": stats.total, "worst_case": stats.worst_case,
            "histogram": {str(k): v for k, v in stats.histogram.items()}, "nodes": stats.nodes,
            "built": datetime.date.today().isoformat()}


def write_manifest(metas: dict[tuple[str, str], dict[str, Any]], folder: str = TREE_DIR) -> None:
    """Write the manifest: the campaign games' trees first, then the others by game size."""
    campaign = campaign_games()

    def order(meta: dict[str, Any]) -> tuple[int, int, str, str]:
        game = Game.from_spec(meta["game"])
        return (0 if game.spec in campaign else 1, game.size, game.spec, meta["strategy"])

    with open(os.path.join(folder, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump({"trees": sorted(metas.values(), key=order)}, fh, indent=1)
        fh.write("\n")


_LOADED: OrderedDict[str, StoredTree] = OrderedDict()
"""Trees loaded in this process by its shared libraries, by the digest of their file's text: the apps of one
process share a tree instead of verifying it again, and a file rewritten since (a campaign's graft) is another
text, so it is loaded again.  The most recent :data:`LOADED_MAX` are kept."""
LOADED_MAX = 256
_LOAD_LOCK = threading.Lock()


class TreeLibrary:
    """The shipped trees.  The manifest is read on first use, and each tree is loaded (and verified
    against its game) the first time it is asked for: the presets' trees when the app warms up, the
    atlas's when one of its games is first played, so that start-up does not pay for a hundred trees.  A server
    loads every tree before it forks its workers instead (:func:`service.app.warm`): loading a big tree takes a
    while (tenths of a second for 30000 secrets, verifying every node), which a first question must not wait for.
    A ``shared`` library's trees are shared by every shared library of the process."""

    def __init__(self, folder: str = TREE_DIR, *, shared: bool = False) -> None:
        self.folder = folder
        self.shared = shared
        """Whether its trees are the process's shared, read-only copies (the service's answer chains); a library
        whose trees a caller may change (a polish, a graft) keeps copies of its own."""
        self._metas: dict[tuple[str, str], dict[str, Any]] | None = None
        self._trees: dict[tuple[str, str], StoredTree] = {}
        self._lock = threading.Lock()

    def metas(self) -> dict[tuple[str, str], dict[str, Any]]:
        """What is shipped, by (game spec, strategy), without loading any tree."""
        with self._lock:
            if self._metas is None:
                self._metas = read_manifest(self.folder)
            return self._metas

    def _tree(self, key: tuple[str, str]) -> StoredTree | None:
        meta = self.metas().get(key)
        if meta is None:
            return None
        with self._lock:
            stored = self._trees.get(key)
        if stored is not None:
            return stored
        with open(os.path.join(self.folder, meta["file"]), encoding="utf-8") as tf:
            text = tf.read()
        digest = hashlib.sha256(text.encode()).hexdigest()
        with _LOAD_LOCK:
            loaded = _LOADED.get(digest) if self.shared else None
        if loaded is None:
            # verified outside the locks: the lookups of the trees already loaded do not wait for this one
            tree = from_compact(text)
            loaded = StoredTree(meta, tree)
            if self.shared:
                with _LOAD_LOCK:
                    _LOADED[digest] = loaded
                    while len(_LOADED) > LOADED_MAX:
                        _LOADED.popitem(last=False)
        stored = loaded if loaded.meta == meta else StoredTree(meta, loaded.tree)
        with self._lock:
            return self._trees.setdefault(key, stored)

    def get(self, game: Game, strategy: str, max_guesses: int | None) -> StoredTree | None:
        """The stored tree for this game and strategy, if it answers the same question."""
        if (game.spec, strategy) not in self.metas():
            return None
        stored = self._tree((game.spec, strategy))
        if stored is None or stored.tree.game.alphabet[: game.symbols] != game.alphabet[: game.symbols]:
            return None
        if strategy == "optimal-kmovers" and stored.meta["max_guesses"] != max_guesses:
            return None
        if (strategy == "optimal-total" and max_guesses is not None and max_guesses != stored.meta["max_guesses"]
                and not stored.answers(max_guesses)):
            return None
        return stored

    def presets(self) -> list[StoredTree]:
        """The campaign games' trees (:data:`SPECS`: Mastermind and Bulls-and-Cows, loaded and verified: what
        the app warms up with).  Not every preset's: the other named games' trees are the atlas's or a records
        game's best-known tree, loaded when first asked for (or by a server before it forks)."""
        specs = campaign_games()
        return [t for key in self.metas() if key[0] in specs and (t := self._tree(key)) is not None]

    def all(self) -> list[StoredTree]:
        """Every stored tree, each loaded and verified."""
        return [t for key in self.metas() if (t := self._tree(key)) is not None]


def tree_note(stored: StoredTree, max_guesses: int | None) -> str | None:
    """Why a shipped tree's answer is not exact for this question (None when it is)."""
    if stored.answers(max_guesses):
        return None
    if not stored.meta["exact"]:
        return "this tree is a heuristic strategy's, not proven optimal"
    k = stored.meta["max_guesses"]
    return (f"this tree is optimal within {k} guesses; without that limit the optimum is not proven "
            f"(ask with max_guesses {k} for the proven answer)")


def download_name(game: Game, strategy: str, fmt: str) -> str:
    """The file name a tree is saved under (``mastermind-optimal-total.json``, ``5-6-1-best-known-lengths.txt``):
    the game's name and the strategy, with nothing but letters, digits, dots and dashes, so that it is safe in a
    ``Content-Disposition`` header and on any file system."""
    stem = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{game.name}-{strategy}").strip(".-") or "tree"
    return f"{stem}-lengths.txt" if fmt == "lengths" else f"{stem}.json"
