"""What the commands that run campaigns share: a campaign's options, its job store, and the steps that run one as a
job (:func:`run_campaign`, through :func:`service.campaign_specs.run`) before the command judges what it made.  The
lab's bound, rollout and polish campaigns, which improve the atlas and the records, are in
:mod:`service.cli.improving`.

Only click is imported at load time, as in :mod:`service.cli.common`; the campaigns' modules are imported inside
the helpers, when a command runs one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from service.cli.common import (
    F,
    database_url,
    fail,
    job_store,
    say,
)


def campaign_options(when: str = "", kind: str | None = "rollout") -> Callable[[F], F]:
    """The options of a campaign a command runs as a job (a rollout, ``service.rollouts``, a polish,
    ``service.polishes``, or a check, ``service.checks``: :func:`run_campaign`), alike wherever a command runs one;
    ``when`` prefixes their help (the condition under which the command runs a campaign at all), ``kind`` names its
    default progress file (None: the command's campaign has no ``--progress`` of its own)."""

    def decorate(fn: F) -> F:
        progress = [] if kind is None else [
            click.option("--progress", type=click.Path(dir_okay=False), default=None,
                         help=f"{when}The campaign's progress file (default: {kind}-<game>.json in "
                              "the campaigns folder: bullscows --campaigns).")]
        for option in reversed([
            *progress,
            click.option("--processes", type=click.IntRange(min=1), default=1, show_default=True,
                         help=f"{when}Processes of the worker the command starts (units run at once)."),
            click.option("--scheduler", default=None,
                         help=f"{when}A Dask scheduler's address (tcp://host:8786): the command's worker runs the "
                              "units on that cluster."),
            click.option("--max-units", type=click.IntRange(min=1), default=None,
                         help=f"{when}Stop after this many more units (the same command continues from the "
                              "progress file)."),
            click.option("--url", default=None,
                         help=f"{when}The job database the campaign runs in (default: DATABASE_URL or the "
                              "service's SQLite file); workers of other machines on the same PostgreSQL take its "
                              "units too."),
        ]):
            fn = option(fn)
        return fn

    return decorate


def refuse_campaign_options(campaign: bool, progress: str | None, processes: int, max_units: int | None,
                             only_parts: str | None = None) -> None:
    """A campaign's options without ``--campaign`` are a mistake, refused before any work."""
    if (progress is not None or processes > 1 or max_units is not None or only_parts is not None) and not campaign:
        fail("--progress, --processes, --max-units and --parts are a campaign's: add --campaign")


def campaign_jobs(url: str | None) -> Any:
    """The job store of ``url`` (migrated), closed with the command."""
    from service.store.db import DATABASE_ERRORS, StorageError, shown_url, sqlite_file
    from service.store.migrate import upgrade

    resolved = database_url(url)
    shown = shown_url(resolved)
    file = sqlite_file(resolved)
    if file and not os.path.isdir(os.path.dirname(os.path.abspath(file))):  # nothing made where nobody asked
        fail(f"the database {shown} cannot be used: its folder {os.path.dirname(os.path.abspath(file))} is not "
              "there")
    unusable: tuple[type[Exception], ...] = (*DATABASE_ERRORS, StorageError, OSError, ImportError)
    try:
        upgrade(resolved)
    except unusable as exc:  # no driver, no server there, no access
        reason = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0]
        fail(f"the database {shown} cannot be used: {reason}")
    return job_store(url)


def run_campaign(campaign: Any, processes: int, scheduler: str | None, max_units: int | None, url: str | None,
                  units: list[str] | None = None) -> Any:
    """A campaign a command runs before it judges what the campaign made (a rollout's subtrees, a polish's
    positions): :func:`service.campaign_specs.run` with a worker of ``processes`` processes (on the Dask cluster
    ``scheduler``, when given) on ``url``'s database, taking at most ``max_units`` units, its progress file written
    every minute.  Stopped short (Ctrl-C, the worker gone, its job failed), the command ends here with why; returns
    the job as it was (not done yet when the worker did its ``max_units`` and stopped; None when the progress file
    had finished the campaign before)."""
    from service import campaign_specs
    from service.campaign_files import CampaignError

    try:
        campaign_specs.check(campaign)
        jobs = campaign_jobs(url)
        got = campaign_specs.run(jobs, campaign, processes=processes, export_every=60.0, max_units=max_units,
                                 units=units, scheduler=scheduler, log=say)
    except CampaignError as exc:
        fail(str(exc))
    if got.problem is not None:
        fail(got.problem)
    return got.job


