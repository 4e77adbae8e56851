"""Game model: enumeration, text forms, responses, validation (the foundation issue)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import kernels
from solver.errors import (
    GameTooLargeError,
    InconsistentHistoryError,
    InvalidCodeError,
    InvalidGameError,
    InvalidResponseError,
    SolverError,
)
from solver.game import Game, Turn, response_factors
from solver.heuristics import partition
from tests import reference


@st.composite
def games(draw: st.DrawFn, max_codes: int = 1500) -> Game:
    """Small random games, with and without repetition."""
    rep = draw(st.booleans())
    p = draw(st.integers(1, 4))
    s = draw(st.integers(1 if rep else p, 7))
    while Game(p, s, rep).size > max_codes:
        # shrink until the game fits the cap (symbols first, keeping p <= s without repetition)
        if s > (1 if rep else p) and s > 2:
            s -= 1
        else:
            p -= 1
            s = max(s, 1 if rep else p)
    return Game(p, s, rep)


def test_presets(bulls_cows: Game, mastermind: Game, published: dict[str, Any]) -> None:
    for name, game in (("bulls-cows", bulls_cows), ("mastermind", mastermind)):
        spec = published["games"][name]
        assert (game.positions, game.symbols, game.repetition) == (
            spec["positions"], spec["symbols"], spec["repetition"])
        assert game.size == spec["codes"] == game.arrays().codes.shape[0]
    assert Game.from_spec("4,10,0") == bulls_cows
    assert Game.from_spec("4,6,1") == mastermind
    assert Game.from_spec(" 4, 6, yes ") == mastermind


@given(games())
@settings(max_examples=40, deadline=None)
def test_enumeration_is_lexicographic_and_ranks_invert(game: Game) -> None:
    texts = reference.all_codes(game.positions, game.symbols, game.repetition, game.alphabet)
    assert game.format_codes(range(game.size)) == texts
    for k in range(0, game.size, max(1, game.size // 50)):
        assert game.parse_code(texts[k]) == k


def test_custom_alphabet() -> None:
    g = Game(3, 7, False, "1234567")
    assert g.size == 210
    assert g.format_code(0) == "123"
    assert g.parse_code("765") == g.size - 1
    with pytest.raises(InvalidCodeError, match="'8'"):
        g.parse_code("128")


def test_partition_after_0123(bulls_cows: Game, published: dict[str, Any]) -> None:
    parts = partition(bulls_cows, bulls_cows.parse_code("0123"), bulls_cows.all_codes)
    got = {bulls_cows.format_response(r): n for r, n in parts.items()}
    assert got == published["partition_after_0123_bulls_cows"]


@given(games(), st.data())
@settings(max_examples=60, deadline=None)
def test_responses_match_reference_and_are_symmetric(game: Game, data: st.DataObject) -> None:
    a = game.arrays()
    for _ in range(20):
        i = data.draw(st.integers(0, game.size - 1))
        j = data.draw(st.integers(0, game.size - 1))
        r = int(kernels.response(a.codes, a.masks, a.counts, i, j))
        assert r == int(kernels.response(a.codes, a.masks, a.counts, j, i))
        b, c = game.bulls_cows(r)
        assert 0 <= b + c <= game.positions
        assert (b, c) == reference.bulls_cows(game.format_code(i), game.format_code(j))
        assert (r == game.all_bulls) == (i == j)
        # every response that occurs passes the validator
        assert game.encode_response(b, c) == r


@given(games(max_codes=800))
@settings(max_examples=25, deadline=None)
def test_table_equals_on_the_fly_kernel(game: Game) -> None:
    a = game.arrays()
    table = kernels.response_table(a.codes, a.masks, a.counts)
    assert table.shape == (game.size, game.size)
    assert np.array_equal(table, table.T)
    for i in range(0, game.size, max(1, game.size // 30)):
        row = np.array([kernels.response(a.codes, a.masks, a.counts, i, j) for j in range(game.size)])
        assert np.array_equal(table[i], row)


@given(games(max_codes=1500))
@settings(max_examples=30, deadline=None)
def test_factor_tables_sum_to_the_response(game: Game) -> None:
    """Four small-table lookups give every response, with and without repetition."""
    a = game.arrays()
    table = kernels.response_table(a.codes, a.masks, a.counts)
    f = response_factors(game.positions, game.symbols, game.repetition)
    assert f.keys.shape == (game.size, 4)
    total = sum(f.tables[t][f.keys[:, t][:, None], f.keys[:, t][None, :]].astype(np.int64) for t in range(4))
    assert np.array_equal(total, table)


def test_factor_tables_of_large_games() -> None:
    """Games past the table budget get factor tables while their keys fit, and say so otherwise."""
    for spec, shapes in (("5,8,1", [(512, 512), (64, 64), (792, 792), (1, 1)]),
                         ("6,10,0", [(1000, 1000), (1000, 1000), (210, 210), (1, 1)])):
        g = Game.from_spec(spec)
        f = g.factors()
        assert [t.shape for t in f.tables] == shapes
        a = g.arrays()
        rng = np.random.default_rng(7)
        for i, j in rng.integers(0, g.size, size=(500, 2)):
            got = sum(int(f.tables[t][f.keys[i, t], f.keys[j, t]]) for t in range(4))
            assert got == kernels.response(a.codes, a.masks, a.counts, i, j)
    assert Game.from_spec("mastermind").factors().keys.shape[0] == 0, "a response table is cheaper"
    assert response_factors(4, 40, True).keys.shape[0] == 0, "four groups of positions do not fit"
    assert response_factors(5, 12, True).keys.shape[0] == 0, "4368 multisets do not fit"


def test_large_game_runs_on_the_fly() -> None:
    g = Game(5, 10, False)
    assert g.size == 30240
    a = g.arrays(table=True)
    assert a.table.shape == (0, 0), "30240^2 bytes exceed the default table budget"
    history = g.parse_history("01234 1.2, 56789 0.2")
    cands = g.candidates(history)
    texts = reference.all_codes(5, 10, False, g.alphabet)
    expect = [t for t in texts
              if reference.bulls_cows("01234", t) == (1, 2) and reference.bulls_cows("56789", t) == (0, 2)]
    assert g.format_codes(cands) == expect


@pytest.mark.parametrize(
    ("text", "needle"),
    [("012", "has 3 symbols"), ("01234", "has 5 symbols"), ("01a3", "'a' is not one of"),
     ("0113", "repeats symbol '1'"), ("", "has 0 symbols")],
)
def test_malformed_codes(bulls_cows: Game, text: str, needle: str) -> None:
    with pytest.raises(InvalidCodeError, match=needle):
        bulls_cows.parse_code(text)


def test_mastermind_allows_repeats_but_not_foreign_symbols(mastermind: Game) -> None:
    assert mastermind.format_code(mastermind.parse_code("0011")) == "0011"
    with pytest.raises(InvalidCodeError, match="'6'"):
        mastermind.parse_code("0016")


@pytest.mark.parametrize(
    ("text", "needle"),
    [("3.1", "cannot be a cow"), ("2.3", "cannot exceed"), ("5.0", "cannot exceed"),
     ("x.1", "not of the form"), ("1", "not of the form"), ("-1.0", "not of the form")],
)
def test_impossible_responses(bulls_cows: Game, text: str, needle: str) -> None:
    with pytest.raises(InvalidResponseError, match=needle):
        bulls_cows.parse_response(text)


def test_response_forms(bulls_cows: Game) -> None:
    r = bulls_cows.encode_response(1, 2)
    assert bulls_cows.format_response(r) == "1.2"
    for text in ("1.2", "1,2", "1 2", "1b2c", " 1.2 "):
        assert bulls_cows.parse_response(text) == r


def test_distinct_symbols_must_share_some() -> None:
    g = Game(4, 6, False)
    with pytest.raises(InvalidResponseError, match="at least 2"):
        g.parse_response("0.1")
    assert g.parse_response("0.2") == 2


def test_histories(bulls_cows: Game) -> None:
    forms = ["0123 0.1, 1245 0.2", "0123(0,1)+1245(0,2)", "0123 0.1 1245 0.2"]
    parsed = [bulls_cows.parse_history(f) for f in forms]
    assert parsed[0] == parsed[1] == parsed[2] == [
        Turn(bulls_cows.parse_code("0123"), bulls_cows.parse_response("0.1")),
        Turn(bulls_cows.parse_code("1245"), bulls_cows.parse_response("0.2")),
    ]
    cands = bulls_cows.candidates(parsed[0])
    expect = [t for t in reference.all_codes(4, 10, False, bulls_cows.alphabet)
              if reference.bulls_cows("0123", t) == (0, 1) and reference.bulls_cows("1245", t) == (0, 2)]
    assert bulls_cows.format_codes(cands) == expect


@pytest.mark.parametrize(
    ("history", "needle"),
    [("0123 0.0, 4567 0.4, 5674 0.0", "turn 3"), ("0123 4.0, 4567 0.0", "already won"),
     ("0123 0.0, 0123 0.1", "turn 2")],
)
def test_inconsistent_histories(bulls_cows: Game, history: str, needle: str) -> None:
    with pytest.raises(InconsistentHistoryError, match=needle):
        bulls_cows.candidates(bulls_cows.parse_history(history))


def test_response_impossible_for_that_guess(mastermind: Game) -> None:
    with pytest.raises(InconsistentHistoryError,
                       match=r"turn 1 \(0000: 0 black, 1 white\): no code can answer '0000' with 0 black, 1 white"):
        mastermind.candidates(mastermind.parse_history("0000 0.1"))


@pytest.mark.parametrize(
    ("spec", "error", "needle"),
    [("4,3,0", InvalidGameError, "distinct symbols"), ("chess", InvalidGameError, "unknown game"),
     ("0,6,1", InvalidGameError, "positive"), ("4,63,0", InvalidGameError, "at most 62"),
     ("9,10,1", GameTooLargeError, "1000000000 codes")],
)
def test_bad_games(spec: str, error: type[SolverError], needle: str) -> None:
    with pytest.raises(error, match=needle):
        Game.from_spec(spec)


def test_game_limit_is_configurable() -> None:
    with pytest.raises(GameTooLargeError):
        Game(4, 10, False, max_codes=1000)
    with pytest.raises(InvalidGameError, match="repeats a character"):
        Game(3, 3, False, "aab")


def test_errors_are_value_errors() -> None:
    for cls in (InvalidGameError, InvalidCodeError, InvalidResponseError, InconsistentHistoryError):
        assert issubclass(cls, SolverError)
        assert issubclass(cls, ValueError)


@settings(max_examples=40, deadline=None)
@given(games(max_codes=400))
def test_possible_responses_are_those_some_pair_of_codes_gives(game: Game) -> None:
    seen = {game.response(g, s) for g in range(game.size) for s in range(game.size)}
    assert game.possible_responses() == sorted(seen)
    for r in game.possible_responses():  # each one passes the structural check too
        assert game.encode_response(*game.bulls_cows(r)) == r


def test_possible_responses_of_the_presets(bulls_cows: Game, mastermind: Game) -> None:
    # 14 responses in both (Bulls-and-Cows: 0.0 possible, 3.1 not; Mastermind: likewise)
    assert [mastermind.format_response(r) for r in mastermind.possible_responses()] == [
        "0.0", "0.1", "0.2", "0.3", "0.4", "1.0", "1.1", "1.2", "1.3", "2.0", "2.1", "2.2", "3.0", "4.0"]
    for game in (bulls_cows, mastermind, Game(5, 3, True), Game(5, 6, False)):  # every pair, via the table
        table = game.arrays(table=True).table
        assert game.possible_responses() == [int(r) for r in np.unique(table)]


# -- the parsers: any text gives a valid value or the parser's own error, never anything else ---

_TEXT = st.text(alphabet=st.sampled_from("0123456789abcAB .,;:/+()-\t\n"), max_size=40) | st.text(max_size=20)


@settings(max_examples=300, deadline=None)
@given(games(max_codes=400), _TEXT)
def test_parse_code_of_any_text(game: Game, text: str) -> None:
    try:
        code = game.parse_code(text)
    except InvalidCodeError:
        return
    assert 0 <= code < game.size
    assert game.parse_code(game.format_code(code)) == code


@settings(max_examples=300, deadline=None)
@given(games(max_codes=400), _TEXT)
def test_parse_response_of_any_text(game: Game, text: str) -> None:
    try:
        r = game.parse_response(text)
    except InvalidResponseError:
        return
    assert game.encode_response(*game.bulls_cows(r)) == r
    assert game.parse_response(game.format_response(r)) == r


@settings(max_examples=300, deadline=None)
@given(games(max_codes=400), _TEXT)
def test_parse_history_of_any_text(game: Game, text: str) -> None:
    try:
        turns = game.parse_history(text)
    except (InvalidCodeError, InvalidResponseError):
        return
    assert game.parse_history(", ".join(game.format_turn(t) for t in turns)) == turns


@settings(max_examples=100, deadline=None)
@given(games(max_codes=400), st.data())
def test_histories_round_trip(game: Game, data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 4))
    turns = [Turn(data.draw(st.integers(0, game.size - 1)), data.draw(st.sampled_from(game.possible_responses())))
             for _ in range(n)]
    text = " + ".join(f"{game.format_code(t.guess)}({t.response // (game.positions + 1)},"
                      f"{t.response % (game.positions + 1)})" for t in turns)  # the article's notation
    assert game.parse_history(text) == turns


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30) | st.from_regex(r"\A\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,2}\s*\Z"))
def test_game_specs_of_any_text(text: str) -> None:
    try:
        game = Game.from_spec(text, max_codes=100_000)
    except SolverError:
        return
    assert Game.from_spec(game.spec) == game and game.size <= 100_000


def test_family_and_response_words() -> None:
    """A game's family says how people read it: Mastermind's pegs (black, white) when symbols may repeat,
    bulls and cows otherwise; both counts always given, singular where one."""
    mm, bc = Game.from_spec("mastermind"), Game.from_spec("bulls-cows")
    assert (mm.family, bc.family, Game.from_spec("5,8,1").family) == ("mastermind", "bulls-cows", "mastermind")
    assert mm.describe()["family"] == "mastermind" and bc.describe()["family"] == "bulls-cows"
    assert mm.response_words(mm.parse_response("1.2")) == "1 black, 2 white"
    assert [bc.response_words(bc.parse_response(r)) for r in ("1.2", "0.1", "4.0", "2.2")] == [
        "1 bull, 2 cows", "0 bulls, 1 cow", "4 bulls, 0 cows", "2 bulls, 2 cows"]
