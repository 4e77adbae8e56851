"""The refined lower bounds (solver.lowerbound) against the exhaustive reference and the exact search:
never above the optimum, never below the size-only bound, rising with the depth, and exact once the
depth reaches every leaf."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import atlas
from solver.atlas import atlas_games
from solver.boundmemo import new_memo
from solver.game import DEFAULT_ALPHABET, Game, Turn
from solver.lowerbound import root_classes, root_lower_bound
from solver.partledger import EXACT_PLIES, PartLedger
from solver.search import Searcher, SolveOptions
from solver.secondbound import second_guess_bound, second_guesses
from solver.vocabulary import Criterion
from tests import reference

REPO = Path(__file__).resolve().parents[1]

SHIPPED = atlas.load()
EXACT = [g for g in atlas_games() if SHIPPED[g.spec]["values"]["total"]["exact"]]


@functools.cache
def exhaustive_total(spec: str, history: tuple[tuple[int, int], ...] = ()) -> int:
    """The optimal total (game-level) by plain exhaustive search, no kernels."""
    game = Game.from_spec(spec)
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, DEFAULT_ALPHABET)
    turns = [Turn(g, r) for g, r in history]
    cands = tuple(game.format_code(int(c)) for c in game.candidates(turns))
    return int(reference.exhaustive(codes, cands, None, "total")) + len(cands) * len(history)


TINY = [g for g in EXACT if g.size <= 27]


@pytest.mark.parametrize("game", TINY, ids=lambda g: g.spec)
def test_deep_enough_the_bound_is_the_exhaustive_optimum(game: Game) -> None:
    """Every useful guess removes a code, so past ``codes`` plies every leaf is a set of one or two,
    valued exactly: the bound is then the optimum itself, and each shallower one is below it."""
    truth = exhaustive_total(game.spec)
    deep = root_lower_bound(game, (), game.size)
    assert deep.value == truth
    values = [root_lower_bound(game, (), d).value for d in range(1, 5)]
    assert values == sorted(values) and values[-1] <= truth
    assert values[0] >= deep.size_only


MID = [g for g in EXACT if 27 < g.size <= 1296]


@pytest.mark.parametrize("game", MID, ids=lambda g: g.spec)
def test_the_bound_never_passes_the_proven_optimum(game: Game) -> None:
    truth = SHIPPED[game.spec]["values"]["total"]["value"]
    last = 0
    for depth in (1, 2, 3):
        b = root_lower_bound(game, (), depth)
        assert b.size_only <= b.value <= truth, (depth, b.value, truth)
        assert b.value >= last
        last = b.value


def test_mastermind_bounds_rise_to_the_optimum() -> None:
    """Mastermind's 5625 is reached from below at three plies (the published optimum, proven here by a
    bound alone: no strategy does better than what the bound allows, and the shipped tree does 5625); with
    the last ply's parts valued by their size alone it takes four."""
    mm = Game.from_spec("mastermind")
    got = [root_lower_bound(mm, (), d).value for d in (1, 2, 3)]
    assert got == sorted(got) and got[0] > root_lower_bound(mm, (), 1).size_only
    assert got[1] < 5625 and got[2] == 5625
    by_size = [root_lower_bound(mm, (), d, leaf_scan=False).value for d in (1, 2, 3, 4)]
    assert by_size == sorted(by_size) and by_size[2] < 5625 and by_size[3] == 5625
    assert all(a <= b for a, b in zip(by_size, got, strict=False))


def test_mastermind_four_plies_prove_5625() -> None:
    """Four plies, deepened pass by pass, each pass's parts the next one's estimates (seconds)."""
    got = root_lower_bound(Game.from_spec("mastermind"), (), 4)
    assert got.value == 5625 and got.depth == 4


def test_a_target_reached_early_stops_the_deepening() -> None:
    """Deepening stops at the first pass whose bound reaches the target: the bound says which depth
    proved it, and it is still no more than the optimum."""
    mm = Game.from_spec("mastermind")
    two = root_lower_bound(mm, (), 2).value
    got = root_lower_bound(mm, (), 4, target=two - 20)
    assert got.depth == 2 and two - 20 <= got.value <= 5625
    assert root_lower_bound(mm, (), 4, target=5625).depth == 3
    assert root_lower_bound(mm, (), 4, target=5625, leaf_scan=False).depth == 4


@pytest.mark.parametrize("spec", ["mastermind", "4,4,1", "5,3,1"])
def test_a_target_asks_less_and_proves_what_it_claims(spec: str) -> None:
    """With a target, each first guess is refined only until its bound reaches it: below the full bound
    the answer is at least the target (and still no more than the optimum), above it the answer is the
    full bound itself; reaching a target the full bound passes costs less work than the full bound."""
    game = Game.from_spec(spec)
    truth = SHIPPED[game.spec]["values"]["total"]["value"]
    full = root_lower_bound(game, (), 3)
    under = root_lower_bound(game, (), 3, target=full.value - 5)
    assert full.value - 5 <= under.value <= full.value <= truth
    assert under.work < full.work
    assert root_lower_bound(game, (), 3, target=full.value + 1).value == full.value
    assert root_lower_bound(game, (), 3, target=truth + 50).value == full.value
    deeper = root_lower_bound(game, (), 4, target=full.value + 1)
    assert full.value <= deeper.value <= truth


def test_mastermind_four_plies_reach_5625_with_a_target() -> None:
    """The published optimum proven by a bound alone, the cheap way: four plies asked only for 5625."""
    got = root_lower_bound(Game.from_spec("mastermind"), (), 4, target=5625)
    assert got.value == 5625


def test_a_table_of_exact_parts_makes_one_ply_exact() -> None:
    """``known`` plays a table: given the exact value of every part (from the exact search), one ply
    is the exact optimum; given nothing, it is the weaker bound."""
    mm = Game.from_spec("mastermind")
    s = Searcher(mm, SolveOptions("total"))
    tt = s.table()
    s.solve()  # fills the table with the exact values of the parts of the root's guesses

    def known(codes: tuple[int, ...]) -> tuple[int, int] | None:
        import numpy as np

        got = tt.probe(np.array(codes, dtype=np.int32), 64, 2)
        return None if got is None else (got[0], got[1])

    with_table = root_lower_bound(mm, (), 1, known=known)
    assert with_table.value == 5625
    assert root_lower_bound(mm, (), 1).value < 5625
    assert with_table.parts and all(p.lower <= 5625 for p in with_table.parts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(["3,4,1", "4,4,0", "3,5,0", "4,3,1", "2,6,1"]), data=st.data())
def test_after_any_history_the_bound_stays_below_the_search(spec: str, data: st.DataObject) -> None:
    game = Game.from_spec(spec)
    secret = data.draw(st.integers(0, game.size - 1))
    guesses = data.draw(st.lists(st.integers(0, game.size - 1), min_size=1, max_size=2, unique=True))
    history = [Turn(g, int(game.response(g, secret))) for g in guesses if g != secret]  # a win ends the game
    if len(game.candidates(history)) <= 1:
        return
    exact = Searcher(game, SolveOptions("total")).solve(history).value
    assert exact is not None
    for depth in (1, 2, 3):
        b = root_lower_bound(game, history, depth)
        assert b.size_only <= b.value <= exact
    assert root_lower_bound(game, history, game.size).value == exact


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(["4,4,0", "5,5,0", "4,5,0", "4,3,1", "5,3,1", "mastermind", "3,5,1"]),
       moves=st.integers(0, 1), data=st.data())
def test_the_third_plys_classes_change_no_bound(spec: str, moves: int, data: st.DataObject) -> None:
    """The third ply tries one guess per class of the transformations fixing the guesses above it: each
    such transformation maps the part onto itself, so the bounds are those of every code, at every depth
    (a class that missed a guess, or a memo sharing a bound across sets it does not hold for, would differ
    somewhere), and the refinement never takes more sets for it."""
    game = Game.from_spec(spec)
    history: list[Turn] = []
    if moves:
        secret, guess = data.draw(st.integers(0, game.size - 1)), data.draw(st.integers(0, game.size - 1))
        if guess != secret:
            history = [Turn(guess, int(game.response(guess, secret)))]
    for depth in (3, 4):
        every = root_lower_bound(game, history, depth, third_ply_classes=False)
        classed = root_lower_bound(game, history, depth)
        assert classed.value == every.value, (depth, classed.value, every.value)
        assert [(p.response, p.codes, p.lower) for p in classed.parts] == \
            [(p.response, p.codes, p.lower) for p in every.parts]
        assert classed.work <= every.work


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(["3,4,1", "4,4,0", "3,5,0", "4,3,1", "2,6,1", "mastermind", "4,5,0"]), data=st.data())
def test_a_sets_own_codes_bound_it_between_its_size_and_one_ply(spec: str, data: st.DataObject) -> None:
    """The leaf bound (a set's own codes scored by their real partitions, a code outside it by the size-only
    bound of opening outside): never below the size-only bound, never above the exact optimum, and never
    above the one-ply bound over every code (which scores the set's own codes the same way, and the codes
    outside it at least that well)."""
    import numpy as np

    from solver.boundkernels import _leaf_bound
    from solver.bounds import kernel_responses, lower_bound_tables
    from solver.table import MMAX

    game = Game.from_spec(spec)
    secret = data.draw(st.integers(0, game.size - 1))
    guesses = data.draw(st.lists(st.integers(0, game.size - 1), min_size=1, max_size=2, unique=True))
    history = [Turn(g, int(game.response(g, secret))) for g in guesses if g != secret]
    cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
    n = int(cands.shape[0])
    if not 3 <= n <= 64:
        return
    searcher = Searcher(game, SolveOptions("total"))
    table, n_resp, win = kernel_responses(game, searcher.arrays.table)
    tables = lower_bound_tables(game, game.size)
    lb0, lb1 = np.ascontiguousarray(tables[0, 0, MMAX]), np.ascontiguousarray(tables[1, 0, MMAX])
    leaf = int(_leaf_bound(table, cands, lb0, lb1, n_resp, win, np.zeros(n_resp, dtype=np.int64)))
    offset = n * len(history)
    exact = searcher.solve(history).value
    assert exact is not None
    one_ply = root_lower_bound(game, history, 1, leaf_scan=False).value - offset
    assert int(lb0[n]) <= leaf <= one_ply <= exact - offset


@pytest.mark.parametrize("spec", ["4,10,0", "5,3,1", "4,4,1"])
def test_scoring_the_last_plys_parts_only_raises_the_bound(spec: str) -> None:
    """At every depth the leaf-scored bound is at least the size-scored one, and still at most the optimum."""
    game = Game.from_spec(spec)
    truth = SHIPPED[game.spec]["values"]["total"]["value"]
    for depth in (2, 3):
        by_size = root_lower_bound(game, (), depth, leaf_scan=False).value
        scored = root_lower_bound(game, (), depth).value
        assert by_size <= scored <= truth, (depth, by_size, scored, truth)


@pytest.mark.parametrize("spec", ["mastermind", "4,4,1", "5,3,1"])
def test_the_least_of_the_first_guesses_bounds_is_the_roots(spec: str) -> None:
    """Each first guess refined alone (a campaign's unit) has a bound; the least of them is the root's bound
    refined at once, and the root's guesses are exactly the classes ``root_classes`` names."""
    game = Game.from_spec(spec)
    whole = root_lower_bound(game, (), 3)
    classes = root_classes(game)
    alone = [root_lower_bound(game, (), 3, guesses=[g]) for g in classes]
    assert min(b.value for b in alone) == whole.value
    assert whole.guess in classes and all(b.classes == 1 for b in alone)


def test_a_ledger_of_proven_parts_spares_their_refinement() -> None:
    """A ledger filled by one run makes the next one cheap and no weaker: every part it proved at three plies
    is taken as it is at three plies (no set refined again), and a deeper run starts from those bounds."""
    mm = Game.from_spec("mastermind")
    ledger = PartLedger()
    first = root_lower_bound(mm, (), 3, ledger=ledger)
    assert ledger.bounds and all(lower >= 1 for lower, _ in ledger.bounds.values())
    assert any(plies == EXACT_PLIES for _, plies in ledger.bounds.values())  # the singletons and pairs
    again = root_lower_bound(mm, (), 3, ledger=PartLedger(ledger.bounds))
    assert again.value == first.value and again.work < first.work / 10
    deeper = root_lower_bound(mm, (), 4, ledger=PartLedger(ledger.bounds))
    assert deeper.value == 5625


def test_a_part_proven_elsewhere_meanwhile_is_taken_from_the_ledger_and_not_refined() -> None:
    """In the last pass each part first takes in what the ledger has by then (another unit's proofs, shared
    through the database): a part proven elsewhere meanwhile is not refined here at all (fewer sets), and the
    bound is the same."""
    mm = Game.from_spec("mastermind")
    alone = PartLedger()
    whole = root_lower_bound(mm, (), 3, ledger=alone, second_units=None)
    g = whole.guess
    assert g is not None
    biggest = max((p for p in whole.parts if (g, p.response) in alone.bounds), key=lambda p: len(p.codes))

    class Elsewhere(PartLedger):
        """Another unit proves the biggest part of the best guess while this run refines the others."""

        def __init__(self) -> None:
            super().__init__()
            self.synced = 0

        def sync(self) -> None:
            self.synced += 1
            self.put(g, biggest.response, *alone.get(g, biggest.response))

    shared = Elsewhere()
    got = root_lower_bound(mm, (), 3, ledger=shared, second_units=None)
    assert got.value == whole.value and got.work < whole.work and shared.synced > 0


def test_a_second_guess_proven_elsewhere_meanwhile_is_not_refined_here() -> None:
    """A part refined one second guess at a time takes in the ledger before each second guess: one another unit
    proved meanwhile is not refined here, the others are, and the bound is the same."""
    mm = Game.from_spec("mastermind")
    alone = PartLedger()
    whole = root_lower_bound(mm, (), 3, ledger=alone, second_units=3)
    g = whole.guess
    assert g is not None

    def seconds_of(r: int) -> dict[int, tuple[int, int]]:
        return {g2: v for (g1, r1, g2), v in alone.seconds.items() if (g1, r1) == (g, r)}

    # the biggest part of the best first guess refined in full by several second guesses, and its best second
    # guess (the one whose bound is the part's)
    r = max((p for p in whole.parts if alone.get(g, p.response)[1] == 2 and len(seconds_of(p.response)) > 1),
            key=lambda p: len(p.codes)).response
    seconds = seconds_of(r)
    held = min(seconds, key=lambda g2: (seconds[g2][0], -seconds[g2][1]))
    assert seconds[held] == (alone.get(g, r)[0], 2)

    class Elsewhere(PartLedger):
        """Another unit proves that second guess while this run refines the part's others."""

        def __init__(self) -> None:
            super().__init__()
            self.refined_here: set[int] = set()

        def put_third(self, guess: int, response: int, second: int, response2: int, lower: int,
                      plies: int) -> bool:
            if (guess, response) == (g, r):
                self.refined_here.add(second)
            return super().put_third(guess, response, second, response2, lower, plies)

        def sync(self) -> None:
            self.put_second(g, r, held, *alone.get_second(g, r, held))

    shared = Elsewhere()
    got = root_lower_bound(mm, (), 3, ledger=shared, second_units=3)
    assert got.value == whole.value
    assert shared.get(g, r)[0] == alone.get(g, r)[0]
    assert held not in shared.refined_here and len(shared.refined_here) > 1


@pytest.mark.parametrize(("spec", "depth"), [("mastermind", 3), ("4,5,1", 4), ("4,7,0", 3)])
def test_parts_refined_second_guess_by_second_guess_agree_and_keep_each(spec: str, depth: int) -> None:
    """The last pass refines a root part one second guess at a time, and each second guess one part at a time:
    the bound is the one of a single call, each second guess's bound and each of its parts' is in the ledger,
    the least of a fully refined part's is the part's own, and a run given only the second guesses' bounds, or
    only their parts', reaches the same bound with fewer sets refined."""
    game = Game.from_spec(spec)
    whole = root_lower_bound(game, (), depth, second_units=None)
    ledger = PartLedger()
    split = root_lower_bound(game, (), depth, ledger=ledger, second_units=3)
    assert split.value == whole.value
    assert ledger.seconds
    full = [(g, r) for (g, r), (_, plies) in ledger.bounds.items() if plies == depth - 1]
    assert full
    for g, r in full:
        mine = [lower for (g1, r1, _), (lower, plies) in ledger.seconds.items() if (g1, r1) == (g, r)]
        if mine:
            assert min(mine) == ledger.get(g, r)[0]
    again = root_lower_bound(game, (), depth, ledger=PartLedger(seconds=ledger.seconds), second_units=3)
    assert again.value == whole.value and again.work < split.work
    # one level down: a second guess's parts are units too, and a run given only their bounds agrees
    assert ledger.thirds and all(v[1] in (0, depth - 2) for v in ledger.thirds.values())
    below = root_lower_bound(game, (), depth, ledger=PartLedger(thirds=ledger.thirds), second_units=3)
    assert below.value == whole.value and below.work < split.work


def test_refining_only_some_parts_leaves_the_others_as_the_ledger_has_them() -> None:
    """``only_parts``: the named parts are refined as deep as a whole run refines them, the others keep the
    ledger's bounds untouched, and the bound lies between the shallower one and the whole deeper one."""
    game = Game.from_spec("4,7,0")
    shallow = PartLedger()
    two = root_lower_bound(game, (), 2, ledger=shallow)
    whole = PartLedger(shallow.bounds)
    three = root_lower_bound(game, (), 3, ledger=whole)
    g = root_classes(game)[0]
    sizes = {p.response: len(p.codes) for p in three.parts if (g, p.response) in whole.bounds}
    big = max(sizes, key=lambda r: sizes[r])
    some = PartLedger(shallow.bounds)
    got = root_lower_bound(game, (), 3, ledger=some, only_parts={big}, guesses=[g])
    assert two.value <= got.value <= three.value
    assert some.get(g, big) == whole.get(g, big) and some.get(g, big)[0] > shallow.get(g, big)[0]
    assert all(some.get(h, r) == shallow.get(h, r) for (h, r) in shallow.bounds if r != big)


def test_a_ledger_never_lowers_a_bound() -> None:
    ledger = PartLedger()
    assert ledger.get(7, 3) == (0, 0)
    assert ledger.put(7, 3, 40, 2)
    assert not ledger.put(7, 3, 35, 1)
    assert ledger.put(7, 3, 38, 3) and ledger.get(7, 3) == (40, 3)
    assert ledger.get_third(7, 3, 9, 2) == (0, 0)
    assert ledger.put_third(7, 3, 9, 2, 12, 1) and not ledger.put_third(7, 3, 9, 2, 11, 0)
    assert ledger.get_third(7, 3, 9, 2) == (12, 1)
    assert ledger.get_second(7, 3, 9) == (0, 0)
    assert ledger.put_second(7, 3, 9, 41, 1) and not ledger.put_second(7, 3, 9, 30, 0)
    assert ledger.put_second(7, 3, 9, 30, 2) and ledger.get_second(7, 3, 9) == (41, 2)


def test_bad_depth_is_refused() -> None:
    with pytest.raises(ValueError, match="depth"):
        root_lower_bound(Game.from_spec("mastermind"), (), 0)


def test_a_refinement_lets_other_threads_run() -> None:
    """The refinement releases the GIL: a long call in one thread leaves the others running (a Dask worker's
    heartbeat, or its scheduler restarts it mid-unit)."""
    import threading

    import numpy as np

    from solver.boundkernels import refine_set
    from solver.boundmemo import new_memo
    from solver.bounds import branching_tables, kernel_responses, lower_bound_tables
    from solver.table import MMAX, zobrist

    # 4x9 with repetition at three plies: seconds of kernel (4x10's three plies, 0.4 s once the one-ply kernel
    # got faster, fell under the half second this test needs to tell a held GIL from a released one)
    game = Game.from_spec("4,9,1")
    arrays = game.search_arrays()
    table, n_resp, win = kernel_responses(game, arrays.table)
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, 0, MMAX])
    lbb = branching_tables(game, game.size)[0]
    b = lbb.shape[0] - 1
    codes = np.arange(game.size, dtype=np.int32)
    z1, z2 = zobrist(game.size)

    def refine(depth: int) -> None:
        refine_set(table, arrays.codes, arrays.masks, codes, np.zeros(0, dtype=np.int32), depth, lb0, n_resp, win,
                   game.symbols, 0, 10**9, np.zeros(2, dtype=np.int64), z1, z2, *new_memo(16),
                   np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64), False, np.zeros(0, dtype=np.int64),
                   lbb, lbb, b)

    refine(1)  # load the kernel first
    worker = threading.Thread(target=refine, args=(3,))
    started = last = time.perf_counter()
    longest = 0.0
    worker.start()
    while worker.is_alive():  # this thread's longest wait: the whole call if the kernel held the GIL
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    elapsed = time.perf_counter() - started
    assert elapsed > 0.5, "the refinement was too short to tell"
    assert longest < elapsed / 3


_CACHED_REFINE = """
import sys
import numpy as np
from solver.bounds import branching_tables, kernel_responses, lower_bound_tables
from solver.game import Game
from solver.boundkernels import refine_set
from solver.boundmemo import new_memo
from solver.table import MMAX, zobrist

game = Game.from_spec("3,5,0")
arrays = game.search_arrays()
table, n_resp, win = kernel_responses(game, arrays.table)
lbb, lbb1 = branching_tables(game, game.size)[:2]  # read-only, as the recursion passes their rows
b = lbb.shape[0] - 1
z1, z2 = zobrist(game.size)
codes = np.arange(game.size, dtype=np.int32)
for lb1 in (np.zeros(0, dtype=np.int64), lbb1[b].copy()):  # writable leaf tables, as a caller may pass them
    print(refine_set(table, arrays.codes, arrays.masks, codes, np.zeros(0, dtype=np.int32), 3, lbb[b], n_resp, win,
                     game.symbols, 0, 10**9, np.zeros(2, dtype=np.int64), z1, z2, *new_memo(12),
                     np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64), False, lb1, lbb, lbb1, b))
"""


@pytest.mark.slow
def test_the_cached_refinement_loads_in_the_next_process_whatever_arrays_it_was_given(tmp_path: Path) -> None:
    """The refinement is a recursive kernel: numba's cache cannot load one compiled for two signatures (its
    inner call then points at code the next process does not have: a segfault on the first call, numba issue
    6061).  Called with writable tables where the recursion passes read-only ones, a first process compiles
    and caches it, and a second one, loading it, gets the same bounds instead of crashing."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    runs = [subprocess.run([sys.executable, "-c", _CACHED_REFINE], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=600) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout.split()) == 2


def test_branching_tables_count_what_each_branching_allows() -> None:
    """Row ``b`` of the branching tables is the counting bound of a tree with at most ``b`` non-winning parts
    below every guess: the game's own response count gives its size-only bound, fewer parts never give less,
    and one part at a time is a chain (the j-th guess finds one secret: 1 + 2 + … + s, or 2 + … + s + 1 when
    the first guess is no candidate)."""
    import numpy as np

    from solver.bounds import branching_tables, lower_bound_tables, valid_response_count
    from solver.table import MMAX

    game = Game.from_spec("6,7,0")
    by_b = branching_tables(game, 300)
    b_game = valid_response_count(game) - 1
    assert by_b.shape == (2, b_game + 1, 301)
    sizes = lower_bound_tables(game, 300)
    assert np.array_equal(by_b[:, b_game], sizes[:, 0, MMAX])
    assert np.all(np.diff(by_b[:, 1:], axis=1) <= 0)
    s = np.arange(301)
    assert np.array_equal(by_b[0, 1], s * (s + 1) // 2)
    assert np.array_equal(by_b[1, 1], s * (s + 3) // 2)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(["3,4,1", "4,4,0", "4,5,0", "4,3,1", "mastermind", "5,5,0", "4,7,0"]),
       moves=st.integers(0, 3), data=st.data())
def test_a_sets_branching_is_the_most_parts_any_code_makes_of_it(spec: str, moves: int, data: st.DataObject) -> None:
    """The bound is admissible only if the branching found among the guesses a refinement tries (the root's
    classes, or one code per class of absent and uncalled symbols below) is the most non-winning parts that
    any code of the game makes of the set: checked against every code, one by one."""
    import numpy as np

    from solver.boundkernels import _canonical_guesses, one_ply_branching_bounds
    from solver.bounds import branching_tables, kernel_responses

    game = Game.from_spec(spec)
    secret = data.draw(st.integers(0, game.size - 1))
    guesses = data.draw(st.lists(st.integers(0, game.size - 1), min_size=moves, max_size=moves, unique=True))
    history = [Turn(g, int(game.response(g, secret))) for g in guesses if g != secret]
    cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
    if cands.shape[0] < 3:
        return
    searcher = Searcher(game, SolveOptions("total"))
    table, n_resp, win = kernel_responses(game, searcher.arrays.table)
    every = max(len({int(table[c, g]) for c in cands} - {win}) for g in range(game.size))
    lbb = branching_tables(game, game.size)[0]
    b_game = lbb.shape[0] - 1
    out = np.empty(game.size, dtype=np.int64)
    pool0 = np.ascontiguousarray(searcher.pools(history)[0], dtype=np.int32)
    canonical = _canonical_guesses(searcher.arrays.codes, searcher.arrays.masks, cands,
                                   searcher.arrays.called(history), game.symbols)
    for tried in (pool0, np.ascontiguousarray(canonical, dtype=np.int32)):
        assert one_ply_branching_bounds(table, cands, tried, lbb, b_game, n_resp, win, out[:tried.shape[0]]) == every
    assert one_ply_branching_bounds(table, cands, pool0, lbb, 2, n_resp, win, out[:pool0.shape[0]]) == min(every, 2)


@pytest.mark.parametrize(("spec", "depth"), [("mastermind", 2), ("4,7,0", 3), ("5,5,0", 3), ("4,5,1", 3)])
def test_counting_each_sets_branching_only_raises_the_bound(spec: str, depth: int) -> None:
    """Valuing each set refined by its own branching never lowers the bound and never passes the optimum."""
    game = Game.from_spec(spec)
    truth = SHIPPED[game.spec]["values"]["total"]["value"]
    by_size = root_lower_bound(game, (), depth, branching=False).value
    counted = root_lower_bound(game, (), depth).value
    assert by_size <= counted <= truth, (by_size, counted, truth)


def test_deep_in_six_by_seven_the_sets_branching_lifts_the_bound() -> None:
    """Where the game is deep (6 of 7 symbols, W = 7) no guess makes many parts of a set a few guesses down,
    and the bound rises by tens of guesses: two plies into the part 6×7's first guess leaves for no bull and
    six cows (265 codes), 1449 against 1403 by size alone (three plies reach 1477, the part's exact optimum
    that a sweep proved, ``bullscows atlas settle -g 6,7,0 --parts 0.6``; minutes, so not here)."""
    game = Game.from_spec("6,7,0")
    history = game.parse_history(["012345 0.6"])
    by_size = root_lower_bound(game, history, 2, branching=False).value
    counted = root_lower_bound(game, history, 2).value
    assert counted >= by_size + 30, (by_size, counted)


@given(st.lists(st.one_of(st.integers(0, 600), st.integers(0, 1 << 22), st.just(1 << 40)), max_size=300))
@settings(max_examples=300, deadline=None)
def test_the_refinements_order_is_a_stable_sort(values: list[int]) -> None:
    """The refinement walks its guesses best bound first, ties by index; the counting sort that gives that order
    must be the merge sort's, INF last and bounds far apart (past the counted span) included."""
    import numpy as np

    from solver.boundkernels import _ascending

    bound = np.asarray(values, dtype=np.int64)
    assert np.asarray(_ascending(bound)).tolist() == np.argsort(bound, kind="mergesort").tolist()


@pytest.mark.parametrize("spec", ["7,7,0", "6,7,0", "5,8,0", "3,5,0"])
def test_the_densely_numbered_table_scores_every_guess_as_the_games_own(spec: str) -> None:
    """The lower bounds read a table renumbered densely (7 responses instead of 57 slots for 7×7): every guess
    must split every set into parts of the same sizes, so the one-ply scores and the branching that every
    refinement is built from are those of the game's own numbering."""
    import numpy as np

    from solver.boundkernels import one_ply_bounds, one_ply_branching_bounds
    from solver.bounds import branching_tables, compact_responses, lower_bound_tables
    from solver.table import MMAX

    game = Game.from_spec(spec)
    raw = game.search_arrays().table
    dense, n_resp, win = compact_responses(game, raw)
    assert 2 * n_resp <= game.n_responses and int(dense[0, 0]) == win
    assert compact_responses(Game.from_spec("mastermind"), Game.from_spec("mastermind").search_arrays().table)[1] == 25
    lb0 = np.ascontiguousarray(lower_bound_tables(game, game.size)[0, 0, MMAX])
    lbb = branching_tables(game, game.size)[0]
    rng = np.random.default_rng(7)
    guesses = np.arange(game.size, dtype=np.int32)
    for _ in range(5):
        secret, *moves = (int(c) for c in rng.integers(0, game.size, 3))
        history = [Turn(g, int(game.response(g, secret))) for g in moves if g != secret]
        cands = np.ascontiguousarray(game.candidates(history), dtype=np.int32)
        scores = []
        for table, nr, w in ((raw, game.n_responses, game.all_bulls), (dense, n_resp, win)):
            a = np.empty(game.size, dtype=np.int64)
            b = np.empty(game.size, dtype=np.int64)
            one_ply_bounds(table, cands, guesses, lb0, nr, w, a)
            branching = one_ply_branching_bounds(table, cands, guesses, lbb, lbb.shape[0] - 1, nr, w, b)
            scores.append((a.tolist(), b.tolist(), int(branching)))
        assert scores[0] == scores[1]


@pytest.mark.parametrize(("spec", "depth"), [("4,8,0", 3), ("4,7,1", 3)])
def test_a_parts_second_guesses_refined_one_by_one_give_its_bound_and_each_cut_holds(spec: str, depth: int) -> None:
    """A big root part's second guesses refined each alone (:mod:`solver.secondbound`, a bound job's units): the
    least of their bounds is the part's bound of the whole refinement, each is the whole refinement's bound under
    that second guess when it refined it in full, and one cut at β says a bound of at least β (fail-soft), or its
    full bound when that is below."""
    game = Game.from_spec(spec)
    first = int(root_classes(game)[0])
    whole = PartLedger()
    root_lower_bound(game, (), depth, ledger=whole, guesses=[first])
    r = max((key[1] for key in whole.seconds if key[0] == first), key=lambda r: (sum(
        1 for k in whole.seconds if k[:2] == (first, r)), r))
    seconds = second_guesses(game, (), first, r)
    assert [low for _, low in seconds] == sorted(low for _, low in seconds)
    alone = PartLedger()
    got = {g2: second_guess_bound(game, (), first, r, g2, depth, ledger=alone) for g2, _ in seconds}
    assert all(b.full for b in got.values())
    assert min(b.value for b in got.values()) == whole.get(first, r)[0]
    for (g1, r1, g2), (lower, plies) in whole.seconds.items():
        if (g1, r1) == (first, r) and plies == depth - 1:
            assert got[g2].value == lower and alone.get_second(first, r, g2) == (lower, depth - 1)
    g2, b = max(got.items(), key=lambda kv: kv[1].value)
    beta = min(v.value for v in got.values())
    cut = second_guess_bound(game, (), first, r, g2, depth, beta=beta)
    assert not cut.full and b.value >= cut.value >= beta
    above = second_guess_bound(game, (), first, r, g2, depth, beta=b.value + 1)
    assert above.full and above.value == b.value


@pytest.mark.parametrize(("spec", "depth"), [("4,8,0", 3), ("4,7,1", 3), ("4,8,0", 4)])
def test_a_parts_second_guesses_one_after_another_with_one_memo_refine_what_the_whole_part_does(
        spec: str, depth: int) -> None:
    """A worker process running a part's second guesses one after another, each cut at the least bound so far, with
    the part's memo warmed once by its shallow passes: the same bound, and exactly the sets the whole refinement of
    that part refines (so splitting a part costs no refinement, only the units' own keeping)."""
    game = Game.from_spec(spec)
    first = int(root_classes(game)[0])
    split = PartLedger()  # the part the whole refinement splits by second guess the most
    root_lower_bound(game, (), depth, ledger=split, guesses=[first])
    r = max((key[1] for key in split.seconds if key[0] == first),
            key=lambda r: (sum(1 for k in split.seconds if k[:2] == (first, r)), r))
    whole = root_lower_bound(game, (), depth, guesses=[first], only_parts=[r])
    searcher, memo = Searcher(game, SolveOptions(Criterion.TOTAL)), new_memo()
    best: int | None = None
    work = 0
    for i, (g2, _) in enumerate(second_guesses(game, (), first, r, searcher=searcher)):
        got = second_guess_bound(game, (), first, r, g2, depth, beta=best, searcher=searcher, memo=memo, warm=i == 0)
        work += got.work
        best = got.value if best is None else min(best, got.value)
    ledger = PartLedger()
    root_lower_bound(game, (), depth, guesses=[first], only_parts=[r], ledger=ledger)
    assert best == ledger.get(first, r)[0] and work == whole.work


@pytest.mark.parametrize(("spec", "bits"), [("mastermind", 16), ("bulls-cows", 16), ("4,7,1", 16), ("6,3,1", 32)])
def test_the_search_reads_responses_renumbered_in_order_as_narrow_as_they_fit(spec: str, bits: int) -> None:
    """The search kernel's table (:func:`solver.bounds.search_responses`) holds every response in the narrowest
    word that fits them (Mastermind's and Bulls-and-Cows' 14 in 16 bits where the encoding needs 25), renumbered
    in the game's order: the same partitions, the same order of parts, the same winning part."""
    import numpy as np

    from solver.bounds import mask_bits, search_responses, valid_response_count

    game = Game.from_spec(spec)
    raw = game.search_arrays().table
    table, n_resp, win = search_responses(game, raw)
    assert mask_bits(n_resp) == bits and n_resp == valid_response_count(game) and int(table[0, 0]) == win
    rng = np.random.default_rng(3)
    rows = rng.integers(0, game.size, 20)
    for r in rows:
        a, b = raw[r].astype(np.int64), table[r].astype(np.int64)
        order = np.argsort(a, kind="stable")
        assert (np.diff(b[order]) >= 0).all() and ((np.diff(a[order]) == 0) == (np.diff(b[order]) == 0)).all()
