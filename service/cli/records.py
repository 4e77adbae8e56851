"""``bullscows records``: the games beyond four positions that people play (Super Mastermind, five-digit
Bulls-and-Cows), their best strategies and proven lower bounds (see :mod:`service.records`)."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import click

from service.campaign_files import MAX_SHARES
from service.cli.campaigns import campaign_options, refuse_campaign_options, run_campaign
from service.cli.common import (
    NOT_KNOWN,
    database_url,
    emit,
    fail,
    file_option,
    job_store,
    json_option,
    main,
    one_step_checked,
    print_table,
    say,
    shown_value,
    trees_option,
)
from service.cli.improving import (
    bound_campaign,
    bound_options,
    parts_list,
    polish_campaign,
    polish_options,
    rollout_campaign,
)

_game_option = click.option("-g", "--game", required=True, help="A records game: 5,8,1 or 5,10,0.")
"""The game of most records commands (``records check`` names the one game it can check)."""


@main.group("records")
def records_group() -> None:
    """Super Mastermind and five-digit Bulls-and-Cows: best strategy trees and proven lower bounds."""


def _spec(game: str) -> str:
    from service import records
    from solver.errors import SolverError

    try:
        return records.spec_of(game)
    except (SolverError, ValueError) as exc:
        fail(str(exc))


_RECORD_KEYS: dict[str, tuple[str, ...]] = {
    "best_known": ("total", "worst_case", "first_guess", "strategy"),
    "lower_bound": ("value", "depth"),
    "check": ("finished",),
}
"""The keys of this project's results in a records file that the commands read, by result."""


def _readable(path: str) -> dict[str, dict[str, Any]]:
    """The entries of a records file, or the command's ``error:`` line when it is not one (not JSON, no games
    list, a result that is not an object or lacks what the commands read): refused before any long
    computation starts, never a traceback."""
    from service import records

    try:
        entries = records.load(path)
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {path!r}: {exc}")
    except ValueError as exc:
        fail(str(exc))
    for spec, entry in entries.items():
        for name, keys in _RECORD_KEYS.items():
            result = entry.get(name)
            if result is None:
                continue
            missing = [k for k in keys if k not in result] if isinstance(result, dict) else list(keys)
            if missing:
                fail(f"{path!r} is not a records file: {spec}'s {name} has no {', '.join(map(repr, missing))}")
    return entries


@records_group.command("bound")
@_game_option
@click.option("--depth", type=click.IntRange(min=1, max=12), default=2, show_default=True,
              help="Plies refined below the root (each costs much more than the last).")
@bound_options
@file_option("records")
@click.option("--url", default=None,
              help="With --campaign: the database of its job (default: DATABASE_URL or the SQLite file), which "
                   "workers of other machines may share.")
@json_option
def records_bound(game: str, depth: int, target: int | None, campaign: bool, progress: str | None,
                  processes: int, max_units: int | None, only_parts: str | None,
                  path: str | None, url: str | None, as_json: bool) -> None:
    """Prove a lower bound of the game's optimal total (fewest guesses over every secret, no depth limit) by
    refining its first plies with every guess's real partition, and record it when it beats the one
    recorded.  Prints the bound's record (--json: as JSON).

    With --campaign the bound is a resumable campaign, run as a job (`bullscows campaign run` runs the same from a
    spec file): it prints the record once every unit is done, else the campaign's progress (``finished: false``),
    and the same command continues it; workers started on other machines sharing the database (--url) take
    units of it too."""
    from service import records, records_keeping

    spec = _spec(game)
    refuse_campaign_options(campaign, progress, processes, max_units, only_parts)
    file = path or records.RECORDS_FILE
    _readable(file)
    if not campaign:
        record = records_keeping.RECORDS_KEEPER.add_lower_bound(spec, depth, target=target, path=file, log=say)[0]
        emit({"game": spec, **record}, as_json)
        return
    bound_campaign("records", spec, depth, target, progress, processes, max_units, only_parts, file, url,
                    as_json)


@records_group.command("hybrid")
@_game_option
@click.option("--strategy", default="entropy", show_default=True,
              help="The one-step strategy played at positions of more than --exact-at-most candidates.")
@click.option("--exact-at-most", type=click.IntRange(min=1), default=30, show_default=True,
              help="Positions of at most this many candidates play the optimal total's guess.")
@file_option("records")
@trees_option("Where to ship the tree")
@json_option
def records_hybrid(game: str, strategy: str, exact_at_most: int, path: str | None, folder: str | None,
                   as_json: bool) -> None:
    """Build the game's hybrid tree (a one-step strategy above --exact-at-most candidates, the optimal guess
    below), play every secret through it, and ship it as the game's best-known tree when it needs fewer
    guesses than the one recorded.  Prints its record (--json: as JSON; ``kept`` says whether it was
    shipped)."""
    from service import records, records_keeping

    spec = _spec(game)
    one_step_checked(strategy)
    _readable(path or records.RECORDS_FILE)
    record = records_keeping.add_hybrid(spec, strategy, exact_at_most, path=path or records.RECORDS_FILE, folder=folder,
                                        log=say)
    emit({"game": spec, **record}, as_json)


@records_group.command("rollout")
@_game_option
@click.option("--strategy", default="entropy", show_default=True,
              help="The hybrid's one-step strategy, above --exact-at-most candidates.")
@click.option("--exact-at-most", type=click.IntRange(min=1), default=30, show_default=True,
              help="The hybrid's positions of at most this many candidates play the optimal total's guess.")
@click.option("--width", type=click.IntRange(min=1), default=4, show_default=True,
              help="Guesses tried at each rolled-out position (the best by entropy, and the hybrid's own).")
@click.option("--from-turn", type=click.IntRange(min=1), default=2, show_default=True,
              help="The first guess rolled out (2 keeps the hybrid's first guess).")
@click.option("--levels", type=click.IntRange(min=1), default=3, show_default=True,
              help="The last guess rolled out.")
@click.option("--min-size", type=click.IntRange(min=1), default=30, show_default=True,
              help="Only positions of more candidates than this are rolled out.")
@click.option("--max-guesses", type=click.IntRange(min=1), default=None,
              help="Put this worst case first: the rollout minimises the secrets beyond it, then the total, and "
                   "the hybrid's small positions keep to it where they can.")
@click.option("--over-width", type=click.IntRange(min=1), default=None,
              help="With --max-guesses: a position where the --width guesses all leave secrets beyond the limit "
                   "tries this many in all.")
@click.option("--keep-width", type=click.IntRange(min=1), default=None,
              help="With --max-guesses: the hybrid's positions of more than --exact-at-most candidates, whose parts "
                   "have 3 guesses left or fewer, play the first of this many guesses (by entropy) that leaves "
                   "every part solvable within the limit, or else a guess the worst-case search (feasible) "
                   "finds that does.")
@click.option("--play", multiple=True, metavar="'HISTORY: GUESS'",
              help="Play GUESS at the position after HISTORY instead of choosing there ('01234 0.2: 10567'); "
                   "repeat for more positions.  Everything else is rolled out around them.")
@click.option("--judge-width", type=click.IntRange(min=2), default=None,
              help="With --judge-turns: at those guesses, judge this many of the best guesses (by the hybrid's "
                   "completion) again by the rollout's own subtree below them, and play the cheapest (a nested "
                   "rollout: about this many times the work at each level judged).")
@click.option("--judge-turns", default=None, metavar="A[-B]",
              help="With --judge-width: the guesses judged by the rollout below them ('3', or '2-3').")
@click.option("--judge-pool", type=click.IntRange(min=2), default=None,
              help="With --judge-width: at the judged guesses, complete this many guesses of best entropy with the "
                   "hybrid (instead of --width), and judge the cheapest of them.")
@click.option("--polish-units", "polish_units", default=None, metavar="ABOVE,AT_MOST,SECONDS",
              help="Polish each unit once built, as `records polish` would ('60,300,60'): its positions of more than "
                   "ABOVE and at most AT_MOST candidates searched exactly for SECONDS each, so that the unit is "
                   "judged against a polished tree's subtree as an equal.")
@click.option("--units", "units", default=None, metavar="RESPONSES",
              help="Build only the units of these responses to the first guess ('0.3,1.2'): a trial of --play on "
                   "one part, judged by its unit's line on stderr.")
@click.option("--graft", is_flag=True,
              help="With --units: once those units are built, take the shipped tree's subtrees for every other "
                   "response, and judge and ship the whole tree like a finished campaign's.")
@file_option("records")
@trees_option("Where to ship the tree")
@campaign_options()
@json_option
def records_rollout(game: str, strategy: str, exact_at_most: int, width: int, from_turn: int, levels: int,
                    min_size: int, max_guesses: int | None, over_width: int | None, keep_width: int | None,
                    judge_width: int | None, judge_turns: str | None, judge_pool: int | None,
                    polish_units: str | None,
                    play: tuple[str, ...], units: str | None,
                    graft: bool, path: str | None, folder: str | None,
                    progress: str | None, processes: int, scheduler: str | None, max_units: int | None,
                    url: str | None, as_json: bool) -> None:
    """Build the game's rollout tree: at guesses --from-turn to --levels, wherever more than --min-size
    candidates are left, try --width guesses, complete each with the hybrid, and play the cheapest.  It needs
    no more guesses than the hybrid.

    It runs as a campaign of units, one per response to the first guess: a rollout job in the database (--url),
    built by a `bullscows worker` the command starts (--processes processes, or a Dask cluster's with
    --scheduler), each finished subtree kept in the database at once and written to --progress every minute and
    at the end: stopped or killed, the same command on the same database continues where it was.  When every
    unit is done, the tree is played through every secret and shipped as the best-known tree when it beats the
    one recorded.  Prints its record (or the campaign's progress; --json: as JSON); each unit is logged on
    stderr with what its subtree costs.

    --play gives the guess of chosen positions, to try a line of play (another second guess, say) with the
    rest rolled out around it; give the campaign a --progress file of its own.  --units with --graft builds only
    those parts and puts them into the shipped tree.  --judge-width with --judge-turns judges the best guesses
    at those turns by the rollout below them instead of the hybrid (the best of --judge-pool guesses there).
    --polish-units polishes each unit built."""
    from service import records, records_keeping, rollouts

    spec = _spec(game)
    plan = records_plan(spec, strategy, exact_at_most, width, from_turn, levels, min_size, max_guesses, over_width,
                         keep_width, judge_width, judge_turns, judge_pool, polish_units, play)
    _readable(path or records.RECORDS_FILE)
    file = progress or rollouts.FILE.default_path(spec)
    asked = None if units is None else units.split(",")
    try:
        records_keeping.refuse_graft(spec, asked, graft, path or records.RECORDS_FILE)
        rollout_campaign(spec, plan, file, processes, scheduler, max_units, asked, url)
        record = records_keeping.add_rollout(spec, plan, file, path=path or records.RECORDS_FILE, folder=folder,
                                             units=asked, graft=graft, log=say)
    except rollouts.CampaignError as exc:
        fail(str(exc))
    emit({"game": spec, **record}, as_json)


def records_plan(spec: str, strategy: str, exact_at_most: int, width: int, from_turn: int, levels: int,
                  min_size: int, max_guesses: int | None, over_width: int | None, keep_width: int | None,
                  judge_width: int | None, judge_turns: str | None, judge_pool: int | None, polish_units: str | None,
                  play: tuple[str, ...]) -> Any:
    """The rollout plan ``records rollout``'s options ask (a :class:`solver.rollout.RolloutPlan`), or the command's
    ``error:`` line when they do not go together (also for a steps spec made from a recorded command chain:
    ``campaign steps``)."""
    from solver.game import Game
    from solver.rollout import RolloutPlan, given_guesses

    one_step_checked(strategy)
    if levels < from_turn:
        fail(f"--levels ({levels}) must be at least --from-turn ({from_turn})")
    if over_width is not None and (max_guesses is None or over_width <= width):
        fail("--over-width widens the positions that break --max-guesses: give both, with --over-width above "
              f"--width ({width})")
    if keep_width is not None and max_guesses is None:
        fail("--keep-width keeps the hybrid to --max-guesses: give both")
    if (judge_width is None) != (judge_turns is None):
        fail("--judge-width and --judge-turns go together: how many guesses are judged, and at which guesses")
    if judge_pool is not None and (judge_width is None or judge_pool <= width):
        fail(f"--judge-pool widens the guesses the judge picks from: give it with --judge-width, above --width "
              f"({width})")
    turns = None
    if judge_turns is not None:
        first_text, _, last_text = judge_turns.partition("-")
        try:
            turns = (int(first_text), int(last_text or first_text))
        except ValueError:
            fail(f"--judge-turns {judge_turns!r}: give a guess number or a range of them ('3', '2-3')")
        if not from_turn <= turns[0] <= turns[1] <= levels:
            fail(f"--judge-turns {judge_turns}: only the rolled-out guesses can be judged, {from_turn} to {levels} "
                  "(--from-turn to --levels), the first not after the last")
    polish = None
    if polish_units is not None:
        try:
            above_text, at_most_text, budget_text = polish_units.split(",")
            polish = (int(above_text), int(at_most_text), float(budget_text))
        except ValueError:
            fail(f"--polish-units {polish_units!r}: give ABOVE,AT_MOST,SECONDS ('60,300,60')")
        if not 0 <= polish[0] < polish[1] or polish[2] < 0:
            fail(f"--polish-units {polish_units}: ABOVE below AT_MOST, and seconds 0 or more")
    try:
        given_guesses(Game.from_spec(spec), play)
    except ValueError as exc:
        fail(f"--play {exc}")
    return RolloutPlan(strategy, exact_at_most, width, levels, min_size, from_turn, max_guesses, over_width, play,
                       keep_width, judge_width, turns, polish, judge_pool)


@records_group.command("polish")
@_game_option
@click.option("--above", type=click.IntRange(min=0), default=60, show_default=True,
              help="Leave positions of this many candidates or fewer as they are (the hybrid's exact play).")
@polish_options("records", at_most=256, max_guesses="the limit the tree was built within")
@click.option("--parts", "parts", default=None, metavar="RESPONSES",
              help="Polish only below these responses to the first guess ('0.3,1.2'): the parts a rollout with "
                   "--play changed, the others being polished already.")
@json_option
def records_polish(game: str, above: int, at_most: int, budget: float, max_guesses: int | None, path: str | None,
                   folder: str | None, sweep: int | None, progress: str | None, processes: int, scheduler: str | None,
                   max_units: int | None, url: str | None, parts: str | None, as_json: bool) -> None:
    """Polish the game's best-known tree: search each of its positions of --above to --at-most candidates
    exactly, for at most --budget seconds, with its subtree's cost as the bound, and put in every cheaper
    subtree found.  Played through every secret and shipped again when it needs fewer guesses.  Prints its
    record (--json: as JSON); each part polished, then each position (proven optimal, out of time, or improved),
    is logged on stderr.  The polish runs as a job (one unit per part of the first guess) in --url's database,
    by a worker the command starts; each settled position is kept there at once and written to --progress every
    minute: stopped or killed, the same command continues where it was."""
    from service import polishes, records, records_keeping

    spec = _spec(game)
    if at_most <= above:
        fail(f"--at-most ({at_most}) must be above --above ({above})")
    _readable(path or records.RECORDS_FILE)
    file = path or records.RECORDS_FILE
    progress = progress or polishes.FILE.default_path(spec)
    try:
        tree, params = records_keeping.RECORDS_KEEPER.polish_target(
            spec, above=above, at_most=at_most, budget_s=budget, max_guesses=max_guesses, path=file, folder=folder,
            sweep=sweep, parts=None if parts is None else parts.split(","))
        stopped = polish_campaign(spec, tree, params, progress, processes, scheduler, max_units, url)
        if stopped is not None:
            emit(stopped, as_json)
            return
        record = records_keeping.RECORDS_KEEPER.add_polish(spec, tree, params, progress, path=file, folder=folder,
                                                           log=say)
    except ValueError as exc:
        fail(str(exc))
    emit({"game": spec, **record}, as_json)


@records_group.command("check")
@click.option("-g", "--game", required=True, help="A records game with a published figure to check: 5,8,1.")
@click.option("--parts", "only", default=None, metavar="RESPONSES",
              help="Solve only these responses to the first guess ('0.1,1.1'); the others stay as the file has "
                   "them.")
@click.option("--shares", type=click.IntRange(min=1, max=MAX_SHARES), default=1, show_default=True,
              help="Cut each part into this many units, each searching every N-th second guess of the part, cut by "
                   "the others' best: one big part keeps every worker busy.")
@click.option("--status", is_flag=True,
              help="Search nothing: say where the check stands in the file and the database (parts solved, "
                   "searches under way and their best totals so far, what the missing parts may still need), in "
                   "guesses of the game.")
@campaign_options("", kind=None)
@file_option("records")
@json_option
def records_check(game: str, only: str | None, shares: int, status: bool, processes: int, scheduler: str | None,
                  max_units: int | None, url: str | None, path: str | None, as_json: bool) -> None:
    """Recompute a published figure of the game with this project's search, and record whether it agrees.
    For Super Mastermind: the optimum among strategies that open with 12233 (01122, colours from 0) and then
    play only possible codes, published as 179929.

    The check runs as a job in a database (--url), one unit per part of the first guess (per share of a part
    with --shares), run by the worker the command starts (--processes, --scheduler; workers of other machines
    on the same PostgreSQL take its units too).  Each unit keeps how far its search has come in the database
    every ten seconds; the records file gets the parts solved and the searches' progress from it as they go, so the
    same command continues a stopped run where it was, from the database or, in a fresh clone, from the file.
    Each part solved is logged on stderr; the check is printed (--json: as JSON, ``finished: false`` while parts
    are missing)."""
    from service import checks
    from service.campaign_spec import CampaignSpec
    from service.records import RECORDS_FILE

    spec = _spec(game)
    file = path or RECORDS_FILE
    _readable(file)
    if status:
        if only is not None or shares != 1 or processes != 1 or scheduler is not None or max_units is not None:
            fail("--status only reads the file and the database: give it without --parts, --shares, --processes, "
                  "--scheduler or --max-units")
        try:
            report = checks.status(spec, path=file, jobs=_readable_jobs(url))
        except ValueError as exc:
            fail(str(exc))
        emit(report, as_json)
        return
    try:
        row, g, _first = checks.published_check(spec)
    except ValueError as exc:
        fail(str(exc))
    parts = parts_list(only)
    if parts is not None and not parts:
        fail("--parts: name the responses to solve ('0.1,1.1')")
    job = run_campaign(CampaignSpec.check(g, row["check"]["first_guess"], shares, parts, file), processes,
                        scheduler, max_units, url)
    if job is not None and job.status != "done":
        left = int(job.units_total) - int(job.units_done)
        say(f"{spec}: stopped after --max-units: {left} of {job.units_total} units left; run the same command again "
             "to continue")
    emit({"game": spec, **checks.recorded(spec, file)}, as_json)


def _readable_jobs(url: str | None) -> Any:
    """The job store of ``url`` (or the service's) to read a check's jobs from, None when there is none to read
    (no such SQLite file, or no job tables in it): ``records check --status`` then reads the records file alone."""
    from service.store.db import sqlite_file

    resolved = database_url(url)
    file = sqlite_file(resolved)
    if resolved.startswith("sqlite") and (file is None or not os.path.exists(file)):
        return None
    jobs = job_store(url)
    return jobs if jobs.db.has_table("job_units") else None  # no server there, no access: the file alone


@records_group.command("compare")
@_game_option
@click.option("--steps", "steps_path", required=True, type=click.Path(dir_okay=False),
              help="The other strategy's game lengths: one 'CODE LENGTH' line per secret.")
@click.option("--depth", type=click.IntRange(min=1, max=12), default=3, show_default=True,
              help="How many guesses deep the walk goes while both strategies play the same guesses.")
@trees_option("Where the best-known tree is")
@json_option
def records_compare(game: str, steps_path: str, depth: int, folder: str | None, as_json: bool) -> None:
    """Set another strategy's game lengths beside the shipped best-known tree, position by position.

    Walks down the tree while the other plays the same guesses (as far as its lengths tell) and spends a
    different number of guesses, and prints, biggest differences first, every position where the two part:
    the secrets there, the guesses each spends on them, our guess and the guesses the other's lengths allow
    (with the --play text that tries the other's where it is settled).  Prints the two strategies' figures and
    a table of those positions (--json: as JSON)."""
    import numpy as np

    from service.trees import TREE_DIR, TreeLibrary
    from solver.compare import compare, history_text, read_steps
    from solver.game import Game
    from solver.vocabulary import BEST_KNOWN

    spec = _spec(game)
    g = Game.from_spec(spec)
    try:
        with open(steps_path, encoding="utf-8") as handle:
            steps = read_steps(g, handle)
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {steps_path}: {exc}")
    except ValueError as exc:
        fail(f"{steps_path}: {exc}")
    stored = TreeLibrary(folder or TREE_DIR).get(g, BEST_KNOWN, None)
    if stored is None:
        fail(f"{spec} has no best-known tree to compare with: build one first (bullscows records rollout)")
    tree = stored.tree
    theirs = {int(k): int(v) for k, v in zip(*np.unique(steps, return_counts=True), strict=True)}
    rows = []
    for d in compare(tree, steps, depth=depth):
        position = history_text(g, d.turns)
        row = {"position": position, "secrets": d.secrets, "ours": d.ours, "theirs": d.theirs,
               "difference": d.ours - d.theirs, "our_guess": g.format_code(d.our_guess),
               "their_guesses": g.format_codes(d.their_guesses), "same_guess": d.same_guess}
        if len(d.their_guesses) == 1 and not d.same_guess:
            row["play"] = f"{position}: {g.format_code(d.their_guesses[0])}"
        rows.append(row)
    ours = tree.stats().as_dict()
    out = {"game": spec, "depth": depth,
           "ours": {k: ours[k] for k in ("total", "worst_case", "histogram")},
           "theirs": {"total": int(steps.sum()), "worst_case": int(steps.max()),
                      "histogram": {str(k): v for k, v in theirs.items()}},
           "positions": rows}

    def human(out: dict[str, Any]) -> None:
        for who in ("ours", "theirs"):
            figures = out[who]
            click.echo(f"{who:<6}  total {figures['total']}, worst case {figures['worst_case']}, lengths "
                       + " ".join(f"{k}:{v}" for k, v in figures["histogram"].items()))
        if not out["positions"]:
            click.echo(f"no position within {depth} guesses where the two strategies part")
            return
        print_table(out["positions"], [("position", "position"), ("secrets", "secrets"), ("ours", "ours"),
                                        ("theirs", "theirs"), ("difference", "difference"),
                                        ("our_guess", "our guess"), ("their_guesses", "their guesses")])

    emit(out, as_json, human)


@records_group.command("show")
@click.option("--markdown", is_flag=True, help="The table of docs/records.md (with sources and commands).")
@file_option("records", "The records file (default: the package's service/data/records.json).")
@json_option
def records_show(markdown: bool, path: str | None, as_json: bool) -> None:
    """The published strategies of each records game beside this project's tree and lower bound: a table per
    game (--markdown: the table of docs/records.md; --json: the file's entries with the published rows)."""
    from service import records

    if markdown and as_json:
        fail("--markdown and --json are two forms of the table: give one")
    entries = _readable(path or records.RECORDS_FILE)
    if markdown:
        click.echo(records.markdown(entries), nl=False)
    else:
        emit({"games": list(entries.values())}, as_json, lambda out: _print_records(out["games"]))


def _print_records(entries: list[dict[str, Any]]) -> None:
    """The records for people: per game, the published strategies, then this project's check, tree and
    proven lower bound (the figures only: `--markdown` has the sources and the commands)."""
    from service import known, records
    from solver.game import Game

    for i, entry in enumerate(entries):
        game = Game.from_spec(entry["game"])
        n = game.size
        if i:
            click.echo("")
        click.echo(f"{entry['game']}  {entry.get('name', '')}, {n} codes".replace("  ,", ","))
        # the API's headline of this file's figures (a file with fewer keys than the shipped one has none)
        with contextlib.suppress(KeyError, TypeError, ValueError):
            click.echo(f"  {known.summary(game, None, records.served_entry(entry))['headline']}")
        rows = []
        for p in entry.get("published", []):
            total = p.get("total")
            average = p.get("average") or (None if total is None else round(total / n, 5))
            rows.append({"total": total, "average": average,
                         "worst_case": p.get("worst_case"), "first_guess": p.get("first_guess"),
                         "strategy": f"published: {p.get('how', NOT_KNOWN)}"})
        check = entry.get("check")
        if check is not None and check.get("finished"):
            published = shown_value(check.get("published"))
            verdict = "reproduced" if check.get("agrees") else f"searched again: not {published}"
            rows.append({"total": check.get("value"), "average": round(check["value"] / n, 5),
                         "first_guess": check.get("first_guess"),
                         "strategy": f"this project: {check.get('how', NOT_KNOWN)}, {verdict} (colours from 0)"})
        best = entry.get("best_known")
        if best is not None:
            rows.append({"total": best["total"], "average": best.get("average"), "worst_case": best["worst_case"],
                         "first_guess": best["first_guess"], "strategy": f"this project's tree: {best['strategy']}"})
        bound = entry.get("lower_bound")
        if bound is not None:
            rows.append({"total": f"\u2265 {bound['value']}", "average": f"\u2265 {round(bound['value'] / n, 5)}",
                         "strategy": f"this project: proven lower bound of the optimum ({bound['depth']} plies "
                                     "refined)"})
        print_table(rows, [("total", "total"), ("average", "average"), ("worst_case", "worst case"),
                            ("first_guess", "first guess"), ("strategy", "strategy")], indent=2,
                     right=("total", "average"))
