"""A polish's progress (:func:`solver.polish.polish`), kept in a file so that a polish continues where it stopped.

Why: a polish searches each middle-sized position of a best-known tree for up to its budget, one after another.
With a minute or more per position and a few hundred positions, it takes longer than a session, and before this
file it wrote nothing until it had visited them all: a run stopped after an hour kept nothing of that hour.  Each
position is now written here as soon as it is settled (proven optimal, improved with its new subtree, out of time,
or nothing kept), atomically and under a lock, and the same command run again takes every settled position as it
was and searches only the others.

The file belongs to one tree and one set of parameters: it keeps the digest of the tree it started from (the
shipped tree's compact text) and the polish's parameters.  A run with another tree or other parameters is refused
while the file is unfinished (its work would not apply), and begins a new file once it is finished.  Finished, the
file keeps how each position was settled and how long it took, without the subtrees: the shipped tree holds them.
A position a sweep left out of time keeps what the sweep proved there (``sweep``), finished or not: the same
command run again on the same tree sweeps on from it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from typing import Any

from service.campaign_files import CAMPAIGN_DIR, CampaignError
from service.filelock import exclusive, write_json
from solver.game import Game
from solver.polish import CUT, IMPROVED, OUTCOMES, Settled
from solver.sweep import progress_from_json, progress_to_json
from solver.tree import Tree, from_compact, to_compact

FORMAT = "bullscows-polish-campaign"


def default_path(spec: str) -> str:
    """The progress file of a game's polish: ``campaigns/polish-5-10-0.json``."""
    return os.path.join(CAMPAIGN_DIR, f"polish-{spec.replace(',', '-')}.json")


def digest(tree: Tree) -> str:
    """The tree a polish starts from, as its progress names it (SHA-256 of its compact text)."""
    return hashlib.sha256(to_compact(tree).encode("utf-8")).hexdigest()


def read(path: str) -> dict[str, Any] | None:
    """The progress file's document, or None when there is none.

    :raises CampaignError: the file is not a polish's progress.
    """
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("positions"), dict):
            raise ValueError("not a polish's progress file")
        return doc
    except (OSError, ValueError) as exc:
        raise CampaignError(f"{path}: {exc}") from None


def start(path: str, game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Settled]:
    """The positions an earlier run of this polish settled (none for a new one), the file begun when it is new.

    :raises CampaignError: the file is unreadable, or an unfinished polish of another game, tree or parameters.
    """
    mine = {"format": FORMAT, "game": game.spec, "tree": digest(tree), "params": params}
    with exclusive(path):
        doc = read(path)
        same = doc is not None and all(doc.get(k) == v for k, v in mine.items())
        if doc is not None and not same and not doc.get("finished"):
            raise CampaignError(
                f"{path} continues an unfinished polish of {doc.get('game')} ({doc.get('params')}) from another tree "
                "or with other parameters; give another --progress file, or remove this one to start again")
        if doc is None or not same:
            write_json(path, {**mine, "started": datetime.date.today().isoformat(), "positions": {}})
            return {}
    return {key: _settled(game, key, entry) for key, entry in doc["positions"].items()}


def _settled(game: Game, key: str, entry: dict[str, Any]) -> Settled:
    """One position of the file as the polish takes it back.

    :raises CampaignError: an entry the polish cannot have written.
    """
    outcome, text = entry.get("outcome"), entry.get("tree")
    if outcome not in OUTCOMES or not isinstance(entry.get("seconds"), int | float):
        raise CampaignError(f"position {key!r} of the polish's progress is not one it writes: {entry}")
    subtree = None
    if outcome == IMPROVED and text is not None:
        try:
            tree = from_compact(text)
        except ValueError as exc:
            raise CampaignError(f"position {key!r} of the polish's progress: {exc}") from None
        if tree.game.spec != game.spec or [game.format_turn(t) for t in tree.history] != _turns(key):
            raise CampaignError(f"position {key!r} of the polish's progress holds the subtree of another position")
        subtree = tree.root
    sweep = None
    if outcome == CUT and entry.get("sweep") is not None:
        try:
            sweep = progress_from_json(game, entry["sweep"])
        except ValueError as exc:
            raise CampaignError(f"position {key!r} of the polish's progress: {exc}") from None
    return Settled(str(outcome), float(entry["seconds"]), subtree, sweep)


def _turns(key: str) -> list[str]:
    return [t.strip() for t in key.split(",")] if key else []


def settle(path: str, game: Game, key: str, done: Settled) -> None:
    """Write one settled position to the file, at once (re-read under its lock)."""
    entry: dict[str, Any] = {"outcome": done.outcome, "seconds": done.seconds}
    if done.subtree is not None:
        history = game.parse_history(_turns(key))
        entry["tree"] = to_compact(Tree(game, done.subtree, history))
    if done.sweep is not None:
        entry["sweep"] = progress_to_json(game, done.sweep)
    with exclusive(path):
        doc = read(path)
        if doc is None:
            raise CampaignError(f"{path} disappeared while the polish ran")
        doc["positions"][key] = entry
        write_json(path, doc)


def finish(path: str, summary: dict[str, Any]) -> None:
    """Close the polish once its tree was judged (shipped or not): the subtrees are dropped, the shipped tree holding
    them, and ``summary`` is kept; the same command run again on the same tree replays it without searching, but
    for the positions a sweep left cut, which it sweeps on from their progress."""
    with exclusive(path):
        doc = read(path)
        if doc is None:
            return
        doc["finished"] = {**summary, "date": datetime.date.today().isoformat()}
        doc["positions"] = {k: {key: v for key, v in p.items() if key != "tree"} for k, p in doc["positions"].items()}
        write_json(path, doc)
