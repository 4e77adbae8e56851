"""What a lower-bound campaign's progress file tells, and the exact settling of its parts.

A game's lower bound (:func:`solver.lowerbound.root_lower_bound`) is proven as a campaign: a bound job
(:mod:`service.jobs.plan`), a unit per first guess or per part, run by the workers, every part's bound kept in the
database as it is proven and written to the progress file (``campaigns/bounds-<game>.json``,
:mod:`service.bound_files`) by :mod:`service.campaign_specs`.  Two facts make the work divisible and durable:

- the root's bound is the least of its first guesses' bounds, and a guess's bound its cost plus its parts'
  bounds, so each first guess, or each part, is a unit that any process can refine alone;
- every bound a refinement returns is admissible, whatever depth or room it was refined with, so a part's
  bound proven once is a valid estimate for any later refinement of it, in any run, under any plan.

This module reads the file for what the campaign proves so far (:func:`so_far`), where a strategy tree's total
and the bound are apart, part by part (:func:`gaps`, :func:`gaps_below`), and settles root parts exactly by a sweep
of their guesses (:func:`settle`), which the depth campaign's bounds cannot reach in the deep games.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import time
from typing import Any

import numpy as np

from service.bound_files import (
    BELOW,
    FORMAT,
    Log,
    amend,
    compact_seconds,
    keep_unit,
    ledger_below,
    ledger_bounds,
    ledger_seconds,
    ledger_thirds,
    merge,
    plan_of,
    raise_bound,
    same_game,
    settling_seconds,
    standing,
)
from service.bound_files import read as read  # re-exported: importers read the campaign's file here
from service.bound_files import start as start_file
from service.campaign_files import CampaignError as CampaignError  # re-exported: importers name it here
from service.campaign_files import default_progress
from service.campaign_kind import JobCampaignKind
from service.campaign_spec import SUBMITTER, CampaignSpec, jobs_asking, parse_parts
from service.store.bound_parts import BoundPartStore, PartBounds
from service.store.files import update_json
from service.store.jobs import JobStore
from service.store.models import Job, JobUnit
from solver import kernels
from solver.bounds import lower_bound_tables
from solver.game import Game, Turn
from solver.lowerbound import LEAVES, root_classes, root_lower_bound
from solver.partledger import EXACT_PLIES
from solver.position import Position
from solver.search import Searcher, SolveOptions
from solver.sweep import Sweeper, SweepProgress, progress_from_json, progress_to_json
from solver.symmetry import relabelling_onto
from solver.table import MMAX
from solver.tree import solved_depths
from solver.vocabulary import Criterion, paid


def default_path(spec: str) -> str:
    """The progress file of a game's lower-bound campaign in the campaigns folder: ``bounds-5-6-1.json``."""
    return default_progress("bounds", spec)


def so_far(game: Game, path: str) -> dict[str, Any] | None:
    """An unfinished campaign's summary, shaped as :func:`run`'s: the bound its file proves as it stands
    (:func:`standing`), its finished units' count and work, and the time spent on it over every run; None when
    there is no file yet.

    :raises CampaignError: the file is another game's, or unreadable.
    """
    doc = read(path)
    if doc is None:
        return None
    same_game(game, doc, path)
    value = standing(game, doc)  # refuses a part's bound that is not the game's
    try:
        return {"value": value, "units": len(doc["units"]),
                "work": sum(int(u["work"]) for u in doc["units"].values()),
                "seconds": round(sum(float(v) for v in doc.get("spent", {}).values()) + settling_seconds(doc), 1)}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CampaignError(f"{path}: a unit or a time that is not a number: {exc!r}") from None


def gaps(game: Game, doc: dict[str, Any], tree: Any) -> dict[str, Any]:
    """Where a bracket of T lies, part by part: for each response to ``tree``'s first guess, the part's size,
    what the tree spends on it (guesses after the first, summed over its secrets: the upper side), the bound the
    progress file proves for it (the lower side, under the first guess of the file that is a relabelling of the
    tree's) and the difference.  ``lower`` is the bound under that first guess; ``standing`` the root's
    (:func:`standing`: the least over every first guess), which is what the file proves of T.

    Why: a bracket is two sums over the same parts, and the work that narrows it goes where a part's two sides
    are apart: a part whose tree already spends its proven bound is optimal under that first guess, and neither
    a deeper bound nor a better subtree can gain anything there.

    :raises CampaignError: the file is another game's, or none of its first guesses is the tree's up to a
        symmetry.
    """


    if doc.get("game") != game.spec or tree.game.spec != game.spec:
        raise CampaignError(f"the tree ({tree.game.spec}) and the progress file ({doc.get('game')}) are not both "
                            f"{game.spec}'s")
    first = int(tree.root.guess)
    bounds = ledger_bounds(game, doc)
    reps = [game.parse_code(k) for k in doc["parts"]]
    rep = next((g for g in reps if relabelling_onto(game, [g], [first]) is not None), None)
    if rep is None:
        raise CampaignError(f"the progress file has no first guess that is {game.format_code(first)} relabelled")
    lb0 = lower_bound_tables(game, game.size)[0, Criterion.TOTAL.code, MMAX]
    depths = solved_depths(tree)
    arrays = game.search_arrays()
    order, starts = kernels.split(*arrays.kernel_args(), first, np.arange(game.size, dtype=np.int32),
                                  game.n_responses)
    rows: list[dict[str, Any]] = []
    for r in range(game.n_responses):
        part = order[starts[r]:starts[r + 1]]
        if len(part) == 0 or r == game.all_bulls:
            continue
        upper = int(depths[part].sum()) - len(part)
        lower, plies = bounds.get((rep, r), (int(lb0[len(part)]), 0))
        lower = max(lower, int(lb0[len(part)]))
        rows.append({"response": game.format_response(r), "codes": len(part), "upper": upper, "lower": lower,
                     "plies": "exact" if plies >= EXACT_PLIES else plies, "gap": upper - lower})
    rows.sort(key=lambda row: (-row["gap"], -row["codes"]))
    upper = game.size + sum(row["upper"] for row in rows)
    lower = game.size + sum(row["lower"] for row in rows)
    return {"game": game.spec, "first_guess": game.format_code(first), "as_in_file": game.format_code(rep),
            "upper": upper, "lower": lower, "gap": upper - lower, "standing": standing(game, doc), "parts": rows}


def gaps_below(game: Game, tree: Any, path: list[int], depth: int,
               log: Log = lambda _: None) -> dict[str, Any]:
    """One level further down than :func:`gaps`: below the tree's position that the responses ``path`` lead to
    (from its first guess on), for each response to that position's guess, what the tree spends on the set it
    leaves (guesses after that one, summed over its secrets) against the set's lower bound refined ``depth``
    plies now (:func:`solver.lowerbound.root_lower_bound` after the tree's moves).

    Why: a part's gap is spread over its second guess's sets, and those of a hundred codes are where a deeper
    search or a better subtree pays; the sets whose tree already spends their bound need nothing more.  The bound
    is of the set under the tree's own moves, so it bounds what any better subtree there can save, not what the
    part can (another second guess may do better: the campaign's part bound says that).

    :raises CampaignError: a response on the path that the tree does not follow.
    """
    searcher = Searcher(game, SolveOptions(Criterion.TOTAL))  # one for every set's bound
    depths = solved_depths(tree)
    node, turns = tree.root, []
    for r in path:
        child = node.children.get(r)
        if child is None:
            raise CampaignError(f"the tree has no position after {game.format_response(r)} there")
        turns.append(Turn(node.guess, r))
        node = child
    rows: list[dict[str, Any]] = []
    for r, _child in sorted(node.children.items(), key=lambda item: -item[1].size):
        history = [*turns, Turn(node.guess, r)]
        at = Position.of(game, history)
        n, offset = at.size, paid(at.size, at.turn)
        upper = int(depths[at.cands].sum()) - offset
        started = time.perf_counter()
        lower = root_lower_bound(game, history, depth, searcher=searcher).value - offset
        rows.append({"response": game.format_response(r), "codes": n, "upper": upper, "lower": lower,
                     "gap": upper - lower, "seconds": round(time.perf_counter() - started, 1)})
        log(f"{game.format_response(r)}: {n} codes, tree {upper}, bound {lower}")
    return {"game": game.spec, "path": " ".join(game.format_response(r) for r in path),
            "moves": [game.format_code(t.guess) for t in turns] + [game.format_code(node.guess)], "depth": depth,
            "upper": sum(row["upper"] for row in rows), "lower": sum(row["lower"] for row in rows),
            "gap": sum(row["gap"] for row in rows), "parts": rows}


# -- settling root parts exactly -------------------------------------------------------------------------------------

def _progress_of(game: Game, entry: dict[str, Any] | None) -> SweepProgress | None:
    """A part's sweep progress as the file keeps it (``settle``: game-level values, codes as text).

    :raises CampaignError: a code or value that is not the game's."""
    if entry is None:
        return None
    try:
        return progress_from_json(game, entry)
    except ValueError as exc:
        raise CampaignError(f"a part's sweep progress in the progress file is not {game.spec}'s: {exc}") from None


def settle(spec: str, path: str, responses: list[str], *, seconds: float | None = None,
           kernel_at_most: int = 60, log: Log = lambda _: None) -> list[dict[str, Any]]:
    """Settle root parts exactly: the optimal total of each named response's part, under every first guess
    (one per class), by a sweep of its guesses (:class:`solver.sweep.Sweeper`, no guess limit), kept in the
    progress file as the part's bound marked ``"exact"``: no deeper pass refines it, and the file's standing
    bound (:func:`standing`) counts it.

    Why: in the deep games a part's bound at any affordable depth stays well below its optimum (W = 7 in 6×7),
    and a part of a few hundred codes is settled sooner by the sweep, whose exact searches of small sets are
    worth many plies of bounds.  A sweep of such a part takes longer than a session, so its progress (the
    cheapest guess evaluated in full, each other guess's proven bound, and the values of the parts of the guess
    under way) goes to the file under ``settle`` as it is proven, and the same call continues from there;
    ``seconds`` (wall-clock, for the whole call) stops it between two parts or inside one (what the part under
    way proved is lost).  A part once settled leaves only its value under ``settled``.

    Returns one row per part: first guess, response, codes, and either its value (``exact``) or what is known.

    :raises CampaignError: the file is another game's or unreadable, or a response not the game's.
    """


    game = Game.from_spec(spec)
    wanted = list(parse_parts(game, responses))
    if not wanted:
        raise CampaignError("--parts: name the responses whose parts to settle")
    doc = update_json(path, lambda found: None if found is not None else {
        "format": FORMAT, "game": game.spec, "started": datetime.date.today().isoformat(), "plan": None,
        "leaves": LEAVES, "parts": {}, "units": {}}, load=read)
    assert doc is not None
    same_game(game, doc, path)
    ledger_bounds(game, doc)
    ledger_below(game, doc, "seconds")
    for first in doc.get("settle", {}).values():
        for entry in first.values():
            _progress_of(game, entry)
    # the parts' own cheaper guesses, not every nested set's
    sweeper = Sweeper(game, max_guesses=None, kernel_at_most=kernel_at_most,
                      log=lambda line: log(f"{spec}: {line}") if line.startswith("guess 2,") else None)
    deadline = None if seconds is None else time.perf_counter() + seconds
    cands = np.arange(game.size, dtype=np.int32)
    arrays = game.search_arrays()
    rows: list[dict[str, Any]] = []
    for g in root_classes(game):
        guess = game.format_code(g)
        order, starts = kernels.split(*arrays.kernel_args(), g, cands, game.n_responses)
        for r in wanted:
            response = game.format_response(r)
            part = np.ascontiguousarray(order[int(starts[r]):int(starts[r + 1])], dtype=np.int32)
            n = int(part.shape[0])
            if n == 0:
                continue
            row: dict[str, Any] = {"first_guess": guess, "response": response, "codes": n}
            doc = read(path) or doc
            held = doc["parts"].get(guess, {}).get(response)
            if held is not None and held[1] == "exact":
                rows.append({**row, "value": n + int(held[0]), "exact": True, "seconds": 0.0})
                log(f"{spec}: {guess} {response} ({n} codes) is settled already: {n + int(held[0])}")
                continue
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left <= 0:
                rows.append({**row, "exact": False, "cut": True, "seconds": 0.0})
                continue
            resume = _progress_of(game, doc.get("settle", {}).get(guess, {}).get(response))
            # the depth campaign's bounds of this part under its second guesses refute those guesses too
            seconds_known = {game.parse_code(code): n + int(low) for code, (low, _plies)
                             in doc.get("seconds", {}).get(guess, {}).get(response, {}).items()}
            if seconds_known:
                resume = resume or SweepProgress()
                resume = dataclasses.replace(resume, refuted={
                    g2: max(seconds_known.get(g2, 0), resume.refuted.get(g2, 0))
                    for g2 in seconds_known.keys() | resume.refuted.keys()})
            spent_before = float(doc.get("settle", {}).get(guess, {}).get(response, {}).get("seconds", 0.0))
            clock = time.perf_counter()

            def keep(progress: SweepProgress, guess: str = guess, response: str = response,
                     spent_before: float = spent_before, clock: float = clock) -> None:
                entry = {**progress_to_json(game, progress),
                         "seconds": round(spent_before + time.perf_counter() - clock, 1)}
                amend(path, lambda d: d.setdefault("settle", {}).setdefault(guess, {}).__setitem__(response, entry))
                if progress.left is None:
                    return  # a part of the guess under way: kept, not told
                log(f"{spec}: {guess} {response}: {len(progress.refuted)} guesses refuted"
                    + ("" if progress.found is None else f", {progress.found} the least found")
                    + f", {progress.left} left ({entry['seconds']:.0f} s)")

            log(f"{spec}: settling {guess} {response} ({n} codes)"
                + ("" if resume is None else f", from {len(resume.refuted)} guesses refuted"
                   + ("" if resume.found is None else f" and {resume.found} found")))
            got = sweeper.value([Turn(g, r)], cands=part, seconds=left, resume=resume, record=keep)
            spent = round(spent_before + time.perf_counter() - clock, 1)
            if got.exact and got.value is not None and got.guess is not None:
                value, best = got.value, game.format_code(got.guess)

                def settled(d: dict[str, Any], guess: str = guess, response: str = response, value: int = value,
                            best: str = best, spent: float = spent, n: int = n) -> None:
                    raise_bound(d["parts"].setdefault(guess, {}), response, value - n, EXACT_PLIES)
                    d.setdefault("settled", {}).setdefault(guess, {})[response] = {
                        "value": value, "guess": best, "seconds": spent, "date": datetime.date.today().isoformat()}
                    for section in ("settle", *BELOW):  # what the value makes redundant
                        d.get(section, {}).get(guess, {}).pop(response, None)
                        if section in d and not d[section].get(guess, True):
                            d[section].pop(guess)
                        if not d.get(section, True):
                            d.pop(section)

                amend(path, settled)
                rows.append({**row, "value": value, "exact": True, "guess": best, "seconds": spent})
                log(f"{spec}: {guess} {response} ({n} codes) needs exactly {value} ({best} next; {spent:.0f} s)")
            else:
                progress = sweeper.progress([Turn(g, r)], cands=part)
                if got.cut:
                    keep(progress)
                rows.append({**row, "exact": False, "cut": got.cut, "found": progress.found,
                             "refuted": len(progress.refuted), "seconds": spent})
                log(f"{spec}: {guess} {response} ({n} codes) out of time after {spent:.0f} s: "
                    + ("nothing found yet" if progress.found is None else f"{progress.found} found")
                    + f", {len(progress.refuted)} guesses refuted; the same command continues it")
    return rows


def unit_line(game: Game, u: JobUnit) -> str:
    """A bound job's unit done, in the campaign's log: which first guess (part, second guess) and the bound it
    proved (at least its β when cut)."""
    where = game.format_code(int(u.g1 or 0))
    if u.response is not None:
        where += f" part {game.format_response(int(u.response))}"
    if u.g2 is not None:
        where += f" second guess {game.format_code(int(u.g2))}"
    return (f"{game.spec}: unit {where} done in {float(u.seconds):.1f} s: bound {u.value}"
            + ("" if u.exact else " (cut: its bound reached what it had to)"))


class BoundKind(JobCampaignKind):
    """A lower-bound campaign (kind ``bound``): a bound job, a unit per first guess (or per part, or per second
    guess of a part), each part's bound kept in the ``bound_parts`` table as it is proven; its progress file
    (:mod:`service.bound_files`) gives the database its parts' bounds before the job is asked, and is written from
    the table and the units."""

    name = "bound"

    def check(self, spec: CampaignSpec) -> None:
        """A progress file of another game, or holding a bound that is not the game's, is refused."""
        doc = read(spec.progress)
        if doc is None:
            return
        same_game(spec.game, doc, spec.progress)
        try:  # every bound the file holds is the game's
            ledger_bounds(spec.game, doc)
            ledger_seconds(spec.game, doc)
            ledger_thirds(spec.game, doc)
        except CampaignError as exc:
            raise CampaignError(f"{spec.progress}: {exc}") from None

    def finished(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The summary the file keeps when it finished this plan, its sets valued this way (a campaign of named
        parts is never finished so: its parts' bounds are its result)."""
        if spec.parts:
            return None
        doc = read(spec.progress)
        if (doc is None or doc.get("plan") != plan_of(spec.depth, spec.target) or doc.get("leaves") != LEAVES
                or not isinstance(doc.get("finished"), dict)):
            return None
        return dict(doc["finished"])

    def finished_line(self, spec: CampaignSpec, done: dict[str, Any]) -> str:
        return f"finished this campaign already: T >= {done.get('value')}"

    def jobs_of(self, jobs: JobStore, spec: CampaignSpec) -> list[Job]:
        mine = spec.request().digest
        return jobs_asking(jobs, spec.game, lambda r: r.digest == mine)

    def start(self, jobs: JobStore, spec: CampaignSpec, units: list[str] | None = None) -> tuple[Job, bool, str]:
        """The file's parts' bounds raised in the database (none falls; a file whose sets were valued another way
        gives its bounds at no known depth), and the job asking the same (running, or done: nothing is computed
        again) or a new one."""
        doc = read(spec.progress)
        sent = 0
        if doc is not None:
            same_game(spec.game, doc, spec.progress)
            known = PartBounds(ledger_bounds(spec.game, doc), ledger_seconds(spec.game, doc),
                               ledger_thirds(spec.game, doc))
            sent = BoundPartStore(jobs.db).raise_bounds(spec.game.spec, known, str(doc.get("leaves") or "by size"),
                                      f"file:{os.path.basename(spec.progress)}")
        job, created = jobs.submit(spec.request(), SUBMITTER)
        return job, created, f"{sent} part bounds from {os.path.basename(spec.progress)}"

    def export(self, jobs: JobStore, spec: CampaignSpec, job: Job | None = None) -> dict[str, Any]:
        """Every part's bound the database proves of the game, each finished unit's bound under the plan, and once
        the job is done its summary (``finished``, which the atlas's and the records' readers take for the bound).
        A part's bound is raised, never lowered; the file's own sections (``atlas settle``'s) stay."""
        if job is None:
            raise CampaignError(f"the database has no job of this campaign: nothing to write to {spec.progress}")
        game = spec.game
        known = BoundPartStore(jobs.db).load(game.spec, LEAVES)
        units = [u for u in jobs.units(job.id) if u.status == "done" and u.value is not None]
        result = None if job.status != "done" or not job.result else json.loads(job.result)
        begun = start_file(game, spec.depth, spec.target, spec.progress)  # refuses another game's file
        if spec.parts:  # its parts' bounds are its result: no first guess is finished at the depth that way
            units, result = [], None
        job_id = job.id

        def merged(doc: dict[str, Any] | None) -> dict[str, Any]:
            doc = doc or begun
            below: dict[str, dict[tuple[int, ...], tuple[int, int]]] = {
                "seconds": {tuple(k): v for k, v in known.seconds.items()},
                "thirds": {tuple(k): v for k, v in known.thirds.items()}}
            merge(game, doc, known.parts, below)
            compact_seconds(doc)  # what the parts' bounds say already
            for u in units:
                if u.response is not None:  # a part's unit: its bound is among the parts'; the guess's comes whole
                    continue
                keep_unit(doc, game.format_code(int(u.g1 or 0)), int(u.value or 0), int(u.nodes), float(u.seconds))
            if result is not None and result.get("best_guess") and any(u.response is not None for u in units):
                keep_unit(doc, result["best_guess"], int(result["value"]), int(result["work"]),
                          float(result["unit_seconds"]))
            if result is not None and doc.get("finished", {}).get("job") != job_id:  # written once: no noisy diffs
                doc["finished"] = {"value": int(result["value"]), "depth": spec.depth,
                                   **({} if spec.target is None else {"target": spec.target}),
                                   "work": int(result["work"]), "seconds": float(result["unit_seconds"]),
                                   "units": int(result["units"]), "date": datetime.date.today().isoformat(),
                                   "job": job_id}
            return doc

        written = update_json(spec.progress, merged, load=read)
        assert written is not None
        return written

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """The standing bound (what its parts prove as they are) and the finished one."""
        doc = read(spec.progress)
        if doc is None:
            return None
        return {"file": spec.progress, "standing": standing(spec.game, doc),
                "finished": doc.get("finished", {}).get("value")}

    def unit_line(self, spec: CampaignSpec, unit: JobUnit, units: list[JobUnit]) -> str | None:
        return unit_line(spec.game, unit)


KIND = BoundKind()
"""The bound kind as the job engine runs it; the campaign kind, which also keeps its bound, is
:data:`service.bound_keeping.KIND`."""
