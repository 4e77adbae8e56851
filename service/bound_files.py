"""The progress file of a lower-bound campaign (:mod:`service.bound_campaigns`): its format, read and amended
under its lock, its parts' bounds as :class:`solver.partledger.PartLedger` keys them, its upkeep, and the bound
it proves as it stands.

The file (``campaigns/bounds-<game>.json``) keeps the parts' bounds (below each first guess, by response: the
bound and the plies whose full bound it is known to reach, or ``"exact"``), the parts' bounds under each of their
second guesses (``seconds``: a big part of the last pass is refined one second guess at a time, and each is kept,
so that a part that takes hours is not lost whole when its run stops) and the parts below each second guess
(``thirds``, for the same reason one level down), each finished unit's bound under the plan (depth and target),
with the time each unit took over every run (``spent``).

Why apart from the campaign that runs: the file is read by more than the campaign (the atlas's and the records'
bounds are claimed by it, ``atlas gaps`` and ``atlas settle`` read and amend it), and every reader must agree on
what it holds and on the one rule of its bounds: each is a proof, so none ever falls.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from service.campaign_files import CampaignError
from service.store.files import update_json
from solver import kernels
from solver.bounds import lower_bound_tables
from solver.errors import SolverError
from solver.game import Game
from solver.lowerbound import LEAVES, root_classes
from solver.partledger import EXACT_PLIES
from solver.table import MMAX
from solver.vocabulary import Criterion

Log = Callable[[str], None]


FORMAT = "bullscows-bound-campaign"


def read(path: str) -> dict[str, Any] | None:
    """The progress file's document, or None when there is none yet.

    :raises CampaignError: the file is not a lower-bound campaign's progress.
    """
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            try:
                doc = json.load(fh)
            except ValueError as exc:
                raise ValueError(f"not JSON ({exc})") from None
        if (not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("parts"), dict)
                or not isinstance(doc.get("units"), dict)):
            raise ValueError("not a lower-bound campaign's progress file")
        return doc
    except (OSError, ValueError) as exc:
        raise CampaignError(f"{path}: {exc}") from None


def amend(path: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Change the progress file as it is now (re-read as one step with the write: other processes write to it
    too)."""
    def changed(doc: dict[str, Any] | None) -> dict[str, Any]:
        if doc is None:
            raise CampaignError(f"{path} disappeared while the campaign ran")
        change(doc)
        return doc

    written = update_json(path, changed, load=read)
    assert written is not None
    return written


def ledger_bounds(game: Game, doc: dict[str, Any]) -> dict[tuple[int, int], tuple[int, int]]:
    """The parts' bounds of a progress document, keyed as :class:`solver.partledger.PartLedger` keys them.

    :raises CampaignError: a code, response or bound that does not belong to the game.
    """
    out: dict[tuple[int, int], tuple[int, int]] = {}
    try:
        for guess, parts in doc["parts"].items():
            g = game.parse_code(guess)
            for response, (lower, plies) in parts.items():
                if plies == "exact":
                    plies = EXACT_PLIES
                if not (isinstance(lower, int) and isinstance(plies, int)) or lower < 0 or plies < 0:
                    raise ValueError(f"bound {lower!r}, {plies!r}")
                out[(g, game.parse_response(response))] = (lower, plies)
    except (SolverError, ValueError, TypeError, AttributeError) as exc:
        raise CampaignError(f"a part's bound in the progress file is not {game.spec}'s: {exc}") from None
    return out


BELOW = {"seconds": "crc", "thirds": "crcr"}
"""The file's sections below the root parts, and what their nested keys are (c a code, r a response): the parts'
bounds under each second guess (first guess, response, second guess), and the parts below a second guess
(the same, then the response to it)."""


def ledger_below(game: Game, doc: dict[str, Any], section: str) -> dict[tuple[int, ...], tuple[int, int]]:
    """The bounds of one of the sections of :data:`BELOW`, keyed as :class:`solver.partledger.PartLedger` keys
    them (``seconds``: :meth:`~solver.partledger.PartLedger.get_second`; ``thirds``: ``get_third``).

    :raises CampaignError: a code, response or bound that does not belong to the game.
    """
    kinds = BELOW[section]
    out: dict[tuple[int, ...], tuple[int, int]] = {}

    def walk(tree: Any, keys: tuple[int, ...]) -> None:
        for text, value in tree.items():
            kind = kinds[len(keys)]
            key = (*keys, game.parse_code(text) if kind == "c" else game.parse_response(text))
            if len(key) < len(kinds):
                walk(value, key)
                continue
            lower, plies = value
            if not (isinstance(lower, int) and isinstance(plies, int)) or lower < 0 or plies < 0:
                raise ValueError(f"bound {lower!r}, {plies!r}")
            out[key] = (lower, plies)

    try:
        walk(doc.get(section, {}), ())
    except (SolverError, ValueError, TypeError, AttributeError) as exc:
        what = "a second guess's bound" if section == "seconds" else "the bound of a part below a second guess"
        raise CampaignError(f"{what} in the progress file is not {game.spec}'s: {exc}") from None
    return out


def ledger_seconds(game: Game, doc: dict[str, Any]) -> dict[tuple[int, int, int], tuple[int, int]]:
    """The bounds of the parts under each of their second guesses (``seconds``), as :func:`ledger_below` reads them."""
    return {(k[0], k[1], k[2]): v for k, v in ledger_below(game, doc, "seconds").items()}


def ledger_thirds(game: Game, doc: dict[str, Any]) -> dict[tuple[int, int, int, int], tuple[int, int]]:
    """The bounds of the parts below each second guess (``thirds``), as :func:`ledger_below` reads them."""
    return {(k[0], k[1], k[2], k[3]): v for k, v in ledger_below(game, doc, "thirds").items()}


def _below_keys(game: Game, section: str, key: tuple[int, ...]) -> list[str]:
    """A key of :func:`ledger_below` as the file's nested keys."""
    return [game.format_code(x) if kind == "c" else game.format_response(x) for kind, x in zip(BELOW[section], key,
                                                                                                 strict=True)]


def raise_bound(row: dict[str, Any], key: str, lower: int, plies: int) -> None:
    """Raise ``row[key]`` (``[bound, plies or "exact"]``) to a new proof: neither ever falls."""
    old_lower, old_plies = row.get(key, [0, 0])
    most = max(EXACT_PLIES if old_plies == "exact" else int(old_plies), plies)
    row[key] = [max(int(old_lower), lower), "exact" if most >= EXACT_PLIES else most]


def merge(game: Game, doc: dict[str, Any], bounds: dict[tuple[int, int], tuple[int, int]],
           below: dict[str, dict[tuple[int, ...], tuple[int, int]]] | None = None) -> None:
    """Raise the document's parts' bounds to ``bounds``, and those of its sections below them (:data:`BELOW`) to
    ``below`` (never lower one: each is a proof)."""
    for (g, r), (lower, plies) in bounds.items():
        raise_bound(doc["parts"].setdefault(game.format_code(g), {}), game.format_response(r), lower, plies)
    for section, entries in (below or {}).items():
        for key, (lower, plies) in entries.items():
            *path, last = _below_keys(game, section, key)
            row = doc.setdefault(section, {})
            for name in path:
                row = row.setdefault(name, {})
            raise_bound(row, last, lower, plies)


def plan_of(depth: int, target: int | None) -> dict[str, Any]:
    """What a campaign's units are refined for: their bounds hold for this plan only (the parts', for all)."""
    return {"depth": depth, "target": target}


def start(game: Game, depth: int, target: int | None, path: str, log: Log = lambda _: None) -> dict[str, Any]:
    """The campaign's progress for this plan: read from ``path`` (its parts kept whatever plan proved them;
    a finished plan's units, or another plan's, set aside under ``earlier``), else begun there.

    :raises CampaignError: the file is another game's, or unreadable.
    """
    plan = plan_of(depth, target)

    def begun(doc: dict[str, Any] | None) -> dict[str, Any]:
        if doc is None:
            doc = {"format": FORMAT, "game": game.spec, "started": datetime.date.today().isoformat(),
                   "plan": plan, "leaves": LEAVES, "parts": {}, "units": {}}
        else:
            same_game(game, doc, path)
            ledger_bounds(game, doc)  # refuse a corrupt file before any work
            for section in BELOW:
                ledger_below(game, doc, section)
            doc.pop("claims", None)  # parts claimed by the file campaigns of before: nobody holds them now
            compact_seconds(doc)
            relabelled = doc.get("leaves") != LEAVES
            if relabelled:
                way = doc.get("leaves") or "by size"
                _count_plies_anew(doc)
                log(f"{game.spec}: the file's parts were proven with their sets valued another way "
                    f"({way}); their bounds are kept, at no known depth"
                    + (", and its units are done again" if doc["units"] or "finished" in doc else ""))
            if doc.get("plan") != plan or relabelled:
                if doc["units"] or "finished" in doc:
                    doc.setdefault("earlier", []).append(
                        {"plan": doc.get("plan"), "units": doc["units"], "spent": doc.pop("spent", {}),
                         **({"finished": doc.pop("finished")} if "finished" in doc else {})})
                    log(f"{game.spec}: the file's units were for {doc.get('plan')}; its parts' bounds are kept")
                doc["plan"], doc["units"] = plan, {}
        return doc

    written = update_json(path, begun, load=read)
    assert written is not None
    return written


def standing(game: Game, doc: dict[str, Any]) -> int:
    """The lower bound of the game's optimal total that the file proves as it stands, finished or not: the least,
    over the first guesses (one per class), of the guess's cost to every candidate plus its parts' bounds (each
    the file's, else its size-only bound), or of the unit's bound when it is finished and higher.

    Why: every part's bound is a proof, so the root's bound rises with each part a campaign finishes, not only
    when the last unit ends; a run stopped after hours still narrows the bracket."""


    lb0 = lower_bound_tables(game, game.size)[0, Criterion.TOTAL.code, MMAX]
    bounds = ledger_bounds(game, doc)
    arrays = game.search_arrays()
    cands = np.arange(game.size, dtype=np.int32)
    least: int | None = None
    for g in root_classes(game):
        _, starts = kernels.split(*arrays.kernel_args(), g, cands, game.n_responses)
        sizes = np.diff(starts)
        value = game.size + sum(max(int(lb0[int(sizes[r])]), bounds.get((g, r), (0, 0))[0])
                                for r in range(game.n_responses) if sizes[r] > 0 and r != game.all_bulls)
        unit = doc["units"].get(game.format_code(g))
        if unit is not None:
            try:
                value = max(value, int(unit["bound"]))
            except (KeyError, TypeError, ValueError) as exc:
                raise CampaignError(f"a unit's bound in the progress file is not a number: {exc!r}") from None
        least = value if least is None else min(least, value)
    return int(lb0[game.size]) if least is None else least


def settling_seconds(doc: dict[str, Any]) -> float:
    """The time the file's sweeps took, settled parts' and those under way (:func:`settle`): the depth
    campaign's ``spent`` does not count them."""
    return sum(float(entry.get("seconds", 0.0)) for section in ("settled", "settle")
               for parts in doc.get(section, {}).values() for entry in parts.values())


def _prune(tree: dict[str, Any], drop: Callable[[tuple[str, ...], list[Any]], bool],
           keys: tuple[str, ...] = ()) -> None:
    """Delete the leaves (``[bound, plies]``) of a nested section for which ``drop(their keys, leaf)`` holds, and
    the branches left empty."""
    for key, value in list(tree.items()):
        if isinstance(value, dict):
            _prune(value, drop, (*keys, key))
            if not value:
                del tree[key]
        elif drop((*keys, key), value):
            del tree[key]


def compact_seconds(doc: dict[str, Any]) -> None:
    """Drop the second guesses' bounds that say nothing their part's bound does not: cut ones (plies 0) no higher
    than it (a part's bound is the least of its second guesses'); and the bounds of a second guess's parts once
    the second guess is known in full at more plies than they were proven for."""

    def part(keys: tuple[str, ...]) -> int:
        return int(doc["parts"].get(keys[0], {}).get(keys[1], [0, 0])[0])

    def second(keys: tuple[str, ...]) -> int:
        return int(doc.get("seconds", {}).get(keys[0], {}).get(keys[1], {}).get(keys[2], [0, 0])[1])

    _prune(doc.get("seconds", {}), lambda keys, leaf: int(leaf[1]) == 0 and int(leaf[0]) <= part(keys))
    _prune(doc.get("thirds", {}), lambda keys, leaf: second(keys) > int(leaf[1]))
    for section in BELOW:
        if not doc.get(section, True):
            doc.pop(section)


def same_game(game: Game, doc: dict[str, Any], path: str) -> None:
    """Refuse another game's progress file before anything is read from it or written to it."""
    if doc.get("game") != game.spec:
        raise CampaignError(f"{path} is {doc.get('game')}'s campaign, not {game.spec}'s; give another progress file")


def _count_plies_anew(doc: dict[str, Any]) -> None:
    """A file whose sets were valued another way than :data:`LEAVES` (by size, or by their own codes before the
    sets' branching counted): each part's bound stays (a proof is a proof), but it reaches no known depth this
    way (the bound this way at k plies is at least the old one's, often far higher), so its plies become 0 and
    the parts are refined again with the old bounds as estimates; exact parts stay exact."""
    for parts in doc["parts"].values():
        for key, (lower, plies) in parts.items():
            if plies != "exact":
                parts[key] = [lower, 0]

    def drop(tree: dict[str, Any]) -> None:
        for key, value in tree.items():
            if isinstance(value, dict):
                drop(value)
            else:
                tree[key] = [value[0], 0]

    for section in BELOW:
        drop(doc.get(section, {}))
    doc["leaves"] = LEAVES


def keep_unit(doc: dict[str, Any], guess: str, value: int, work: int, seconds: float) -> None:
    """Put a finished unit (a first guess's bound under the file's plan) in a progress document, unless it holds
    a higher one: two runs finished it, both bounds hold, the higher is kept."""
    old = doc["units"].get(guess)
    if old is None or value > int(old["bound"]):
        doc["units"][guess] = {"bound": value, "work": work, "seconds": round(seconds, 1)}
