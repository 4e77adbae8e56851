"""What the stored knowledge says of a position, before any search: the table (:func:`cached_solve`) and a proven
tree's node (:func:`tree_result`), each read at the labellings a position may be stored at (:func:`labellings`),
and an answer found at another labelling mapped back to the caller's (:func:`mapped_back`).

The answer chain (:mod:`service.answers`) decides which of them to ask and in which order; these functions only
read, and know nothing of HTTP, the pool or the searches.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Iterator, Sequence

from solver.game import CandidateSet, Game, Turn
from solver.position import Labelling, Position
from solver.question import SolveOptions, SolveResult
from solver.symmetry import PERMUTED_TURNS_MAX, Relabelling
from solver.table import TTStore
from solver.tree import Node
from solver.vocabulary import Criterion, game_value, remaining_guesses, win_value


def labellings(position: Position, canon: Labelling, *, every_order: bool = False) -> Iterator[Labelling]:
    """Where a position may be stored, most likely first: at its canonical labelling ``canon``
    (:meth:`Position.canonical`), and at the caller's own (a job's entries are at the labelling they were asked
    at).  ``every_order`` adds the smallest image of each order of its turns: a search stores the positions
    below its root at the labelling its own guesses give them (its pools play the smallest member of each
    class), which is where a campaign's are.  Lazy: a lookup that finds the position early computes no other
    image."""
    yield canon
    history = position.history
    seen = {canon.position.history}
    if not canon.relabel.is_identity:
        seen.add(history)
        yield position.as_is()
    if every_order:
        orders = itertools.permutations(history) if len(history) <= PERMUTED_TURNS_MAX else [history]
        for order in orders:
            # the candidates are the same whatever the order of the turns: only the labelling differs
            image = Position(position.game, order, position.cands).canonical(keep_order=True)
            if image.position.history not in seen:
                seen.add(image.position.history)
                yield image


def mapped_back(result: SolveResult, relabel: Relabelling, game: Game) -> SolveResult:
    """An answer found at another labelling, its guess in the caller's labels."""
    if relabel.is_identity or result.best_guess is None:
        return result
    return dataclasses.replace(result, best_guess=relabel.invert(game, result.best_guess))


def cached_solve(store: TTStore, game: Game, history: Sequence[Turn], options: SolveOptions,
                 cands: CandidateSet) -> SolveResult | None:
    """The answer from the database alone (the root and every part of its best guess), or None.

    ``cands`` are the candidates after ``history``.  Values are stored remaining (turn-independent)
    and converted to game-level ones here, with :func:`solver.vocabulary.game_value`.
    """
    if options.depth_count is not None or options.upper_bound is not None:
        return None
    t0 = time.perf_counter()
    at = Position(game, tuple(history), cands)
    turn = at.turn
    crit, k = options.criterion, options.max_guesses
    key = options.table_key(game)
    root_codes = tuple(int(c) for c in cands)
    root = store.lookup(key, [root_codes], at.remaining(k), turn).get(root_codes)
    if root is None or not root.exact:
        return None
    n = len(root_codes)
    movers = k if crit == Criterion.KMOVERS else None
    # a searched k-movers answer names the k it counted (its one-step chain); so does the cached one
    chain: dict[int, int | None] = {} if movers is None else {movers: root.value}
    if root.value is None:
        return SolveResult(None, False, True, None, {}, 0, time.perf_counter() - t0, n, movers, chain)
    if root.best_guess is None:
        return None
    parts = [(r, tuple(int(c) for c in child.cands)) for r, child in at.children(root.best_guess).items()]
    sub = store.lookup(key, [codes for r, codes in parts if r != game.all_bulls and len(codes) > 1],
                       remaining_guesses(k, turn + 1), turn + 1)
    per: dict[int, int | None] = {}
    for r, codes in parts:
        if r == game.all_bulls:
            per[r] = win_value(turn, crit, k)
        elif len(codes) == 1:
            per[r] = win_value(turn + 1, crit, k)
        else:
            e = sub.get(codes)
            if e is None or not e.exact or e.value is None:
                return None
            per[r] = game_value(e.value, len(codes), turn + 1, crit)
    return SolveResult(game_value(root.value, n, turn, crit), True, True, root.best_guess, per, 0,
                       time.perf_counter() - t0, n, movers, chain)


def tree_result(game: Game, node: Node, turn: int, options: SolveOptions, t0: float) -> SolveResult:
    """The exact answer a proven tree's node gives (in the tree's labelling).

    A tree built by an exact search for a criterion is optimal at every node it reaches (a better
    subtree would make a better tree), so the node carries the position's value, its best guess and
    the value of each response: the answer of a search, without one.
    """
    crit, k = options.criterion, options.max_guesses

    def value(n: Node, t: int) -> int:
        if crit == Criterion.TOTAL:
            below = n.subtree
            return game_value(below.total, below.secrets, t, crit)
        assert k is not None
        return _count_at(n, k - t + 1)

    per: dict[int, int | None] = {r: value(child, turn + 1) for r, child in node.children.items()}
    if node.hit:
        per[game.all_bulls] = win_value(turn, crit, k)
    v = value(node, turn)
    secrets = node.subtree.secrets
    return SolveResult(v, True, True, node.guess, dict(sorted(per.items())), 0, time.perf_counter() - t0, secrets,
                       None if crit == Criterion.TOTAL else k, {} if crit == Criterion.TOTAL or k is None else {k: v})


def _count_at(node: Node, depth: int) -> int:
    """Secrets solved at exactly the ``depth``-th guess from ``node`` (its own guess is the first)."""
    if depth <= 0:
        return 0
    here = 1 if node.hit and depth == 1 else 0
    return here + sum(_count_at(child, depth - 1) for child in node.children.values())
