"""The atlas's games computed as a campaign (``bullscows atlas run``): an ``atlas`` job (one unit per game, smallest
first, :func:`service.jobs.campaign_plans.atlas_plan`), run by the workers, each game's entry written to the atlas
file as soon as its unit is done.

The atlas file is the campaign's progress file: a game whose every number is exact is not computed again, and the
others start from the entries the file holds (their bounds, their hybrid tree, their refined lower bound), as
:func:`service.atlas.compute` always did.

Why a job rather than a pool of the command's own processes: one way to run long work.  The games are computed by
the workers the service already has (``--processes``, a Dask cluster with ``--scheduler``, or workers of other
machines on one PostgreSQL), a worker killed in a game loses that game only, and the command can stop and go on.
"""

from __future__ import annotations

from typing import Any

import orjson

from service import atlas
from service.atlas_keeping import ATLAS_KEEPER
from service.campaign_files import CampaignError
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver.atlas import NAMES, atlas_games
from solver.game import Game


def _games(spec: CampaignSpec) -> list[str]:
    return [str(g) for g in spec.plan["games"]]


def todo(spec: CampaignSpec) -> list[str]:
    """The spec's games whose atlas entry is not finished (every number exact)."""
    entries = atlas.load(spec.progress)
    return [g for g in _games(spec) if not atlas.finished(entries.get(g))]


class AtlasKind(JobCampaignKind):
    """The atlas's games computed (kind ``atlas``, ``atlas run``): a unit per game the atlas file has not finished,
    each entry written to the file as its unit ends."""

    name = "atlas"
    takes_in_earlier = True

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The atlas jobs of some of the spec's games (those it had not finished when asked) with its budget, oldest
        first."""
        games, budget = set(_games(spec)), float(spec.plan["budget_s"])
        found = []
        for job in jobs.submitted(SUBMITTER, spec.game.spec):
            req = JobRequest.from_json(job.request)
            doc = req.atlas_doc if req.kind == "atlas" else None
            if doc is not None and set(doc["games"]) <= games and float(doc["budget_s"]) == budget:
                found.append(job)
        return found

    def check(self, spec: CampaignSpec) -> None:
        """An atlas file that cannot be read, or a game outside the atlas, is refused."""
        try:
            atlas.load(spec.progress)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CampaignError(f"{spec.progress} is not an atlas file ({exc!r})") from None
        known = {g.spec for g in atlas_games()}
        outside = [g for g in _games(spec) if g not in known]
        if outside:
            raise CampaignError(f"{', '.join(outside)}: not in the atlas (`bullscows atlas show` lists its games)")

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """A summary when every game of the spec is finished in the atlas file, else None."""
        return None if todo(spec) else {"games": len(_games(spec))}

    def start(self, jobs: JobStore, spec: CampaignSpec,
              units: list[str] | None = None) -> tuple[Job, bool, str]:
        """(job, created, what was taken in): the job computing the games the atlas file has not finished, from the
        entries it holds; an earlier job of the same games still running is cancelled for it."""
        entries = atlas.load(spec.progress)
        left = todo(spec)
        games = sorted((Game.from_spec(g) for g in left), key=lambda g: (g.size, g.spec))
        doc = {"games": [g.spec for g in games], "budget_s": float(spec.plan["budget_s"]),
               "known": {g.spec: entries.get(g.spec) for g in games}}
        job, created = self.submit(jobs, spec, JobRequest.atlas_of(spec.game, doc))  # earlier jobs' work: in the file
        return job, created, (f"{len(left)} game{'' if len(left) == 1 else 's'} to compute, budget "
                              f"{float(spec.plan['budget_s']):g} s per search")

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Write the entries the spec's jobs computed to the atlas file (a later job's over an earlier one's; never
        over an entry the file holds finished); the entries."""
        computed = [orjson.loads(u.output) for each in self.jobs_of(jobs, spec) for u in jobs.units(each.id)
                    if u.status == "done" and u.output]
        written: dict[str, dict[str, Any]] = {}

        def taken_in(entries: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
            assert entries is not None
            written.update(entries)
            changed = False
            for entry in computed:
                if not atlas.finished(entries.get(entry["game"])) and entries.get(entry["game"]) != entry:
                    entries[entry["game"]] = entry
                    changed = True
            written.update(entries)
            return entries if changed else None

        ATLAS_KEEPER.rewrite(taken_in, spec.progress)
        return written

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """How many of the spec's games the atlas file has finished."""
        left = todo(spec)
        return {"file": spec.progress, "games": len(_games(spec)), "finished": len(_games(spec)) - len(left)}

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        return f"has every one of these {done.get('games')} games finished already"

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The log line of a finished atlas unit: the game, its size, time and numbers."""
        entry = orjson.loads(unit.output or "{}")
        numbers = ", ".join(f"{name} {atlas.shown(entry['values'][name])}" for name in NAMES)
        return f"{entry['game']} ({entry['codes']} codes, {entry['seconds']:.1f} s): {numbers}"


KIND = AtlasKind()
