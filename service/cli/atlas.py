"""``bullscows atlas``: every small game of the family solved exactly (see :mod:`solver.atlas`)."""

from __future__ import annotations

from typing import Any

import click

from service.cli.campaigns import campaign_options, refuse_campaign_options, run_campaign
from service.cli.common import (
    emit,
    emit_json,
    fail,
    file_option,
    json_option,
    main,
    one_step_checked,
    print_table,
    read_json_file,
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
from solver.vocabulary import Criterion

_VALUE_KEYS: dict[str, tuple[type, ...]] = {"exact": (bool,), "lower": (int,), "upper": (int, type(None)),
                                            "value": (int, type(None))}
"""The keys of each of an atlas entry's values, and their JSON types (bools are ints too: checked first)."""


def _atlas_problem(doc: Any) -> str | None:
    """What is wrong with an atlas file's document for the commands that read it, or None.  Checks the
    shape they rely on (each entry's game, codes, time and values), so that a file that is not an atlas
    is refused in one line rather than failing at its first missing key."""
    from solver.atlas import NAMES
    from solver.errors import SolverError
    from solver.game import Game

    if not isinstance(doc, dict) or not isinstance(doc.get("games"), list):
        return "it has no 'games' list"
    for i, entry in enumerate(doc["games"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("game"), str):
            return f"games[{i}] has no 'game'"
        where = f"game {entry['game']!r}"
        try:
            Game.from_spec(entry["game"])
        except SolverError as exc:
            return f"{where}: {exc}"
        for key in ("codes", "positions", "symbols"):
            if type(entry.get(key)) is not int:
                return f"{where}: {key!r} is not a whole number"
        if not isinstance(entry.get("seconds"), (int, float)) or isinstance(entry.get("seconds"), bool):
            return f"{where}: 'seconds' is not a number"
        values = entry.get("values")
        if not isinstance(values, dict):
            return f"{where} has no 'values'"
        for name in NAMES:
            value = values.get(name)
            if not isinstance(value, dict):
                return f"{where} has no value {name!r}"
            for key, types in _VALUE_KEYS.items():
                got = value.get(key)
                if (isinstance(got, bool) and bool not in types) or not isinstance(got, types):
                    return f"{where}: {name}.{key} is {got!r}"
    return None


def _atlas_entries(path: str | None) -> tuple[str, dict[str, dict[str, Any]]]:
    """(the atlas file of ``--file``, its entries by game): none when it does not exist yet, the command's
    ``error:`` line when it is not an atlas file."""
    import os

    from service import atlas

    file = path or atlas.ATLAS_FILE
    if not os.path.exists(file):
        return file, {}
    problem = _atlas_problem(read_json_file(file, "an atlas file"))
    if problem is not None:
        fail(f"{file!r} is not an atlas file: {problem}")
    return file, atlas.load(file)


def _print_atlas(entries: list[dict[str, Any]]) -> None:
    """Atlas entries for people: one game per line, a bound shown as [lower, upper] (``atlas.shown``)."""
    from service import atlas
    from solver.atlas import NAMES

    rows = []
    for e in entries:
        cells = [atlas.shown(e["values"][name]) for name in NAMES]
        rows.append({"game": e["game"], "codes": e["codes"], "T": cells[0], "average": atlas.average(e),
                     "W": cells[1], "T_W": cells[2], "D": cells[3], "W-movers": cells[4], "seconds": e["seconds"]})
    print_table(rows, [(k, k) for k in ("game", "codes", "T", "average", "W", "T_W", "D", "W-movers", "seconds")],
                 right=("T", "W", "T_W", "D", "W-movers"))


@main.group("atlas")
def atlas_group() -> None:
    """The atlas: optimal totals, worst cases and movers of every game up to 8192 codes."""


@atlas_group.command("run")
@click.option("-g", "--game", "games", multiple=True,
              help="Only these games ('positions,symbols,repetition', e.g. 4,7,1); default: every atlas game.")
@click.option("--max-codes", type=click.IntRange(min=1), default=None,
              help="Only the atlas games with at most this many codes.")
@click.option("--budget", type=click.FloatRange(min=0.1), default=600.0, show_default=True,
              help="Wall-clock seconds per search; a search cut by it leaves bounds, to be resumed later.")
@campaign_options(kind=None)
@file_option("atlas")
@json_option
def atlas_run(games: tuple[str, ...], max_codes: int | None, budget: float, processes: int, scheduler: str | None,
              max_units: int | None, url: str | None, path: str | None, as_json: bool) -> None:
    """Compute the atlas entries that are not finished, smallest game first.

    The games are computed as a job in a database (--url), one unit per game, by the worker the command starts
    (--processes games at once, --scheduler, --max-units; workers of other machines on the same PostgreSQL take
    games too).  The file gets each game's entry as soon as it is computed, so the command can be stopped at any
    time and run again: finished games are kept, games left with bounds are computed again.  Each search is logged
    on stderr; at the end the chosen games' entries are printed as `atlas show` prints them (--json: their
    entries)."""
    from service import atlas
    from solver.atlas import ATLAS_MAX_CODES, atlas_games
    from solver.errors import SolverError
    from solver.game import Game

    chosen = atlas_games()
    if games:
        try:
            wanted = [Game.from_spec(g) for g in games]
        except SolverError as exc:
            fail(str(exc))
        known = {g.spec for g in chosen}
        outside = [g.spec for g in wanted if g.spec not in known]
        if outside:
            fail(f"not atlas games (2-8 positions, 2-10 symbols, at most {ATLAS_MAX_CODES} codes): "
                  f"{', '.join(outside)}")
        chosen = [g for g in chosen if g.spec in {w.spec for w in wanted}]
    if max_codes is not None:
        chosen = [g for g in chosen if g.size <= max_codes]
    file, _ = _atlas_entries(path)
    if chosen:
        from service.campaign_spec import CampaignSpec

        run_campaign(CampaignSpec.atlas(chosen, budget, file), processes, scheduler, max_units, url)
    entries = atlas.load(file)
    done = [entries[g.spec] for g in chosen if g.spec in entries]
    emit({"games": done}, as_json, lambda out: _print_atlas(out["games"]))


@atlas_group.command("one-step")
@click.option("-g", "--game", "games", multiple=True, help="Only these games (default: every entry without them).")
@file_option("atlas")
@json_option
def atlas_one_step(games: tuple[str, ...], path: str | None, as_json: bool) -> None:
    """Build the one-step strategies' whole trees of the entries that lack them (entropy, most parts,
    minimax, expected size): they give the best strategy known of an unsolved game, and lower its open
    upper bounds to what a played-out tree proves.  No search; seconds per game."""
    from service import atlas_keeping
    from solver.errors import SolverError
    from solver.game import Game

    file, entries = _atlas_entries(path)
    try:
        specs = [Game.from_spec(g).spec for g in games] if games else None
    except SolverError as exc:
        fail(str(exc))
    missing = [s for s in specs or [] if s not in entries]
    if missing:
        fail(f"not in the atlas file: {', '.join(missing)}")
    changed = atlas_keeping.add_one_step(specs, path=file, log=say)
    emit({"changed": changed}, as_json,
          lambda out: click.echo(f"{len(out['changed'])} entries given their one-step trees"
                                 + (f": {', '.join(out['changed'])}" if out["changed"] else "")))


@atlas_group.command("hybrid")
@click.option("-g", "--game", "games", multiple=True, required=True, help="Unsolved atlas games ('5,6,1').")
@click.option("--exact-at-most", type=click.IntRange(min=1), default=200, show_default=True,
              help="Positions of at most this many candidates play the optimal total's guess.")
@click.option("--strategy", default=None,
              help="The one-step strategy above that size (default: the game's best one-step strategy).")
@file_option("atlas")
@trees_option("Where to ship the tree")
@click.option("--rollout-width", type=click.IntRange(min=1), default=None,
              help="Roll the hybrid out (solver.rollout): try this many guesses besides the hybrid's own at its "
                   "top positions, each completed by the hybrid, and play the cheapest.")
@click.option("--rollout-from-turn", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --rollout-width: the first guess rolled out.")
@click.option("--rollout-levels", type=click.IntRange(min=1), default=3, show_default=True,
              help="With --rollout-width: the last guess rolled out.")
@click.option("--rollout-min-size", type=click.IntRange(min=1), default=None,
              help="With --rollout-width: only positions of more candidates than this (default --exact-at-most).")
@click.option("--max-guesses", type=click.IntRange(min=1), default=None,
              help="Keep to this many guesses first (the game's W: the tree then bounds T_W as well as T).")
@campaign_options("With --rollout-width. ")
@json_option
def atlas_hybrid(games: tuple[str, ...], exact_at_most: int, strategy: str | None, path: str | None,
                 folder: str | None, rollout_width: int | None, rollout_from_turn: int, rollout_levels: int,
                 rollout_min_size: int | None, max_guesses: int | None, progress: str | None, processes: int,
                 scheduler: str | None, max_units: int | None, url: str | None, as_json: bool) -> None:
    """Build an unsolved game's hybrid tree (a one-step strategy above --exact-at-most candidates, the
    optimal guess below) and, when it beats the game's trees so far, ship it as the game's best-known
    tree and lower the open upper bounds to what it proves.  Game by game, the file saved after each.

    With --rollout-width the hybrid is rolled out, as a campaign of units (one per response to the first
    guess): a rollout job in the database (--url) built by a `bullscows worker` the command starts, each subtree
    kept there once built and written to the progress file every minute and at the end: stopped or killed, the
    same command on the same database continues it.
    Prints, game by game, the tree kept (or that none was); --json: each game's record, null when none was
    kept or units are left."""
    from service import atlas, atlas_keeping, rollouts
    from solver.errors import SolverError
    from solver.game import Game

    file, entries = _atlas_entries(path)
    if strategy is not None:
        one_step_checked(strategy)
    try:
        specs = [Game.from_spec(g).spec for g in games]
    except SolverError as exc:
        fail(str(exc))
    for spec in specs:
        if not atlas.unsolved(entries.get(spec)):
            fail(f"{spec} is not an unsolved atlas game with its one-step trees (see `bullscows atlas one-step`)")
    if progress is not None and (rollout_width is None or len(specs) > 1):
        fail("--progress names one game's rollout campaign: give it with --rollout-width and one --game")
    rollout = None
    if rollout_width is not None:
        if rollout_levels < rollout_from_turn:
            fail(f"--rollout-levels ({rollout_levels}) must be at least --rollout-from-turn ({rollout_from_turn})")
        rollout = {"width": rollout_width, "from_turn": rollout_from_turn, "levels": rollout_levels,
                   "min_size": rollout_min_size or exact_at_most}
    kept: dict[str, Any] = {}
    for spec in specs:
        try:
            file_of = None
            if rollout is not None:
                file_of = progress or rollouts.FILE.default_path(spec)
                plan = atlas_keeping.rollout_plan(spec, exact_at_most, strategy, rollout, max_guesses, file)
                rollout_campaign(spec, plan, file_of, processes, scheduler, max_units, None, url)
            kept[spec] = atlas_keeping.add_hybrid(spec, exact_at_most, strategy, path=file, folder=folder,
                                                  rollout=rollout, max_guesses=max_guesses, progress=file_of, log=say)
        except rollouts.CampaignError as exc:
            fail(str(exc))
    emit({"games": kept}, as_json, lambda out: _print_kept(out["games"], "no better tree kept (or units left)"))


def _print_kept(records: dict[str, dict[str, Any] | None], none: str) -> None:
    """Game by game, the tree a command kept (its total and worst case), or ``none``."""
    for spec, record in records.items():
        if record is None:
            click.echo(f"{spec}: {none}")
        else:
            how = record.get("strategy") or ("" if "above" not in record else  # a hybrid's record names its parts
                                               f"{record['above']} above {record.get('exact_at_most')} candidates")
            click.echo(f"{spec}: kept {shown_value(how or None)}, total {shown_value(record.get('total'))}, "
                       f"worst case {shown_value(record.get('worst_case'))}")


@atlas_group.command("polish")
@click.option("-g", "--game", required=True, help="An unsolved atlas game with a best-known tree ('8,3,1').")
@click.option("--above", type=click.IntRange(min=0), default=None,
              help="Leave positions of this many candidates or fewer as they are (default: the tree's "
                   "--exact-at-most, where it plays the optimum already).")
@polish_options("atlas", at_most=400, max_guesses="the game's W when it is exact and the tree keeps it",
                 sweep=": for the deep games, where the search alone runs out of time on a hundred candidates")
@json_option
def atlas_polish(game: str, above: int | None, at_most: int, budget: float, max_guesses: int | None,
                 path: str | None, folder: str | None, sweep: int | None, progress: str | None, processes: int,
                 scheduler: str | None, max_units: int | None, url: str | None, as_json: bool) -> None:
    """Polish an unsolved game's best-known tree: search each of its positions of --above to --at-most
    candidates exactly, for at most --budget seconds, with its subtree's cost as the bound, and put in every
    cheaper subtree found.  Played through every secret; kept, and the upper bounds it proves applied, when it
    needs fewer guesses.  The polish runs as a job (one unit per part of the first guess) in --url's database, by
    a worker the command starts; each settled position is kept there at once and written to --progress every
    minute: stopped or killed, the same command continues where it was."""
    from service import atlas, atlas_keeping, polishes

    file, spec, entry = _entry_of(game, path)
    if entry is None or atlas.finished(entry) or entry.get("hybrid") is None:
        fail(f"{spec} is not an unsolved atlas game with a best-known tree (see `bullscows atlas hybrid`)")
    low = int(entry["hybrid"]["exact_at_most"]) if above is None else above
    if at_most <= low:
        fail(f"--at-most ({at_most}) must be above --above ({low})")
    progress = progress or polishes.FILE.default_path(spec)
    try:
        tree, params = atlas_keeping.ATLAS_KEEPER.polish_target(spec, above=low, at_most=at_most, budget_s=budget,
                                                                max_guesses=max_guesses, path=file, folder=folder,
                                                                sweep=sweep)
        stopped = polish_campaign(spec, tree, params, progress, processes, scheduler, max_units, url)
        if stopped is not None:
            emit(stopped, as_json)
            return
        judged = atlas_keeping.ATLAS_KEEPER.add_polish(spec, tree, params, progress, path=file, folder=folder, log=say)
    except ValueError as exc:
        fail(str(exc))
    record = judged if judged.pop("kept") else None
    emit({"games": {spec: record}}, as_json, lambda out: _print_kept(out["games"], "the tree is not better: not kept"))


def _entry_of(game: str, path: str | None) -> tuple[str, str, dict[str, Any] | None]:
    """(the atlas file, the game's spec, its entry there or None) of ``-g`` and ``--file``; a game that is no game
    is refused."""
    from solver.errors import SolverError
    from solver.game import Game

    try:
        spec = Game.from_spec(game).spec
    except SolverError as exc:
        fail(str(exc))
    file, entries = _atlas_entries(path)
    return file, spec, entries.get(spec)


@atlas_group.command("bounds")
@click.option("-g", "--game", "games", multiple=True,
              help="Unsolved atlas games ('6,7,0'; default: every unsolved game).")
@click.option("--depth", type=click.IntRange(min=1, max=12), default=3, show_default=True,
              help="Plies refined below the root (each costs much more than the last).")
@click.option("--url", default=None,
              help="Without --campaign: a database whose positions table (the positions a solve proved) the "
                   "bound starts from, and keeps the root parts' bounds in for the searches that follow. With "
                   "--campaign: the database of its job (default: DATABASE_URL or the SQLite file).")
@bound_options
@file_option("atlas")
@json_option
def atlas_bounds(games: tuple[str, ...], depth: int, target: int | None, url: str | None, campaign: bool,
                 progress: str | None, processes: int, max_units: int | None, only_parts: str | None,
                 path: str | None, as_json: bool) -> None:
    """Prove lower bounds of unsolved games' optimal totals by refining their first plies (every
    guess's real partition instead of a perfect one), and raise T's and T_W's lower bounds to them.
    Game by game, the file saved after each; a bound below the one recorded changes nothing.

    With --campaign the bound is a resumable campaign, run as a job (`bullscows campaign run SPEC --keep` runs
    the same from a spec file, campaigns/README.md): it prints the record once every unit is done, else the
    campaign's progress (``finished: false``), and the same command continues it; workers started on other
    machines sharing the database (--url) take units of it too.
    Prints each game's bound record (--json: as JSON, one line per game)."""
    from service import atlas, atlas_keeping
    from solver.errors import SolverError
    from solver.game import Game

    file, entries = _atlas_entries(path)
    try:
        specs = [Game.from_spec(g).spec for g in games] or [s for s, e in entries.items() if not atlas.finished(e)]
    except SolverError as exc:
        fail(str(exc))
    for spec in specs:
        if spec not in entries or entries[spec]["values"]["total"]["exact"]:
            fail(f"{spec} is not an atlas game with an unproven total")
    if target is not None and len(games) != 1:
        fail("--target is one game's total: name exactly one game with -g")
    refuse_campaign_options(campaign, progress, processes, max_units, only_parts)
    if campaign:
        if len(games) != 1:
            fail("--campaign runs one game's bound: name exactly one game with -g")
        bound_campaign("atlas", specs[0], depth, target, progress, processes, max_units, only_parts, file, url,
                        as_json)
        return
    for spec in specs:
        known, keep = (None, None) if url is None else _table_of(spec, url)
        record, got = atlas_keeping.ATLAS_KEEPER.add_lower_bound(spec, depth, path=file, known=known, target=target,
                                                                 log=say)
        if keep is not None:
            kept = keep(got)
            click.echo(f"# {spec}: {kept} root parts' bounds kept in the positions table", err=True)
        emit({"game": spec, **record}, as_json)


def _table_of(spec: str, url: str) -> tuple[Any, Any]:
    """(what the positions table of ``url`` proves of a set of the game's totals without a depth limit,
    a function keeping a bound's root parts there as lower-bound entries)."""
    import numpy as np

    from service.cli.common import database_url
    from service.engine import warm_searcher
    from service.store.db import Database
    from service.store.migrate import upgrade
    from service.store.positions import PositionStore
    from solver.game import Game
    from solver.lowerbound import RootBound
    from solver.search import SolveOptions
    from solver.table import MMAX, Entry

    db_url = database_url(url)
    upgrade(db_url)
    store = PositionStore(Database(db_url))
    click.get_current_context().call_on_close(store.close)  # its connections close with the command
    table = warm_searcher(store, Game.from_spec(spec), SolveOptions(Criterion.TOTAL)).table()
    key = table.key

    def known(codes: tuple[int, ...]) -> tuple[int, int] | None:
        got = table.probe(np.array(codes, dtype=np.int32), MMAX, 2)
        return None if got is None else (got[0], got[1])

    def keep(bound: RootBound) -> int:
        entries = [Entry(key, p.codes, MMAX, 2, p.exact, p.lower, None, 1) for p in bound.parts
                   if not p.exact and len(p.codes) > 2]
        return store.save_entries(entries, source=f"bounds:{bound.depth}")

    return known, keep


@atlas_group.command("show")
@click.option("--markdown", is_flag=True, help="A Markdown table (docs/atlas.md is made with it).")
@file_option("atlas", "The atlas file (default: the package's).")
@json_option
def atlas_show(markdown: bool, path: str | None, as_json: bool) -> None:
    """The atlas's numbers, one game per line; bounds are shown as [lower, upper] ('?' for an upper bound
    not known yet).  --json prints the file's entries."""
    from service import atlas
    from solver.atlas import NAMES

    if markdown and as_json:
        fail("--markdown and --json are two forms of the table: give one")
    _, entries = _atlas_entries(path)
    if not entries:
        fail("the atlas is empty: run `bullscows atlas run`")
    if as_json:
        emit_json({"games": list(entries.values())})
        return
    if not markdown:
        _print_atlas(list(entries.values()))
        return
    click.echo("| game | positions | symbols | repetition | codes | T | average | W | T_W | D | W-movers | seconds |")
    click.echo("|---|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in entries.values():
        cells = [atlas.shown(e["values"][name]) for name in NAMES]
        mean = atlas.average(e)
        average = "" if mean is None else f"{mean:.4f}"
        rep = "yes" if e["repetition"] else "no"
        mark = " ‡" if e.get("sources") else ""  # started from a campaign's proofs (docs/atlas.md)
        click.echo(f"| {e['game']} | {e['positions']} | {e['symbols']} | {rep} | {e['codes']} | {cells[0]} | "
                   f"{average} | {' | '.join(cells[1:])} | {e['seconds']:.1f}{mark} |")


@atlas_group.command("trees")
@click.option("-g", "--game", "games", multiple=True, help="Only these games (default: every exact atlas game).")
@click.option("--folder", default=None, help="Trees folder (default: the package's service/data/trees).")
@file_option("atlas", "The atlas file (default: the package's).")
def atlas_trees(games: tuple[str, ...], folder: str | None, path: str | None) -> None:
    """Build the optimal trees of the atlas's exact games (total, and fewest W-movers) into the shipped
    trees, each checked against the atlas's numbers: next-move then answers those games from them."""
    from service import atlas_keeping
    from solver.errors import SolverError
    from solver.game import Game

    try:
        specs = [Game.from_spec(g).spec for g in games] if games else None
    except SolverError as exc:
        fail(str(exc))
    file, _ = _atlas_entries(path)
    try:
        atlas_keeping.build_trees(specs, path=file, folder=folder, log=lambda line: click.echo(line, err=True))
    except RuntimeError as exc:
        fail(str(exc))


@atlas_group.command("settle")
@click.option("-g", "--game", required=True, help="An unsolved atlas game ('6,7,0').")
@click.option("--parts", "responses", required=True, metavar="RESPONSES",
              help="The responses to the first guess whose parts to settle ('0.6,1.5').")
@click.option("--progress", type=click.Path(dir_okay=False), default=None,
              help="The lower-bound campaign's progress file (default: bounds-<game>.json in the campaigns "
                   "folder: bullscows --campaigns).")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop after this many seconds of wall-clock time (what was proven is kept; the same command "
                   "continues).")
@click.option("--kernel-at-most", type=click.IntRange(min=2), default=60, show_default=True,
              help="Sets of at most this many codes go to the exact search; bigger ones are swept.")
@file_option("atlas")
@json_option
def atlas_settle(game: str, responses: str, progress: str | None, seconds: float | None, kernel_at_most: int,
                 path: str | None, as_json: bool) -> None:
    """Settle parts of an unsolved game exactly: the optimal total of the part each named response to the
    first guess leaves, by a sweep of its guesses (best refined bound first, small sets searched exactly),
    kept in the lower-bound campaign's progress file as the part's exact bound.  The root's bound the file then
    proves is recorded when it beats the atlas's.  Long: each guess's progress is kept as it is proven, and
    the same command continues a run stopped by --seconds or a kill."""
    from service import atlas_keeping, bound_campaigns

    file, spec, entry = _entry_of(game, path)
    if entry is None or entry["values"]["total"]["exact"]:
        fail(f"{spec} is not an atlas game with an unproven total")
    parts = parts_list(responses) or []
    try:
        rows, record = atlas_keeping.settle_parts(spec, parts, progress=progress, seconds=seconds,
                                                  kernel_at_most=kernel_at_most, path=file, log=say)
    except bound_campaigns.CampaignError as exc:
        fail(str(exc))
    emit({"game": spec, "parts": rows, "lower_bound": record}, as_json)


@atlas_group.command("gaps")
@click.option("-g", "--game", required=True, help="An unsolved atlas game with a best-known tree ('6,7,0').")
@click.option("--progress", type=click.Path(dir_okay=False), default=None,
              help="The lower-bound campaign's progress file (default: bounds-<game>.json in the campaigns "
                   "folder: bullscows --campaigns).")
@trees_option("Where the best-known tree is")
@click.option("--below", default=None, metavar="RESPONSES",
              help="Look inside a part instead: the sets the tree's next guess leaves after these responses "
                   "('0.5', or '0.5 1.4' one level further), each against its bound refined --depth plies now.")
@click.option("--depth", type=click.IntRange(min=1, max=6), default=2, show_default=True,
              help="With --below: plies refined for each set's bound.")
@json_option
def atlas_gaps(game: str, progress: str | None, folder: str | None, below: str | None, depth: int,
               as_json: bool) -> None:
    """Where an unsolved game's bracket of T lies: for each response to the best-known tree's first guess, the
    guesses the tree spends on that part against the bound its lower-bound campaign proves, widest gap first.
    A part with no gap is optimal under that first guess; the others are where a deeper bound or a better
    subtree can narrow the bracket.  With --below, the same one level down inside a part, the bounds refined
    now."""
    from service import bound_campaigns
    from service.trees import TREE_DIR, TreeLibrary
    from solver.errors import SolverError
    from solver.game import Game

    try:
        g = Game.from_spec(game)
    except SolverError as exc:
        fail(str(exc))
    stored = TreeLibrary(folder or TREE_DIR).get(g, "best-known", None)
    if stored is None:
        fail(f"{g.spec} has no best-known tree (see `bullscows atlas hybrid`)")
    if below is not None:
        if progress is not None:
            fail("--below refines its sets' bounds now: leave out --progress")
        try:
            path_ = [g.parse_response(text) for text in below.replace(",", " ").split()]
            report = bound_campaigns.gaps_below(g, stored.tree, path_, depth)
        except (SolverError, bound_campaigns.CampaignError) as exc:
            fail(str(exc))
        if as_json:
            emit_json(report)
            return
        click.echo(f"{report['game']}: after {' '.join(report['moves'][:-1])} (responses {report['path']}), the tree "
                   f"plays {report['moves'][-1]} and spends {report['upper']}; its sets' {depth}-ply bounds add up "
                   f"to {report['lower']} (gap {report['gap']})")
        print_table(report["parts"], [("response", "response"), ("codes", "codes"), ("upper", "tree"),
                                       ("lower", "bound"), ("gap", "gap")])
        return
    path = progress or bound_campaigns.default_path(g.spec)
    try:
        doc = bound_campaigns.read(path)
    except bound_campaigns.CampaignError as exc:
        fail(str(exc))
    if doc is None:
        fail(f"{path}: no lower-bound campaign of {g.spec} there (see `bullscows atlas bounds --campaign`)")
    try:
        report = bound_campaigns.gaps(g, doc, stored.tree)
    except bound_campaigns.CampaignError as exc:
        fail(str(exc))
    if as_json:
        emit_json(report)
        return
    standing = "" if report.get("standing") is None else f"; T >= {report['standing']} over every first guess"
    click.echo(f"{report['game']}: first guess {report['first_guess']}: the tree spends {report['upper']}, the parts' "
               f"bounds add up to {report['lower']} (gap {report['gap']}){standing}")
    print_table(report["parts"], [("response", "response"), ("codes", "codes"), ("upper", "tree"),
                                   ("lower", "bound"), ("plies", "plies"), ("gap", "gap")])
