"""The campaigns that improve the atlas and the records, as their commands run them (``atlas bounds``, ``records
bound``, ``atlas hybrid --rollout-width``, ``records rollout``, ``atlas polish``, ``records polish``): their
options, and each run as a job (:func:`service.cli.campaigns.run_campaign`) before the command judges and keeps
what it made.

Only click is imported at load time; the campaigns' modules are imported inside the helpers, when a command runs
one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from service.cli.campaigns import campaign_jobs, campaign_options, run_campaign
from service.cli.common import (
    F,
    emit,
    fail,
    file_option,
    say,
    trees_option,
)


def bound_options(fn: F) -> F:
    """The refined lower bound's options (``--target``, and ``--campaign`` with its progress file, processes,
    units and parts: :func:`bound_campaign`), alike for ``atlas bounds`` and ``records bound``."""
    for option in reversed([
        click.option("--target", type=click.IntRange(min=1), default=None,
                     help="Only ask whether T reaches this (game-level): each first guess is refined until its "
                          "bound does, far cheaper than the whole bound at that depth. The bound kept is then at "
                          "least the target, or the full bound when that is below it."),
        click.option("--campaign", is_flag=True,
                     help="Run it as a campaign (one game): a bound job in the database (--url), a unit per first "
                          "guess (per part of it when the game has one class of first guess, and per second guess "
                          "of a part of 256 codes or more at depth 3 or more), run by a `bullscows worker` the "
                          "command starts; every part's bound is kept in the database as it is proven and written "
                          "to a progress file, so that a run stopped or killed continues from there."),
        click.option("--progress", type=click.Path(dir_okay=False), default=None,
                     help="With --campaign: its progress file (default: bounds-<game>.json in the "
                          "campaigns folder: bullscows --campaigns)."),
        click.option("--processes", type=click.IntRange(min=1), default=1, show_default=True,
                     help="With --campaign: processes of the worker it starts (units refined at once)."),
        click.option("--max-units", type=click.IntRange(min=1), default=None,
                     help="With --campaign: its worker takes this many units, and the command stops once they "
                          "are done (the same command continues)."),
        click.option("--parts", "only_parts", default=None, metavar="RESPONSES",
                     help="With --campaign: refine only the parts of these responses to each first guess "
                          "('0.5,1.4'), the others as already proven (the job's own value counts them at their size "
                          "alone): for the "
                          "parts whose next ply can raise the total. No first guess is finished that way; the bound "
                          "kept is what the progress file then proves."),
    ]):
        fn = option(fn)
    return fn


def polish_options(kind: str, at_most: int, max_guesses: str, sweep: str = "") -> Callable[[F], F]:
    """The options of a polish of the best-known tree (``service.polishes``), alike for ``atlas polish`` and
    ``records polish`` after their ``--above``: ``at_most`` is the default of ``--at-most``, ``max_guesses``
    the default ``--max-guesses`` names, ``sweep`` what ``--sweep``'s help adds for the group's games, and
    ``kind`` the group's results file."""

    def decorate(fn: F) -> F:
        fn = campaign_options(kind="polish")(fn)
        for option in reversed([
            click.option("--at-most", type=click.IntRange(min=1), default=at_most, show_default=True,
                         help="Search positions of at most this many candidates (the largest first on each path)."),
            click.option("--budget", type=click.FloatRange(min=0), default=30.0, show_default=True,
                         help="Seconds of exact search per position; a position out of time has its children "
                              "tried."),
            click.option("--max-guesses", type=click.IntRange(min=1), default=None,
                         help=f"Keep to this many guesses first (default: {max_guesses})."),
            file_option(kind),
            trees_option("Where the best-known tree is, and is shipped again"),
            click.option("--sweep", type=click.IntRange(min=2), default=None, metavar="N",
                         help="Search positions of more than N candidates by a sweep of their guesses, best refined "
                              f"bound first (solver.sweep), the exact search settling each set of N or fewer{sweep}."),
        ]):
            fn = option(fn)
        return fn

    return decorate


def parts_list(only_parts: str | None) -> list[str] | None:
    """``--parts 0.5,1.4`` as a list of responses (checked against the game by the campaign)."""
    return None if only_parts is None else [p.strip() for p in only_parts.split(",") if p.strip()]


def bound_campaign(group: str, spec: str, depth: int, target: int | None, progress: str | None, processes: int,
                    max_units: int | None, only_parts: str | None, path: str, url: str | None, as_json: bool) -> None:
    """``atlas bounds --campaign`` and ``records bound --campaign``: the game's bound campaign run as a job
    (:func:`service.campaign_specs.run`, a worker of ``processes`` processes on ``url``'s database), its bound kept
    in ``group``'s file ``path``, and its outcome printed (:func:`_emit_campaign`)."""
    from service import bound_campaigns, campaign_specs
    from service.atlas_keeping import ATLAS_KEEPER
    from service.campaign_files import CampaignError
    from service.campaign_spec import parse_parts
    from service.records_keeping import RECORDS_KEEPER
    from solver.game import Game

    registry = ATLAS_KEEPER if group == "atlas" else RECORDS_KEEPER
    game = Game.from_spec(spec)
    file = progress or bound_campaigns.default_path(spec)
    try:
        parts = () if only_parts is None else parse_parts(game, parts_list(only_parts))
        if only_parts is not None and not parts:
            fail("--parts: name the responses whose parts to refine ('0.5,1.4')")
        campaign = campaign_specs.CampaignSpec.bound(game, depth, target, file, parts)
        campaign_specs.check(campaign, keep=True, keep_in=path, registry=registry)  # before any database
        jobs = campaign_jobs(url)
        got = campaign_specs.run(jobs, campaign, processes=processes, export_every=60.0, max_units=max_units,
                                 keep=True, keep_in=path, registry=registry,
                                 command=registry.campaign_command(spec, depth, target, file), progress_as=file,
                                 log=say)
    except CampaignError as exc:
        fail(str(exc))
    if got.kept is not None:
        _emit_campaign(spec, got.kept["record"], file, as_json)
    if got.problem is not None:
        fail(got.problem)


def rollout_campaign(spec: str, plan: Any, progress: str, processes: int, scheduler: str | None,
                      max_units: int | None, units: list[str] | None, url: str | None) -> None:
    """``records rollout`` and ``atlas hybrid --rollout-width``: the rollout campaign's units built as a job
    (:func:`run_campaign`, ``units`` only those responses'), its subtrees written to ``progress``, where the command
    then assembles and judges the tree.  Nothing is run for a campaign the file says was judged already."""
    from service import campaign_specs, rollouts
    from service.campaign_files import CampaignError
    from solver.game import Game

    if rollouts.finished(progress, spec, plan) is not None:
        return
    game = Game.from_spec(spec)
    campaign = campaign_specs.CampaignSpec.rollout(game, plan, progress)
    try:
        campaign_specs.check(campaign)
        doc = rollouts.read_of(game, plan, progress)
    except CampaignError as exc:
        fail(str(exc))
    asked = {u.strip() for u in units or ()}
    for name, unit in ({} if doc is None else doc["units"]).items():
        if name in asked and "tree" in unit:  # a trial asked again: its line again
            say(rollouts.unit_done(game, plan, game.parse_response(name), unit["tree"], float(unit["seconds"]))
                 + " (built before)")
    run_campaign(campaign, processes, scheduler, max_units, url, units)


def polish_campaign(spec: str, tree: Any, params: dict[str, Any], progress: str, processes: int,
                     scheduler: str | None, max_units: int | None, url: str | None) -> dict[str, Any] | None:
    """``records polish`` and ``atlas polish``: the polish of ``tree`` with ``params`` run as a job
    (:func:`run_campaign`), each settled position written to ``progress``, from which the command then puts them
    into the tree and judges it.  Returns None once the job is done, else (its worker having done its
    ``max_units``) where the polish stands, which the command prints instead of judging anything."""
    from service.campaign_specs import CampaignSpec
    from solver.game import Game

    job = run_campaign(CampaignSpec.polish(Game.from_spec(spec), tree, params, progress), processes, scheduler,
                        max_units, url)
    if job is None or job.status == "done":
        return None
    left = int(job.units_total) - int(job.units_done)
    say(f"{spec}: stopped after --max-units: {left} of {job.units_total} parts left; run the same command again to "
         "continue")
    return {"game": spec, "finished": False, "progress": progress, "units_done": int(job.units_done),
            "units_left": left}


def _emit_campaign(game: str, record: dict[str, Any] | None, progress: str, as_json: bool) -> None:
    """A bound campaign's outcome: its record once every first guess is done, else where it stands (the bound
    its unfinished record says its file proves)."""
    from service import bound_campaigns
    from service.keeping import unfinished

    if record is not None and not unfinished(record):
        emit({"game": game, "finished": True, **record}, as_json)
        return
    doc = bound_campaigns.read(progress) or {}
    done = len(doc.get("units", {})) if record is None else int(record["campaign"]["units"])
    emit({"game": game, "finished": False, "progress": progress, "units_done": done,
           "plan": doc.get("plan"), **({} if record is None else {"standing": record["value"]})}, as_json)
