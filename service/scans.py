"""Whether every candidate of a position can be found within a limit, each of its guesses tried in turn, as a
campaign (``bullscows feasible --scan --progress FILE``): a ``scan`` job (one unit, or one per share of the position's
guesses with ``--shares``) whose units keep how far they have come in the database after each guess, and ``FILE``
its progress file, written from the job as it goes and holding its answer once done.

The file keeps the question (game, history, limit, tries) with the scan's progress: the next guess to try, how many
there are, whether every failure so far is proven, the failures by response and the guess found (the keys the
committed ``campaigns/keep7-scan-*.json`` have), each share's under ``shares`` (``{"1/2": {...}}``), and once done
the answer (``result``, the keys of ``feasible --json``).  The same command continues from it on any database, and
answers at once from a finished file.

Why: a scan of a five-digit position tries thousands of guesses of minutes each, more than a session lasts.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from service.campaign_files import SCAN_KEY, SCAN_STATE, CampaignError, read_json, share_key
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec
from service.searches import shares_into
from service.store.files import update_json
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit


def question(spec: CampaignSpec) -> dict[str, Any]:
    """What a scan's progress file answers."""
    return {"game": spec.game.spec, "history": list(spec.plan["history"]), "max_guesses": spec.plan["max_guesses"],
            "tries": spec.plan["tries"]}


def read(spec: CampaignSpec) -> dict[str, Any] | None:
    """The spec's progress file, None when there is none.

    :raises CampaignError: it is not a scan's progress, or one of another question (it is left as it is)."""
    path = spec.progress
    if not os.path.exists(path):
        return None
    try:
        doc = read_json(path)
        if not isinstance(doc, dict) or "question" not in doc:
            raise CampaignError("it has no question" if isinstance(doc, dict) else "not a JSON object")
    except CampaignError as exc:
        raise CampaignError(f"{path}: not a scan's progress file ({str(exc).removeprefix(path + ' ')})") from None
    if doc.get("question") != question(spec):
        raise CampaignError(f"{path} holds another question ({doc.get('question')}); give another --progress file")
    return doc


def _states(doc: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The progress a file keeps, by share key."""
    if doc is None:
        return {}
    out = {SCAN_KEY: {k: doc[k] for k in SCAN_STATE if k in doc}} if "next" in doc else {}
    for share, kept in dict(doc.get("shares") or {}).items():
        out[f"{SCAN_KEY} share {share}"] = dict(kept)
    return out


def _resume(doc: dict[str, Any] | None, shares: int) -> dict[str, dict[str, Any]]:
    """What each share of a job of ``shares`` goes on from: its own progress, else the whole scan's (every guess
    before its next is done, whichever share it belongs to; its failures are counted once, by the first share)."""
    states = _states(doc)
    whole = states.get(SCAN_KEY)
    if shares == 1 or whole is None:
        return states
    out = dict(states)
    for k in range(shares):
        key = share_key(SCAN_KEY, (k, shares))
        if key not in out:
            out[key] = {**whole, "failed_on": whole.get("failed_on", {}) if k == 0 else {}}
    return out


def _found(doc: dict[str, Any]) -> str | None:
    """The guess a scan's file says keeps the limit: the whole scan's, or any share's."""
    return doc.get("found") or next((s["found"] for s in dict(doc.get("shares") or {}).values() if s.get("found")),
                                    None)


def _initial() -> dict[str, Any]:
    """A new scan file's progress (its first guess next)."""
    return {"next": 0, "guesses": None, "proven": True, "found": None, "failed_on": {}}


class ScanKind(JobCampaignKind):
    """A scan of a position's guesses against a limit (kind ``scan``, ``feasible --scan --progress``): one unit or
    one per share of the guesses, the first share to find a guess answering it."""

    name = "scan"
    takes_in_earlier = True

    def check(self, spec: CampaignSpec) -> None:
        """What a scan campaign refuses before it touches any database (:func:`read`'s refusals).

        :raises CampaignError: the progress file is not a scan's, or another's."""
        read(spec)

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The scan jobs of the spec's question, oldest first (whatever their shares)."""
        mine = question(spec)
        found = []
        for job in jobs.submitted(SUBMITTER, spec.game.spec):
            req = JobRequest.from_json(job.request)
            if req.kind == "scan":
                doc = req.scan_doc
                asked = {"game": req.game, "history": [spec.game.format_turn(t) for t in req.turns()],
                         "max_guesses": doc["max_guesses"], "tries": doc.get("tries")}
                if asked == mine:
                    found.append(job)
        return found

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The answer a progress file holds (its ``result``, or the guess a scan found), None when it holds none."""
        doc = read(spec)
        if doc is None:
            return None
        if isinstance(doc.get("result"), dict):
            return dict(doc["result"])
        found = _found(doc)
        return None if found is None else {"possible": True, "answer": "yes", "guess": found, "value": None}

    def start(self, jobs: JobStore, spec: CampaignSpec,
              units: list[str] | None = None) -> tuple[Job, bool, str]:
        """(job, created, what was taken in): the scan's job, asked once the earlier jobs' progress is in the file,
        each share going on from what the file keeps of it (or of the whole scan).  An earlier job of the same
        question still running is cancelled for it."""
        shares = int(spec.plan["shares"])
        resume = _resume(read(spec), shares)
        doc = {"max_guesses": spec.plan["max_guesses"], "tries": spec.plan["tries"], "shares": shares,
               "resume": resume}
        history = [spec.game.parse_turn(t) for t in spec.plan["history"]]
        req = JobRequest.scan_of(spec.game, history, doc)
        job, created = self.submit(jobs, spec, req)  # earlier jobs' work is in the file: the runner took it in
        went_on = ", ".join(f"{k} from guess {v['next']} of {v.get('guesses')}" for k, v in resume.items()
                            if v.get("next"))
        return job, created, f"going on: {went_on}" if went_on else "from the first guess"

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Write what the scan's jobs hold to its progress file: each unit's progress (a later job's over an earlier
        one's, which it went on from), the guess found, and the answer of a job done; the document written."""
        def state_of(u: JobUnit) -> dict[str, Any] | None:
            return None if not u.output else {k: v for k, v in orjson.loads(u.output).items() if k in SCAN_STATE}

        def merged(doc: dict[str, Any] | None) -> dict[str, Any]:
            doc = shares_into(doc or {"question": question(spec), **_initial()}, jobs, self.jobs_of(jobs, spec),
                              lambda req: int(req.scan_doc["shares"]), state_of)
            found = _found(doc)
            if found:  # a share's guess answers the whole scan
                doc["found"] = found
            return doc

        written = update_json(spec.progress, merged, load=lambda _path: read(spec))
        assert written is not None
        return written

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """What the progress file holds: each share's next guess, and the answer once done."""
        doc = read(spec)
        if doc is None:
            return None
        return {"file": spec.progress, "scans": {k: {"next": v.get("next"), "of": v.get("guesses")}
                                                 for k, v in _states(doc).items()},
                "found": doc.get("found"), "finished": "result" in doc}

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        return f"holds this scan's answer already: {done.get('answer')}"

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The log line of a finished scan unit: its share, the last guess it settled, and what it found."""
        game, u, shares = spec.game, unit, int(spec.plan["shares"])
        out = orjson.loads(u.output or "{}")
        key = share_key(SCAN_KEY, (int(u.g2 or 0), shares))
        settled = out.get("last") or "no guess left to try"
        found = f"found {out['found']}" if out.get("found") else "no guess of this share keeps the limit"
        return f"{game.spec}: {key}: {settled}; {found} ({float(u.seconds):.1f} s)"


KIND = ScanKind()
