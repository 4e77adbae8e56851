"""Polishes as campaigns: the middle-sized positions of a best-known tree searched as a ``polish`` job, one unit per
part of its first guess, each settled position kept in the database and in a progress file.

Why: a polish searches each middle-sized position of a best-known tree for up to its budget, one after another.
With a minute or more per position and a few hundred positions, it takes longer than a session.  As a job
(:func:`start_job`), whatever workers run it (the one the command starts, or many machines on one PostgreSQL), each
position is written to the ``polish_positions`` table the moment it is settled (proven optimal, improved with its
new subtree, out of time, or nothing kept: :mod:`service.store.polish_positions`), and a unit run again takes every
position settled before as it was.  :func:`export` writes them to the progress file, the committed form, from which
a fresh clone's run continues; once the job is done, the command that ships the tree replays the file's positions
into it (:func:`known`, no search) and judges it.

The file belongs to one tree and one set of parameters: it keeps the digest of the tree it started from (the
shipped tree's compact text) and the polish's parameters.  A run with another tree or other parameters is refused
while the file is unfinished (its work would not apply), and begins a new file once it is finished.  Finished, the
file keeps how each position was settled and how long it took, without the subtrees: the shipped tree holds them.
A position a sweep left out of time keeps what the sweep proved there (``sweep``), finished or not: the same
command run again on the same tree sweeps on from it.
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

import orjson

from service.campaign_files import CampaignError, ProgressFile
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec, jobs_asking
from service.store.files import update_json
from service.store.job_records import JobRequest, tree_digest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from service.store.polish_positions import PolishPositionStore
from solver.game import Game
from solver.polish import Settled, settled_from_json
from solver.tree import Tree, to_compact

FORMAT = "bullscows-polish-campaign"


FILE = ProgressFile("polish", FORMAT, "positions", "a polish's progress file", "its positions by key",
                    kept=lambda p: {key: v for key, v in p.items() if key != "tree"})
"""A polish's progress file: ``polish-5-10-0.json`` in the campaigns folder by default.  Closed once its tree was
judged (shipped or not), its positions' subtrees are dropped, the shipped tree holding them: the same command run
again on the same tree replays it without searching, but for the positions a sweep left cut, which it sweeps on
from their progress."""


def digest(tree: Tree) -> str:
    """The tree a polish starts from, as its progress names it (SHA-256 of its compact text)."""
    return tree_digest(to_compact(tree))


def identity(game: Game, tree: Tree, params: dict[str, Any]) -> str:
    """The polish's name in the database (:attr:`JobRequest.polish_id`): its game, tree and parameters."""
    return JobRequest.polish_of(game, to_compact(tree), params).polish_id


def _mine(game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Any]:
    return {"format": FORMAT, "game": game.spec, "tree": digest(tree), "params": params}


def _same(doc: dict[str, Any], mine: dict[str, Any]) -> bool:
    return all(doc.get(k) == v for k, v in mine.items())


def check(path: str, game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Any] | None:
    """The file's document when it is this polish's (None when there is none, or a finished one of another polish,
    which a new polish replaces), every position in it read back as the polish takes it.

    :raises CampaignError: the file is unreadable, an unfinished polish of another game, tree or parameters, or
        holds a position a polish cannot have written."""
    doc = _doc_of(path, game, tree, params)
    if doc is not None:
        for key, entry in doc["positions"].items():
            _settled(path, game, key, entry)
    return doc


def _doc_of(path: str, game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`check`'s document without reading its positions back (what the export, which writes the database's
    over them, and :func:`known`, which reads them once, need).

    :raises CampaignError: the file is unreadable, or an unfinished polish of another game, tree or parameters."""
    doc = FILE.read(path)
    if doc is None:
        return None
    if not _same(doc, _mine(game, tree, params)):
        if doc.get("finished"):
            return None
        raise CampaignError(f"{path} continues an unfinished polish {_other(doc, game, tree, params)}; give another "
                            "--progress file, or remove this one to start again")
    return doc


def _other(doc: dict[str, Any], game: Game, tree: Tree, params: dict[str, Any]) -> str:
    """How the file's polish differs from this one, in the options' words: "of 5,8,1, not 5,10,0", "of another
    tree", "with budget_s 3.0, not 5.0"."""
    if doc.get("game") != game.spec:
        return f"of {doc.get('game')}, not {game.spec}"
    if doc.get("tree") != digest(tree):
        return "of another tree (the shipped tree changed since it began)"
    theirs = doc.get("params") if isinstance(doc.get("params"), dict) else {}
    assert isinstance(theirs, dict)
    return "with " + ", ".join(f"{k} {json.dumps(theirs.get(k))}, not {json.dumps(params.get(k))}"
                               for k in sorted(set(params) | set(theirs)) if theirs.get(k) != params.get(k))


def _settled(path: str, game: Game, key: str, entry: Any) -> Settled:
    try:
        return settled_from_json(game, key, entry)
    except ValueError as exc:
        raise CampaignError(f"{path}: {exc}") from None


def known(path: str, game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Settled]:
    """Every position the progress file settled, as the polish takes it back (none when the file is another
    polish's, finished).

    :raises CampaignError: as :func:`check`."""
    doc = _doc_of(path, game, tree, params)
    return {} if doc is None else {k: _settled(path, game, k, e) for k, e in doc["positions"].items()}


def start_job(jobs: JobStore, game: Game, tree: Tree, params: dict[str, Any], path: str,
              submitter: str) -> tuple[Job, bool, str]:
    """(job, created, what was taken in): the polish's job, the progress file's positions taken into the database
    first (a position a unit settled since stays as the unit left it) and the file begun when there is none.  The
    job asks the positions settled so far to be taken as they are: a run after a finished job is a new job (whose
    units replay them, and sweep on from a cut sweep's progress), and a stopped run's job still running is
    cancelled for it.

    :raises CampaignError: as :func:`check`."""
    store = PolishPositionStore(jobs.db)
    text = to_compact(tree)
    doc = update_json(path, lambda found: None if found is not None else _begun(game, tree, params),
                      load=lambda p: check(p, game, tree, params))
    assert doc is not None
    pid = JobRequest.polish_of(game, text, params).polish_id
    store.put(pid, game.spec, doc["positions"], f"file:{os.path.basename(path)}", replace=False)
    settled = len(store.load(pid))
    req = JobRequest.polish_of(game, text, params, settled)
    job, created = jobs.submit(req, submitter)
    jobs.supersede(jobs_asking(jobs, game, lambda r: r.kind == "polish" and r.polish_id == pid, submitter), job)
    return job, created, f"{settled} position{'' if settled == 1 else 's'} settled before"


def export(jobs: JobStore, game: Game, tree: Tree, params: dict[str, Any], path: str) -> dict[str, Any]:
    """Every position the database holds of the polish written to its progress file (what the database has
    replaces what the file had: a unit settled it since, or swept on); the document written.

    :raises CampaignError: the file is an unfinished polish's of another game, tree or parameters."""
    settled = PolishPositionStore(jobs.db).load(identity(game, tree, params))

    def merged(doc: dict[str, Any] | None) -> dict[str, Any] | None:
        if doc is None:
            doc = _begun(game, tree, params)
        elif all(doc["positions"].get(k) == e for k, e in settled.items()):
            return None
        doc["positions"].update(settled)
        return doc

    written = update_json(path, merged, load=lambda p: _doc_of(p, game, tree, params))
    assert written is not None
    return written


def _begun(game: Game, tree: Tree, params: dict[str, Any]) -> dict[str, Any]:
    """A new progress file's document: the polish's identity, the day, no position yet."""
    return {**_mine(game, tree, params), "started": datetime.date.today().isoformat(), "positions": {}}


class PolishKind(JobCampaignKind):
    """A polish (kind ``polish``, given by ``records polish`` or ``atlas polish``, its tree the shipped one): a
    unit per part of the tree's first guess, each position settled kept in ``polish_positions`` and written to the
    progress file, replayed from it into the tree the command judges."""

    name = "polish"

    def check(self, spec: CampaignSpec) -> None:
        check(spec.progress, spec.game, spec.polish_tree, spec.plan)

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The same polish's jobs, whatever they took as settled."""
        pid = identity(spec.game, spec.polish_tree, spec.plan)
        return jobs_asking(jobs, spec.game, lambda r: r.kind == "polish" and r.polish_id == pid)

    def start(self, jobs: JobStore, spec: CampaignSpec, units: list[str] | None = None) -> tuple[Job, bool, str]:
        return start_job(jobs, spec.game, spec.polish_tree, spec.plan, spec.progress, SUBMITTER)

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Every job's positions: they are the polish's, whichever job settled them."""
        return export(jobs, spec.game, spec.polish_tree, spec.plan, spec.progress)

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        doc = check(spec.progress, spec.game, spec.polish_tree, spec.plan)
        return None if doc is None else {"file": spec.progress, "positions": len(doc["positions"]),
                                         "closed": "finished" in doc}

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The part the unit polished and what it did there."""
        game, counts = spec.game, orjson.loads(unit.output or "{}")
        where = "the whole tree" if unit.response is None else f"part {game.format_response(int(unit.response))}"
        resumed = int(counts.get("resumed", 0))
        tried, gained = int(counts.get("tried", 0)), int(counts.get("gained", 0))
        return (f"{game.spec}: {where} polished in {float(unit.seconds):.1f} s: "
                f"{tried} position{'' if tried == 1 else 's'}"
                + (f" ({resumed} settled before)" if resumed else "")
                + f", {counts.get('improved', 0)} improved ({gained} guess{'' if gained == 1 else 'es'} saved), "
                  f"{counts.get('optimal', 0)} proven optimal, {counts.get('cut', 0)} out of time")


KIND = PolishKind()
