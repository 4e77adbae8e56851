"""The question and the answer of a search: what to compute about a position, and what was found.

Shared by the searcher (:mod:`solver.search`), the jobs that split a search into units, and the answer
chain of the service.  No computation here beyond validating the question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solver import ttlayout as tl
from solver.errors import SolverError
from solver.game import Code, Game, History
from solver.table import MMAX, TableKey
from solver.vocabulary import CRITERION_NAMES, Criterion

INF: int = int(tl.INF)
"""The kernel's "no strategy fits" value (:data:`solver.ttkernels.INF`) as a Python int: the one every Python-side
module (search, sweep, lower bounds, the service) imports, from here or through :mod:`solver.search`."""


class SearchTooDeepError(SolverError):
    """A search needed more plies than its workspace holds (only conceivable in very big games)."""

    slug = "search-too-deep"


class InvalidSearchError(SolverError):
    """Search parameters that do not make sense together (e.g. k-movers without a limit)."""

    slug = "invalid-search-parameters"


@dataclass(frozen=True)
class SolveOptions:
    """What to compute about a position."""

    criterion: Criterion = Criterion.TOTAL
    """``total`` or ``kmovers`` (a name given as a string is parsed into its member)."""
    max_guesses: int | None = None
    """Depth limit of the whole game (required for kmovers: it is the k)."""
    depth_count: int | None = None
    """Kmovers only: continue the chain Φ_k, Φ_{k-1}, ... while counts are 0, down to this k."""
    mde: int | None = None
    """Last turn searched exactly; later turns follow the hybrid rule (None = exact)."""
    from_set_only: bool = False
    """Try only candidates (on hybrid turns when ``mde`` is set, else on every turn)."""
    upper_bound: int | None = None
    """Prune everything at or above this value (the article's β); results reaching it are bounds."""
    node_limit: int = 0
    """Abort after this many nodes (0 = no limit); the result is then not exact."""

    def __post_init__(self) -> None:
        """Hold a criterion given by its name as its member.  An unknown name is kept as given: the question is
        a value, built before it is checked, and :meth:`validate` reports it as an invalid search."""
        if not isinstance(self.criterion, Criterion) and self.criterion in CRITERION_NAMES:
            object.__setattr__(self, "criterion", Criterion(self.criterion))

    def validate(self, game: Game, turn: int) -> None:
        """:raises InvalidSearchError: inconsistent parameters."""
        if not isinstance(self.criterion, Criterion):
            raise InvalidSearchError(
                f"unknown criterion {self.criterion!r}; use one of {', '.join(CRITERION_NAMES)}"
            )
        if self.criterion == Criterion.KMOVERS and self.max_guesses is None:
            raise InvalidSearchError("the kmovers criterion needs max_guesses (the k of k-movers)")
        if self.max_guesses is not None and not 1 <= self.max_guesses < MMAX:
            raise InvalidSearchError(f"max_guesses must be between 1 and {MMAX - 1}, got {self.max_guesses}")
        if self.max_guesses is not None and self.max_guesses < turn:
            raise InvalidSearchError(
                f"max_guesses {self.max_guesses} is already used up: the next guess is number {turn}"
            )
        if self.depth_count is not None:
            if self.criterion != Criterion.KMOVERS:
                raise InvalidSearchError("depth_count applies to the kmovers criterion only")
            assert self.max_guesses is not None
            if not turn <= self.depth_count <= self.max_guesses:
                raise InvalidSearchError(
                    f"depth_count must be between the next guess number ({turn}) and max_guesses "
                    f"({self.max_guesses}), got {self.depth_count}"
                )
        if self.mde is not None and self.mde < 0:
            raise InvalidSearchError(f"mde must be a non-negative turn number, got {self.mde}")
        if self.upper_bound is not None and self.upper_bound < 0:
            raise InvalidSearchError(f"upper_bound must be non-negative, got {self.upper_bound}")
        if self.node_limit < 0:
            raise InvalidSearchError(f"node_limit must be non-negative, got {self.node_limit}")

    def table_key(self, game: Game, max_guesses: int | None = None) -> TableKey:
        """The transposition-table key of this question (with an explicit k for the chain)."""
        return TableKey(
            game=game.spec,
            criterion=self.criterion,
            max_guesses=self.max_guesses if max_guesses is None else max_guesses,
            mde=self.mde,
            heuristic=self.mde is not None and not self.from_set_only,
            from_set_only=self.from_set_only,
        )


@dataclass(frozen=True)
class SolveResult:
    """The value of a position, its best guess and the value after each response to it."""

    value: int | None
    """Game-level value (total guesses, or number of k-movers); None when no strategy fits."""
    possible: bool
    """False when no strategy solves every secret within ``max_guesses``."""
    exact: bool
    """False when ``value`` is only a lower bound (upper bound reached, or the search was cut)."""
    best_guess: Code | None
    """An optimal next guess (None when impossible or only bounded)."""
    per_response: dict[int, int | None]
    """Value of each response's sub-position after ``best_guess`` (winning response included)."""
    nodes: int
    """Search nodes visited."""
    seconds: float
    """Wall-clock time."""
    candidates: int
    """Codes still possible before the guess."""
    movers: int | None = None
    """Kmovers: which k the value counts (differs from max_guesses after a depth_count chain)."""
    chain: dict[int, int | None] = field(default_factory=dict)
    """Kmovers: Φ_k for each k of the chain."""
    stats: dict[str, int] = field(default_factory=dict)
    """Kernel counters: table hits, stores, fast estimates."""
    cut: bool = False
    """The call stopped before its end (a wall-clock budget, a node limit or a stop request): the
    value is then not exact."""

    def as_dict(self, game: Game) -> dict[str, Any]:
        """JSON-friendly form with codes and responses written out."""
        return {
            "value": self.value,
            "possible": self.possible,
            "exact": self.exact,
            "best_guess": None if self.best_guess is None else game.format_code(self.best_guess),
            "per_response": {game.format_response(r): v for r, v in sorted(self.per_response.items())},
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "candidates": self.candidates,
            "movers": self.movers,
            "chain": {str(k): v for k, v in self.chain.items()},
        }


def no_next_guess(history: History) -> InvalidSearchError:
    """The error of a guess to evaluate after a finished game (``history`` ends in the winning response)."""
    return InvalidSearchError(f"the game was won at guess {len(history)}: there is no next guess to evaluate")


def finished_result(game: Game, history: History, options: SolveOptions) -> SolveResult:
    """The value of a finished game (``history`` ends in the winning response), without a search.

    Its one secret was found at guess ``t = len(history)``: the game-level total is ``t`` (the convention counts
    the history's guesses), the k-movers count is 1 when ``t`` is the k-th guess and 0 before it.  There is no
    next guess and no response to break down, so ``best_guess`` is None and ``per_response`` empty.  The other
    parameters keep their meaning: a ``depth_count`` chain goes down while the counts are 0, and a value at or
    above ``upper_bound`` is reported as that bound, not exact, as the search reports it.

    :raises InvalidSearchError: parameters that make no sense, or a ``max_guesses`` the game already passed.
    """
    t = len(history)
    assert game.won(history)
    if options.max_guesses is not None and 1 <= options.max_guesses < t:
        raise InvalidSearchError(
            f"max_guesses {options.max_guesses} is already used up: the game was won at guess {t}"
        )
    # the won turn is the last one the game played: parameters are checked as at that guess
    options.validate(game, t)
    chain: dict[int, int | None] = {}
    movers: int | None = None
    if options.criterion == Criterion.TOTAL:
        value = t
    else:
        assert options.max_guesses is not None
        low = options.max_guesses if options.depth_count is None else options.depth_count
        value = 0
        for k in range(options.max_guesses, low - 1, -1):
            movers, value = k, int(k == t)
            chain[k] = value
            if value:
                break
    exact = options.upper_bound is None or value < options.upper_bound
    return SolveResult(value=value if exact else options.upper_bound, possible=True, exact=exact, best_guess=None,
                       per_response={}, nodes=0, seconds=0.0, candidates=1, movers=movers, chain=chain)
