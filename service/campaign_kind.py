"""The kinds of campaign: what ``campaign run``, ``campaign show`` and ``campaign export`` ask of a spec's kind
(:class:`CampaignKind`), and what a kind that is one job adds (:class:`JobCampaignKind`).  A spec
(:mod:`service.campaign_spec`) names its kind; each kind's module has one instance (``KIND``), found through the
``bullscows.campaign_kinds`` entry points (:func:`service.campaign_specs.kinds`).
"""

from __future__ import annotations

import abc
import os
from collections.abc import Callable
from typing import Any, ClassVar

from service.campaign_files import CampaignError
from service.campaign_spec import SUBMITTER, CampaignSpec
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit


class CampaignKind(abc.ABC):
    """One kind of campaign, as ``campaign run``, ``campaign show`` and ``campaign export`` name it by its spec: its
    name, what it refuses before any work, and what its progress says.  Most kinds are one job each
    (:class:`JobCampaignKind`, driven by :func:`service.campaign_specs.run`); a steps campaign drives its steps
    itself (:class:`service.step_runs.StepsKind`).  Each kind's module has one (``KIND``), registered under the
    entry point group ``bullscows.campaign_kinds`` (:func:`service.campaign_specs.kinds`).

    Why: the runner is written once for every kind, so a new kind is one module and one entry, not a branch in
    each of the runner's steps."""

    name: ClassVar[str]

    def check(self, spec: CampaignSpec) -> None:  # noqa: B027 (a kind with nothing to refuse keeps it)
        """Refuse, before any database is touched, a progress file that is not this campaign's.

        :raises CampaignError: what is wrong, in the file's words."""

    @abc.abstractmethod
    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """What the progress file holds of the campaign, in a few figures; None when there is no file."""

    def status(self, jobs: JobStore, spec: CampaignSpec) -> dict[str, Any] | None:
        """Where the campaign stands, when the kind says it itself (a steps campaign: the step under way's job);
        None for a kind of one job, whose newest job :func:`service.campaign_specs.status` shows."""
        return None


class JobCampaignKind(CampaignKind):
    """A kind of campaign that is one job, as :func:`service.campaign_specs.run` drives it: how its job is asked
    from its progress file, how the file is written from the database, what the file says of it, and each unit's
    log line."""

    takes_in_earlier: ClassVar[bool] = False
    """Whether what the campaign's earlier jobs in the database did is written to its file before anything is asked
    (a kind whose job is asked from what its file holds); the others' :meth:`start` reads the database itself."""

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The summary of the campaign when its progress file holds its answer already (nothing to do), else None:
        a fresh clone's database knows nothing of it, and the work must not be done again."""
        return None

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        """What the command says of a progress file that finished the campaign (``done``: :meth:`finished`)."""
        return "finished this campaign already"

    def earlier_line(self, spec: CampaignSpec, before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
        """What the command says when earlier jobs' work was written to the file (:meth:`progress` before and
        after)."""
        return f"{spec.game.spec}: what earlier jobs in this database did written to {os.path.basename(spec.progress)}"

    @abc.abstractmethod
    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The campaign's jobs in the store, oldest first."""

    def submit(self, jobs: JobStore, spec: CampaignSpec, req: JobRequest,
               supersedes: Callable[[Job], bool] = lambda _old: True) -> tuple[Job, bool]:
        """(job, created): ``req`` asked for the campaign, and its earlier jobs still under way that ``supersedes``
        names cancelled for it (:meth:`service.store.jobs.JobStore.supersede`): a kind whose job is asked from its
        file has their work there already."""
        earlier = self.jobs_of(jobs, spec)
        job, created = jobs.submit(req, SUBMITTER)
        jobs.supersede([old for old in earlier if supersedes(old)], job)
        return job, created

    @abc.abstractmethod
    def start(self, jobs: JobStore, spec: CampaignSpec, units: list[str] | None = None) -> tuple[Job, bool, str]:
        """(job, created, what was taken in): the campaign's job, asked from what its progress file holds
        (``units``: a rollout's responses to build alone); with :attr:`takes_in_earlier`, the file is expected to
        hold what the earlier jobs did (:func:`service.campaign_specs.start` and ``run`` write it first), since
        a job still running of the same question is cancelled for the new one.

        :raises CampaignError: the progress file is unreadable, or another campaign's."""

    @abc.abstractmethod
    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Write what the database holds of the campaign (its jobs, ``job`` the newest) to its progress file, losing
        nothing the file holds; the document written.

        :raises CampaignError: the file is another campaign's, or (a kind whose file is written from one job) no
            job is given."""

    def check_keep(self, spec: CampaignSpec, file: str | None = None, registry: Any = None) -> None:
        """Refuse, before any work, to keep this campaign's result in a registry of games (``file``, ``registry``:
        another file, another registry than the package's): only a kind whose result a registry keeps (a lower
        bound) says otherwise.

        :raises CampaignError: this kind's result is kept by no registry, or not in that one."""
        raise CampaignError(f"only a bound campaign's result is kept in the atlas or the records; a {self.name} "
                            "campaign's is not (a rollout's or a polish's tree is judged by the command that runs it)")

    def keep(self, spec: CampaignSpec, job: Job | None, file: str | None = None, *, registry: Any = None,
             command: str | None = None, progress_as: str | None = None,
             jobs: JobStore | None = None) -> dict[str, Any]:
        """Keep what the campaign proved in the registry of games that lists its game (:meth:`check_keep` first);
        the record, whether it was kept, and the file.

        :raises CampaignError: as :meth:`check_keep`."""
        self.check_keep(spec, file, registry)
        raise CampaignError(f"a {self.name} campaign keeps nothing in a registry of games")

    @abc.abstractmethod
    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The log line of a unit done (``units``: its job's), None when it has nothing to say."""


class DrivenCampaignKind(CampaignKind):
    """A kind of campaign that drives its own work rather than being one job (a steps campaign: each step a
    campaign of its own kind, then judged), as ``campaign run`` runs it."""

    @abc.abstractmethod
    def drive(self, jobs: JobStore, spec: CampaignSpec, *, worker: bool = True, processes: int | None = None,
              export_every: float = 300.0, scheduler: str | None = None,
              log: Callable[[str], None] = lambda _: None) -> Any:
        """Do every part of the work not done yet; an outcome whose ``problem`` says why it stopped short (None
        when it did not).

        :raises CampaignError: before any work, what :meth:`check` refuses."""

    @abc.abstractmethod
    def keep(self, spec: CampaignSpec, file: str | None = None,
             log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
        """Keep the finished campaign's result in the package's registry (``file``: another file of its kind) when
        it beats the one recorded: the record, whether it was kept, and the file.

        :raises CampaignError: the work is not finished, or ``file`` is not a file of that kind."""

