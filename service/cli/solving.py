"""Solving commands: next, partition, solve (also as a job), feasible (``tree``: :mod:`service.cli.tree`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from service.campaign_files import MAX_SHARES
from service.cli.common import (
    NOT_KNOWN,
    criterion_parsed,
    emit_json,
    fail,
    game_and_turns,
    game_options,
    history_options,
    job_store,
    json_option,
    main,
    print_table,
    say,
    search_options,
    shown_value,
    solver_errors,
)
from solver.vocabulary import CRITERION_NAMES, DEFAULT_STRATEGY, STRATEGIES, Criterion, criterion_of

if TYPE_CHECKING:
    from service.config import Settings
    from solver.game import Game, Turn


def _settings_within(time_budget_ms: int | None) -> Settings:
    """The service's settings, once ``time_budget_ms`` is held to their ceiling: a budget past it is refused as a
    request's is, in the schema's words."""
    from service.config import Settings

    settings = Settings()
    if time_budget_ms is not None and time_budget_ms > settings.max_time_budget_ms:
        fail(f"time_budget_ms: must be at most {settings.max_time_budget_ms} (the service's "
              f"BULLSCOWS_MAX_TIME_BUDGET_MS), got {time_budget_ms}")
    return settings


def _chain(url: str | None) -> Any:
    """The answer chain of a command: the shipped trees, and the table of ``url`` (or ``DATABASE_URL``)
    when one is given, else no database; its connections close with the command."""
    from service.answers import AnswerChain
    from service.config import Settings

    settings = Settings()
    chain = AnswerChain.open(url or settings.database_url, settings)
    click.get_current_context().call_on_close(chain.close)
    return chain


_chain_url_option = click.option(
    "--url", default=None,
    help="Database URL of a table to read and write (default: DATABASE_URL if set, else none).")
"""The table of the answer chain; unlike the admin commands, no SQLite file by default: a script
asking for a move leaves nothing behind unless told where to keep it."""


@main.command("next")
@game_options
@history_options
@click.option("--strategy", "-s", default=DEFAULT_STRATEGY, show_default=True,
              help="Strategy, as for POST /v1/next-move: " + ", ".join(STRATEGIES) + ".")
@click.option("--max-guesses", type=click.IntRange(1, 63), default=None,
              help="Optimal strategies: guesses allowed in the whole game (needed by optimal-kmovers).")
@click.option("--time-budget-ms", type=click.IntRange(min=1), default=None,
              help="Wall-clock budget: optimal strategies search within it (default: the service's, "
                   "BULLSCOWS_DEFAULT_TIME_BUDGET_MS, 2000) before their heuristic answers; one-step strategies, "
                   "when it is given, stop scoring at it and answer with the best guess scored so far.")
@click.option("--from-set-only", is_flag=True, help="One-step strategies: only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@_chain_url_option
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON (the keys of POST /v1/next-move) instead of the guess alone.")
@solver_errors
def next_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, max_guesses: int | None, time_budget_ms: int | None, from_set_only: bool, seed: int,
             url: str | None, as_json: bool) -> None:
    """Best next guess after a history of turns.

    The same answer chain as POST /v1/next-move: a shipped proven tree (under any relabelling of
    the history), the table of --url, an exact search within --time-budget-ms, else (exact false) the
    criterion's heuristic with a note.

    Prints the guess alone (its number and the candidates left on stderr, at a terminal), or, after a
    history whose last turn is all bulls, that the game is solved; --json prints the API's answer.
    """
    import time

    if strategy not in STRATEGIES:
        fail(f"unknown strategy {strategy!r}; strategies are: {', '.join(STRATEGIES)}")
    _settings_within(time_budget_ms)
    t0 = time.perf_counter()
    g, history = game_and_turns(game, alphabet, turns)
    cands = g.candidates(history)
    criterion = criterion_of(strategy)
    if criterion is None:
        max_guesses = None  # one-step strategies take no limit, as the API's answer says
    elif criterion == Criterion.KMOVERS and max_guesses is None:
        from service.rules import max_guesses_of  # the API's rule: the game's proven smallest worst case

        max_guesses = max_guesses_of(g, criterion, None)
    move = _chain(url).next_move(g, history, cands, strategy, max_guesses=max_guesses, budget_ms=time_budget_ms,
                                 seed=seed, from_set_only=from_set_only)
    out = {"game": g.name, **move.as_dict(g, history, cands, strategy, (time.perf_counter() - t0) * 1000),
           "max_guesses": max_guesses}
    if as_json:
        emit_json(out)
        return
    if out.get("guess") is None:  # a won history is a finished game: no guess to make (service.answers)
        secret = out.get("secret") or (out.get("candidate_list") or [NOT_KNOWN])[0]
        click.echo(f"solved: the secret is {secret}, found at guess {len(history)}")
        return
    click.echo(out["guess"])
    if sys.stdout.isatty():
        shown = out["candidate_list"]
        rest = f": {' '.join(shown)}" if shown else ""
        click.echo(f"# guess {out['guess_number']}, {out['candidates']} candidates{rest}", err=True)
    if move.note:
        click.echo(f"# {move.note}", err=True)


@main.command("partition")
@game_options
@history_options
@click.option("--guess", required=True, help="The guess whose partition to show.")
@click.option("--criterion", "-c", type=click.Choice(CRITERION_NAMES), default=Criterion.TOTAL.value, show_default=True,
              callback=criterion_parsed, help="What the optimal values count (as for solve).")
@click.option("--max-guesses", type=click.IntRange(1, 63), default=None,
              help="Guesses allowed in the whole game (kmovers: default the game's proven smallest worst case).")
@click.option("--time-budget-ms", type=click.IntRange(min=1), default=None,
              help="Wall-clock budget of the searches of the optimal values (default: the service's, "
                   "BULLSCOWS_DEFAULT_TIME_BUDGET_MS); what it does not reach is left out, with a note.")
@_chain_url_option
@json_option
@solver_errors
def partition_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
                  guess: str, criterion: Criterion, max_guesses: int | None, time_budget_ms: int | None,
                  url: str | None,
                  as_json: bool) -> None:
    """Why this guess: how the candidates split by their response to it (a table of responses, in the game's
    words, and part sizes, the largest part first), the expected and largest part, and, when known within the
    budget, the position's optimal value and the guess's own.  The same explanation as POST /v1/explain;
    --json prints its answer."""
    from service.explain import explain
    from service.rules import max_guesses_of
    from solver.question import SolveOptions

    settings = _settings_within(time_budget_ms)
    g, history = game_and_turns(game, alphabet, turns)
    cands = g.candidates(history)
    code = g.parse_code(guess)
    options = SolveOptions(criterion, max_guesses_of(g, criterion, max_guesses))
    out = explain(_chain(url), g, history, cands, code, options,
                  time_budget_ms or settings.default_time_budget_ms).as_dict()
    if as_json:
        emit_json(out)
        return
    possible = "a possible secret" if out["is_candidate"] else "not a possible secret"
    click.echo(f"guess {out['guess']} (guess {out['guess_number']}), {out['candidates']} candidates, {possible}")
    print_table(out["parts"], [("response", "response"), ("words", "in words"), ("candidates", "candidates")])
    click.echo(f"parts: {out['part_count']}, largest: {out['largest']}, expected size: {out['expected_size']:.2f}, "
               f"entropy: {out['entropy_bits']:.3f} bits")
    opt = out["optimal"]
    what = "total guesses" if criterion == Criterion.TOTAL else f"{opt['max_guesses']}-movers"
    pos, val = opt["position"], opt["guess"]
    if pos is not None and pos["value"] is not None:
        per = f" ({pos['average']:.4f} a secret)" if pos["average"] is not None else ""
        click.echo(f"optimal {what}: {pos['value']}{per} with {shown_value(pos['best_guess'])}, from {opt['source']}")
    if val is not None and val["value"] is not None:
        per = f" ({val['average']:.4f} a secret)" if val["average"] is not None else ""
        verdict = "optimal" if val["is_best"] else (
            f"{val['value'] - pos['value']} more than optimal" if pos is not None and pos["value"] is not None
            else "the optimum is not known")
        click.echo(f"this guess: {val['value']}{per}, {verdict}")
    if opt["note"]:
        click.echo(f"note: {opt['note']}")


@main.command("solve")
@game_options
@history_options
@click.option("--criterion", "-c", type=click.Choice(CRITERION_NAMES), default=Criterion.TOTAL.value,
              show_default=True, callback=criterion_parsed,
              help="total: fewest guesses in all; kmovers: fewest secrets needing exactly --max-guesses guesses.")
@search_options
@click.option("--from-set-only", is_flag=True,
              help="Try only candidates (on the turns after --mde, or everywhere without it).")
@click.option("--guess", default=None, help="Evaluate this next guess instead of finding the best.")
@click.option("--node-limit", type=int, default=0, help="Stop after this many nodes (0: none).")
@click.option("--search", is_flag=True,
              help="Search from nothing: no proven tree, no shipped knowledge, no table (to measure a search, or "
                   "to prove a position again).")
@json_option
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--job", "as_job", is_flag=True,
              help="Submit as a durable job (run by `bullscows worker`) and follow it.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="With --job: follow the job to its end, or print its id and return.")
@click.option("--url", default=None,
              help="Database URL: the table to read and write (default: DATABASE_URL if set, else none); with "
                   "--job or --checkpoint, the jobs' database (default: DATABASE_URL or the service's SQLite file).")
@click.option("--checkpoint", "checkpoint", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Search from nothing (as --search) as a job in the jobs' database (--url), keeping how far it has "
                   "come in the database (every ten seconds) and in FILE: the same command with the same FILE "
                   "continues a stopped search where it was, and answers at once once it is done.")
@click.option("--shares", type=click.IntRange(min=1, max=MAX_SHARES), default=1, show_default=True,
              help="With --checkpoint: cut the search into this many units, each trying every N-th guess of the "
                   "position, cut by the others' best.")
@click.option("--processes", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --checkpoint: processes of the worker the command starts (units run at once).")
@click.option("--scheduler", default=None,
              help="With --checkpoint: a Dask scheduler's address (tcp://host:8786) the command's worker runs on.")
@click.option("--max-units", type=click.IntRange(min=1), default=None,
              help="With --checkpoint: stop after this many units (the same command continues).")
@solver_errors
def solve_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
              criterion: Criterion, max_guesses: int | None, depth_count: int | None, mde: int | None,
              upper_bound: int | None, from_set_only: bool, guess: str | None, node_limit: int,
              search: bool, as_json: bool, progress: bool | None, as_job: bool, wait: bool,
              url: str | None, checkpoint: str | None, shares: int, processes: int, scheduler: str | None,
              max_units: int | None) -> None:
    """Exact value of a position, its best guess and the value after each response.

    The same answer chain as POST /v1/solve: a shipped proven tree (under any relabelling of the
    history) or the table of --url answers at once (``source`` tree or cache); other positions are
    searched to the end, and with --url what the search proved is written back to the table.

    Values count every guess of the game, the history's included: after 0123 0.1 the total is
    over the 1440 secrets left, each counting 0123 as its first guess.
    """
    from tqdm import tqdm

    from solver.position import Position
    from solver.question import SolveOptions

    g, history = game_and_turns(game, alphabet, turns)
    options = SolveOptions(criterion=criterion, max_guesses=max_guesses, depth_count=depth_count,
                           mde=mde, from_set_only=from_set_only, upper_bound=upper_bound,
                           node_limit=node_limit)
    if not g.won(history):  # a finished game is checked and valued by the chain (solver.question.finished_result)
        options.validate(g, Position.of(g, history).turn)
    if checkpoint is None and (shares != 1 or processes != 1 or scheduler is not None or max_units is not None):
        fail("--shares, --processes, --scheduler and --max-units run a search with --checkpoint: give it a FILE")
    if checkpoint is not None:
        if as_job or guess is not None or node_limit or depth_count is not None:
            fail("--checkpoint searches one position to the end as a job of its own, at one depth limit: --job, "
                  "--guess, --node-limit and --depth-count do not apply")
        out = _checkpointed_solve(g, history, options, checkpoint, shares, processes, scheduler, max_units, url)
        if out is None:
            return
        if as_json:
            emit_json(out)
        else:
            _print_result(out, criterion, max_guesses, "best guess")
            click.echo(f"# {out['nodes']} nodes, {out['unit_seconds']:.2f} s of search", err=True)
        return
    if as_job:
        if guess is not None or upper_bound is not None or node_limit:
            fail("--job solves a position exactly: --guess, --upper-bound and --node-limit do not apply")
        _solve_job(g, history, options, url, wait, as_json, progress)
        return
    chain = _chain(url)
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(disable=not show, unit="guess", desc="searching", file=sys.stderr, leave=False) as bar:
        def report(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        answer = chain.solve(g, history, g.candidates(history), options, None,
                             None if guess is None else g.parse_code(guess), fresh=search, progress=report)
    out = answer.as_dict(g)
    if as_json:
        emit_json(out)
        return
    _print_result(out, criterion, max_guesses, "guess" if guess else "best guess")
    if answer.source == "search":
        click.echo(f"# {answer.result.nodes} nodes, {answer.result.seconds:.2f} s", err=True)
    elif answer.source == "history":
        click.echo(f"# the game was won at guess {len(history)}: nothing to search", err=True)
    else:
        click.echo(f"# from the {'proven tree' if answer.source == 'tree' else 'table'} (no search; --search to "
                   "search anyway)", err=True)


def _checkpointed_solve(g: Game, history: list[Turn], options: Any, path: str, shares: int, processes: int,
                        scheduler: str | None, max_units: int | None, url: str | None) -> dict[str, Any] | None:
    """``solve --checkpoint``: the position searched from nothing as a search campaign (:mod:`service.searches`, a
    job of ``shares`` units on ``url``'s database, run by a worker of ``processes`` processes), its progress kept in
    ``path``; the answer (from the file at once when it holds one), or None when the worker stopped after its
    ``max_units`` with the search unfinished."""
    from service import searches
    from service.campaign_spec import CampaignSpec
    from service.cli.campaigns import run_campaign
    from solver.search import Searcher

    if not Searcher(g, options).keeps_progress(history):
        click.echo("# this position is searched in one call, not guess by guess: no progress can be kept (only "
                   "positions after at most two guesses, with many candidates, are searched guess by guess)",
                   err=True)
    asked = {k: getattr(options, k) for k in searches.QUESTION_OPTIONS}
    spec = CampaignSpec.search(g, history, asked, shares, path)
    job = run_campaign(spec, processes, scheduler, max_units, url)
    if job is not None and job.status != "done":
        say(f"stopped after --max-units: {int(job.units_total) - int(job.units_done)} of {job.units_total} units "
             f"left; their progress is in {path}: run the same command again to continue")
        return None
    return searches.KIND.finished(spec)


def _print_result(out: dict[str, Any], criterion: Criterion, max_guesses: int | None,
                  guess_label: str = "best guess") -> None:
    """The human form of a solve's JSON (``bullscows solve`` with or without ``--job``)."""
    what = "total guesses" if criterion == Criterion.TOTAL else f"{shown_value(out.get('movers'))}-movers"
    if out["value"] is None and out["exact"]:
        click.echo(f"impossible: no strategy solves every secret within {max_guesses} guesses")
    elif out["value"] is None:
        click.echo(f"{what}: not known (the search stopped before it found any strategy)")
    else:
        click.echo(f"{what}: {'' if out['exact'] else '>= '}{out['value']}")
    if out["best_guess"]:
        click.echo(f"{guess_label}: {out['best_guess']}")
    for resp, v in out["per_response"].items():
        click.echo(f"  {resp:>4}  {'impossible' if v is None else v}")
    if len(out["chain"]) > 1:
        click.echo("chain: " + ", ".join(f"{k}-movers {v}" for k, v in out["chain"].items()))


def _follow(jobs: Any, job_id: str, show: bool) -> Any:
    """Poll a job with a progress bar (units done of total) until it is final."""
    import time

    from tqdm import tqdm

    from service.jobs import manage

    with tqdm(disable=not show, unit="unit", desc="job", file=sys.stderr, leave=False) as bar:
        while True:
            job = jobs.get(job_id)
            if job is None or job.status in ("done", "failed", "cancelled"):
                return job
            p = manage.view(jobs, job)["progress"]
            bar.total = p["units_total"] or None
            bar.n = p["units_done"]
            best = p["best_value"]
            bar.set_postfix_str(f"{job.status}, best {best if best is not None else '-'}, "
                                f"{p['nodes']} nodes", refresh=False)
            bar.refresh()
            time.sleep(0.5)


def _solve_job(g: Game, history: list[Turn], options: Any, url: str | None, wait: bool, as_json: bool,
               progress: bool | None) -> None:
    from service.config import Settings
    from service.jobs.plan import JobRequest
    from solver.search import require_searchable

    require_searchable(g)  # refused now rather than failing at planning (or building a table)
    jobs = job_store(url)
    job, created = jobs.submit(JobRequest.of(g, history, options), "cli")
    click.echo(f"# job {job.id} ({'submitted' if created else 'already known'}, {job.status})", err=True)
    if job.status not in ("done", "failed", "cancelled") and not jobs.live_workers(Settings().worker_live_s):
        click.echo("# no worker is alive: start one with `bullscows worker` (the job waits for it)", err=True)
    if not wait:
        if as_json:
            emit_json({"id": job.id, "status": job.status})
        else:
            click.echo(f"job {job.id} {job.status}")
        return
    show = sys.stderr.isatty() if progress is None else progress
    try:
        job = _follow(jobs, job.id, show)
    except KeyboardInterrupt:
        click.echo(f"# stopped following; the job goes on: bullscows jobs show {job.id}", err=True)
        sys.exit(130)
    if job.status != "done":
        fail(f"job {job.id} {job.status}: {job.error or 'no result'}")
    import orjson

    out = orjson.loads(job.result)
    if as_json:
        emit_json({**out, "job": job.id})
        return
    _print_result(out, options.criterion, options.max_guesses)
    click.echo(f"# job {job.id}: {out['nodes']} nodes, {out['seconds']:.2f} s", err=True)


@main.command("feasible")
@game_options
@history_options
@click.option("--max-guesses", "-k", type=click.IntRange(1, 63), required=True,
              help="Guesses allowed in the whole game, the history's included.")
@click.option("--tries", type=click.IntRange(min=1), default=None,
              help="At positions with four guesses or more left, give up after this many guesses (default: settle "
                   "the question, so that a 'no' is a proof).")
@click.option("--strategy", "show_strategy", is_flag=True,
              help="With a 'yes': build the whole strategy found and play every candidate through it.")
@click.option("--scan", is_flag=True,
              help="Try every guess of this position (one per class; --tries limits only the positions below), "
                   "logging each on stderr.  Five guesses left or more.")
@click.option("--progress", "progress_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="With --scan: run the scan as a job in the jobs' database (--url), keeping how far it has come "
                   "in the database and in FILE after each guess; the same command with the same FILE continues "
                   "there, and answers at once once it is done.")
@click.option("--shares", type=click.IntRange(min=1, max=MAX_SHARES), default=1, show_default=True,
              help="With --progress: cut the scan into this many units, each trying every N-th guess.")
@click.option("--processes", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --progress: processes of the worker the command starts (units run at once).")
@click.option("--scheduler", default=None,
              help="With --progress: a Dask scheduler's address (tcp://host:8786) the command's worker runs on.")
@click.option("--max-units", type=click.IntRange(min=1), default=None,
              help="With --progress: stop after this many units (the same command continues).")
@click.option("--url", default=None,
              help="With --progress: the jobs' database (default: DATABASE_URL or the service's SQLite file).")
@json_option
@solver_errors
def feasible_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool, max_guesses: int,
                 tries: int | None, show_strategy: bool, scan: bool, progress_file: str | None, shares: int,
                 processes: int, scheduler: str | None, max_units: int | None, url: str | None,
                 as_json: bool) -> None:
    """Whether every candidate after the history can be found within --max-guesses guesses.

    The worst case alone, without the price of each strategy: 'yes' with a guess that starts a strategy
    keeping the limit, 'no' when no strategy does (proven, by this search or the exact one), or 'unknown' when
    --tries cut the search first.  Much faster than `solve --max-guesses` where the answer is yes; with four
    guesses left or more, a position whose first 8 guesses fail is proven by that exact search, as fast.
    """
    from solver.feasible import Feasibility, LimitNotKept, feasible_chooser
    from solver.tree import build_tree

    g, history = game_and_turns(game, alphabet, turns)
    if max_guesses <= len(history):
        fail(f"--max-guesses {max_guesses} leaves no guess after the {len(history)} of the history")
    if progress_file is not None and not scan:
        fail("--progress keeps a scan's progress: give --scan too")
    if progress_file is None and (shares != 1 or processes != 1 or scheduler is not None or max_units is not None
                                  or url is not None):
        fail("--shares, --processes, --scheduler, --max-units and --url run a scan as a job: give --scan and "
              "--progress FILE")
    left = max_guesses - len(history)
    if scan and left < 5:
        fail(f"--scan is for five guesses left or more ({left} left here): without it the answer is exhaustive")
    cands = g.candidates(history)
    f = Feasibility(g)
    if scan and progress_file is not None:
        v = _scan_campaign(g, history, max_guesses, tries, progress_file, shares, processes, scheduler, max_units,
                           url)
        if v is None:
            return
    elif scan:
        v = _feasibility_scan(f, g, history, cands, left, tries)
    else:
        v = f.witness(cands, left, tries, history)
    verdict = {True: "yes", False: "no", None: "unknown"}[v.possible]
    out: dict[str, Any] = {
        "game": g.spec,
        "history": [g.format_turn(t) for t in history],
        "candidates": v.candidates,
        "max_guesses": max_guesses,
        "left": v.left,
        "possible": v.possible,
        "answer": verdict,
        "guess": None if v.guess is None else g.format_code(v.guess),
        "tries": tries,
        "seconds": round(v.seconds, 3),
    }
    if show_strategy and v.possible:
        try:
            tree = build_tree(g, feasible_chooser(g, max_guesses, tries, f), history, arrays=g.search_arrays())
        except LimitNotKept as exc:  # a sub-position the budget did not settle
            out["strategy"] = {"error": str(exc)}
        else:
            stats = tree.stats()
            out["strategy"] = {"total": stats.total, "worst_case": stats.worst_case,
                               "histogram": {str(d): n for d, n in sorted(stats.histogram.items())}}
    if as_json:
        emit_json(out)
        return
    limit = f"within {max_guesses} guesses ({v.left} left)"
    if v.possible:
        click.echo(f"yes: {out['guess']} starts a strategy that finds all {v.candidates} candidates {limit}")
    elif v.possible is False:
        click.echo(f"no: no strategy finds all {v.candidates} candidates {limit} (proven)")
    elif scan:
        click.echo(f"unknown: no guess was shown to keep all {v.candidates} candidates {limit}, and some were "
                   f"refuted only within --tries {tries}")
    else:
        click.echo(f"unknown: {tries} guesses tried at each position of four guesses or more left settled nothing "
                   f"for the {v.candidates} candidates {limit}")
    strategy = out.get("strategy")
    if strategy is not None:
        if "error" in strategy:
            click.echo(f"strategy: not built: {strategy['error']}")
        else:
            click.echo(f"strategy: {strategy['total']} guesses in all, worst case {strategy['worst_case']} "
                       "(every candidate played)")
    click.echo(f"# {v.seconds:.2f} s", err=True)


def _feasibility_scan(f: Any, g: Game, history: list[Turn], cands: Any, left: int, tries: int | None) -> Any:
    """``feasible --scan`` without a progress file: every guess of the position in order, in this process, each
    logged on stderr."""
    from solver.feasible import ScanStep, Verdict

    proven = [True]

    def report(step: ScanStep) -> None:
        proven[0] = proven[0] and (step.failed is None or step.failed[2])
        click.echo(f"# {step.describe(g)}", err=True)

    v = f.scan(cands, left, tries, history, report=report)
    if v.possible is False and not proven[0]:
        v = Verdict(None, None, v.candidates, v.left, v.seconds)
    return v


def _scan_campaign(g: Game, history: list[Turn], max_guesses: int, tries: int | None, path: str, shares: int,
                   processes: int, scheduler: str | None, max_units: int | None, url: str | None) -> Any:
    """``feasible --scan --progress FILE``: the scan as a campaign (:mod:`service.scans`, a job of ``shares`` units on
    ``url``'s database, run by a worker of ``processes`` processes), its progress kept in ``path``; the verdict (from
    the file at once when it holds one), or None when the worker stopped after its ``max_units`` unfinished."""
    from service import scans
    from service.campaign_spec import CampaignSpec
    from service.cli.campaigns import run_campaign
    from solver.feasible import Verdict

    spec = CampaignSpec.scan(g, history, max_guesses, tries, shares, path)
    job = run_campaign(spec, processes, scheduler, max_units, url)
    if job is not None and job.status != "done":
        say(f"stopped after --max-units: {int(job.units_total) - int(job.units_done)} of {job.units_total} units "
             f"left; their progress is in {path}: run the same command again to continue")
        return None
    out = scans.KIND.finished(spec) or {}
    guess = out.get("guess")
    return Verdict(out.get("possible"), None if guess is None else g.parse_code(guess),
                   int(g.candidates(history).shape[0]), max_guesses - len(history), float(out.get("seconds") or 0.0))
