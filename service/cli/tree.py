"""The ``tree`` command: a strategy's whole tree and its statistics, built, or taken as shipped."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from service.cli.common import (
    emit_json,
    fail,
    game_and_turns,
    game_options,
    history_options,
    main,
    search_options,
    shown_value,
    solver_errors,
)
from solver.vocabulary import STRATEGIES, criterion_of

if TYPE_CHECKING:
    from solver.game import Game


@main.command("tree")
@game_options
@history_options
@click.option("--strategy", "-s", default="minimax", show_default=True,
              help="One-step strategy, optimal-total / optimal-kmovers (exact or hybrid search), or best-known "
                   "(the shipped tree of an unsolved game).")
@click.option("--first", default=None, help="Force the first guess of the tree.")
@search_options
@click.option("--from-set-only", is_flag=True, help="Only guess codes that are still possible.")
@click.option("--seed", default=0, show_default=True, help="Seed of random-consistent.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON instead of text.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Also write the whole tree to this file (.json, or compact text otherwise).")
@click.option("--lengths", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
              help="Also write the tree's game lengths to FILE: one 'CODE LENGTH' line per secret, as GET "
                   "/v1/strategies/{game}/{strategy}/tree?format=lengths (what records compare --steps reads).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@solver_errors
def tree_cmd(game: str, alphabet: str | None, turns: tuple[str, ...], history_flag: bool,
             strategy: str, first: str | None, max_guesses: int | None, depth_count: int | None,
             mde: int | None, upper_bound: int | None, from_set_only: bool, seed: int,
             as_json: bool, output: str | None, lengths: str | None, progress: bool | None) -> None:
    """Whole strategy tree and its statistics.

    Optimal strategies: optimal-total (fewest guesses in all, optionally within --max-guesses)
    and optimal-kmovers (fewest secrets needing --max-guesses guesses, then fewest needing one
    less, and so on down to --depth-count); --mde and --from-set-only make them hybrids.  A tree the
    service ships (the optimal trees of the presets and the atlas's solved games, and best-known, the
    best tree known of an unsolved game such as 5,8,1) is taken as shipped, as the API serves it, not
    built again.
    """
    from tqdm import tqdm

    from solver.compare import write_steps
    from solver.heuristics import get_strategy
    from solver.position import Position
    from solver.tree import build_tree, strategy_chooser, to_compact, to_json
    from solver.vocabulary import BEST_KNOWN

    if strategy not in STRATEGIES and strategy != BEST_KNOWN:
        fail(f"unknown strategy {strategy!r}; strategies are: {', '.join(STRATEGIES)}, and {BEST_KNOWN} (the best "
              "tree known of a game nothing has solved)")
    for path in (output, lengths):  # refused before a build that may take long, not after it
        if path is not None:
            _writable_file(path)
    g, history = game_and_turns(game, alphabet, turns)
    first_code = g.parse_code(first) if first is not None else None
    n = int(g.candidates(history).shape[0])
    show = sys.stderr.isatty() if progress is None else progress
    shipped = _shipped_tree(g, strategy, max_guesses, bool(history) or first is not None or depth_count is not None
                            or mde is not None or upper_bound is not None or from_set_only)
    with tqdm(total=n, disable=not show or shipped is not None, unit="secret", desc=f"{strategy} tree",
              file=sys.stderr, leave=False) as bar:
        criterion = criterion_of(strategy)
        if shipped is not None:
            tree = shipped
        elif criterion is not None:
            from solver.search import SolveOptions, optimal_tree

            options = SolveOptions(
                criterion=criterion, max_guesses=max_guesses,
                depth_count=depth_count, mde=mde, from_set_only=from_set_only,
                upper_bound=upper_bound,
            )
            options.validate(g, Position.of(g, history).turn)
            tree = optimal_tree(g, options, history, first=first_code, on_solved=bar.update)
        else:
            strat = get_strategy(strategy, from_set_only=from_set_only, seed=seed)
            tree = build_tree(g, strategy_chooser(g, strat), history, first=first_code,
                              strategy=strategy, on_solved=bar.update)
    stats = tree.stats()
    try:
        if output:
            with open(output, "w", encoding="utf-8") as fh:
                if output.endswith(".json"):
                    json.dump(to_json(tree), fh)
                else:
                    fh.write(to_compact(tree))
        if lengths:
            write_steps(tree, lengths, strategy)
    except OSError as exc:
        fail(f"cannot write the tree: {exc.strerror or exc} ({exc.filename})")
    source = "shipped" if shipped is not None else "built"
    if as_json:
        emit_json({"game": g.name, "strategy": strategy, "source": source, **stats.as_dict()})
        return
    click.echo(f"strategy     {strategy} ({source})")
    click.echo(f"first guess  {shown_value(stats.first_guess)}")
    click.echo(f"total        {stats.total}")
    click.echo(f"average      {stats.average:.4f}")
    click.echo(f"worst case   {stats.worst_case}")
    click.echo(f"nodes        {stats.nodes} ({stats.derivable_nodes} derivable)")
    width = max(stats.histogram.values())
    for k, v in stats.histogram.items():
        bar_len = max(1, round(40 * v / width)) if v else 0
        click.echo(f"  {k:>2} guess{'es' if k != 1 else '  '} {v:>6}  {'#' * bar_len}")


def _writable_file(path: str) -> None:
    """Refuse (one line, exit 2) a file that cannot be written: its folder missing or not writable."""
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        fail(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        fail(f"cannot write {path}: the folder {folder} is not writable")


def _shipped_tree(g: Game, strategy: str, max_guesses: int | None, changed: bool) -> Any:
    """The shipped tree of the question, as the API serves it (:class:`service.trees.TreeLibrary`), or None when
    there is none and it is to be built; ``changed``: the question is not the plain one a shipped tree answers (a
    history, a forced first guess, hybrid or bound options).

    Why: the shipped trees are proven (or, for best-known, the best known of a game nothing has solved), and the
    bigger ones are the fruit of hours of search: saving one must give that very tree, at once."""
    from service.atlas import NoBestKnownTreeError
    from solver.vocabulary import BEST_KNOWN

    if strategy != BEST_KNOWN and criterion_of(strategy) is None:
        return None
    if strategy == BEST_KNOWN and changed:
        fail(f"{BEST_KNOWN} is a shipped tree, taken as it is: no history, --first, --depth-count, --mde, "
              "--upper-bound or --from-set-only")
    if changed:
        return None
    from service.trees import TreeLibrary

    stored = TreeLibrary().get(g, strategy, max_guesses)
    if stored is None and strategy == BEST_KNOWN:
        raise NoBestKnownTreeError.of(g)  # one line and exit 2, by _solver_errors
    return None if stored is None else stored.tree
