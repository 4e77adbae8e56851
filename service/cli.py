"""The ``bullscows`` command line: ask the solver from a shell.

Scripts and bots call it many times, so start-up stays short: this module imports only click at
load time, and each command imports the solver (numpy, numba) when it runs.  Errors caused by the
input are printed as one ``error:`` line on stderr with exit status 2; nothing else is printed then.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from solver.game import Game, Turn

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _solver_errors(fn: F) -> F:
    """Turn the solver's input errors into a clean message and exit status 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from solver.errors import SolverError

        try:
            return fn(*args, **kwargs)
        except SolverError as exc:
            _fail(str(exc))

    return wrapper  # type: ignore[return-value]


def _game_options(fn: F) -> F:
    fn = click.option(
        "--alphabet", default=None,
        help="Characters for symbols 0, 1, 2, ... (default 0-9A-Za-z).",
    )(fn)
    fn = click.option(
        "--game", "-g", default="bulls-cows", show_default=True,
        help="Preset (bulls-cows, mastermind) or 'positions,symbols,repetition', e.g. 4,6,1.",
    )(fn)
    return fn


def _history_options(fn: F) -> F:
    """History turns are positional: ``--history "0123 0.1" "1245 0.2"`` or just the turns."""
    fn = click.argument("turns", nargs=-1)(fn)
    fn = click.option(
        "--history", "-H", "history_flag", is_flag=True,
        help="Marks the turns that follow ('0123 0.1' or '0123 0.1, 1245 0.2'); optional.",
    )(fn)
    return fn


def _search_options(fn: F) -> F:
    fn = click.option("--upper-bound", type=int, default=None,
                      help="The article's beta: prune at or above it (results reaching it are bounds).")(fn)
    fn = click.option("--mde", type=int, default=None,
                      help="Last turn searched exactly; later turns use the heuristic (crush for "
                           "kmovers, Larmouth for totals), or only candidates with --from-set-only.")(fn)
    fn = click.option("--depth-count", type=int, default=None,
                      help="Kmovers: while the count is 0, count (k-1)-movers, ... down to this k.")(fn)
    fn = click.option("--max-guesses", type=int, default=None,
                      help="Guesses allowed in the whole game (the k of kmovers).")(fn)
    return fn


_url_option = click.option("--url", default=None, help="Database URL (default: DATABASE_URL or the SQLite file).")


def _game_filter_options(fn: F) -> F:
    fn = click.option("--criterion", "-c", type=click.Choice(["total", "kmovers"]), default=None,
                      help="Only this criterion (default: both).")(fn)
    fn = click.option("--game", "-g", default=None, help="Only this game (default: every game).")(fn)
    return fn


def _load(game: str, alphabet: str | None, turns: Iterable[str]) -> tuple[Game, list[Turn]]:
    from solver.game import Game

    g = Game.from_spec(game, alphabet=alphabet)
    # All turn arguments form one stream, so quoting is optional: "0123 0.1" "1245 0.2",
    # 0123 0.1 1245 0.2 and "0123 0.1, 1245 0.2" are the same history.
    return g, g.parse_history(" ".join(turns))


def _emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=None, separators=(",", ":")))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bullscows")
def main() -> None:
    """Solver for Bulls-and-Cows, Mastermind and every (positions, symbols, repetition) variant."""


NEXT_STRATEGIES = ("optimal-total", "optimal-kmovers", "minimax", "most-parts", "entropy", "expected-size",
                   "larmouth", "crush", "first-consistent", "random-consistent")
"""What ``next`` plays: the same names, in the same order, as ``POST /v1/next-move``."""


@main.command("next")
@_game_options
@_history_options
@click.option("--strategy", "-s", default="optimal-total", show_default=True,
              help="Strategy, as for POST /v1/next-move: " + ", ".join(NEXT_STRATEGIES) + ".")
@click.option("--max-guesses", type=click.IntRange(1, 63), default=None,
              help="Optimal strategies: guesses allowed in the whole game (needed by optimal-kmovers).")
@click.option("--time-budget-ms", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Optimal strategies: wall-clock search budget before the heuristic answers.")
@click.option("--from-set-only", is_flag=True, help="Only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_solver_errors
def next_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, max_guesses: int | None, time_budget_ms: int, from_set_only: bool, seed: int,
             as_json: bool) -> None:
    """Best next guess after a history of turns.

    Optimal strategies answer from a shipped tree while the history follows it, else by an exact
    search within --time-budget-ms, else (exact false) by their criterion's heuristic, like the
    service (without its database).
    """
    from solver.heuristics import get_strategy

    if strategy not in NEXT_STRATEGIES:
        _fail(f"unknown strategy {strategy!r}; strategies are: {', '.join(NEXT_STRATEGIES)}")
    g, history = _load(game, alphabet, turns)
    cands = g.candidates(history)
    score: float | None = None
    note: str | None = None
    if strategy.startswith("optimal-"):
        guess, exact, source, note = _optimal_next(g, history, cands, strategy, max_guesses, time_budget_ms)
    else:
        choice = get_strategy(strategy, from_set_only=from_set_only, seed=seed).choose(g, cands, history=history)
        guess, exact, source, score = choice.guess, False, "heuristic", choice.score
    shown = g.format_codes(cands[:20])
    out = {
        "game": g.name,
        "guess": g.format_code(guess),
        "candidates": int(cands.shape[0]),
        "candidate_list": shown if cands.shape[0] <= 20 else None,
        "solved": bool(cands.shape[0] == 1),
        "consistent": bool(guess in set(cands.tolist())),
        "strategy": strategy,
        "exact": exact or bool(cands.shape[0] == 1),
        "source": source,
        "score": score,
        "note": note,
        "guess_number": len(history) + 1,
    }
    if as_json:
        _emit_json(out)
        return
    click.echo(out["guess"])
    if sys.stdout.isatty():
        rest = f": {' '.join(shown)}" if out["candidate_list"] else ""
        click.echo(f"# guess {out['guess_number']}, {out['candidates']} candidates{rest}", err=True)
    if note:
        click.echo(f"# {note}", err=True)


def _optimal_next(g: Game, history: list[Turn], cands: Any, strategy: str, max_guesses: int | None,
                  budget_ms: int) -> tuple[int, bool, str, str | None]:
    """(guess, exact, source, note) of an optimal strategy: the shipped tree, a search within the
    budget, or the criterion's heuristic (Larmouth for totals, crush for k-movers)."""
    from service.trees import TreeLibrary
    from solver.search import Searcher, SolveOptions, fallback_move, searchable

    criterion = strategy.removeprefix("optimal-")
    options = SolveOptions(criterion, max_guesses)
    options.validate(g, len(history) + 1)
    stored = TreeLibrary().get(g, strategy, max_guesses)
    found = stored.lookup(history) if stored is not None else None
    if stored is not None and found is not None:
        return found[0].guess, bool(stored.meta["exact"]), "tree", None
    why = None
    if searchable(g):
        result = Searcher(g, options).solve_within(history, budget_ms / 1000, cands=cands)
        if result.exact and result.best_guess is not None:
            return result.best_guess, True, "search", None
        if result.exact and not result.possible:
            _fail(f"no strategy solves every secret within {max_guesses} guesses from here")
        why = f"the search did not end within {budget_ms} ms"
    guess, note = fallback_move(g, cands, history, criterion, why)
    return guess, False, "heuristic", note


@main.command("partition")
@_game_options
@_history_options
@click.option("--guess", required=True, help="The guess whose partition to show.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_solver_errors
def partition_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
                  guess: str, as_json: bool) -> None:
    """How the candidates split by their response to a guess."""
    from solver.heuristics import partition

    g, history = _load(game, alphabet, turns)
    cands = g.candidates(history)
    parts = partition(g, g.parse_code(guess), cands)
    ordered = sorted(parts.items(), key=lambda kv: (-kv[1], kv[0]))
    if as_json:
        _emit_json({
            "game": g.name,
            "guess": guess,
            "candidates": int(cands.shape[0]),
            "parts": {g.format_response(r): n for r, n in ordered},
        })
        return
    for r, n in ordered:
        click.echo(f"{g.format_response(r)}\t{n}")


@main.command("solve")
@_game_options
@_history_options
@click.option("--criterion", "-c", type=click.Choice(["total", "kmovers"]), default="total",
              show_default=True, help="total: fewest guesses in all; kmovers: fewest secrets "
                                      "needing exactly --max-guesses guesses.")
@_search_options
@click.option("--from-set-only", is_flag=True,
              help="Try only candidates (on the turns after --mde, or everywhere without it).")
@click.option("--guess", default=None, help="Evaluate this next guess instead of finding the best.")
@click.option("--node-limit", type=int, default=0, help="Stop after this many nodes (0: none).")
@click.option("--search", is_flag=True,
              help="Search even when a shipped optimal tree answers the question.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--job", "as_job", is_flag=True,
              help="Submit as a durable job (run by `bullscows worker`) and follow it.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="With --job: follow the job to its end, or print its id and return.")
@click.option("--url", default=None, help="With --job: database URL (default: DATABASE_URL or the SQLite file).")
@_solver_errors
def solve_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
              criterion: str, max_guesses: int | None, depth_count: int | None, mde: int | None,
              upper_bound: int | None, from_set_only: bool, guess: str | None, node_limit: int,
              search: bool, as_json: bool, progress: bool | None, as_job: bool, wait: bool,
              url: str | None) -> None:
    """Exact value of a position, its best guess and the value after each response.

    Positions that a shipped optimal tree reaches (and the question it was built for) are answered
    from it at once, with ``source`` "tree"; others are searched.

    Values count every guess of the game, the history's included: after 0123 0.1 the total is
    over the 1440 secrets left, each counting 0123 as its first guess.
    """
    from tqdm import tqdm

    from solver.search import Searcher, SolveOptions

    g, history = _load(game, alphabet, turns)
    options = SolveOptions(criterion=criterion, max_guesses=max_guesses, depth_count=depth_count,
                           mde=mde, from_set_only=from_set_only, upper_bound=upper_bound,
                           node_limit=node_limit)
    options.validate(g, len(history) + 1)
    if as_job:
        if guess is not None or upper_bound is not None or node_limit:
            _fail("--job solves a position exactly: --guess, --upper-bound and --node-limit do not apply")
        _solve_job(g, history, options, url, wait, as_json, progress)
        return
    if guess is None and not search:
        from service.trees import shipped_answer

        shipped = shipped_answer(g, history, options)
        if shipped is not None:
            out = {**shipped.as_dict(g), "source": "tree"}
            if as_json:
                _emit_json(out)
                return
            _print_result(out, criterion, max_guesses)
            click.echo("# from the shipped optimal tree (no search; --search to search anyway)", err=True)
            return
    searcher = Searcher(g, options)
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(disable=not show, unit="guess", desc="searching", file=sys.stderr, leave=False) as bar:
        def report(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        searcher.progress = report
        if guess is not None:
            result = searcher.evaluate_guess(history, g.parse_code(guess))
        else:
            result = searcher.solve(history)
    out = {**result.as_dict(g), "source": "search"}
    if as_json:
        _emit_json(out)
        return
    _print_result(out, criterion, max_guesses, "guess" if guess else "best guess")
    click.echo(f"# {result.nodes} nodes, {result.seconds:.2f} s", err=True)


@main.command("tree")
@_game_options
@_history_options
@click.option("--strategy", "-s", default="minimax", show_default=True,
              help="One-step strategy, or optimal-total / optimal-kmovers (exact or hybrid search).")
@click.option("--first", default=None, help="Force the first guess of the tree.")
@_search_options
@click.option("--from-set-only", is_flag=True, help="Only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Also write the whole tree to this file (.json, or compact text otherwise).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@_solver_errors
def tree_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, first: str | None, max_guesses: int | None, depth_count: int | None,
             mde: int | None, upper_bound: int | None, from_set_only: bool, seed: int,
             as_json: bool, output: str | None, progress: bool | None) -> None:
    """Whole strategy tree and its statistics.

    Optimal strategies: optimal-total (fewest guesses in all, optionally within --max-guesses)
    and optimal-kmovers (fewest secrets needing --max-guesses guesses, then fewest needing one
    less, and so on down to --depth-count); --mde and --from-set-only make them hybrids.
    """
    from tqdm import tqdm

    from solver.heuristics import get_strategy
    from solver.tree import build_tree, strategy_chooser, to_compact, to_json

    g, history = _load(game, alphabet, turns)
    first_code = g.parse_code(first) if first is not None else None
    n = int(g.candidates(history).shape[0])
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(total=n, disable=not show, unit="secret", desc=f"{strategy} tree",
              file=sys.stderr, leave=False) as bar:
        if strategy in ("optimal-total", "optimal-kmovers"):
            from solver.search import SolveOptions, optimal_tree

            options = SolveOptions(
                criterion=strategy.removeprefix("optimal-"), max_guesses=max_guesses,
                depth_count=depth_count, mde=mde, from_set_only=from_set_only,
                upper_bound=upper_bound,
            )
            options.validate(g, len(history) + 1)
            tree = optimal_tree(g, options, history, first=first_code, on_solved=bar.update)
        else:
            strat = get_strategy(strategy, from_set_only=from_set_only, seed=seed)
            tree = build_tree(g, strategy_chooser(g, strat), history, first=first_code,
                              strategy=strategy, on_solved=bar.update)
    stats = tree.stats()
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            if output.endswith(".json"):
                json.dump(to_json(tree), fh)
            else:
                fh.write(to_compact(tree))
    if as_json:
        _emit_json({"game": g.name, "strategy": strategy, **stats.as_dict()})
        return
    click.echo(f"strategy     {strategy}")
    click.echo(f"first guess  {stats.first_guess}")
    click.echo(f"total        {stats.total}")
    click.echo(f"average      {stats.average:.4f}")
    click.echo(f"worst case   {stats.worst_case}")
    click.echo(f"nodes        {stats.nodes} ({stats.derivable_nodes} derivable)")
    width = max(stats.histogram.values())
    for k, v in stats.histogram.items():
        bar_len = max(1, round(40 * v / width)) if v else 0
        click.echo(f"  {k:>2} guesses {v:>6}  {'#' * bar_len}")


def _database_url(url: str | None) -> str:
    """``--url``, else DATABASE_URL, else the service's SQLite file."""
    if url is not None:
        return url
    from service.app import default_database_url

    return default_database_url()


def _job_store(url: str | None) -> Any:
    from service.store.db import Database
    from service.store.jobs import JobStore

    return JobStore(Database(_database_url(url)))


def _print_result(out: dict[str, Any], criterion: str, max_guesses: int | None,
                  guess_label: str = "best guess") -> None:
    """The human form of a solve's JSON (``bullscows solve`` with or without ``--job``)."""
    what = "total guesses" if criterion == "total" else f"{out['movers']}-movers"
    if out["value"] is None and out["exact"]:
        click.echo(f"impossible: no strategy solves every secret within {max_guesses} guesses")
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
    from solver.search import require_response_table

    require_response_table(g)  # refused now rather than failing at planning
    jobs = _job_store(url)
    job, created = jobs.submit(JobRequest.of(g, history, options), "cli")
    click.echo(f"# job {job.id} ({'submitted' if created else 'already known'}, {job.status})", err=True)
    if job.status not in ("done", "failed", "cancelled") and not jobs.live_workers(Settings().worker_live_s):
        click.echo("# no worker is alive: start one with `bullscows worker` (the job waits for it)", err=True)
    if not wait:
        if as_json:
            _emit_json({"id": job.id, "status": job.status})
        return
    show = sys.stderr.isatty() if progress is None else progress
    try:
        job = _follow(jobs, job.id, show)
    except KeyboardInterrupt:
        click.echo(f"# stopped following; the job goes on: bullscows jobs show {job.id}", err=True)
        sys.exit(130)
    if job.status != "done":
        _fail(f"job {job.id} {job.status}: {job.error or 'no result'}")
    import orjson

    out = orjson.loads(job.result)
    if as_json:
        _emit_json({**out, "job": job.id})
        return
    _print_result(out, options.criterion, options.max_guesses)
    click.echo(f"# job {job.id}: {out['nodes']} nodes, {out['seconds']:.2f} s", err=True)


@main.group("jobs")
def jobs_group() -> None:
    """Long solves run by `bullscows worker` (in DATABASE_URL, default the SQLite file)."""


@jobs_group.command("list")
@click.option("--status", type=click.Choice(["queued", "planning", "running", "done", "failed", "cancelled"]),
              default=None)
@click.option("--limit", default=20, show_default=True)
@_url_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def jobs_list(status: str | None, limit: int, url: str | None, as_json: bool) -> None:
    """Jobs, newest first."""
    from service.jobs import manage

    jobs = _job_store(url)
    views = [manage.view(jobs, j) for j in jobs.list_jobs(status, limit)]
    if as_json:
        _emit_json(views)
        return
    for v in views:
        p = v["progress"]
        r = v["request"]
        value = v["result"]["value"] if v["result"] else p["best_value"]
        click.echo(f"{v['id']}  {v['status']:<9} {r['game']!s:<7} {r['criterion']:<7} "
                   f"k={r['max_guesses']} mde={r['mde']} fso={int(r['from_set_only'])} "
                   f"history={'; '.join(r['history']) or '-'}  units {p['units_done']}/{p['units_total']}  "
                   f"value {value if value is not None else '-'}")


@jobs_group.command("show")
@click.argument("job_id")
@click.option("--units", is_flag=True, help="List the units too.")
@_url_option
def jobs_show(job_id: str, units: bool, url: str | None) -> None:
    """One job as JSON: status, progress, result (and units)."""
    from service.jobs import manage

    jobs = _job_store(url)
    job = jobs.get(job_id)
    if job is None:
        _fail(f"there is no job {job_id!r}")
    click.echo(json.dumps(manage.view(jobs, job, units=units), indent=1))


@jobs_group.command("cancel")
@click.argument("job_id")
@_url_option
def jobs_cancel(job_id: str, url: str | None) -> None:
    """Cancel a queued or running job (running units stop at their next heartbeat)."""
    jobs = _job_store(url)
    status, changed = jobs.cancel(job_id)
    if status is None:
        _fail(f"there is no job {job_id!r}")
    if not changed:
        _fail(f"job {job_id} is {status}; only queued or running jobs can be cancelled")
    click.echo(f"job {job_id} cancelled")


@main.group("positions")
def positions_group() -> None:
    """The persistent table of solved positions: export it to a file, import one (another machine's,
    or a campaign's progress carried in a repository)."""


@contextlib.contextmanager
def _store(url: str | None, kind: str) -> Iterator[Any]:
    """The ``kind`` store ("positions" or "tokens") of ``url``, its connections closed afterwards."""
    from service.store.db import Database
    from service.store.positions import PositionStore
    from service.store.tokens import TokenStore

    db = Database(_database_url(url))
    try:
        yield (PositionStore if kind == "positions" else TokenStore)(db)
    finally:
        db.dispose()


def _position_store(url: str | None) -> contextlib.AbstractContextManager[Any]:
    return _store(url, "positions")


def _write_positions(url: str | None, game: str | None, criterion: str | None, output: str) -> int:
    """Write the stored positions (of ``game`` / ``criterion`` when given) as NDJSON to ``output``
    (gzip-compressed when it ends in .gz, stdout for -); returns how many."""
    import gzip
    import os

    from service.positions_io import row_line

    count = 0
    with _position_store(url) as store:
        if output == "-":
            for row in store.iter_rows(game, criterion):
                sys.stdout.buffer.write(row_line(row))
                count += 1
            sys.stdout.flush()
            return count
        # written whole under a temporary name, then moved into place: an interrupted export never
        # leaves a truncated file where the last good one was
        tmp = f"{output}.tmp-{os.getpid()}"
        opener: Any = gzip.open if output.endswith(".gz") else open
        try:
            with opener(tmp, "wb") as fh:
                for row in store.iter_rows(game, criterion):
                    fh.write(row_line(row))
                    count += 1
            os.replace(tmp, output)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return count


IMPORT_VERIFY_MAX_CODES = 12
"""Operator imports search again sets of at most this many codes (HTTP imports: the setting, 64)."""


def _read_positions(path: str, url: str | None, source: str, verify_max_codes: int = IMPORT_VERIFY_MAX_CODES,
                    game: str | None = None) -> int:
    """Import an export file, all or nothing (each line checked as POST /v1/positions checks it, small
    sets searched again; with ``game``, a line of another game refuses the file); returns how many
    positions were stored.  Any problem ends the command with its ``error:`` line."""
    from service.config import Settings
    from service.positions_io import InvalidImportError, read_entries, read_file_lines

    try:
        entries = read_entries(read_file_lines(path), max_codes=Settings().max_codes,
                               verify_max_codes=verify_max_codes)
    except InvalidImportError as exc:
        _fail(f"{exc}; nothing stored")
    if game is not None and any(e.key.game != game for e in entries):
        _fail(f"{path} holds positions of another game than {game}; nothing stored")
    with _position_store(url) as store:
        return int(store.save_entries(entries, source=f"import:{source}"[:64]))


@positions_group.command("export")
@_game_filter_options
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="File to write (NDJSON, gzip-compressed when the name ends in .gz); - for stdout.")
@_url_option
def positions_export(game: str | None, criterion: str | None, output: str, url: str | None) -> None:
    """Write the stored positions as NDJSON (the format of GET /v1/positions)."""
    from solver.errors import SolverError
    from solver.game import Game

    if game is not None:
        try:
            game = Game.from_spec(game).spec
        except SolverError as exc:
            _fail(str(exc))
    count = _write_positions(url, game, criterion, output)
    click.echo(f"exported {count} positions", err=True)


@positions_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--source", default="file", show_default=True, help="Provenance recorded as 'import:SOURCE'.")
@click.option("--verify-max-codes", type=click.IntRange(min=0), default=IMPORT_VERIFY_MAX_CODES, show_default=True,
              help="Search again every entry of at most this many codes (POST /v1/positions uses "
                   "BULLSCOWS_IMPORT_VERIFY_MAX_CODES, 64); raise it for a file of unknown origin.")
@_url_option
def positions_import(path: str, source: str, verify_max_codes: int, url: str | None) -> None:
    """Read an export (plain or .gz NDJSON) into the table, all or nothing: every line is checked the
    way POST /v1/positions checks it, and small sets are searched again."""
    stored = _read_positions(path, url, source, verify_max_codes)
    click.echo(f"imported {stored} positions from {path}")


CAMPAIGN_STAGES: dict[str, list[tuple[str, int | None, bool]]] = {
    # (label, mde, from_set_only): the hybrid first (minutes), whose values seed the exact search's β
    "total": [("fso", 3, True), ("exact", None, False)],
    "kmovers": [("crush45", 3, False), ("exact", None, False)],
}


@main.command("campaign")
@_game_options
@click.option("--criterion", "-c", "criteria", multiple=True, type=click.Choice(["total", "kmovers"]),
              help="What to solve (repeat for both; default both, totals first).")
@click.option("--max-guesses", type=click.IntRange(min=1), default=7, show_default=True,
              help="Depth limit of the whole game (the k of k-movers).")
@click.option("--progress-file", type=click.Path(dir_okay=False), default=None,
              help="Positions file (.ndjson.gz) imported first when it exists, and rewritten as the "
                   "campaign goes: how a campaign moves between machines and sessions.")
@click.option("--export-every", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds between rewrites of the progress file.")
@click.option("--with-worker/--no-worker", default=True, show_default=True,
              help="Start a `bullscows worker` for the campaign (else rely on workers already running).")
@click.option("--processes", type=int, default=None, help="Processes of that worker (default: one per core).")
@_url_option
@_solver_errors
def campaign_cmd(game: str, alphabet: str | None, criteria: tuple[str, ...], max_guesses: int,
                 progress_file: str | None, export_every: float, with_worker: bool, processes: int | None,
                 url: str | None) -> None:
    """Solve a whole game exactly, the article's way: for each criterion a hybrid job (fso for totals,
    crush45 for k-movers), then the exact job, its parts bounded from the start by the hybrid's values.

    Everything runs as ordinary jobs (see `bullscows jobs`), so it survives being killed: run the same
    command again and finished jobs are reused, proven positions are not searched again.
    """
    import os
    import subprocess
    import time

    from service.jobs.plan import JobRequest
    from solver.game import Game
    from solver.search import SolveOptions, require_response_table

    g = Game.from_spec(game, alphabet) if alphabet else Game.from_spec(game)
    require_response_table(g)
    db_url = _database_url(url)
    plan = [(c, *stage) for c in (criteria or ("total", "kmovers")) for stage in CAMPAIGN_STAGES[c]]
    for crit, _label, mde, fso in plan:
        SolveOptions(crit, max_guesses, None, mde, fso).validate(g, 1)
    from service.migrate import upgrade

    upgrade(db_url)
    if progress_file and os.path.exists(progress_file):
        stored = _read_positions(progress_file, db_url, "campaign", game=g.spec)
        click.echo(f"# imported {stored} positions from {progress_file}", err=True)
    only = criteria[0] if len(set(criteria)) == 1 else None  # a file per criterion stays small

    def export() -> None:
        if progress_file:
            _write_positions(db_url, g.spec, only, progress_file)

    worker = None
    if with_worker:
        cmd = [sys.executable, "-m", "service.cli", "worker", "--url", db_url, "--no-migrate", "--exit-with-parent"]
        if processes:
            cmd += ["--processes", str(processes)]
        worker = subprocess.Popen(cmd)
    jobs = _job_store(db_url)
    results: dict[str, Any] = {}
    t_start = time.monotonic()
    try:
        for crit, label, mde, fso in plan:
            options = SolveOptions(crit, max_guesses, None, mde, fso)
            job, created = jobs.submit(JobRequest.of(g, [], options), "campaign")
            click.echo(f"# {crit} {label}: job {job.id} ({'submitted' if created else 'already known'})",
                       err=True)
            last_export = time.monotonic()
            while job is not None and job.status not in ("done", "failed", "cancelled"):
                time.sleep(2.0)
                job = jobs.get(job.id)
                if time.monotonic() - last_export >= export_every:
                    export()
                    last_export = time.monotonic()
            if job is None or job.status != "done":
                _fail(f"job {job.id if job else '?'} {job.status if job else 'vanished'}: "
                      f"{job.error if job else ''}")
            import orjson

            out = orjson.loads(job.result)
            results[f"{crit}/{label}"] = {"job": job.id, "value": out["value"], "best_guess": out["best_guess"],
                                          "per_response": out["per_response"], "nodes": out["nodes"],
                                          "seconds": out["seconds"]}
            click.echo(f"# {crit} {label}: {out['value']} (best first guess {out['best_guess']}), "
                       f"{out['nodes']} nodes, {out['seconds']:.0f} s", err=True)
            export()
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=60)
    _emit_json({"game": g.spec, "max_guesses": max_guesses, "wall_seconds": round(time.monotonic() - t_start, 1),
                "stages": results})


@main.group("tokens")
def tokens_group() -> None:
    """Bearer tokens for writes: 'import' (POST /v1/positions), 'jobs' (beyond the free budget)."""


def _token_store(url: str | None) -> contextlib.AbstractContextManager[Any]:
    return _store(url, "tokens")


@tokens_group.command("create")
@click.argument("name")
@click.option("--scope", "scopes", multiple=True, type=click.Choice(["import", "jobs"]), required=True,
              help="What the token allows (repeat for both).")
@_url_option
def tokens_create(name: str, scopes: tuple[str, ...], url: str | None) -> None:
    """Make a token and print it once: only its SHA-256 is stored."""
    from service.store.tokens import TokenError

    try:
        with _token_store(url) as store:
            info, token = store.create(name, list(scopes))
    except TokenError as exc:
        _fail(str(exc))
    click.echo(token)
    click.echo(f"token {info.name!r} ({', '.join(sorted(info.scopes))}) made; it is shown only now", err=True)


@tokens_group.command("list")
@_url_option
def tokens_list(url: str | None) -> None:
    """Tokens by name, with scopes and use (never the tokens themselves)."""
    with _token_store(url) as store:
        tokens = store.list()
    for t in tokens:
        state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "active"
        used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
        click.echo(f"{t.name:<24} {','.join(sorted(t.scopes)):<12} {state:<24} last used {used}")


@tokens_group.command("revoke")
@click.argument("name")
@_url_option
def tokens_revoke(name: str, url: str | None) -> None:
    """Revoke a token at once (every process checks the table on each request)."""
    from service.store.tokens import TokenError

    try:
        with _token_store(url) as store:
            store.revoke(name)
    except TokenError as exc:
        _fail(str(exc))
    click.echo(f"token {name!r} revoked")


@main.command("worker")
@click.option("--scheduler", default=None,
              help="Dask scheduler address (tcp://host:8786); default: a LocalCluster on this machine.")
@click.option("--processes", type=int, default=None, help="LocalCluster processes (default: one per core).")
@click.option("--name", default=None, help="Worker name in the database (default: host-pid-random).")
@_url_option
@click.option("--no-migrate", is_flag=True, help="Do not apply migrations first.")
@click.option("--exit-with-parent", is_flag=True, hidden=True,
              help="Stop when the parent process goes away (set by `serve --with-worker`).")
def worker_cmd(scheduler: str | None, processes: int | None, name: str | None, url: str | None,
               no_migrate: bool, exit_with_parent: bool) -> None:
    """Run jobs: claim them from the database and compute their units on Dask."""
    import datetime
    import os
    import threading

    import orjson

    from service.config import Settings
    from service.jobs.coordinator import WorkerConfig, serve

    url = _database_url(url)
    if not no_migrate:
        from service.migrate import upgrade

        upgrade(url)
    st = Settings()
    cfg = WorkerConfig(heartbeat_s=st.job_heartbeat_s, stale_after_s=st.job_stale_after_s,
                       max_attempts=st.job_max_attempts)

    def log(event: str, **fields: Any) -> None:
        line = {"ts": datetime.datetime.now(datetime.UTC).isoformat(), "event": event, **fields}
        sys.stderr.write(orjson.dumps(line, default=str).decode() + "\n")
        sys.stderr.flush()

    if exit_with_parent:
        parent = os.getppid()

        def watch_parent() -> None:
            import signal
            import time

            while os.getppid() == parent:
                time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=watch_parent, daemon=True).start()
    serve(url, processes=processes, scheduler=scheduler, config=cfg, name=name, log=log)


@main.group("trees")
def trees_group() -> None:
    """The strategy trees shipped with the service (package data)."""


@trees_group.command("build")
@click.option("--output", default=None, help="Folder (default: the package's data/trees).")
@click.option("--game", "games", multiple=True, help="Only these games (default: all).")
@click.option("--strategy", "strategies", multiple=True, help="Only these strategies (default: all).")
@click.option("--url", default=None,
              help="Start from the positions this database has proven (a campaign's), instead of searching "
                   "from scratch.")
def trees_build(output: str | None, games: tuple[str, ...], strategies: tuple[str, ...], url: str | None) -> None:
    """Rebuild the stored trees and their manifest (reproducible: searches from scratch, or from a
    campaign's table with --url)."""
    import datetime
    import os

    from service.trees import MANIFEST, SPECS, TREE_DIR
    from solver.game import Game
    from solver.search import Searcher, SolveOptions, optimal_tree
    from solver.tree import to_compact

    folder = output or TREE_DIR
    os.makedirs(folder, exist_ok=True)
    manifest_path = os.path.join(folder, os.path.basename(MANIFEST))
    old: list[dict[str, object]] = []
    if os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as fh:
            old = json.load(fh)["trees"]
    entries = {(str(e["game"]), str(e["strategy"])): e for e in old}
    for spec in SPECS:
        if (games and spec["game"] not in games) or (strategies and spec["strategy"] not in strategies):
            continue
        g = Game.from_spec(spec["game"])
        options = SolveOptions(spec["criterion"], spec["max_guesses"], spec.get("depth_count"), spec["mde"],
                               spec["from_set_only"])
        searcher: Searcher | None = None
        if url is not None:
            from service.engine import warm_searcher

            with _position_store(url) as store:
                searcher = warm_searcher(store, g, options, 1 << 22, 1 << 62)
        tree = optimal_tree(g, options, searcher=searcher)
        stats = tree.stats()
        name = f"{spec['game']}-{spec['strategy']}.tree"
        with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
            fh.write(to_compact(tree))
        entries[(spec["game"], spec["strategy"])] = {
            **spec, "file": name, "total": stats.total, "worst_case": stats.worst_case,
            "histogram": {str(k): v for k, v in stats.histogram.items()}, "nodes": stats.nodes,
            "built": datetime.date.today().isoformat(),
        }
        click.echo(f"{name}: total {stats.total}, worst case {stats.worst_case}, {stats.nodes} nodes")
    with open(manifest_path, "w", encoding="utf-8") as fh:
        json.dump({"trees": list(entries.values())}, fh, indent=1)
        fh.write("\n")


@main.group("db")
def db_group() -> None:
    """The service's database (DATABASE_URL, default an SQLite file in ./instance)."""


@db_group.command("upgrade")
@_url_option
@click.option("--revision", default="head", show_default=True)
def db_upgrade(url: str | None, revision: str) -> None:
    """Create or migrate the schema."""
    from service.migrate import upgrade

    upgrade(url, revision)
    click.echo(f"database at {revision}")


@db_group.command("downgrade")
@_url_option
@click.option("--revision", default="base", show_default=True)
def db_downgrade(url: str | None, revision: str) -> None:
    """Undo migrations (down to an empty database by default)."""
    from service.migrate import downgrade

    downgrade(url, revision)
    click.echo(f"database at {revision}")


@main.command("serve")
@click.option("--bind", default="127.0.0.1:8000", show_default=True, help="Address to listen on.")
@click.option("--workers", default=2, show_default=True, help="gunicorn worker processes.")
@click.option("--no-migrate", is_flag=True, help="Do not apply migrations first.")
@click.option("--with-worker", is_flag=True,
              help="Also run a `bullscows worker` for jobs (stops with the server).")
def serve(bind: str, workers: int, no_migrate: bool, with_worker: bool) -> None:
    """Run the HTTP service under gunicorn (migrating the database first)."""
    import os
    import subprocess

    if not no_migrate:
        from service.migrate import upgrade

        upgrade()
    if with_worker:
        # the worker outlives this exec (gunicorn takes over this pid) and stops when it ends
        subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--no-migrate", "--exit-with-parent"])
    import tempfile

    # one folder of metric files shared by the workers, fresh at every start
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="bullscows-metrics-"))
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gunicorn_conf.py")
    args = [gunicorn, "--config", conf, "--bind", bind, "--workers", str(workers), "service.wsgi:app"]
    os.execv(gunicorn, args)


if __name__ == "__main__":  # pragma: no cover
    main()
