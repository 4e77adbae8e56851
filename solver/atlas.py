"""The atlas: what optimal play is worth in every small game of the family, computed by the exact search.

A game of the atlas has 2–8 positions, 2–10 symbols, with or without repetition, and at most
:data:`ATLAS_MAX_CODES` codes (69 games).  For each one the atlas holds five numbers, each either proven
or bracketed by proven bounds:

``total``                    the fewest guesses summed over all secrets, with no depth limit (T);
``worst_case``               the smallest worst case of any strategy (W);
``total_within_worst_case``  the fewest total guesses of a strategy that never needs more than W (T_W);
``total_depth``              the smallest worst case of a strategy reaching T (D: the smallest k with
                             T_k = T, so W <= D);
``worst_case_movers``        the fewest secrets needing the W-th guess, over strategies within W.

They are found in that order, each search starting from what the earlier ones proved: T; then T_k for
k = 1, 2, ... (the first k with a strategy is W, its value T_W; the first k whose T_k equals T is D);
then the W-movers.  Each search has a wall-clock budget; one that runs out leaves that number (and
those found from it) as bounds, and a later run with a larger budget, or with the transposition table
of a campaign on the same game, resumes there.  This module only computes: storing, shipping and
serving the atlas are the service's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from solver.game import Game
from solver.heuristics import get_strategy
from solver.hybrid import hybrid_chooser
from solver.question import SolveOptions, SolveResult
from solver.search import Searcher
from solver.tree import Tree, build_tree, strategy_chooser
from solver.vocabulary import Criterion

ATLAS_MAX_CODES = 8192
"""The largest game of the atlas, in codes."""

NAMES: tuple[str, ...] = ("total", "worst_case", "total_within_worst_case", "total_depth", "worst_case_movers")
"""The atlas's numbers, in the order they are found."""

LABELS: dict[str, str] = {
    "total": "optimal total (no depth limit)",
    "worst_case": "smallest worst case",
    "total_within_worst_case": "optimal total within the smallest worst case",
    "total_depth": "smallest worst case of a strategy reaching the optimal total",
    "worst_case_movers": "fewest secrets needing the worst-case guess",
}


def atlas_games() -> list[Game]:
    """The atlas's games, smallest first (ties: fewer positions, fewer symbols, repetition last)."""
    games = []
    for positions in range(2, 9):
        for symbols in range(2, 11):
            for repetition in (False, True):
                n = symbols**positions if repetition else (math.perm(symbols, positions) if symbols >= positions else 0)
                if 0 < n <= ATLAS_MAX_CODES:
                    games.append((n, positions, symbols, repetition))
    return [Game(p, s, r) for _, p, s, r in sorted(games)]


@dataclass
class Value:
    """One number of a game's atlas entry: exact (``lower == upper``) or bracketed by proven bounds."""

    lower: int
    upper: int | None
    nodes: int = 0
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.upper is not None and self.lower == self.upper

    @property
    def value(self) -> int | None:
        return self.lower if self.exact else None

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "exact": self.exact, **asdict(self),
                "seconds": round(self.seconds, 3)}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Value:
        return cls(int(doc["lower"]), None if doc["upper"] is None else int(doc["upper"]), int(doc.get("nodes", 0)),
                   float(doc.get("seconds", 0.0)))


SearchFn = Callable[[SolveOptions, float], SolveResult]
"""Solves the whole game (empty history) for the options within a wall-clock budget in seconds."""


ONE_STEP: tuple[str, ...] = ("entropy", "most-parts", "minimax", "expected-size")
"""The one-step strategies whose whole trees bound every game from above."""


@dataclass(frozen=True)
class OneStep:
    """A one-step strategy's whole tree of a game, played through every secret: a strategy that exists,
    so its numbers are proven upper bounds (of T by its total; of W by its worst case; of T_W and of the
    W-movers by its total and its W-movers when its worst case is W)."""

    total: int
    worst_case: int
    movers: int
    """Secrets its tree solves at its worst case."""

    def as_dict(self) -> dict[str, int]:
        return {"total": self.total, "worst_case": self.worst_case, "movers": self.movers}


def one_step_trees(game: Game) -> dict[str, OneStep]:
    """The whole trees of the :data:`ONE_STEP` strategies (seconds, even for the atlas's largest games)."""
    out = {}
    arrays = game.arrays(table=True)
    for name in ONE_STEP:
        stats = build_tree(game, strategy_chooser(game, get_strategy(name), arrays), arrays=arrays).stats()
        out[name] = OneStep(stats.total, stats.worst_case, stats.histogram.get(stats.worst_case, 0))
    return out


def hybrid_tree(game: Game, strategy: str, exact_at_most: int, searcher: Any = None,
                max_guesses: int | None = None) -> Tree:
    """The whole tree of a hybrid: ``strategy`` (one-step) at every position of more than ``exact_at_most``
    candidates, the optimal total's guess at every smaller one.

    Every subtree rooted at a small position is then optimal for that position, so it costs no more than
    the one-step strategy's own subtree there: the hybrid's total is at most the one-step tree's, and, the
    tree being played through every secret, a proven upper bound of T (and of T_W and the W-movers when its
    worst case is W).  The top of the tree is the one-step strategy's; the exact search works only where
    sets are small, which is where it is fast.  ``searcher``: a :class:`solver.search.Searcher` of the
    game's optimal total (a new one when None), whose table is shared by all the small positions.
    ``max_guesses``: the small positions keep to that many guesses where they can
    (:func:`solver.hybrid.hybrid_chooser`)."""
    s = searcher if searcher is not None else Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=1 << 22)
    limit = "" if max_guesses is None else f" within {max_guesses}"
    return build_tree(game, hybrid_chooser(game, strategy, exact_at_most, s, max_guesses), arrays=s.arrays,
                      strategy=f"{strategy}+exact<={exact_at_most}{limit}")


def best_one_step(one_step: dict[str, OneStep]) -> str:
    """The strategy of the fewest total guesses (ties: the smaller worst case, then :data:`ONE_STEP`'s order)."""
    return min(one_step, key=lambda name: (one_step[name].total, one_step[name].worst_case, ONE_STEP.index(name)))


def tighten(values: dict[str, Value], one_step: dict[str, OneStep]) -> dict[str, Value]:
    """``values`` with every upper bound the one-step trees prove lowered to it (nothing else changes).

    Sound for each number because each tree is a strategy: T <= its total and W <= its worst case, for
    any tree; and once W is exact, a tree whose worst case is W is a strategy within W, so T_W <= its
    total and the W-movers <= its W-movers.  An upper bound never goes below the proven lower bound."""
    def lowered(v: Value, bound: int | None) -> Value:
        if bound is None or (v.upper is not None and v.upper <= bound):
            return v
        return Value(v.lower, max(bound, v.lower), v.nodes, v.seconds)

    trees = list(one_step.values())
    out = dict(values)
    out["total"] = lowered(out["total"], min((t.total for t in trees), default=None))
    out["worst_case"] = lowered(out["worst_case"], min((t.worst_case for t in trees), default=None))
    w = out["worst_case"]
    if w.exact:
        within = [t for t in trees if t.worst_case == w.value]
        out["total_within_worst_case"] = lowered(out["total_within_worst_case"], min((t.total for t in within),
                                                                                     default=None))
        out["worst_case_movers"] = lowered(out["worst_case_movers"], min((t.movers for t in within), default=None))
    return out


def raise_lower(values: dict[str, Value], total_lower: int) -> dict[str, Value]:
    """``values`` with the lower bound of T raised to ``total_lower``, a proven lower bound of the optimal
    total (:mod:`solver.lowerbound`), and T_W's with it (a strategy within W is a strategy: T_W >= T).
    Nothing else changes: the bound says nothing of worst cases or movers.

    :raises ValueError: the bound passes a proven upper bound (it would not be a lower bound).
    """
    out = dict(values)
    for name in ("total", "total_within_worst_case"):
        v = out[name]
        if v.upper is not None and total_lower > v.upper:
            raise ValueError(f"a lower bound of {total_lower} passes {name}'s proven upper bound {v.upper}")
        if total_lower > v.lower:
            out[name] = Value(total_lower, v.upper, v.nodes, v.seconds)
    return out


def solve_game(game: Game, search: SearchFn, budget_s: float, known: dict[str, Value] | None = None,
               log: Callable[[str], None] = lambda _: None,
               bound: Callable[[int | None], int] | None = None,
               witness: tuple[int, int] | None = None,
               one_step: dict[str, OneStep] | None = None) -> dict[str, Value]:
    """The five numbers of ``game``'s atlas entry; exact ones in ``known`` are kept, not searched again.

    ``search(options, seconds)`` runs the exact search (a fresh or warm searcher: the caller's choice).
    A search cut by its budget leaves its number as bounds: the lower ones are the trivial ones below,
    or ``bound(k)`` (an admissible lower bound of the whole game's total within ``k`` guesses, None for
    no limit: the searcher's own) when it is higher, raised by what was proven meanwhile; the upper
    ones come from the best one-step strategy's tree.

    ``witness`` is (total, worst case) of a strategy known to exist, such as a shipped tree.  Once the
    total is proven and equals the witness's, T_k = T for every k at least its worst case (T_k >= T
    always, and the witness is a strategy within k reaching T), so those k are not searched: the big
    games whose optimal-total trees the campaigns built need no search past their depth.

    ``one_step``: the :func:`one_step_trees` of the game (built here when not given); every bound they
    prove is applied to the numbers left open (:func:`tighten`).
    """
    out: dict[str, Value] = {k: v for k, v in (known or {}).items() if v.exact}
    n = game.size
    trees = one_step if one_step is not None else one_step_trees(game)
    heuristic_total = min(t.total for t in trees.values())
    heuristic_worst = min(t.worst_case for t in trees.values())

    def run(options: SolveOptions) -> SolveResult | None:
        """The search's result, or None when its budget cut it (a result bounded by ``upper_bound``
        is returned: not exact, but proven at least the bound)."""
        result = search(options, budget_s)
        label = f"{options.criterion}" + ("" if options.max_guesses is None else f" within {options.max_guesses}")
        shown: object = ("impossible" if result.value is None else result.value) if result.exact else (
            "cut" if result.cut else f">= {options.upper_bound}")
        log(f"{game.spec} {label}: {shown} ({result.nodes} nodes, {result.seconds:.1f} s)")
        return None if result.cut else result

    # T: no depth limit.  Any strategy needs one guess for one secret and at least two for the others.
    if "total" not in out:
        started = time.perf_counter()
        res = run(SolveOptions(Criterion.TOTAL))
        if res is not None and res.value is not None:
            out["total"] = Value(res.value, res.value, res.nodes, res.seconds)
        else:
            lower = max(2 * n - 1, bound(None) if bound is not None else 0)
            out["total"] = Value(lower, heuristic_total, 0, time.perf_counter() - started)
    total = out["total"]

    # T_k for k = 1, 2, ...: the first possible k is W (its value T_W), the first whose T_k is T is D.
    # Searched again as a whole unless all three are known: the small k are the cheap ones.
    if not all(name in out for name in ("worst_case", "total_within_worst_case", "total_depth")):
        worst = within = depth = None
        nodes, seconds, k = 0, 0.0, 1
        while True:
            if total.exact and witness is not None and witness[0] == total.value and k >= witness[1]:
                # Every j < k was searched: this k is the first with T_k = T (and W if none was possible).
                if worst is None:
                    worst, within = k, Value(total.lower, total.lower)
                depth = k
                break
            # Past W, only whether T_k reaches T matters: the search may prune at T + 1.
            bounded = worst is not None and total.exact and total.value is not None
            beta = total.value + 1 if bounded and total.value else None
            res = run(SolveOptions(Criterion.TOTAL, k, upper_bound=beta))
            if res is None:
                break  # cut at k: every smaller k was settled
            nodes, seconds = nodes + res.nodes, seconds + res.seconds
            if not res.exact:
                k += 1  # T_k > T: proven at least T + 1
                continue
            if res.possible and res.value is not None:
                if worst is None:
                    worst, within = k, Value(res.value, res.value, res.nodes, res.seconds)
                if not total.exact:
                    break  # whether T_k = T cannot be told without T
                if res.value == total.value:
                    depth = k
                    break
            k += 1
        if worst is not None and within is not None:
            out["worst_case"] = Value(worst, worst, nodes, seconds)
            out["total_within_worst_case"] = within
        else:  # every j < k is impossible; the heuristic's tree is a strategy
            out["worst_case"] = Value(k, heuristic_worst, nodes, seconds)
            out["total_within_worst_case"] = Value(total.lower, None)
        out["total_depth"] = Value(depth, depth, nodes, seconds) if depth is not None else Value(k, None)

    # The W-movers: needs W itself.
    if "worst_case_movers" not in out:
        w = out["worst_case"]
        if w.exact and w.value is not None:
            res = run(SolveOptions(Criterion.KMOVERS, w.value))
            if res is not None and res.value is not None:
                out["worst_case_movers"] = Value(res.value, res.value, res.nodes, res.seconds)
            else:
                out["worst_case_movers"] = Value(1, n, 0, budget_s)
        else:
            out["worst_case_movers"] = Value(1, n, 0, 0.0)
    return tighten({name: out[name] for name in NAMES}, trees)
