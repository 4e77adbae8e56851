"""Rollout (the pilot method) over a base strategy: at the top positions of a tree, try the few most promising
guesses, complete each with the base strategy below, and keep the one whose completed subtree needs the
fewest guesses.  Below those levels the base strategy plays alone.

Why: the records games (Super Mastermind, five-digit Bulls-and-Cows) are far too big for the exact search at
the top, and a one-step score misjudges the first moves most, where its subtrees are biggest.  Playing the
base strategy out is an exact evaluation of each tried guess *given the base below it*, so the rollout tree
never needs more guesses than the base tree: at each position its choice costs at most what the base's own
choice costs, the base's guess being always among those tried, and the positions below are themselves
improved or left to the base (the classical rollout argument).  The result is a real strategy, played
through every secret like any tree; it is an upper bound of the optimum, never a claim of one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver import kernels
from solver.codes import GameArrays
from solver.errors import SolverError
from solver.game import CandidateSet, Code, Game, Turn
from solver.hybrid import hybrid_chooser, ranked_guesses
from solver.polish import polish, subtree_cost
from solver.search import Searcher, SolveOptions
from solver.tree import Chooser, Node, Tree, build_tree
from solver.vocabulary import Criterion

Log = Callable[[str], None]

OVER = 1 << 40
"""A secret beyond the depth limit costs this much: more than any total (limits are met first)."""


def rollout_chooser(game: Game, base: Chooser, *, width: int, levels: int, min_size: int, from_turn: int = 1,
                    pool_of: Callable[[list[Turn]], npt.NDArray[np.int32]], arrays: GameArrays,
                    max_guesses: int | None = None, over_width: int | None = None,
                    judge_width: int | None = None, judge_turns: tuple[int, int] | None = None,
                    judge_pool: int | None = None,
                    wrap: Callable[[Chooser], Chooser] = lambda chooser: chooser,
                    log: Log = lambda _: None) -> Chooser:
    """A chooser that, at positions of more than ``min_size`` candidates at guesses ``from_turn`` to ``levels``,
    tries the base's own guess and the ``width`` best by entropy (from ``pool_of(path)``), each completed
    by ``base``, and plays the cheapest; elsewhere it plays ``base``.  With ``max_guesses``, cheapest means
    fewest secrets beyond that many guesses first, then fewest guesses; and with ``over_width``, a position
    where every guess tried leaves secrets beyond the limit tries the next best by entropy too, up to
    ``over_width`` in all (the few positions that break a limit get a wider look than the many that keep it).

    ``judge_width``: at the rolled-out positions of guesses ``judge_turns`` (first, last), the ``judge_width``
    cheapest guesses by the base's completion are judged again by the subtree that this very chooser builds
    below them (a nested rollout), and the cheapest of those is played.  Why: the base's completion is a noisy
    judge of the guesses near the top, whose subtrees the rollout itself improves a great deal below them (the
    second guess of best completion is not the second guess of best rollout).  The guess the plain rollout
    would play is among those judged, and its subtree is the same chooser's, so the judged tree never needs
    more guesses than the plain rollout's.  It costs about ``judge_width`` times as much at each judged level.
    ``judge_pool``: at the judged positions, the guesses the base completes (those the judge picks from) are the
    ``judge_pool`` best by entropy instead of ``width`` (the plain rollout compared with is then as wide there).
    Why: the base's cheapest guesses at a five-digit third guess lie all over the first few dozen by entropy
    (after 01234 0.2, 53467 0.3, five of the eight cheapest of the best 64 rank below 24), and the judge can only
    pick among those it is shown; the judged levels are few, so a wider look there costs little beside the
    nested rollouts.
    ``wrap``: what the chooser returned is made of this one (given guesses, say), so that the subtrees judged
    are those of the chooser that is finally played."""
    memo: dict[tuple[Turn, ...], int] = {}
    """The base's cost below each position tried, by its whole path: the base may break ties by the history's
    symmetry, so only the path (which determines the candidates) pins down the subtree it plays."""
    decided: dict[tuple[Turn, ...], Code] = {}
    """The guess chosen at each rolled-out position, by its path: a judged subtree is built once to judge it
    and again when the tree is built, and the second time its decisions are known."""
    a = arrays
    n_resp, win = game.n_responses, game.all_bulls

    def cost_below(chooser: Chooser, part: CandidateSet, path: list[Turn]) -> int:
        """Guesses ``chooser`` needs from this position on, summed over its candidates (secrets beyond the limit
        first)."""
        stats = build_tree(game, chooser, path, arrays=a).stats()
        return stats.beyond(max_guesses) * OVER + stats.total - len(path) * int(part.shape[0])

    def rest_cost(part: CandidateSet, path: list[Turn]) -> int:
        """What the base needs from this position on (:func:`cost_below`), once per path."""
        key = tuple(path)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = cost_below(base, part, path)
        return hit

    def judged_rest(part: CandidateSet, path: list[Turn]) -> int:
        """What this very chooser needs from this position on: the judge's completion."""
        return cost_below(full, part, path)

    def guess_cost(cands: CandidateSet, path: list[Turn], guess: Code, bound: int,
                   rest: Callable[[CandidateSet, list[Turn]], int] = rest_cost) -> int:
        """What ``guess`` costs, each part completed by ``rest`` (stopping once over ``bound``)."""
        total = int(cands.shape[0])
        for r, part in a.parts(guess, cands, n_resp):
            if r == win:
                continue
            if part.shape[0] == cands.shape[0]:
                return 1 << 62
            path.append(Turn(guess, r))
            try:
                total += 1 if part.shape[0] == 1 else rest(part, path)
            finally:
                path.pop()
            if total >= bound:
                return total
        return total

    def shown(cost: int) -> str:
        return f"{cost % OVER}" + (f" ({cost // OVER} over)" if cost >= OVER else "")

    def choose(cands: CandidateSet, path: list[Turn]) -> Code:
        known = decided.get(tuple(path))
        if known is not None:
            return known
        own = int(base(cands, path))
        turn = len(path) + 1
        if not from_turn <= turn <= levels or cands.shape[0] <= min_size:
            return own
        judging = judge_width is not None and judge_turns is not None and judge_turns[0] <= turn <= judge_turns[1]
        keep = judge_width if judging and judge_width is not None else 1
        looked = judge_pool if judging and judge_pool is not None else width
        ranked = ranked_guesses(game, cands, path, pool_of(path), max(looked, over_width or 0), a)
        tried = [own] + [g for g in ranked[:looked] if g != own]
        best: list[tuple[int, int, Code]] = []
        """The ``keep`` cheapest so far: (cost, order tried, guess); a guess is cut once over the last of them."""

        def consider(guesses: list[Code], first: int) -> None:
            for i, g in enumerate(guesses, first):
                bound = best[-1][0] if len(best) >= keep else 1 << 62
                c = guess_cost(cands, list(path), g, bound)
                if c < bound:
                    best.append((c, i, g))
                    best.sort()
                    del best[keep:]

        consider(tried, 0)
        if best[0][0] >= OVER and over_width is not None:
            more = [g for g in ranked[:over_width] if g not in tried]
            consider(more, len(tried))
            tried += more
        chosen, chosen_cost = best[0][2], best[0][0]
        line = (f"turn {turn}, {cands.shape[0]} candidates: {len(tried)} guesses tried, base {game.format_code(own)}, "
                f"chosen {game.format_code(chosen)} {shown(chosen_cost)}")
        if judging and len(best) > 1:
            verdicts = []
            judged_best = 1 << 62
            for c, _, g in best:
                d = guess_cost(cands, list(path), g, judged_best, judged_rest)
                verdicts.append(f"{game.format_code(g)} {shown(c)} -> {shown(d) if d < judged_best else 'more'}")
                if d < judged_best:
                    chosen, judged_best = g, d
            line += f"; judged by the rollout below: {', '.join(verdicts)}; playing {game.format_code(chosen)}"
        log(line)
        decided[tuple(path)] = chosen
        return chosen

    full = wrap(choose)
    return full


@dataclass(frozen=True)
class RolloutPlan:
    """How a rollout tree is built: the hybrid below (``strategy`` above ``exact_at_most`` candidates, the
    optimal total's guess at or below), and where it is rolled out (guesses ``from_turn`` to ``levels``,
    positions of more than ``min_size`` candidates, ``width`` guesses besides the hybrid's own).  With
    ``max_guesses``, the hybrid's small positions keep to it where they can and the rollout puts it first."""

    strategy: str
    exact_at_most: int
    width: int
    levels: int
    min_size: int
    from_turn: int = 1
    max_guesses: int | None = None
    over_width: int | None = None
    """With ``max_guesses``: how many guesses a position tries when ``width`` all break the limit."""
    play: tuple[str, ...] = ()
    """Guesses given at chosen positions, as ``"HISTORY: GUESS"`` texts (``"01234 0.2: 10567"``): the tree,
    the rollout's completions and the hybrid play them there instead of choosing.  A researcher's line
    through the top of the tree (a second guess to try, say), the rest still rolled out around it."""

    keep_width: int | None = None
    """With ``max_guesses``: the hybrid's big positions near the limit try up to this many guesses to keep it
    (:func:`solver.hybrid.hybrid_chooser`)."""

    judge_width: int | None = None
    """At the rolled-out positions of guesses ``judge_turns``, the rollout plays the cheapest of its this many
    best guesses judged by the rollout's own subtree below them, not by the hybrid's (:func:`rollout_chooser`)."""
    judge_turns: tuple[int, int] | None = None
    """The first and last guess judged that way (within ``from_turn`` to ``levels``)."""

    polish: tuple[int, int, float] | None = None
    """(above, at most, seconds): each unit of a campaign (:func:`branch_tree`) is polished once built
    (:func:`solver.polish.polish`, within ``max_guesses``), so that it is judged against a polished tree's
    subtree as an equal, and the polish runs on as many processes as the units."""

    judge_pool: int | None = None
    """With the judge: at its positions, the hybrid completes this many guesses of best entropy instead of
    ``width``, and the judge picks among their cheapest (:func:`rollout_chooser`)."""

    def __post_init__(self) -> None:
        """:raises ValueError: ``keep_width`` without ``max_guesses`` (there is no limit to keep), or a judge
        without its turns (or the other way round), at turns that are not rolled out, or of fewer than two."""
        object.__setattr__(self, "play", tuple(self.play))  # a progress file gives a list
        if self.judge_turns is not None:
            object.__setattr__(self, "judge_turns", tuple(self.judge_turns))
        if self.polish is not None:
            above, at_most, budget = self.polish
            object.__setattr__(self, "polish", (int(above), int(at_most), float(budget)))
            if not 0 <= above < at_most or budget < 0:
                raise ValueError(f"polish {above},{at_most},{budget}: positions of more than ABOVE and at most "
                                 "AT_MOST candidates (ABOVE below AT_MOST), for a budget of 0 seconds or more")
        if self.keep_width is not None and self.max_guesses is None:
            raise ValueError("keep_width keeps the hybrid to max_guesses: give both")
        if self.over_width is not None and (self.max_guesses is None or self.over_width <= self.width):
            raise ValueError(f"over_width widens the positions that break max_guesses: give both, over_width above "
                             f"width ({self.width})")
        if (self.judge_width is None) != (self.judge_turns is None):
            raise ValueError("judge_width and judge_turns go together: the guesses judged, and at which turns")
        if self.judge_turns is not None and self.judge_width is not None:
            first, last = self.judge_turns
            if not self.from_turn <= first <= last <= self.levels:
                raise ValueError(f"judge_turns {first}-{last}: the turns judged must be rolled out, within "
                                 f"{self.from_turn}-{self.levels}, the first not after the last")
            if self.judge_width < 2:
                raise ValueError("judge_width: judging fewer than 2 guesses plays what the rollout plays anyway")
        if self.judge_pool is not None and (self.judge_width is None or self.judge_pool <= self.width):
            raise ValueError("judge_pool widens the judged positions: give it with judge_width, above width")

    def name(self) -> str:
        """The tree's strategy name, as records and manifests show it."""
        limit = "" if self.max_guesses is None else f" within {self.max_guesses}"
        wider = "" if self.over_width is None else f", {self.over_width} where over"
        given = "" if not self.play else f", {len(self.play)} given"
        keep = "" if self.keep_width is None else f" ({self.keep_width} tried to keep it, then searched)"
        judged = ""
        if self.judge_turns is not None:
            first, last = self.judge_turns
            turns = f"{first}" if first == last else f"{first}-{last}"
            pool = "" if self.judge_pool is None else f" of {self.judge_pool}"
            judged = (f", best {self.judge_width}{pool} judged by the rollout at guess{'' if first == last else 'es'}"
                      f" {turns}")
        polished = "" if self.polish is None else f", units polished exact<={self.polish[1]}"
        return (f"rollout(width {self.width}{wider}, guesses {self.from_turn}-{self.levels}, >{self.min_size}{limit}"
                f"{given}{judged}) over {self.strategy}+exact<={self.exact_at_most}{limit}{keep}{polished}")

    def as_dict(self) -> dict[str, Any]:
        """The plan as a progress file keeps it (``over_width``, ``play``, ``keep_width``, the judge, its pool and
        the polish only when set, so older files still match)."""
        d = asdict(self)
        for name in ("over_width", "keep_width", "judge_width", "judge_turns", "polish", "judge_pool"):
            if d[name] is None:
                del d[name]
        for name in ("judge_turns", "polish"):
            if d.get(name) is not None:
                d[name] = list(d[name])
        if self.play:
            d["play"] = list(self.play)
        else:
            del d["play"]
        return d


def given_guesses(game: Game, play: tuple[str, ...] | list[str]) -> dict[tuple[Turn, ...], Code]:
    """The positions of ``play`` (``"HISTORY: GUESS"`` texts, :attr:`RolloutPlan.play`) with their guesses.

    :raises ValueError: a text is not of that form, names a history that leaves no candidate, gives a guess
        that does not split its candidates, or gives a second guess at the same position.
    """
    given: dict[tuple[Turn, ...], Code] = {}
    for text in play:
        history, sep, guess_text = text.rpartition(":")
        if not sep or not guess_text.strip():
            raise ValueError(f"{text!r}: give a position and its guess as 'HISTORY: GUESS' (e.g. '01234 0.2: "
                             "10567'; ': GUESS' for the first guess)")
        try:
            turns = tuple(game.parse_history(history)) if history.strip() else ()
            guess = game.parse_code(guess_text.strip())
            cands = game.candidates(list(turns))
        except SolverError as exc:
            raise ValueError(f"{text!r}: {exc}") from None
        if cands.shape[0] > 1 and len({game.response(guess, int(c)) for c in cands}) == 1:
            raise ValueError(f"{text!r}: {game.format_code(guess)} does not split the {cands.shape[0]} candidates "
                             "left there")
        if turns in given and given[turns] != guess:
            raise ValueError(f"{text!r}: that position is given another guess already")
        given[turns] = guess
    return given


def plan_chooser(game: Game, plan: RolloutPlan, searcher: object = None,
                 log: Log = lambda _: None) -> tuple[Chooser, GameArrays]:
    """The rollout chooser of ``plan`` over its hybrid (:func:`solver.hybrid.hybrid_chooser`), with the arrays
    it plays on.  ``searcher``: a :class:`solver.search.Searcher` of the game to reuse (default: a new one)."""
    given = given_guesses(game, plan.play)

    def playing(chooser: Chooser) -> Chooser:
        """``chooser``, but the given guess at a given position."""
        if not given:
            return chooser

        def choose(cands: CandidateSet, path: list[Turn]) -> Code:
            guess = given.get(tuple(path))
            return chooser(cands, path) if guess is None else guess

        return choose

    s = (searcher if isinstance(searcher, Searcher)
         else Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=1 << 22))
    base = playing(hybrid_chooser(game, plan.strategy, plan.exact_at_most, s, plan.max_guesses, plan.keep_width))
    choose = rollout_chooser(game, base, width=plan.width, levels=plan.levels, min_size=plan.min_size,
                             from_turn=plan.from_turn, pool_of=lambda path: s.pools(path)[0], arrays=s.arrays,
                             max_guesses=plan.max_guesses, over_width=plan.over_width, judge_width=plan.judge_width,
                             judge_turns=plan.judge_turns, judge_pool=plan.judge_pool, wrap=playing, log=log)
    return choose, s.arrays


def rollout_tree(game: Game, strategy: str, exact_at_most: int, *, width: int, levels: int, min_size: int,
                 from_turn: int = 1, max_guesses: int | None = None, searcher: object = None,
                 log: Log = lambda _: None) -> Tree:
    """The whole tree of a rollout over the hybrid ``strategy`` above ``exact_at_most`` candidates, optimal
    below (:func:`solver.hybrid.hybrid_chooser`), tried at guesses ``from_turn`` to ``levels`` wherever more than
    ``min_size`` candidates are left, ``width`` guesses each besides the hybrid's own.  ``max_guesses``: the
    hybrid's small positions keep to it where they can, and the rollout puts it first (fewest secrets beyond
    it, then fewest guesses)."""
    plan = RolloutPlan(strategy, exact_at_most, width, levels, min_size, from_turn, max_guesses)
    choose, arrays = plan_chooser(game, plan, searcher, log)
    return build_tree(game, choose, arrays=arrays, strategy=plan.name())


# -- the same tree in units, one per response to the first guess (campaigns across processes) -------------


def first_guess(game: Game, plan: RolloutPlan, log: Log = lambda _: None) -> Code:
    """The rollout's first guess: the hybrid's own unless the plan rolls out the first guess too."""
    choose, _ = plan_chooser(game, plan, log=log)
    return int(choose(game.candidates(()), []))


def branch_tree(game: Game, plan: RolloutPlan, first: Code, response: int, log: Log = lambda _: None) -> Tree:
    """The rollout's subtree after ``first`` answered by ``response``: the same choices as the whole
    :func:`rollout_tree` makes there, each decision depending only on the path to it.  Built with a searcher
    of its own, so that a unit gives the same subtree whichever process runs it and whatever ran before.  With
    the plan's ``polish``, the subtree is then polished with that searcher (its tables warm from the rollout);
    the polish's searches are cut by time, so only the rollout's part of a polished unit is repeatable."""
    searcher = Searcher(game, SolveOptions(Criterion.TOTAL), table_capacity=1 << 22)
    choose, arrays = plan_chooser(game, plan, searcher, log=log)
    tree = build_tree(game, choose, [Turn(first, response)], arrays=arrays, strategy=plan.name())
    if plan.polish is not None:
        above, at_most, budget_s = plan.polish
        report = polish(tree, searcher, above=above, at_most=at_most, budget_s=budget_s,
                        max_guesses=plan.max_guesses, log=log)
        log(f"unit {game.format_response(response)} polished: {report.tried} positions searched, {report.improved} "
            f"improved, {report.cut} out of time, {report.gained} guesses saved")
    return tree


def branch_responses(game: Game, first: Code) -> list[int]:
    """The responses to ``first`` that leave candidates to find (the winning one excluded), biggest first:
    the units of a rollout campaign, longest first."""
    a = game.arrays(table=True)
    _, starts = kernels.split(*a.kernel_args(), first, game.candidates(()), game.n_responses)
    sizes = np.diff(starts)
    return [int(r) for r in np.argsort(-sizes, kind="stable") if sizes[r] > 0 and r != game.all_bulls]


def assemble(game: Game, plan: RolloutPlan, first: Code, branches: Mapping[int, Tree]) -> Tree:
    """The whole tree from its first guess and one subtree per response (:func:`branch_tree`), rebuilt move
    by move (so every branch is checked against its candidates on the way).

    :raises ValueError: a response has no subtree, or a subtree does not follow its own history.
    """
    missing = [r for r in branch_responses(game, first) if r not in branches]
    if missing:
        raise ValueError(f"no subtree for response(s) {', '.join(game.format_response(r) for r in missing)}")

    def replay(cands: CandidateSet, path: list[Turn]) -> Code:
        if not path:
            return first
        node = branches[path[0].response].node_at(path[1:])
        if node is None:
            raise ValueError(f"the subtree of {game.format_turn(path[0])} has no position after "
                             f"{', '.join(game.format_turn(t) for t in path[1:])}")
        return node.guess

    return build_tree(game, replay, strategy=plan.name())


def best_branches(new: Tree, old: Tree, max_guesses: int | None = None) -> tuple[Tree, list[int]]:
    """A tree that plays ``new``'s first guess and, below each response, whichever of the two trees' subtrees
    costs less there (fewest secrets beyond ``max_guesses`` first, then fewest guesses; ``new``'s on a tie),
    with the responses whose subtree was taken from ``old``.  The subtrees below the first guess are
    independent, so the result is a strategy that costs no more than either tree.

    :raises ValueError: the trees are not of the same game, position and first guess.
    """
    if (new.game.spec, new.history, new.root.guess) != (old.game.spec, old.history, old.root.guess):
        raise ValueError("only trees of the same position with the same first guess can be combined")
    turn = len(new.history) + 2
    children = dict(new.root.children)
    taken = []
    for r, mine in new.root.children.items():
        theirs = old.root.children.get(r)
        if theirs is not None and subtree_cost(theirs, turn, max_guesses) < subtree_cost(mine, turn, max_guesses):
            children[r] = theirs
            taken.append(r)
    root = Node(new.root.guess, new.root.size, new.root.hit, new.root.derivable, children)
    return Tree(game=new.game, root=root, history=list(new.history), strategy=new.strategy), taken
