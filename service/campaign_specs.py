"""Campaigns described by a small spec file, run as jobs, and exported to the repository's progress files.

A spec (``campaigns/bounds-6-7-0.campaign.json``) names a kind of long work and its parameters::

    {"format": "bullscows-campaign", "version": 1, "kind": "bound",
     "game": "6,7,0", "depth": 4, "target": null, "progress": "bounds-6-7-0.json"}

Why: long work must outlive a session and a machine.  A spec's campaign is one job (:class:`JobRequest`,
kind ``bound``) in the job store, so the workers that run every other job run it (one, or many machines on one
PostgreSQL), each unit a lease, every proof in the database as soon as it is made (``bound_parts``, the unit
rows); no file claims and no pid leases.  The progress file named by the spec is the committed form: it is
imported before the job is submitted (so a fresh clone continues from what was committed) and written from the
database as the job goes and when it ends (:func:`export`), in the format every reader of the lower-bound
campaigns' files already reads (:mod:`service.bound_files`).

Kinds: ``bound`` (a lower bound of an atlas or record game's optimal total).  The others the issue list names
(rollouts, polishes, sweeps) still run as their own commands.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from dataclasses import dataclass
from typing import Any

from service.bound_files import (
    ledger_bounds,
    ledger_seconds,
    ledger_thirds,
    merge,
    read,
    same_game,
    start,
)
from service.campaign_files import CampaignError
from service.filelock import exclusive, write_json
from service.store.bound_parts import BoundPartStore, PartBounds
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job
from solver.errors import SolverError
from solver.game import Game
from solver.lowerbound import LEAVES

SPEC_FORMAT = "bullscows-campaign"
SPEC_VERSION = 1
KINDS = ("bound",)
MAX_DEPTH = 12
"""The deepest refinement a spec may ask (``atlas bounds --depth`` has the same limit)."""
SUBMITTER = "campaign"
FINAL = ("done", "failed", "cancelled")


@dataclass(frozen=True)
class CampaignSpec:
    """A parsed spec file: what to run, and where its progress file is (absolute)."""

    path: str
    kind: str
    game: Game
    depth: int
    target: int | None
    progress: str

    def request(self) -> JobRequest:
        """The job that runs the campaign (equal specs give the same job: the store reuses it)."""
        return JobRequest.bound(self.game, self.depth, self.target)

    def to_json(self) -> dict[str, Any]:
        return {"format": SPEC_FORMAT, "version": SPEC_VERSION, "kind": self.kind, "game": self.game.spec,
                "depth": self.depth, "target": self.target,
                "progress": os.path.relpath(self.progress, os.path.dirname(os.path.abspath(self.path)))}


def load_spec(path: str) -> CampaignSpec:
    """The spec in ``path``.

    :raises CampaignError: no such file, not JSON, another format or version, an unknown kind, a game that is
        not one, a depth or target out of range.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise CampaignError(f"{path} cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CampaignError(f"{path} is not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != SPEC_FORMAT:
        raise CampaignError(f"{path}: not a campaign spec (its \"format\" must be {SPEC_FORMAT!r})")
    if doc.get("version") != SPEC_VERSION:
        raise CampaignError(f"{path}: spec version {doc.get('version')!r}; this version reads {SPEC_VERSION}")
    kind = doc.get("kind")
    if kind not in KINDS:
        raise CampaignError(f"{path}: kind {kind!r}; the kinds are {', '.join(KINDS)}")
    try:
        game = Game.from_spec(str(doc.get("game")))
    except SolverError as exc:
        raise CampaignError(f"{path}: {exc}") from None
    depth, target = doc.get("depth"), doc.get("target")
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= MAX_DEPTH:
        raise CampaignError(f"{path}: depth {depth!r}; give the plies to refine, 1 to {MAX_DEPTH}")
    if target is not None and (not isinstance(target, int) or isinstance(target, bool) or target < game.size):
        raise CampaignError(f"{path}: target {target!r}; give a total of at least {game.size} (every secret "
                            "needs a guess), or null for the full bound")
    progress = doc.get("progress") or f"bounds-{game.spec.replace(',', '-')}.json"
    if not isinstance(progress, str):
        raise CampaignError(f"{path}: progress {progress!r}; give a file name")
    progress = os.path.join(os.path.dirname(os.path.abspath(path)), progress)
    return CampaignSpec(os.path.abspath(path), kind, game, depth, target, progress)


def import_progress(store: BoundPartStore, spec: CampaignSpec) -> int:
    """Take the spec's progress file's part bounds into the database (none falls; a bound of a file whose sets
    were valued another way keeps its value at no known depth); returns how many were sent, 0 with no file.

    :raises CampaignError: the file is unreadable, or another game's."""
    doc = read(spec.progress)
    if doc is None:
        return 0
    same_game(spec.game, doc, spec.progress)
    known = PartBounds(ledger_bounds(spec.game, doc), ledger_seconds(spec.game, doc), ledger_thirds(spec.game, doc))
    source = f"file:{os.path.basename(spec.progress)}"
    return store.raise_bounds(spec.game.spec, known, str(doc.get("leaves") or "by size"), source)


def submit(jobs: JobStore, spec: CampaignSpec) -> tuple[Job, bool]:
    """The spec's job: the one already asking the same (running, or done: then nothing is computed again), or a
    new one."""
    return jobs.submit(spec.request(), SUBMITTER)


def export(jobs: JobStore, store: BoundPartStore, spec: CampaignSpec, job: Job | None) -> dict[str, Any]:
    """Write what the database proves of the spec's game to its progress file: every part's bound (raised, never
    lowered: the file's own sections, those of ``atlas settle`` included, stay), each finished unit's bound under
    the plan, and the campaign's summary once the job is done (``finished``, which the atlas's and the records'
    readers take for the bound proven).  Returns the document written."""
    game = spec.game
    known = store.load(game.spec, LEAVES)
    units = [] if job is None else [u for u in jobs.units(job.id) if u.status == "done" and u.value is not None]
    result = None if job is None or job.status != "done" or not job.result else json.loads(job.result)
    doc = start(game, spec.depth, spec.target, spec.progress)  # refuses another game's file
    with exclusive(spec.progress):
        doc = read(spec.progress) or doc
        below: dict[str, dict[tuple[int, ...], tuple[int, int]]] = {
            "seconds": {tuple(k): v for k, v in known.seconds.items()},
            "thirds": {tuple(k): v for k, v in known.thirds.items()}}
        merge(game, doc, known.parts, below)
        for u in units:
            guess = game.format_code(int(u.g1 or 0))
            old = doc["units"].get(guess)
            if old is None or int(u.value or 0) > int(old["bound"]):
                doc["units"][guess] = {"bound": int(u.value or 0), "work": int(u.nodes),
                                       "seconds": round(float(u.seconds), 1)}
        if result is not None:
            doc["finished"] = {"value": int(result["value"]), "depth": spec.depth,
                               **({} if spec.target is None else {"target": spec.target}),
                               "work": int(result["work"]), "seconds": float(result["unit_seconds"]),
                               "units": int(result["units"]), "date": datetime.date.today().isoformat(),
                               "job": job.id if job is not None else None}
        write_json(spec.progress, doc)
    return doc


def follow(jobs: JobStore, store: BoundPartStore, spec: CampaignSpec, job: Job, *, export_every: float,
           poll: float = 2.0) -> Job:
    """Wait for the spec's job to end (whatever workers run it), writing its progress file every
    ``export_every`` seconds; the job as it ended."""
    last = time.monotonic()
    while job.status not in FINAL:
        time.sleep(poll)
        job = jobs.get(job.id) or job
        if time.monotonic() - last >= export_every:
            export(jobs, store, spec, job)
            last = time.monotonic()
    return job


def status(jobs: JobStore, spec: CampaignSpec) -> dict[str, Any]:
    """Where the spec's campaign stands: its job (None before the first run), and that job's view."""
    from service.jobs import manage

    job = jobs.find(spec.request())
    return {"spec": spec.to_json(), "job": None if job is None else manage.view(jobs, job)}
