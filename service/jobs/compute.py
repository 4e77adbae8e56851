"""Computing one unit, with no I/O: what a Dask task runs between reading and writing the store.

:func:`solve_locally` runs a whole job's phases in this process, unit after unit, through the same
functions (tests compare it with a plain search; it is also handy for debugging a plan).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from service.jobs.plan import JobRequest, Outcome, Plan, UnitState, aggregate, make_plan
from solver.game import Game, Turn
from solver.heuristics import get_strategy
from solver.position import Position
from solver.search import INF, Searcher, optimal_tree
from solver.table import Entry, position_entries
from solver.tree import Tree, build_tree, strategy_chooser
from solver.vocabulary import Criterion, criterion_of


@dataclass
class UnitResult:
    """What a finished unit reports."""

    value: int | None
    exact: bool
    possible: bool
    best_guess: int | None
    nodes: int
    seconds: float
    aborted: bool
    per_response: dict[int, int | None] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    """Positions it proved, for the persistent table (the searcher's costly entries included)."""


@dataclass(frozen=True)
class Checkpoints:
    """How a long unit keeps what it proves while it runs, so that a worker killed mid-unit loses at
    most ``every`` seconds of work.  Every ``every`` seconds the search is stopped, the positions it
    proved so far are handed to ``save`` (with the unit's node count), and the search starts again:
    its transposition table still holds every position it finished, so it walks back to where it was
    in a few table hits.  ``stopped()`` says the unit must stop for good (lease lost, job over), a
    stop that is not a checkpoint's; ``save`` returning False says the same."""

    every: float
    save: Callable[[list[Entry], int], bool]
    stopped: Callable[[], bool]


def compute_unit(searcher: Searcher, req: JobRequest, kind: str, g2: int | None, history: list[Turn],
                 k: int | None, beta: int | None, checkpoints: Checkpoints | None = None) -> UnitResult:
    """Run one unit with ``searcher`` (a searcher of the job's game, its tables warm), under the
    unit's own options.  ``beta``: game-level bound the unit must beat to matter (None = none); at or
    past it the unit answers a lower bound.  With ``checkpoints``, what it proved is saved as it goes."""
    game = searcher.game
    opts = req.options(k, None if beta is None or beta > INF else beta)
    nodes, seconds = 0, 0.0
    due = threading.Event()

    def fire() -> None:
        due.set()
        searcher.request_stop()

    while True:
        due.clear()
        timer = None
        if checkpoints is not None:
            timer = threading.Timer(checkpoints.every, fire)
            timer.daemon = True
            timer.start()
        try:
            if kind == "guess":
                assert g2 is not None
                res = searcher.evaluate_guess(history, g2, options=opts)
            else:
                res = searcher.solve(history, options=opts)
        finally:
            if timer is not None:
                timer.cancel()
        nodes += res.nodes
        seconds += res.seconds
        if checkpoints is None or not res.cut or not due.is_set() or checkpoints.stopped():
            break
        if not checkpoints.save([e for t in searcher.tables for e in t.export()], nodes):
            break  # the unit is no longer ours: report it cut
        searcher.clear_stop()
        if checkpoints.stopped():  # a stop for good that came while the checkpoint's was cleared
            searcher.request_stop()
    aborted = res.cut
    entries: list[Entry] = [e for t in searcher.tables for e in t.export()]
    # a guess unit proves its responses only, not the position (another guess may be better)
    if not aborted and res.exact and (kind != "guess" or res.value is not None):
        best = res.best_guess if res.value is not None else None
        at = Position.of(game, history)
        entries.extend(position_entries(game, opts.table_key(game), at.cands, at.turn, res.value, best,
                                        res.per_response, root=kind != "guess", cost=nodes))
    return UnitResult(res.value, res.exact and not aborted, res.possible, res.best_guess if kind != "guess" else g2,
                      nodes, seconds, aborted, dict(res.per_response), entries)


def compute_tree(req: JobRequest, searcher: Callable[[], Searcher], on_solved: Callable[[int], None]) -> Tree:
    """The whole tree a tree job asks for.  An optimal strategy's tree is searched with ``searcher()``
    (a warm searcher of the job's question); a one-step strategy's needs none, and uses the response
    table only where the game's fits the table budget (computed responses beyond).  ``on_solved(k)``
    is told as ``k`` more secrets are placed; it may raise to stop the build."""
    assert req.strategy is not None
    game = req.game_obj()
    if criterion_of(req.strategy) is not None:
        return optimal_tree(game, req.options(), searcher=searcher(), on_solved=on_solved)
    arrays = game.arrays(table=True)
    return build_tree(game, strategy_chooser(game, get_strategy(req.strategy), arrays), req.turns(),
                      strategy=req.strategy, arrays=arrays, on_solved=on_solved)


def phase_entries(req: JobRequest, plan: Plan, outcome: Outcome, game: Game) -> list[Entry]:
    """Entries a finished phase proves: its root and the responses of its best first guess, so that
    the next request for the position is answered from the database with no search."""
    if not outcome.finished or plan.mode != "split":
        return []
    return position_entries(game, req.options(plan.k).table_key(game), game.candidates(req.turns()), plan.turn,
                            outcome.value, outcome.best_guess, outcome.per_response, part_best=outcome.part_best)


def next_phase(req: JobRequest, plan: Plan, outcome: Outcome) -> int | None:
    """The k of the next phase of a k-movers chain, or None when the job is over."""
    if (req.criterion != Criterion.KMOVERS or req.depth_count is None or plan.k is None or outcome.value != 0
            or plan.k - 1 < max(req.depth_count, plan.turn)):
        return None
    return plan.k - 1


def solve_locally(req: JobRequest, searcher: Searcher | None = None, *,
                  on_plan: Callable[[Plan, Searcher], None] | None = None, **plan_args: int
                  ) -> tuple[Outcome, dict[int, int | None], int]:
    """(last phase's outcome, chain {k: value}, nodes) of a job computed here, unit by unit, in the
    order a single worker would claim them.  ``on_plan`` may amend each phase's plan before its
    units run (the worker seeds exact plans with hybrid values there)."""
    game = req.game_obj()
    k: int | None = req.max_guesses
    chain: dict[int, int | None] = {}
    nodes = 0
    while True:
        s = searcher or Searcher(game, req.options(k))
        plan, specs = make_plan(req, k, s, **plan_args)
        if on_plan is not None:
            on_plan(plan, s)
        nodes += plan.nodes
        states = [UnitState(u.kind, u.g1, u.response, u.g2, "queued", u.lower_bound, expected_cost=u.expected_cost,
                            id=i) for i, u in enumerate(specs)]
        order = sorted(range(len(specs)), key=lambda i: (-specs[i].priority, i))
        for i in order:
            outcome = aggregate(plan, states)
            st = states[i]
            if st.g1 in outcome.dominated:
                st.status = "skipped"
                continue
            beta = None
            if st.kind != "root":
                assert st.g1 is not None and st.response is not None
                beta = outcome.bounds.get((st.g1, st.response))
            res = compute_unit(s, req, st.kind, st.g2, [Turn(g, r) for g, r in specs[i].history], k, beta)
            nodes += res.nodes
            st.status, st.value, st.exact, st.best_guess, st.nodes = "done", res.value, res.exact, res.best_guess, \
                res.nodes
            st.per_response = res.per_response
        outcome = aggregate(plan, states)
        assert outcome.finished
        if k is not None and req.criterion == Criterion.KMOVERS:
            chain[k] = outcome.value
        nk = next_phase(req, plan, outcome)
        if nk is None:
            return outcome, chain, nodes
        k = nk
