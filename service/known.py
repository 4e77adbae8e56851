"""What is known of a game, in plain words: ``known`` of ``GET /v1/games/{game}``, of each preset and atlas game of
``GET /v1/games``, and the headline of ``bullscows records show``.

Why one place: the figures are spread over the atlas (solved games, and the unsolved ones' brackets and hybrid
trees), the records (the two big games' trees, bounds and published rivals) and the shipped trees' manifest; a
person asking "is this game solved, and how well does the service play it?" needs one answer, worded the same
wherever it is shown.  Every number here is read from what :mod:`service.atlas` and :mod:`service.records` serve,
never typed: the headline says only what those say (the lower bound is the proven bound of the total without a
depth limit, and "ahead of" a published figure only when our total is strictly smaller).
"""

from __future__ import annotations

import functools
from typing import Any, Literal, TypeAlias

from service import atlas, records
from service.trees import read_manifest
from solver.game import Game

Status: TypeAlias = Literal["solved", "best-known", "bounds", "unknown"]


@functools.lru_cache(maxsize=1)
def _shipped_trees() -> dict[tuple[str, str], dict[str, Any]]:
    """Every shipped tree's description (its worst case among them) by (game spec, strategy), from the manifest
    alone (no tree is loaded)."""
    return read_manifest()


def known(game: Game) -> dict[str, Any]:
    """What is known of ``game`` (``KnownOut``), from the shipped atlas, records and trees."""
    entry = atlas.shipped().get(game.spec)
    record = records.served(game)
    return summary(game, entry, record)


def atlas_menu() -> list[dict[str, Any]]:
    """The atlas's games in brief (:func:`service.atlas.menu`), each with what is known of it."""
    return [{**brief, "known": known(Game.from_spec(brief["game"]))} for brief in atlas.menu()]


def summary(game: Game, entry: dict[str, Any] | None, record: dict[str, Any] | None) -> dict[str, Any]:
    """What an atlas ``entry`` (as the atlas file holds it) and a records game's ``record`` (as
    :func:`service.records.served` gives it) say of ``game``, either or both None."""
    if entry is not None and entry["values"]["total"]["exact"]:
        return _solved(game, entry)
    if record is not None and (record["best_known"] is not None or record["lower_bound"] is not None):
        return _record(record)
    if entry is not None:
        return _unsolved(game, entry)
    return _shape("unknown", f"not solved here yet: no optimum, bound or best-known tree is stored for this game "
                             f"({game.size} codes); strategies play it, and positions are searched on request")


def _shape(status: Status, headline: str, *, total: int | None = None, average: float | None = None,
           worst_case: int | None = None, lower_bound: int | None = None, published_best: int | None = None,
           tree: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"status": status, "headline": headline, "total": total, "average": average, "worst_case": worst_case,
            "lower_bound": lower_bound, "published_best": published_best, "tree": tree}


def _provenance(source: dict[str, Any], detail: str | None = None) -> dict[str, Any]:
    """How the figures or the tree were made: the command, where and how long, as recorded."""
    return {"command": source["command"], "machine": source.get("machine"), "seconds": source.get("seconds"),
            "date": source.get("date"), "detail": detail}


def _solved(game: Game, entry: dict[str, Any]) -> dict[str, Any]:
    """An atlas game whose optimal total is proven."""
    values = entry["values"]
    total = int(values["total"]["value"])
    mean = atlas.average(entry)
    assert mean is not None  # the total is exact
    average = round(mean, 6)
    worst = values["worst_case"]
    shipped = _shipped_trees().get((game.spec, "optimal-total"))
    # The worst case said beside the optimal total is that of the tree the service plays for it (an optimal
    # total may be reached by trees of different depths); the smallest worst case is another strategy's, said
    # apart with what keeping to it costs, so that no game played by the optimal total contradicts the line.
    headline = f"solved: {total} guesses in all, {mean:.3f} on average"
    if shipped is not None:
        headline += f", never more than {shipped['worst_case']} guesses"
    within = values["total_within_worst_case"]
    if worst["exact"] and within["exact"] and (shipped is None or int(worst["value"]) < int(shipped["worst_case"])):
        headline += f"; held to {worst['value']} guesses, the fewest that always suffice: {within['value']} in all"
    tree = None
    if shipped is not None:
        tree = {"strategy": "optimal-total", "name": "Optimal tree: fewest guesses in all, proven",
                "provenance": _provenance(entry, "the atlas's search, which proved the numbers")}
    return _shape("solved", headline, total=total, average=average,
                  worst_case=int(worst["value"]) if worst["exact"] else None, tree=tree)


def _compared(ours: int, published: int) -> str:
    """Our total beside the best published one, in words that follow the numbers."""
    if ours < published:
        return f"ahead of the best published {published}"
    if ours == published:
        return f"equal to the best published {published}"
    return f"behind the best published {published}"


def _record(record: dict[str, Any]) -> dict[str, Any]:
    """A records game (:mod:`service.records`): our best tree, the best published total, the proven bound."""
    best = record["best_known"]
    bound = record["lower_bound"]
    totals = [int(p["total"]) for p in record["published"] if p.get("total") is not None]
    published = min(totals) if totals else None
    lower = None if bound is None else int(bound["value"])
    proven = "" if lower is None else f"; proven at least {lower}" + (
        "" if bound["finished"] else " (campaign under way)")
    if best is None:
        rival = "" if published is None else f"; best published {published}"
        return _shape("bounds", f"not solved: no tree built here yet{rival}{proven}", lower_bound=lower,
                      published_best=published)
    total = int(best["total"])
    headline = (f"best known: {total} guesses in all ({best['average']:.3f} on average, never more than "
                f"{best['worst_case']})" + ("" if published is None else f", {_compared(total, published)}") + proven)
    tree = {"strategy": best["tree"], "name": best["name"], "provenance": _provenance(best, best["strategy"])}
    return _shape("best-known", headline, total=total, average=float(best["average"]),
                  worst_case=int(best["worst_case"]), lower_bound=lower, published_best=published, tree=tree)


def _unsolved(game: Game, entry: dict[str, Any]) -> dict[str, Any]:
    """An atlas game whose optimal total is bracketed: its best-known tree and its proven lower bound."""
    total = entry["values"]["total"]
    lower = int(total["lower"])
    best = atlas.best_known(entry)
    if best is None:
        upper = "?" if total["upper"] is None else total["upper"]
        return _shape("bounds", f"not solved: between {lower} and {upper} guesses in all (proven bounds)",
                      lower_bound=lower)
    mean = int(best["total"]) / game.size
    headline = (f"best known: {best['total']} guesses in all ({mean:.3f} on average, never more than "
                f"{best['worst_case']}); proven at least {lower}")
    hybrid = entry.get("hybrid") if best["hybrid"] is not None else None
    tree = {"strategy": best["strategy"], "name": best["name"],
            "provenance": _provenance(entry, "the atlas's one-step trees") if hybrid is None else _provenance(hybrid)}
    return _shape("best-known", headline, total=int(best["total"]), average=round(mean, 6),
                  worst_case=int(best["worst_case"]), lower_bound=lower, tree=tree)
