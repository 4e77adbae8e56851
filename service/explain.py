"""Why this guess: how a guess splits the candidates of a position, and what it is worth against the best.

A player (or a bot, or the page) who wonders about a guess wants two things: how it splits the secrets still
possible (one part per response, the sizes that one-step strategies score), and, when it can be known, whether it
loses anything against optimal play.  The split is always computed (one kernel call).  The values come from the
answer chain (:class:`service.answers.AnswerChain`) exactly as ``POST /v1/solve`` gives them, every guess of the
game counted, the history's included: the position's optimal value from what is known (a proven tree, the shipped
knowledge, the table) or from a search within the request's budget, and the guess's own value from the same
search with the guess forced.  Never a job: an explanation is an answer to a person waiting for it, so a value
that the budget or the game's size puts out of reach is left out, and the ``note`` says why in plain words.

Shared by ``POST /v1/explain`` and ``bullscows partition``; what it must not do is parse HTTP or print.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.answers import Answer, AnswerChain
from solver.bounds import searchable
from solver.errors import SolverError
from solver.game import CandidateSet, Code, Game, Response, Turn
from solver.heuristics import partition
from solver.position import Position
from solver.search import SolveOptions
from solver.vocabulary import Criterion, average_of


class GameFinishedError(SolverError):
    """A question about the next guess after a history that ends in the winning response: there is none."""

    slug = "game-finished"


@dataclass(frozen=True)
class PositionValue:
    """The optimal value of the position (``POST /v1/solve``'s ``value``) and a guess that reaches it."""

    value: int | None
    """None when no strategy solves every secret within the depth limit (the position is impossible)."""
    best_guess: Code | None
    average: float | None
    """Totals only: the value over the candidates, guesses per secret in the whole game."""


@dataclass(frozen=True)
class GuessValue:
    """The guess's own value: the best play after it, the guess itself and the history counted."""

    value: int | None
    """None when no strategy after this guess solves every secret within the depth limit."""
    average: float | None
    is_best: bool | None
    """Whether the guess is optimal here (other guesses may tie with it); None when the optimum is not known."""
    source: str
    """The answer chain's step that gave it."""


@dataclass(frozen=True)
class Optimal:
    """What optimal play knows of the position and the guess: each value, or None and a ``note`` saying why."""

    criterion: Criterion
    max_guesses: int | None
    position: PositionValue | None
    guess: GuessValue | None
    source: str | None
    """The answer chain's step that gave the position's value (None when it is not known)."""
    note: str | None


@dataclass(frozen=True)
class Explanation:
    """How ``guess`` splits the candidates of a position, and its value next to the optimum."""

    game: Game
    history: tuple[Turn, ...]
    guess: Code
    candidates: int
    is_candidate: bool
    parts: tuple[tuple[Response, int], ...]
    """(response, candidates giving it), the largest part first, ties by response."""
    optimal: Optimal

    @property
    def largest(self) -> int:
        return self.parts[0][1]

    @property
    def expected_size(self) -> float:
        """The size of the part the secret falls in, on average over the secrets: Σ nᵢ² / N."""
        return sum(n * n for _, n in self.parts) / self.candidates

    @property
    def entropy_bits(self) -> float:
        """What the response tells on average, in bits: Σ (nᵢ/N) log₂(N/nᵢ)."""
        total = self.candidates
        return sum(n / total * math.log2(total / n) for _, n in self.parts)

    def as_dict(self) -> dict[str, Any]:
        """The answer of ``POST /v1/explain`` and ``bullscows partition --json``."""
        g = self.game
        opt = self.optimal
        pos, val = opt.position, opt.guess
        return {
            "game": g.name,
            "family": g.family,
            "guess": g.format_code(self.guess),
            "guess_number": len(self.history) + 1,
            "candidates": self.candidates,
            "is_candidate": self.is_candidate,
            "parts": [{"response": g.format_response(r), "bulls": g.bulls_cows(r)[0], "cows": g.bulls_cows(r)[1],
                       "words": g.response_words(r), "candidates": n} for r, n in self.parts],
            "part_count": len(self.parts),
            "largest": self.largest,
            "expected_size": round(self.expected_size, 6),
            "entropy_bits": round(self.entropy_bits, 6),
            "optimal": {
                "criterion": opt.criterion,
                "max_guesses": opt.max_guesses,
                "position": None if pos is None else {
                    "value": pos.value, "average": pos.average,
                    "best_guess": None if pos.best_guess is None else g.format_code(pos.best_guess)},
                "guess": None if val is None else {
                    "value": val.value, "average": val.average, "is_best": val.is_best,
                    "source": val.source},
                "source": opt.source,
                "note": opt.note,
            },
        }


def explain(chain: AnswerChain, game: Game, history: Sequence[Turn], cands: CandidateSet, guess: Code,
            options: SolveOptions, budget_ms: int) -> Explanation:
    """The split of ``cands`` (the candidates after ``history``) by ``guess``, and the values of the position and
    of the guess under ``options`` when the chain can know them within ``budget_ms`` of wall-clock time.

    :raises GameFinishedError: the history ends in the winning response.
    :raises SolverError: ``options`` do not fit the position (a depth limit already used up).
    """
    if game.won(history):
        raise GameFinishedError(f"the game was won at guess {len(history)}: there is no next guess to explain "
                                "(the secret is the last guess)")
    options.validate(game, Position(game, tuple(history), cands).turn)
    sizes = partition(game, guess, cands)
    parts = tuple(sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])))
    n = int(cands.shape[0])
    is_candidate = game.all_bulls in sizes
    return Explanation(game, tuple(history), guess, n, is_candidate, parts,
                       _optimal(chain, game, history, cands, guess, options, budget_ms))


def _average(options: SolveOptions, value: int | None, n: int) -> float | None:
    return average_of(value, n) if options.criterion == Criterion.TOTAL and value is not None else None


def _cut(answer: Answer, budget_ms: int) -> str:
    """Why a search gave no value, for people."""
    if answer.source != "busy":
        return f"the search did not end within the time budget ({budget_ms} ms)"
    return f"the search could not start: {answer.why or 'every search of this service was busy'}"


def _optimal(chain: AnswerChain, game: Game, history: Sequence[Turn], cands: CandidateSet, guess: Code,
             options: SolveOptions, budget_ms: int) -> Optimal:
    """The position's value from what is known, else a search with half the budget; then the guess's value: the
    position's own when the guess is the best one known, else a search of the guess with what is left."""
    t0 = time.monotonic()
    n = int(cands.shape[0])
    crit, k = options.criterion, options.max_guesses

    def left_ms() -> int:
        return max(1, int(budget_ms - (time.monotonic() - t0) * 1000))

    def none(note: str, position: PositionValue | None = None, source: str | None = None) -> Optimal:
        return Optimal(crit, k, position, None, source, note)

    answer = chain.known(game, history, cands, options)
    if answer is None and not searchable(game):
        return none(f"{game.name} has {game.size} codes, more than the {game.search_max_codes} this service searches "
                    "exactly, and no proven result holds this position: optimal play from here is not known")
    if answer is None:
        answer = chain.solve(game, history, cands, options, max(1, left_ms() // 2), lookup=False)
        if not answer.complete:
            return none("optimal play from here is not known: " + _cut(answer, budget_ms))
    result = answer.result
    position = PositionValue(result.value, result.best_guess, _average(options, result.value, n))
    if result.value is None:
        return none(f"no strategy solves every secret within {k} guesses from here", position, answer.source)
    if result.best_guess == guess:
        return Optimal(crit, k, position, GuessValue(result.value, position.average, True, answer.source),
                       answer.source, None)
    if not searchable(game):
        return none(f"this guess's value is not known: {game.name} has {game.size} codes, more than the "
                    f"{game.search_max_codes} this service searches exactly", position, answer.source)
    forced = chain.solve(game, history, cands, options, left_ms(), guess)
    if not forced.complete:
        return none("this guess's value is not known: " + _cut(forced, budget_ms), position, answer.source)
    value = forced.result.value
    best = value is not None and value == result.value
    note = None if value is not None else f"after this guess no strategy solves every secret within {k} guesses"
    return Optimal(crit, k, position, GuessValue(value, _average(options, value, n), best, forced.source),
                   answer.source, note)
