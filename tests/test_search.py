"""Exact search: the article's figures, agreement with plain exhaustive search, optimal trees.

Sources: A. Slovesnov, "Optimal algorithms for mastermind and bulls-cows games" (shared/seeds),
sections 5.1.2 and 5.2.2 (Mastermind tables), 6.2 (tree node counts); figures in published.json.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.game import Game, Turn
from solver.search import InvalidSearchError, Searcher, SearchTooDeepError, SolveOptions, optimal_tree
from solver.tree import build_tree
from tests import reference
from tests.test_game import games


@pytest.fixture(scope="module")
def mm_total5(mastermind: Game) -> Searcher:
    return Searcher(mastermind, SolveOptions("total", max_guesses=5))


@pytest.fixture(scope="module")
def mm_kmovers5(mastermind: Game) -> Searcher:
    return Searcher(mastermind, SolveOptions("kmovers", max_guesses=5))


def test_mastermind_optimal_total_unlimited(mastermind: Game, published: dict[str, Any]) -> None:
    r = Searcher(mastermind, SolveOptions("total")).solve()
    assert r.exact and r.possible
    assert r.value == published["min_total"]["mastermind"]["optimum_total_unlimited"]
    assert mastermind.format_code(r.best_guess or 0) == published["min_total"]["mastermind"]["best_first_guess"]
    # "with no depth limit only the subtree (0012, 1.1) improves, from 1029 to 1028"
    limited = published["min_total"]["mastermind"]["by_response_after_0012_at_most_5"]
    per = {mastermind.format_response(k): v for k, v in r.per_response.items()}
    assert per["1.1"] == limited["1.1"]["exact"] - 1
    assert all(per[k] == v["exact"] for k, v in limited.items() if k != "1.1")
    assert sum(per.values()) == r.value


def test_mastermind_total_within_five(mastermind: Game, mm_total5: Searcher, published: dict[str, Any]) -> None:
    r = mm_total5.solve()
    assert r.value == published["min_total"]["mastermind"]["optimum_total_at_most_5_guesses"]
    assert mastermind.format_code(r.best_guess or 0) == "0012"


def test_mastermind_five_movers(mastermind: Game, mm_kmovers5: Searcher, published: dict[str, Any]) -> None:
    r = mm_kmovers5.solve()
    assert r.value == published["min_kmovers"]["mastermind"]["optimum"] and r.movers == 5
    assert mastermind.format_code(r.best_guess or 0) == published["min_kmovers"]["mastermind"]["best_first_guess"]


@pytest.mark.parametrize("first", ["0000", "0001", "0011", "0012", "0123"])
def test_mastermind_first_guess_table(mastermind: Game, mm_total5: Searcher, mm_kmovers5: Searcher,
                                      published: dict[str, Any], first: str) -> None:
    code = mastermind.parse_code(first)
    kmov = mm_kmovers5.evaluate_guess([], code)
    total = mm_total5.evaluate_guess([], code)
    want_k = published["min_kmovers"]["mastermind"]["by_first_guess"][first]["exact"]
    want_t = published["min_total"]["mastermind"]["by_first_guess_at_most_5"][first]["exact"]
    assert kmov.value == want_k and total.value == want_t
    assert kmov.possible == (want_k is not None) and total.possible == (want_t is not None)


def test_mastermind_tables_after_0012(mastermind: Game, mm_total5: Searcher, mm_kmovers5: Searcher,
                                      published: dict[str, Any]) -> None:
    code = mastermind.parse_code("0012")
    kmov = mm_kmovers5.evaluate_guess([], code).per_response
    total = mm_total5.evaluate_guess([], code).per_response
    for resp, row in published["min_kmovers"]["mastermind"]["by_response_after_0012"].items():
        if "exact" in row:
            assert kmov[mastermind.parse_response(resp)] == row["exact"], resp
    for resp, row in published["min_total"]["mastermind"]["by_response_after_0012_at_most_5"].items():
        assert total[mastermind.parse_response(resp)] == row["exact"], resp
    # and the same figures through solve() on each position
    for resp in ("1.1", "0.1"):
        history = mastermind.parse_history(f"0012 {resp}")
        assert mm_kmovers5.solve(history).value == kmov[mastermind.parse_response(resp)]


@given(game=games(max_codes=40), data=st.data())
@settings(max_examples=80, deadline=None)
def test_search_equals_exhaustive(game: Game, data: st.DataObject) -> None:
    """On small games and positions the pruned search equals plain exhaustive search."""
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, game.alphabet)
    secret = data.draw(st.integers(0, game.size - 1))
    history = []
    if data.draw(st.booleans()):
        g0 = data.draw(st.integers(0, game.size - 1))
        if g0 != secret:
            history.append(game.parse_turn(f"{codes[g0]} {game.format_response(game.response(g0, secret))}"))
    cands = game.candidates(history)
    criterion = data.draw(st.sampled_from(["total", "kmovers"]))
    turn = len(history) + 1
    limit = data.draw(st.one_of(st.none(), st.integers(turn, turn + 3))) if criterion == "total" \
        else data.draw(st.integers(turn, turn + 3))
    fso = data.draw(st.booleans())
    options = SolveOptions(criterion, max_guesses=limit, from_set_only=fso)
    result = Searcher(game, options).solve(history)
    m = (limit - turn + 1) if limit is not None else None
    expect = reference.exhaustive(codes, tuple(game.format_codes(cands)), m, criterion, fso)
    if expect == reference.INF:
        assert not result.possible and result.value is None
        return
    offset = len(cands) * (turn - 1) if criterion == "total" else 0
    assert result.exact and result.value == expect + offset
    # the best guess really achieves the value
    assert result.best_guess is not None
    assert sum(v for v in result.per_response.values() if v is not None) == result.value


def test_upper_bound_gives_a_bound(mastermind: Game) -> None:
    r = Searcher(mastermind, SolveOptions("kmovers", max_guesses=5, upper_bound=500)).solve()
    assert not r.exact and r.value is not None and r.value >= 500 and r.best_guess is None
    r = Searcher(mastermind, SolveOptions("kmovers", max_guesses=5, upper_bound=540)).solve()
    assert r.exact and r.value == 539


def test_node_limit_aborts(mastermind: Game) -> None:
    r = Searcher(mastermind, SolveOptions("total", node_limit=100)).solve()
    assert not r.exact


def test_impossible_is_reported(mastermind: Game) -> None:
    r = Searcher(mastermind, SolveOptions("kmovers", max_guesses=4)).solve()
    assert r.possible is False and r.value is None and r.exact


def test_fits_says_whether_a_set_keeps_a_limit(mastermind: Game) -> None:
    """Mastermind's optimal worst case is 5 (Knuth): every secret fits within 5 guesses, not within 4.  After
    0011 (0 bulls, 0 cows) the 256 codes of the other four colours fit within 5 but not within 3, and a single
    candidate fits only while a guess is left."""
    s = Searcher(mastermind, SolveOptions("total"))
    assert s.fits([], mastermind.all_codes, 5) and not s.fits([], mastermind.all_codes, 4)
    after = mastermind.parse_history("0011 0.0")
    rest = mastermind.candidates(after)
    assert rest.shape[0] == 256 and s.fits(after, rest, 5) and not s.fits(after, rest, 3)
    one = rest[:1]
    assert s.fits(after, one, 2) and not s.fits(after, one, 1)


def test_depth_count_chain(bulls_cows: Game, published: dict[str, Any]) -> None:
    """After 0123 2.2 and 0123 1.3 the article's chain of minimal movers (7, 6, 5, 4)."""
    table = published["min_kmovers"]["bulls-cows"]["next_level_movers_after_0123"]
    s = Searcher(bulls_cows, SolveOptions("kmovers", max_guesses=7, depth_count=4))
    for resp in ("2.2", "1.3", "0.4", "3.0", "2.1"):
        r = s.solve(bulls_cows.parse_history(f"0123 {resp}"))
        assert {str(k): v for k, v in r.chain.items()} == {k: v for k, v in table[resp].items()}, resp


@pytest.mark.parametrize(
    ("options", "needle"),
    [(SolveOptions("kmovers"), "needs max_guesses"), (SolveOptions("average"), "unknown criterion"),
     (SolveOptions("total", depth_count=3), "kmovers criterion only"),
     (SolveOptions("kmovers", max_guesses=5, depth_count=6), "depth_count must be"),
     (SolveOptions("total", max_guesses=0), "between 1 and"), (SolveOptions("total", mde=-1), "mde")],
)
def test_bad_parameters(mastermind: Game, options: SolveOptions, needle: str) -> None:
    with pytest.raises(InvalidSearchError, match=needle):
        Searcher(mastermind, options).solve()


def test_max_guesses_already_used(mastermind: Game) -> None:
    with pytest.raises(InvalidSearchError, match="already used up"):
        Searcher(mastermind, SolveOptions("total", max_guesses=1)).solve(mastermind.parse_history("0011 1.0"))


@pytest.mark.parametrize(
    ("options", "total", "movers", "nodes_key"),
    [(SolveOptions("total"), 5625, None, "avgMastermind"),
     (SolveOptions("total", max_guesses=5), 5626, None, "avgMastermind5"),
     (SolveOptions("kmovers", max_guesses=5), None, 539, "crushMastermind")],
)
def test_optimal_mastermind_trees(mastermind: Game, published: dict[str, Any], options: SolveOptions,
                                  total: int | None, movers: int | None, nodes_key: str) -> None:
    tree = optimal_tree(mastermind, options)
    stats = tree.stats()
    for secret in range(mastermind.size):
        assert tree.play(secret)[-1] == secret
    if total is not None:
        assert stats.total == total
    if movers is not None:
        assert stats.histogram[5] == movers and stats.worst_case == 5
    # node counts depend on which of several equally good guesses is kept: reported, within 3 %
    published_nodes = published["tree_nodes"][nodes_key][0]
    assert abs(stats.nodes - published_nodes) <= 0.03 * published_nodes


# -- Bulls-and-Cows hybrid columns after 0123 (article section 5, tables of 5.1.1 and 5.2.1) --------

HYBRIDS = {
    "avg35": SolveOptions("total", max_guesses=7, mde=2),
    "avg45": SolveOptions("total", max_guesses=7, mde=3),
    "fso": SolveOptions("total", max_guesses=7, mde=3, from_set_only=True),
    "crush35": SolveOptions("kmovers", max_guesses=7, mde=2),
    "crush45": SolveOptions("kmovers", max_guesses=7, mde=3),
}
FAST = ["2.2", "1.3", "0.4", "3.0", "2.1", "2.0", "1.2", "0.0"]  # at most 360 candidates
SLOW = ["0.3", "1.0", "1.1"]  # up to 720 candidates: seconds to a minute each


@pytest.fixture(scope="module")
def hybrid_searchers(bulls_cows: Game) -> dict[str, Searcher]:
    return {name: Searcher(bulls_cows, options) for name, options in HYBRIDS.items()}


def _published_column(published: dict[str, Any], column: str, response: str) -> int:
    if column.startswith("crush"):
        row = published["min_kmovers"]["bulls-cows"]["by_first_response"]["crush35"]
        # crush45 was only run where crush35 left 7-movers; elsewhere both are 0
        value = row.get(response, row.get("other"))
        if column == "crush45":
            value = published["min_kmovers"]["bulls-cows"]["by_first_response"]["crush45"].get(response, value)
        return int(value)
    table = published["min_total"]["bulls-cows"]["by_response_after_0123"]
    return int(table[response][table["_columns"].index(column)])


AVG35_TIES = {"2.1", "2.0"}
AVG35_REASON = """avg35 rows where our Larmouth, whose ties are exact (candidate, then lowest index), ends elsewhere
than the article's: 316 vs 314 after 2.1, 844 vs 845 after 2.0 (lower than published).  Larmouth's
scores are floating-point sums, so the article's ties were decided by summation noise; avg45, where
Larmouth decides fewer turns, and every exact column agree everywhere."""


def _check_column(bulls_cows: Game, searchers: dict[str, Searcher], published: dict[str, Any],
                  column: str, response: str) -> None:
    result = searchers[column].solve(bulls_cows.parse_history(f"0123 {response}"))
    assert result.exact
    assert result.value == _published_column(published, column, response)


@pytest.mark.parametrize("column", list(HYBRIDS))
@pytest.mark.parametrize("response", FAST)
def test_bulls_cows_hybrid_columns(request: pytest.FixtureRequest, bulls_cows: Game,
                                   hybrid_searchers: dict[str, Searcher], published: dict[str, Any],
                                   column: str, response: str) -> None:
    if column == "avg35" and response in AVG35_TIES:
        # still run, and fail loudly (strict) if these rows ever start to agree
        request.applymarker(pytest.mark.xfail(strict=True, reason=AVG35_REASON))
    _check_column(bulls_cows, hybrid_searchers, published, column, response)


@pytest.mark.slow
@pytest.mark.parametrize("column", list(HYBRIDS))
@pytest.mark.parametrize("response", SLOW)
def test_bulls_cows_hybrid_columns_large(bulls_cows: Game, hybrid_searchers: dict[str, Searcher],
                                         published: dict[str, Any], column: str, response: str) -> None:
    _check_column(bulls_cows, hybrid_searchers, published, column, response)


def test_bulls_cows_exact_small_responses(bulls_cows: Game, published: dict[str, Any]) -> None:
    """Exact totals (no heuristic anywhere) of the small responses equal the article's exact column."""
    s = Searcher(bulls_cows, SolveOptions("total", max_guesses=7))
    for response in ("2.2", "1.3", "0.4", "3.0", "2.1"):
        r = s.solve(bulls_cows.parse_history(f"0123 {response}"))
        assert r.value == _published_column(published, "exact", response), response


def test_node_limit_is_per_call(mastermind: Game) -> None:
    """A warm searcher's limit counts the nodes of each call, not of its whole life."""
    needed = Searcher(mastermind, SolveOptions("total", max_guesses=5)).solve().nodes
    s = Searcher(mastermind, SolveOptions("total", max_guesses=5, node_limit=needed + 1000))
    first = s.solve()
    second = s.solve(mastermind.parse_history("1123 1.0"))  # about 4000 nodes the first call did not do
    assert first.exact and first.nodes == needed
    assert second.exact and second.nodes > 1000, "the limit must not count the first call's nodes"


def test_games_beyond_the_search_ceiling_are_refused() -> None:
    """The kernels read the table directly: a game beyond the ceiling gets an error, not a crash nor a
    table of n² bytes; a deployment's lower limit is refused the same way, before any table is built."""
    huge = Game(6, 9, True)  # 531441 codes: a 282 GB table
    with pytest.raises(InvalidSearchError, match="531441 codes, more than the 65536 the exact search takes"):
        Searcher(huge, SolveOptions("total"))
    capped = Game(5, 10, False, search_max_codes=8192)
    with pytest.raises(InvalidSearchError, match="30240 codes, more than the 8192"):
        Searcher(capped, SolveOptions("total"))


def test_evaluate_guess_with_upper_bound_stops_at_beta(mastermind: Game) -> None:
    """β-bounded evaluation (how a job cuts sibling guesses): below β exact, at or above it a
    lower bound that is still at least β."""
    s = Searcher(mastermind, SolveOptions("total", max_guesses=5))
    exact = s.evaluate_guess([], mastermind.parse_code("0011")).value
    assert exact == 5702
    cut = s.evaluate_guess([], mastermind.parse_code("0011"),
                           options=SolveOptions("total", max_guesses=5, upper_bound=5702))
    assert not cut.exact and cut.value is not None and 5702 <= cut.value <= exact
    again = s.evaluate_guess([], mastermind.parse_code("0011"),
                             options=SolveOptions("total", max_guesses=5, upper_bound=5703))
    assert again.exact and again.value == 5702


def test_request_stop_interrupts_a_running_search(bulls_cows: Game) -> None:
    """The kernel releases the GIL, so another thread can stop a long search (job cancellation)."""
    import threading
    import time

    s = Searcher(bulls_cows, SolveOptions("total"))
    history = bulls_cows.parse_history("0123 1.1")  # minutes of search
    timer = threading.Timer(0.5, s.request_stop)
    t0 = time.perf_counter()
    timer.start()
    r = s.solve(history)
    elapsed = time.perf_counter() - t0
    assert not r.exact and r.value is None and elapsed < 30
    s.clear_stop()
    small = s.solve(bulls_cows.parse_history("0123 0.0, 4567 0.4"))
    assert small.exact


def test_a_chooser_after_a_stopped_search_still_finds_its_guesses(bulls_cows: Game) -> None:
    """A search stopped from outside leaves its abort flag set; the tree chooser asked next (the polish builds a
    tree after a sweep cut by its deadline) must search anew, not read it and say that no strategy fits."""
    s = Searcher(bulls_cows, SolveOptions("total", 7))
    s.request_stop()
    assert s.solve(bulls_cows.parse_history("0123 1.1")).value is None  # stopped at its first node
    s.clear_stop()
    history = bulls_cows.parse_history("0123 0.0, 4567 0.4")
    tree = build_tree(bulls_cows, s.chooser(), history)
    assert tree.stats().total == Searcher(bulls_cows, SolveOptions("total", 7)).solve(history).value


@pytest.mark.parametrize("symbols", [47, 55, 62])
def test_deep_searches_of_one_position_games(symbols: int) -> None:
    """Found by fuzzing the service: a one-position game with many symbols is searched one code per
    ply, deeper than the workspace once was (a segfault).  Its optimum is 1 + 2 + ... + s."""
    for rep in (False, True):
        result = Searcher(Game(1, symbols, rep), SolveOptions("total")).solve()
        assert result.value == symbols * (symbols + 1) // 2 and result.exact


def test_a_search_deeper_than_its_workspace_stops_with_an_error() -> None:
    s = Searcher(Game(1, 12, False), SolveOptions("total"))
    for name in ("_ws_keys", "_ws_parts", "_ws_buf", "_ws_inset", "_ws_pool", "_ws_hkey", "_ws_hstamp"):
        setattr(s, name, getattr(s, name)[:4].copy())
    with pytest.raises(SearchTooDeepError, match="deeper than 4 guesses"):
        s.solve()
    s2 = Searcher(Game(1, 12, False), SolveOptions("total"))
    assert s2.solve().value == 78  # a full workspace: fine


def test_a_proven_position_is_answered_from_the_table(mastermind: Game) -> None:
    """A table holding the root (as a campaign leaves it) answers solve() and every tree node below
    it without searching them again; values, guesses and trees are those of a search from scratch."""
    from solver.table import Entry

    options = SolveOptions("total", 5)
    fresh = Searcher(mastermind, options, export_threshold=1)
    want = fresh.solve()
    assert want.value == 5626 and want.best_guess is not None
    root = Entry(options.table_key(mastermind), tuple(range(mastermind.size)), 5, 1, True, want.value,
                 want.best_guess, want.nodes)
    warm = Searcher(mastermind, options)
    warm.table().load([root, *fresh.table().export()])
    got = warm.solve()
    assert (got.value, got.best_guess, got.per_response) == (want.value, want.best_guess, want.per_response)
    assert got.nodes * 20 < want.nodes
    tree = optimal_tree(mastermind, options, searcher=warm)
    assert tree.stats().total == 5626 and warm.stats[0] * 20 < want.nodes  # solve and tree together


def test_digit_classes_keep_one_guess_per_orbit() -> None:
    """is_canonical against brute force: among codes that differ only by a permutation of the absent
    symbols and one of the uncalled ones, exactly the lowest-index code is kept."""
    import itertools

    import numpy as np

    from solver.searchkernels import is_canonical

    for spec, absent, uncalled in [("4,10,0", 0b1100010000, 0b0000001100), ("4,6,1", 0b110000, 0b000011),
                                   ("3,7,0", 0b1110000, 0), ("4,10,0", 0, 0b1111000000)]:
        game = Game.from_spec(spec)
        codes = game.arrays().codes
        classes = [[s for s in range(game.symbols) if mask >> s & 1] for mask in (absent, uncalled)]
        perms = [list(itertools.permutations(c)) for c in classes]
        index = {tuple(int(v) for v in row): i for i, row in enumerate(codes)}
        for g, row in enumerate(codes):
            orbit = set()
            for pa in perms[0]:
                for pu in perms[1]:
                    mapping = {**dict(zip(classes[0], pa, strict=True)), **dict(zip(classes[1], pu, strict=True))}
                    orbit.add(index[tuple(mapping.get(int(v), int(v)) for v in row)])
            assert is_canonical(codes, g, np.int64(absent), np.int64(uncalled)) == (g == min(orbit)), (spec, g)


def test_crush_hybrid_values_depend_on_the_class_member(bulls_cows: Game, published: dict[str, Any]) -> None:
    """Why crush35 after 0123 0.1 is 106 here and 76 in the article: crush breaks ties by code index,
    which no symmetry preserves, so two second guesses of one equivalence class can be worth different
    counts.  The exact turns search one member per class (our pools pick 1456 for the class of 2456);
    the early article's own second guess 2456 gives exactly its figures, response by response
    (0.1: 55, 0.2: 17, 1.1: 2, 1.0: 1, 0.0: 1 — total 76, the published crush35 value), and its 4506
    after 0123 0.2 gives its 23 (17, 5, 1).  The rule is reproduced; the published column picked other
    class members than ours."""
    s = Searcher(bulls_cows, SolveOptions("kmovers", max_guesses=7, mde=2))
    after01 = bulls_cows.parse_history("0123 0.1")
    pool = [bulls_cows.format_code(int(c)) for c in s.pools(after01)[0]]
    assert "1456" in pool and "2456" not in pool  # one class, one member searched
    ours = s.evaluate_guess(after01, bulls_cows.parse_code("1456"))
    theirs = s.evaluate_guess(after01, bulls_cows.parse_code("2456"))
    assert ours.value == 106
    assert theirs.value == 76 == published["min_kmovers"]["bulls-cows"]["by_first_response"]["crush35"]["0.1"]
    assert {bulls_cows.format_response(r): v for r, v in theirs.per_response.items() if v} == {
        "0.1": 55, "0.2": 17, "1.1": 2, "1.0": 1, "0.0": 1}
    after02 = s.evaluate_guess(bulls_cows.parse_history("0123 0.2"), bulls_cows.parse_code("4506"))
    assert after02.value == 23
    assert {bulls_cows.format_response(r): v for r, v in after02.per_response.items() if v} == {
        "0.1": 17, "0.2": 5, "1.0": 1}


def test_an_exact_value_without_its_guess_still_gives_the_guess(mastermind: Game) -> None:
    """A job stores its parts' values without their best guesses: a tree built from such a table
    still gets a guess at every node (the value only bounds the search there)."""
    from solver.table import Entry

    options = SolveOptions("total", 6)
    # three turns: the kernel itself answers the root (shorter histories loop over guesses here)
    secret = mastermind.parse_code("3451")
    history = [Turn(g, mastermind.response(g, secret)) for g in map(mastermind.parse_code, ("0011", "0022", "1133"))]
    cands = mastermind.candidates(history)
    assert cands.shape[0] > 14
    want = Searcher(mastermind, options).solve(history)
    assert want.value is not None and want.best_guess is not None
    no_guess = Entry(options.table_key(mastermind), tuple(int(c) for c in cands), 3, 4, True,
                     want.value - 3 * cands.shape[0], None, 1)
    warm = Searcher(mastermind, options)
    warm.table().load([no_guess])
    got = warm.solve(history)
    assert (got.value, got.best_guess) == (want.value, want.best_guess)
    tree = optimal_tree(mastermind, options, history, searcher=warm)
    assert tree.stats().total == want.value


def test_one_searcher_asked_different_questions_keeps_their_tables_apart() -> None:
    """Per-call options share a searcher, never a table: totals within k, then the k-movers (same k),
    then a hybrid, each answered as a searcher of its own question answers it."""
    g = Game(3, 3, True)
    shared = Searcher(g, SolveOptions("total"))
    for options in (SolveOptions("total", 4), SolveOptions("kmovers", 4), SolveOptions("total", 4, None, 1, True),
                    SolveOptions("total", 4), SolveOptions("kmovers", 4)):
        alone = Searcher(g, options).solve(())
        asked = shared.solve((), options=options)
        assert (asked.value, asked.exact) == (alone.value, alone.exact), options
    assert len(shared.tables) == 3


def test_optimal_tree_plays_the_question_it_is_asked_with_any_searcher() -> None:
    """A searcher of another question (the totals') builds the k-movers tree asked for, not its own."""
    g = Game(4, 2, True)
    shared = Searcher(g, SolveOptions("total"))
    totals = optimal_tree(g, SolveOptions("total"), searcher=shared).stats()
    movers = optimal_tree(g, SolveOptions("kmovers", 4), searcher=shared).stats()
    alone = optimal_tree(g, SolveOptions("kmovers", 4)).stats()
    assert movers.histogram == alone.histogram and movers.histogram[4] == Searcher(
        g, SolveOptions("kmovers", 4)).solve(()).value
    assert totals.total == Searcher(g, SolveOptions("total")).solve(()).value


@st.composite
def positions(draw: st.DrawFn) -> tuple[Game, list[int], int, int]:
    """A small game, a candidate set of it, and the symbol classes of a random history."""
    game = draw(games(max_codes=400))
    size = draw(st.integers(1, min(game.size, 40)))
    cands = sorted(draw(st.sets(st.integers(0, game.size - 1), min_size=size, max_size=size)))
    absent = draw(st.integers(0, (1 << game.symbols) - 1))
    uncalled = draw(st.integers(0, (1 << game.symbols) - 1)) & ~absent
    return game, cands, absent, uncalled


def _partitions(game: Game, cands: list[int]) -> list[dict[int, int]]:
    """Per code, the sizes of the parts it splits ``cands`` into, by response (plain Python)."""
    out = []
    for g in range(game.size):
        sizes: dict[int, int] = {}
        for c in cands:
            r = game.response(g, c)
            sizes[r] = sizes.get(r, 0) + 1
        out.append(sizes)
    return out


@settings(max_examples=60, deadline=None)
@given(positions())
def test_part_counts_and_perfect_splits_agree_with_the_partitions(
        position: tuple[Game, list[int], int, int]) -> None:
    """Each code's count is the number of parts it splits the set into (zero in the padding); the
    perfect split found is the first candidate that splits the set into singletons, else the lowest
    canonical other code that does, as reading every response would find."""
    import numpy as np

    from solver import searchparts as sk

    game, cands, absent, uncalled = position
    a = game.arrays(table=True)
    S = np.array(cands, dtype=np.int32)
    parts = _partitions(game, cands)
    # in every word width the responses fit (16, 32 and 64 bits: the kernel takes the narrowest)
    for bits in (b for b in (16, 32, 64) if int(a.table.max()) < b):
        pc = np.zeros(-(-game.size // 8) * 8, dtype=np.uint8)  # whole words, as the searcher's rows
        sk.count_parts(a.table, S, np.zeros(game.size, dtype=np.uint64), pc, game.size, bits)
        assert list(pc[:game.size]) == [len(p) for p in parts] and not pc[game.size:].any(), bits
    inset = np.zeros(game.size, dtype=np.uint8)
    inset[S] = 1
    perfect = [g for g in range(game.size) if len(parts[g]) == len(cands)]
    inside = [g for g in cands if g in perfect]
    assert sk.perfect_candidate(a.table, S) == (inside[0] if inside else -1)
    outside = [g for g in perfect if g not in cands and sk.is_canonical(a.codes, g, np.int64(absent),
                                                                        np.int64(uncalled))]
    got = sk.perfect_other(pc, len(cands), inset, a.codes, np.int64(absent), np.int64(uncalled))
    assert got == (outside[0] if outside else -1)


@settings(max_examples=60, deadline=None)
@given(positions(), st.data())
def test_the_prefilter_drops_only_codes_whose_partition_bound_reaches_beta(
        position: tuple[Game, list[int], int, int], data: st.DataObject) -> None:
    """What the prefilter drops, reading only each code's number of parts, is what the exact partition
    bound (every part's size read) would drop too; the bound it reports for them is no higher than
    theirs; it keeps, in increasing order, every canonical non-candidate that splits the set with a
    bound below beta."""
    import numpy as np

    from solver import searchparts as sk
    from solver.bounds import lower_bound_tables
    from solver.question import INF

    game, cands, absent, uncalled = position
    a = game.arrays(table=True)
    S = np.array(cands, dtype=np.int32)
    n = len(cands)
    crit = data.draw(st.integers(0, 1))
    lb = lower_bound_tables(game, game.size)[0, crit]
    m = data.draw(st.integers(2, lb.shape[0] - 1))
    lbrow = lb[m - 1]
    base = n if crit == 0 else 0
    beta = data.draw(st.integers(0, 6 * n + 2))
    pc = np.zeros(-(-game.size // 8) * 8, dtype=np.uint8)
    sk.count_parts(a.table, S, np.zeros(game.size, dtype=np.uint64), pc, game.size, game.n_responses)
    inset = np.zeros(game.size, dtype=np.uint8)
    inset[S] = 1
    keys = np.zeros(game.size, dtype=np.int64)
    fail = np.full(1, INF, dtype=np.int64)
    nk = sk.prefilter(pc, n, inset, a.codes, np.int64(absent), np.int64(uncalled), lbrow, np.int64(base),
                       np.int64(beta), game.size, keys, 0, fail, np.zeros(65, dtype=np.int64))
    kept = [int(k) % game.size for k in keys[:nk]]
    exact = {g: min(INF, base + sum(int(lbrow[c]) for c in p.values())) for g, p in enumerate(_partitions(game, cands))
             if g not in cands and len(p) > 1}
    canonical = [g for g in exact if sk.is_canonical(a.codes, g, np.int64(absent), np.int64(uncalled))]
    assert kept == sorted(kept) and set(kept) <= set(canonical)
    assert {g for g in canonical if exact[g] < beta} <= set(kept)
    assert all(int(k) // game.size <= exact[int(k) % game.size] for k in keys[:nk])  # the order's bounds
    dropped = [exact[g] for g in canonical if g not in kept]  # the others are one per class
    if dropped:
        assert beta <= fail[0] <= min(dropped)


@settings(max_examples=60, deadline=None)
@given(positions(), st.data())
def test_a_code_is_dropped_early_only_when_its_partition_bound_reaches_beta(
        position: tuple[Game, list[int], int, int], data: st.DataObject) -> None:
    """What the search's early reading of an other code's responses proves (``searchparts.bound_reaches``) is what
    its exact partition bound (every part's size read) proves: at least ``beta`` exactly when that bound is, and
    never more than it; its scratch is left zero."""
    import numpy as np

    from solver import searchparts as sk
    from solver.bounds import lower_bound_tables
    from solver.question import INF

    game, cands, _, _ = position
    a = game.arrays(table=True)
    S = np.array(cands, dtype=np.int32)
    n = len(cands)
    crit = data.draw(st.integers(0, 1))
    lb = lower_bound_tables(game, game.size)[0, crit]
    lbrow = lb[data.draw(st.integers(1, lb.shape[0] - 2))]
    base = n if crit == 0 else 0
    beta = data.draw(st.integers(0, 6 * n + 2))
    cnt = np.zeros(game.n_responses + 1, dtype=np.int64)
    touched = np.zeros(game.n_responses + 1, dtype=np.int64)
    for g, p in enumerate(_partitions(game, cands)):
        if g in cands:
            continue
        exact = min(INF, base + sum(int(lbrow[c]) for c in p.values()))
        got = sk.bound_reaches(a.table, S, n, g, lbrow, np.int64(base), np.int64(1 - crit), np.int64(beta), cnt,
                               touched)
        assert (got >= 0) == (exact >= beta) and not cnt.any()
        if got >= 0:
            assert beta <= got <= exact


def test_lower_bound_rows_are_convex() -> None:
    """The prefilter's bound for a code with P parts is the most even P parts' (see
    ``searchparts.prefilter``), which holds because every row of the bound tables is zero for no
    code and never steps down until it turns INF for good: checked on every game the atlas covers."""
    import numpy as np

    from solver.atlas import atlas_games
    from solver.bounds import branching_tables, lower_bound_tables
    from solver.question import INF

    for game in atlas_games():
        rows = [lower_bound_tables(game, game.size)[0].reshape(-1, game.size + 1),
                branching_tables(game, game.size).reshape(-1, game.size + 1)]  # the rows by a set's own branching
        for row in np.concatenate(rows):
            finite = int((row < INF).sum())
            assert (row[:finite] < INF).all() and row[0] in (0, INF)
            assert (np.diff(row[:finite], 2) >= 0).all(), game.spec


def test_a_sets_own_branching_prunes_a_deep_search_and_changes_no_value() -> None:
    """Six positions of seven symbols, two guesses in: no code makes more than a few parts of the 36 codes left,
    so valuing the nodes by their own branching proves the same optimum with far fewer nodes, with no guess
    limit and within six guesses."""
    game = Game.from_spec("6,7,0")
    history = game.parse_history(["012345 2.4", "120453 1.5"])
    for limit in (None, 6):
        counted = Searcher(game, SolveOptions("total", limit))
        by_size = Searcher(game, SolveOptions("total", limit), branching=False)
        value = counted.solve(history).value
        assert value is not None and value == by_size.solve(history).value
        assert counted.work()["nodes"] * 2 < by_size.work()["nodes"], (limit, counted.work(), by_size.work())


@settings(max_examples=30, deadline=None)
@given(spec=st.sampled_from(["4,5,0", "3,5,1", "4,4,1", "3,6,0", "4,6,0", "3,6,1"]), moves=st.integers(0, 2),
       limit=st.sampled_from([None, 4, 5, 6]), data=st.data())
def test_the_search_by_each_sets_branching_proves_the_same_values(spec: str, moves: int, limit: int | None,
                                                                  data: st.DataObject) -> None:
    """After any history, with or without a guess limit, the exact search valuing its nodes by their own
    branching (the default) and the same search by the game's response count alone prove the same total (or
    both that nothing fits the limit), and a guess reaching it."""
    game = Game.from_spec(spec)
    secret = data.draw(st.integers(0, game.size - 1))
    guesses = data.draw(st.lists(st.integers(0, game.size - 1), min_size=moves, max_size=moves, unique=True))
    history = [Turn(g, int(game.response(g, secret))) for g in guesses if g != secret]
    if len(game.candidates(history)) < 2:
        return
    counted = Searcher(game, SolveOptions("total", limit))
    by_size = Searcher(game, SolveOptions("total", limit), branching=False)
    got, want = counted.solve(history), by_size.solve(history)
    assert got.value == want.value
    if want.value is None:
        return
    assert got.exact and want.exact and got.best_guess is not None
    assert by_size.evaluate_guess(history, got.best_guess).value == want.value


@pytest.mark.slow
def test_eight_position_games_search_with_their_responses_renumbered() -> None:
    """From 8 positions the response encoding passes 64 values, more than the kernel's masks hold, and
    the searcher renumbers them: its values still equal plain exhaustive search."""
    from solver.bounds import kernel_responses

    game = Game(8, 2, True)
    table, size, win = kernel_responses(game, game.arrays(table=True).table)
    assert game.n_responses > 64 and size == int(table.max()) + 1 <= 64 and win == int(table[0, 0])
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, game.alphabet)
    checked = 0
    for history in (["00000011 5.2", "01010101 5.2"], ["00000000 6.0", "11000000 6.2"],
                    ["00001111 4.4", "01010101 2.6"]):
        turns = game.parse_history(history)
        cands = game.candidates(turns)
        for criterion, limit in (("total", None), ("kmovers", 5), ("kmovers", 6)):
            result = Searcher(game, SolveOptions(criterion, max_guesses=limit)).solve(turns)
            expect = reference.exhaustive(codes, tuple(game.format_codes(cands)),
                                          None if limit is None else limit - len(turns), criterion, False)
            if expect == reference.INF:
                assert not result.possible, (history, criterion)
                continue
            offset = len(cands) * len(turns) if criterion == "total" else 0
            assert result.exact and result.value == expect + offset, (history, criterion)
            checked += 1
    assert checked >= 4


def test_a_searcher_reports_where_its_work_went() -> None:
    searcher = Searcher(Game.from_spec("mastermind"), SolveOptions("total"))
    searcher.solve(Game.from_spec("mastermind").parse_history(["0011 0.1"]))
    work = searcher.work()
    assert work["nodes"] == searcher.nodes > work["expanded"] > 0
    assert work["scanned_others"] > 0 and work["reads_others"] >= work["scanned_others"]
    assert work["reads_candidates"] >= work["scanned_candidates"] > 0
    assert work["mask_rows"] > 0


def test_the_search_runs_beyond_8192_codes() -> None:
    """Super Mastermind (32768 codes, a 1 GiB response table): a small position is solved exactly, its
    from-set-only value is the exhaustive reference's, the free search does no worse, and the optimal tree
    of the position plays every candidate in the number of guesses the search found."""
    game = Game(5, 8, True)
    history = game.parse_history("00112 4.0, 33456 0.0")
    cands = game.candidates(history)
    assert 8 <= cands.shape[0] <= 20
    free = Searcher(game, SolveOptions("total")).solve(history)
    fso = Searcher(game, SolveOptions("total", from_set_only=True)).solve(history)
    alphabet = game.alphabet[: game.symbols]
    names = tuple(game.format_code(int(c)) for c in cands)
    codes = reference.all_codes(game.positions, game.symbols, game.repetition, alphabet)
    offset = len(history) * cands.shape[0]
    assert fso.exact and fso.value == offset + reference.exhaustive(codes, names, None, "total", True)
    assert free.exact and free.value <= fso.value
    tree = optimal_tree(game, SolveOptions("total"), history)
    assert tree.stats().total == free.value
    assert all(tree.play(int(c))[-1] == int(c) for c in cands)


@pytest.mark.parametrize(("spec", "criterion", "fso", "limit", "history"), [
    ("3,5,1", "total", True, None, ()),
    ("4,4,1", "total", False, None, ()),
    ("4,4,1", "kmovers", False, 5, ()),
    ("3,6,1", "total", True, None, (("001", "0.1"),)),
])
def test_a_search_continued_from_any_checkpoint_gives_the_same_answer(
        spec: str, criterion: str, fso: bool, limit: int | None, history: tuple[tuple[str, str], ...]) -> None:
    """``solve(checkpoint=)`` tells how far the root's guesses have come; a fresh searcher given any of those
    states (through JSON, as a progress file keeps them) as ``resume`` ends at the same value, guess and values
    per response as the search that was never stopped.  Progress of another question is refused."""
    import json

    from solver.search import RootProgress

    game = Game.from_spec(spec)
    turns = [Turn(game.parse_code(c), game.parse_response(r)) for c, r in history]
    options = SolveOptions(criterion, max_guesses=limit, from_set_only=fso)
    seen: list[RootProgress] = []
    whole = Searcher(game, options).solve(turns, checkpoint=seen.append)
    assert whole.exact and whole.value is not None
    assert len(seen) > 3 and any(s.parts for s in seen) and any(s.best_guess is not None for s in seen)
    assert [(s.done, s.parts) for s in seen] == sorted((s.done, s.parts) for s in seen)
    assert all(a != b for a, b in itertools.pairwise(seen)), "a state told to the checkpoint twice in a row"
    for state in seen:
        again = RootProgress.from_json(json.loads(json.dumps(state.to_json())))
        assert again == state
        resumed = Searcher(game, options).solve(turns, resume=again)
        assert (resumed.value, resumed.best_guess, resumed.per_response) == \
            (whole.value, whole.best_guess, whole.per_response)
    other = SolveOptions(criterion, max_guesses=(limit or 9) - 1 if limit else 9, from_set_only=fso)
    with pytest.raises(InvalidSearchError, match="another search"):
        Searcher(game, other).solve(turns, resume=seen[-1])
    with pytest.raises(ValueError, match="not the progress"):
        RootProgress.from_json({"order": "x"})


@pytest.mark.parametrize(("spec", "criterion", "fso", "limit", "history"), [
    ("3,5,1", "total", True, None, ()),
    ("4,4,1", "kmovers", False, 5, ()),
    ("3,6,1", "total", True, None, (("001", "0.1"),)),
])
@pytest.mark.parametrize("slots", [2, 3])
def test_shares_of_a_search_give_its_value(spec: str, criterion: str, fso: bool, limit: int | None,
                                           history: tuple[tuple[str, str], ...], slots: int) -> None:
    """``search_root`` shares the root's guesses among ``slots`` searches: the least of their best values is the
    position's value, whether the shares tell each other their best (``elsewhere``) or not, and whether they
    start afresh or from a checkpoint of the whole search; the best guess of that share is an optimal guess."""
    from solver.search import RootProgress
    from solver.vocabulary import remaining_value

    game = Game.from_spec(spec)
    turns = [Turn(game.parse_code(c), game.parse_response(r)) for c, r in history]
    options = SolveOptions(criterion, max_guesses=limit, from_set_only=fso)
    seen: list[RootProgress] = []
    whole = Searcher(game, options).solve(turns, checkpoint=seen.append)
    assert whole.value is not None
    n = len(game.candidates(turns))
    value = remaining_value(whole.value, n, len(turns) + 1, criterion)
    midway = seen[len(seen) // 2]
    for start in (None, midway):
        for told in (False, True):
            best: dict[int, int] = {}

            def elsewhere(mine: int, best: dict[int, int] = best, told: bool = told) -> int | None:
                others = [v for s, v in best.items() if s != mine]
                return min(others) if told and others else None

            finals = []
            for mine in range(slots):
                told_states: list[RootProgress] = []
                got = Searcher(game, options).search_root(turns, slot=(mine, slots), resume=start,
                                                          elsewhere=lambda mine=mine: elsewhere(mine),
                                                          checkpoint=told_states.append)
                assert got is not None and got.done == got.guesses
                assert told_states[-1] == got
                assert all(a != b for a, b in itertools.pairwise(told_states)), "a state told twice in a row"
                if got.best_value is not None:
                    best[mine] = got.best_value
                finals.append(got)
            assert min(best.values()) == value
            winner = min((f for f in finals if f.best_value is not None), key=lambda f: f.best_value or 0)
            assert winner.best_guess is not None
            played = Searcher(game, options).evaluate_guess(turns, winner.best_guess)
            assert played.value == whole.value
    with pytest.raises(InvalidSearchError, match="slot 2 of 2"):
        Searcher(game, options).search_root(turns, slot=(2, 2))


def test_a_budget_that_ends_while_the_root_is_ordered_stops_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ordering a root's guesses scores a block of them per kernel call and reads the clock between blocks: a budget
    already spent scores one block (not the whole pool), and the answer is cut, never a value
    read off a partial order.  Without the budget the same position scores every block."""
    from solver import kernels, search

    game = Game.from_spec("5,6,1")
    history = game.parse_history("00112 1.1, 23345 0.2")  # 199 candidates, and almost no symmetry: 7774 guesses
    blocks: list[int] = []
    scored = kernels.partition_matrix

    def counted(*args: Any) -> Any:
        blocks.append(int(args[4].shape[0]))
        return scored(*args)

    monkeypatch.setattr(kernels, "partition_matrix", counted)
    searcher = Searcher(game, SolveOptions("total"))
    cut = searcher.solve_within(history, 0.0)
    assert cut.cut and not cut.exact and cut.best_guess is None
    assert blocks == [search.ORDER_BLOCK]
    blocks.clear()
    order = searcher.guess_order(history, game.candidates(history), 3, None)
    assert len(blocks) > 1 and sum(blocks) >= len(order) > search.ORDER_BLOCK
