"""The ``bullscows`` command line: ask the solver from a shell.

Scripts and bots call it many times, so start-up stays short: this module imports only click at
load time, and each command imports the solver (numpy, numba) when it runs.  Errors caused by the
input are printed as one ``error:`` line on stderr with exit status 2; nothing else is printed then.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from solver.game import Game, Turn

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> None:
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


@main.command("next")
@_game_options
@_history_options
@click.option("--strategy", "-s", default="minimax", show_default=True,
              help="One-step strategy: minimax, most-parts, entropy, expected-size, larmouth, "
                   "crush, first-consistent, random-consistent.")
@click.option("--from-set-only", is_flag=True, help="Only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_solver_errors
def next_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, from_set_only: bool, seed: int, as_json: bool) -> None:
    """Best next guess after a history of turns."""
    from solver.heuristics import get_strategy

    strat = get_strategy(strategy, from_set_only=from_set_only, seed=seed)
    g, history = _load(game, alphabet, turns)
    cands = g.candidates(history)
    choice = strat.choose(g, cands)
    shown = g.format_codes(cands[:20])
    out = {
        "game": g.name,
        "guess": g.format_code(choice.guess),
        "candidates": int(cands.shape[0]),
        "candidate_list": shown if cands.shape[0] <= 20 else None,
        "solved": bool(cands.shape[0] == 1),
        "consistent": bool(choice.guess in set(cands.tolist())),
        "strategy": strategy,
        "score": choice.score,
        "guess_number": len(history) + 1,
    }
    if as_json:
        _emit_json(out)
        return
    click.echo(out["guess"])
    if sys.stdout.isatty():
        rest = f": {' '.join(shown)}" if out["candidate_list"] else ""
        click.echo(f"# guess {out['guess_number']}, {out['candidates']} candidates{rest}", err=True)


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


@main.command("tree")
@_game_options
@_history_options
@click.option("--strategy", "-s", default="minimax", show_default=True,
              help="One-step strategy to build the tree of.")
@click.option("--first", default=None, help="Force the first guess of the tree.")
@click.option("--from-set-only", is_flag=True, help="Only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Also write the whole tree to this file (.json, or compact text otherwise).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@_solver_errors
def tree_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, first: str | None, from_set_only: bool, seed: int, as_json: bool,
             output: str | None, progress: bool | None) -> None:
    """Whole strategy tree and its statistics."""
    from tqdm import tqdm

    from solver.heuristics import get_strategy
    from solver.tree import build_tree, strategy_chooser, to_compact, to_json

    strat = get_strategy(strategy, from_set_only=from_set_only, seed=seed)
    g, history = _load(game, alphabet, turns)
    first_code = g.parse_code(first) if first is not None else None
    n = int(g.candidates(history).shape[0])
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(total=n, disable=not show, unit="secret", desc=f"{strategy} tree",
              file=sys.stderr, leave=False) as bar:
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


if __name__ == "__main__":  # pragma: no cover
    main()
