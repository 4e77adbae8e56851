"""The in-memory transposition table of the exact search, and its export/import format.

Design.  One table serves one *question*: a game, a criterion with its depth limit, the hybrid
parameters (``mde``, heuristic or from-set-only) — the parts of the article's hash-table item that
are the same for every entry of a search.  Entries live in numpy arrays that the numba search
reads and writes directly; Python never touches them per node.  Keys are two independent 64-bit
Zobrist sums of the candidate set (plus the turn, in hybrid searches whose values depend on it);
the chance that two different sets share both is about 2⁻¹²⁸ per pair, accepted in exchange for
not storing a 630-byte bitset per slot.  The full set of every entry *worth keeping* (its search
cost reached ``export_threshold`` nodes) is logged on the side, so that it can be persisted with
its bitset.

Entry layout (``info`` columns, int64):

====== =========================================================================================
M      guesses still allowed when it was computed, this one included (``MMAX`` = unlimited)
FLAG   0 empty, 1 exact, 2 lower bound (the value is at least VALUE)
VALUE  turn-independent value: remaining guesses summed over the set (total), or the number of
       secrets needing the very last allowed guess (k-movers); ``INF`` = no strategy fits
BEST   best guess (code index) for exact entries, -1 otherwise
COST   nodes searched to produce it (replacement priority; threshold for persisting)
TURN   guess number it was computed at (informational, and part of the key in hybrid searches)
====== =========================================================================================

The columns are :mod:`solver.ttkernels`'s ``F_*`` (the kernels index them); the rows are written and read in
Python only here: :func:`info_rows` (shipped knowledge, a loaded entry) and :func:`entry_of_row` (an exported
one), so that a reader or writer of entries outside the kernels never indexes a column itself.  An entry proven
elsewhere (stored, shipped) enters a table with :data:`PROVEN_COST`, above any search's own cost.  The key of a
set is its two Zobrist sums with the turn mixed in for hybrid questions only (:meth:`TableKey.context`).

Reuse (``ttkernels.tt_bounds``), clause by clause, for the same set with ``m`` guesses left:

- total, exact at m_e: exact if m = m_e; a lower bound if m < m_e (less room never helps).
- total, lower bound at m_e: still a lower bound for every m <= m_e.
- k-movers, exact at m_e: exact if m = m_e; 0 if m > m_e and the value is finite (everything then
  finishes before the last allowed guess); impossible if m < m_e and the value is positive (some
  secret needed all m_e guesses).
- k-movers, lower bound at m_e: a lower bound if m = m_e; impossible if m < m_e.

Replacement: buckets of four slots; the same key is overwritten (newer knowledge of the same set),
else an empty slot, else the entry with the smallest search cost — cheap entries are the cheapest to
recompute, as in Stockfish's depth-preferred replacement.

No I/O here: :meth:`TranspositionTable.export` and :meth:`TranspositionTable.load` exchange plain
records with the service, whose store implements :class:`TTStore`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

# the kernels (numba) are imported by the functions that run them: reading a row, a key or an option costs no
# compilation cache load, which a question answered from a shipped tree never needs
from solver import ttlayout as tl
from solver.game import Game
from solver.vocabulary import MMAX, Criterion, remaining_guesses, remaining_value

__all__ = ["INFO_COLUMNS", "MMAX", "PROVEN_COST", "Entry", "TTStore", "TableKey", "TranspositionTable",
           "entry_of_row", "info_rows", "kernel_fields", "position_entries", "set_key", "split_parts", "zobrist"]


@dataclass(frozen=True)
class TableKey:
    """What every entry of one table has in common (the question it answers)."""

    game: str
    """Game spec ``"positions,symbols,repetition"``."""
    criterion: Criterion
    """``total`` or ``kmovers`` (a name given as a string is parsed into its member)."""
    max_guesses: int | None
    """Depth limit of the whole game (None = unlimited, totals only)."""
    mde: int | None
    """Last turn searched exactly; later turns use the hybrid rule (None = exact everywhere)."""
    heuristic: bool
    """Hybrid turns take the heuristic's guess (crush for k-movers, Larmouth for totals)."""
    from_set_only: bool
    """Hybrid turns (or every turn, with ``mde`` None) try only candidates."""

    def __post_init__(self) -> None:
        """Hold the criterion as its member, whoever built the key (a stored row's name, a manifest's).

        :raises ValueError: not a criterion's name.
        """
        if not isinstance(self.criterion, Criterion):
            object.__setattr__(self, "criterion", Criterion.parse(self.criterion))

    @property
    def turn_keyed(self) -> bool:
        """Whether the question's values depend on the turn: a hybrid question's (``mde`` set) do, since the
        same set is searched exactly up to turn ``mde`` and by the hybrid rule after; an exact question's do not."""
        return self.mde is not None

    def context(self, turn: int) -> int:
        """What a set's key mixes in for the position at guess number ``turn``: the turn where values depend on
        it (:attr:`turn_keyed`), else 0 (so that the same set reached at another turn shares its entry)."""
        return turn if self.turn_keyed else 0


@dataclass(frozen=True)
class Entry:
    """One persisted position: a candidate set and what the search proved about it."""

    key: TableKey
    """The question."""
    codes: tuple[int, ...]
    """The candidate set, ascending code indices."""
    m: int
    """Guesses still allowed when computed (``MMAX`` = unlimited)."""
    turn: int
    """Guess number it was computed at."""
    exact: bool
    """Exact value (else a lower bound)."""
    value: int | None
    """Turn-independent value; None = no strategy fits."""
    best_guess: int | None
    """Best guess for exact entries."""
    cost: int
    """Nodes searched to produce it."""

    def bitset(self, n_codes: int) -> bytes:
        """The candidate set as a little-endian bitset of ``n_codes`` bits."""
        bits = np.zeros(n_codes, dtype=np.uint8)
        bits[list(self.codes)] = 1
        return np.packbits(bits, bitorder="little").tobytes()

    @staticmethod
    def codes_from_bitset(data: bytes, n_codes: int) -> tuple[int, ...]:
        """Inverse of :meth:`bitset`.

        :raises ValueError: the bitset has the wrong length or bits past ``n_codes``.
        """
        need = (n_codes + 7) // 8
        if len(data) != need:
            raise ValueError(f"bitset has {len(data)} bytes, {need} expected for {n_codes} codes")
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
        if bits[n_codes:].any():
            raise ValueError("bitset has bits set past the last code")
        return tuple(int(i) for i in np.flatnonzero(bits[:n_codes]))


INFO_COLUMNS = 6
"""Columns of an entry's row (``info``, the export log): :mod:`solver.ttkernels`'s ``F_*``."""
PROVEN_COST = 1 << 30
"""The cost an entry proven elsewhere (stored, shipped) enters a table with: above any one search's, so that the
replacement rule (cheapest first) never drops it for a position searched here."""


def info_rows(m: npt.ArrayLike, flag: npt.ArrayLike, value: npt.ArrayLike, best: npt.ArrayLike, turn: npt.ArrayLike,
              cost: npt.ArrayLike = PROVEN_COST) -> npt.NDArray[np.int64]:
    """Entries' rows, column by column (each an array, or one value for every row): the one writer of the layout
    outside the kernels."""
    columns = np.broadcast_arrays(*(np.asarray(c, dtype=np.int64) for c in (m, flag, value, best, cost, turn)))
    rows = np.zeros((columns[0].size, INFO_COLUMNS), dtype=np.int64)
    for field, column in zip((tl.F_M, tl.F_FLAG, tl.F_VALUE, tl.F_BEST, tl.F_COST, tl.F_TURN), columns,
                             strict=True):
        rows[:, field] = column.ravel()
    return rows


def kernel_fields(e: Entry) -> tuple[int, int, int]:
    """(flag, value, best guess) of an entry as a row holds them: ``INF`` for no strategy, -1 for no guess."""
    return (tl.FLAG_EXACT if e.exact else tl.FLAG_LOWER, int(tl.INF) if e.value is None else e.value,
            -1 if e.best_guess is None else e.best_guess)


def entry_of_row(key: TableKey, codes: tuple[int, ...], row: npt.NDArray[np.int64]) -> Entry:
    """The entry a row says of the set ``codes``: the one reader of the layout outside the kernels."""
    value, best = int(row[tl.F_VALUE]), int(row[tl.F_BEST])
    return Entry(key=key, codes=codes, m=int(row[tl.F_M]), turn=int(row[tl.F_TURN]),
                 exact=int(row[tl.F_FLAG]) == tl.FLAG_EXACT, value=None if value >= tl.INF else value,
                 best_guess=best if best >= 0 else None, cost=int(row[tl.F_COST]))


class TTStore(Protocol):
    """Where entries persist between processes, as the answer chain, the warm searchers and the jobs use it
    (the service's :class:`service.store.positions.PositionStore` implements it with bulk SQL)."""

    def load_entries(self, key: TableKey) -> list[Entry]:
        """Every stored entry answering ``key`` (a search's warm start)."""
        ...

    def lookup(self, key: TableKey, sets: Iterable[tuple[int, ...]], m: int, turn: int
               ) -> dict[tuple[int, ...], Entry]:
        """The stored entries of these candidate sets with ``m`` guesses left at guess number ``turn``, by set."""
        ...

    def save_entries(self, entries: Sequence[Entry], source: str = "search", *, atomic: bool = True) -> int:
        """Upsert entries, monotone (never replacing better knowledge with worse); ``source`` says which step
        proved them; ``atomic``: all or nothing.  Returns how many were sent."""
        ...

    def close(self) -> None:
        """Let go of what the store holds open (its connections)."""
        ...


def _zobrist(n: int, seed: int) -> npt.NDArray[np.uint64]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)


@functools.lru_cache(maxsize=16)
def zobrist(n_codes: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """The two Zobrist vectors of a game of ``n_codes`` codes: fixed seeds, so that a key computed in one
    process (or shipped in a file) is the key of the same set everywhere."""
    return _zobrist(n_codes, 0x5EED1), _zobrist(n_codes, 0x5EED2)


def set_key(game: Game, codes: npt.NDArray[np.int32], ctx: int = 0) -> tuple[int, int]:
    """The table's key of a candidate set (ascending code indices); ``ctx`` the turn in hybrid searches."""
    from solver import ttkernels as tk

    z1, z2 = zobrist(game.size)
    k1, k2 = tk.set_keys(np.ascontiguousarray(codes, dtype=np.int32), z1, z2, ctx)
    return int(k1), int(k2)


class TranspositionTable:
    """Bounded in-memory table for one :class:`TableKey`, plus the log of entries worth persisting.

    ``capacity`` slots (rounded up to a multiple of the bucket size) cost 64 bytes each.
    """

    def __init__(self, game: Game, key: TableKey, capacity: int = 1 << 20,
                 export_threshold: int = 64, log_capacity: int = 1 << 16) -> None:
        self.game = game
        self.key = key
        cap = max(tl.BUCKET, (capacity + tl.BUCKET - 1) // tl.BUCKET * tl.BUCKET)
        self.k1 = np.zeros(cap, dtype=np.uint64)
        self.k2 = np.zeros(cap, dtype=np.uint64)
        self.info = np.zeros((cap, INFO_COLUMNS), dtype=np.int64)
        self.z1, self.z2 = zobrist(game.size)
        self.export_threshold = export_threshold
        self.log_meta = np.zeros((log_capacity, INFO_COLUMNS), dtype=np.int64)
        self.log_sets = np.zeros(log_capacity * 64, dtype=np.int32)
        self.log_off = np.zeros(log_capacity + 1, dtype=np.int64)
        self.log_n = np.zeros(2, dtype=np.int64)
        self.dropped = 0

    @property
    def capacity(self) -> int:
        """Number of slots."""
        return int(self.k1.shape[0])

    def __len__(self) -> int:
        return int(np.count_nonzero(self.info[:, tl.F_FLAG]))

    def clear(self) -> None:
        """Forget every entry and the export log."""
        self.k1[:] = 0
        self.k2[:] = 0
        self.info[:] = 0
        self.log_n[:] = 0

    def probe(self, codes: npt.NDArray[np.int32], m: int, turn: int) -> tuple[int, int, int] | None:
        """(lower, upper, best guess) the table proves for the ascending set ``codes`` with ``m``
        guesses left at guess ``turn`` (the kernel's own reuse rules), or None when it has no entry."""
        from solver import ttkernels as tk

        s = np.ascontiguousarray(codes, dtype=np.int32)
        k1, k2 = tk.set_keys(s, self.z1, self.z2, self.key.context(turn))
        slot = tk.tt_find(self.k1, self.k2, np.uint64(k1), np.uint64(k2))
        if slot < 0:
            return None
        crit = self.key.criterion.code
        lo, hi, best = tk.tt_bounds(self.info, slot, m, crit, MMAX)
        return int(lo), int(hi), int(best)

    # -- persistence -------------------------------------------------------------------------------

    def export(self, *, drain: bool = True) -> list[Entry]:
        """Entries logged since the last drain (those whose cost reached the threshold)."""
        k = int(self.log_n[0])
        out: list[Entry] = []
        offs = self.log_off
        for i in range(k):
            lo = int(offs[i])
            hi = int(offs[i + 1]) if i + 1 < k else int(self.log_n[1])
            out.append(entry_of_row(self.key, tuple(int(c) for c in self.log_sets[lo:hi]), self.log_meta[i]))
        if drain:
            self.log_n[:] = 0
        return out

    def load_keys(self, k1: npt.NDArray[np.uint64], k2: npt.NDArray[np.uint64], info: npt.NDArray[np.int64]) -> int:
        """Put entries given by their keys and their ``info`` rows into the table (a shipped index,
        :mod:`service.knowledge`); returns how many."""
        from solver import ttkernels as tk

        tk.tt_store_all(self.k1, self.k2, self.info, np.ascontiguousarray(k1), np.ascontiguousarray(k2),
                        np.ascontiguousarray(info))
        return int(k1.shape[0])

    def load(self, entries: Iterable[Entry]) -> int:
        """Put persisted entries into the table (warm start); returns how many were taken.

        Entries for another question, or with codes outside the game, are skipped.
        """
        from solver import ttkernels as tk

        taken = 0
        n = self.game.size
        for e in entries:
            if e.key != self.key or not e.codes or max(e.codes) >= n or min(e.codes) < 0:
                continue
            s = np.array(sorted(e.codes), dtype=np.int32)
            k1, k2 = tk.set_keys(s, self.z1, self.z2, self.key.context(e.turn))
            flag, value, best = kernel_fields(e)
            # numba returns uint64 scalars as Python ints; keep them unsigned on the way back in
            tk.tt_store(self.k1, self.k2, self.info, np.uint64(k1), np.uint64(k2), e.m, flag, value, best,
                        max(e.cost, PROVEN_COST), e.turn)
            taken += 1
        return taken


def position_entries(game: Game, key: TableKey, cands: npt.NDArray[np.int32], turn: int, value: int | None,
                     best_guess: int | None, per_response: dict[int, int | None], *, root: bool = True,
                     cost: int = 1, part_best: dict[int, int | None] | None = None) -> list[Entry]:
    """A solved position (the question ``key``, at guess number ``turn``, with game-level values) as
    table entries with turn-independent values: the root itself (unless ``root`` is False) and each
    response of ``best_guess`` whose value is in ``per_response``, with its own best guess from
    ``part_best`` when known."""
    crit, k = key.criterion, key.max_guesses
    out: list[Entry] = []
    if root:
        n = int(cands.shape[0])
        root_value = None if value is None else remaining_value(value, n, turn, crit)
        out.append(Entry(key, tuple(int(c) for c in cands), remaining_guesses(k, turn), turn, True, root_value,
                         best_guess, max(cost, 1)))
    if best_guess is not None:
        for r, codes in split_parts(game, cands, best_guess):
            v = per_response.get(r)
            if r == game.all_bulls or len(codes) < 2 or v is None:
                continue
            out.append(Entry(key, codes, remaining_guesses(k, turn + 1), turn + 1, True,
                             remaining_value(v, len(codes), turn + 1, crit), (part_best or {}).get(r), 1))
    return out


def split_parts(game: Game, cands: npt.NDArray[np.int32], guess: int) -> list[tuple[int, tuple[int, ...]]]:
    """(response, its candidates ascending) for every response of ``guess`` that some candidate gives."""
    from solver import kernels

    a = game.arrays(table=True)
    order, starts = kernels.split(*a.kernel_args(), guess, cands, game.n_responses)
    return [(r, tuple(int(c) for c in order[starts[r]:starts[r + 1]]))
            for r in range(game.n_responses) if starts[r + 1] > starts[r]]
