"""Another strategy's game lengths set beside a tree, position by position.

Why: a published strategy is often given only as the number of guesses each secret takes.  That alone
still says, for any position both strategies reach, how many guesses the other spends there, and often
which guess it plays: the one secret it solves with that very guess, or else the codes whose split keeps
apart the secrets it solves with the next one (each next position has one next guess).  Walking down the
tree while both play the same guesses finds the positions where they part, and what each spends there:
where a search of ours has room to gain, and which guess to try (``records rollout --play``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver import kernels
from solver.game import Code, Game, Turn
from solver.position import Position
from solver.tree import Node, Tree, solved_depths

GUESS_BLOCK = 2048
"""Guesses whose responses are computed at once when the other's guess is inferred (memory: block x secrets)."""


@dataclass(frozen=True)
class Divergence:
    """A position both strategies reach with the same history, where they spend different numbers of guesses."""

    turns: tuple[Turn, ...]
    """The history from the start of the game."""
    secrets: int
    """How many secrets reach it."""
    ours: int
    """Guesses the tree spends on them, the earlier ones included."""
    theirs: int
    """Guesses the other strategy spends on them."""
    our_guess: Code
    """What the tree plays here."""
    their_guesses: tuple[Code, ...]
    """The guesses the other's lengths allow here (one when they settle it, none when they contradict it)."""
    same_guess: bool
    """Whether the other plays our guess here too (then the difference lies below, deeper than the walk went)."""


def read_steps(game: Game, lines: Iterable[str]) -> npt.NDArray[np.int32]:
    """Parse ``CODE LENGTH`` lines (one per secret of ``game``, any order; blank lines and ``#`` comments
    skipped) into an array of lengths indexed by code.

    :raises ValueError: a malformed line, an unknown or repeated code, a length below 1, or a missing secret;
        the message gives the line number.
    """
    steps = np.zeros(game.size, dtype=np.int32)
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"line {number}: expected 'CODE LENGTH', got {raw.strip()!r}")
        try:
            code = game.parse_code(fields[0])
        except Exception as exc:  # the game's own parse error, whatever its type
            raise ValueError(f"line {number}: {exc}") from None
        try:
            length = int(fields[1])
        except ValueError:
            raise ValueError(f"line {number}: the length {fields[1]!r} is not a whole number") from None
        if length < 1:
            raise ValueError(f"line {number}: a game takes at least one guess, not {length}")
        if steps[code]:
            raise ValueError(f"line {number}: {fields[0]} is given twice")
        steps[code] = length
    missing = np.flatnonzero(steps == 0)
    if missing.size:
        shown = ", ".join(game.format_codes(missing[:5].tolist()))
        raise ValueError(f"{missing.size} secrets of {game.spec} have no length (first: {shown})")
    return steps


def lengths_lines(tree: Tree, strategy: str | None = None) -> Iterator[str]:
    """The tree as ``CODE LENGTH`` lines, the form :func:`read_steps` reads: ``#`` lines saying what it is (game,
    strategy, total, average, worst case), then one line per secret the tree plays, by code, with the guesses it
    takes, the last one and any history before the tree included.  Each line ends with a newline.

    Why this form: it is how published strategies are given (and compared: ``records compare --steps``), it takes
    a few bytes a secret where the nested tree takes hundreds, and anyone can check it with a scorer alone.
    ``strategy`` names the tree when its own name is not the one its reader asked for (a shipped tree)."""
    game = tree.game
    stats = tree.stats()
    named = "" if game.name == game.spec else f" ({game.name})"
    yield f"# game {game.spec}{named}: {game.size} codes\n"
    yield f"# strategy {strategy or tree.strategy or 'unnamed'}, first guess {stats.first_guess}\n"
    if tree.history:
        yield f"# after {history_text(game, tree.history)}\n"
    yield (f"# total {stats.total}, secrets {stats.secrets}, average {stats.average:.4f}, "
           f"worst case {stats.worst_case}\n")
    yield "# CODE LENGTH: the guesses the strategy takes to find the secret CODE, the last one included\n"
    depths = solved_depths(tree)
    played = np.flatnonzero(depths)
    alphabet = np.array(list(game.alphabet[: game.symbols]))
    texts = alphabet[game.arrays().codes[played]]  # one row of characters per secret: written in one pass
    for row, length in zip(texts.tolist(), depths[played].tolist(), strict=True):
        yield f"{''.join(row)} {length}\n"


def write_steps(tree: Tree, path: str, strategy: str | None = None) -> None:
    """Write :func:`lengths_lines` of ``tree`` to the file ``path``."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(lengths_lines(tree, strategy))


def _responses(game: Game, guesses: npt.NDArray[np.int32], secrets: npt.NDArray[np.int32]
               ) -> npt.NDArray[np.uint8]:
    """Response of every guess (rows) to every secret (columns)."""
    arrays = game.arrays()
    out = np.empty((guesses.size, secrets.size), dtype=np.uint8)
    row = np.empty(secrets.size, dtype=np.uint8)
    for i, guess in enumerate(guesses.tolist()):
        kernels.response_row(*arrays.kernel_args(), guess, secrets, row)
        out[i] = row
    return out


def _splits_apart(game: Game, guess: int, secrets: npt.NDArray[np.int32], steps: npt.NDArray[np.int32],
                  after: int) -> bool:
    """Whether ``guess``, played as guess number ``after``, leaves the secrets solved at ``after + 1`` in
    different parts and every lone secret solved at ``after + 1`` (what any strategy's lengths must show)."""
    resp = _responses(game, np.array([guess], dtype=np.int32), secrets)[0]
    nxt = resp[steps[secrets] == after + 1]
    if np.unique(nxt).size != nxt.size:
        return False
    sizes = np.bincount(resp, minlength=game.n_responses)
    for r in np.flatnonzero(sizes == 1).tolist():
        lone = int(secrets[resp == r][0])
        if lone != guess and steps[lone] != after + 1:
            return False
    return True


def their_guesses(game: Game, secrets: npt.NDArray[np.int32], steps: npt.NDArray[np.int32], number: int,
                  limit: int = 64) -> tuple[Code, ...]:
    """The guesses that a strategy with lengths ``steps`` can play as guess ``number`` at the position of
    ``secrets`` (all of them reach it): the secret it solves with that guess, when one does; otherwise every
    other code that splits the secrets as its lengths require, one guess deeper where that guess is known.
    At most ``limit`` are returned (the lowest codes first)."""
    hits = secrets[steps[secrets] == number]
    if hits.size == 1:
        return (int(hits[0]),)
    if hits.size > 1 or np.any(steps[secrets] < number):
        return ()  # one guess solves one secret: these lengths cannot come from one position
    nxt = np.flatnonzero(steps[secrets] == number + 1)
    inside = np.zeros(game.size, dtype=bool)
    inside[secrets] = True
    found: list[int] = []
    for start in range(0, game.size, GUESS_BLOCK):
        block = np.arange(start, min(start + GUESS_BLOCK, game.size), dtype=np.int32)
        block = block[~inside[block]]  # a candidate would have solved itself at ``number``
        if block.size == 0:
            continue
        resp = _responses(game, block, secrets)
        ok = np.ones(block.size, dtype=bool)
        if nxt.size > 1:
            ordered = np.sort(resp[:, nxt], axis=1)
            ok &= ~np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
        for r in range(game.n_responses):
            is_r = resp == r
            lone = is_r.sum(axis=1) == 1
            if not lone.any():
                continue
            which = secrets[np.argmax(is_r, axis=1)]
            ok &= ~(lone & (steps[which] != number + 1))
        for guess in block[ok].tolist():
            if _deeper_ok(game, int(guess), secrets, steps, number):
                found.append(int(guess))
                if len(found) >= limit:
                    return tuple(found)
    return tuple(found)


def _deeper_ok(game: Game, guess: int, secrets: npt.NDArray[np.int32], steps: npt.NDArray[np.int32],
               number: int) -> bool:
    """One guess deeper: in each part of ``guess`` whose next guess is known (the part's one secret solved
    at ``number + 1``), that guess must split the part as the lengths require."""
    for _, part in game.arrays().parts(guess, secrets, game.n_responses):
        if part.size < 2:
            continue
        known = part[steps[part] == number + 1]
        if known.size == 1 and not _splits_apart(game, int(known[0]), part, steps, number + 1):
            return False
    return True


def compare(tree: Tree, steps: npt.NDArray[np.int32], *, depth: int, limit: int = 64) -> list[Divergence]:
    """The positions where ``tree`` and a strategy with lengths ``steps`` part, found by walking down from the
    root through the positions where both play the same guess, at most ``depth`` guesses deep, and into a
    response only when the two spend different numbers of guesses below it.  Positions the walk stops at for
    depth are reported too (``same_guess``).  Biggest differences first."""
    game = tree.game
    ours = solved_depths(tree)
    start = np.asarray(game.candidates(tree.history), dtype=np.int32)
    found: list[Divergence] = []

    def walk(node: Node, turns: tuple[Turn, ...], secrets: npt.NDArray[np.int32]) -> None:
        mine, other = int(ours[secrets].sum()), int(steps[secrets].sum())
        if mine == other:
            return
        number = Position(game, turns, secrets).turn
        theirs = their_guesses(game, secrets, steps, number, limit)
        same = theirs == (node.guess,)
        if not same or len(turns) - len(tree.history) >= depth - 1 or not node.children:
            found.append(Divergence(turns, int(secrets.size), mine, other, node.guess, theirs, same))
            return
        for r, part in game.arrays().parts(node.guess, secrets, game.n_responses):
            if r in node.children:  # the winning response has no subtree
                walk(node.children[r], (*turns, Turn(node.guess, r)), part)

    walk(tree.root, tuple(tree.history), start)
    return sorted(found, key=lambda d: (d.theirs - d.ours, [(t.guess, t.response) for t in d.turns]))


def history_text(game: Game, turns: Sequence[Turn]) -> str:
    """``01234 0.2, 53467 0.3``: the form ``--play`` and ``--search`` take."""
    return ", ".join(game.format_turn(t) for t in turns)
