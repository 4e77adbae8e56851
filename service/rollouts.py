"""Rollout campaigns: a rollout tree (:mod:`solver.rollout`) built as a job of units, one per response to the
first guess, its subtrees kept in a progress file from which the tree is assembled.

Why: a records tree takes a quarter of an hour to hours of one core, and a session, a machine or a process
can end before it does.  The rollout decides each position from its path alone, so the subtree below each
response to the first guess is a unit that any process can build alone, and the finished tree is those
subtrees put back under the first guess.  The units are a ``rollout`` job's (:func:`start_job`): whatever
workers run it (the one a command starts, or many machines on one PostgreSQL), each finished subtree is in the
database at once, and :func:`export` writes it to the progress file, the committed form: a fresh clone's run
builds only the subtrees the file lacks.  The file carries the plan, so a run with other parameters is refused
rather than mixed in.  When every subtree is there, :func:`tree_of` assembles the tree (checked move by move
against its candidates) for the command that judges it, which plays every secret through it before it claims
anything.  Running the units is :func:`service.campaign_specs.run`'s, as for every campaign.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Callable
from typing import Any

from service.campaign_files import CampaignError as CampaignError  # re-exported: importers name it here
from service.campaign_files import ProgressFile
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec, jobs_asking
from service.store.files import update_json
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver.game import Code, Game
from solver.rollout import RolloutPlan, assemble, branch_responses, first_guess
from solver.tree import Tree, from_compact

FORMAT = "bullscows-rollout-campaign"

Log = Callable[[str], None]


FILE = ProgressFile("rollout", FORMAT, "units", "a rollout campaign's progress file", "its units by response",
                    kept=lambda u: {"seconds": u["seconds"]},
                    finished=lambda doc, summary: {**summary, "seconds": round(seconds(doc), 1)})
"""A rollout campaign's progress file: ``rollout-5-10-0.json`` in the campaigns folder by default.  Closed once its
tree was assembled and judged, its units' subtrees are dropped (the shipped tree, or the record that it was not
better, is what is left to keep) and the judgment's summary is kept with the units' times, so that running the
same plan again does nothing."""


def read(path: str) -> dict[str, Any] | None:
    """The progress file's document, or None when there is none yet, each unit checked (its subtree's compact text
    and seconds).

    :raises CampaignError: the file is not a rollout campaign's progress.
    """
    doc = FILE.read(path)
    if doc is None:
        return None
    for name, unit in doc["units"].items():
        if (not isinstance(unit, dict) or not isinstance(unit.get("seconds"), (int, float))
                or not isinstance(unit.get("tree", ""), str)):
            raise CampaignError(f"{path}: unit {name} is not a unit (its subtree's compact text and seconds)")
    return doc


def read_of(game: Game, plan: RolloutPlan, path: str) -> dict[str, Any] | None:
    """The progress file's document when it is this game's and plan's campaign, None when there is none.

    :raises CampaignError: unreadable, or another campaign's."""
    doc = read(path)
    if doc is None:
        return None
    mine = plan.as_dict()
    if doc.get("game") != game.spec:
        other = f"of {doc.get('game')}, not {game.spec}"
    elif doc.get("plan") != mine:
        plan_of = doc.get("plan")
        theirs: dict[str, Any] = plan_of if isinstance(plan_of, dict) else {}
        other = "with " + ", ".join(f"{k} {json.dumps(theirs.get(k))}, not {json.dumps(v)}"
                                    for k, v in mine.items() if theirs.get(k) != v)
    else:
        return doc
    raise CampaignError(f"{path} continues another campaign ({other}); give another progress file, or remove this "
                        "one to start again")


def begin(game: Game, plan: RolloutPlan, first: Code, seconds: float) -> dict[str, Any]:
    """A new progress document of the campaign, opening with ``first`` (chosen in ``seconds``)."""
    return {"format": FORMAT, "game": game.spec, "plan": plan.as_dict(), "first_guess": game.format_code(first),
            "first_guess_seconds": round(seconds, 1), "started": datetime.date.today().isoformat(), "units": {}}


def missing(game: Game, doc: dict[str, Any]) -> list[int]:
    """The responses whose units are not finished yet, biggest first."""
    first = game.parse_code(doc["first_guess"])
    return [r for r in branch_responses(game, first) if game.format_response(r) not in doc["units"]]


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


def start_job(jobs: JobStore, game: Game, plan: RolloutPlan, path: str, submitter: str,
              units: list[str] | None = None) -> tuple[Job, bool, str]:
    """(job, created, what was taken in): the campaign's job, building the subtrees the progress file lacks (only
    those of the responses ``units`` names, when given).  The campaign's earlier jobs first write their finished
    subtrees to the file, and one still running that asks other subtrees is cancelled: the new one builds what
    it had left, and nothing is built twice.

    With ``units`` the first guess is needed to name them: a file not begun yet is begun here with it.

    :raises CampaignError: the file is unreadable or another campaign's; a unit named is not one."""
    earlier = export_all(jobs, game, plan, path, submitter)  # what they built after the file was last written
    doc = read_of(game, plan, path)
    if doc is not None:
        for name, unit in doc["units"].items():  # a broken subtree is said now, not after the others are built
            if "tree" not in unit:
                continue
            try:
                from_compact(unit["tree"])
            except ValueError as exc:
                raise CampaignError(f"{path}: the subtree of unit {name} is broken ({exc}): remove that unit "
                                    "from the file to build it again") from None
    if doc is not None and "finished" in doc:
        raise CampaignError(f"{path} is a finished campaign (total {doc['finished'].get('total')}): its subtrees "
                            "went into the tree it judged; remove it to build the tree again")
    if units is not None and doc is None:
        started = time.perf_counter()
        first = first_guess(game, plan)
        seconds = time.perf_counter() - started
        doc = update_json(path, lambda found: None if found is not None else begin(game, plan, first, seconds),
                          load=lambda p: read_of(game, plan, p))
    skip = set() if doc is None else {game.parse_response(r) for r in doc["units"]}
    if units is not None and doc is not None:
        first = game.parse_code(doc["first_guess"])
        asked = named_responses(game, first, units, "--units", "unit")
        skip |= set(branch_responses(game, first)) - asked
    req = JobRequest.rollout_of(game, plan.as_dict(), tuple(sorted(skip)))
    job, created = jobs.submit(req, submitter)
    jobs.supersede(earlier, job)  # a stopped run's job that asks other subtrees: the new one builds what it had left
    return job, created, f"{0 if doc is None else len(doc['units'])} subtrees built before"


def plan_jobs(jobs: JobStore, game: Game, plan: RolloutPlan, submitter: str) -> list[Job]:
    """The campaign's jobs in the store (same game and plan, whatever they skipped), oldest first."""
    asked = JobRequest.rollout_of(game, plan.as_dict()).rollout
    return jobs_asking(jobs, game, lambda r: r.kind == "rollout" and r.rollout == asked, submitter)


def export_all(jobs: JobStore, game: Game, plan: RolloutPlan, path: str, submitter: str) -> list[Job]:
    """Every job of the campaign (:func:`plan_jobs`) exported to the progress file: a later job skipped what an
    earlier one built, so the newest alone may hold none of it.  Returns those jobs."""
    every = plan_jobs(jobs, game, plan, submitter)
    for job in every:
        export(jobs, game, plan, path, job)
    return every


def export(jobs: JobStore, game: Game, plan: RolloutPlan, path: str, job: Job) -> dict[str, Any]:
    """The job's finished subtrees added to the progress file (begun with the job's first guess when there is none
    yet); the document written.  A subtree the file has already stays as it is.

    :raises CampaignError: the file is another campaign's, or opens with another first guess than the job."""
    guess = None if job.plan is None else json.loads(job.plan)["guesses"][0]
    done = [u for u in jobs.units(job.id) if u.status == "done" and u.output]
    def added(doc: dict[str, Any] | None) -> dict[str, Any] | None:
        if doc is None:
            if guess is None:
                return None  # nothing to write yet: the job has no first guess before it is planned
            doc = begin(game, plan, int(guess["guess"]), float(guess.get("seconds", 0.0)))
        elif guess is not None and doc["first_guess"] != game.format_code(int(guess["guess"])):
            raise CampaignError(f"{path} plays {doc['first_guess']} first, the job "
                                f"{game.format_code(int(guess['guess']))}: they are not one campaign's")
        new = [u for u in done if game.format_response(int(u.response or 0)) not in doc["units"]]
        if not new and os.path.exists(path):
            return None
        for u in new:
            doc["units"][game.format_response(int(u.response or 0))] = {"tree": u.output,
                                                                       "seconds": round(float(u.seconds), 1)}
        return doc

    return update_json(path, added, load=lambda p: read_of(game, plan, p)) or {"units": {}}


def units_left(game: Game, doc: dict[str, Any]) -> int | None:
    """How many units the progress document still lacks; None before its first guess is chosen (how many there
    are is not known yet)."""
    return None if "first_guess" not in doc else len(missing(game, doc))


def tree_of(game: Game, plan: RolloutPlan, doc: dict[str, Any]) -> Tree | None:
    """The campaign's tree, its subtrees put back under its first guess (each checked move by move against its
    candidates), once the file holds every one; None while some are missing (or its first guess is not chosen)."""
    if units_left(game, doc) != 0:
        return None
    branches = {game.parse_response(k): from_compact(u["tree"]) for k, u in doc["units"].items()}
    return assemble(game, plan, game.parse_code(doc["first_guess"]), branches)


def progress(game: Game, plan: RolloutPlan, path: str) -> dict[str, Any] | None:
    """What the campaign's progress file holds (``campaign show``), None when there is none: its first guess, its
    subtrees, those missing, and once none is, the whole tree's total of guesses (each secret played through it, the
    first guess included); a judged file's outcome.

    :raises CampaignError: unreadable, or another campaign's."""
    doc = read_of(game, plan, path)
    if doc is None:
        return None
    if "finished" in doc:  # judged: its subtrees went into the tree it judged
        return {"file": path, "first_guess": doc["first_guess"], "closed": True, **doc["finished"]}
    lacking = missing(game, doc)
    trees = [u.get("tree") for u in doc["units"].values()]
    total = None
    if not lacking and all(trees):
        total = 1 + sum(from_compact(t).stats().total for t in trees if t)  # the first guess's own secret too
    return {"file": path, "first_guess": doc["first_guess"], "subtrees": len(doc["units"]),
            "missing": len(lacking), "total": total, "closed": False}


def unit_done(game: Game, plan: RolloutPlan, response: int, text: str, seconds: float) -> str:
    """The log line of a finished unit, with what its subtree costs: a campaign stopped early (``--max-units``,
    or a trial of ``--play``) is judged by its units before the whole tree exists."""
    stats = from_compact(text).stats()
    over = "" if plan.max_guesses is None else f", {stats.beyond(plan.max_guesses)} beyond {plan.max_guesses}"
    return (f"{game.spec}: unit {game.format_response(response)} done in {seconds:.1f} s: {stats.secrets} secrets, "
            f"{stats.total} guesses (the first included), worst case {stats.worst_case}{over}")


def finished(path: str, spec: str, plan: RolloutPlan) -> dict[str, Any] | None:
    """What a finished campaign of this game and plan found (``finish``'s summary), or None."""
    doc = read(path)
    if doc is None or doc.get("game") != spec or doc.get("plan") != plan.as_dict():
        return None
    done = doc.get("finished")
    return dict(done) if isinstance(done, dict) else None


def seconds(doc: dict[str, Any]) -> float:
    """The campaign's time: its first guess and every unit, as each process measured it (summed)."""
    return float(doc.get("first_guess_seconds", 0.0)) + sum(float(u["seconds"]) for u in doc["units"].values())


class RolloutKind(JobCampaignKind):
    """A rollout campaign (kind ``rollout``): a unit per subtree below the first guess, each subtree kept in its
    unit's row and added to the progress file where the file has none.  Its tree is assembled, judged and shipped
    from the finished file by the command that runs it (``records rollout``, ``atlas hybrid --rollout-width``)."""

    name = "rollout"

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The outcome a judged file keeps (its subtrees went into the tree it judged): nothing is built again."""
        return finished(spec.progress, spec.game.spec, spec.rollout_plan)

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        kept = "shipped" if done.get("kept") else "not shipped (the tree it was judged against was as good)"
        return (f"finished this rollout already: T <= {done.get('total')}, worst case {done.get('worst_case')}, "
                f"{kept}; give another progress file to build it again")

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        return plan_jobs(jobs, spec.game, spec.rollout_plan, SUBMITTER)

    def start(self, jobs: JobStore, spec: CampaignSpec, units: list[str] | None = None) -> tuple[Job, bool, str]:
        return start_job(jobs, spec.game, spec.rollout_plan, spec.progress, SUBMITTER, units)

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Every job of the campaign written: a later one skipped what an earlier one built."""
        export_all(jobs, spec.game, spec.rollout_plan, spec.progress, SUBMITTER)
        return read_of(spec.game, spec.rollout_plan, spec.progress) or {"units": {}}

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        return progress(spec.game, spec.rollout_plan, spec.progress)

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        if not unit.output:
            return None
        return unit_done(spec.game, spec.rollout_plan, int(unit.response or 0), unit.output, float(unit.seconds))


KIND = RolloutKind()
