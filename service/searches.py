"""A position's exact search from nothing, guess by guess, as a campaign (``bullscows solve --checkpoint FILE``): a
``search`` job (:func:`service.jobs.campaign_plans.search_plan`: one unit, or one per share of the position's
guesses with ``--shares``) whose units keep how far they have come in the database, and ``FILE`` its progress file,
written from the job as it goes and holding its answer once done.

The file keeps the question it answers (game, history, options) with the whole search's progress (``search``,
``seconds``) and each share's (``shares``: ``{"1/2": {"search", "seconds"}, ...}``), and once the job is done its
answer (``result``, with the keys of ``solve --json``): the same command run again continues from it (on any
machine, from a fresh clone's database too), and answers at once from a finished file.

Why: an exact search of a big position (a five-digit game's third guess, say) takes hours, longer than a session
or a machine may last; the shipped table keeps only what a search finishes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import orjson

from service.campaign_files import SEARCH_KEY, CampaignError, read_json, share_key
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec
from service.store.files import update_json
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver.game import Game, Turn
from solver.question import SolveOptions
from solver.search import RootProgress

QUESTION_OPTIONS = ("criterion", "max_guesses", "depth_count", "mde", "from_set_only", "upper_bound")


def question(game: Game, history: list[Turn], options: SolveOptions) -> dict[str, Any]:
    """What a search's progress file answers: the position and the options of its search."""
    return {"game": game.spec, "history": [game.format_turn(t) for t in history],
            "options": {k: getattr(options, k) for k in QUESTION_OPTIONS}}


def _asked(spec: CampaignSpec) -> tuple[list[Turn], SolveOptions]:
    """The spec's position and options."""
    history = [spec.game.parse_turn(t) for t in spec.plan["history"]]
    return history, SolveOptions(**spec.plan["options"])


def read(spec: CampaignSpec) -> dict[str, Any] | None:
    """The spec's progress file, None when there is none.

    :raises CampaignError: it is not a search's progress, or one of another question (it is left as it is)."""
    path = spec.progress
    if not os.path.exists(path):
        return None
    try:
        doc = read_json(path)
        if not isinstance(doc, dict):
            raise CampaignError("not a JSON object")
        lacking = [k for k in ("game", "history", "options") if k not in doc]
        if lacking:  # a file of the question alone is a search nothing was kept of yet: it starts from nothing
            raise CampaignError(f"it has no {', '.join(map(repr, lacking))}")
        for kept in [doc] * ("search" in doc) + list(dict(doc.get("shares") or {}).values()):
            RootProgress.from_json(kept["search"])
    except (CampaignError, ValueError, TypeError, KeyError, AttributeError) as exc:
        reason = str(exc).removeprefix(f"{path} ")
        raise CampaignError(f"{path} is not a search's progress ({reason}): give another file, or remove it") from None
    mine = question(spec.game, *_asked(spec))
    if {k: doc.get(k) for k in mine} != mine:
        raise CampaignError(f"{path} keeps the progress of another search ({doc.get('game')}, "
                            f"{', '.join(doc.get('history') or []) or 'no history'}, {doc.get('options')}): give "
                            "another file, or remove it")
    return doc


def _resume_of(doc: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The progress a file keeps, by share key."""
    if doc is None:
        return {}
    out = {SEARCH_KEY: {"search": doc["search"], "seconds": doc.get("seconds", 0.0)}} if "search" in doc else {}
    for share, kept in dict(doc.get("shares") or {}).items():
        out[f"{SEARCH_KEY} share {share}"] = dict(kept)
    return out


def shares_into(doc: dict[str, Any], jobs: JobStore, found: list[Job], shares_of: Callable[[JobRequest], int],
                state_of: Callable[[JobUnit], dict[str, Any] | None]) -> dict[str, Any]:
    """``doc``, a shared campaign's progress file (a search's, a scan's), with what the units of its jobs ``found``
    (oldest first) kept: each unit's ``state_of`` (None: nothing kept yet) at the top of the file when its job is
    of one share (``shares_of`` its request), else under ``shares`` by its share ("2/3"), a later job's over an
    earlier one's, which it went on from; and the answer of a job done as its ``result``."""
    for job in found:
        shares = shares_of(JobRequest.from_json(job.request))
        for u in jobs.units(job.id):
            state = state_of(u)
            if state is None:
                continue
            if shares == 1:
                doc.update(state)
            else:
                doc.setdefault("shares", {})[f"{int(u.g2 or 0) + 1}/{shares}"] = state
        if job.status == "done" and job.result:
            doc["result"] = orjson.loads(job.result)
    return doc


class SearchKind(JobCampaignKind):
    """A position's search from nothing (kind ``search``, ``solve --checkpoint``): one unit or one per share of its
    guesses, its progress file written from the units' kept progress and holding the answer once done."""

    name = "search"
    takes_in_earlier = True

    def check(self, spec: CampaignSpec) -> None:
        """What a search campaign refuses before it touches any database (:func:`read`'s refusals).

        :raises CampaignError: the progress file is not a search's, or another's."""
        read(spec)

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The search jobs of the spec's question, oldest first (whatever their shares)."""
        history, options = _asked(spec)
        mine = JobRequest.of(spec.game, history, options)
        found = []
        for job in jobs.submitted(SUBMITTER, spec.game.spec):
            req = JobRequest.from_json(job.request)
            if (req.kind == "search" and req.history == mine.history and req.options() == mine.options()
                    and req.search_doc.get("upper_bound") == options.upper_bound):
                found.append(job)
        return found

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The answer a finished progress file holds, None when it holds none."""
        doc = read(spec)
        return None if doc is None or not isinstance(doc.get("result"), dict) else dict(doc["result"])

    def start(self, jobs: JobStore, spec: CampaignSpec,
              units: list[str] | None = None) -> tuple[Job, bool, str]:
        """(job, created, what was taken in): the search's job, asked once the earlier jobs' progress is in the file,
        each share going on from what the file keeps of it (or of the whole search).  An earlier job of the same
        question still running is cancelled for it (its progress is in the file by then)."""
        history, options = _asked(spec)
        resume = _resume_of(read(spec))
        req = JobRequest.search_of(spec.game, history, options, int(spec.plan["shares"]), resume)
        job, created = self.submit(jobs, spec, req)  # earlier jobs' work is in the file: the runner took it in
        went_on = ", ".join(f"{k} from guess {v['search']['done']} of {v['search']['guesses']}"
                            for k, v in resume.items())
        return job, created, f"going on: {went_on}" if went_on else "from nothing"

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Write what the search's jobs hold to its progress file: each unit's progress (a later job's over an earlier
        one's, which it went on from), and the answer of a job done; the document written."""
        def state_of(u: JobUnit) -> dict[str, Any] | None:
            kept = orjson.loads(u.output or "{}")
            if "search" not in kept:  # nothing kept yet, or a position searched in one call
                return None
            return {"search": kept["search"], "seconds": kept.get("seconds", 0.0)}

        written = update_json(spec.progress, lambda doc: shares_into(
            doc or question(spec.game, *_asked(spec)), jobs, self.jobs_of(jobs, spec),
            lambda req: int(req.search_doc["shares"]), state_of), load=lambda _path: read(spec))
        assert written is not None
        return written

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """What the progress file holds: the searches' progress and the answer once done."""
        doc = read(spec)
        if doc is None:
            return None
        return {"file": spec.progress, "searches": {k: {"done": v["search"]["done"], "of": v["search"]["guesses"]}
                                                    for k, v in _resume_of(doc).items()},
                "finished": "result" in doc}

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        return f"holds this search's answer already: {done.get('value')}"

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The log line of a finished search unit: its share, its value and guess, and where it went on from."""
        game, u, shares = spec.game, unit, int(spec.plan["shares"])
        out = orjson.loads(u.output or "{}")
        key = share_key(SEARCH_KEY, (int(u.g2 or 0), shares))
        found = (f"{out['value']}, guess {out.get('guess')}" if out.get("value") is not None
                 else "every guess cut by the other shares' best" if shares > 1 else "no strategy fits")
        went_on = "" if out.get("resumed") is None else f", going on from guess {out['resumed']}"
        return f"{game.spec}: {key}: {found} ({out.get('seconds', 0.0)} s{went_on})"


KIND = SearchKind()
