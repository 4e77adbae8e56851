"""The atlas as shipped data: ``service/data/atlas.json``, read by ``GET /v1/games/{game}`` and ``bullscows atlas
show``, written by the lab's ``bullscows atlas run`` (:mod:`service.atlas_keeping`).

Each game's entry holds its numbers, exact or bracketed, and what proves them; an entry whose numbers are all exact
is never computed again.  What each number means, and how it is found, is :mod:`solver.atlas`.  This module reads
and serves the file; the service imports nothing of the code that computes and improves it.
"""

from __future__ import annotations

import json
import os
from typing import Any

from service.registry import (
    GameRegistry,
    tree_name,
)
from solver.atlas import (
    LABELS,
    NAMES,
    OneStep,
    best_one_step,
)
from solver.errors import SolverError
from solver.game import Game
from solver.vocabulary import BEST_KNOWN

ATLAS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "atlas.json")


class Atlas(GameRegistry):
    """The atlas's file as a :class:`~service.registry.GameRegistry`: entries computed by ``atlas run``, their
    numbers exact or bracketed, a proven bound raising T's and T_W's lower bounds (:func:`apply_lower_bound`)."""

    group = "atlas"

    def load(self, path: str | None = None) -> dict[str, dict[str, Any]]:
        """Entries by game spec (``"4,6,1"``); empty when the file does not exist yet."""
        path = path or self.file
        if not os.path.exists(path):
            return {}
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        return {str(e["game"]): e for e in doc["games"]}

    def served(self, game: Game) -> dict[str, Any] | None:
        """A game's entry as ``GET /v1/games/{game}`` gives it (``AtlasOut``), or None outside the atlas."""
        entry = self.shipped().get(game.spec)
        if entry is None:
            return None
        values = entry["values"]
        mean = average(entry)
        return {
            **{name: {"label": LABELS[name], **{k: values[name][k] for k in ("value", "exact", "lower", "upper")}}
               for name in NAMES},
            "average": None if mean is None else round(mean, 6),
            "seconds": entry["seconds"], "machine": entry["machine"], "command": entry["command"],
            "best_known": best_known(entry),
            "lower_bound": lower_bound_of(entry),
        }

    tree_key = "hybrid"


ATLAS = Atlas(ATLAS_FILE)
"""The package's atlas; the module's functions below are its methods."""


load = ATLAS.load


shipped = ATLAS.shipped


served = ATLAS.served


def average(entry: dict[str, Any]) -> float | None:
    """Optimal guesses per secret (T / codes), when T is exact."""
    total = entry["values"]["total"]
    return float(total["value"] / entry["codes"]) if total["exact"] else None


def lower_bound_of(entry: dict[str, Any]) -> dict[str, Any] | None:
    """Where an unsolved entry's lower bound of T comes from, when `atlas bounds` proved it (None once
    the total is exact, or while the bound is the size-only one)."""
    record = entry.get("lower_bound")
    if record is None or entry["values"]["total"]["exact"]:
        return None
    return {**{k: record[k] for k in ("value", "depth", "size_only", "seconds", "command", "machine")},
            "finished": record.get("campaign", {}).get("finished", True)}


def menu() -> list[dict[str, Any]]:
    """Every shipped entry in brief, smallest game first (``GET /v1/games``'s ``atlas``)."""
    out = []
    for spec, e in shipped().items():
        mean = average(e)
        out.append({"game": spec, "positions": e["positions"], "symbols": e["symbols"], "repetition": e["repetition"],
                    "codes": e["codes"], "exact": finished(e), "average": None if mean is None else round(mean, 6),
                    "values": {name: {k: e["values"][name][k] for k in ("value", "exact", "lower", "upper")}
                               for name in NAMES},
                    "best_known": best_known(e)})
    return out


def finished(entry: dict[str, Any] | None) -> bool:
    """Whether every number of an entry is exact."""
    return entry is not None and all(entry["values"][name]["exact"] for name in NAMES)


def unsolved(entry: dict[str, Any] | None) -> bool:
    """Whether an entry is a game a hybrid tree may be built for: not finished, its one-step trees there to beat."""
    return entry is not None and not finished(entry) and "one_step" in entry


def best_known(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The best strategy tree known of an entry whose total is not proven: its hybrid tree when it has
    one (shipped as ``best-known``, never worse than the one-step trees), else its best one-step
    strategy, with what the tree proves (None when the total is exact, or no tree was built)."""
    if entry["values"]["total"]["exact"] or "one_step" not in entry:
        return None
    hybrid = entry.get("hybrid")
    if hybrid is not None:
        return {"strategy": BEST_KNOWN, "name": tree_name(hybrid), "total": hybrid["total"],
                "worst_case": hybrid["worst_case"],
                "movers": hybrid["movers"], "proven_optimal": False,
                "hybrid": {"above": hybrid["above"], "exact_at_most": hybrid["exact_at_most"],
                           "rollout": hybrid.get("rollout")}}
    trees = {name: OneStep(**t) for name, t in entry["one_step"].items()}
    name = best_one_step(trees)
    return {"strategy": name, "name": f"One-step tree: {name}", **trees[name].as_dict(), "proven_optimal": False,
            "hybrid": None}


class NoBestKnownTreeError(SolverError):
    """``best-known`` asked of a game that ships no such tree (the API's ``/problems/no-best-known-tree``, the CLI's
    one-line refusal)."""

    slug = "no-best-known-tree"

    @classmethod
    def of(cls, game: Game) -> NoBestKnownTreeError:
        """The error for ``game``, in the words both the API and the CLI say it."""
        return cls(f"game {game.spec} ships no {BEST_KNOWN} tree: only the games nothing has solved do (the atlas's "
                   "unsolved games, Super Mastermind and five-digit Bulls-and-Cows; GET /v1/games/{game} names each "
                   "game's best known strategy)")


def shown(value: dict[str, Any]) -> str:
    """A number as the atlas prints it: the value, or its bounds ``[lower, upper]``."""
    if value["exact"]:
        return str(value["value"])
    upper = "?" if value["upper"] is None else value["upper"]
    return f"[{value['lower']}, {upper}]"
