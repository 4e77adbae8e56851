"""A position of a game: where it stands after a history, as one immutable value.

Every question the product answers is asked of a position, and the same few facts about it were computed
from loose pieces wherever one was needed: the turn (``len(history) + 1``), the guesses left
(:func:`solver.vocabulary.remaining_guesses`), the parts a guess splits the candidates into
(:func:`solver.kernels.split`), and the canonical labelling the table keys it by
(:func:`solver.symmetry.canonical_history`, the candidates mapped by the same symmetry).  :class:`Position`
carries the game, the history and the candidates together and computes each of those one way; a
:class:`Labelling` is a position seen at another labelling, with the symmetry that carries the caller's labels
there and back.

Built on the existing functions (the symmetry module stays the one place symmetries are computed); no search,
no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.codes import GameArrays
from solver.game import CandidateSet, Code, Game, History, Response, Turn
from solver.symmetry import Relabelling, canonical_history
from solver.vocabulary import remaining_guesses


@dataclass(frozen=True, eq=False)
class Position:
    """The position after ``history``: its game, its turns and the candidates they leave.

    Immutable by contract: the candidate array is the caller's (not copied, not frozen: a read-only array
    would make the numba kernels compile a second signature), and nothing here writes to it.  Two positions
    are equal when their games, histories and candidate sets are.
    """

    game: Game
    history: tuple[Turn, ...]
    """The turns played, in the order they were played."""
    cands: CandidateSet
    """The codes still consistent with every turn, ascending."""

    @classmethod
    def of(cls, game: Game, history: History = (), cands: CandidateSet | None = None) -> Position:
        """The position after ``history``; ``cands`` its candidates when the caller has them (else filtered
        here, which checks the history: :meth:`solver.game.Game.candidates`)."""
        return cls(game, tuple(history), game.candidates(history) if cands is None else cands)

    @property
    def turn(self) -> int:
        """The number of the next guess (1 at the start of a game)."""
        return len(self.history) + 1

    @property
    def size(self) -> int:
        """How many candidates are left."""
        return int(self.cands.shape[0])

    @property
    def won(self) -> bool:
        """Whether the history already ends in the winning response (a finished game)."""
        return self.game.won(self.history)

    def remaining(self, max_guesses: int | None) -> int:
        """Guesses still allowed from here under a limit of ``max_guesses`` (this turn's included;
        :data:`solver.table.MMAX` for no limit)."""
        return remaining_guesses(max_guesses, self.turn)

    def after(self, guess: Code, response: Response, cands: CandidateSet) -> Position:
        """The position one turn later, whose candidates the caller already has (a part of a split)."""
        return Position(self.game, (*self.history, Turn(guess, response)), cands)

    def children(self, guess: Code, arrays: GameArrays | None = None) -> dict[Response, Position]:
        """The position after ``guess`` for every response some candidate gives, by ascending response.

        The children's candidates partition this position's, each part ascending (the winning response's part,
        when ``guess`` is a candidate, is a finished game of one candidate).  ``arrays`` are the kernels' arrays
        to split with (a searcher's, with its response table); by default the game's, with the table when it
        fits the game's budget.
        """
        from solver import kernels

        a = self.game.arrays(table=True) if arrays is None else arrays
        order, starts = kernels.split(*a.kernel_args(), guess, self.cands, self.game.n_responses)
        return {r: self.after(guess, r, order[int(starts[r]):int(starts[r + 1])])
                for r in range(self.game.n_responses) if starts[r + 1] > starts[r]}

    def relabelled(self, relabel: Relabelling) -> Position:
        """The image of this position under a symmetry: the same position in other labels, of the same value."""
        return Position(self.game, tuple(relabel.apply_turns(self.game, self.history)),
                        relabel.apply_set(self.game, self.cands))

    def canonical(self, *, keep_order: bool = False) -> Labelling:
        """The position at the canonical representative of its orbit (the table reads and writes positions
        there, so that one proof serves every relabelling), with the symmetry that carries this position onto
        it.  ``keep_order`` keeps the turns in their order (:func:`solver.symmetry.canonical_history`)."""
        image, relabel = canonical_history(self.game, self.history, keep_order=keep_order)
        # the caller's candidates mapped, never the image filtered again (Relabelling.apply_set says why)
        return Labelling(Position(self.game, tuple(image), relabel.apply_set(self.game, self.cands)), relabel)

    def as_is(self) -> Labelling:
        """This position at its own labelling (the identity symmetry)."""
        return Labelling(self, Relabelling.identity(self.game))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.game == other.game and self.history == other.history
                and np.array_equal(self.cands, other.cands))

    def __hash__(self) -> int:
        # by value, whatever the array's integer type, as __eq__ compares
        return hash((self.game, self.history, np.asarray(self.cands, dtype=np.int64).tobytes()))


@dataclass(frozen=True)
class Labelling:
    """A position at one labelling, and the symmetry ``relabel`` that carries the caller's position there.

    An answer found at ``position`` is an answer of the caller's position once its guesses are carried back
    (:meth:`invert`); a guess the caller names is carried there with :meth:`apply`.
    """

    position: Position
    relabel: Relabelling

    def apply(self, guess: Code) -> Code:
        """The caller's ``guess`` in this labelling."""
        return self.relabel.apply(self.position.game, guess)

    def invert(self, guess: Code) -> Code:
        """A guess of this labelling in the caller's labels."""
        return self.relabel.invert(self.position.game, guess)

