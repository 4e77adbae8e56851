"""Lower-bound campaigns: an atlas game's lower bound (:func:`solver.lowerbound.root_lower_bound`) proven as
units, one per first guess, with every part's bound kept in a progress file as soon as it is proven.

Why: four plies of a big game take hours of one core (5×6 Mastermind: one first guess alone, twenty minutes
and more), longer than a session, and a plain ``atlas bounds`` run keeps nothing until it finishes.  Two
facts make the work divisible and durable:

- the root's bound is the least of its first guesses' bounds, so each first guess is a unit that any
  process can refine alone (with a target, each only until its bound reaches it);
- every bound a refinement returns is admissible, whatever depth or room it was refined with, so a part's
  bound proven once is a valid estimate for any later refinement of it, in any run, under any plan.

The progress file (``campaigns/bounds-<game>.json``, :mod:`service.bound_files`) keeps every part's bound, written
at most every few seconds while a unit runs and when it ends.  A campaign killed at any moment
loses only what its running units proved since their last write; run again, it skips the finished units
and refines the others from every part's bound already proven.  Another plan (a deeper depth, another
target) keeps the parts and begins its units afresh.  Units run here one after another, or at once on a
Dask ``LocalCluster`` of several processes sharing the file under its lock.  Several campaigns may run on
one file (a first guess alone is a long unit: the no-repetition games have only one class of first guess):
each part of a unit's last pass is claimed in the file while it is refined, so another process takes the
next part instead, and takes in the first one's bound when it is written.  A part refined one second guess at
a time is not claimed whole: each of its second guesses is (``"0123456 0.7 1204563"``), so that processes
split even a single part, the one a campaign with ``--parts`` spends its hours on.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from service.bound_files import (
    BELOW,
    FORMAT,
    Log,
    amend,
    claim_gone,
    ledger_below,
    ledger_bounds,
    ledger_seconds,
    ledger_thirds,
    merge,
    parse_parts,
    plan_of,
    prune_claims,
    raise_bound,
    record_unit,
    same_game,
    settling_seconds,
    standing,
    start,
)
from service.bound_files import read as read  # re-exported: importers read the campaign's file here
from service.campaign_files import CAMPAIGN_DIR as CAMPAIGN_DIR  # re-exported: importers name it here
from service.campaign_files import CampaignError as CampaignError  # re-exported: importers name it here
from service.filelock import exclusive, write_json
from solver import kernels
from solver.bounds import lower_bound_tables
from solver.game import Game, Turn
from solver.lowerbound import LEAVES, root_classes, root_lower_bound
from solver.partledger import EXACT_PLIES, PartLedger
from solver.search import Searcher, SolveOptions
from solver.sweep import Sweeper, SweepProgress, progress_from_json, progress_to_json
from solver.symmetry import relabelling_onto
from solver.table import MMAX
from solver.tree import solved_depths
from solver.vocabulary import Criterion, paid

FLUSH_SECONDS = 10.0
"""A running unit writes its new parts' bounds at most this often (and when it ends): what a kill loses."""

WAIT_SECONDS = 5.0
"""How often a unit with nothing left but parts other processes refine looks whether they are done."""


def default_path(spec: str) -> str:
    """The progress file of a game's lower-bound campaign: ``campaigns/bounds-5-6-1.json``."""
    return os.path.join(CAMPAIGN_DIR, f"bounds-{spec.replace(',', '-')}.json")


class FileLedger(PartLedger):
    """A :class:`PartLedger` kept in a campaign's progress file: read when made, re-read before each part of
    the last pass (what other processes proved), its new bounds written at most every :data:`FLUSH_SECONDS`
    and by :meth:`flush`, its parts claimed there while they are refined."""

    def __init__(self, path: str, game: Game, every: float | None = None, owner: int | None = None,
                 unit: str | None = None) -> None:
        doc = read(path)
        if doc is None:
            raise CampaignError(f"{path} is not there")
        super().__init__(ledger_bounds(game, doc), ledger_seconds(game, doc), ledger_thirds(game, doc))
        self.path, self.game, self.owner = path, game, owner
        self.every = FLUSH_SECONDS if every is None else every
        self.pending: dict[tuple[int, int], tuple[int, int]] = {}
        self.pending_below: dict[str, dict[tuple[int, ...], tuple[int, int]]] = {s: {} for s in BELOW}
        self.written = self.counted = time.monotonic()
        self.unit = unit

    def put(self, guess: int, response: int, lower: int, plies: int) -> bool:
        rose = super().put(guess, response, lower, plies)
        if rose:
            self.pending[(guess, response)] = self.get(guess, response)
        self._after(rose)
        return rose

    def put_second(self, guess: int, response: int, second: int, lower: int, plies: int) -> bool:
        rose = super().put_second(guess, response, second, lower, plies)
        if rose:
            self.pending_below["seconds"][(guess, response, second)] = self.get_second(guess, response, second)
        self._after(rose)
        return rose

    def put_third(self, guess: int, response: int, second: int, response2: int, lower: int, plies: int) -> bool:
        rose = super().put_third(guess, response, second, response2, lower, plies)
        if rose:
            self.pending_below["thirds"][(guess, response, second, response2)] = self.get_third(
                guess, response, second, response2)
        self._after(rose)
        return rose

    def _after(self, rose: bool) -> None:
        """After a proof: stop if the campaign is gone (keeping what was proven), else write when it is time."""
        from service.jobs.runner import owner_alive

        if not owner_alive(self.owner):
            self.flush()
            raise CampaignError(f"the campaign (process {self.owner}) that ran this unit is gone")
        if rose and time.monotonic() - self.written >= self.every:
            self.flush()

    def sync(self) -> None:
        self.flush()
        doc = read(self.path)
        if doc is not None:
            for (g, r), (lower, plies) in ledger_bounds(self.game, doc).items():
                super().put(g, r, lower, plies)
            for (g, r, g2), (lower, plies) in ledger_seconds(self.game, doc).items():
                super().put_second(g, r, g2, lower, plies)
            for (g, r, g2, r2), (lower, plies) in ledger_thirds(self.game, doc).items():
                super().put_third(g, r, g2, r2, lower, plies)

    def _key(self, guess: int, response: int, second: int | None = None) -> str:
        """A part's name in the file's ``claims`` (``"0123456 0.7"``), with its second guess when one is claimed
        alone (``"0123456 0.7 1204563"``)."""
        key = f"{self.game.format_code(guess)} {self.game.format_response(response)}"
        return key if second is None else f"{key} {self.game.format_code(second)}"

    def claim(self, guess: int, response: int, second: int | None = None) -> bool:
        """Take the part (or its second guess) in the file's ``claims`` unless a live process of this machine
        holds it (a claim of a process gone is taken over; one of another machine is left alone)."""
        key = self._key(guess, response, second)
        me = {"pid": os.getpid(), "host": socket.gethostname()}
        granted = True

        def change(doc: dict[str, Any]) -> None:
            nonlocal granted
            claims = doc.setdefault("claims", {})
            held = claims.get(key)
            if held is not None and held != me and not claim_gone(held):
                granted = False
                return
            claims[key] = me

        amend(self.path, change)
        return granted

    def wait(self, guess: int, response: int, second: int | None = None) -> None:
        """Poll the file until the claim is gone or its holder (a process of this machine) is.  A claim of
        another machine is not waited for (its process cannot be seen from here): the part is refined twice."""
        from service.jobs.runner import owner_alive

        key = self._key(guess, response, second)
        while True:
            doc = read(self.path) or {}
            held = doc.get("claims", {}).get(key)
            if (held is None or held.get("pid") == os.getpid() or held.get("host") != socket.gethostname()
                    or claim_gone(held)):
                return
            if not owner_alive(self.owner):
                raise CampaignError(f"the campaign (process {self.owner}) that ran this unit is gone")
            time.sleep(WAIT_SECONDS)

    def release(self, guess: int, response: int, second: int | None = None) -> None:
        key = self._key(guess, response, second)
        mine = os.getpid()

        def change(doc: dict[str, Any]) -> None:
            claims = doc.get("claims", {})
            if claims.get(key, {}).get("pid") == mine:
                del claims[key]
            if not claims:
                doc.pop("claims", None)

        amend(self.path, change)

    def flush(self) -> None:
        """Write the bounds proven since the last write, and the unit's time since then (under ``spent``: a
        run killed before its unit ends still counts what it cost).

        The file keeps tenths of a second, so only the tenths written leave the clock: what the rounding left
        out is counted at the next write.  Rounding each write's own time instead lost all of it when proofs
        came faster than one every 0.05 s (a killed run's time was then not counted at all)."""
        now = time.monotonic()
        if self.pending or any(self.pending_below.values()) or self.unit is not None:
            pending, self.pending = self.pending, {}
            below, self.pending_below = self.pending_below, {s: {} for s in BELOW}
            spent = now - self.counted
            recorded = 0.0

            def change(doc: dict[str, Any]) -> None:
                nonlocal recorded
                merge(self.game, doc, pending, below)
                if self.unit is not None:
                    times = doc.setdefault("spent", {})
                    before = float(times.get(self.unit, 0.0))
                    times[self.unit] = round(before + spent, 1)
                    recorded = times[self.unit] - before

            amend(self.path, change)
            self.counted = self.counted + recorded if self.unit is not None else now
        self.written = now


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
        cands = game.candidates(history)
        n = len(cands)
        upper = int(depths[cands].sum()) - paid(n, len(history) + 1)
        started = time.perf_counter()
        lower = root_lower_bound(game, history, depth, searcher=searcher).value - paid(n, len(history) + 1)
        rows.append({"response": game.format_response(r), "codes": n, "upper": upper, "lower": lower,
                     "gap": upper - lower, "seconds": round(time.perf_counter() - started, 1)})
        log(f"{game.format_response(r)}: {n} codes, tree {upper}, bound {lower}")
    return {"game": game.spec, "path": " ".join(game.format_response(r) for r in path),
            "moves": [game.format_code(t.guess) for t in turns] + [game.format_code(node.guess)], "depth": depth,
            "upper": sum(row["upper"] for row in rows), "lower": sum(row["lower"] for row in rows),
            "gap": sum(row["gap"] for row in rows), "parts": rows}


def unfinished(record: dict[str, Any]) -> bool:
    """Whether a lower bound's record is an unfinished campaign's (the bound its parts proved so far)."""
    return record.get("campaign", {}).get("finished") is False


def _unit(spec: str, path: str, depth: int, target: int | None, guess: str,
          owner: int | None = None, only_parts: list[str] | None = None) -> tuple[str, int, int, float]:
    """One unit, as a worker process runs it: (guess, its bound, sets refined, seconds), its parts' bounds
    written to the progress file ``path`` as they are proven; it stops at a part's end once the process
    ``owner`` (the campaign's) is gone.  ``only_parts``: refine only those parts (the bound is then no unit's)."""
    game = Game.from_spec(spec)
    ledger = FileLedger(path, game, owner=owner, unit=guess)
    got = root_lower_bound(game, (), depth, target=target, guesses=[game.parse_code(guess)], ledger=ledger,
                           only_parts=parse_parts(game, only_parts))
    ledger.flush()
    return guess, got.value, got.work, got.seconds


def run(spec: str, depth: int, target: int | None, path: str, *, processes: int = 1, max_units: int | None = None,
        only_parts: list[str] | None = None, log: Log = lambda _: None) -> dict[str, Any] | None:
    """Run the campaign (``depth`` plies, ``target`` game-level or None) until every first guess has its
    bound, or ``max_units`` more have.  Returns, once all have, the root's bound and how it was reached
    (``value``: the least unit's bound, at least ``target`` when every unit reached it), kept in the file
    as ``finished``; else None.

    ``only_parts`` (responses, '0.5'): refine only those parts of each first guess left, the others as the file
    has them.  No unit is finished that way (its bound is no LB_depth), so it returns None; what it proves is
    in the parts' bounds, and so in :func:`standing`.  Why: at five plies a small part can take an hour and
    gain nothing, while the total waits on the big ones.

    :raises CampaignError: the file is another game's or unreadable, or ``only_parts`` not the game's.
    """
    game = Game.from_spec(spec)
    parse_parts(game, only_parts)
    before = read(path)
    if (before is not None and before.get("game") == game.spec and before.get("plan") == plan_of(depth, target)
            and before.get("leaves") == LEAVES and "finished" in before):
        log(f"{spec}: {path} finished this plan already")
        if before.get("claims"):
            amend(path, prune_claims)
        return dict(before["finished"])
    doc = start(game, depth, target, path, log)
    classes = [game.format_code(g) for g in root_classes(game)]
    todo = [g for g in classes if g not in doc["units"]]
    log(f"{spec}: {len(classes) - len(todo)} of {len(classes)} first guesses done at {depth} plies"
        + ("" if target is None else f" (target {target})") + f", {sum(map(len, doc['parts'].values()))} parts' "
        "bounds known")
    if max_units is not None:
        todo = todo[:max_units]
    if 0 < len(todo) < processes:
        log(f"{spec}: {len(todo)} unit(s) for {processes} processes: the others stay idle; to split a unit's parts "
            "(and a big part's second guesses), start this command again beside this one (one process each)")
    started = time.perf_counter()

    def done(guess: str, value: int, work: int, seconds: float) -> None:
        if only_parts is not None:
            log(f"{spec}: first guess {guess}: parts {', '.join(only_parts)} refined ({work} sets, {seconds:.0f} s)")
            return
        record_unit(path, guess, value, work, seconds)
        log(f"{spec}: first guess {guess}: T >= {value} ({work} sets, {seconds:.0f} s)")

    def cut() -> int | None:
        """The target a unit is refined for: the plan's, or with none, the least bound of the units done (a
        unit above it cannot be the least, so it stops there, fail-soft, as a best-first search would)."""
        if target is not None:
            return target
        bounds = [int(u["bound"]) for u in (read(path) or doc)["units"].values()]
        return min(bounds) if bounds else None

    if todo and processes <= 1:
        for guess in todo:
            done(*_unit(spec, path, depth, cut(), guess, None, only_parts))
    elif todo:
        _run_dask(spec, path, depth, cut(), todo, processes, done, only_parts)
    doc = read(path) or doc
    if todo:
        doc = amend(path, lambda d: d.setdefault("runs", []).append(
            {"date": datetime.date.today().isoformat(), "plan": plan_of(depth, target), "units": len(todo),
             **({} if only_parts is None else {"parts": list(only_parts)}),
             "where": f"{max(processes, 1)} process(es)", "wall_seconds": round(time.perf_counter() - started, 1)}))
    if only_parts is not None or any(g not in doc["units"] for g in classes):
        return None
    units = doc["units"]
    value = min(int(u["bound"]) for u in units.values())
    summary = {"value": value, "depth": depth, **({} if target is None else {"target": target}),
               "work": sum(int(u["work"]) for u in units.values()),
               "seconds": round(sum(max(float(doc.get("spent", {}).get(g, 0.0)), float(u["seconds"]))
                                    for g, u in units.items()), 1), "units": len(units)}
    amend(path, lambda d: d.update({"finished": {**summary, "date": datetime.date.today().isoformat()}}))
    return summary


def _run_dask(spec: str, path: str, depth: int, target: int | None, todo: list[str], processes: int,
              done: Callable[[str, int, int, float], None], only_parts: list[str] | None = None) -> None:
    from distributed import Client, as_completed

    from service.jobs.runner import local_cluster, stopped_by_sigterm, warm_process

    with stopped_by_sigterm():
        cluster = local_cluster(processes)
        client = Client(cluster)  # type: ignore[no-untyped-call]
        try:
            client.run(warm_process)
            futures = [client.submit(_unit, spec, os.path.abspath(path), depth, target, g, os.getpid(), only_parts,
                                     pure=False) for g in todo]
            for future in as_completed(futures):  # type: ignore[no-untyped-call]
                done(*future.result())
        finally:
            client.close()  # type: ignore[no-untyped-call]
            cluster.close()


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
    wanted = parse_parts(game, responses) or []
    with exclusive(path):
        doc = read(path)
        if doc is None:
            doc = {"format": FORMAT, "game": game.spec, "started": datetime.date.today().isoformat(), "plan": None,
                   "leaves": LEAVES, "parts": {}, "units": {}}
            write_json(path, doc)
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
