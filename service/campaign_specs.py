"""Campaigns run as jobs, and exported to the repository's progress files: a spec (:mod:`service.campaign_spec`,
from a spec file or a command's options) run by :func:`run`, whatever its kind.

Why: long work must outlive a session and a machine.  A spec's campaign is one job in the job store, so the workers
that run every other job run it (one, or many machines on one PostgreSQL), each unit under a lease, every proof in
the database as soon as it is made (a bound job's part bounds in ``bound_parts``, a rollout unit's subtree in its
row, a polish's positions in ``polish_positions``, a check, search or scan unit's progress in its row as it goes);
no file claims and no pid leases.

The progress file the spec names is the committed form, in the format the file's other readers already read: a
fresh clone continues from it, and :func:`export` writes it from the database as the job goes and when it ends.
What differs from one kind to another (how its job is asked from the file, how the file is written, what the file
says of it, each unit's log line) is its :class:`~service.campaign_spec.JobCampaignKind`, found by :func:`kinds`;
this module is the one way every kind is run: the file checked, earlier jobs' work taken in, the job asked and
followed by a worker started for it, the file written at the end (and, for a bound, the bound kept in the registry
of games).  A rollout's or a polish's tree is assembled, judged and shipped from the finished file by the command
that runs it (``records rollout``, ``atlas hybrid --rollout-width``, ``records polish``, ``atlas polish``).
"""

from __future__ import annotations

import datetime
import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.campaign_files import CampaignError
from service.campaign_kind import CampaignKind, JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec, load_spec
from service.config import Settings
from service.jobs import manage
from service.jobs.local_worker import LocalWorker
from service.jobs.runner import signals_deferred, stopped_by_sigterm
from service.plugins import installed
from service.store.jobs import FINAL, JobStore, as_aware
from service.store.models import Job

STOPPED = ("stopped; every unit done is kept, and the progress of those under way as they last kept it: run the same "
           "command again to continue")

__all__ = ["SUBMITTER", "CampaignSpec", "RunOutcome", "check", "export", "follow",
           "load_spec", "newest_job", "progress_of", "run", "start", "status"]


KIND_GROUP = "bullscows.campaign_kinds"
"""The entry point group that names every kind of campaign: ``name = "module:KIND"`` (``pyproject.toml``)."""


@functools.cache
def kinds() -> dict[str, CampaignKind]:
    """Every kind of campaign installed, by name (each its module's ``KIND``, found through :data:`KIND_GROUP`).

    Why entry points: the runner names no kind, so a kind is added (or its package left out) without touching
    it, and importing the runner imports none of the kinds' modules until a campaign of that kind is run."""
    return installed(KIND_GROUP, CampaignKind, "campaign kind")  # type: ignore[type-abstract]


def kind_of(spec: CampaignSpec) -> CampaignKind:
    """The spec's kind.

    :raises CampaignError: no kind of that name is installed (the package is not installed: ``pip install -e .``)."""
    found = kinds().get(spec.kind)
    if found is None:
        raise CampaignError(f"{spec.path}: no campaign kind {spec.kind!r} is installed (kinds: "
                            f"{', '.join(sorted(kinds())) or 'none: install the package'})")
    return found


def job_kind(spec: CampaignSpec) -> JobCampaignKind:
    """The spec's kind, one of those run as one job.

    :raises CampaignError: it is not installed, or drives itself (a steps campaign: ``campaign run``)."""
    found = kind_of(spec)
    if not isinstance(found, JobCampaignKind):
        raise CampaignError(f"{spec.path}: a {spec.kind} campaign is not one job: `bullscows campaign run SPEC` "
                            "drives it")
    return found


def start(jobs: JobStore, spec: CampaignSpec, units: list[str] | None = None) -> tuple[Job, bool, str]:
    """(job, created, what was taken in): the spec's campaign set going from what its progress file holds
    (:meth:`~service.campaign_spec.CampaignKind.start`; ``units``: a rollout's responses to build alone), once
    what its earlier jobs in this database did is in the file (:func:`_take_in_earlier`).

    :raises CampaignError: the progress file is unreadable, or another campaign's."""
    _take_in_earlier(jobs, spec)
    return job_kind(spec).start(jobs, spec, units)


def export(jobs: JobStore, spec: CampaignSpec, job: Job | None) -> dict[str, Any]:
    """Write what the database holds of the spec's campaign to its progress file (its jobs up to ``job``, the
    newest), and return the document written.  Nothing the file holds is lost.

    :raises CampaignError: no job of the campaign in the database (nothing to write), or the file is another
        campaign's."""
    if job is None:
        raise CampaignError(f"the database has no job of this campaign: nothing to write to {spec.progress}")
    return job_kind(spec).export(jobs, spec, job)


def follow(jobs: JobStore, spec: CampaignSpec, job: Job, *, export_every: float,
           poll: float = 0.5, stop_if: Callable[[], str | None] = lambda: None,
           enough: Callable[[Job], bool] = lambda _job: False,
           on_units: Callable[[Job], None] = lambda _job: None) -> Job:
    """Wait for the spec's job to end (whatever workers run it), or until ``enough(job)``, writing its progress
    file every ``export_every`` seconds and telling ``on_units`` each time more of its units are done; the job as
    it was then.

    :raises CampaignError: ``stop_if()`` gave a reason to stop waiting (the worker the command started is gone)."""
    last = time.monotonic()
    while job.status not in FINAL and not enough(job):
        reason = stop_if()
        if reason is not None:
            raise CampaignError(reason)
        time.sleep(poll)
        before, job = job.units_done, jobs.get(job.id) or job
        if job.units_done != before:
            on_units(job)
        if time.monotonic() - last >= export_every and job.plan is not None:
            export(jobs, spec, job)
            last = time.monotonic()
    return job


def newest_job(jobs: JobStore, spec: CampaignSpec) -> Job | None:
    """The spec's newest job (a rollout's: whatever it skipped), None before the first run."""
    found = job_kind(spec).jobs_of(jobs, spec)
    return found[-1] if found else None


def progress_of(spec: CampaignSpec) -> dict[str, Any] | None:
    """What the spec's progress file holds, in a few figures (a bound's standing and finished bound, a rollout's
    subtrees, a polish's positions, a check's parts...), None when there is none."""
    return kind_of(spec).progress(spec)


def status(jobs: JobStore, spec: CampaignSpec) -> dict[str, Any]:
    """Where the spec's campaign stands: the spec, its progress file, and its newest job's view (None before the
    first run)."""
    own = kind_of(spec).status(jobs, spec)  # a kind that drives itself says it
    if own is not None:
        return own
    job = newest_job(jobs, spec)
    return {"spec": spec.to_json(), "progress": progress_of(spec),
            "job": None if job is None else manage.view(jobs, job)}


def finished_in_file(spec: CampaignSpec) -> dict[str, Any] | None:
    """The summary of the campaign when its progress file holds its answer already (a bound of this plan, its sets
    valued this way; a check with every part it asks; a search's or a scan's answer; every atlas game finished),
    None when it does not: a fresh clone's database knows nothing of it, and the work must not be done again."""
    return job_kind(spec).finished(spec)


def check(spec: CampaignSpec, *, keep: bool = False, keep_in: str | None = None,
          registry: Any = None) -> None:
    """What :func:`run` refuses before it touches any database: a progress file that is not the campaign's
    (:meth:`~service.campaign_spec.CampaignKind.check`), or with ``keep`` a bound nothing could keep
    (:func:`keeper`).

    :raises CampaignError: either."""
    kind_of(spec).check(spec)
    if keep:
        job_kind(spec).check_keep(spec, keep_in, registry)


@dataclass
class RunOutcome:
    """How :func:`run` ended: the job as it was, why it stopped short (None when it did not), the bound kept (its
    kind's :meth:`~service.campaign_spec.JobCampaignKind.keep`) when one was asked, and the progress file's summary
    when it had finished."""

    job: Job | None
    """None when the progress file had finished the campaign already (``finished``)."""
    problem: str | None = None
    kept: dict[str, Any] | None = None
    finished: dict[str, Any] | None = None


def run(jobs: JobStore, spec: CampaignSpec, *, worker: bool = True,
        processes: int | None = None, export_every: float = 300.0, max_units: int | None = None,
        keep: bool = False, keep_in: str | None = None, registry: Any = None,
        command: str | None = None, progress_as: str | None = None, units: list[str] | None = None,
        scheduler: str | None = None, log: Callable[[str], None] = lambda _: None) -> RunOutcome:
    """Run the spec's campaign as a job: take in its progress file (:func:`start`; a rollout's ``units``: only
    those responses' subtrees), start a ``bullscows worker`` on the job store's database unless ``worker`` is
    False (the workers already running then do the work; with ``max_units``, it takes that many units and stops;
    with ``scheduler``, it runs them on that Dask cluster), wait for the job writing the file every ``export_every``
    seconds (:func:`follow`), and at the end, or when stopped (Ctrl-C, SIGTERM, the worker gone or its share
    done), stop the worker, write the file and, with
    ``keep``, keep the bound (its kind's ``keep``, with ``keep_in``, ``registry``, ``command`` and ``progress_as``).

    Why one function for every command that runs a campaign (``campaign run``, ``atlas bounds --campaign``,
    ``records bound --campaign``): they differ in how they name the campaign, not in how it runs.

    :raises CampaignError: before any work, what :func:`start` or :func:`keeper` refuses."""
    check(spec, keep=keep, keep_in=keep_in, registry=registry)
    taken = _take_in_earlier(jobs, spec)
    if taken is not None:
        log(taken)
    done = finished_in_file(spec)
    if done is not None:
        log(f"{spec.game.spec}: {os.path.basename(spec.progress)} {job_kind(spec).finished_line(spec, done)}")
        kept = None if not keep else job_kind(spec).keep(spec, None, keep_in, registry=registry, command=command,
                                                progress_as=progress_as)
        if kept is not None:
            log(_kept_line(spec, kept))
        return RunOutcome(None, None, kept, done)
    job, created, taken = job_kind(spec).start(jobs, spec, units)  # earlier jobs' work taken in above
    log(f"{spec.kind} campaign of {spec.game.spec}: {taken}; job {job.id} "
        f"({'submitted' if created else 'already known: ' + job.status})")
    if not created and job.status == "running":
        _say_stale(jobs, job, log)
    told: set[int] = set()

    def tell(now: Job) -> None:  # each unit done said once: a rollout's subtree with what it costs, a bound's bound
        units = jobs.units(now.id)
        for u in units:
            if u.status != "done" or u.id in told:
                continue
            told.add(u.id)
            line = job_kind(spec).unit_line(spec, u, units)
            if line is not None:
                log(line)

    runner = None
    if worker and job.status not in FINAL:
        runner = LocalWorker(jobs.db.url, processes, max_units=max_units, job=job.id, scheduler=scheduler)
    elif job.status not in FINAL and not worker and not jobs.live_workers(Settings().worker_live_s):
        log("no worker is alive on this database: the job waits for one (`bullscows worker`)")
    out = RunOutcome(job)
    try:
        with stopped_by_sigterm():  # SIGTERM as Ctrl-C: the worker stopped and the file written all the same
            out.job = follow(jobs, spec, job, export_every=export_every,
                             enough=lambda _job: runner is not None and runner.share_done(),
                             stop_if=lambda: None if runner is None else runner.gone(), on_units=tell)
    except CampaignError as exc:
        out.problem = str(exc)
    except (KeyboardInterrupt, SystemExit):
        out.problem = STOPPED
    finally:
        with signals_deferred() as stopped:  # a Ctrl-C now waits for the file and the bound to be written
            if runner is not None:
                runner.stop()
            try:
                out.job = jobs.get(job.id) or out.job
                if out.job is not None and (created or job.status not in FINAL):
                    tell(out.job)
                export(jobs, spec, out.job)
                if keep:  # also when stopped early: what the parts prove so far is a proof too
                    out.kept = job_kind(spec).keep(spec, out.job, keep_in, registry=registry, command=command,
                                          progress_as=progress_as, jobs=jobs)
                    log(_kept_line(spec, out.kept))
            except CampaignError as exc:
                out.problem = out.problem or str(exc)
        if stopped and out.problem is None and (out.job is None or out.job.status not in FINAL):
            out.problem = STOPPED
    if out.problem is None and out.job is not None and out.job.status in ("failed", "cancelled"):
        why = (out.job.error or "").strip().splitlines()
        out.problem = (f"the campaign's job {out.job.id} {out.job.status}" + (f" ({why[0]})" if why else "")
                       + "; every unit done is kept: run the same command again to retry the others")
    return out


def _say_stale(jobs: JobStore, job: Job, log: Callable[[str], None]) -> None:
    """Say when some of a job's running units are held by a worker that stopped beating (killed): they wait until
    they are stale, then any worker takes them again, from what they kept."""
    settings = Settings()
    now = datetime.datetime.now(datetime.UTC)
    quiet = [u for u in jobs.units(job.id) if u.status == "running"
             and (now - (as_aware(u.heartbeat_at) or now)).total_seconds() > 3 * settings.job_heartbeat_s]
    if quiet:
        log(f"{len(quiet)} unit{'' if len(quiet) == 1 else 's'} of job {job.id} held by a worker that stopped "
            f"beating: taken again, from what {'it' if len(quiet) == 1 else 'they'} kept, once "
            f"{settings.job_stale_after_s:g} s have passed without a beat")


def _take_in_earlier(jobs: JobStore, spec: CampaignSpec) -> str | None:
    """Write what earlier jobs of a campaign whose job is asked from its file (a check, search, scan or atlas run:
    :attr:`~service.campaign_spec.CampaignKind.takes_in_earlier`) hold in this database to its progress file
    before anything is asked of it (what is left to do, or whether it is done, is read from the file): the line
    saying so, None when they add nothing.  Why: the database is where the units keep what they proved; a file
    copied, new, or older than the database's last run would otherwise ask for work done already."""
    kind = job_kind(spec)
    earlier = kind.jobs_of(jobs, spec) if kind.takes_in_earlier else []
    if not earlier:
        return None
    before = kind.progress(spec)
    kind.export(jobs, spec, earlier[-1])
    after = kind.progress(spec)
    return None if after == before else kind.earlier_line(spec, before, after)


def _kept_line(spec: CampaignSpec, kept: dict[str, Any]) -> str:
    return (f"{spec.game.spec}: T >= {kept['record']['value']} "
            + ("kept" if kept["kept"] else "not kept (the one recorded is as good)") + f" in {kept['file']}")
