"""What a search can know before it searches: admissible lower bounds of any set, and whether a game
can be searched at all (its response table fits the budget).  No search here.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from solver import ttlayout as tl
from solver.codes import GameArrays
from solver.errors import SolverError
from solver.game import Game
from solver.question import InvalidSearchError
from solver.table import MMAX
from solver.vocabulary import CRITERIA, Criterion


def valid_responses(game: Game) -> list[int]:
    """The encodings of every response a guess can receive, the winning one included, ascending."""
    out = []
    for b in range(game.positions + 1):
        for c in range(game.positions + 1 - b):
            try:
                out.append(game.encode_response(b, c))
            except SolverError:
                continue
    return sorted(out)


def valid_response_count(game: Game) -> int:
    """How many distinct responses a guess can receive, the winning one included."""
    return len(valid_responses(game))


def lower_bound_tables(game: Game, size: int) -> npt.NDArray[np.int64]:
    """``lb[kind, criterion, m, s]``: admissible lower bounds for a set of ``s`` codes, ``m`` guesses
    left (this one included).

    A guess solves at most one secret and has at most ``b`` non-winning answers, so the j-th guess
    from here solves at most b^(j-1) secrets — and none at j = 1 when the first guess is not a
    candidate.  Kind 0 bounds any strategy, kind 1 those starting with a non-candidate.  Totals fill
    the levels greedily (Σ j·count); k-movers count what cannot fit before the last level.  INF
    where even a perfect tree cannot finish in ``m`` guesses.

    The tables depend only on the game's response count and ``size``; they are made once per pair and shared,
    read-only (every search and every refined bound of a sweep asks for them).
    """
    return _tables(max(valid_response_count(game) - 1, 1), size)


@functools.lru_cache(maxsize=16)
def _tables(b: int, size: int) -> npt.NDArray[np.int64]:
    out = np.full((2, len(CRITERIA), MMAX + 1, size + 1), tl.INF, dtype=np.int64)
    s = np.arange(size + 1, dtype=np.int64)
    for kind in (0, 1):
        level = [0] * (MMAX + 1)  # level[j]: most secrets the j-th guess from here can solve
        cum = [0] * (MMAX + 1)  # cum[m]: most secrets m guesses can solve
        for j in range(1, MMAX + 1):
            # only the first level differs: a non-candidate solves nothing with this guess
            level[j] = (1 - kind) if j == 1 else min(b ** (j - 1), size + 1)
            cum[j] = min(cum[j - 1] + level[j], size + 1)
        for m in range(0, MMAX + 1):
            feasible = s <= cum[m]
            remaining = s.copy()
            cost = np.zeros(size + 1, dtype=np.int64)
            for j in range(1, m + 1):
                take = np.minimum(remaining, level[j])
                cost += take * j
                remaining -= take
                if not remaining.any():
                    break
            out[kind, Criterion.TOTAL.code, m] = np.where(feasible, cost, tl.INF)
            before = cum[m - 1] if m >= 1 else 0
            out[kind, Criterion.KMOVERS.code, m] = np.where(feasible, np.maximum(s - before, 0), tl.INF)
    out.flags.writeable = False
    return out


def branching_tables(game: Game, size: int) -> npt.NDArray[np.int64]:
    """``lb[kind, b, s]``: the totals' size-only bound (no depth limit) of a set of ``s`` codes below which no
    guess has more than ``b`` non-winning parts (kinds as in :func:`lower_bound_tables`; row ``b`` for the
    game's own response count is its bound).

    Why: a guess splits a subset of a set ``S`` into no more parts than it splits ``S`` itself, so the most
    non-winning parts any code makes of ``S`` bounds the branching of every strategy below ``S``.  Deep in the
    permutation games that is far below the response count (a set of 47 codes of 6×7 after three guesses: 6
    instead of 26), and the counting bound with the set's own branching is far higher (137 guesses instead of
    113 for those 47 codes; their optimum is 160).
    """
    b = max(valid_response_count(game) - 1, 1)
    return _branching(b, size)


@functools.lru_cache(maxsize=8)
def _branching(b_max: int, size: int) -> npt.NDArray[np.int64]:
    out = np.full((2, b_max + 1, size + 1), tl.INF, dtype=np.int64)
    for b in range(1, b_max + 1):
        # not through its cache: 26 tables it needs no more
        out[:, b] = _tables.__wrapped__(b, size)[:, Criterion.TOTAL.code, MMAX]
    # One part at a time is a chain, one secret found per guess, as long as it takes: the tables stop at MMAX
    # levels (their "no limit"), which only this row reaches (two parts pass any size by then).
    s = np.arange(size + 1, dtype=np.int64)
    out[0, 1] = s * (s + 1) // 2
    out[1, 1] = s * (s + 3) // 2
    out[:, 0] = out[:, 1]  # no set of two or more codes has no branching; row 0 is never read
    out.flags.writeable = False
    return out


def require_response_table(game: Game) -> GameArrays:
    """The game's arrays with their response table, which the search kernels read directly.

    :raises InvalidSearchError: the game is too big for a table, so it cannot be searched.
    """
    require_searchable(game)
    return game.search_arrays()


MASK_BITS = 64
"""The search kernel keeps the responses a guess receives as one bit each of a 64-bit mask."""


def kernel_responses(game: Game, table: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], int, int]:
    """(table, size of the response encoding, winning response) with at most 64 responses: the least the search
    kernel needs, and what :func:`compact_responses` gives the games it does not renumber.

    The kernel marks each response as a bit of a 64-bit word (``searchparts.part_counts``), and
    the game's encoding, ``bulls * (positions + 1) + cows``, passes 63 from 8 positions on although
    those games have only 44 possible responses.  Their table is then renumbered densely, a copy made
    once per game (cached, like the table itself); smaller games keep the shared table and its
    encoding.
    """
    if game.n_responses <= MASK_BITS:
        return table, game.n_responses, game.all_bulls
    return _dense_responses(game.positions, game.symbols, game.repetition)


@functools.lru_cache(maxsize=4)
def _dense_responses(positions: int, symbols: int, repetition: bool) -> tuple[npt.NDArray[np.uint8], int, int]:
    game = Game(positions, symbols, repetition)
    table = game.search_arrays().table
    valid = valid_responses(game)
    dense = np.zeros(game.n_responses, dtype=np.uint8)
    dense[valid] = np.arange(len(valid), dtype=np.uint8)
    out = dense[table]
    out.setflags(write=False)
    return out, len(valid), int(dense[game.all_bulls])


DENSE_MAX_CODES = 8192
"""Games of at most this many codes get a densely numbered copy of their table (:func:`compact_responses`): at
most 64 MB, where the records games' copy would be another gigabyte."""


def compact_responses(game: Game, table: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], int, int]:
    """(table, size of the response encoding, winning response) as the exact search and the lower bounds'
    kernels read them: renumbered densely for a game of at most :data:`DENSE_MAX_CODES` codes whose encoding is
    at least twice as wide as the responses that occur (the games without repetition from 5 positions on, and
    the small ones), as :func:`kernel_responses` for the others (Mastermind and Bulls-and-Cows: 14 of 25, which
    gained nothing measurable and keep their one table).  The renumbering keeps the responses' order, so every
    partition, every score (floating-point sums included) and every tie is the same.

    Why: those kernels count every guess's parts in a guesses × responses matrix and go over every response of
    a split, and the encoding ``bulls * (positions + 1) + cows`` leaves most of it empty: 7×7 has 64 slots for
    the 7 responses that occur, 6×7 49 for 12.  Densely numbered, the matrix fits the cache and each row is
    scored over what can occur (``benchmarks/bench_refine_tables.py``)."""
    if game.size <= DENSE_MAX_CODES and 2 * valid_response_count(game) <= game.n_responses:
        return _dense_responses(game.positions, game.symbols, game.repetition)
    return kernel_responses(game, table)


def mask_bits(n_resp: int) -> int:
    """The width of the words the search kernel marks ``n_resp`` responses in, one bit each
    (``searchparts.count_parts``): 16, 32 or 64 bits."""
    return 16 if n_resp <= 16 else 32 if n_resp <= 32 else MASK_BITS


def search_responses(game: Game, table: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], int, int]:
    """(table, size of the response encoding, winning response) as the exact search kernel reads them:
    :func:`compact_responses`, renumbered densely too when that lets the responses fit narrower words of
    :func:`mask_bits` (Mastermind and Bulls-and-Cows: 14 responses, 16 bits, of an encoding 25 wide, 32 bits), in
    a game of at most :data:`DENSE_MAX_CODES` codes.  The renumbering keeps the responses' order, so every value,
    bound and tie of the search is the same.

    Why: the kernel counts every code's parts of each node's set as one bit per response
    (``searchparts.count_parts``, the most of its time), and a row of 16-bit words takes a third of the 64-bit
    words' time (``benchmarks/profile_search.py``)."""
    compact = compact_responses(game, table)
    if game.size <= DENSE_MAX_CODES and mask_bits(valid_response_count(game)) < mask_bits(compact[1]):
        return _dense_responses(game.positions, game.symbols, game.repetition)
    return compact


def require_searchable(game: Game) -> None:
    """Refuse a game whose response table would not fit its budget, without building the table.

    :raises InvalidSearchError: the game is too big for a table, so it cannot be searched.
    """
    if not searchable(game):
        raise InvalidSearchError(
            f"game {game.spec} has {game.size} codes, more than the {game.search_max_codes} the exact search "
            f"takes (its response table would need {game.size ** 2} bytes)"
        )


def searchable(game: Game) -> bool:
    """Whether the exact search takes the game (``Game.search_max_codes``; its response table, n² bytes,
    is built once per process)."""
    return game.size <= game.search_max_codes
