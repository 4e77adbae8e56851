"""A published figure recomputed by this project's search and recorded beside it (``bullscows records check``):
for Super Mastermind, the optimum among the strategies that open with a given guess and then play only possible
codes.  The check runs as a ``check`` job (:func:`service.jobs.plan.check_plan`: a unit per part of the first guess,
or per share of a part's second guesses), through :func:`service.campaign_specs.run` as every campaign does.

The records file is the check's progress file: its game's ``check`` holds every part solved (``parts``) and how far
each search under way has come (``searching``, by :func:`service.record_checks.share_key`), written from the job's
units every minute and at the end (:meth:`CheckKind.export`).  A fresh clone's run, or the run after a stopped
one, starts a job that searches only the parts the file lacks, each search going on from the progress the file keeps
of it (:meth:`CheckKind.start`); the job's units keep their own progress in the database as they go, so a worker killed
mid-part loses at most a minute of it.

Why the records file rather than a progress file of its own: the check's outcome is a record of the game, shown
beside the published figures (``records show``, ``docs/records.md``), and a check takes hours over several runs.
"""

from __future__ import annotations

import collections
import datetime
import functools
import os
from typing import Any

import orjson

from service import records
from service.campaign_files import CampaignError, share_key
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import CampaignSpec, jobs_asking
from service.jobs.campaign_kinds import check_parts_of
from service.provenance import machine
from service.record_checks import part_record
from service.records_keeping import RECORDS_KEEPER
from service.store.job_records import JobRequest
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver.game import Code, Game
from solver.search import RootProgress
from solver.vocabulary import Criterion, game_value


def published_check(spec: str) -> tuple[dict[str, Any], Game, Code]:
    """The published row of ``spec`` that says how to check it, the game, and the row's first guess.

    :raises ValueError: no published row of the game says how to check it."""
    rows = [p for p in records.PUBLISHED[spec]["published"] if p.get("check")]
    if not rows:
        raise ValueError(f"no published figure of {spec} says how this project can check it")
    game = Game.from_spec(spec)
    return rows[0], game, game.parse_code(rows[0]["check"]["first_guess"])


def part_sizes(game: Game, first: Code) -> dict[str, int]:
    """The parts of the check: {formatted response to ``first``: candidates}, the winning response left out."""
    return dict(_part_sizes(game.spec, int(first)))


@functools.cache
def _part_sizes(spec: str, first: int) -> tuple[tuple[str, int], ...]:
    """Computed once per game and guess in a process: every code's response (32768 of them in Super Mastermind),
    asked by each step of a check's run and by its progress written every minute."""
    game = Game.from_spec(spec)
    counts = collections.Counter(game.response(first, int(code)) for code in game.all_codes)
    return tuple((game.format_response(r), size) for r, size in counts.items() if r != game.all_bulls)


def _in_file(spec: CampaignSpec) -> tuple[dict[str, Any], Game, Code, dict[str, int], dict[str, Any]]:
    """(published row, game, first guess, part sizes, the game's check in the records file): what each step of a
    check campaign reads first."""
    row, game, first = published_check(spec.game.spec)
    return row, game, first, part_sizes(game, first), _file_check(records.load(spec.progress), spec.game.spec, row)


def _part_of(key: str) -> str:
    """The part a progress key is of (:func:`service.record_checks.share_key`)."""
    return key.partition(" share ")[0]


def _file_check(entries: dict[str, dict[str, Any]], spec: str, row: dict[str, Any]) -> dict[str, Any]:
    """The game's check in the file, empty when it checked another first guess."""
    check = entries[spec].get("check") or {}
    return dict(check) if check.get("first_guess") == row["check"]["first_guess"] else {}


def _solved(check: dict[str, Any], sizes: dict[str, int]) -> dict[str, dict[str, Any]]:
    """The parts the check holds solved (another game's or guess's part, of another size, never counted)."""
    return {name: p for name, p in (check.get("parts") or {}).items() if int(p["candidates"]) == sizes.get(name)}


def _record(spec: str, row: dict[str, Any], parts: dict[str, dict[str, Any]], searching: dict[str, dict[str, Any]],
            sizes: dict[str, int]) -> dict[str, Any]:
    """The game's ``check`` as the file keeps it: finished (with its value and whether it agrees with the
    published one) once every part is solved, else the searches under way."""
    value = 1 + sum(int(p["value"]) for p in parts.values()) if set(parts) >= set(sizes) else None
    outcome = {"finished": False} if value is None else {"finished": True, "value": value,
                                                          "agrees": value == row["total"]}
    under_way = {"searching": searching} if searching and value is None else {}
    by_size = dict(sorted(parts.items(), key=lambda kv: (int(kv[1]["candidates"]), kv[0])))  # as the shipped file
    return {"how": row["how"], "first_guess": row["check"]["first_guess"], "from_set_only": True,
            "published": row["total"], **outcome, "seconds": round(sum(float(p["seconds"]) for p in parts.values()), 1),
            "parts": by_size, **under_way, "command": f"bullscows records check -g {spec}",
            "machine": machine(), "date": datetime.date.today().isoformat()}


def _asked_parts(req: JobRequest, sizes: dict[str, int], game: Game) -> set[str]:
    """The parts a check job asks (every part when it names none)."""
    named = req.check_doc.get("parts")
    return set(sizes) if named is None else {game.format_response(int(r)) for r in named}


def _merged(jobs: JobStore, spec: CampaignSpec, check: dict[str, Any],
            sizes: dict[str, int]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(parts, searching): what the file's ``check`` holds with what the check's jobs add (the parts their units
    finished; the progress of the others, a later job's over an earlier one's, which it went on from)."""
    _row, game, first = published_check(spec.game.spec)
    parts = _solved(check, sizes)
    searching = dict(check.get("searching") or {})
    for job in KIND.jobs_of(jobs, spec):
        if job.plan is None:
            continue
        doc = JobRequest.from_json(job.request).check_doc
        if int(doc["first_guess"]) != int(first):
            continue
        units = jobs.units(job.id)
        parts.update(check_parts_of(game, units, dict(doc.get("resume") or {}), int(doc["shares"])))
        for u in units:
            if u.status != "done" and u.output:
                key = share_key(game.format_response(int(u.response or 0)), (int(u.g2 or 0), int(doc["shares"])))
                searching[key] = orjson.loads(u.output)
    searching = {k: v for k, v in sorted(searching.items()) if _part_of(k) in sizes and _part_of(k) not in parts}
    return parts, searching


def recorded(spec: str, path: str = records.RECORDS_FILE) -> dict[str, Any]:
    """The game's check as the records file holds it (the command's answer once its campaign ran)."""
    row, _game, _first = published_check(spec)
    return _file_check(records.load(path), spec, row)


def status(spec: str, *, path: str = records.RECORDS_FILE, jobs: JobStore | None = None) -> dict[str, Any]:
    """Where the check of ``spec`` stands in the records file (and, with ``jobs``, in the check's jobs there, which
    may be ahead of the file), in guesses of the whole game, without searching or writing anything: the
    parts solved and their sum (the secret of the first guess included), the parts still to solve, how far each
    search under way has come (its second guess, of how many, and its best total so far, which can only go down),
    and what the missing parts may still need for the published figure to hold.

    Why: a check runs for hours, in several commands and sessions; its file holds every number, but in the
    search's own units (guesses after the first two, shares apart).  This says it in the published figure's.

    :raises ValueError: no published row of the game says how to check it."""
    row, game, first = published_check(spec)
    check = _file_check(records.load(path), spec, row)
    sizes = part_sizes(game, first)
    solved = _solved(check, sizes)
    if jobs is not None:
        campaign = CampaignSpec.check(game, row["check"]["first_guess"], 1, None, path)
        solved, searching = _merged(jobs, campaign, check, sizes)
        check = {**check, "searching": searching}
    under_way: list[dict[str, Any]] = []
    best: dict[str, int] = {}
    for key, kept in (check.get("searching") or {}).items():
        name, _, share = key.partition(" share ")
        if name in solved or name not in sizes:
            continue
        try:
            state = RootProgress.from_json(kept["search"])
        except (ValueError, TypeError, KeyError):
            continue  # unreadable: the check itself says so and starts that part over
        value = None if state.best_value is None else game_value(state.best_value, sizes[name], 2, Criterion.TOTAL)
        if value is not None:
            best[name] = min(value, best.get(name, value))
        under_way.append({"part": name, "share": share or None, "candidates": sizes[name], "done": state.done,
                          "of": state.guesses, "parts_of_guess": state.parts, "best": value,
                          "seconds": float(kept.get("seconds", 0.0))})
    missing = sorted((name for name in sizes if name not in solved), key=lambda name: (sizes[name], name))
    guesses = 1 + sum(int(p["value"]) for p in solved.values())
    report: dict[str, Any] = {
        "game": spec, "published": row["total"], "first_guess": row["check"]["first_guess"],
        "parts": len(sizes), "solved": len(solved), "solved_guesses": guesses,
        "seconds": round(sum(float(p["seconds"]) for p in solved.values()), 1),
        "missing": missing, "searching": under_way,
        "left_for_published": row["total"] - guesses,
        "best_of_missing": sum(best[name] for name in missing) if all(name in best for name in missing) else None}
    if not missing:
        report.update(finished=True, value=guesses, agrees=guesses == row["total"])
    return report


class CheckKind(JobCampaignKind):
    """A records check (kind ``check``): a unit per part of the first guess the records file lacks (or per share
    of a part), the file its progress file."""

    name = "check"
    takes_in_earlier = True

    def check(self, spec: CampaignSpec) -> None:
        """What a check campaign refuses before it touches any database: a game with no published figure to check, a
        part that is not one, a records file that cannot be read.

        :raises CampaignError: either."""
        try:
            row, game, first = published_check(spec.game.spec)
        except (ValueError, KeyError):
            raise CampaignError(f"{spec.game.spec}: no published figure of this game says how this project can check "
                                f"it (`bullscows records show` lists them)") from None
        try:
            records.load(spec.progress)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CampaignError(str(exc).strip("'")) from None
        if spec.plan.get("first_guess") != row["check"]["first_guess"]:
            raise CampaignError(f"{spec.game.spec}: first guess {spec.plan.get('first_guess')}; the published figure "
                                f"checked opens with {row['check']['first_guess']}")
        sizes = part_sizes(game, first)
        unknown = sorted(set(spec.plan.get("parts") or ()) - set(sizes))
        if unknown:
            raise CampaignError(f"{', '.join(unknown)}: not a response to {row['check']['first_guess']} that leaves "
                                f"candidates (these do: {', '.join(sorted(sizes))})")

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        """The check jobs of the spec's game in the store, oldest first (whatever their shares and parts: each started
        from what the records file held when it was asked, itself written from the earlier ones)."""
        return jobs_asking(jobs, spec.game, lambda r: r.kind == "check")

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The check's outcome when the records file has every part it asks for already (nothing to search), else
        None."""
        _row, _game, _first, sizes, check = _in_file(spec)
        asked = set(spec.plan.get("parts") or sizes)
        if not asked <= set(_solved(check, sizes)):
            return None
        return {"value": check.get("value"), "finished": bool(check.get("finished")), "parts": len(asked)}

    def start(self, jobs: JobStore, spec: CampaignSpec,
              units: list[str] | None = None) -> tuple[Job, bool, str]:
        """(job, created, what was taken in): the check's job, asked from the records file, which holds what the
        earlier jobs' units did (the runner writes it first: :attr:`CheckKind.takes_in_earlier`): the parts it lacks
        (those of the spec's parts alone, when named), each share going on from the progress the file keeps.  An
        earlier job of the check still running that asks some of the same parts is cancelled for it (its units'
        progress is in the file by then); one asking other parts goes on."""
        _row, game, first, sizes, check = _in_file(spec)
        known = {name: int(p["value"]) for name, p in _solved(check, sizes).items()}
        resume = {k: v for k, v in (check.get("searching") or {}).items()
                  if _part_of(k) in sizes and _part_of(k) not in known}
        named = spec.plan.get("parts")
        doc = {"first_guess": int(first), "shares": int(spec.plan["shares"]), "known": known, "resume": resume,
               "parts": None if named is None else sorted(game.parse_response(n) for n in named)}
        req = JobRequest.check_of(game, doc)
        mine = _asked_parts(req, sizes, game)  # a job asking other parts goes on beside this one (two --parts)
        job, created = self.submit(jobs, spec, req, lambda old: bool(
            _asked_parts(JobRequest.from_json(old.request), sizes, game) & mine))
        return job, created, (f"{len(known)} of {len(sizes)} parts solved before, {len(resume)} "
                              f"search{'' if len(resume) == 1 else 'es'} to go on from")

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Write what the check's jobs hold to the records file (:func:`_merged`), and once every part is solved the
        check's value; the check written.

        Nothing the file holds is lost: a part solved stays, a search's progress is replaced only by a later one of the
        same search."""
        row, game, first = published_check(spec.game.spec)
        sizes = part_sizes(game, first)
        made: list[dict[str, Any]] = []

        def checked(entries: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
            assert entries is not None
            check = _file_check(entries, spec.game.spec, row)
            parts, searching = _merged(jobs, spec, check, sizes)
            record = _record(spec.game.spec, row, parts, searching, sizes)
            made.append(record)
            if record == {**check, "machine": record["machine"], "date": record["date"]}:  # no noisy rewrites
                return None
            entries[spec.game.spec]["check"] = record
            return entries

        RECORDS_KEEPER.rewrite(checked, spec.progress)
        return made[0]

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """What the records file holds of the check: the parts solved, of how many, and the searches under way."""
        _row, _game, _first, sizes, check = _in_file(spec)
        return {"file": spec.progress, "parts": len(sizes), "solved": len(_solved(check, sizes)),
                "searching": len(check.get("searching") or {}), "finished": bool(check.get("finished"))}

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        return "has every part asked already" if spec.plan.get("parts") else "has every part of this check already"

    def earlier_line(self, spec: CampaignSpec, before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
        added = 0 if before is None or after is None else after["solved"] - before["solved"]
        if added <= 0:
            return super().earlier_line(spec, before, after)
        return (f"{spec.game.spec}: {added} part{'' if added == 1 else 's'} solved by earlier jobs in this database "
                f"written to {os.path.basename(spec.progress)}")

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        """The log line of a finished check unit: its part (and share), and the part's guesses it found; once every
        share of the part is done (among ``units``, its job's), the part's value too."""
        game, u, shares = spec.game, unit, int(spec.plan["shares"])
        out = orjson.loads(u.output or "{}")
        key = share_key(game.format_response(int(u.response or 0)), (int(u.g2 or 0), shares))
        found = (f"{out['value']} guesses" if out.get("value") is not None
                 else "every guess of this share cut by the others' best")
        went_on = "" if out.get("resumed") is None else f", going on from guess {out['resumed']}"
        line = (f"{game.spec}: after {game.format_code(int(u.g1 or 0))} {key}, {out.get('candidates', u.size)} "
                f"candidates: {found} ({out.get('seconds', 0.0)} s{went_on})")
        siblings = [v for v in units or () if v.response == u.response]
        if shares > 1 and siblings and all(v.status == "done" for v in siblings):
            part = part_record([orjson.loads(v.output or "{}") for v in siblings])
            line += f"; part {game.format_response(int(u.response or 0))}: {part['value']} guesses, its shares' least"
        return line


KIND = CheckKind()
