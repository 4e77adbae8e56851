"""The plans of the campaigns' jobs: a rollout's subtrees, a polish's parts, a check's parts and shares, a search's
and a scan's shares, an atlas run's games.  Each is a handful of units known from the request alone (no search
while planning), combined by :func:`service.jobs.plan.aggregate`.

Why apart from :mod:`service.jobs.plan`: that one cuts a solve into units and combines every kind's answers; these
are the campaigns' own, each a few lines, and grow with the kinds of campaign.
"""

from __future__ import annotations

import time

import orjson

from service.jobs.plan import Plan
from service.store.job_records import JobRequest, UnitSpec
from solver.game import Game, Turn
from solver.polish import PolishParams, left_alone
from solver.position import Position
from solver.rollout import RolloutPlan, branch_responses, first_guess
from solver.tree import Tree, from_compact


def rollout_plan_of(req: JobRequest) -> RolloutPlan:
    """A rollout job's plan, as the solver takes it."""
    assert req.rollout is not None
    return RolloutPlan(**orjson.loads(req.rollout))


def rollout_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a rollout job: its first guess (the hybrid's own, or rolled out when the plan starts at the
    first guess: then planning takes as long as one rollout decision), and one ``rollout`` unit per response to
    it that leaves candidates, but those of ``skip``, biggest first.

    Why per response: the rollout decides each position from its path alone, so each subtree below the first
    guess is built alone, by any process, and the tree is those subtrees put back under the first guess."""
    game = req.game_obj()
    started = time.perf_counter()
    first = int(first_guess(game, rollout_plan_of(req)))
    seconds = round(time.perf_counter() - started, 1)  # the campaign's time counts it, as its units'
    responses = [r for r in branch_responses(game, first) if r not in set(req.skip)]
    units = []
    for i, r in enumerate(responses):
        n = len(game.candidates([Turn(first, r)]))
        units.append(UnitSpec("rollout", first, int(r), None, ((first, int(r)),), n, 0, n * n, len(responses) - i))
    return Plan(None, 1, game.size, "rollout", [{"guess": first, "skip": list(req.skip),
                                                          "seconds": seconds}]), units


def polish_tree_of(req: JobRequest) -> Tree:
    """A polish job's tree (parsed anew: a polish changes the tree it is given)."""
    tree = from_compact(str(req.polish_doc["tree"]))
    if tree.game.spec != req.game:
        raise ValueError(f"the polish job's tree is a tree of {tree.game.spec}, not of {req.game}")
    return tree


def polish_parts(req: JobRequest, tree: Tree) -> list[int] | None:
    """The responses to the tree's first guess a polish job searches below, biggest part first; None when the
    first position itself is one to search (then one unit polishes the whole tree)."""
    params = PolishParams.from_dict(req.polish_doc["params"])
    parts = params.part_responses(tree.game)
    root = tree.root
    if parts is None and params.searches(root.size):
        return None
    chosen = [r for r, child in root.children.items()
              if not left_alone(child.size, params.above) and (parts is None or r in parts)]
    return sorted(chosen, key=lambda r: (-root.children[r].size, r))


def polish_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a polish job: one ``polish`` unit per part of the tree's first guess that holds a position to
    search (one for the whole tree when its first position is one), biggest first.

    Why per part: a polish settles a position before its children (a child is searched only when its parent
    could not be settled), so a part is searched top down by one process, and the parts are independent."""
    tree = polish_tree_of(req)
    root = tree.root
    history = tuple((int(t.guess), int(t.response)) for t in tree.history)
    parts = polish_parts(req, tree)
    if parts is None:
        units = [UnitSpec("polish", int(root.guess), None, None, history, root.size, 0, root.size ** 2, 1)]
    else:
        units = [UnitSpec("polish", int(root.guess), int(r), None, (*history, (int(root.guess), int(r))),
                          root.children[r].size, 0, root.children[r].size ** 2, len(parts) - i)
                 for i, r in enumerate(parts)]
    return Plan(None, tree.root_depth, root.size, "polish", [{"guess": int(root.guess)}]), units


def check_parts(req: JobRequest) -> dict[int, int]:
    """The parts a check job searches: {response to its first guess: candidates}, biggest first (every part that
    holds more than the first guess itself, those of ``parts`` alone when it names some, none it knows)."""
    game, doc = req.game_obj(), req.check_doc
    first = int(doc["first_guess"])
    named = None if doc.get("parts") is None else {int(r) for r in doc["parts"]}
    known = set(doc.get("known", {}))
    sizes = {r: len(game.candidates([Turn(first, r)])) for r in branch_responses(game, first)}
    chosen = {r: n for r, n in sizes.items() if game.format_response(r) not in known and (named is None or r in named)}
    return dict(sorted(chosen.items(), key=lambda rn: (-rn[1], rn[0])))


def check_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a check job: a ``check`` unit per part of its first guess and share of that part's second
    guesses (the unit's ``g2`` is its share's number, from 0), biggest part first.

    Why shares as units: the biggest parts of a game take hours each; split into shares, each searching every
    n-th second guess cut by the best value the others have found, one part keeps every worker busy."""
    doc = req.check_doc
    first, shares = int(doc["first_guess"]), int(doc["shares"])
    parts = check_parts(req)
    units = [UnitSpec("check", first, r, share, ((first, r),), n, 0, max(1, n * n // shares), len(parts) - i)
             for i, (r, n) in enumerate(parts.items()) for share in range(shares)]
    return Plan(None, 2, req.game_obj().size, "check", [{"guess": first, "shares": shares}]), units


def search_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a search job: a ``search`` unit per share of the position's guesses (its ``g2`` the share's
    number, from 0), or one for the whole position."""
    root = Position.of(req.game_obj(), req.turns())
    shares = int(req.search_doc["shares"])
    units = [UnitSpec("search", None, None, share, req.history, root.size, 0, max(1, root.size ** 2 // shares), 1)
             for share in range(shares)]
    return Plan(req.max_guesses, root.turn, root.size, "search", [{"shares": shares}]), units


def scan_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of a scan job: a ``scan`` unit per share of the position's guesses (its ``g2`` the share's number,
    from 0), or one for them all."""
    root = Position.of(req.game_obj(), req.turns())
    shares = int(req.scan_doc["shares"])
    units = [UnitSpec("scan", None, None, share, req.history, root.size, 0, max(1, root.size ** 2 // shares), 1)
             for share in range(shares)]
    return Plan(req.max_guesses, root.turn, root.size, "scan", [{"shares": shares}]), units


def atlas_plan(req: JobRequest) -> tuple[Plan, list[UnitSpec]]:
    """The plan of an atlas job: an ``atlas`` unit per game (its ``g2`` the game's place in the request), the
    smallest first, as ``atlas run`` always went."""
    games = [Game.from_spec(spec) for spec in req.atlas_doc["games"]]
    units = [UnitSpec("atlas", None, None, i, (), g.size, 0, g.size * g.size, len(games) - i)
             for i, g in enumerate(games)]
    return Plan(None, 1, games[0].size, "atlas", [{"games": len(games)}]), units
