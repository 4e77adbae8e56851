"""The atlas as the lab makes it: ``bullscows atlas run`` computes each game's entry (rewritten as soon as it is
computed, atomically), and the hybrids, polishes, one-step trees and lower bounds improve it; the file is both the
product and the campaign's progress: an entry with bounds is computed again, from scratch, by the next run (with a
larger ``--budget``).  The service reads the file through :mod:`service.atlas`.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from service import bound_campaigns, rollouts
from service.atlas import ATLAS_FILE, Atlas, finished, load, shown
from service.keeping import (
    KeptRegistry,
    record_of,
    with_better_branches,
)
from service.knowledge import Knowledge
from service.provenance import machine
from service.store.files import write_json
from service.trees import TREE_DIR, TreeLibrary, campaign_games, read_manifest, ship_tree, write_manifest
from solver.atlas import (
    NAMES,
    OneStep,
    Value,
    atlas_games,
    best_one_step,
    hybrid_tree,
    one_step_trees,
    raise_lower,
    solve_game,
    tighten,
)
from solver.game import Game
from solver.rollout import RolloutPlan
from solver.search import Searcher, SolveOptions, optimal_tree
from solver.tree import Tree, TreeStats
from solver.vocabulary import Criterion


class AtlasKeeper(Atlas, KeptRegistry):
    """The atlas's file as the lab keeps it (:class:`~service.keeping.KeptRegistry`): a proven bound raises T's and
    T_W's lower bounds (:func:`apply_lower_bound`), a tree is kept when it needs fewer guesses than the entry's
    trees so far, and the open upper bounds fall to what it proves."""

    bound_command = "bounds"

    def save(self, entries: dict[str, dict[str, Any]], path: str | None = None) -> None:
        """Write every entry, smallest game first, atomically (a killed run leaves the previous file)."""
        order = {g.spec: i for i, g in enumerate(atlas_games())}
        games = sorted(entries.values(), key=lambda e: (order.get(str(e["game"]), len(order)), str(e["game"])))
        write_json(path or self.file, {"atlas": "bullscows", "names": list(NAMES), "games": games})

    def refuse_solved(self, spec: str, path: str) -> None:
        """No bound is proven of a game whose total the atlas has exactly."""
        total = self.load(path)[spec]["values"]["total"]
        if total["exact"]:
            raise ValueError(f"{spec} is solved: its total is {total['value']}")

    def raise_to_bound(self, entry: dict[str, Any], value: int) -> None:
        """T's and T_W's lower bounds rise to the bound (:func:`apply_lower_bound`)."""
        apply_lower_bound(entry, value)

    def campaign_bound(self, record: dict[str, Any]) -> dict[str, Any]:
        """A campaign's bound used no table."""
        return {**record, "table": False}

    tree_source = "hybrid"

    build_command = "atlas hybrid"

    bound_progress = True

    def bound_fields(self, known: bool) -> dict[str, Any]:
        """Whether the bound used a table's proven parts."""
        return {"table": known}

    def polish_limit(self, entry: dict[str, Any], max_guesses: int | None, as_given: bool) -> tuple[int | None, bool]:
        """By default the game's W when it is exact and the tree keeps to it; within W, the tree also bounds the
        W-movers (the fewest secrets needing W guesses): a replacement that adds movers is refused, so that the
        entry's movers' bound stays one its shipped tree witnesses."""
        before = entry.get(self.tree_key)
        w = entry["values"]["worst_case"]
        if (max_guesses is None and not as_given and before is not None and w["exact"]
                and before["worst_case"] <= w["value"]):
            max_guesses = int(w["value"])
        return max_guesses, max_guesses is not None and bool(w["exact"]) and max_guesses == int(w["value"])

    def keep_polished(self, spec: str, before: dict[str, Any], tree: Tree, field: dict[str, Any], command: str,
                      spent: float, *, path: str, folder: str | None, log: Callable[[str], None]) -> dict[str, Any]:
        """The hybrid's record carried over, its figures the polished tree's, kept when it needs fewer guesses
        (:meth:`tree_beats`)."""
        stats = tree.stats()
        log(f"{spec}: total {before['total']} -> {stats.total}")
        record = {**{k: v for k, v in before.items() if k not in ("tree", "date", "machine")},
                  "total": stats.total, "worst_case": stats.worst_case,
                  "movers": stats.histogram.get(stats.worst_case, 0), "nodes": stats.nodes,
                  "seconds": round(float(before["seconds"]) + spent, 1), "polish": field, "command": command,
                  "machine": machine(), "date": datetime.date.today().isoformat()}
        tree.strategy = f"{tree.strategy}, polished exact<={field['at_most']}"
        kept = self.keep_tree(spec, tree, stats, record, hybrid_fields(record), path=path, folder=folder, log=log)
        return {**record, "kept": kept}

    def tree_beats(self, spec: str, entry: dict[str, Any], stats: TreeStats, record: dict[str, Any],
                   log: Callable[[str], None]) -> bool:
        """A tree is kept when it needs fewer guesses than the entry's trees so far (its one-step trees and
        hybrid)."""
        one_step = {name: OneStep(**t) for name, t in entry["one_step"].items()}
        best = min(t.total for t in {**one_step, **played_hybrid(entry.get("hybrid"))}.values())
        if stats.total >= best:
            log(f"{spec}: no fewer guesses than the trees already known ({best}): not kept")
            return False
        return True

    def tree_fields(self, record: dict[str, Any]) -> dict[str, Any]:
        """A hybrid's manifest fields (:func:`hybrid_fields`)."""
        return hybrid_fields(record)

    def tree_kept(self, entry: dict[str, Any], record: dict[str, Any], folder: str) -> None:
        """The open upper bounds fall to what the tree proves (:func:`tighten_entry`)."""
        one_step = {name: OneStep(**t) for name, t in entry["one_step"].items()}
        tighten_entry(entry, {**one_step, **played_hybrid(record)})


ATLAS_KEEPER = AtlasKeeper(ATLAS_FILE)
"""The package's atlas as the lab keeps it; the module's functions below are its methods."""
save = ATLAS_KEEPER.save
keep_lower_bound = ATLAS_KEEPER.keep_lower_bound


def build_trees(specs: Iterable[str] | None = None, *, path: str = ATLAS_FILE, folder: str | None = None,
                log: Callable[[str], None] = lambda _: None) -> list[dict[str, Any]]:
    """Build and ship the optimal trees of the atlas's exact games: the total without a depth limit, and
    the fewest W-movers.  They go into the shipped trees' folder and manifest (:mod:`service.trees`),
    beside the campaign games' (Mastermind's and Bulls-and-Cows', which are left alone), and are verified
    against the atlas's numbers before they are written.  Returns the manifest entries written."""
    folder = folder or TREE_DIR
    manifest = read_manifest(folder)
    presets = campaign_games()
    written = []
    for spec, entry in load(path).items():
        if (specs is not None and spec not in set(specs)) or spec in presets or not finished(entry):
            continue
        game = Game.from_spec(spec)
        values = entry["values"]
        searcher = Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=1 << 22)
        worst = int(values["worst_case"]["value"])
        for strategy, options, expect in (
                ("optimal-total", SolveOptions(Criterion.TOTAL), ("total", values["total"]["value"])),
                ("optimal-kmovers", SolveOptions(Criterion.KMOVERS, worst),
                 ("movers", values["worst_case_movers"]["value"]))):
            started = time.perf_counter()
            tree = optimal_tree(game, options, searcher=searcher)
            stats = tree.stats()
            got = stats.total if expect[0] == "total" else stats.histogram.get(worst, 0)
            if got != expect[1] or (strategy == "optimal-kmovers" and stats.worst_case > worst):
                raise RuntimeError(f"{spec} {strategy}: the tree gives {got}, the atlas {expect[1]}")
            name = f"{spec.replace(',', '-')}-{strategy}.tree"
            meta = ship_tree(tree, stats, name, folder, {
                "game": spec, "strategy": strategy, "criterion": options.criterion,
                "max_guesses": options.max_guesses, "mde": None, "from_set_only": False, "exact": True,
                "source": "atlas"})
            manifest[(spec, strategy)] = meta
            written.append(meta)
            log(f"{name}: total {stats.total}, worst case {stats.worst_case}, {stats.nodes} nodes, "
                f"{time.perf_counter() - started:.1f} s")
        write_manifest(manifest, folder)
    return written


def compute(spec: str, budget_s: float, known: dict[str, Any] | None) -> dict[str, Any]:
    """One game's entry, computed in this process with one searcher for every question of the game
    (its tables are kept per question).  Runs in a worker process, an atlas job's unit
    (:func:`service.jobs.campaign_units.run_atlas_unit`, ``atlas run``)."""
    game = Game.from_spec(spec)
    searcher = Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=1 << 22)
    sources = _warm_from_campaigns(game, searcher)
    witness = _witness(game)
    if witness is not None:
        sources.append(f"tree optimal-total (total {witness[0]}, worst case {witness[1]})")
    started = time.perf_counter()
    one_step = one_step_trees(game)
    hybrid = (known or {}).get("hybrid")  # a shipped tree: still a strategy, whatever this run finds
    values = solve_game(
        game, lambda options, seconds: searcher.solve_within((), seconds, options=options), budget_s,
        {k: Value.from_dict(v) for k, v in (known or {}).get("values", {}).items()},
        log=lambda line: print(f"# {line}", file=sys.stderr, flush=True),  # each search, as it ends
        bound=lambda k: searcher.lower_bound(game.size, 1, k), witness=witness,
        one_step={**one_step, **played_hybrid(hybrid)})
    out = {
        "game": game.spec, "positions": game.positions, "symbols": game.symbols, "repetition": game.repetition,
        "codes": game.size,
        "values": {name: v.as_dict() for name, v in values.items()},
        "seconds": round(time.perf_counter() - started, 3),
        "budget_s": budget_s,
        "command": f"bullscows atlas run --game {game.spec} --budget {budget_s:g}",
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
        "sources": sources,
        "one_step": {name: t.as_dict() for name, t in one_step.items()},
    }
    if hybrid is not None:
        out["hybrid"] = hybrid
    proven = (known or {}).get("lower_bound")  # a refined bound (atlas bounds): still proven
    if proven is not None and not values["total"].exact:
        apply_lower_bound(out, int(proven["value"]))
        out["lower_bound"] = proven
    return out


def played_hybrid(hybrid: dict[str, Any] | None) -> dict[str, OneStep]:
    """An entry's hybrid tree as one more played-out strategy (:func:`solver.atlas.tighten`'s input)."""
    if hybrid is None:
        return {}
    return {"hybrid": OneStep(int(hybrid["total"]), int(hybrid["worst_case"]), int(hybrid["movers"]))}


def tighten_entry(entry: dict[str, Any], trees: dict[str, OneStep]) -> tuple[dict[str, Value], dict[str, Value]]:
    """Lower an entry's open upper bounds to what the played-out ``trees`` prove
    (:func:`solver.atlas.tighten`), in place; (the numbers before, after)."""
    return _rewrite_values(entry, lambda before: tighten(before, trees))


def _rewrite_values(entry: dict[str, Any], change: Callable[[dict[str, Value]], dict[str, Value]]
                    ) -> tuple[dict[str, Value], dict[str, Value]]:
    """Replace an entry's numbers by ``change`` of them, in place, keeping each number's other keys;
    (the numbers before, after)."""
    before = {k: Value.from_dict(v) for k, v in entry["values"].items()}
    after = change(before)
    entry["values"] = {name: {**entry["values"][name], **after[name].as_dict()} for name in NAMES}
    return before, after


def hybrid_strategy(spec: str, strategy: str | None = None, path: str = ATLAS_FILE) -> str:
    """The one-step strategy of an unsolved entry's hybrid: ``strategy``, by default the entry's best one."""
    entry = load(path)[spec]
    return strategy or best_one_step({name: OneStep(**t) for name, t in entry["one_step"].items()})


def rollout_plan(spec: str, exact_at_most: int, strategy: str | None, rollout: dict[str, int],
                 max_guesses: int | None = None, path: str = ATLAS_FILE) -> RolloutPlan:
    """The plan of ``atlas hybrid --rollout-width``: the hybrid (:func:`hybrid_strategy` above ``exact_at_most``)
    rolled out as ``rollout`` says (``width``, ``levels``, ``min_size``, ``from_turn``), within ``max_guesses``."""
    return RolloutPlan(hybrid_strategy(spec, strategy, path), exact_at_most, rollout["width"], rollout["levels"],
                       rollout["min_size"], rollout["from_turn"], max_guesses)


def add_hybrid(spec: str, exact_at_most: int, strategy: str | None = None, *, path: str = ATLAS_FILE,
               folder: str | None = None, rollout: dict[str, int] | None = None, max_guesses: int | None = None,
               progress: str | None = None, log: Callable[[str], None] = lambda _: None) -> dict[str, Any] | None:
    """Build the hybrid tree of an unsolved entry (:func:`solver.atlas.hybrid_tree`: ``strategy``, by
    default the entry's best one-step strategy, above ``exact_at_most`` candidates, optimal below), and
    keep it when it has fewer guesses than the entry's trees so far: shipped as the game's ``best-known``
    tree, recorded under ``hybrid``, and its bounds applied.  Returns the record kept, or None.

    ``max_guesses``: the tree keeps to that many guesses first (so that, W known, it bounds T_W too).
    ``rollout``: the hybrid rolled out (:mod:`solver.rollout`, :func:`rollout_plan`), its tree assembled from
    the subtrees its campaign of units built into ``progress`` (:mod:`service.rollouts`, run by
    :func:`service.campaign_specs.run`); None is returned, with nothing changed, while units are left."""
    entry = load(path)[spec]
    if finished(entry):
        raise ValueError(f"{spec} is solved: its optimal trees are shipped")
    game = Game.from_spec(spec)
    above = hybrid_strategy(spec, strategy, path)
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    if rollout is None:
        tree = hybrid_tree(game, above, exact_at_most, max_guesses=max_guesses)
        seconds = time.perf_counter() - started
    else:
        plan = rollout_plan(spec, exact_at_most, strategy, rollout, max_guesses, path)
        progress = progress or rollouts.FILE.default_path(spec)
        done = rollouts.finished(progress, spec, plan)
        if done is not None:
            raise rollouts.CampaignError(f"{progress} is a finished campaign (total {done.get('total')}); remove it "
                                         "to build its tree again")
        doc = rollouts.read_of(game, plan, progress) or {"units": {}}
        built = rollouts.tree_of(game, plan, doc)
        if built is None:
            left = rollouts.units_left(game, doc)
            log(f"{spec}: {len(doc['units'])} units done, {'all' if left is None else left} left in {progress}: "
                "run the same command again to continue")
            return None
        tree, seconds = built, rollouts.seconds(doc)
        extra = {"rollout": {**rollout, "max_guesses": max_guesses},  # as the records' rollouts say it
                 "campaign": {"units": len(doc["units"]), "progress": progress}}
    command = ATLAS_KEEPER.hybrid_command(spec, above, exact_at_most, max_guesses, rollout)
    if rollout is not None:
        tree, merged = with_better_branches(spec, tree, load(path)[spec].get("hybrid"), max_guesses, folder, log)
        if merged is not None:  # some branches of the shipped tree were better: its command comes first
            extra["branches_kept"] = merged["responses"]
            command = f"{merged['command']} && {command}"
            seconds += merged["seconds"]
    stats = tree.stats()
    record = {"above": above, "exact_at_most": exact_at_most,
              **({} if max_guesses is None else {"max_guesses": max_guesses}), "total": stats.total,
              "worst_case": stats.worst_case, "movers": stats.histogram.get(stats.worst_case, 0),
              "nodes": stats.nodes, "seconds": round(seconds, 1), **extra,
              "command": command,
              "machine": machine(),
              "date": datetime.date.today().isoformat()}
    log(f"{spec}: {above} above {exact_at_most} candidates, optimal below: total {stats.total}, worst case "
        f"{stats.worst_case} ({record['movers']} at it), {seconds:.1f} s")
    kept = ATLAS_KEEPER.keep_tree(spec, tree, stats, record, hybrid_fields(record), path=path, folder=folder, log=log)
    if rollout is not None and progress is not None:
        rollouts.FILE.finish(progress, {"total": stats.total, "worst_case": stats.worst_case, "kept": kept})
    return record if kept else None


def hybrid_fields(record: dict[str, Any]) -> dict[str, Any]:
    """How a hybrid tree plays, from its record, as its manifest entry says it (:func:`ship_best_known`)."""
    return {"above": record["above"], "exact_at_most": record["exact_at_most"],
            **({"rollout": record["rollout"]} if "rollout" in record else {})}


def settle_parts(spec: str, responses: list[str], *, progress: str | None = None, seconds: float | None = None,
                 kernel_at_most: int = 60, path: str = ATLAS_FILE,
                 log: Callable[[str], None] = lambda _: None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Settle root parts of an unsolved game exactly by sweeps, kept in its lower-bound campaign's progress file
    (:func:`service.bound_campaigns.settle`), then record the bound the file proves as it stands when it beats
    the entry's (marked ``"finished": false``, as an unfinished campaign's).  Returns (the parts' rows, the
    record or None when the file proves nothing yet)."""
    ATLAS_KEEPER.refuse_solved(spec, path)
    file = progress or bound_campaigns.default_path(spec)
    rows = bound_campaigns.settle(spec, file, responses, seconds=seconds, kernel_at_most=kernel_at_most, log=log)
    game = Game.from_spec(spec)
    summary = bound_campaigns.so_far(game, file)
    if summary is None:
        return rows, None
    plan = (bound_campaigns.read(file) or {}).get("plan") or {}
    depth, target = int(plan.get("depth") or 1), plan.get("target")
    command = f"bullscows atlas settle -g {spec} --parts {','.join(responses)} --progress {file}"
    record = {**record_of(game, depth, target, file, command, summary, False), "table": False}
    keep_lower_bound(spec, record, path=path, log=log)
    return rows, record


def apply_lower_bound(entry: dict[str, Any], total_lower: int) -> None:
    """Raise an entry's T and T_W lower bounds to a proven lower bound of T (:func:`solver.atlas.raise_lower`),
    in place."""
    _rewrite_values(entry, lambda before: raise_lower(before, total_lower))


def add_one_step(specs: Iterable[str] | None = None, *, path: str = ATLAS_FILE,
                 log: Callable[[str], None] = lambda _: None) -> list[str]:
    """Give the entries of ``specs`` (default: every entry) without them their one-step trees' numbers,
    and lower their open upper bounds to what those trees prove (:func:`solver.atlas.tighten`), without
    searching again.  Saves the file after each game; returns the games changed."""
    entries = load(path)
    changed = []
    for spec in list(entries) if specs is None else list(specs):
        entry = entries[spec]
        if "one_step" in entry:
            continue
        game = Game.from_spec(spec)
        started = time.perf_counter()
        one_step = one_step_trees(game)
        before, after = tighten_entry(entry, {**one_step, **played_hybrid(entry.get("hybrid"))})
        entry["one_step"] = {name: t.as_dict() for name, t in one_step.items()}
        save(entries, path)
        changed.append(spec)
        moved = [f"{name} {shown(before[name].as_dict())} -> {shown(after[name].as_dict())}" for name in NAMES
                 if before[name] != after[name]]
        log(f"{spec}: one-step trees in {time.perf_counter() - started:.1f} s"
            + (f"; {', '.join(moved)}" if moved else ""))
    return changed


def _warm_from_campaigns(game: Game, searcher: Any) -> list[str]:
    """Start the searches of ``game`` from what its campaigns proved (the shipped knowledge, one table
    per question), so a game the project has solved by campaign (Bulls-and-Cows, Mastermind) is
    answered from those proofs instead of being searched again from nothing.  Returns what was used."""
    used = []
    for index in Knowledge().all():
        key = index.key
        if key.game != game.spec:
            continue
        index.warm(searcher.table_for(SolveOptions(key.criterion, key.max_guesses)))
        limit = "no limit" if key.max_guesses is None else f"k={key.max_guesses}"
        used.append(f"knowledge {key.criterion} {limit} ({len(index)} positions)")
    return used


def _witness(game: Game) -> tuple[int, int] | None:
    """(total, worst case) of the campaigns' shipped optimal-total tree of ``game``, if there is one:
    a strategy that exists, so T_k = T from its worst case on (:func:`solver.atlas.solve_game`)."""
    stored = TreeLibrary().get(game, "optimal-total", None)  # loaded and verified: a real strategy
    if stored is None or stored.meta.get("source") == "atlas" or stored.meta["max_guesses"] is not None:
        return None
    stats = stored.tree.stats()
    return stats.total, stats.worst_case
