"""The records of a job, as planned and as stored: the question a job answers (:class:`JobRequest`), a
unit as planned (:class:`UnitSpec`), and what combining needs of a unit (:class:`UnitState`).

They live with the store, which keeps them, rather than with the planner that makes them
(:mod:`service.jobs.plan`), so that the store imports nothing above it.  Plain data: no SQL, no search.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from solver.game import DEFAULT_ALPHABET, Game, Turn
from solver.question import SolveOptions
from solver.vocabulary import Criterion


def tree_digest(text: str) -> str:
    """A tree's name as a polish knows it: SHA-256 of its compact text (its progress file's ``tree``, its job's view,
    part of its name in the database)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class JobRequest:
    """The question a job answers: a position and the solve options (no budgets, no bounds); or, with
    ``strategy``, the whole tree of that strategy from the position (a *tree job*); or, with ``depth``, the
    lower bound of the game's optimal total refined ``depth`` plies below its root (a *bound job*, a lower-bound
    campaign: :func:`solver.lowerbound.root_lower_bound` cut into one unit per first guess); or, with
    ``rollout``, the subtrees of a rollout tree (a *rollout job*: :func:`solver.rollout.branch_tree` for each
    response to the first guess but those of ``skip``); or, with ``polish``, the middle-sized positions of a tree
    searched for cheaper subtrees (a *polish job*: :func:`solver.polish.polish` for each part of its first
    guess); or, with ``check``, the optimal total among the strategies that open with a given guess and then play
    only possible codes, one unit per part of that guess (or per share of a part's second guesses: a *check job*,
    :func:`service.record_checks.search_share`); or, with ``search``, the position's exact value searched guess by
    guess from nothing, its progress kept as it goes (a *search job*, ``solve --checkpoint``: one unit, or one
    per share of the position's guesses); or, with ``scan``, whether every candidate of the position can be found
    within a limit, each of its guesses tried in turn (a *scan job*, ``feasible --scan --progress``); or, with
    ``atlas``, the atlas entries of some games computed, one unit per game (an *atlas job*, ``atlas run``)."""

    game: str
    """Game spec ``"p,s,r"``."""
    alphabet: str | None
    history: tuple[tuple[int, int], ...]
    """(guess, response) code numbers."""
    criterion: Criterion = Criterion.TOTAL
    max_guesses: int | None = None
    depth_count: int | None = None
    mde: int | None = None
    from_set_only: bool = False
    strategy: str | None = None
    """A tree job's strategy (its one unit builds that strategy's whole tree); None for a solve."""
    depth: int | None = None
    """A bound job's plies; None for the other kinds."""
    target: int | None = None
    """A bound job's target (game-level): each unit stops refining once its bound reaches it; None: the full
    bound (each unit then stops at the least bound of the units done, which no higher bound can change)."""
    rollout: str | None = None
    """A rollout job's plan (:meth:`solver.rollout.RolloutPlan.as_dict`, as canonical JSON); None otherwise."""
    skip: tuple[int, ...] = ()
    """A rollout job's responses to the first guess whose subtrees are built already (its progress file's)."""
    parts: tuple[int, ...] = ()
    """A bound job's responses whose parts alone are refined (under each first guess), the others as the part
    bounds already proven have them; empty: every part.  Such a job proves part bounds, not the bound at
    ``depth``."""
    polish: str | None = None
    """A polish job's tree and parameters: canonical JSON ``{"tree": compact text, "params": {...}, "settled": n}``
    (``params`` as the polish's progress file keeps them; ``settled``: how many of its positions the database held
    when the job was asked, so that a run after a finished one is a new job); None otherwise."""
    check: str | None = None
    """A check job's question: canonical JSON ``{"first_guess": code number, "shares": n, "parts": [responses to
    search] or null for every part, "known": {formatted response: value} of the parts solved before (not searched),
    "resume": {share key: progress} of the searches stopped before}``; None otherwise."""
    search: str | None = None
    """A search job's shares and the progress it goes on from: canonical JSON ``{"shares": n, "resume": {share key:
    progress}, "upper_bound": game-level value or null}`` (the position and the rest of its question are the
    request's own fields); None otherwise."""
    scan: str | None = None
    """A scan job's question and progress: canonical JSON ``{"max_guesses": k, "tries": n or null, "shares": n,
    "resume": {share key: the share's progress (next, guesses, proven, failed_on)}}``; None otherwise."""
    atlas: str | None = None
    """An atlas job's games and budget: canonical JSON ``{"games": [specs], "budget_s": seconds, "known": {spec:
    the atlas's entry or null}}`` (the request's ``game`` is the first game its command was asked); None
    otherwise."""

    @classmethod
    def of(cls, game: Game, history: list[Turn], options: SolveOptions) -> JobRequest:
        """The request for ``options`` at ``history`` (validated by the caller)."""
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet,
                   tuple((int(t.guess), int(t.response)) for t in history), options.criterion,
                   options.max_guesses, options.depth_count, options.mde, options.from_set_only)

    @classmethod
    def tree(cls, game: Game, strategy: str, criterion: Criterion = Criterion.TOTAL,
             max_guesses: int | None = None) -> JobRequest:
        """The request to build ``strategy``'s whole tree of ``game`` (an optimal strategy's tree answers
        its ``criterion`` within ``max_guesses``; a one-step strategy's takes neither)."""
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet, (), criterion,
                   max_guesses, strategy=strategy)

    @classmethod
    def bound(cls, game: Game, depth: int, target: int | None = None, parts: tuple[int, ...] = ()) -> JobRequest:
        """The request to prove the lower bound of ``game``'s optimal total refined ``depth`` plies (a campaign);
        with ``parts``, to refine only those parts of each first guess that far."""
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet, (), Criterion.TOTAL,
                   depth=depth, target=target, parts=tuple(sorted(set(parts))))

    @classmethod
    def rollout_of(cls, game: Game, plan: dict[str, object], skip: tuple[int, ...] = ()) -> JobRequest:
        """The request to build the subtrees of the rollout ``plan`` (a plan's ``as_dict()``), but ``skip``'s."""
        text = orjson.dumps(plan, option=orjson.OPT_SORT_KEYS).decode()
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet, (), Criterion.TOTAL,
                   rollout=text, skip=tuple(sorted(set(skip))))

    @classmethod
    def polish_of(cls, game: Game, tree: str, params: dict[str, Any], settled: int = 0) -> JobRequest:
        """The request to polish ``tree`` (compact text) with ``params``, ``settled`` of its positions settled."""
        text = orjson.dumps({"tree": tree, "params": params, "settled": settled}, option=orjson.OPT_SORT_KEYS).decode()
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet, (), Criterion.TOTAL,
                   polish=text)

    @classmethod
    def check_of(cls, game: Game, doc: dict[str, Any]) -> JobRequest:
        """The request to check ``game`` as ``doc`` says (see :attr:`check`), from-set-only by definition."""
        text = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode()
        return cls(game.spec, None if game.alphabet == DEFAULT_ALPHABET else game.alphabet, (), Criterion.TOTAL,
                   from_set_only=True, check=text)

    @classmethod
    def search_of(cls, game: Game, history: list[Turn], options: SolveOptions, shares: int,
                  resume: dict[str, Any]) -> JobRequest:
        """The request to search ``history`` under ``options`` guess by guess, in ``shares`` shares, going on from
        ``resume`` (progress by share key)."""
        doc = {"shares": shares, "resume": resume, "upper_bound": options.upper_bound}
        text = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode()
        return dataclasses.replace(cls.of(game, history, options), search=text)

    @classmethod
    def scan_of(cls, game: Game, history: list[Turn], doc: dict[str, Any]) -> JobRequest:
        """The request to scan ``history``'s guesses as ``doc`` says (see :attr:`scan`)."""
        text = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode()
        return dataclasses.replace(cls.of(game, history, SolveOptions(Criterion.TOTAL, doc["max_guesses"])),
                                   scan=text)

    @classmethod
    def atlas_of(cls, game: Game, doc: dict[str, Any]) -> JobRequest:
        """The request to compute the atlas entries of ``doc``'s games (see :attr:`atlas`), filed under ``game``
        (the first game its command was asked, whatever is left of them: how the command finds it again)."""
        text = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode()
        return cls(game.spec, None, (), Criterion.TOTAL, atlas=text)

    @property
    def atlas_doc(self) -> dict[str, Any]:
        """An atlas job's games and budget (see :attr:`atlas`)."""
        assert self.atlas is not None
        return dict(orjson.loads(self.atlas))

    @property
    def scan_doc(self) -> dict[str, Any]:
        """A scan job's question and progress (see :attr:`scan`)."""
        assert self.scan is not None
        return dict(orjson.loads(self.scan))

    @property
    def search_doc(self) -> dict[str, Any]:
        """A search job's shares and progress (see :attr:`search`)."""
        assert self.search is not None
        return dict(orjson.loads(self.search))

    @property
    def check_doc(self) -> dict[str, Any]:
        """A check job's question (see :attr:`check`)."""
        assert self.check is not None
        return dict(orjson.loads(self.check))

    @property
    def polish_doc(self) -> dict[str, Any]:
        """A polish job's ``{"tree", "params", "settled"}``."""
        assert self.polish is not None
        return dict(orjson.loads(self.polish))

    @property
    def polish_id(self) -> str:
        """A polish's name in the ``polish_positions`` table: SHA-256 of its game, its tree's digest (SHA-256 of the
        compact text, as its progress file names it) and its parameters, whatever it took as settled."""
        doc = self.polish_doc
        key = {"game": self.game, "alphabet": self.alphabet, "tree": tree_digest(str(doc["tree"])),
               "params": doc["params"]}
        return hashlib.sha256(orjson.dumps(key, option=orjson.OPT_SORT_KEYS)).hexdigest()

    @property
    def kind(self) -> str:
        """``solve``, ``tree``, ``bound``, ``rollout``, ``polish``, ``check``, ``search``, ``scan`` or ``atlas``
        (see the class)."""
        if self.strategy is not None:
            return "tree"
        if self.rollout is not None:
            return "rollout"
        if self.polish is not None:
            return "polish"
        if self.check is not None:
            return "check"
        if self.search is not None:
            return "search"
        if self.scan is not None:
            return "scan"
        if self.atlas is not None:
            return "atlas"
        return "solve" if self.depth is None else "bound"

    @property
    def is_tree(self) -> bool:
        """Whether the job builds a strategy tree rather than solving a position."""
        return self.strategy is not None

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal requests give equal text, hence equal hashes."""
        d: dict[str, Any] = {"game": self.game, "alphabet": self.alphabet, "history": [list(t) for t in self.history],
             "criterion": self.criterion, "max_guesses": self.max_guesses, "depth_count": self.depth_count,
             "mde": self.mde, "from_set_only": self.from_set_only}
        if self.strategy is not None:  # absent for solves, so that their digests stay what they were
            d["strategy"] = self.strategy
        if self.depth is not None:  # the same
            d["depth"], d["target"] = self.depth, self.target
            if self.parts:  # absent for a whole bound's, whose digests stay what they were
                d["parts"] = [int(r) for r in self.parts]
        if self.rollout is not None:
            d["rollout"] = orjson.loads(self.rollout)
            d["skip"] = [int(r) for r in self.skip]
        if self.polish is not None:
            d["polish"] = orjson.loads(self.polish)
        if self.check is not None:
            d["check"] = orjson.loads(self.check)
        if self.search is not None:
            d["search"] = orjson.loads(self.search)
        if self.scan is not None:
            d["scan"] = orjson.loads(self.scan)
        if self.atlas is not None:
            d["atlas"] = orjson.loads(self.atlas)
        return orjson.dumps(d, option=orjson.OPT_SORT_KEYS).decode()

    @classmethod
    def from_json(cls, text: str) -> JobRequest:
        d = orjson.loads(text)
        plan = d.get("rollout")
        return cls(d["game"], d["alphabet"], tuple((int(g), int(r)) for g, r in d["history"]),
                   Criterion.parse(d["criterion"]),
                   d["max_guesses"], d["depth_count"], d["mde"], bool(d["from_set_only"]), d.get("strategy"),
                   d.get("depth"), d.get("target"),
                   None if plan is None else orjson.dumps(plan, option=orjson.OPT_SORT_KEYS).decode(),
                   tuple(int(r) for r in d.get("skip", ())), tuple(int(r) for r in d.get("parts", ())),
                   None if d.get("polish") is None
                   else orjson.dumps(d["polish"], option=orjson.OPT_SORT_KEYS).decode(),
                   None if d.get("check") is None
                   else orjson.dumps(d["check"], option=orjson.OPT_SORT_KEYS).decode(),
                   None if d.get("search") is None
                   else orjson.dumps(d["search"], option=orjson.OPT_SORT_KEYS).decode(),
                   None if d.get("scan") is None
                   else orjson.dumps(d["scan"], option=orjson.OPT_SORT_KEYS).decode(),
                   None if d.get("atlas") is None
                   else orjson.dumps(d["atlas"], option=orjson.OPT_SORT_KEYS).decode())

    @property
    def digest(self) -> str:
        """SHA-256 of the canonical JSON (finds an earlier job asking the same)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()

    def game_obj(self) -> Game:
        return Game.from_spec(self.game, self.alphabet) if self.alphabet else Game.from_spec(self.game)

    def turns(self) -> list[Turn]:
        return [Turn(g, r) for g, r in self.history]

    def options(self, k: int | None = None, upper_bound: int | None = None) -> SolveOptions:
        """Options of one phase (``k`` replaces max_guesses; the chain is the job's business)."""
        return SolveOptions(self.criterion, self.max_guesses if k is None else k, None, self.mde,
                            self.from_set_only, upper_bound)

    def first_phase(self) -> int:
        """The k of the first phase (0 when there is no depth limit)."""
        return self.max_guesses or 0


@dataclass(frozen=True)
class UnitSpec:
    """A unit as planned (the store adds its id, status and result)."""

    kind: str
    g1: int | None
    response: int | None
    g2: int | None
    history: tuple[tuple[int, int], ...]
    size: int
    lower_bound: int
    """Game-level lower bound of the unit's value (before it runs)."""
    expected_cost: int
    """Relative cost estimate (sum of squared part sizes), for progress and ETA."""
    priority: int = 0
    """Claim order, highest first: first guesses in bound order (so the best one tends to finish
    early and cut the others), then biggest response first (the article's longest first)."""


@dataclass
class UnitState:
    """What :func:`aggregate` needs of a unit."""

    kind: str
    g1: int | None
    response: int | None
    g2: int | None
    status: str
    """queued, running, done, skipped, failed, cancelled."""
    lower_bound: int
    value: int | None = None
    exact: bool | None = None
    best_guess: int | None = None
    nodes: int = 0
    expected_cost: int = 1
    id: int = 0
    per_response: dict[int, int | None] | None = None
    """Whole-position units: the values after their best guess."""
