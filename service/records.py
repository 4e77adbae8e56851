"""The games people play beyond four positions, which nobody has solved exactly: ``service/data/records.json``,
read by ``GET /v1/games/{game}``, ``bullscows records show`` and ``docs/records.md``, written by the lab's
``bullscows records`` commands (:mod:`service.records_keeping`).

Each game holds the best strategies published elsewhere (with their sources, as facts to beat), the lower
bound of the optimal total this project proved (how deep, the command, the time) and the best strategy tree it
built (shipped as the game's ``best-known`` tree, played through every secret when it is built and again when it
is loaded).  This module reads and serves the file.
"""

from __future__ import annotations

import json
import os
from typing import Any

from service.registry import (
    GameRegistry,
    tree_name,
)
from solver import presets
from solver.game import Game
from solver.vocabulary import BEST_KNOWN

RECORDS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "records.json")


PUBLISHED: dict[str, dict[str, Any]] = {  # "check": how `bullscows records check` recomputes a row (colours from 0)
    "5,8,1": {
        "name": presets.PRESETS["super-mastermind"].label,
        "published": [
            {"total": 179274, "worst_case": None, "first_guess": "12344",
             "how": "optimal among strategies that play an impossible code at move 2 at most",
             "source": "supermastermind's optimal strategy page (github.com/supermastermind/playonline)"},
            {"total": 179929, "worst_case": 8, "first_guess": "12233",
             "how": "optimal among strategies that only play possible codes",
             "source": "supermastermind's optimal strategy page (github.com/supermastermind/playonline)",
             "check": {"first_guess": "01122", "from_set_only": True}},
            {"total": None, "average": 5.4856, "worst_case": None, "first_guess": None,
             "how": "entropy, one step (best of the one-step heuristics there)",
             "source": "github.com/mikemag/Mastermind results"},
        ],
    },
    "5,10,0": {
        "name": presets.PRESETS["bulls-cows-5"].label,
        "published": [
            {"total": 171689, "worst_case": 7, "first_guess": None,
             "how": "a search, not claimed optimal",
             "source": "github.com/Weijie608/Bulls-and-Cows-5-Digit-Solver"},
        ],
    },
}
"""The games of the records and the best strategies published for them, as found (cited, not computed)."""


class Records(GameRegistry):
    """The records' file as a :class:`~service.registry.GameRegistry`: the games of :data:`PUBLISHED`, each with
    what this project proved and built of it (a bound is kept as it is: the file holds no bracket to raise)."""

    group = "records"

    def load(self, path: str | None = None) -> dict[str, dict[str, Any]]:
        """Entries by game spec, every game of :data:`PUBLISHED` present (empty of our results until run)."""
        path = path or self.file
        found: dict[str, dict[str, Any]] = {}
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                try:
                    doc = json.load(fh)
                    found = {str(e["game"]): e for e in doc["games"]}
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path} is not a records file ({exc})") from None
                if "records" not in doc:  # an atlas file has games too: rewritten as records, it would be lost
                    raise ValueError(f"{path} is not a records file (it has no \"records\" key"
                                     + ("; it is an atlas file)" if "atlas" in doc else ")"))
        return {spec: {"game": spec, **PUBLISHED[spec], **{k: v for k, v in found.get(spec, {}).items()
                                                           if k in ("lower_bound", "best_known", "check")}}
                for spec in PUBLISHED}

    def served(self, game: Game) -> dict[str, Any] | None:
        """A records game as ``GET /v1/games/{game}`` gives it (``RecordOut``), or None for any other game."""
        if game.spec not in PUBLISHED:
            return None
        return served_entry(self.shipped()[game.spec])

    tree_key = "best_known"


RECORDS = Records(RECORDS_FILE)
"""The package's records; the module's functions below are its methods."""


load = RECORDS.load


shipped = RECORDS.shipped


served = RECORDS.served


def spec_of(game: str) -> str:
    """The records' spec of a game, or ValueError when it is not one of them."""
    spec = Game.from_spec(game).spec
    if spec not in PUBLISHED:
        raise ValueError(f"{spec} is not a records game (these are {', '.join(PUBLISHED)})")
    return spec


def served_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A records file's entry as :func:`served` gives it (``bullscows records show`` reads any file so)."""
    best = entry.get("best_known")
    bound = entry.get("lower_bound")
    check = entry.get("check")
    return {
        "name": entry["name"],
        "published": entry["published"],
        "best_known": None if best is None else {
            **{k: best[k] for k in ("strategy", "total", "average", "worst_case", "first_guess", "seconds",
                                    "command", "machine")},
            "name": tree_name(best, "Record tree"), "tree": BEST_KNOWN, "proven_optimal": False},
        "lower_bound": None if bound is None else {
            **{k: bound[k] for k in ("value", "criterion", "depth", "size_only", "seconds", "command", "machine")},
            "finished": bound.get("campaign", {}).get("finished", True)},
        "check": None if check is None else {
            **{k: check[k] for k in ("how", "first_guess", "from_set_only", "published", "finished", "seconds",
                                     "command", "machine")},
            "parts": len(check.get("parts") or {}), "value": check.get("value"), "agrees": check.get("agrees")},
    }


def markdown(entries: dict[str, dict[str, Any]]) -> str:
    """The records table of ``docs/records.md``: the published strategies, then this project's tree (an upper
    bound of the optimum, every secret played) and its proven lower bound (a "≥" row)."""
    rows = ["| game | strategy | total | average | worst case | first guess | time | source, or the command |",
            "|---|---|---:|---:|---:|---|---:|---|"]
    for spec, entry in entries.items():
        n = Game.from_spec(spec).size
        for p in entry["published"]:
            total = "" if p["total"] is None else str(p["total"])
            avg = p.get("average") or (round(p["total"] / n, 4) if p["total"] is not None else "")
            rows.append(f"| {spec} | {p['how']} | {total} | {avg} | {p['worst_case'] or ''} | "
                        f"{p['first_guess'] or ''} | | {p['source']} |")
        check = entry.get("check")
        if check is not None and check.get("finished"):
            verdict = "reproduced" if check["agrees"] else f"searched again: not {check['published']}"
            rows.append(f"| {spec} | **this project**: {check['how']}, {verdict} (colours counted from 0) | "
                        f"{check['value']} | {round(check['value'] / n, 4)} | | {check['first_guess']} | "
                        f"{check['seconds']} s | `{check['command']}` |")
        best = entry.get("best_known")
        if best is not None:
            rows.append(f"| {spec} | **this project**: {best['strategy']} | **{best['total']}** | {best['average']} | "
                        f"{best['worst_case']} | {best['first_guess']} | {best['seconds']} s | `{best['command']}` |")
        bound = entry.get("lower_bound")
        if bound is not None:
            asked = "" if bound.get("target") is None else f", asked for {bound['target']}"
            rows.append(f"| {spec} | **this project**: proven lower bound of the optimum ({bound['depth']} plies "
                        f"refined{asked}) | ≥ {bound['value']} | ≥ {round(bound['value'] / n, 4)} | | | "
                        f"{bound['seconds']} s | `{bound['command']}` |")
    return "\n".join(rows) + "\n"
