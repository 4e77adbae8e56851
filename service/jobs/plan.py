"""Cutting a long solve into units, and putting the units' answers back together.

The cut follows the article's hand-managed runs: the position's own guesses (one per equivalence
class, best lower bound first), each guess's responses, and — for the big responses — each second
guess of that response.  A unit is then one of:

``root``
    the whole position (tiny sets, hybrid turns, or too few guesses left to be worth cutting);
``part``
    the position after (first guess, response), solved whole;
``guess``
    one second guess in such a position, evaluated with a β: the best value its siblings already
    proved, and the bound the best finished first guess leaves for it.  Past β it answers a lower
    bound only, which is all the combination needs (see :func:`aggregate`).

``tree``, ``opt-tree``
    the whole tree of a one-step strategy, or of an optimal one (a tree job's only unit, see
    :func:`tree_plan`);
``bound``
    one first guess of a bound job (a lower-bound campaign), refined to the job's depth (:func:`bound_plan`);
``rollout``
    the subtree of a rollout tree below one response to its first guess;
``polish``
    one part of a polished tree (or the whole tree), its positions searched top down;
``check``
    one part of a check's first guess (or one share of its second guesses), searched from the set only;
``search``
    a position searched guess by guess (or one share of its guesses), its progress kept;
``scan``
    a position's guesses tried in turn against a limit (or one share of them), its progress kept;
``atlas``
    one game's atlas entry computed.

The last four are campaigns' units, planned in :mod:`service.jobs.campaign_plans`.

Small responses are solved while planning (microseconds each).  Values here are game-level (every
guess counted, the history's included), so sums and minima combine without conversions.

Nothing here does I/O: the store keeps plans and units, the runner computes units.  The records
themselves (:class:`JobRequest`, :class:`UnitSpec`, :class:`UnitState`) are the store's
(:mod:`service.store.job_records`), re-exported here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from service.store.job_records import JobRequest, UnitSpec, UnitState
from solver import kernels
from solver.bounds import lower_bound_tables
from solver.lowerbound import SECOND_UNITS_MIN, root_classes
from solver.position import Position
from solver.search import INF, Searcher, SolveOptions
from solver.secondbound import second_guesses
from solver.table import MMAX
from solver.vocabulary import Criterion, criterion_of, game_value, win_value

SMALL_PART = 12
"""Responses with at most this many candidates are solved while planning."""
SPLIT_MIN = 200
"""Only responses with at least this many candidates are cut into one unit per second guess
(cutting smaller ones costs more in bookkeeping than it gains in parallelism)."""
MAX_UNITS = 256
"""Cutting stops before a plan would exceed this many units."""


@dataclass
class Plan:
    """The structure a job's units hang from, stored as JSON with the job."""

    k: int | None
    turn: int
    n: int
    mode: str
    """``root`` (one unit), ``split``, ``bound`` (a bound job's: one unit per first guess), ``rollout`` (a
    rollout job's: one unit per response to the first guess, ``guesses`` holding that guess), ``polish`` (a
    polish job's: one unit per part of its tree's first guess) or ``check`` (a check job's: one unit per part of
    its first guess and share)."""
    guesses: list[dict[str, Any]] = field(default_factory=list)
    """Per first guess: guess, lb, win (the winning response's value, None when the guess is no
    candidate), win_response, fixed (game-level value of the win and the small parts, None =
    impossible), small {response: value}, parts {response: size} (the units' responses), and
    optionally seeds {response: game-level value a hybrid strategy reaches} (see
    ``service.jobs.kinds.seed_plan``)."""
    nodes: int = 0
    """Nodes searched while planning."""

    def to_json(self) -> str:
        return orjson.dumps({"k": self.k, "turn": self.turn, "n": self.n, "mode": self.mode,
                             "guesses": self.guesses, "nodes": self.nodes}).decode()

    @classmethod
    def from_json(cls, text: str) -> Plan:
        d = orjson.loads(text)
        return cls(d["k"], d["turn"], d["n"], d["mode"], d["guesses"], d["nodes"])


def _cost(sizes: np.ndarray) -> int:
    # Search effort grows much faster than the set; the sum of squared part sizes ranks units well
    # enough to start the long ones first (the article's "longest first").
    return int((sizes.astype(np.int64) ** 2).sum()) + 1


def tree_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a tree job: one ``tree`` unit.  A tree is built guess by guess down one branch after
    another, each choice depending on the branches before it only through the table, so it is not cut
    further; one-step trees take seconds even at 30,000 codes.  Its expected cost is the number of
    secrets, which is what its progress counts."""
    root = Position.of(req.game_obj(), req.turns())
    n = root.size
    kind = "opt-tree" if req.strategy is not None and criterion_of(req.strategy) is not None else "tree"
    unit = UnitSpec(kind, None, None, None, req.history, n, 0, n, 1)
    return Plan(req.max_guesses, root.turn, n, "root"), [unit]


def bound_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a bound job: one ``bound`` unit per first guess (one per class of the game's symmetries), in
    the order :func:`solver.lowerbound.root_lower_bound` ranks them, each refined alone to the job's depth; or,
    when the game has one class of first guess, one unit per part of that guess (its ``response``), biggest first;
    or, for a job naming its ``parts``, one unit per named part of each first guess.

    Why first guesses: the root's bound is the least of theirs, and each is refined by itself (the parts'
    bounds every unit proves are shared through the ``bound_parts`` table whatever unit proved them); a unit
    done cuts the others at its bound.  Why parts for one class (the games without repetition): a single unit
    would keep every worker but one idle for hours, while a first guess's bound is its cost plus its parts'
    bounds, each refined alone (with a target, each part until its guess's bound, the other parts' as proven by
    then, reaches it).  A unit's lower bound before it runs is the size-only bound (of the whole game, or of the
    part).  Each guess cut into parts is listed in ``plan.guesses`` with what its bound adds to its units'
    (``cost``: a guess to every code, and the size-only bounds of the parts a job naming its parts leaves).

    A part of :data:`solver.lowerbound.SECOND_UNITS_MIN` codes or more, at three plies or more, is cut further: one
    unit per second guess (its ``g2``, :func:`solver.secondbound.second_guesses`, least one-ply bound first, that
    bound the unit's before it runs).  Why: such a part alone takes hours at the depths the campaigns run, and its
    bound is the least of its second guesses', each refined alone and cut at the least its siblings reached."""
    game = req.game_obj()
    n = game.size
    lb0 = lower_bound_tables(game, n)[0, Criterion.TOTAL.code, MMAX]
    classes = root_classes(game)
    if not req.parts and len(classes) > 1:
        whole = [UnitSpec("bound", int(g), None, None, (), n, int(lb0[n]), 1, len(classes) - i)
                 for i, g in enumerate(classes)]
        return Plan(None, 1, n, "bound"), whole
    guesses: list[dict[str, Any]] = []
    units: list[UnitSpec] = []
    searcher: Searcher | None = None  # made once, for the big parts' second guesses
    for g in (int(c) for c in classes):
        sizes = np.diff(kernels.split(*game.search_arrays().kernel_args(), g, np.arange(n, dtype=np.int32),
                                      game.n_responses)[1])
        parts = sorted((r for r in range(game.n_responses) if sizes[r] > 0 and r != game.all_bulls),
                       key=lambda r: (-int(sizes[r]), r))
        named = [r for r in parts if not req.parts or r in req.parts]
        left = sum(int(lb0[int(sizes[r])]) for r in parts if r not in named)
        guesses.append({"guess": g, "cost": n + left})
        for r in named:
            size = int(sizes[r])
            if size >= SECOND_UNITS_MIN and req.depth is not None and req.depth >= 3:
                searcher = searcher or Searcher(game, SolveOptions(Criterion.TOTAL))
                seconds = second_guesses(game, req.turns(), g, int(r), searcher=searcher)
                units += [UnitSpec("bound", g, int(r), g2, (), size, low, size * size // len(seconds) + 1, 0)
                          for g2, low in seconds]
            else:
                units.append(UnitSpec("bound", g, int(r), None, (), size, int(lb0[size]), size * size, 0))
    # claimed in this order: guesses in bound order, their parts biggest first, a part's second guesses least first
    units = [dataclasses.replace(u, priority=len(units) - i) for i, u in enumerate(units)]
    return Plan(None, 1, n, "bound", guesses), units


def check_total(plan: Plan, units: list[UnitState]) -> int:
    """The guesses the parts of a check job's units take (each part's: its shares' least), the first guess's own
    secret not counted."""
    parts: dict[int, int] = {}
    for u in units:
        if u.value is not None and u.response is not None:
            parts[u.response] = min(int(u.value), parts.get(u.response, int(u.value)))
    return sum(parts.values())


def make_plan(req: JobRequest, k: int | None, searcher: Searcher, *, small: int = SMALL_PART,
              split_min: int = SPLIT_MIN, max_units: int = MAX_UNITS) -> tuple[Plan, list[UnitSpec]]:
    """The plan and units of one phase (``k`` its depth limit) of ``req``.

    ``searcher`` is one of the job's game, asked the phase's question (``req.options(k)``) call by call, so
    that whatever it is shared with keeps its own; small parts are solved with it.  One unit
    per response of each first guess; then the biggest responses (at least ``split_min``
    candidates, on exactly searched turns) become one unit per second guess, biggest first, as
    long as the plan stays within ``max_units`` units.  A position with more first guesses than
    ``max_units`` (deep in a game, where little symmetry is left) is one root unit.
    """
    game = searcher.game
    opts = req.options(k)
    root = Position.of(game, req.turns())
    turn, n = root.turn, root.size
    offset = game_value(0, n, turn, opts.criterion)  # game-level = remaining + offset
    m = None if k is None else root.remaining(k)
    nodes0 = int(searcher.nodes)

    def exact_turn(t: int) -> bool:
        return opts.mde is None or t <= opts.mde

    if n <= searcher.n_valid or not exact_turn(turn) or (m is not None and m <= 2):
        lb = searcher.lower_bound(n, turn, k, options=opts)
        unit = UnitSpec("root", None, None, None, req.history, n, min(lb + offset, INF), n * n, 1)
        return Plan(k, turn, n, "root"), [unit]

    order_g1 = searcher.guess_order(root.history, root.cands, turn, k, options=opts)
    if len(order_g1) > max_units:
        # Deep in a game few symmetries are left, so thousands of first guesses would each make units
        # (a Bulls-and-Cows position after two turns: 4000 units, each a few milliseconds of search
        # and a database round trip, where the whole search takes seconds).  One unit does it all.
        lb = searcher.lower_bound(n, turn, k, options=opts)
        unit = UnitSpec("root", None, None, None, req.history, n, min(lb + offset, INF), n * n, 1)
        return Plan(k, turn, n, "root"), [unit]
    a = searcher.arrays
    win = game.all_bulls
    plan = Plan(k, turn, n, "split")
    per_g1: list[list[UnitSpec]] = []
    splittable: list[tuple[int, int, int, Position]] = []  # (-size, g1 index, part index, the part's position)
    for lb, _, g1 in order_g1:
        children = root.children(g1, a)
        won = None
        if win in children:
            won = win_value(turn, opts.criterion, k)
        fixed: int | None = won or 0
        small_values: dict[str, int | None] = {}
        parts: dict[str, int] = {}
        g1_units: list[UnitSpec] = []
        # biggest responses first, equal sizes by ascending response (the children come by response)
        for r, q in sorted(children.items(), key=lambda child: -child[1].size):
            if r == win:
                continue
            size = q.size
            if size <= small:
                v = searcher.solve(q, options=opts).value
                small_values[str(r)] = v
                fixed = None if (fixed is None or v is None) else fixed + v
                continue
            parts[str(r)] = size
            q_lb = searcher.lower_bound(size, q.turn, k, options=opts)
            q_off = game_value(0, size, q.turn, opts.criterion)
            if size >= split_min and exact_turn(q.turn):
                splittable.append((-size, len(per_g1), len(g1_units), q))
            g1_units.append(UnitSpec("part", g1, r, None, (*req.history, (g1, r)), size, min(q_lb + q_off, INF),
                                     size * size))
        plan.guesses.append({"guess": g1, "lb": min(lb + offset, INF), "fixed": fixed, "win": won,
                             "win_response": win, "small": small_values, "parts": parts})
        per_g1.append(g1_units if fixed is not None else [])  # an impossible guess needs no units
    # cut the biggest responses into one unit per second guess while the plan stays within max_units
    total = sum(len(us) for us in per_g1)
    replaced: dict[tuple[int, int], list[UnitSpec]] = {}
    for _, gi, pi, q in sorted(splittable, key=lambda t: (t[0], t[1], t[2])):
        if not per_g1[gi]:
            continue
        part = per_g1[gi][pi]
        q_off = game_value(0, part.size, q.turn, opts.criterion)
        guesses = searcher.guess_order(q.history, q.cands, q.turn, k, options=opts)
        if total - 1 + len(guesses) > max_units:
            continue
        total += len(guesses) - 1
        replaced[(gi, pi)] = [
            UnitSpec("guess", part.g1, part.response, g2, part.history, part.size, min(lb2 + q_off, INF),
                     _cost(np.array([c.size for c in q.children(g2, a).values()], dtype=np.int64)))
            for lb2, _, g2 in guesses
        ]
    units: list[UnitSpec] = []
    for gi, g1_units in enumerate(per_g1):
        expanded = [u for pi, part in enumerate(g1_units) for u in replaced.get((gi, pi), [part])]
        # biggest responses first; inside one, second guesses in bound order, so that the likely
        # best is proven early and its value cuts its siblings.  Equal bounds (k-movers' are nearly
        # all 0) go by the sum of squared part sizes, the expected-size heuristic: the Bulls-and-Cows
        # 7-mover job took its second guesses in code order, and β waited an hour for the good ones
        expanded.sort(key=lambda u: (-u.size, u.lower_bound, u.expected_cost, u.g2 if u.g2 is not None else -1))
        top = (len(order_g1) - gi) << 32
        units.extend(UnitSpec(u.kind, u.g1, u.response, u.g2, u.history, u.size, u.lower_bound, u.expected_cost,
                              top + len(expanded) - i) for i, u in enumerate(expanded))
    plan.nodes = int(searcher.nodes) - nodes0
    return plan, units


@dataclass
class _Part:
    lower: int
    upper: int | None
    known: bool
    """The exact value is known (``upper``, or impossible when upper is None)."""
    best: int | None = None


@dataclass
class Outcome:
    """The state of a phase, computed from its plan and units."""

    finished: bool
    value: int | None = None
    """Game-level value once finished (None = no strategy fits)."""
    best_guess: int | None = None
    per_response: dict[int, int | None] = field(default_factory=dict)
    part_best: dict[int, int | None] = field(default_factory=dict)
    """Best second guess of each split response of the best first guess."""
    upper: int | None = None
    """Best value of a complete strategy found so far."""
    lower: int = 0
    """Proven lower bound of the phase's value."""
    dominated: set[int] = field(default_factory=set)
    """First guesses that can no longer be the best: their queued units may be skipped."""
    bounds: dict[tuple[int, int], int] = field(default_factory=dict)
    """β for the still-open parts: the value a unit of (g1, response) must beat to matter (a bound job's: for each
    part cut into second guesses, the bound at which its open units may stop)."""
    cut: int | None = None
    """A bound job's: the bound at which its open units may stop (the target, else the least bound of the
    units done: a first guess refined past it cannot lower the root's bound, the least of them all)."""


def _part_state(units: list[UnitState]) -> _Part:
    if len(units) == 1 and units[0].kind in ("part", "root"):
        u = units[0]
        if u.status == "done" and (u.exact or u.value is None):
            return _Part(INF if u.value is None else u.value, u.value, True, u.best_guess)
        if u.status == "done":  # cut at its β: a lower bound only
            return _Part(max(u.lower_bound, u.value or 0), None, False)
        return _Part(u.lower_bound, None, False)
    exact = [(u.value, u.g2) for u in units if u.status == "done" and u.exact and u.value is not None]
    upper, best = min(exact, key=lambda t: (t[0], t[1] if t[1] is not None else -1)) if exact else (None, None)
    lows = []
    for u in units:
        if u.status == "done":
            lows.append(INF if u.value is None else u.value)
        else:
            lows.append(u.lower_bound)
    lower = min(lows) if lows else INF
    all_done = all(u.status == "done" for u in units)
    # a bound below the best exact value would mean that guess might be better: not known then
    known = all_done and ((upper is None and lower >= INF) or (upper is not None and lower >= upper))
    if known and upper is not None:
        lower = upper
    return _Part(lower, upper, known, best)


def _bound_outcome(plan: Plan, units: list[UnitState], target: int | None) -> Outcome:
    """A bound job's state: its bound is the least of its first guesses' once every one is refined; a guess cut
    into parts (``plan.guesses`` gives what it adds to them) is bounded by that plus its parts' bounds."""
    out = Outcome(bool(units) and all(u.status == "done" and u.value is not None for u in units))

    def low(u: UnitState) -> int:
        return int(u.value) if u.status == "done" and u.value is not None else int(u.lower_bound)

    if plan.guesses:  # guesses cut into parts, one unit each or one per second guess
        parts: dict[tuple[int, int], list[UnitState]] = {}
        for u in units:
            assert u.g1 is not None and u.response is not None
            parts.setdefault((int(u.g1), int(u.response)), []).append(u)
        part_low = {key: min(low(u) for u in us) for key, us in parts.items()}  # a part: the least of its seconds'
        lows = {int(g["guess"]): int(g["cost"]) for g in plan.guesses}
        for (g1, _r), value in part_low.items():
            lows[g1] += value
        out.best_guess, out.lower = min(lows.items(), key=lambda kv: (kv[1], kv[0]))
        out.cut = target  # a part refined until its guess's bound, with the others' as proven, reaches it
        for key, us in parts.items():
            if us[0].g2 is None:
                continue
            # a second guess refined past the least its siblings reached cannot be the part's least; with a
            # target, past what the part may add before its guess reaches the target
            cuts = [int(u.value) for u in us if u.status == "done" and u.value is not None]
            if target is not None:
                cuts.append(target - (lows[key[0]] - part_low[key]))
            if cuts:
                out.bounds[key] = min(cuts)
    else:
        out.lower = min((low(u) for u in units), default=0)
        done = [int(u.value) for u in units if u.status == "done" and u.value is not None]
        out.cut = target if target is not None else min(done, default=None)
        if out.finished:
            out.best_guess = min(units, key=lambda u: (low(u), u.id)).g1
    if out.finished:
        out.value = out.lower
    return out


def aggregate(plan: Plan, units: list[UnitState], target: int | None = None) -> Outcome:
    """Combine the units of one phase: bounds and best-so-far while running, the answer at the end.

    A first guess is *finished* when every one of its parts is known; *dominated* when its lower
    bound reaches the best finished guess's value.  The phase is finished when every first guess
    is one or the other.  Soundness of the β cuts: a guess unit cut at β reports a bound ≥ β, and β
    is never above what its part must beat for the first guess to win, so a cut never hides the
    best value (see the module docstring).  ``target``: a bound job's (see :attr:`Outcome.cut`).
    """
    if plan.mode == "bound":
        return _bound_outcome(plan, units, target)
    if plan.mode in ("rollout", "polish"):  # the subtrees' guesses; the guesses a polish saved
        out = Outcome(all(u.status == "done" for u in units))
        if out.finished:
            out.value, out.best_guess = sum(int(u.value or 0) for u in units), int(plan.guesses[0]["guess"])
        return out
    if plan.mode == "check":  # the parts' values, each its shares' least
        out = Outcome(all(u.status == "done" for u in units))
        if out.finished:
            out.value, out.best_guess = check_total(plan, units), int(plan.guesses[0]["guess"])
        return out
    if plan.mode == "atlas":  # every game's entry computed (the value: how many are exact)
        out = Outcome(all(u.status == "done" for u in units))
        if out.finished:
            out.value = sum(1 for u in units if u.exact)
        return out
    if plan.mode == "scan":  # a guess found by any share answers it; else every share's end
        found = [u for u in units if u.status == "done" and u.value == 1]
        out = Outcome(bool(found) or all(u.status == "done" for u in units))
        if out.finished:
            out.value = 1 if found else 0
            out.best_guess = found[0].best_guess if found else None
        return out
    if plan.mode == "search":  # the least of its shares' values (None: no strategy fits)
        out = Outcome(all(u.status == "done" for u in units))
        valued = [u for u in units if u.value is not None]
        if out.finished and valued:
            best = min(valued, key=lambda u: (int(u.value or 0), u.id))
            out.value, out.best_guess = best.value, best.best_guess
        return out
    if plan.mode == "root":
        u = units[0]
        done = u.status == "done"
        return Outcome(done, u.value if done else None, u.best_guess if done else None,
                       dict(u.per_response or {}) if done else {},
                       upper=u.value if done else None, lower=u.value if done and u.value is not None else
                       (INF if done else u.lower_bound))
    by_part: dict[tuple[int, int], list[UnitState]] = {}
    for u in units:
        assert u.g1 is not None and u.response is not None
        by_part.setdefault((u.g1, u.response), []).append(u)
    rows: list[tuple[int, int, int | None, bool, dict[int, _Part]]] = []
    for g in plan.guesses:
        g1 = int(g["guess"])
        if g["fixed"] is None:
            rows.append((g1, INF, None, True, {}))
            continue
        states = {int(r): _part_state(by_part.get((g1, int(r)), [])) for r in g["parts"]}
        lower = min(int(g["fixed"]) + sum(min(p.lower, INF) for p in states.values()), INF)
        known = all(p.known for p in states.values())
        uppers = [p.upper for p in states.values()]
        upper = None if any(v is None for v in uppers) else int(g["fixed"]) + sum(v for v in uppers if v is not None)
        if known and upper is None:
            lower = INF
        rows.append((g1, lower, upper, known, states))
    finished_values = [(r[2], i) for i, r in enumerate(rows) if r[3] and r[2] is not None]
    best_exact = min(finished_values)[0] if finished_values else None
    out = Outcome(False)
    uppers_any = [r[2] for r in rows if r[2] is not None]
    out.upper = min(uppers_any) if uppers_any else None
    out.lower = min((r[1] for r in rows), default=INF)
    seeds = {int(g["guess"]): g.get("seeds", {}) for g in plan.guesses}
    for g1, lower, _upper, known, states in rows:
        g_seeds = seeds.get(g1, {})
        if not known and best_exact is not None and lower >= best_exact:
            out.dominated.add(g1)
        if known or g1 in out.dominated:
            continue
        # β for each open part: the best value among its own guesses, and what the best finished
        # first guess leaves once the other parts' lower bounds are paid
        g_fixed = lower - sum(min(p.lower, INF) for p in states.values())
        for r, p in states.items():
            if p.known:
                continue
            bound = p.upper if p.upper is not None else INF + 1
            seed = g_seeds.get(str(r))
            if seed is not None:
                bound = min(bound, int(seed) + 1)  # a hybrid strategy already reaches ``seed``
            if best_exact is not None:
                others = sum(min(q.lower, INF) for rr, q in states.items() if rr != r)
                bound = min(bound, best_exact - g_fixed - others)
            out.bounds[(g1, r)] = bound
    out.finished = all(r[3] or r[0] in out.dominated for r in rows)
    if not out.finished:
        return out
    out.value = best_exact
    if best_exact is None:
        return out
    best_row = min((r for r in rows if r[3] and r[2] is not None), key=lambda r: (r[2], rows.index(r)))
    g1 = best_row[0]
    out.best_guess = g1
    g = next(x for x in plan.guesses if int(x["guess"]) == g1)
    per: dict[int, int | None] = {int(r): v for r, v in g["small"].items()}
    for r, p in best_row[4].items():
        per[r] = p.upper
        out.part_best[r] = p.best
    if g["win"] is not None:
        per[int(g["win_response"])] = int(g["win"])
    out.per_response = dict(sorted(per.items()))
    return out


__all__ = ["MAX_UNITS", "SMALL_PART", "SPLIT_MIN", "JobRequest", "Outcome", "Plan", "UnitSpec",
           "UnitState", "aggregate", "bound_plan", "check_total", "make_plan", "tree_plan"]
