"""One registry of games, as the service reads it: what the atlas (:mod:`service.atlas`) and the records
(:mod:`service.records`) share when they are served.

Why: both are a JSON file of games, read once per process to serve ``GET /v1/games/{game}``, each holding a proven
lower bound of a game's optimal total and a best-known strategy tree shipped beside the optimal ones.  Reading and
serving them is said once here (:class:`GameRegistry`); how they are improved (the rule by which a bound or a tree
is kept, the hybrids, polishes and bounds that improve them) is the lab's, :mod:`service.keeping`, which the service
never imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from solver.game import Game

Log = Callable[[str], None]


Entries = dict[str, dict[str, Any]]
"""A registry file's entries, by game spec."""


def tree_name(fields: dict[str, Any], kind: str = "Hybrid tree") -> str:
    """A best-known tree's short name for people, from how it plays (``fields``: a hybrid's or a records tree's
    record: ``above``, ``exact_at_most``, ``rollout``, ``max_guesses``, ``polish``), such as "Record tree:
    entropy rollout, exact once ≤30 left, within 7 guesses" (the one-step strategy played, rolled out or not; the
    optimal guess once that many candidates are left; the depth limit it keeps to; polished parts).

    Why: the tree's own description (its ``strategy``) and its ``command`` grow with every rollout, polish
    and graft that improved it, to thousands of characters; they stay as provenance, and menus and headlines
    show this.  Derived, never stored, so that a new tree is named as it is recorded."""
    rollout = fields.get("rollout") or {}
    max_guesses = rollout.get("max_guesses", fields.get("max_guesses"))
    parts = [f"{fields['above']}{' rollout' if rollout else ''}", f"exact once \u2264{fields['exact_at_most']} left"]
    if max_guesses is not None:
        parts.append(f"within {max_guesses} guesses")
    if fields.get("polish") or rollout.get("polish_units"):
        parts.append("polished")
    return f"{kind}: {', '.join(parts)}"


class GameRegistry:
    """A file of games (:attr:`file`, entries by game spec) that campaigns improve and the service serves: the
    shape the atlas and the records share.  A kind says how its file is read (:meth:`load`) and what it serves of a
    game (:meth:`served`); the file is read once per process (:meth:`shipped`).  The lab's
    :class:`service.keeping.KeptRegistry` adds how it is written and improved."""

    group = ""
    """The command group that writes the file (``bullscows atlas …``, ``bullscows records …``)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self._shipped: dict[str, dict[str, Any]] | None = None

    def load(self, path: str | None = None) -> dict[str, dict[str, Any]]:
        """The file's entries by game spec (``path``: another file than the package's)."""
        raise NotImplementedError

    def served(self, game: Game) -> dict[str, Any] | None:
        """The game as ``GET /v1/games/{game}`` gives it, or None when the file does not hold it."""
        raise NotImplementedError

    def shipped(self) -> dict[str, dict[str, Any]]:
        """The package's file, read once per process."""
        if self._shipped is None:
            self._shipped = self.load(self.file)
        return self._shipped

    tree_key = ""
    """Where an entry records its best-known tree (``hybrid``, ``best_known``)."""
