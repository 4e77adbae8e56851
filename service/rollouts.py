"""Rollout campaigns: a rollout tree (:mod:`solver.rollout`) built as units, one per response to the first
guess, run on as many processes or machines as there are (Dask), its progress kept in a file.

Why: a records tree takes a quarter of an hour to hours of one core, and a session, a machine or a process
can end before it does.  The rollout decides each position from its path alone, so the subtree below each
response to the first guess is a unit that any process can build alone, and the finished tree is those
subtrees put back under the first guess.  Each finished unit is written to the progress file at once
(atomically, under a lock): a campaign killed at any moment loses only the units that were running, and
run again with the same file it builds only the units that are missing.  The file carries the plan, so a
second run with other parameters is refused rather than mixed in.  When every unit is there, the tree is
assembled (checked move by move against its candidates) and handed to the caller, which plays every
secret through it before it claims anything.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Callable
from typing import Any

from service.campaign_files import CAMPAIGN_DIR as CAMPAIGN_DIR  # re-exported: importers name it here
from service.campaign_files import CampaignError as CampaignError  # re-exported: importers name it here
from service.filelock import exclusive, write_json
from solver.game import Code, Game
from solver.rollout import RolloutPlan, assemble, branch_responses, branch_tree, first_guess
from solver.tree import Tree, from_compact, to_compact

FORMAT = "bullscows-rollout-campaign"

Log = Callable[[str], None]


def default_path(spec: str) -> str:
    """The progress file of a game's rollout campaign: ``campaigns/rollout-5-10-0.json``."""
    return os.path.join(CAMPAIGN_DIR, f"rollout-{spec.replace(',', '-')}.json")


def read(path: str) -> dict[str, Any] | None:
    """The progress file's document, or None when there is none yet.

    :raises CampaignError: the file is not a rollout campaign's progress.
    """
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        if doc.get("format") != FORMAT or not isinstance(doc.get("units"), dict):
            raise ValueError("not a rollout campaign's progress file")
        return dict(doc)
    except (OSError, ValueError) as exc:
        raise CampaignError(f"{path}: {exc}") from None


def start(game: Game, plan: RolloutPlan, path: str, log: Log = lambda _: None) -> dict[str, Any]:
    """The campaign's progress: read from ``path`` when it is there (and is this game's and plan's), else
    begun there, with the first guess chosen (the hybrid's own, or rolled out when the plan starts at 1).

    :raises CampaignError: the file belongs to another game or plan.
    """
    with exclusive(path):
        doc = read(path)
        if doc is not None:
            if doc.get("game") != game.spec or doc.get("plan") != plan.as_dict():
                raise CampaignError(
                    f"{path} continues another campaign ({doc.get('game')}: {doc.get('plan')}); give another "
                    "progress file, or remove this one to start again")
            return doc
    started = time.perf_counter()
    first = first_guess(game, plan, log)
    doc = {"format": FORMAT, "game": game.spec, "plan": plan.as_dict(), "first_guess": game.format_code(first),
           "first_guess_seconds": round(time.perf_counter() - started, 1),
           "started": datetime.date.today().isoformat(), "units": {}}
    with exclusive(path):
        if read(path) is None:
            write_json(path, doc)
        else:  # another process began it meanwhile: continue theirs
            doc = read(path) or doc
    return doc


def _unit(spec: str, plan: dict[str, Any], first: Code, response: int,
          log: Log = lambda _: None) -> tuple[int, str, float]:
    """One unit, as a worker process runs it: the subtree's compact text and its time (``log``: its rollout
    decisions, when it runs in the campaign's own process)."""
    game = Game.from_spec(spec)
    started = time.perf_counter()
    tree = branch_tree(game, RolloutPlan(**plan), first, response, log)
    return response, to_compact(tree), time.perf_counter() - started


def _amend(path: str, change: Callable[[dict[str, Any]], None], *, required: bool = True) -> None:
    """Change the progress file as it is now (re-read under its lock: other processes write to it too);
    a file gone is an error when ``required``, else nothing to change."""
    with exclusive(path):
        doc = read(path)
        if doc is None:
            if not required:
                return
            raise CampaignError(f"{path} disappeared while the campaign ran")
        change(doc)
        write_json(path, doc)


def record_unit(path: str, game: Game, response: int, text: str, seconds: float) -> None:
    """Add a finished unit to the progress file."""
    _amend(path, lambda doc: doc["units"].update(
        {game.format_response(response): {"tree": text, "seconds": round(seconds, 1)}}))


def unit_done(game: Game, plan: RolloutPlan, response: int, text: str, seconds: float) -> str:
    """The log line of a finished unit, with what its subtree costs: a campaign stopped early (``--max-units``,
    or a trial of ``--play``) is judged by its units before the whole tree exists."""
    stats = from_compact(text).stats()
    over = "" if plan.max_guesses is None else f", {stats.beyond(plan.max_guesses)} beyond {plan.max_guesses}"
    return (f"{game.spec}: unit {game.format_response(response)} done in {seconds:.1f} s: {stats.secrets} secrets, "
            f"{stats.total} guesses (the first included), worst case {stats.worst_case}{over}")


def _record_run(path: str, run: dict[str, Any]) -> None:
    """Note a run that finished its units (how many, where, its wall-clock time) in the progress file: the
    units' own times say what the work cost, the runs how long it took to wait for it."""
    _amend(path, lambda doc: doc.setdefault("runs", []).append(run), required=False)


def missing(game: Game, doc: dict[str, Any]) -> list[int]:
    """The responses whose units are not finished yet, biggest first."""
    first = game.parse_code(doc["first_guess"])
    return [r for r in branch_responses(game, first) if game.format_response(r) not in doc["units"]]


def run(spec: str, plan: RolloutPlan, path: str, *, processes: int = 1, scheduler: str | None = None,
        max_units: int | None = None, units: list[str] | None = None, log: Log = lambda _: None) -> Tree | None:
    """Run the campaign of ``plan`` on ``spec`` until every unit is finished (or ``max_units`` more are, or those
    of ``units``, responses to the first guess as texts), the progress in ``path``.  ``processes``: 1 runs the
    units here, one after another; more start a Dask ``LocalCluster`` of that many processes; ``scheduler`` joins
    a Dask cluster instead (many machines; only this process reads and writes ``path``).  Returns the assembled
    tree once every unit is finished, else None.  One command per progress file: two would build the same units
    twice (nothing is lost, each keeps what the other saved, but the work is done twice)."""
    game = Game.from_spec(spec)
    doc = start(game, plan, path, log)
    if "finished" in doc:
        raise CampaignError(f"{path} is a finished campaign (total {doc['finished'].get('total')}); remove it to "
                            "build its tree again")
    first = game.parse_code(doc["first_guess"])
    todo = missing(game, doc)
    log(f"{spec}: first guess {doc['first_guess']}, {len(doc['units'])} units done, {len(todo)} to do")
    if units is not None:
        chosen = named_responses(game, first, units, "--units", "unit")
        todo = [r for r in todo if r in chosen]
    if max_units is not None:
        todo = todo[:max_units]
    started = time.perf_counter()
    if todo and processes <= 1 and scheduler is None:
        for r in todo:
            response, text, seconds = _unit(spec, plan.as_dict(), first, r, log)
            record_unit(path, game, response, text, seconds)
            log(unit_done(game, plan, response, text, seconds))
    elif todo:
        _run_dask(spec, plan, first, todo, path, processes, scheduler, log)
    if todo:
        _record_run(path, {"date": datetime.date.today().isoformat(), "units": len(todo),
                           "where": scheduler or f"{max(processes, 1)} process(es)",
                           "wall_seconds": round(time.perf_counter() - started, 1)})
    doc = read(path) or doc
    if missing(game, doc):
        return None
    branches = {game.parse_response(k): from_compact(u["tree"]) for k, u in doc["units"].items()}
    return assemble(game, plan, first, branches)


def named_responses(game: Game, first: Code, texts: list[str], option: str, noun: str) -> set[int]:
    """The responses to ``first`` named by ``texts`` (what ``option``, ``--units`` or ``--parts``, gives), each one
    that leaves candidates to find (a ``noun``: a unit of a campaign, a part of a tree).

    :raises CampaignError: a text is no response, or one that leaves no candidate after ``first``; the message
        names the option and lists the responses there are.
    """
    known = branch_responses(game, first)
    chosen = set()
    for text in texts:
        try:
            r = game.parse_response(text.strip())
        except ValueError as exc:
            raise CampaignError(f"{option}: {exc}") from None
        if r not in known:
            raise CampaignError(f"{option}: {text.strip()} is not a {noun}: the responses to {game.format_code(first)} "
                                f"that leave candidates are {', '.join(map(game.format_response, known))}")
        chosen.add(r)
    return chosen


def _run_dask(spec: str, plan: RolloutPlan, first: Code, todo: list[int], path: str, processes: int,
              scheduler: str | None, log: Log) -> None:
    from distributed import Client, as_completed

    from service.jobs.runner import local_cluster, stopped_by_sigterm, warm_process

    game = Game.from_spec(spec)
    with stopped_by_sigterm():
        cluster = None
        if scheduler:
            client = Client(scheduler)  # type: ignore[no-untyped-call]
        else:
            cluster = local_cluster(processes)
            client = Client(cluster)  # type: ignore[no-untyped-call]
        try:
            client.run(warm_process)
            futures = [client.submit(_unit, spec, plan.as_dict(), first, r, pure=False) for r in todo]
            for future in as_completed(futures):  # type: ignore[no-untyped-call]
                response, text, seconds = future.result()
                record_unit(path, game, response, text, seconds)
                log(unit_done(game, plan, response, text, seconds))
        finally:
            client.close()  # type: ignore[no-untyped-call]
            if cluster is not None:
                cluster.close()


def finished(path: str, spec: str, plan: RolloutPlan) -> dict[str, Any] | None:
    """What a finished campaign of this game and plan found (``finish``'s summary), or None."""
    doc = read(path)
    if doc is None or doc.get("game") != spec or doc.get("plan") != plan.as_dict():
        return None
    done = doc.get("finished")
    return dict(done) if isinstance(done, dict) else None


def finish(path: str, summary: dict[str, Any]) -> None:
    """Close a campaign whose tree was assembled and judged: its units' subtrees are dropped (the shipped
    tree, or the record that it was not better, is what is left to keep) and ``summary`` is kept with the
    units' times, so that running the same plan again does nothing."""
    with exclusive(path):
        doc = read(path)
        if doc is None:
            return
        doc["finished"] = {**summary, "date": datetime.date.today().isoformat(), "seconds": round(seconds(doc), 1)}
        doc["units"] = {k: {"seconds": u["seconds"]} for k, u in doc["units"].items()}
        write_json(path, doc)


def seconds(doc: dict[str, Any]) -> float:
    """The campaign's time: its first guess and every unit, as each process measured it (summed)."""
    return float(doc.get("first_guess_seconds", 0.0)) + sum(float(u["seconds"]) for u in doc["units"].values())
