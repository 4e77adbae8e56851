"""The records as the lab makes them: ``bullscows records bound``, ``hybrid``, ``rollout`` and ``polish`` keep a
bound or a tree only when it improves on the one recorded, so the file is the campaign's progress too.  The
service reads the file through :mod:`service.records`.
"""

from __future__ import annotations

import datetime
import os
import shlex
import time
from collections.abc import Callable
from typing import Any

from service import rollouts
from service.keeping import (
    KeptRegistry,
    with_better_branches,
)
from service.provenance import machine
from service.records import PUBLISHED, RECORDS_FILE, Records, load
from service.store.files import write_json
from service.trees import TREE_DIR, TreeLibrary
from solver.atlas import hybrid_tree
from solver.game import Game, Turn
from solver.rollout import RolloutPlan, assemble, branch_responses, given_guesses
from solver.tree import Tree, TreeStats, from_compact
from solver.vocabulary import BEST_KNOWN, Criterion


class RecordsKeeper(Records, KeptRegistry):
    """The records' file as the lab keeps it (:class:`~service.keeping.KeptRegistry`): a bound is kept as it is (the
    file holds no bracket to raise), and a tree when it ranks before the one recorded."""

    bound_command = "bound"

    def save(self, entries: dict[str, dict[str, Any]], path: str | None = None) -> None:
        """Write every entry atomically (a killed run leaves the previous file)."""
        write_json(path or self.file,
                   {"records": "bullscows", "games": [entries[s] for s in PUBLISHED if s in entries]})

    def campaign_bound(self, record: dict[str, Any]) -> dict[str, Any]:
        """A campaign's bound states its question, as every records bound does."""
        return {"criterion": Criterion.TOTAL, "max_guesses": None, **record}

    tree_source = "records"

    build_command = "records rollout"

    def bound_fields(self, known: bool) -> dict[str, Any]:
        """The question the bound holds for, as every records bound states it."""
        return {"criterion": Criterion.TOTAL, "max_guesses": None}

    def polish_limit(self, entry: dict[str, Any], max_guesses: int | None, as_given: bool) -> tuple[int | None, bool]:
        """By default the limit the tree was built within."""
        before = entry.get(self.tree_key)
        if max_guesses is None and not as_given and before is not None:
            max_guesses = (before.get("rollout") or {}).get("max_guesses")
        return max_guesses, False

    def keep_polished(self, spec: str, before: dict[str, Any], tree: Tree, field: dict[str, Any], command: str,
                      spent: float, *, path: str, folder: str | None, log: Callable[[str], None]) -> dict[str, Any]:
        """The record keeps how the tree was built before (its fields and time) and what the polish did; the tree is
        judged as every records tree is (:func:`add_tree`)."""
        tree.strategy = f"{before['strategy']}, polished exact<={field['at_most']}"
        kept_keys = ("above", "exact_at_most", "rollout", "campaign")
        fields: dict[str, Any] = {**{k: before[k] for k in kept_keys if k in before}, "polish": field}
        return add_tree(spec, lambda _game: tree, fields, command, path=path, folder=folder,
                        seconds=float(before["seconds"]) + spent, log=log)

    def tree_beats(self, spec: str, entry: dict[str, Any], stats: TreeStats, record: dict[str, Any],
                   log: Callable[[str], None]) -> bool:
        """A tree is kept when it ranks before the one recorded (:func:`tree_rank`: fewer secrets beyond the
        published worst case, then fewer guesses)."""
        old = entry.get("best_known")
        limit = worst_case_target(spec)
        rank = tree_rank(spec, stats.total, stats.histogram)
        log(f"{spec}: {record['strategy']}: total {stats.total} ({record['average']}), worst case "
            f"{stats.worst_case}" + ("" if limit is None else f" ({rank[0]} secrets beyond {limit})")
            + f", {record['seconds']:.1f} s"
            + (f"; recorded {old['total']}, worst case {old['worst_case']}" if old else ""))
        return old is None or rank < tree_rank(spec, int(old["total"]), old["histogram"])

    def tree_kept(self, entry: dict[str, Any], record: dict[str, Any], folder: str) -> None:
        """The record says how big the shipped file is."""
        record["bytes"] = os.path.getsize(os.path.join(folder, record["tree"]))


RECORDS_KEEPER = RecordsKeeper(RECORDS_FILE)
"""The package's records as the lab keeps it; the module's functions below are its methods."""
save = RECORDS_KEEPER.save
keep_lower_bound = RECORDS_KEEPER.keep_lower_bound


def add_hybrid(spec: str, strategy: str, exact_at_most: int, *, path: str = RECORDS_FILE,
               folder: str | None = None, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Build the game's hybrid tree (:func:`solver.atlas.hybrid_tree`: ``strategy`` above ``exact_at_most``
    candidates, the optimal total's guess below) and keep it when it beats the recorded one (:func:`add_tree`)."""
    return add_tree(spec, lambda game: hybrid_tree(game, strategy, exact_at_most),
                    {"above": strategy, "exact_at_most": exact_at_most},
                    RECORDS_KEEPER.hybrid_command(spec, strategy, exact_at_most),
                    path=path, folder=folder, log=log)


def rollout_command(spec: str, plan: RolloutPlan, units: list[str] | None = None, graft: bool = False) -> str:
    """The ``records rollout`` command of ``plan`` (with ``--units ... --graft`` when grafted): pasted, it runs
    the same campaign."""
    judged = "" if plan.judge_turns is None else (
        f" --judge-width {plan.judge_width} --judge-turns "
        + (f"{plan.judge_turns[0]}" if plan.judge_turns[0] == plan.judge_turns[1]
           else f"{plan.judge_turns[0]}-{plan.judge_turns[1]}")
        + ("" if plan.judge_pool is None else f" --judge-pool {plan.judge_pool}"))
    return (f"bullscows records rollout -g {spec} --strategy {plan.strategy} --exact-at-most {plan.exact_at_most} "
            f"--width {plan.width} --from-turn {plan.from_turn} --levels {plan.levels} --min-size {plan.min_size}"
            + ("" if plan.max_guesses is None else f" --max-guesses {plan.max_guesses}")
            + ("" if plan.over_width is None else f" --over-width {plan.over_width}")
            + ("" if plan.keep_width is None else f" --keep-width {plan.keep_width}")
            + judged
            + ("" if plan.polish is None else
               f" --polish-units {plan.polish[0]},{plan.polish[1]},{plan.polish[2]:g}")
            + "".join(f" --play {shlex.quote(text)}" for text in plan.play)
            + ("" if not graft or units is None else f" --units {','.join(u.strip() for u in units)} --graft"))


def refuse_graft(spec: str, units: list[str] | None, graft: bool, path: str = RECORDS_FILE) -> None:
    """What ``--graft`` needs before any unit is built: the units to put in, and a shipped tree to put them in.

    :raises CampaignError: either is missing."""
    if graft and units is None:
        raise rollouts.CampaignError("--graft puts the units of --units into the shipped tree: give --units")
    if graft and load(path)[spec].get("best_known") is None:
        raise rollouts.CampaignError(f"--graft puts units into the shipped best-known tree, and {spec} has none yet")


def add_rollout(spec: str, plan: RolloutPlan, progress: str, *, path: str = RECORDS_FILE, folder: str | None = None,
                units: list[str] | None = None, graft: bool = False,
                log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Judge the game's rollout tree over the hybrid (:mod:`solver.rollout`), whose campaign of units, one per
    response to the first guess, has built its subtrees into ``progress`` (:mod:`service.rollouts`, run by
    :func:`service.campaign_specs.run`): once every unit is there, the tree is assembled and kept when it beats the
    recorded one (:func:`add_tree`).  ``graft``: once the ``units`` asked for are done, the other responses take
    the shipped best-known tree's subtrees (same first guess), and that tree is judged like a whole campaign's: a
    change to a few parts costs only their units.  Returns the tree's record with ``kept``, or the campaign's
    progress (``finished: false``) when units are left; a campaign judged before is not judged again.

    :raises CampaignError: ``graft`` without ``units``, or without a shipped tree of the same first guess; a
        progress file of another campaign.
    """
    refuse_graft(spec, units, graft, path)
    command = rollout_command(spec, plan, units, graft)
    done = rollouts.finished(progress, spec, plan)
    if done is not None:
        log(f"{spec}: {progress} is a finished campaign of this plan (total {done['total']}): nothing to do")
        return {**done, "finished": True, "kept": False, "progress": progress}
    game = Game.from_spec(spec)
    doc = rollouts.read_of(game, plan, progress) or {"units": {}}
    tree = rollouts.tree_of(game, plan, doc)
    before = load(path)[spec].get("best_known")  # as it is now: another command may have shipped a tree meanwhile
    grafted: list[str] = []
    if tree is None and graft and before is not None and units is not None and "first_guess" in doc:
        tree, grafted = graft_units(spec, plan, doc, units, folder, log)
    if tree is None:
        return {"finished": False, "progress": progress, "units_done": len(doc["units"]),
                "units_left": rollouts.units_left(game, doc), "seconds": round(rollouts.seconds(doc), 1)}
    strategy, exact_at_most, max_guesses = plan.strategy, plan.exact_at_most, plan.max_guesses
    judge_turns = plan.judge_turns
    fields: dict[str, Any] = {"above": strategy, "exact_at_most": exact_at_most, "rollout": {
        "width": plan.width, "from_turn": plan.from_turn, "levels": plan.levels, "min_size": plan.min_size,
        "max_guesses": max_guesses,
        **({} if plan.over_width is None else {"over_width": plan.over_width}),
        **({} if plan.keep_width is None else {"keep_width": plan.keep_width}),
        **({} if judge_turns is None else {"judge_width": plan.judge_width, "judge_turns": list(judge_turns)}),
        **({} if plan.judge_pool is None else {"judge_pool": plan.judge_pool}),
        **({} if plan.polish is None else {"polish_units": list(plan.polish)}),
        **({} if not plan.play else {"play": list(plan.play)})}}
    for turns, guess in given_guesses(game, plan.play).items():
        node = tree.node_at(list(turns))
        if node is None or node.guess != guess:
            log(f"{spec}: the tree never reaches the position of --play "
                f"{', '.join(game.format_turn(t) for t in turns) or '(the start)'}: {game.format_code(guess)}")
    seconds = rollouts.seconds(doc)
    tree, merged = with_better_branches(spec, tree, before, max_guesses, folder, log)
    if grafted and before is not None:  # the shipped tree's subtrees were taken as they were
        merged = {"responses": sorted({*grafted, *(merged or {}).get("responses", [])},
                                      key=lambda r: game.parse_response(r)),
                  "command": before["command"], "seconds": float(before["seconds"])}
    if merged is not None:  # some branches of the shipped tree were better: its command comes first
        fields["branches_kept"] = merged["responses"]
        command = f"{merged['command']} && {command}"
        seconds += merged["seconds"]
    record = add_tree(spec, lambda _game: tree, fields, command, path=path, folder=folder, seconds=seconds,
                      campaign={"units": len(doc["units"]), "progress": progress}, log=log)
    rollouts.FILE.finish(progress, {k: record[k] for k in ("total", "average", "worst_case", "kept")})
    return {**record, "finished": True, "progress": progress}


def graft_units(spec: str, plan: RolloutPlan, doc: dict[str, Any], units: list[str], folder: str | None,
                log: Callable[[str], None]) -> tuple[Tree | None, list[str]]:
    """The tree of the campaign ``doc`` once its ``units`` are done: every unit the file has built (those of
    earlier trials too, so that none is lost when the file is closed), the shipped best-known tree's subtrees under
    every other response (:func:`solver.rollout.assemble`, so each is checked move by move), with those
    responses; (None, []) while a unit asked for is missing.  A built subtree worse than the shipped one is put
    back by :func:`with_better_branches` when the tree is judged.

    :raises CampaignError: the shipped tree opens with another guess than the campaign.
    """
    game = Game.from_spec(spec)
    first = game.parse_code(doc["first_guess"])
    asked = rollouts.named_responses(game, first, units, "--units", "unit")
    built = {game.parse_response(k): from_compact(u["tree"]) for k, u in doc["units"].items() if "tree" in u}
    if not asked <= set(built):
        return None, []
    stored = TreeLibrary(folder or TREE_DIR).get(game, BEST_KNOWN, None)
    if stored is None or stored.tree.root.guess != first:
        raise rollouts.CampaignError(f"--graft: the shipped tree of {spec} does not open with the campaign's first "
                                     f"guess {doc['first_guess']}")
    branches = dict(built)
    for r in branch_responses(game, first):
        if r not in branches:
            branches[r] = Tree(game=game, root=stored.tree.root.children[r], history=[Turn(first, r)])
    taken = [game.format_response(r) for r in sorted(set(branches) - set(built))]
    log(f"{spec}: units {', '.join(game.format_response(r) for r in sorted(built))} built, grafted into the shipped "
        f"tree (its subtrees after {', '.join(taken)})")
    tree = assemble(game, plan, first, branches)
    tree.strategy = f"{plan.name()} (units {', '.join(game.format_response(r) for r in sorted(built))} grafted)"
    return tree, taken


def worst_case_target(spec: str) -> int | None:
    """The worst case a tree of ``spec`` is held to: the one stated by the published strategy of fewest
    guesses (None when it states none).

    Why: a record is two numbers when its holder states both (five-digit Bulls-and-Cows: 171689 guesses *and*
    never more than 7), and a cheaper tree that breaks the worst case beats neither; so a tree is ranked by
    its secrets beyond this target first and its total second (:func:`tree_rank`)."""
    rows = [p for p in PUBLISHED[spec]["published"] if p["total"] is not None]
    if not rows:
        return None
    worst = min(rows, key=lambda p: int(p["total"]))["worst_case"]
    return None if worst is None else int(worst)


def tree_rank(spec: str, total: int, histogram: dict[Any, int]) -> tuple[int, int]:
    """(secrets beyond :func:`worst_case_target`, total): the lower, the better a tree of ``spec``."""
    limit = worst_case_target(spec)
    beyond = 0 if limit is None else sum(int(v) for d, v in histogram.items() if int(d) > limit)
    return beyond, int(total)


def add_tree(spec: str, build: Callable[[Game], Tree], fields: dict[str, Any], command: str, *,
             path: str = RECORDS_FILE, folder: str | None = None, seconds: float | None = None,
             campaign: dict[str, Any] | None = None, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Build a strategy tree of a records game, play it through every secret (its statistics), and ship it as
    the game's ``best-known`` tree when it is better than the one recorded (:func:`tree_rank`: fewer secrets
    beyond the published worst case, then fewer guesses).  Returns its record, with ``kept``.  ``seconds``: the
    time to record when the tree was built elsewhere (a campaign's units, summed); ``campaign``: how it was
    split, recorded as it is."""
    game = Game.from_spec(spec)
    started = time.perf_counter()
    tree = build(game)
    stats = tree.stats()
    if seconds is None:
        seconds = time.perf_counter() - started
    record = {"strategy": tree.strategy, **fields,
              "total": stats.total, "average": round(stats.total / game.size, 5), "worst_case": stats.worst_case,
              "histogram": {str(k): v for k, v in stats.histogram.items()}, "nodes": stats.nodes,
              "first_guess": game.format_code(tree.root.guess), "seconds": round(seconds, 1),
              **({} if campaign is None else {"campaign": campaign}), "command": command, "machine": machine(),
              "date": datetime.date.today().isoformat()}
    kept = RECORDS_KEEPER.keep_tree(spec, tree, stats, record, fields, path=path, folder=folder, log=log)
    return {**record, "kept": kept}
