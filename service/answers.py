"""The answer chain: one component answers every position question, from everything the product knows.

``POST /v1/next-move``, ``POST /v1/solve``, ``bullscows next``, ``bullscows solve`` and Python callers
all go down the same steps, and the answer says which step gave it (its ``source``, one of
:data:`solver.vocabulary.SOURCES`)::

    the shipped proven trees, under symmetry ........................ tree
    the shipped knowledge (the campaigns' proven positions) .......... tree
    the table (database), at the position's canonical labelling ..... cache
    a search within a wall-clock budget, written back to the table ... search  (or busy)
    the criterion's heuristic, with a note saying why ................ heuristic
    (the HTTP layer then hands a cut question to a job) .............. job

Symmetry.  A history that is a relabelling of a tree's path (other symbols, positions permuted) is
answered from that tree: :func:`solver.symmetry.relabelling_onto` maps it onto the path, and the
tree's guess is mapped back.  Below the trees, every question is asked at the canonical representative
of its orbit (:meth:`solver.position.Position.canonical`): the table is read and written there, so one
proof serves every relabelling of a position, and the answer is mapped back to the caller's labels.
Entries that jobs wrote at the caller's own labelling are still found (the raw position is looked up
too when it differs), and the shipped knowledge is also looked up at the smallest image of each order
of the turns, where a campaign's search stored it (:func:`service.lookups.labellings`).

What this module must not do: parse HTTP or print; those are the callers'.  It talks to the database
only through the table store's interface (:class:`solver.table.TTStore`; :meth:`AnswerChain.open` makes the
database's, :class:`service.store.positions.PositionStore`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from service.config import Settings
from service.engine import SolverPool, base_options
from service.knowledge import Knowledge, Known
from service.lookups import cached_solve, labellings, mapped_back, tree_result
from service.trees import StoredTree, TreeLibrary, tree_note
from solver.bounds import searchable
from solver.errors import SolverError
from solver.game import CandidateSet, Code, Game, Turn
from solver.position import Labelling, Position
from solver.question import INF, SolveOptions, SolveResult, finished_result, no_next_guess
from solver.symmetry import Relabelling, relabelling_onto
from solver.table import position_entries
from solver.tree import Node
from solver.vocabulary import (
    BEST_KNOWN,
    SOURCE_LABELS,
    Criterion,
    Source,
    average_of,
    criterion_of,
    game_length,
    game_value,
    remaining_value,
)

if TYPE_CHECKING:
    from solver.table import TTStore

# What a question answered from a shipped tree does not need is imported by the step that needs it: the search and
# the heuristics (numba), the database (SQLAlchemy).  ``bullscows next`` then answers such a question in a fraction
# of a second, process start included (``benchmarks/bench_cli.py``; ``tests/test_cli.py`` keeps it so).

OnAnswer = Callable[[str, int], None]
"""Told of every answer: its source and the search nodes it cost (the service counts them)."""


@dataclass(frozen=True)
class Answer:
    """The value of a position under a criterion, and where it came from."""

    result: SolveResult
    """Value, best guess and per-response values, in the caller's labelling."""
    source: Source
    """Which step of the chain answered."""
    complete: bool
    """False when the search was cut by its budget (or found every search busy): no value then."""
    why: str | None = None
    """Why a ``busy`` answer has no value when it is not that every search was taken, for people."""

    def as_dict(self, game: Game) -> dict[str, Any]:
        """The keys of ``POST /v1/solve`` and ``bullscows solve --json``."""
        out = self.result.as_dict(game)
        if not self.complete:
            out.update(value=None, exact=False, best_guess=None, per_response={})
        out.update(source=self.source, complete=self.complete)
        return out


@dataclass(frozen=True)
class Move:
    """A strategy's next guess, and how it was found."""

    guess: Code | None
    """The guess, in the caller's labelling; None when the history has already won (a finished game)."""
    exact: bool
    """Whether the guess is proven optimal for the strategy's criterion (always for one candidate)."""
    source: Source
    """Which step of the chain answered."""
    remaining: int | None = None
    """Guesses still needed over every candidate, this one included (totals, when known): the value in its
    turn-independent form, converted for the answer by :meth:`as_dict`."""
    worst_case: int | None = None
    """Most guesses still needed, this one included (when a tree knows it), converted alike."""
    note: str | None = None
    """Why the answer is not the strategy's own exact answer, for people."""
    unfinished: bool = False
    """An optimal question that the budget cut short (or found every search busy): a job can finish it."""
    score: float | None = None
    """A one-step strategy's score of the guess."""

    def as_dict(self, game: Game, history: Sequence[Turn], cands: CandidateSet, strategy: str,
                elapsed_ms: float) -> dict[str, Any]:
        """The keys of ``POST /v1/next-move`` and ``bullscows next --json`` (the service adds the job's)."""
        n = int(cands.shape[0])
        finished = self.guess is None
        turn = Position(game, tuple(history), cands).turn
        # counted as every position's value is (POST /v1/solve, POST /v1/explain, a tree's statistics): every
        # guess of the game, the history's included
        value = {"expected": None if self.remaining is None else average_of(
                     game_value(self.remaining, n, turn, Criterion.TOTAL), n),
                 "worst_case": None if self.worst_case is None else game_length(self.worst_case, turn)}
        return {
            "guess": None if self.guess is None else game.format_code(self.guess),
            "guess_number": None if finished else turn,
            "candidates": n,
            "candidate_list": game.format_codes(cands) if n <= 20 else None,
            "solved": n == 1,
            "finished": finished,
            "secret": game.format_code(int(cands[0])) if n == 1 else None,
            "guesses": len(history) if finished else None,
            "consistent": None if self.guess is None else bool(np.any(cands == self.guess)),
            "exact": self.exact,
            "value": value,
            "source": self.source,
            "strategy": strategy,
            "score": self.score,
            "note": self.note,
            "elapsed_ms": round(elapsed_ms, 3),
        }


def _plain(options: SolveOptions) -> bool:
    """Whether the question is a criterion's own optimum (no hybrid, bound, chain or node limit): the
    question proven trees answer."""
    return (options.mde is None and not options.from_set_only and options.upper_bound is None
            and not options.node_limit and options.depth_count is None)


class AnswerChain:
    """Answers position questions: proven trees → shipped knowledge → table → bounded search → heuristic.

    One chain per process (the service's app, or a CLI command); it is thread-safe, since the pool
    guards each searcher with a lock.  ``pool.store`` None means no database: the table step is
    skipped and nothing is written back (the CLI without a URL).
    """

    def __init__(self, pool: SolverPool, trees: TreeLibrary | None = None,
                 on_answer: OnAnswer | None = None) -> None:
        self.pool = pool
        self.trees = trees if trees is not None else TreeLibrary()
        self._on_answer = on_answer

    @classmethod
    def open(cls, url: str | None = None, settings: Settings | None = None) -> AnswerChain:
        """A chain for a script or a command: the shipped trees, and the table of ``url`` when one is
        given (its schema created or migrated first), else no database.  ``settings`` default to the
        environment's (``BULLSCOWS_*``), as the service's do."""
        settings = settings or Settings()
        store = None
        if url:
            from service.store.db import Database
            from service.store.migrate import upgrade
            from service.store.positions import PositionStore

            upgrade(url)
            store = PositionStore(Database(url))
        return cls(SolverPool(store, settings, Knowledge()))

    def close(self) -> None:
        """Close the table's database connections, if any."""
        if self.store is not None:
            self.store.close()

    @property
    def store(self) -> TTStore | None:
        """The table's database, if any."""
        return self.pool.store

    def _told(self, source: str, nodes: int = 0) -> None:
        if self._on_answer is not None:
            self._on_answer(source, nodes)

    # -- the steps ------------------------------------------------------------------------------

    def tree_node(self, game: Game, history: Sequence[Turn], strategy: str, max_guesses: int | None
                  ) -> tuple[StoredTree, Node, Relabelling] | None:
        """The proven tree's node for this position, under any relabelling of the tree's path."""
        stored = self.trees.get(game, strategy, max_guesses)
        if stored is None:
            return None
        node: Node | None = stored.tree.root
        targets: list[Code] = []
        for turn in history:
            if node is None:
                return None
            targets.append(node.guess)
            node = node.children.get(turn.response)
        if node is None:
            return None
        relabel = relabelling_onto(game, [t.guess for t in history], targets)
        return None if relabel is None else (stored, node, relabel)

    def best_known_move(self, game: Game, history: Sequence[Turn], criterion: Criterion, max_guesses: int | None,
                        n: int) -> Move | None:
        """The guess of the game's shipped best-known tree (a hybrid or its rollout: :mod:`service.records`), for
        a game no proven tree answers, while the history follows the tree under some relabelling; None otherwise.  Only
        for totals, and only when the tree keeps within ``max_guesses``: it is the best strategy known for
        them, not a proven optimum, so ``exact`` stays false until one candidate is left."""
        if criterion != Criterion.TOTAL:
            return None
        found = self.tree_node(game, history, BEST_KNOWN, None)
        if found is None:
            return None
        stored, node, relabel = found
        below = node.subtree
        if max_guesses is not None and len(history) + below.height > max_guesses:
            return None
        self._told("best-known")
        # a few words, the same as the page's (how the tree was made is its provenance: GET /v1/games/{game})
        note = None if n == 1 else f"{SOURCE_LABELS['best-known']}: {stored.meta['total']} guesses over every secret"
        return Move(relabel.invert(game, node.guess), n == 1, "best-known", below.total, below.height,
                    note)

    def known(self, game: Game, history: Sequence[Turn], cands: CandidateSet, options: SolveOptions,
              canon: Labelling | None = None, *, shipped: bool = True) -> Answer | None:
        """The answer without a search of the position: a proven tree, the shipped knowledge, else the
        table; None when none of them knows.  ``shipped`` False asks the table only (the caller has
        asked the trees and the knowledge already)."""
        t0 = time.perf_counter()
        position = Position.of(game, history, cands)
        if shipped and _plain(options):
            found = self.tree_node(game, history, Criterion(options.criterion).strategy, options.max_guesses)
            if found is not None and found[0].answers(options.max_guesses):
                _, node, relabel = found
                result = tree_result(game, node, position.turn, options, t0)
                self._told("tree")
                return Answer(mapped_back(result, relabel, game), "tree", True)
        canon = canon or position.canonical()
        from_knowledge = self._shipped(position, options, canon) if shipped else None
        if from_knowledge is not None:
            at, known = from_knowledge
            full = self._with_parts(at.position, options, known, t0)
            if full is not None:
                self._told("tree")
                return Answer(mapped_back(full, at.relabel, game), "tree", True)
        if self.store is None:
            return None
        for at in labellings(position, canon):
            hit = cached_solve(self.store, game, at.position.history, options, at.position.cands)
            if hit is not None:
                self._told("cache")
                return Answer(mapped_back(hit, at.relabel, game), "cache", True)
        return None

    def _shipped(self, position: Position, options: SolveOptions, canon: Labelling) -> tuple[Labelling, Known] | None:
        """What the shipped knowledge proves exactly about the position (at the labelling it found it)."""
        knowledge = self.pool.knowledge
        if knowledge is None or not _plain(options):
            return None
        game = position.game
        index = knowledge.index(options.table_key(game))
        if index is None:
            return None
        m = position.remaining(options.max_guesses)
        for at in labellings(position, canon, every_order=True):
            known = index.lookup(game, at.position.cands, m)
            if known is not None and known.exact and (known.best_guess is not None or known.lower >= INF):
                return at, known
        return None

    def _with_parts(self, at: Position, options: SolveOptions, known: Known, t0: float) -> SolveResult | None:
        """The full answer of a position the knowledge proves: its value and best guess are known; the
        value of each response comes from an evaluation of that guess by the warm searcher, whose table
        holds the knowledge (the parts the campaigns proved are found there, the small ones they did not
        keep cost a few nodes).  None if that evaluation does not end within the default budget."""
        n, turn = at.size, at.turn
        movers = options.max_guesses if options.criterion == Criterion.KMOVERS else None
        if known.lower >= INF:
            return SolveResult(None, False, True, None, {}, 0, time.perf_counter() - t0, n, movers,
                               {} if movers is None else {movers: None})
        assert known.best_guess is not None
        value = game_value(known.lower, n, turn, options.criterion)
        evaluated, _, complete = self._search(at, options, self.pool.settings.default_time_budget_ms,
                                              known.best_guess, None, count=False)
        if not complete or evaluated.value != value:
            return None
        chain: dict[int, int | None] = {} if movers is None else {movers: value}
        return dataclasses.replace(evaluated, seconds=time.perf_counter() - t0, movers=movers, chain=chain)

    def _height(self, at: Position, options: SolveOptions, budget_ms: int) -> int | None:
        """Most guesses still needed, this one included, by the optimal strategy the chain plays from a position the
        shipped knowledge proves: the height of that strategy's tree, built by the question's warm searcher.

        Why: every answer from a tree says its worst case, and such a position has no shipped tree, only its proven
        value and best guess.  The searcher's table holds the knowledge, so the tree costs milliseconds (13 to 74 ms
        after two turns of Bulls-and-Cows).  None only when the searcher is not free within ``budget_ms``."""
        from solver.search import optimal_tree

        pool, game = self.pool, at.game
        deadline = time.monotonic() + max(1, budget_ms) / 1000
        if not pool.searches.acquire(timeout=max(0.0, deadline - time.monotonic())):
            return None
        try:
            slot = pool.slot_within(game, options, max(0.0, deadline - time.monotonic()))
            if slot is None or not slot.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                return None
            try:
                tree = optimal_tree(game, options, at.history, searcher=slot.searcher)
            finally:
                slot.lock.release()
        finally:
            pool.searches.release()
        return tree.stats().worst_case - (at.turn - 1)  # the tree counts from the start of the game

    def solve(self, game: Game, history: Sequence[Turn], cands: CandidateSet, options: SolveOptions,
              budget_ms: int | None, guess: Code | None = None, *, lookup: bool = True, fresh: bool = False,
              progress: Callable[[int, int], None] | None = None, canon: Labelling | None = None,
              shipped: bool = True) -> Answer:
        """The value of a position: :meth:`known` (unless ``lookup`` is False, or ``guess`` asks to
        evaluate one guess), else a search of the canonical position within ``budget_ms`` of
        wall-clock time (None: to the end), whose proven entries are written back to the table.

        ``fresh`` searches from nothing: no tree, no knowledge, no table, not even in the search's own
        transposition table (a new searcher), which is what measuring a search, or proving a position
        again, needs.  ``canon`` and ``shipped`` are :meth:`next_move`'s: the canonical form it has
        computed, and False when it has asked the trees and the knowledge already."""
        if game.won(history):
            if guess is not None:
                raise no_next_guess(history)
            self._told("history")
            return Answer(finished_result(game, history, options), "history", True)
        position = Position.of(game, history, cands)
        options.validate(game, position.turn)
        canon = canon or position.canonical()
        if guess is None and lookup and not fresh:
            hit = self.known(game, history, cands, options, canon, shipped=shipped)
            if hit is not None:
                return hit
        at_guess = None if guess is None else canon.apply(guess)
        result, source, complete = self._search(canon.position, options, budget_ms, at_guess, progress, fresh=fresh)
        if source in ("busy", "preparing"):
            why = ("this game's exact search is still being prepared (once per process)" if source == "preparing"
                   else None)
            return Answer(result, "busy", False, why)
        return Answer(mapped_back(result, canon.relabel, game), "search", complete)

    def _search(self, at: Position, options: SolveOptions, budget_ms: int | None,
                guess: Code | None, progress: Callable[[int, int], None] | None, *, count: bool = True,
                fresh: bool = False) -> tuple[SolveResult, str, bool]:
        """Search (or evaluate ``guess`` at) the position ``at`` within the budget with the question's
        warm searcher (``fresh``: a new one), and write what it proved to the table; ``count`` False
        keeps it out of the answer counts (a step of another answer)."""
        from service.store.db import StorageError
        from solver.search import Searcher

        pool, game = self.pool, at.game
        deadline = None if budget_ms is None else time.monotonic() + max(1, budget_ms) / 1000
        if not pool.searches.acquire(blocking=budget_ms is None):
            if count:
                self._told("busy")
            return _unfinished(at.cands), "busy", False
        try:
            if fresh:
                searcher, lock = Searcher(game, base_options(options), table_capacity=pool.settings.table_capacity,
                                          export_threshold=pool.settings.export_threshold), threading.Lock()
            elif deadline is None:
                slot = pool.slot(game, options)
                searcher, lock = slot.searcher, slot.lock
            else:
                found = pool.slot_within(game, options, deadline - time.monotonic())
                if found is None:
                    if count:
                        self._told("busy")
                    return _unfinished(at.cands), "preparing", False
                searcher, lock = found.searcher, found.lock
            # the same question's searcher may be busy with another request: wait for it only as long
            # as the budget allows
            wait = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if not lock.acquire(timeout=wait):
                if count:
                    self._told("busy")
                return _unfinished(at.cands), "busy", False
            try:
                if deadline is None:
                    result = (searcher.solve(at, options=options, progress=progress) if guess is None
                              else searcher.evaluate_guess(at, guess, options=options))
                else:
                    result = searcher.solve_within(at, deadline - time.monotonic(), guess=guess,
                                                   options=options, progress=progress)
                exported = [e for t in searcher.tables for e in t.export()]
            finally:
                lock.release()
        finally:
            pool.searches.release()
        complete = not result.cut
        if self.store is not None:
            entries = exported
            if complete and guess is None and result.exact and _cacheable(options):
                entries = entries + position_entries(game, options.table_key(game), at.cands, at.turn,
                                                     result.value, result.best_guess, result.per_response,
                                                     cost=result.nodes)
            try:
                self.store.save_entries(entries, source="search")
            except StorageError as exc:  # the answer stands; only its caching is lost
                import structlog

                structlog.get_logger().warning("positions not cached", reason=exc.detail, entries=len(entries))
        if count:
            self._told("search", result.nodes)
        return result, "search", complete

    # -- next moves -----------------------------------------------------------------------------

    def next_move(self, game: Game, history: Sequence[Turn], cands: CandidateSet, strategy: str, *,
                  max_guesses: int | None = None, budget_ms: int | None = None, seed: int = 0,
                  from_set_only: bool = False) -> Move:
        """A strategy's next guess.  Optimal strategies go down the chain and, past the budget (None:
        the settings' default) or in a game too large to search, answer with their criterion's heuristic
        and a note.  One-step strategies score within the budget (None: to the end, which is what a
        script asking the CLI for a strategy's own move wants), answering with the best guess scored so
        far when it runs out.

        A history that ends in the winning response is a finished game, whatever the strategy: the move has no
        guess (``guess`` None), and nothing is searched.

        :raises SolverError: an optimal question no strategy can meet (k-movers within too few guesses).
        """
        t0 = time.monotonic()  # the budget is the whole answer's: symmetry and lookups count, not only the search
        n = int(cands.shape[0])
        if game.won(history):
            self._told("history")
            return Move(None, True, "history", 0, 0)
        criterion = criterion_of(strategy)
        if criterion is None:
            from solver.fallback import step_note
            from solver.heuristics import get_strategy

            budget_s = None if budget_ms is None else budget_ms / 1000
            choice = get_strategy(strategy, from_set_only=from_set_only, seed=seed).choose(
                game, cands, history=history, budget_s=budget_s)
            self._told("heuristic")
            return Move(choice.guess, n == 1, "heuristic", 1 if n == 1 else None, 1 if n == 1 else None,
                        step_note(strategy, choice.cut, budget_s), score=choice.score)
        options = SolveOptions(criterion, max_guesses)
        position = Position.of(game, history, cands)
        options.validate(game, position.turn)
        if budget_ms is None:
            budget_ms = self.pool.settings.default_time_budget_ms
        found = self.tree_node(game, history, strategy, max_guesses)
        if found is not None:
            stored, node, relabel = found
            below = node.subtree
            self._told("tree")
            return Move(relabel.invert(game, node.guess), stored.answers(max_guesses) or n == 1, "tree",
                        below.total, below.height, tree_note(stored, max_guesses))
        # a game's best-known tree answers at once while the history follows it: the strategy is played through
        # every secret, where a search within a budget would often end in the heuristic (and a different game)
        from_tree = self.best_known_move(game, history, criterion, max_guesses, n)
        if from_tree is not None:
            return from_tree
        from solver.fallback import fallback_move

        if not searchable(game):
            guess, note = fallback_move(game, cands, history, criterion, budget_s=budget_ms / 1000)
            return self._heuristic(guess, note, n)
        canon = position.canonical()
        shipped = self._shipped(position, options, canon)
        if shipped is not None and (best := shipped[1].best_guess) is not None:
            at, known = shipped
            self._told("tree")
            remaining = known.lower if criterion == Criterion.TOTAL else None
            height = 1 if n == 1 else self._height(at.position, options, budget_ms)
            return Move(at.invert(best), True, "tree", remaining, height)
        if shipped is not None:  # proven impossible
            raise SolverError(f"no strategy solves every secret within {max_guesses} guesses from here")
        # the trees and the knowledge were asked above: the table, then a search within what is left of three
        # quarters of the budget; the last quarter is for what a cut search still does after its timer (the Python
        # step it was in: a few milliseconds) and for the heuristic that stands in for it
        search_ms = max(1, int(budget_ms * SEARCH_SHARE - (time.monotonic() - t0) * 1000))
        answer = self.solve(game, history, cands, options, search_ms, canon=canon, shipped=False)
        result = answer.result
        if answer.complete and result.exact and result.best_guess is not None:
            remaining = None
            if criterion == Criterion.TOTAL and result.value is not None:
                remaining = remaining_value(result.value, n, position.turn, Criterion.TOTAL)
            return Move(result.best_guess, True, answer.source, remaining, 1 if n == 1 else None)
        if answer.complete and result.exact and not result.possible:
            raise SolverError(f"no strategy solves every secret within {max_guesses} guesses from here")
        if answer.source != "busy":
            why = f"the search did not end within {budget_ms} ms"
        elif answer.why is not None:
            why = f"the search could not start within {budget_ms} ms: {answer.why}"
        else:
            why = "every search of this instance was busy"
        # the heuristic gets what the search left of the budget, and at least a tenth of it; its work is capped by
        # that tenth, whatever the search left, so that the same question gets the same guess
        left = max(budget_ms / 10_000, budget_ms / 1000 - (time.monotonic() - t0))
        guess, note = fallback_move(game, cands, history, criterion, why, budget_s=left, work_s=budget_ms / 10_000)
        return dataclasses.replace(self._heuristic(guess, note, n), unfinished=n > 1)

    def _heuristic(self, guess: Code, note: str, n: int) -> Move:
        self._told("heuristic")
        if n == 1:
            return Move(guess, True, "heuristic", 1, 1)
        return Move(guess, False, "heuristic", note=note)


SEARCH_SHARE = 0.75
"""The share of an optimal next move's budget its search may use (``benchmarks/bench_budgets.py`` measures the
rest: with 0.9, a 30 ms budget was answered in up to 56 ms on Mastermind with five pegs)."""


def _cacheable(options: SolveOptions) -> bool:
    return options.depth_count is None and options.upper_bound is None and not options.node_limit


def _unfinished(cands: CandidateSet) -> SolveResult:
    """The answer of a search that did not run (every search of the process was busy)."""
    return SolveResult(value=None, possible=True, exact=False, best_guess=None, per_response={}, nodes=0,
                       seconds=0.0, candidates=int(cands.shape[0]))


__all__ = ["Answer", "AnswerChain", "Move"]
