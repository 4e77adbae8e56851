"""One registry of games, as the lab keeps it: what improving the atlas (:mod:`service.atlas_keeping`) and the
records (:mod:`service.records_keeping`) shares.

Why: both files are rewritten as campaigns improve them, and both keep a proven lower bound of a game's optimal
total and a best-known strategy tree shipped beside the optimal ones.  What they share is said once here: the
file's saving (:class:`KeptRegistry`, of which the atlas and the records are the two kinds), the one rule by which a
proven lower bound is kept (:meth:`KeptRegistry.keep_lower_bound`), the lower-bound campaigns that prove them, and
the steps of building, polishing and shipping a best-known tree.  What differs (the atlas's exact numbers and
brackets, the records' published rivals and checks) stays in each kind's module.  The service reads the files
through :class:`service.registry.GameRegistry` and imports none of this.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from typing import Any

from service import polishes
from service.campaign_files import CampaignError
from service.provenance import machine
from service.registry import Entries, GameRegistry, Log
from service.rollouts import named_responses
from service.store.files import update_json
from service.trees import TREE_DIR, TreeLibrary, read_manifest, ship_tree, write_manifest
from solver.bounds import lower_bound_tables
from solver.game import Game
from solver.lowerbound import RootBound, root_lower_bound
from solver.polish import PolishParams
from solver.rollout import best_branches
from solver.search import Searcher, SolveOptions
from solver.table import MMAX
from solver.tree import Tree, TreeStats
from solver.vocabulary import BEST_KNOWN, Criterion

Manifest = dict[tuple[str, str], dict[str, Any]]
"""A trees folder's manifest: each tree's record, by (game, strategy)."""


RECORD_KEYS = {"strategy", "total", "average", "worst_case", "movers", "histogram", "nodes", "first_guess", "seconds",
               "campaign", "command", "machine", "date", "tree", "bytes"}
"""A tree record's keys that say what the tree is and where it came from; the others say how it plays."""


def with_better_branches(spec: str, tree: Tree, before: dict[str, Any] | None, max_guesses: int | None,
                         folder: str | None, log: Callable[[str], None]) -> tuple[Tree, dict[str, Any] | None]:
    """``tree`` with, below each response to its first guess, the shipped best-known tree's subtree where that
    one costs less (:func:`solver.rollout.best_branches`), when both open with the same guess.  ``before`` is
    the shipped tree's record (its ``command`` and ``seconds``).  Returns the tree and, when branches were kept
    from the shipped one, which (``responses``) and the command and time behind them."""
    game = Game.from_spec(spec)
    stored = None if before is None else TreeLibrary(folder or TREE_DIR).get(game, BEST_KNOWN, None)
    if before is None or stored is None or stored.tree.root.guess != tree.root.guess:
        return tree, None
    combined, taken = best_branches(tree, stored.tree, max_guesses)
    if not taken:
        return tree, None
    responses = [game.format_response(r) for r in sorted(taken)]
    log(f"{spec}: the shipped tree's subtrees are better after {', '.join(responses)}: kept")
    combined.strategy = f"{tree.strategy} (best per response with the tree before)"
    return combined, {"responses": responses, "command": before["command"], "seconds": float(before["seconds"])}


def best_known_to_polish(game: Game, registry: KeptRegistry, before: dict[str, Any] | None, *, above: int,
                         at_most: int, budget_s: float, max_guesses: int | None, folder: str | None,
                         keep_movers: bool = False, sweep: int | None = None,
                         parts: list[str] | None = None) -> tuple[Tree, dict[str, Any]]:
    """The tree a polish of the game's shipped best-known tree starts from, and the polish's parameters as its
    job and progress file keep them (:mod:`service.polishes`), before the polish runs
    (:meth:`GameRegistry.polish_target`).  ``before``: the registry's record of that tree (None: there is none).
    ``keep_movers``: no replacement may add secrets needing
    ``max_guesses`` guesses (:func:`solver.polish.polish`).  ``sweep``: positions of more candidates than that are
    searched by a sweep of their guesses by refined bounds (:class:`solver.sweep.Sweeper`) instead of the exact
    search alone.  ``parts``: responses to the tree's first guess (texts); only their subtrees are polished.

    :raises ValueError: there is no best-known tree to polish, or a part is no response to the first guess with
        candidates left.
    """
    stored = None if before is None else TreeLibrary(folder or TREE_DIR).get(game, BEST_KNOWN, None)
    if before is None or stored is None:
        raise ValueError(f"{game.spec} has no best-known tree to polish: build one first ({registry.build_command})")
    tree = stored.tree
    chosen = None if parts is None else named_responses(game, tree.root.guess, parts, "--parts", "part of the tree")
    named = None if chosen is None else sorted(game.format_response(r) for r in chosen)
    params = PolishParams(above, at_most, budget_s, max_guesses, keep_movers, sweep,
                          None if named is None else tuple(named))
    return tree, params.as_dict()


def polish_best_known(game: Game, group: str, before: dict[str, Any], tree: Tree, params: dict[str, Any],
                      progress: str, log: Callable[[str], None]) -> tuple[Tree, dict[str, Any], float, str]:
    """The polish of ``tree`` (:func:`best_known_to_polish`'s) put into it, from its progress file, where its job left
    every position it settled (:mod:`service.polishes`): the steps the atlas's and the records' ``polish`` commands
    share once the job is done.  Nothing is searched: each position is taken as the file has it.  Returns (the tree
    polished in place, the record's ``polish`` field, the seconds the polish took, the command to chain after the
    tree's own); ``before`` is the file's record of the tree before, ``group`` the command group.

    :raises CampaignError: the file is another polish's, or lacks positions (the job has not finished).
    """
    spec = game.spec
    started = time.perf_counter()
    known = polishes.known(progress, game, tree, params)
    asked = PolishParams.from_dict(params)
    # the searcher only splits the candidates: every position is known, and one missing is not searched (no budget)
    report = asked.run(tree, Searcher(game, SolveOptions(Criterion.TOTAL)), budget_s=0.0, known=known, log=log)
    if report.tried > report.resumed:
        raise CampaignError(f"{progress} lacks {report.tried - report.resumed} of the polish's positions: run the "
                            "same command again to finish it")
    spent = time.perf_counter() - started + report.resumed_s
    log(f"{spec}: the polish of {report.tried} position{'' if report.tried == 1 else 's'} put into the tree: "
        f"{report.improved} improved, {report.optimal} proven optimal, {report.cut} out of time, "
        f"{report.gained} guess{'' if report.gained == 1 else 'es'} saved, {spent:.1f} s of search in all")
    counts = {k: v for k, v in report.counts().items() if k != "resumed"}  # every one is, from the job's file
    field = {k: v for k, v in asked.as_dict().items() if k != "keep_movers" and (v is not None or k == "max_guesses")}
    field.update(**counts, seconds=round(spent, 1), before=before["total"])
    return tree, field, spent, polish_command(group, spec, asked)


def polish_command(group: str, spec: str, params: PolishParams) -> str:
    """The ``polish`` command of ``group`` (``atlas``, ``records``) that asks this polish of ``spec``'s tree."""
    return f"bullscows {group} polish -g {spec} {params.options()}"


def best_known_file(spec: str) -> str:
    """The file name of the game's shipped best-known tree, in whatever trees folder holds it."""
    return f"{spec.replace(',', '-')}-{BEST_KNOWN}.tree"


def ship_best_known(spec: str, tree: Tree, stats: TreeStats, folder: str, source: str, fields: dict[str, Any]) -> str:
    """Write ``tree`` as the game's ``best-known`` tree in ``folder`` and its manifest (never claimed exact;
    ``source`` says which command made it, ``fields`` how it plays); returns the file's name.  Shared by the
    atlas's unsolved games and the records games."""
    name = best_known_file(spec)

    def shipped(manifest: Manifest | None) -> Manifest:
        manifest = manifest if manifest is not None else {}
        manifest[(spec, BEST_KNOWN)] = ship_tree(tree, stats, name, folder, {
            "game": spec, "strategy": BEST_KNOWN, "criterion": Criterion.TOTAL, "max_guesses": None, "mde": None,
            "from_set_only": False, "exact": False, "source": source, **fields, "built_by": tree.strategy})
        return manifest

    update_json(os.path.join(folder, "manifest.json"), shipped, load=lambda _path: read_manifest(folder),
                save=lambda _path, manifest: write_manifest(manifest, folder))
    return name


def unfinished(record: dict[str, Any]) -> bool:
    """Whether a lower bound's record is an unfinished campaign's (the bound its parts proved so far)."""
    return record.get("campaign", {}).get("finished") is False


class KeptRegistry(GameRegistry):
    """A registry of games as the lab writes and improves it: how its file is written (:meth:`save`), which games a
    bound may no longer be proven for (:meth:`refuse_solved`) and what a proven bound changes besides its record
    (:meth:`raise_to_bound`); the rule by which a bound or a tree is kept, and the campaigns that prove and build
    them, are the same for every kind, each kind's hooks saying what differs."""

    bound_command = ""
    """Its command that proves a lower bound (``atlas bounds``, ``records bound``)."""

    def save(self, entries: dict[str, dict[str, Any]], path: str | None = None) -> None:
        """Write every entry atomically (a killed run leaves the previous file)."""
        raise NotImplementedError

    def refuse_solved(self, spec: str, path: str) -> None:
        """Refuse to prove a bound of a game whose total is proven exactly (:class:`ValueError`); none by default."""

    def raise_to_bound(self, entry: dict[str, Any], value: int) -> None:
        """What a proven lower bound ``value`` of the total changes in ``entry`` besides its record; none by
        default."""

    def campaign_bound(self, record: dict[str, Any]) -> dict[str, Any]:
        """A lower-bound campaign's record (:func:`record_of`) as this file keeps it."""
        return record

    tree_source = ""
    """What the shipped tree's manifest entry says made it (:func:`ship_best_known`'s ``source``)."""

    def tree_beats(self, spec: str, entry: dict[str, Any], stats: TreeStats, record: dict[str, Any], log: Log) -> bool:
        """Whether a played-out tree (``stats``, its ``record``) is better than what ``entry`` holds (telling
        ``log`` why not, or what it is measured against)."""
        raise NotImplementedError

    def tree_fields(self, record: dict[str, Any]) -> dict[str, Any]:
        """How a tree of this file plays, from its record, as its manifest entry says it (:func:`ship_best_known`'s
        ``fields``): by default every key of the record but those saying what the tree is and where it came from."""
        return {k: v for k, v in record.items() if k not in RECORD_KEYS}

    def tree_kept(self, entry: dict[str, Any], record: dict[str, Any], folder: str) -> None:
        """What keeping a tree changes in ``entry`` besides its record (``record["tree"]`` names its file in
        ``folder``); none by default."""

    def keep_tree(self, spec: str, tree: Tree, stats: TreeStats, record: dict[str, Any], fields: dict[str, Any], *,
                  path: str | None = None, folder: str | None = None, log: Log = lambda _: None) -> bool:
        """Keep a played-out strategy tree of the game when it beats the one recorded (:meth:`tree_beats`):
        shipped as the game's ``best-known`` tree (:func:`ship_best_known`, ``fields`` how it plays), its
        ``record`` given the file's name and kept under :attr:`tree_key`, and :meth:`tree_kept` applied.  The
        file is read as it is when the tree is kept (another run may have rewritten it meanwhile).  Returns whether
        it was kept."""
        kept = []

        def with_tree(entries: Entries | None) -> Entries | None:
            assert entries is not None
            entry = entries[spec]
            if not self.tree_beats(spec, entry, stats, record, log):
                return None
            where = folder or TREE_DIR
            record["tree"] = ship_best_known(spec, tree, stats, where, self.tree_source, fields)
            self.tree_kept(entry, record, where)
            entry[self.tree_key] = record
            kept.append(True)
            return entries

        self.rewrite(with_tree, path)
        return bool(kept)

    def rewrite(self, change: Callable[[Entries | None], Entries | None], path: str | None = None) -> None:
        """Change the registry file (``path``, else the package's) as it is now, as one step against any other
        process doing so (:func:`service.store.files.update_json`)."""
        update_json(path or self.file, change, load=self.load, save=lambda where, entries: self.save(entries, where))

    def keep_lower_bound(self, spec: str, record: dict[str, Any], *, path: str | None = None,
                         log: Log = lambda _: None) -> bool:
        """Keep a proven bound's ``record`` as the game's ``lower_bound`` (:meth:`raise_to_bound` applied) when it
        beats the one recorded.  Returns whether it did.

        The one rule of both files: a proven bound is never lost nor weakened, so a record is kept only when its
        value is higher than the one recorded, or, at the same value, when the one recorded is an unfinished
        campaign's and the new one is either finished (a whole plan's bound, a plain run's or a campaign's, replaces
        what some parts prove so far) or the same unfinished campaign's, its time grown (what it cost is brought up
        to date; its value cannot fall, every part's bound being a proof).

        :raises ValueError: the record bounds another question than the optimal total without a depth limit (the
            only one either file keeps a bound of)."""
        if record.get("criterion", Criterion.TOTAL) != Criterion.TOTAL or record.get("max_guesses") is not None:
            raise ValueError(f"{spec}: a bound of {record.get('criterion')} within {record.get('max_guesses')} "
                             "guesses is not a bound of the optimal total")
        kept = []

        def with_bound(entries: Entries | None) -> Entries | None:  # as it is now: another run may have rewritten it
            assert entries is not None
            entry = entries[spec]
            old = entry.get("lower_bound")
            partly = unfinished(record)
            log(f"{spec}: T >= {record['value']} "
                + ("from the unfinished campaign's parts" if partly else f"at {record['depth']} plies")
                + f" ({record['work']} sets refined, "
                f"{record['seconds']:.1f} s; size-only {record['size_only']}"
                + (f", recorded {old['value']}" if old else "") + ")")
            same = old is not None and int(record["value"]) == int(old["value"]) and unfinished(old)
            if old is not None and int(record["value"]) <= int(old["value"]) and not (same and (not partly or (
                    record["campaign"]["progress"] == old["campaign"]["progress"]
                    and record["seconds"] != old["seconds"]))):
                return None
            self.raise_to_bound(entry, int(record["value"]))
            entry["lower_bound"] = record
            kept.append(True)
            return entries

        self.rewrite(with_bound, path)
        return bool(kept)

    build_command = ""
    """The command that builds a game's first best-known tree (``atlas hybrid``, ``records rollout``)."""

    def hybrid_command(self, spec: str, above: str, exact_at_most: int, max_guesses: int | None = None,
                       rollout: dict[str, int] | None = None) -> str:
        """The ``hybrid`` command of this registry's group that builds this hybrid (``above`` above
        ``exact_at_most`` candidates, within ``max_guesses``, rolled out as ``rollout`` says: ``width``,
        ``from_turn``, ``levels``, ``min_size``): pasted, it builds the same tree."""
        return (f"bullscows {self.group} hybrid -g {spec} --strategy {above} --exact-at-most {exact_at_most}"
                + ("" if max_guesses is None else f" --max-guesses {max_guesses}")
                + "".join(f" --rollout-{k.replace('_', '-')} {rollout[k]}"
                          for k in ("width", "from_turn", "levels", "min_size") if rollout is not None))

    def polish_limit(self, entry: dict[str, Any], max_guesses: int | None, as_given: bool) -> tuple[int | None, bool]:
        """(the limit a polish of ``entry``'s best-known tree keeps to, whether it may add no secret needing that
        many guesses) when ``max_guesses`` was asked (None: the registry's default, unless ``as_given``)."""
        return max_guesses, False

    def polish_target(self, spec: str, *, above: int, at_most: int, budget_s: float, max_guesses: int | None = None,
                      path: str | None = None, folder: str | None = None, sweep: int | None = None,
                      parts: list[str] | None = None, as_given: bool = False) -> tuple[Tree, dict[str, Any]]:
        """The game's best-known tree and the parameters of its polish (:func:`best_known_to_polish`: positions of
        ``above`` to ``at_most`` candidates searched exactly for ``budget_s`` seconds each, within ``max_guesses``,
        by default this registry's limit, :meth:`polish_limit`; ``sweep`` and ``parts`` as there), which the group's
        ``polish`` command runs as a campaign before :meth:`add_polish` judges it.  ``as_given``: no limit when
        ``max_guesses`` is None (a steps campaign replays a polish as it was run).

        :raises ValueError: the game has no best-known tree yet, or a part is none."""
        entry = self.load(path or self.file)[spec]
        max_guesses, keep_movers = self.polish_limit(entry, max_guesses, as_given)
        return best_known_to_polish(Game.from_spec(spec), self, entry.get(self.tree_key), above=above,
                                    at_most=at_most, budget_s=budget_s, max_guesses=max_guesses, folder=folder,
                                    keep_movers=keep_movers, sweep=sweep, parts=parts)

    def keep_polished(self, spec: str, before: dict[str, Any], tree: Tree, field: dict[str, Any], command: str,
                      spent: float, *, path: str, folder: str | None, log: Log) -> dict[str, Any]:
        """Judge a polished best-known tree (``field`` the record's ``polish``, ``command`` the chain that rebuilds
        it, ``spent`` the polish's seconds) and keep it when it beats ``before``; its record, with ``kept``."""
        raise NotImplementedError

    def add_polish(self, spec: str, tree: Tree, params: dict[str, Any], progress: str, *, path: str | None = None,
                   folder: str | None = None, log: Log = lambda _: None) -> dict[str, Any]:
        """The polish of ``tree`` with ``params`` (:meth:`polish_target`'s), whose job left every position it settled
        in ``progress`` (:mod:`service.polishes`), put into the tree and kept when it is better
        (:meth:`keep_polished`), the progress file then closed.  The record keeps the command chain that rebuilds
        the tree.  Returns it, with ``kept``.

        :raises ValueError: the game has no best-known tree, or ``progress`` is another polish's or lacks
            positions."""
        path = path or self.file
        before = self.load(path)[spec].get(self.tree_key)
        if before is None:
            raise ValueError(f"{spec} has no best-known tree to polish: build one first ({self.build_command})")
        tree, field, spent, command = polish_best_known(Game.from_spec(spec), self.group, before, tree, params,
                                                        progress, log)
        record = self.keep_polished(spec, before, tree, field, f"{before['command']} && {command}", spent,
                                    path=path, folder=folder, log=log)
        polishes.FILE.finish(progress, {"total": record["total"], "kept": record["kept"]})
        return record

    def bound_fields(self, known: bool) -> dict[str, Any]:
        """What a bound's record of this registry says besides its value, plan and cost (``known``: it used a
        table's proven parts)."""
        return {}

    bound_progress = False
    """Whether a bound proven by a command tells its progress first guess by first guess."""

    def add_lower_bound(self, spec: str, depth: int, *, target: int | None = None, path: str | None = None,
                        known: Callable[[tuple[int, ...]], tuple[int, int] | None] | None = None,
                        log: Log = lambda _: None) -> tuple[dict[str, Any], RootBound]:
        """Prove a lower bound of the game's optimal total (no depth limit) by refining its first ``depth`` plies
        (:meth:`prove_lower_bound`: ``known`` a table's proven parts; ``target``, game-level: each first guess
        refined only until its bound reaches it, the bound then the target or more, or the full bound when that is
        below it), and keep it when it beats the one recorded (:meth:`keep_lower_bound`).  Returns (the bound's
        record, the bound with its parts)."""
        t0 = time.perf_counter()

        def progress(plies: int, done: int, total: int) -> None:
            log(f"{spec}: first guess {done + 1} of {total} at {plies} plies ({time.perf_counter() - t0:.0f} s)")

        got = self.prove_lower_bound(spec, depth, target=target, path=path, known=known,
                                     progress=progress if self.bound_progress else None)
        record = {"value": got.value, **self.bound_fields(known is not None), "depth": got.depth,
                  **({} if target is None else {"target": target}), "size_only": got.size_only, "work": got.work,
                  "seconds": round(got.seconds, 1),
                  "command": f"bullscows {self.group} {self.bound_command} -g {spec} --depth {depth}"
                             + ("" if target is None else f" --target {target}"),
                  "machine": machine(), "date": datetime.date.today().isoformat()}
        self.keep_lower_bound(spec, record, path=path, log=log)
        return record, got

    def campaign_command(self, spec: str, depth: int, target: int | None, progress: str) -> str:
        """The command that runs (and continues) the game's bound campaign from this registry's group, as a
        bound's record names it: ``bullscows atlas bounds -g 6,7,0 --depth 4 --campaign --progress FILE``."""
        return (f"bullscows {self.group} {self.bound_command} -g {spec} --depth {depth}"
                + ("" if target is None else f" --target {target}") + f" --campaign --progress {progress}")

    def prove_lower_bound(self, spec: str, depth: int, *, target: int | None = None, path: str | None = None,
                          known: Callable[[tuple[int, ...]], tuple[int, int] | None] | None = None,
                          progress: Callable[[int, int, int], None] | None = None) -> RootBound:
        """Prove a lower bound of the game's optimal total (no depth limit) by refining its first ``depth``
        plies (:func:`solver.lowerbound.root_lower_bound`; ``target``: each first guess refined only until its
        bound reaches it; ``known``: a table's proven parts), once the game is one a bound may be proven for."""
        self.refuse_solved(spec, path or self.file)
        return root_lower_bound(Game.from_spec(spec), (), depth, known=known, target=target, progress=progress)


def record_of(game: Game, depth: int, target: int | None, path: str, command: str, summary: dict[str, Any],
              finished: bool) -> dict[str, Any]:
    """A campaign's lower-bound record (value, plan, cost, the campaign and the command that continues it): a
    finished one's, or an unfinished one's, marked so (its bound is what its parts prove so far)."""
    return {"value": summary["value"], "depth": depth, **({} if target is None else {"target": target}),
            "size_only": int(lower_bound_tables(game, game.size)[0, Criterion.TOTAL.code, MMAX][game.size]),
            "work": summary["work"], "seconds": summary["seconds"],
            "campaign": {"units": summary["units"], "progress": path, **({} if finished else {"finished": False})},
            "command": command, "machine": machine(), "date": datetime.date.today().isoformat()}
