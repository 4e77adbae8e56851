"""Transposition table: export of costly entries, warm start from them, bitsets, reuse rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import kernels
from solver.game import Game
from solver.search import Searcher, SolveOptions
from solver.table import MMAX, PROVEN_COST, Entry, TableKey, TranspositionTable, entry_of_row, info_rows, kernel_fields


def test_export_then_warm_start_skips_the_search(mastermind: Game) -> None:
    options = SolveOptions("kmovers", max_guesses=5)
    first = Searcher(mastermind, options, export_threshold=1)
    cold = first.solve()
    entries = [e for t in first.tables for e in t.export()]
    assert entries and all(e.key == options.table_key(mastermind) for e in entries)
    assert all(e.cost >= 1 and e.m <= 5 for e in entries)
    second = Searcher(mastermind, options)
    assert second.table().load(entries) == len(entries)
    warm = second.solve()
    assert (warm.value, warm.best_guess, warm.per_response) == (cold.value, cold.best_guess, cold.per_response)
    assert warm.nodes < cold.nodes / 5


def test_exported_values_are_right(mastermind: Game) -> None:
    """An exported exact entry, re-searched on its own from scratch, has the same value."""
    options = SolveOptions("total", max_guesses=5)
    s = Searcher(mastermind, options, export_threshold=200)
    s.solve()
    exact = [e for e in s.table().export() if e.exact and e.value is not None][:5]
    assert exact
    for e in exact:
        fresh = Searcher(mastermind, options)
        cands = np.array(e.codes, dtype=np.int32)
        value, _ = fresh.best_guess_at(cands, e.turn)
        assert value == e.value
        # the stored best guess achieves it: n + the optimal values of its parts
        assert e.best_guess is not None
        a = mastermind.arrays(table=True)
        order, starts = kernels.split(*a.kernel_args(), e.best_guess, cands, mastermind.n_responses)
        total = len(e.codes)
        for r in range(mastermind.n_responses):
            if starts[r + 1] > starts[r] and r != mastermind.all_bulls:
                total += fresh.best_guess_at(order[starts[r]:starts[r + 1]], e.turn + 1)[0]
        assert total == e.value


def test_entries_for_another_question_are_ignored(mastermind: Game) -> None:
    key = SolveOptions("total").table_key(mastermind)
    other = SolveOptions("total", max_guesses=5).table_key(mastermind)
    table = TranspositionTable(mastermind, key, capacity=64)
    e = Entry(other, (1, 2, 3), 3, 3, True, 6, 1, 10)
    assert table.load([e]) == 0
    assert table.load([Entry(key, (1, 2, 5000), MMAX, 3, True, 6, 1, 10)]) == 0
    assert table.load([Entry(key, (1, 2, 3), MMAX, 3, True, 6, 1, 10)]) == 1
    assert len(table) == 1


def test_bitset_round_trip(bulls_cows: Game) -> None:
    key = TableKey("4,10,0", "total", None, None, False, False)
    e = Entry(key, (0, 7, 8, 5039), MMAX, 2, True, 12, 0, 5)
    data = e.bitset(bulls_cows.size)
    assert len(data) == 630
    assert Entry.codes_from_bitset(data, bulls_cows.size) == e.codes
    with pytest.raises(ValueError, match="629 bytes"):
        Entry.codes_from_bitset(data[:-1], bulls_cows.size)
    with pytest.raises(ValueError, match="past the last code"):
        Entry.codes_from_bitset(b"\x00" * 161 + b"\x80", 1290)


def test_small_table_still_solves(mastermind: Game) -> None:
    """A table far too small for the search only costs time: replacement keeps it correct."""
    r = Searcher(mastermind, SolveOptions("kmovers", max_guesses=5), table_capacity=64).solve()
    assert r.value == 539


@given(m=st.integers(1, MMAX), turn=st.integers(1, 20), exact=st.booleans(),
       value=st.none() | st.integers(0, 10**9), best=st.none() | st.integers(0, 5039), cost=st.integers(1, 1 << 40),
       hybrid=st.booleans())
def test_an_entry_survives_its_row(m: int, turn: int, exact: bool, value: int | None, best: int | None, cost: int,
                                   hybrid: bool) -> None:
    """The one writer and the one reader of the entry layout agree, field by field (no strategy, no guess
    included); the turn is part of a set's key for a hybrid question only."""
    key = TableKey("4,10,0", "total", None, 2 if hybrid else None, hybrid, False)
    e = Entry(key, (1, 2, 3), m, turn, exact, value, best, cost)
    row = info_rows(e.m, *kernel_fields(e), e.turn, e.cost)
    assert row.shape == (1, 6) and entry_of_row(key, e.codes, row[0]) == e
    assert key.context(turn) == (turn if hybrid else 0)
    shipped = info_rows([m, m], [1, 2], [5, 7], [0, -1], [turn, turn])  # the shipped knowledge's: proven elsewhere
    assert [entry_of_row(key, (1,), r).cost for r in shipped] == [PROVEN_COST, PROVEN_COST]
