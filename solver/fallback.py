"""Standing in for an optimal answer: the criterion's one-step heuristic, and the notes that tell people
why an answer is not the strategy's own (a game too large to search, a budget that ran out).
"""

from __future__ import annotations

from solver.game import CandidateSet, Code, Game, History
from solver.heuristics import get_strategy
from solver.vocabulary import Criterion


def fallback_move(game: Game, cands: CandidateSet, history: History, criterion: Criterion,
                  why: str | None = None, budget_s: float | None = None,
                  work_s: float | None = None) -> tuple[Code, str]:
    """(guess, note) of the criterion's heuristic, standing in for an optimal answer; ``why`` says
    what the exact answer lacked (default: the game cannot be searched).  ``budget_s`` and ``work_s`` bound the
    heuristic's scan too (see :meth:`solver.heuristics.Strategy.choose`)."""
    name = Criterion(criterion).fallback
    if why is None:
        why = (f"exact search takes games of at most {game.search_max_codes} codes here (its response table grows "
               f"with the square), and this one has {game.size}")
    choice = get_strategy(name).choose(game, cands, history=history, budget_s=budget_s, work_s=work_s)
    return choice.guess, f"{why}; this is the {name} heuristic's guess{cut_note(choice.cut, budget_s)}"


def cut_note(cut: tuple[int, int] | None, budget_s: float | None) -> str:
    """How a one-step answer was cut by its budget, for people ('' when it was not)."""
    if cut is None:
        return ""
    return (f" (its scan stopped within the {round((budget_s or 0) * 1000)} ms budget after scoring {cut[0]} of "
            f"{cut[1]} guesses: the best of those)")


def step_note(strategy: str, cut: tuple[int, int] | None, budget_s: float | None) -> str | None:
    """The note of a one-step strategy's answer: why it is not the strategy's own (None when it is)."""
    return None if cut is None else f"the {strategy} strategy's answer is not complete:{cut_note(cut, budget_s)}"
