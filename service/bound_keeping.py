"""The lower-bound campaign as a kind that keeps its bound: where a bound campaign's result goes once proven (the
registry of games that lists its game, the atlas or the records), and the record it is kept with.

Why apart from :mod:`service.bound_campaigns`: keeping a bound writes the registries (:mod:`service.atlas_keeping`,
:mod:`service.records_keeping`), which themselves settle parts with the bound campaigns' code; the kind that keeps
stands above both, and is the one the ``bullscows.campaign_kinds`` entry point names.
"""

from __future__ import annotations

import json
import os
from typing import Any

from service.atlas_keeping import ATLAS_KEEPER
from service.bound_campaigns import BoundKind, CampaignError, so_far
from service.campaign_spec import CampaignSpec
from service.keeping import KeptRegistry, record_of
from service.records_keeping import RECORDS_KEEPER
from service.store.jobs import JobStore
from service.store.models import Job


class KeptBoundKind(BoundKind):
    """A bound campaign whose result is kept in the registry of games that lists its game (``campaign run --keep``,
    ``atlas bounds --campaign``, ``records bound --campaign``)."""

    def check_keep(self, spec: CampaignSpec, file: str | None = None, registry: Any = None) -> None:
        """A bound nothing could keep, refused before any work (:meth:`keeper`)."""
        self.keeper(spec, file, registry)

    def keeper(self, spec: CampaignSpec, file: str | None = None,
               registry: KeptRegistry | None = None) -> tuple[KeptRegistry, str]:
        """The registry that keeps the bound campaign's result, and its file (``file``, or the package's): asked
        before the campaign runs, so that a bound nothing could keep is refused before any work.

        :raises CampaignError: a game neither registry lists, or one whose total is proven exactly."""
        named = registry is not None  # a command of the registry's group: its file may be new (a records file)
        registry = registry or next((r for r in (ATLAS_KEEPER, RECORDS_KEEPER) if spec.game.spec in r.shipped()), None)
        if registry is None:
            raise CampaignError(f"{spec.game.spec} is neither an atlas game nor a record game: no file keeps its bound")
        where = file or registry.file
        kind = "the atlas" if registry is ATLAS_KEEPER else "the records"
        if not named and not os.path.isfile(where):
            raise CampaignError(f"{where} is not there: give a file of {kind}, which keeps {spec.game.spec}'s bound")
        try:
            entries = registry.load(where)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CampaignError(f"{where} is not a file of {kind}, which keeps {spec.game.spec}'s bound: "
                                f"{exc!r}") from None
        if spec.game.spec not in entries:
            raise CampaignError(f"{where} has no entry for {spec.game.spec}: give a file of {kind}, which keeps its "
                                "bound")
        try:
            registry.refuse_solved(spec.game.spec, where)
        except ValueError as exc:
            raise CampaignError(str(exc)) from None
        return registry, where

    def keep(self, spec: CampaignSpec, job: Job | None, file: str | None = None, *, registry: Any = None,
             command: str | None = None, progress_as: str | None = None,
             jobs: JobStore | None = None) -> dict[str, Any]:
        """Keep what the bound campaign proved in the registry of games that lists its game (the atlas, or the
        records, or ``registry``; ``file``: another file of that kind than the package's): the job's bound once it is
        done, else what the progress file's parts prove so far (marked unfinished; a campaign of named parts is never
        done otherwise), kept only when it beats the bound recorded
        (:meth:`service.keeping.KeptRegistry.keep_lower_bound`).  The record's command is ``command``, by default
        the spec's (``bullscows campaign run SPEC``), and its progress file is named ``progress_as``, by default
        relative to the spec's parent folder.  An unfinished record counts the units ``jobs`` has done of ``job``
        (their sets and time); with no job, a progress file that finished this plan is kept as finished.  Returns the
        record, whether it was kept, and the file.

        :raises CampaignError: a game neither registry lists, one whose total is proven exactly, or a progress file
            with nothing in it yet."""
        registry, where = self.keeper(spec, file, registry)
        game = spec.game
        finished = job is not None and job.status == "done" and bool(job.result) and not spec.parts
        done_before = self.finished(spec) if job is None else None
        if finished and job is not None and job.result:
            result = json.loads(job.result)
            summary = {"value": result["value"], "work": result["work"], "seconds": result["unit_seconds"],
                       "units": result["units"]}
        elif done_before is not None:
            finished, summary = True, done_before
        else:
            summary = so_far(game, spec.progress) or {}
            if not summary:
                raise CampaignError(f"{spec.progress}: nothing proven yet to keep")
            if job is not None and jobs is not None:  # the job's units so far (a part's is no first guess's)
                done = [u for u in jobs.units(job.id) if u.status == "done"]
                summary.update(units=len(done), work=sum(int(u.nodes) for u in done),
                               seconds=round(sum(float(u.seconds) for u in done), 1))
        repo = os.path.dirname(os.path.dirname(spec.path))
        command = command or f"bullscows campaign run {os.path.relpath(spec.path, repo)}"
        named = progress_as or os.path.relpath(spec.progress, repo)
        record = registry.campaign_bound(record_of(game, spec.depth, spec.target, named, command, summary, finished))
        kept = registry.keep_lower_bound(game.spec, record, path=where)
        return {"record": record, "kept": kept, "file": where}


KIND = KeptBoundKind()
