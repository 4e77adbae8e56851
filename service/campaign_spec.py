"""A campaign's spec: what long work to run (its kind, game and parameters) and where its progress file is, read
from a small spec file (:func:`load_spec`) or made by the command that runs the campaign (:meth:`CampaignSpec.bound`,
``rollout``, ``polish``, ``check``).  A spec file (``campaigns/bounds-6-7-0.campaign.json``) reads::

    {"format": "bullscows-campaign", "version": 1, "kind": "bound",
     "game": "6,7,0", "depth": 4, "target": null, "progress": "bounds-6-7-0.json"}

    {"format": "bullscows-campaign", "version": 1, "kind": "rollout", "game": "5,6,1",
     "plan": {"strategy": "entropy", "exact_at_most": 40, "width": 4, "levels": 2, "min_size": 60, "from_turn": 2},
     "progress": "rollout-5-6-1.json"}

A rollout plan has the keys of :class:`solver.rollout.RolloutPlan`, ``from_turn`` among the required ones (the
commands that run rollouts default it differently).  Unknown keys are refused, in a spec and in its plan: a typo
must not silently change what is run.

A check, search, scan or atlas spec gives its ``params`` as :meth:`CampaignSpec.to_json` writes them (a polish is
made by its command alone: its tree is the shipped one).  A ``steps`` spec builds a best-known tree by its ``steps``
in order (:class:`Step`: a hybrid, a rollout, a polish, each judged before the next), run by
:mod:`service.step_runs`; its progress is a folder's ``steps.json``.  Each kind's part in running a campaign is its
:class:`CampaignKind`, defined in the kind's own module.

Why apart from :mod:`service.campaign_specs`, which runs a spec's campaign: what a campaign is and how it is run
are two concerns; this one uses the job store's types only to name what a kind is given.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

from service.campaign_files import MAX_SHARES, CampaignError, read_json
from service.store.job_records import JobRequest
from solver.errors import SolverError
from solver.game import Game, Turn
from solver.question import SolveOptions
from solver.rollout import RolloutPlan, given_guesses
from solver.tree import Tree, to_compact
from solver.vocabulary import MMAX, ONE_STEP_STRATEGIES

if TYPE_CHECKING:
    from service.store.jobs import JobStore
    from service.store.models import Job

SUBMITTER = "campaign"
"""The jobs' submitter: how a campaign finds its earlier runs' jobs."""
SPEC_FORMAT = "bullscows-campaign"
SPEC_VERSION = 1
FILE_KINDS = ("bound", "rollout", "check", "search", "scan", "atlas", "steps")
"""The kinds a spec file may name (a polish is made by its command's options: its tree is the shipped one)."""
PARAMS = {"check": {"first_guess", "shares", "parts"}, "search": {"history", "options", "shares"},
          "scan": {"history", "max_guesses", "tries", "shares"}, "atlas": {"games", "budget_s"}}
"""The ``params`` of the kinds given by them in a spec file (as :meth:`CampaignSpec.to_json` writes them)."""
MAX_DEPTH = 12
"""The deepest refinement a bound spec may ask (``atlas bounds --depth`` has the same limit)."""


@dataclass(frozen=True)
class CampaignSpec:
    """A parsed spec file: what to run, and where its progress file is (absolute)."""

    path: str
    kind: str
    game: Game
    progress: str
    depth: int = 0
    """A bound campaign's plies."""
    target: int | None = None
    """A bound campaign's target (game-level), None for the full bound."""
    plan: dict[str, Any] = field(default_factory=dict)
    """A rollout campaign's plan (:meth:`solver.rollout.RolloutPlan.as_dict`)."""
    parts: tuple[int, ...] = ()
    """A bound campaign's responses whose parts alone it refines (empty: every part)."""
    tree: Tree | None = field(default=None, compare=False)
    """A polish's tree (the shipped best-known tree it starts from); its parameters are ``plan``."""
    steps: tuple[Step, ...] = ()
    """A steps campaign's steps, in order."""

    @classmethod
    def bound(cls, game: Game, depth: int, target: int | None, progress: str,
              parts: tuple[int, ...] = ()) -> CampaignSpec:
        """A bound campaign given by a command's options rather than a file (``atlas bounds --campaign``): as if
        its spec were beside its progress file."""
        name = game.spec.replace(",", "-")
        progress = os.path.abspath(progress)
        return cls(os.path.join(os.path.dirname(progress), f"bounds-{name}.campaign.json"), "bound", game, progress,
                   depth, target, parts=tuple(sorted(set(parts))))

    @classmethod
    def rollout(cls, game: Game, plan: RolloutPlan, progress: str) -> CampaignSpec:
        """A rollout campaign given by a command's options (``records rollout``, ``atlas hybrid --rollout-width``):
        as if its spec were beside its progress file."""
        progress = os.path.abspath(progress)
        name = os.path.splitext(os.path.basename(progress))[0]
        return cls(os.path.join(os.path.dirname(progress), f"{name}.campaign.json"), "rollout", game, progress,
                   plan=plan.as_dict())

    @classmethod
    def polish(cls, game: Game, tree: Tree, params: dict[str, Any], progress: str) -> CampaignSpec:
        """A polish of ``tree`` with ``params`` (``records polish``, ``atlas polish``): as if its spec were beside
        its progress file."""
        progress = os.path.abspath(progress)
        name = os.path.splitext(os.path.basename(progress))[0]
        return cls(os.path.join(os.path.dirname(progress), f"{name}.campaign.json"), "polish", game, progress,
                   plan=dict(params), tree=tree)

    @classmethod
    def check(cls, game: Game, first_guess: str, shares: int, parts: list[str] | None, records: str) -> CampaignSpec:
        """A records check of ``game`` (``records check``): the parts of ``first_guess`` (those of ``parts`` alone
        when given) in ``shares`` shares each, its progress kept in the records file ``records``."""
        records = os.path.abspath(records)
        name = game.spec.replace(",", "-")
        return cls(os.path.join(os.path.dirname(records), f"check-{name}.campaign.json"), "check", game, records,
                   plan={"first_guess": first_guess, "shares": shares,
                         "parts": None if parts is None else sorted(set(parts))})

    @classmethod
    def search(cls, game: Game, history: list[Turn], options: dict[str, Any], shares: int,
               progress: str) -> CampaignSpec:
        """A position's search from nothing (``solve --checkpoint``): ``history`` searched under ``options`` (the
        :class:`~solver.question.SolveOptions` of its question, as a dict) in ``shares`` shares, its progress file
        ``progress``."""
        progress = os.path.abspath(progress)
        name = os.path.splitext(os.path.basename(progress))[0]
        return cls(os.path.join(os.path.dirname(progress), f"{name}.campaign.json"), "search", game, progress,
                   plan={"history": [game.format_turn(t) for t in history], "options": options, "shares": shares})

    @classmethod
    def scan(cls, game: Game, history: list[Turn], max_guesses: int, tries: int | None, shares: int,
             progress: str) -> CampaignSpec:
        """A scan of a position's guesses against a limit (``feasible --scan --progress``), its progress file
        ``progress``."""
        progress = os.path.abspath(progress)
        name = os.path.splitext(os.path.basename(progress))[0]
        return cls(os.path.join(os.path.dirname(progress), f"{name}.campaign.json"), "scan", game, progress,
                   plan={"history": [game.format_turn(t) for t in history], "max_guesses": max_guesses,
                         "tries": tries, "shares": shares})

    @classmethod
    def atlas(cls, games: list[Game], budget_s: float, path: str) -> CampaignSpec:
        """The atlas's ``games`` computed (``atlas run``), each search within ``budget_s``, its progress file the
        atlas file ``path``."""
        path = os.path.abspath(path)
        return cls(os.path.join(os.path.dirname(path), "atlas-run.campaign.json"), "atlas", games[0], path,
                   plan={"games": [g.spec for g in games], "budget_s": budget_s})

    @property
    def polish_tree(self) -> Tree:
        """A polish campaign's tree."""
        assert self.tree is not None
        return self.tree

    @property
    def rollout_plan(self) -> RolloutPlan:
        """A rollout campaign's plan, as the solver takes it."""
        return RolloutPlan(**self.plan)

    def request(self, skip: tuple[int, ...] = ()) -> JobRequest:
        """The job that runs the campaign (equal specs give the same job: the store reuses it); a rollout's
        leaves out the subtrees of ``skip``, built before."""
        if self.kind == "rollout":
            return JobRequest.rollout_of(self.game, self.plan, skip)
        if self.kind == "polish":
            return JobRequest.polish_of(self.game, to_compact(self.polish_tree), self.plan)
        if self.kind in ("check", "search", "scan", "atlas"):  # the progress file is the job's too: their kind's start
            raise ValueError(f"a {self.kind}'s job is asked from its progress file (its CampaignKind's start)")
        return JobRequest.bound(self.game, self.depth, self.target, self.parts)

    def to_json(self) -> dict[str, Any]:
        params: dict[str, Any] = ({"plan": self.plan} if self.kind == "rollout"
                                  else {"steps": [s.to_json() for s in self.steps]} if self.kind == "steps"
                                  else {"params": self.plan} if self.kind in ("polish", "check", "search", "scan",
                                                                              "atlas")
                                  else {"depth": self.depth, "target": self.target})
        if self.parts:
            params["parts"] = [self.game.format_response(r) for r in self.parts]
        return {"format": SPEC_FORMAT, "version": SPEC_VERSION, "kind": self.kind, "game": self.game.spec, **params,
                "progress": os.path.relpath(self.progress, os.path.dirname(self.path))}


def parse_parts(game: Game, parts: Any, where: str = "--parts") -> tuple[int, ...]:
    """The responses whose parts a campaign refines (``["0.5", "1.4"]``, from ``--parts`` or a spec's ``parts``),
    sorted; empty when none is named.

    :raises CampaignError: not a list of the game's responses, or a winning one (it has no part to refine), in
        the words of ``where``.
    """
    if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
        raise CampaignError(f"{where}: {json.dumps(parts)}; give a list of responses, e.g. [\"0.5\", \"1.4\"]")
    try:
        out = tuple(sorted({game.parse_response(p.strip()) for p in parts}))
    except SolverError as exc:
        raise CampaignError(f"{where}: {exc}") from None
    if game.all_bulls in out:
        raise CampaignError(f"{where}: {game.format_response(game.all_bulls)} is the winning response: it leaves no "
                            "part to refine")
    return out


def jobs_asking(jobs: JobStore, game: Game, asks: Callable[[JobRequest], bool],
                submitter: str = SUBMITTER) -> list[Job]:
    """The jobs ``submitter`` asked of ``game`` (the campaigns', by default) whose request ``asks`` accepts, oldest
    first: a campaign's jobs, whatever each took in from its file (:meth:`JobCampaignKind.jobs_of`)."""
    return [j for j in jobs.submitted(submitter, game.spec) if asks(JobRequest.from_json(j.request))]


BOUND_KEYS = {"format", "version", "kind", "game", "depth", "target", "parts", "progress"}
ROLLOUT_KEYS = {"format", "version", "kind", "game", "plan", "progress"}
PLAN_INTS = {"exact_at_most": 1, "width": 1, "levels": 1, "min_size": 1, "from_turn": 1}
"""A rollout plan's required whole numbers, each with its least value."""


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def load_spec(path: str) -> CampaignSpec:
    """The spec in ``path``.

    :raises CampaignError: no such file, not JSON, another format or version, an unknown kind or key, a game that
        is not one, a depth or target out of range, a rollout plan that is not one, a progress file in a folder
        that is not there.
    """
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != SPEC_FORMAT:
        raise CampaignError(f"{path}: not a campaign spec (its \"format\" must be {SPEC_FORMAT!r})")
    if doc.get("version") != SPEC_VERSION:
        raise CampaignError(f"{path}: spec version {json.dumps(doc.get('version'))}; this version reads "
                            f"{SPEC_VERSION}")
    kind = doc.get("kind")
    if kind not in FILE_KINDS:
        raise CampaignError(f"{path}: kind {json.dumps(kind)}; the kinds are {', '.join(FILE_KINDS)}")
    keys = (ROLLOUT_KEYS if kind == "rollout" else BOUND_KEYS if kind == "bound" else STEPS_KEYS if kind == "steps"
            else PARAMS_KEYS)
    unknown = sorted(set(doc) - keys)
    if unknown:
        raise CampaignError(f"{path}: unknown key(s) {', '.join(unknown)} in a {kind} spec; its keys are "
                            f"{', '.join(sorted(keys))}")
    if not isinstance(doc.get("game"), str):
        raise CampaignError(f"{path}: game {json.dumps(doc.get('game'))}; give a game, e.g. \"6,7,0\" or "
                            "\"mastermind\"")
    try:
        game = Game.from_spec(doc["game"])
    except SolverError as exc:
        raise CampaignError(f"{path}: {exc}") from None
    name = game.spec.replace(",", "-")
    progress = doc.get("progress") or (f"bounds-{name}.json" if kind == "bound" else f"rollout-{name}.json"
                                       if kind == "rollout" else None)
    if not isinstance(progress, str) or not progress:
        raise CampaignError(f"{path}: progress {json.dumps(doc.get('progress'))}; give a file name")
    where = os.path.dirname(os.path.abspath(path))
    progress = os.path.join(where, progress)
    folder = os.path.dirname(progress)
    if not os.path.isdir(os.path.dirname(folder) if kind == "steps" else folder):  # a steps campaign makes its own
        raise CampaignError(f"{path}: progress {doc.get('progress')}: its folder is not there")
    if kind == "rollout":
        return CampaignSpec(os.path.abspath(path), kind, game, progress,
                            plan=_rollout_plan(path, doc.get("plan"), game))
    if kind == "steps":
        if os.path.isabs(doc["progress"]) or os.path.normpath(doc["progress"]).startswith(".."):
            raise CampaignError(f"{path}: progress {doc['progress']}; a steps campaign's folder is below its spec's: "
                                "give FOLDER/steps.json (`campaign run --progress` names another for one run)")
        return CampaignSpec(os.path.abspath(path), kind, game, progress,
                            steps=_steps(path, game, doc.get("steps")))
    if kind in PARAMS:
        return dataclasses.replace(_from_params(path, kind, game, progress, doc.get("params")),
                                   path=os.path.abspath(path))
    depth, target = doc.get("depth"), doc.get("target")
    if not _int(depth) or not 1 <= depth <= MAX_DEPTH:
        raise CampaignError(f"{path}: depth {json.dumps(depth)}; give the plies to refine, 1 to {MAX_DEPTH}")
    if target is not None and (not _int(target) or target < game.size):
        raise CampaignError(f"{path}: target {json.dumps(target)}; give a total of at least {game.size} (every "
                            "secret needs a guess), or null for the full bound")
    parts = _parts(path, game, doc.get("parts", []))
    return CampaignSpec(os.path.abspath(path), kind, game, progress, depth=depth, target=target, parts=parts)


PARAMS_KEYS = {"format", "version", "kind", "game", "params", "progress"}
STEPS_KEYS = {"format", "version", "kind", "game", "steps", "progress"}


def _from_params(path: str, kind: str, game: Game, progress: str, params: Any) -> CampaignSpec:
    """A check's, search's, scan's or atlas run's spec from its ``params``, each checked (what only its run can
    check, a check's parts or a search file's question, its kind checks before any work).

    :raises CampaignError: what is wrong, in the spec's words."""
    where = f"{path}: params"
    if not isinstance(params, dict):
        raise CampaignError(f"{where} {json.dumps(params)}; give an object with {', '.join(sorted(PARAMS[kind]))}")
    _same_keys(where, params, PARAMS[kind], f"the params of a {kind} spec")

    def whole(key: str, least: int, most: int | None, none: bool = False) -> int | None:
        value = params[key]
        if (value is None and none) or (_int(value) and least <= value and (most is None or value <= most)):
            return value
        bounds = f"of at least {least}" if most is None else f"from {least} to {most}"
        raise CampaignError(f"{where}: {key} {json.dumps(value)}; give a whole number {bounds}"
                            + (", or null" if none else ""))

    try:
        if kind == "atlas":
            games, budget = params["games"], params["budget_s"]
            if not isinstance(games, list) or not games or not all(isinstance(g, str) for g in games):
                raise CampaignError(f"{where}: games {json.dumps(games)}; give a list of games")
            if not isinstance(budget, int | float) or isinstance(budget, bool) or not budget > 0:
                raise CampaignError(f"{where}: budget_s {json.dumps(budget)}; give the seconds of each search")
            chosen = [Game.from_spec(g) for g in games]
            if chosen[0].spec != game.spec:
                raise CampaignError(f"{path}: game {game.spec}; an atlas spec's game is the first of its games "
                                    f"({chosen[0].spec})")
            return CampaignSpec.atlas(chosen, float(budget), progress)
        shares = int(whole("shares", 1, MAX_SHARES) or 1)
        if kind == "check":
            first, parts = params["first_guess"], params["parts"]
            if not isinstance(first, str):
                raise CampaignError(f"{where}: first_guess {json.dumps(first)}; give a code of {game.spec}")
            game.parse_code(first)
            if parts is not None and (not isinstance(parts, list) or not parts
                                      or not all(isinstance(p, str) for p in parts)):
                raise CampaignError(f"{where}: parts {json.dumps(parts)}; give the responses to solve ([\"0.1\", "
                                    "\"1.1\"]), or null for every part")
            return CampaignSpec.check(game, first, shares, parts, progress)
        history = params["history"]
        if not isinstance(history, list) or not all(isinstance(t, str) for t in history):
            raise CampaignError(f"{where}: history {json.dumps(history)}; give turns, e.g. [\"0123 1.2\"]")
        turns = [game.parse_turn(t) for t in history]
        game.candidates(turns)  # a history no secret answers so is refused (SolverError)
        if kind == "scan":
            limit = int(whole("max_guesses", len(turns) + 5, MAX_LIMIT) or 0)  # a scan is for five guesses left
            return CampaignSpec.scan(game, turns, limit, whole("tries", 1, None, none=True), shares, progress)
        return CampaignSpec.search(game, turns, _options(where, game, turns, params["options"]), shares, progress)
    except CampaignError:
        raise
    except (SolverError, TypeError, ValueError) as exc:
        raise CampaignError(f"{where}: {exc}") from None


def _same_keys(where: str, doc: dict[str, Any], keys: set[str], what: str) -> None:
    """Refuse an object of a spec that lacks one of ``keys`` or has another (``what`` names the keys it should have).

    :raises CampaignError: which are missing, which are unknown."""
    missing, unknown = sorted(keys - set(doc)), sorted(set(doc) - keys)
    if missing or unknown:
        raise CampaignError(f"{where}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(unknown)}"] if unknown
                                                                      else []))
                            + f" ({what} are {', '.join(sorted(keys))})")


MAX_LIMIT = MMAX - 1
"""The most guesses a spec may allow (the commands' ``--max-guesses``, the API's ``max_guesses``)."""
_WHOLE = ("max_guesses", "depth_count", "mde", "upper_bound")
"""A search spec's options that are whole numbers or null (the rest: its criterion and ``from_set_only``)."""


def _options(where: str, game: Game, turns: list[Turn], options: Any) -> dict[str, Any]:
    """A search spec's options (:data:`service.searches.QUESTION_OPTIONS`, each of its type), as the search takes
    them."""
    known = {"criterion", "from_set_only", *_WHOLE}
    if not isinstance(options, dict) or set(options) - known:
        extra = "" if not isinstance(options, dict) else f" (unknown: {', '.join(sorted(set(options) - known))})"
        raise CampaignError(f"{where}: options {json.dumps(options)}{extra}; give the search's options, of "
                            f"{', '.join(sorted(known))}")
    if "from_set_only" in options and not isinstance(options["from_set_only"], bool):
        raise CampaignError(f"{where}: options: from_set_only {json.dumps(options['from_set_only'])}; give true or "
                            "false")
    if options.get("depth_count") is not None:  # `solve --checkpoint` refuses it too
        raise CampaignError(f"{where}: options: depth_count {json.dumps(options['depth_count'])}; a search guess by "
                            "guess finds one k-movers count: give null")
    for key, least in (("max_guesses", len(turns) + 1), ("mde", 0), ("upper_bound", 0)):
        value = options.get(key)
        if value is not None and (not _int(value) or value < least):
            raise CampaignError(f"{where}: options: {key} {json.dumps(value)}; give a whole number of at least "
                                f"{least}, or null")
    SolveOptions(**options).validate(game, len(turns))  # an unknown criterion, k-movers with no limit...
    return dict(options)


def _parts(path: str, game: Game, parts: Any) -> tuple[int, ...]:
    return parse_parts(game, parts, f"{path}: parts")


def _rollout_plan(path: str, plan: Any, game: Game) -> dict[str, Any]:
    """A rollout spec's plan, checked: the one-step strategy, its whole numbers (``from_turn`` too: the commands
    that run rollouts default it differently, so a spec says it), and the rest as :class:`RolloutPlan` checks it.

    :raises CampaignError: what is wrong, in the spec's words."""
    if not isinstance(plan, dict):
        raise CampaignError(f"{path}: plan {json.dumps(plan)}; give the rollout's plan, an object with strategy, "
                            f"{', '.join(PLAN_INTS)} and optionally {', '.join(sorted(_OPTIONAL))}")
    if plan.get("strategy") not in ONE_STEP_STRATEGIES:
        raise CampaignError(f"{path}: plan: strategy {json.dumps(plan.get('strategy'))}; the one-step strategies "
                            f"are {', '.join(ONE_STEP_STRATEGIES)}")
    for key, least in PLAN_INTS.items():
        value = plan.get(key)
        if not _int(value) or value < least:
            raise CampaignError(f"{path}: plan: {key} {json.dumps(value)}; give a whole number of at least {least}")
    unknown = sorted(set(plan) - {"strategy", *PLAN_INTS, *_OPTIONAL})
    if unknown:
        raise CampaignError(f"{path}: plan: unknown key(s) {', '.join(unknown)}")
    if plan["from_turn"] > plan["levels"]:
        raise CampaignError(f"{path}: plan: from_turn {plan['from_turn']} is after levels {plan['levels']}: no guess "
                            "would be rolled out")
    try:
        checked = RolloutPlan(**plan)
        given_guesses(game, checked.play)  # a guess given where the game has no such position is refused now
        return checked.as_dict()
    except (TypeError, ValueError) as exc:
        raise CampaignError(f"{path}: plan: {exc}") from None


_OPTIONAL = {f.name for f in dataclasses.fields(RolloutPlan)} - {"strategy", *PLAN_INTS}


STEP_KINDS = ("hybrid", "rollout", "polish")
"""What a step of a ``steps`` campaign does to the best-known tree: build a hybrid tree (no job: minutes in the
command), roll one out (a rollout campaign's job), or polish the tree as it stands (a polish's job)."""
STEP_KEYS = {"hybrid": {"step", "strategy", "exact_at_most", "max_guesses"},
             "rollout": {"step", "plan", "units", "graft"},
             "polish": {"step", "above", "at_most", "budget_s", "max_guesses", "sweep", "parts"}}


@dataclass(frozen=True)
class Step:
    """One step of a ``steps`` campaign (:data:`STEP_KINDS`), as its spec gives it: the options of the command that
    would take it (``records rollout``, ``atlas polish``...), each named as in the spec.

    Why a step is its command's options and not a command line: the spec is checked before any work, key by key, and
    each step is run as the command would run it (:mod:`service.step_runs`), a rollout's or polish's work a job."""

    kind: str
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"step": self.kind, **self.params}

    def file(self, index: int) -> str:
        """The step's progress file's name in the campaign's folder (``02-polish.json`` for the second step)."""
        return f"{index + 1:02d}-{self.kind}.json"

    @property
    def rollout_plan(self) -> RolloutPlan:
        return RolloutPlan(**self.params["plan"])


def _steps(path: str, game: Game, steps: Any) -> tuple[Step, ...]:
    """A steps spec's steps, each checked in the spec's words.

    :raises CampaignError: no steps, or a step that is not one."""
    if not isinstance(steps, list) or not steps:
        raise CampaignError(f"{path}: steps {json.dumps(steps)[:80]}; give the steps in order, each an object with "
                            f"\"step\": one of {', '.join(STEP_KINDS)}")
    return tuple(_step(f"{path}: step {i + 1}", game, doc) for i, doc in enumerate(steps))


def _step(where: str, game: Game, doc: Any) -> Step:
    if not isinstance(doc, dict):
        raise CampaignError(f"{where}: {json.dumps(doc)[:60]}; give an object with \"step\": one of "
                            f"{', '.join(STEP_KINDS)}, and that step's keys")
    kind = doc.get("step")
    if kind not in STEP_KINDS:
        raise CampaignError(f"{where}: step {json.dumps(kind)}; each step is one of {', '.join(STEP_KINDS)}")
    assert isinstance(doc, dict)
    _same_keys(where, doc, STEP_KEYS[kind], f"a {kind} step's keys")

    def whole(key: str, least: int, none: bool = False) -> int | None:
        value = doc[key]
        if (value is None and none) or (_int(value) and value >= least):
            return value
        raise CampaignError(f"{where}: {key} {json.dumps(value)}; give a whole number of at least {least}"
                            + (", or null" if none else ""))

    def responses(key: str) -> list[str] | None:
        value = doc[key]
        if value is None or (isinstance(value, list) and value and all(isinstance(r, str) for r in value)):
            try:  # spelled as the commands spell them, so that a step's files and command say them alike
                named = None if value is None else [game.format_response(game.parse_response(r)) for r in value]
            except SolverError as exc:
                raise CampaignError(f"{where}: {key}: {exc}") from None
            if named is not None and len(set(named)) < len(named):
                raise CampaignError(f"{where}: {key} {json.dumps(value)}: a response named twice")
            return named
        raise CampaignError(f"{where}: {key} {json.dumps(value)}; give responses to the first guess ([\"0.2\", "
                            "\"1.1\"]), or null")

    if kind == "hybrid":
        if doc["strategy"] not in ONE_STEP_STRATEGIES:
            raise CampaignError(f"{where}: strategy {json.dumps(doc['strategy'])}; the one-step strategies are "
                                f"{', '.join(ONE_STEP_STRATEGIES)}")
        return Step(kind, {"strategy": doc["strategy"], "exact_at_most": whole("exact_at_most", 1),
                           "max_guesses": whole("max_guesses", 1, none=True)})
    if kind == "rollout":
        units = responses("units")
        if not isinstance(doc["graft"], bool):
            raise CampaignError(f"{where}: graft {json.dumps(doc['graft'])}; give true or false")
        if doc["graft"] and units is None:
            raise CampaignError(f"{where}: graft true with no units: name the units to build and put into the tree "
                                "as it stands, or give graft false to build the whole tree")
        if units is not None and not doc["graft"]:
            raise CampaignError(f"{where}: units without graft: the units a step builds are put into the tree as it "
                                "stands: give graft true, or units null to build the whole tree")
        return Step(kind, {"plan": _rollout_plan(where, doc["plan"], game), "units": units, "graft": doc["graft"]})
    above, at_most, budget = whole("above", 0), whole("at_most", 1), doc["budget_s"]
    assert above is not None and at_most is not None
    if at_most <= above:
        raise CampaignError(f"{where}: at_most {at_most} is not above the step's above ({above}): no position would "
                            "be searched")
    if not isinstance(budget, int | float) or isinstance(budget, bool) or budget < 0:
        raise CampaignError(f"{where}: budget_s {json.dumps(budget)}; give the seconds of search per position")
    return Step(kind, {"above": above, "at_most": at_most, "budget_s": float(budget),
                       "max_guesses": whole("max_guesses", 1, none=True), "sweep": whole("sweep", 2, none=True),
                       "parts": responses("parts")})
