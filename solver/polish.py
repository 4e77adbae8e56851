"""Polish a strategy tree: replace subtrees by exact optimal ones wherever the exact search proves, within a time
budget per position, that fewer guesses are possible there.

Why: a records or atlas tree plays the exact optimum only below a size the whole build could afford to search
at every position it visited (rollouts visit many more positions than the tree keeps).  Once the tree is
built, each of its middle-sized positions can be searched once, with the subtree's own cost as the upper
bound: the search then only has to find something cheaper, and gives up when it cannot within the budget.  A
subtree is replaced only by one that needs fewer guesses (and, under a depth limit, leaves no more secrets
beyond it), so the polished tree is never worse; it is played through every secret like any tree.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from solver import kernels
from solver.game import CandidateSet, Game, Turn
from solver.question import SolveOptions
from solver.search import Searcher
from solver.sweep import Sweeper, SweepProgress, progress_from_json, progress_to_json
from solver.tree import Node, Tree, build_tree, from_compact, to_compact
from solver.vocabulary import Criterion

Log = Callable[[str], None]


OPTIMAL, IMPROVED, CUT, OPEN = "optimal", "improved", "cut", "open"
"""How a position was settled: nothing cheaper exists below its subtree's cost; a cheaper subtree replaced it; the
search ran out of time; or it found nothing it could keep (no strategy within the limit, or a replacement refused
for its movers).  The last two have their children tried instead."""
OUTCOMES = (OPTIMAL, IMPROVED, CUT, OPEN)


@dataclass(frozen=True)
class Settled:
    """What a polish settled at one position, as its progress keeps it: a polish of hours outlives a session only
    if a second run can take each position settled before as it was, instead of searching it again."""

    outcome: str
    """:data:`OPTIMAL`, :data:`IMPROVED`, :data:`CUT` or :data:`OPEN`."""
    seconds: float
    """The search's time there."""
    subtree: Node | None = None
    """The replacement, when :data:`IMPROVED`."""
    sweep: SweepProgress | None = None
    """When :data:`CUT` by a sweep: what it had proven (its cheapest guess, the guesses refuted, the parts of the one
    under way).  A later run with a sweeper sweeps on from there with another budget instead of giving up on the
    position: a set of a few hundred candidates needs more time than one run gives it."""


SAVE_EVERY_S = 30.0
"""A sweep under way is written to the progress at most this often: what a kill loses, against a file rewritten
after every guess refuted (several a second)."""


def left_alone(size: int, above: int) -> bool:
    """Whether a polish leaves a position of ``size`` candidates as it is, with ``above`` its least size searched
    (a hybrid's small positions are optimal, and two candidates or fewer have nothing to find)."""
    return size <= max(above, 2)


@dataclass(frozen=True)
class PolishParams:
    """A polish's parameters (:func:`polish`), in one place with what they mean: the positions searched, for how long,
    within which limit, and the stored form a polish's job and progress file keep (:meth:`as_dict`, part of the
    polish's name with its tree's digest, so its keys and values are those files' as they are)."""

    above: int
    at_most: int
    budget_s: float
    max_guesses: int | None = None
    keep_movers: bool = False
    sweep: int | None = None
    """Positions of more candidates than this are swept (:class:`solver.sweep.Sweeper`); None: none is."""
    parts: tuple[str, ...] | None = None
    """Responses to the tree's first guess (as the CLI writes them, sorted) whose subtrees alone are polished."""

    def as_dict(self) -> dict[str, object]:
        """The stored form (``parts`` only when named)."""
        return {"above": self.above, "at_most": self.at_most, "budget_s": self.budget_s,
                "max_guesses": self.max_guesses, "keep_movers": self.keep_movers, "sweep": self.sweep,
                **({} if self.parts is None else {"parts": list(self.parts)})}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PolishParams:
        """The parameters :meth:`as_dict` stored.

        :raises ValueError: a key missing or of the wrong type."""
        try:
            parts, sweep, limit = d.get("parts"), d.get("sweep"), d["max_guesses"]
            return cls(int(d["above"]), int(d["at_most"]), float(d["budget_s"]), None if limit is None else int(limit),
                       bool(d["keep_movers"]), None if sweep is None else int(sweep),
                       None if parts is None else tuple(str(r) for r in parts))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a polish's parameters: {exc!r}") from None

    def searches(self, size: int) -> bool:
        """Whether a position of ``size`` candidates is one the polish searches."""
        return not left_alone(size, self.above) and size <= self.at_most

    def part_responses(self, game: Game) -> set[int] | None:
        """:attr:`parts` as response numbers (None: every part)."""
        return None if self.parts is None else {game.parse_response(r) for r in self.parts}

    def options(self) -> str:
        """The ``polish`` command's options that ask this polish."""
        return (f"--above {self.above} --at-most {self.at_most} --budget {self.budget_s:g}"
                + ("" if self.max_guesses is None else f" --max-guesses {self.max_guesses}")
                + ("" if self.sweep is None else f" --sweep {self.sweep}")
                + ("" if self.parts is None else f" --parts {','.join(self.parts)}"))

    def run(self, tree: Tree, searcher: object, *, budget_s: float | None = None, sweeper: Sweeper | None = None,
            known: Mapping[str, Settled] | None = None, settle: Callable[[str, Settled], None] | None = None,
            parts: Collection[int] | None = None, log: Log = lambda _: None) -> PolishReport:
        """:func:`polish` of ``tree`` with these parameters (``budget_s`` for another budget, ``parts`` for other
        parts than :attr:`parts`)."""
        return polish(tree, searcher, above=self.above, at_most=self.at_most,
                      budget_s=self.budget_s if budget_s is None else budget_s, max_guesses=self.max_guesses,
                      keep_movers=self.keep_movers, sweeper=sweeper, known=known, settle=settle,
                      parts=self.part_responses(tree.game) if parts is None else parts, log=log)


def position_key(game: Game, path: list[Turn]) -> str:
    """A position's name in a polish's progress: its turns as the CLI writes them (``"01234 0.2, 12567 0.2"``;
    the root is ``""``)."""
    return ", ".join(game.format_turn(t) for t in path)


def settled_to_json(game: Game, key: str, done: Settled) -> dict[str, object]:
    """What was settled at the position ``key`` as a polish's progress keeps it (the file's and the database's
    form): its outcome and time, the replacement as the compact text of a tree from that position, and a cut
    sweep's progress (:func:`solver.sweep.progress_to_json`)."""
    entry: dict[str, object] = {"outcome": done.outcome, "seconds": done.seconds}
    if done.subtree is not None:
        entry["tree"] = to_compact(Tree(game, done.subtree, game.parse_history(key_turns(key))))
    if done.sweep is not None:
        entry["sweep"] = progress_to_json(game, done.sweep)
    return entry


def settled_from_json(game: Game, key: str, entry: object) -> Settled:
    """The :func:`settled_to_json` form read back.

    :raises ValueError: an entry a polish cannot have written (an unknown outcome, no time, a replacement that does
        not parse or belongs to another game or position, a sweep's progress that is not one).
    """
    if not isinstance(entry, dict):
        raise ValueError(f"position {key!r}: {entry!r} is not a settled position")
    outcome, text, seconds = entry.get("outcome"), entry.get("tree"), entry.get("seconds")
    if outcome not in OUTCOMES or not isinstance(seconds, int | float) or isinstance(seconds, bool):
        raise ValueError(f"position {key!r}: {entry} is not a settled position (an outcome of "
                         f"{', '.join(OUTCOMES)} and its seconds)")
    subtree = None
    if outcome == IMPROVED and text is not None:
        try:
            tree = from_compact(str(text))
        except ValueError as exc:
            raise ValueError(f"position {key!r}: its subtree does not parse: {exc}") from None
        if tree.game.spec != game.spec or [game.format_turn(t) for t in tree.history] != key_turns(key):
            raise ValueError(f"position {key!r} holds the subtree of another position")
        subtree = tree.root
    sweep = None
    if outcome == CUT and entry.get("sweep") is not None:
        try:
            sweep = progress_from_json(game, entry["sweep"])
        except ValueError as exc:
            raise ValueError(f"position {key!r}: its sweep: {exc}") from None
    return Settled(str(outcome), float(seconds), subtree, sweep)


def key_turns(key: str) -> list[str]:
    """The turns of a position's key (:func:`position_key`), as texts."""
    return [t.strip() for t in key.split(",")] if key else []


@dataclass
class PolishReport:
    """What a polish did."""

    tried: int = 0
    """Positions searched (those taken from an earlier run's progress included)."""
    improved: int = 0
    """Subtrees replaced."""
    cut: int = 0
    """Searches stopped by the budget (their positions' children were tried instead)."""
    optimal: int = 0
    """Subtrees proven optimal as they were (nothing below them is searched)."""
    gained: int = 0
    """Guesses saved over every secret."""
    gains: list[tuple[int, int, int]] = field(default_factory=list)
    """(guess number, candidates, guesses saved) of each replaced subtree."""
    resumed: int = 0
    """Positions taken as an earlier run settled them (``known``), not searched again."""
    resumed_s: float = 0.0
    """What the earlier runs' searches of the positions taken from them (and of the cut sweeps swept on) cost
    (seconds): a polish that took several runs cost this plus the last run's time."""

    def counts(self) -> dict[str, int]:
        """The counts, as a record keeps them."""
        counts = {"tried": self.tried, "improved": self.improved, "optimal": self.optimal, "cut": self.cut,
                  "gained": self.gained}
        return counts if not self.resumed else {**counts, "resumed": self.resumed}


def subtree_cost(node: Node, turn: int, max_guesses: int | None) -> tuple[int, int]:
    """(secrets beyond ``max_guesses``, guesses from this position on) of the subtree at ``node``, its guess
    being guess number ``turn``."""
    over = 0
    total = node.size
    if max_guesses is not None and turn > max_guesses and node.hit:
        over += 1
    for child in node.children.values():
        o, t = subtree_cost(child, turn + 1, max_guesses)
        over, total = over + o, total + t
    return over, total


def movers_at(node: Node, turn: int, k: int) -> int:
    """Secrets of the subtree at ``node`` (its guess being guess number ``turn``) found at guess ``k`` exactly:
    the k-movers, when ``k`` is the worst case."""
    if turn >= k:
        return 1 if turn == k and node.hit else 0
    return sum(movers_at(child, turn + 1, k) for child in node.children.values())


def polish(tree: Tree, searcher: object, *, above: int, at_most: int, budget_s: float,
           max_guesses: int | None = None, keep_movers: bool = False, sweeper: Sweeper | None = None,
           known: Mapping[str, Settled] | None = None, settle: Callable[[str, Settled], None] | None = None,
           parts: Collection[int] | None = None, log: Log = lambda _: None) -> PolishReport:
    """Polish ``tree`` in place: top down, each position of more than ``above`` and at most ``at_most``
    candidates is searched exactly (``searcher``, a :class:`solver.search.Searcher` of the tree's game, for
    at most ``budget_s`` seconds, within ``max_guesses`` when given) with its subtree's cost as the bound; a
    cheaper strategy found there replaces the subtree, a subtree proven optimal is left whole, and a position
    out of time (or unable to keep the limit) has its children tried in turn.  Positions of ``above``
    candidates or fewer are left as they are (a hybrid's are optimal).

    ``keep_movers`` (with ``max_guesses``): a subtree is replaced only if it also leaves no more secrets to the
    ``max_guesses``-th guess.  The search minimises the total within the limit, not those movers, and a tree
    that bounds both (the atlas's best-known tree of a game whose worst case is that limit) must not trade
    one for the other: a replacement that adds movers is refused, and the position's children tried instead.

    ``sweeper`` (a :class:`solver.sweep.Sweeper` of the game, with the same ``max_guesses``): positions of more
    candidates than its ``kernel_at_most`` are searched by its sweep (guesses by refined bounds, best first)
    instead of the exact search alone, and their subtrees built from its choices: the sweep settles sets of a
    few hundred candidates in the deep games where the search alone runs out of time.

    ``settle`` is called with each position's key (:func:`position_key`) and what was settled there, as soon as it
    is; ``known`` gives what an earlier polish of the same tree with the same parameters settled, taken as it
    stands (an improvement only while it still needs fewer guesses than the subtree it replaces): together they
    let a polish stopped at any moment continue where it was.  A sweep under way is settled as cut, with its
    progress, every :data:`SAVE_EVERY_S` seconds; a position a sweep left cut is swept on from its progress, with
    another ``budget_s``, by every later run that has a sweeper, until it is proven or improved.

    ``parts``: only the subtrees below these responses to the root's guess are polished (those a change of the
    tree touched; the others were polished before)."""
    if not isinstance(searcher, Searcher):
        raise TypeError("polish needs a solver.search.Searcher of the tree's game")
    if sweeper is not None and sweeper.max_guesses != max_guesses:
        raise ValueError("the sweeper must answer the same guess limit as the polish")
    s = searcher
    game: Game = tree.game
    report = PolishReport()
    limited = SolveOptions(Criterion.TOTAL, max_guesses)
    a = s.arrays

    def gain(turn: int, size: int, cost: int, new_cost: int) -> None:
        """Count a subtree replaced by a cheaper one (found now or by an earlier run)."""
        report.improved += 1
        report.gained += cost - new_cost
        report.gains.append((turn, size, cost - new_cost))

    def taken(node: Node, turn: int, where: str, done: Settled, over: int, cost: int) -> Node | None:
        """Replay what an earlier run settled here: the node to keep, or None to go on to its children."""
        report.resumed += 1
        report.resumed_s += done.seconds
        if done.outcome == OPTIMAL:
            report.optimal += 1
            log(f"{where}: its {cost} guesses proven optimal before")
            return node
        if done.outcome == IMPROVED and done.subtree is not None:
            new_over, new_cost = subtree_cost(done.subtree, turn, max_guesses)
            if (new_over, new_cost) < (over, cost):
                gain(turn, node.size, cost, new_cost)
                log(f"{where}: {cost} -> {new_cost} guesses, found before")
                return done.subtree
        report.cut += done.outcome == CUT
        return None

    def visit(node: Node, cands: CandidateSet, path: list[Turn]) -> Node:
        turn = len(path) + 1
        if left_alone(node.size, above):
            return node
        at_root = len(path) == len(tree.history)
        if node.size <= at_most and not (parts is not None and at_root):
            over, cost = subtree_cost(node, turn, max_guesses)
            offset = len(path) * node.size
            bound = None if over else cost + offset
            report.tried += 1
            key = position_key(game, path)
            where = f"guess {turn}, {node.size} candidates" + (f" (after {key})" if path else "")
            done = (known or {}).get(key)
            if done is not None and done.sweep is not None and done.outcome == CUT and sweeper is not None:
                report.resumed_s += done.seconds
                kept = search(node, cands, path, turn, where, over, cost, bound, key, done)
            elif done is None:
                kept = search(node, cands, path, turn, where, over, cost, bound, key)
            else:
                kept = taken(node, turn, where, done, over, cost)
            if kept is not None:
                return kept
        order, starts = kernels.split(*a.kernel_args(), node.guess, cands, game.n_responses)
        for r in list(node.children):
            if parts is not None and at_root and r not in parts:
                continue
            path.append(Turn(node.guess, r))
            try:
                node.children[r] = visit(node.children[r], order[starts[r]:starts[r + 1]], path)
            finally:
                path.pop()
        return node

    def search(node: Node, cands: CandidateSet, path: list[Turn], turn: int, where: str, over: int, cost: int,
               bound: int | None, key: str, resume: Settled | None = None) -> Node | None:
        """Search one position (``settle`` told how): the node to keep, or None to go on to its children.
        ``resume``: the position as an earlier run's sweep left it, cut, to sweep on from."""
        started = time.perf_counter()
        before = 0.0 if resume is None else resume.seconds
        sweep = sweeper if sweeper is not None and node.size > sweeper.kernel_at_most else None
        progress: SweepProgress | None = None
        if sweep is not None:
            saved = [started]

            def record(p: SweepProgress) -> None:
                now = time.perf_counter()
                if settle is not None and now - saved[0] >= SAVE_EVERY_S:
                    saved[0] = now
                    settle(key, Settled(CUT, round(before + now - started, 1), None, p))

            if resume is not None and resume.sweep is not None:
                log(f"{where}: swept on from {len(resume.sweep.refuted)} guesses refuted"
                    + ("" if resume.sweep.found is None else f" and {resume.sweep.found} found")
                    + f" ({resume.seconds:.0f} s before)")
            sw = sweep.value(path, cands=cands, beta=bound, seconds=budget_s,
                             resume=None if resume is None else resume.sweep, record=record)
            # cut, a sweep still keeps the cheapest guess it evaluated in full (below the bound)
            found, cut = (sw.exact and sw.value is not None) or sw.found is not None, sw.cut
            if cut:
                progress = sweep.progress(path, cands=cands)
        else:
            res = s.solve_within(path, budget_s, cands=cands,
                                 options=SolveOptions(Criterion.TOTAL, max_guesses, upper_bound=bound))
            found = res.exact and res.possible and res.value is not None  # below the bound, if there is one
            cut = res.cut
        took = time.perf_counter() - started
        kept: Node | None = None
        outcome = CUT if cut else OPEN
        if cut:
            report.cut += 1
            log(f"{where}: out of time after {took:.1f} s"
                + ("" if progress is None else f" ({before + took:.0f} s in all, {len(progress.refuted)} guesses "
                   "refuted; a later run sweeps on from there)")
                + ", its parts are tried instead")
        elif not found and bound is not None:  # nothing cheaper exists: every subtree below is optimal too
            report.optimal += 1
            log(f"{where}: its {cost} guesses proven optimal" + (f" within {max_guesses}" if max_guesses else "")
                + f" ({took:.1f} s)")
            kept, outcome = node, OPTIMAL
        elif not found:
            log(f"{where}: no strategy keeps within {max_guesses} guesses ({took:.1f} s), its parts are tried "
                "instead")
        if found:
            choose = sweep.chooser() if sweep is not None else s.chooser(options=limited)
            better = build_tree(game, choose, path, arrays=a).root
            new_over, new_cost = subtree_cost(better, turn, max_guesses)
            movers_kept = (not keep_movers or max_guesses is None
                           or movers_at(better, turn, max_guesses) <= movers_at(node, turn, max_guesses))
            if (new_over, new_cost) < (over, cost) and not movers_kept:
                log(f"{where}: {cost} -> {new_cost} guesses refused: it leaves more secrets to guess {max_guesses}")
            if (new_over, new_cost) < (over, cost) and movers_kept:
                gain(turn, node.size, cost, new_cost)
                log(f"{where}: {cost} -> {new_cost} guesses"
                    + (f", {over} -> {new_over} beyond {max_guesses}" if over else ""))
                kept, outcome = better, IMPROVED
        if settle is not None:
            settle(key, Settled(outcome, round(before + took, 1), kept if outcome == IMPROVED else None,
                                progress if outcome == CUT else None))
        return kept

    tree.root = visit(tree.root, game.candidates(tree.history), list(tree.history))
    return report
