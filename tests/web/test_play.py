"""Whole games on the page, played by keyboard in a real headless Chromium against the real app: every
play mode the page offers (each strategy of the computer's menu, and the person guessing) for Mastermind,
Bulls-and-Cows and Super Mastermind, each to a win; why a guess is good; trees taken away; the small
things a player meets (giving up, over-long input, the first click after typing a size).

The test holds the secret and answers with the solver's own scoring; what the page shows is compared
with the API answering the same question.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from solver.compare import read_steps
from solver.game import Game
from solver.vocabulary import STRATEGIES
from tests.web.conftest import ARTIFACTS, LiveServer, PageLog
from tests.web.play import answer, choose, history, left, score, wait_turn

GAMES = ("mastermind", "bulls-cows", "super-mastermind")


def _secret(game: Game, seed: str) -> str:
    return game.format_code(random.Random(seed).randrange(game.size))


@pytest.mark.parametrize("name", GAMES)
def test_the_computer_wins_every_play_mode_answered_by_keyboard(page: Any, live: LiveServer, name: str) -> None:
    """Each strategy of the menu plays a whole game against a secret of the test's, every answer typed
    ("1 2", Enter) into the field that has the focus, to "Solved"; the worst-case mode with its max-guesses
    field at the game's default."""
    game = choose(page, name)
    offered = page.locator("#c-strategy option").evaluate_all("os => os.map(o => o.value)")
    assert offered == list(STRATEGIES)
    for strategy in offered:
        page.select_option("#c-strategy", strategy)
        depth = page.locator("#c-max")
        if strategy == "optimal-kmovers":
            assert depth.is_visible() and depth.input_value() != ""
        else:
            assert depth.is_hidden()
        secret = _secret(game, f"{name}-{strategy}")
        page.focus("#c-new")
        page.keyboard.press("Enter")
        turns: list[tuple[str, str]] = []
        while True:
            guess = wait_turn(page, len(turns) + 1)
            assert int(page.text_content("#c-count") or "-1") == left(game, turns)
            turns.append((guess, score(game, guess, secret)))
            answer(page, turns[-1][1])
            if guess == secret:
                break
            assert len(turns) < 12, (strategy, turns)
        page.wait_for_selector("#c-done:not([hidden])")
        assert f"your secret is {secret}, found in {len(turns)} guess" in (page.text_content("#c-done") or "")
        assert history(page, "c-history") == turns
        assert page.evaluate("document.activeElement.id") == "c-new"  # Enter starts the next game


@pytest.mark.parametrize("name", GAMES)
def test_a_person_wins_by_keyboard(page: Any, live: LiveServer, name: str) -> None:
    """The person guesses the service's secret: each guess typed and sent with Enter (a code that fits every
    answer so far, chosen by the test), to "You found it"."""
    game = choose(page, name)
    page.click("#tab-person")
    page.focus("#p-new")
    page.keyboard.press("Enter")
    page.wait_for_selector("#p-form:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "p-input"
    rng = random.Random(name)
    turns: list[tuple[str, str]] = []
    while page.locator("#p-done").is_hidden():
        cands = game.candidates(game.parse_history([f"{g} {r}" for g, r in turns]))
        guess = game.format_code(int(cands[rng.randrange(len(cands))]))
        page.keyboard.type(guess)
        page.keyboard.press("Enter")
        page.wait_for_function("(n) => document.querySelectorAll('#p-history tr').length === n", arg=len(turns) + 1)
        turns = history(page, "p-history")
        assert turns[-1][0] == guess
        if turns[-1][1] != f"{game.positions}.0":
            page.wait_for_function(
                "() => !document.querySelector('#p-history tr:last-child').textContent.includes('…')")
        assert len(turns) < 15
    assert f"the secret is {turns[-1][0]}, in {len(turns)} guess" in (page.text_content("#p-done") or "")
    assert page.get_attribute("#p-done", "class") == "success"


def test_mastermind_is_played_with_coloured_pegs_named_for_screen_readers(page: Any, live: LiveServer) -> None:
    game = choose(page, "mastermind")
    page.click("#c-new")
    guess = wait_turn(page, 1)
    pegs = page.locator("#c-guess .peg")
    assert pegs.count() == game.positions
    assert "".join(pegs.all_text_contents()) == guess  # each peg shows its symbol too
    label = page.get_attribute("#c-guess .pegs", "aria-label") or ""
    assert label.startswith(f"{guess}: ") and all(c in label for c in ("red", "blue"))  # 0 red, 1 blue, ...
    colours = pegs.evaluate_all("ps => ps.map(p => getComputedStyle(p).backgroundColor)")
    assert len(set(colours)) == len(set(guess))  # one colour per symbol
    assert page.text_content("label[for='c-bulls'] .hit-name") == "Black"
    answer(page, "1.1")
    wait_turn(page, 2)
    row = page.locator("#c-history tr").first
    assert row.locator(".key.black").count() == 1 and row.locator(".key.white").count() == 1
    assert "1 black, 1 white" in (row.text_content() or "")
    # Bulls-and-Cows keeps digits and bulls and cows
    choose(page, "bulls-cows")
    page.click("#c-new")
    wait_turn(page, 1)
    assert page.locator("#c-guess .peg").count() == 0
    assert page.text_content("label[for='c-bulls'] .hit-name") == "Bulls"
    answer(page, "0.2")
    wait_turn(page, 2)
    assert "0 bulls, 2 cows" in (page.locator("#c-history tr").first.text_content() or "")


def test_ctrl_z_undoes_and_an_impossible_answer_is_refused_in_words(page: Any, live: LiveServer,
                                                                   page_log: PageLog) -> None:
    page_log.expected.append(r"status of 4\d\d .* at .*/v1/next-move$")  # the answer no code can get
    choose(page, "mastermind")
    page.click("#c-new")
    first = wait_turn(page, 1)
    answer(page, "0.1")
    wait_turn(page, 2)
    page.keyboard.press("Control+z")
    assert wait_turn(page, 1) == first
    assert page.locator("#c-history tr").count() == 0
    answer(page, "5.0")  # more than the four positions: refused on the page, nothing sent
    assert "more than the 4 positions" in (page.text_content("#c-bulls-error") or "") or \
        "from 0 to 4" in (page.text_content("#c-bulls-error") or "")
    page.fill("#c-bulls", "3")
    page.fill("#c-cows", "1")
    page.press("#c-cows", "Enter")  # three right and one misplaced: no code gets that
    page.wait_for_selector("#c-answer-error:not([hidden])")  # the service's refusal, by the answer's fields
    refusal = page.text_content("#c-answer-error") or ""
    assert "3 black, 1 white" in refusal and "cannot be white" in refusal and "cow" not in refusal  # pegs' words
    assert page.locator("#c-bulls-error").is_hidden()  # the page's own refusal of "5 0" is gone
    assert page.locator("#c-history tr").count() == 0
    # Enter on an empty answer is refused, not taken for "0 0"
    page.fill("#c-bulls", "")
    page.fill("#c-cows", "")
    page.press("#c-bulls", "Enter")
    assert "type the answer first" in (page.text_content("#c-bulls-error") or "")
    assert page.locator("#c-history tr").count() == 0
    # a win, then Ctrl+Z from New game (which has the focus) takes the winning answer back
    answer(page, "4.0")
    page.wait_for_selector("#c-done:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "c-new"
    page.keyboard.press("Control+z")
    assert wait_turn(page, 1) == first and page.locator("#c-done").is_hidden()


def test_a_repeated_guess_is_pointed_out_not_counted(page: Any, live: LiveServer) -> None:
    choose(page, "bulls-cows")
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    page.keyboard.type("0123")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#p-history tr').length === 1"
                           " && document.getElementById('p-input').value === ''")
    page.keyboard.type("0123")
    page.keyboard.press("Enter")
    page.wait_for_selector("#p-input-error:not([hidden])")
    assert "was your guess 1" in (page.text_content("#p-input-error") or "")
    assert page.locator("#p-history tr").count() == 1


def test_the_explorer_shows_a_record_tree_at_once_while_its_comparison_waits_for_a_job(
        page: Any, live: LiveServer) -> None:
    """Super Mastermind with the default comparison (minimax, a tree of 32768 secrets a job builds, and no worker
    here): the record tree is shown at once, the comparison's progress below it."""
    info = live.app.test_client().get("/v1/games/super-mastermind").json
    choose(page, "super-mastermind")
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-total")
    assert page.input_value("#x-b") == "minimax"
    page.click("#x-show")
    page.wait_for_selector("#x-results:not([hidden])", timeout=30_000)
    assert page.text_content("#x-tree-name") == info["known"]["tree"]["name"]
    total = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    assert total == str(info["record"]["best_known"]["total"])
    page.wait_for_selector("#x-jobs:not([hidden]) #x-job-list progress")
    assert "to compare with, is coming" in (page.text_content("#x-status") or "")
    page.wait_for_selector("#x-tree details[open]")


def test_a_depth_limit_no_strategy_meets_is_said_by_its_field(page: Any, live: LiveServer,
                                                              page_log: PageLog) -> None:
    page_log.expected.append(r"status of 4\d\d .* at .*/v1/strategies/mastermind/optimal-kmovers$")
    choose(page, "mastermind")
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-kmovers")
    page.select_option("#x-b", "")
    page.fill("#x-max", "6")
    page.click("#x-show")
    page.wait_for_selector("#x-status[data-done='true']")
    page.fill("#x-max", "4")
    page.click("#x-show")
    page.wait_for_selector("#x-max-error:not([hidden])")
    assert "limit of 4 guesses" in (page.text_content("#x-max-error") or "")
    assert page.locator("#x-results").is_hidden()  # the answer for 6 is not left standing under the refusal


def test_why_this_guess_shows_the_apis_partition_and_values(page: Any, live: LiveServer) -> None:
    api = live.app.test_client()
    game = choose(page, "mastermind")
    page.click("#c-new")
    guess = wait_turn(page, 1)
    page.click("#c-why")
    page.wait_for_selector("#c-why-box:not([hidden]) table.parts")
    assert page.get_attribute("#c-why", "aria-expanded") == "true"
    x = api.post("/v1/explain", json={"game": "mastermind", "history": [], "guess": guess}).json
    rows = page.locator("#c-why-box tbody tr")
    shown = {rows.nth(i).get_attribute("data-response"): int(rows.nth(i).locator(".part-count").text_content() or 0)
             for i in range(rows.count())}
    assert shown == {p["response"]: p["candidates"] for p in x["parts"]}
    assert sum(shown.values()) == game.size
    text = page.text_content("#c-why-box") or ""
    assert f"at worst {x['largest']}" in text and f"{x['expected_size']:.1f} on average" in text
    assert str(x["optimal"]["guess"]["value"]) in text and "optimal move" in text  # the shipped tree's guess
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "why-this-guess.png"), full_page=True)
    page.click("#c-why")
    assert page.locator("#c-why-box").is_hidden()
    # an answer typed while the explanation's button has the focus answers the guess, as it would after the guess
    page.click("#c-why")
    page.wait_for_selector("#c-why-box:not([hidden]) table.parts")
    answer(page, "1.0")
    wait_turn(page, 2)
    # the person's hint is explained the same way
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    page.click("#p-hint")
    page.wait_for_selector("#p-hint-box:not([hidden])")
    page.click("#p-why")
    page.wait_for_selector("#p-why-box:not([hidden]) table.parts")


def test_why_this_guess_counts_as_the_worst_case_strategy_does(page: Any, live: LiveServer) -> None:
    """Playing for the fewest secrets at the worst case, the explanation measures the guess by that strategy's count
    (the k-movers within the mode's depth limit), so the page's own move is an optimal one, not one that "needs"
    more guesses in all than another."""
    api = live.app.test_client()
    choose(page, "bulls-cows")
    page.select_option("#c-strategy", "optimal-kmovers")
    limit = 7  # the article's seven-movers
    page.fill("#c-max", str(limit))
    page.click("#c-new")
    guess = wait_turn(page, 1)
    turns = []
    for n, response in enumerate(["0.3", "0.1", "0.2"], start=1):  # where the two criteria part (a person's game)
        turns.append(f"{guess} {response}")
        answer(page, response)
        guess = wait_turn(page, n + 1)
    page.click("#c-why")
    page.wait_for_selector("#c-why-box:not([hidden]) table.parts")
    x = api.post("/v1/explain", json={"game": "bulls-cows", "history": turns, "guess": guess, "criterion": "kmovers",
                                      "max_guesses": limit}).json
    assert x["optimal"]["guess"]["is_best"] is True
    text = page.text_content("#c-why-box") or ""
    assert f"{x['optimal']['guess']['value']} secret" in text and f"all {limit} guesses" in text
    assert "optimal move" in text and "guesses in all" not in text


def test_super_mastermind_is_chosen_by_name_with_its_record_line(page: Any, live: LiveServer) -> None:
    api = live.app.test_client()
    info = api.get("/v1/games/super-mastermind").json
    choose(page, "super-mastermind")
    assert page.locator("#preset option[value='super-mastermind']").count() == 1
    assert page.locator("#preset option[value='5,8,1']").count() == 0  # each game once
    line = page.text_content("#game-known") or ""
    assert info["known"]["headline"].lower() in line.lower()
    record = info["record"]
    assert str(record["best_known"]["total"]) in line and str(record["lower_bound"]["value"]) in line
    # its strategy's short name in the explorer, the long provenance one click away
    page.click("#game-provenance summary")
    assert record["best_known"]["command"][:40] in (page.text_content("#game-provenance") or "")
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-total")
    page.select_option("#x-b", "")
    page.click("#x-show")
    page.wait_for_selector("#x-results:not([hidden])", timeout=60_000)
    name = page.text_content("#x-tree-name") or ""
    assert name == info["known"]["tree"]["name"] and len(name) < 100



def test_a_tree_not_proven_optimal_is_named_so_in_a_few_words(page: Any, live: LiveServer) -> None:
    """A records game's fewest guesses in all are played by its best-known tree: the menus do not call it
    "Optimal", and the line under the guess names it in the API's few words (``sources``' label, the start of
    next-move's note), the tree's provenance staying behind "How this is known"; a solved game keeps "Optimal"."""
    api = live.app.test_client()
    words = {s["name"]: s["label"] for s in api.get("/v1/games").json["sources"]}["best-known"]
    note = api.post("/v1/next-move", json={"game": "super-mastermind"}).json["note"]
    assert words == "best known tree, not proven optimal" and note.startswith(f"{words}: ") and len(note) < 80
    heuristic = {s["name"]: s["label"] for s in api.get("/v1/games").json["sources"]}["heuristic"]
    choose(page, "super-mastermind")
    for menu in ("#c-strategy", "#p-strategy", "#x-a"):
        label = page.locator(f"{menu} option[value='optimal-total']").text_content() or ""
        assert label == f"Fewest guesses in all: {words}", menu
        # no tree nor exact search answers its worst case: the criterion's heuristic plays it, and is named so
        label = page.locator(f"{menu} option[value='optimal-kmovers']").text_content() or ""
        assert label == f"Fewest games at the worst case: {heuristic}" and "Optimal" not in label, menu
    page.select_option("#c-strategy", "optimal-total")
    page.focus("#c-new")
    page.keyboard.press("Enter")
    wait_turn(page, 1)
    assert page.text_content("#c-source") == f"({note})"
    choose(page, "mastermind")
    assert page.locator("#c-strategy option[value='optimal-total']").text_content() == "Optimal: fewest guesses in all"
    assert page.locator("#c-strategy option[value='optimal-kmovers']").text_content() == \
        "Optimal: fewest games at the worst case"
    page.select_option("#c-strategy", "optimal-total")
    page.focus("#c-new")
    page.keyboard.press("Enter")
    wait_turn(page, 1)
    assert page.text_content("#c-source") == "(proven optimal: from a solved tree)"


@pytest.mark.parametrize(("name", "strategy"), [("mastermind", "optimal-total"), ("bulls-cows", "entropy")])
def test_the_explorer_takes_the_tree_away(page: Any, live: LiveServer, name: str, strategy: str) -> None:
    """The two download links give the shown tree as JSON and as one CODE LENGTH line per secret, whose
    lengths add up to the summary's total."""
    game = choose(page, name)
    page.click("#tab-explorer")
    page.select_option("#x-a", strategy)
    page.select_option("#x-b", "")
    page.click("#x-show")
    page.wait_for_selector("#x-results:not([hidden])")
    total = int(page.locator("#x-summary tr[data-measure='total'] td").first.text_content() or 0)
    with page.expect_download() as got:
        page.click("#x-download-lengths")
    steps = read_steps(game, Path(got.value.path()).read_text(encoding="utf-8").splitlines())
    assert int(steps.sum()) == total and (steps > 0).all()
    assert got.value.suggested_filename.endswith(".txt")
    with page.expect_download() as got_json:
        page.click("#x-download-json")
    assert got_json.value.suggested_filename.endswith(".json")
    first = Path(got_json.value.path()).read_text(encoding="utf-8")[:200]
    assert first.lstrip().startswith("{")


def test_giving_up_clears_errors_and_is_not_a_win(page: Any, live: LiveServer, page_log: PageLog) -> None:
    page_log.expected.append(r"status of 4\d\d .* at .*/v1/matches/guess$")
    choose(page, "bulls-cows")
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    page.fill("#p-input", "99999999999999999")  # over-long: refused with the API's words, not cut short
    page.press("#p-input", "Enter")
    page.wait_for_selector("#p-input-error:not([hidden])")
    assert page.input_value("#p-input") == "99999999999999999"
    page.click("#p-giveup")
    page.wait_for_selector("#p-done:not([hidden])")
    assert page.locator(".field-error:not([hidden])").count() == 0
    assert page.get_attribute("#p-done", "class") == "gave-up"
    assert "You gave up" in (page.text_content("#p-done") or "")


def test_the_first_click_after_typing_a_size_starts_the_game(page: Any, live: LiveServer) -> None:
    page.select_option("#preset", "custom")
    page.wait_for_selector("#custom:not([hidden])")
    page.fill("#positions", "3")
    page.fill("#symbols", "5")
    page.click("#c-new")  # the size is committed by this very click
    wait_turn(page, 1)
    assert "125 possible secrets" in (page.text_content("#game-info") or "")
    assert len(page.get_attribute("#c-guess [data-code]", "data-code") or "") == 3


def test_the_worst_case_mode_defaults_to_the_proven_worst_case(page: Any, live: LiveServer) -> None:
    api = live.app.test_client()
    choose(page, "mastermind")
    page.select_option("#c-strategy", "optimal-kmovers")
    worst = api.get("/v1/games/mastermind").json["atlas"]["worst_case"]["value"]
    assert page.input_value("#c-max") == str(worst)
    page.click("#c-new")
    guess = wait_turn(page, 1)
    expected = api.post("/v1/next-move", json={"game": "mastermind", "history": [], "strategy": "optimal-kmovers",
                                               "max_guesses": worst}).json
    assert guess == expected["guess"]


@pytest.mark.parametrize("page", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], indirect=True)
def test_screenshots_of_play_for_the_docs(page: Any, live: LiveServer, page_log: PageLog) -> None:
    """The pictures of docs/screenshots/: a Mastermind game in progress, why its guess is good, Super
    Mastermind chosen by name with its record line, and a downloaded tree's first lines; at a desktop's and a
    phone's width, with no sideways scrolling on the phone."""
    width = page.viewport_size["width"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def shot(name: str, selector: str) -> None:
        path = ARTIFACTS / f"{name}-{width}.png"
        page.locator(selector).screenshot(path=str(path))
        assert path.stat().st_size > 5_000
        assert page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0

    game = choose(page, "mastermind")
    secret = _secret(game, "screenshot")
    page.click("#c-new")
    turns: list[tuple[str, str]] = []
    for n in (1, 2):
        guess = wait_turn(page, n)
        turns.append((guess, score(game, guess, secret)))
        answer(page, turns[-1][1])
    wait_turn(page, 3)
    shot("mastermind-in-progress", "#panel-computer")
    page.click("#c-why")
    page.wait_for_selector("#c-why-box:not([hidden]) table.parts")
    shot("why-this-guess", "#c-why-box")
    choose(page, "super-mastermind")
    page.click("#game-provenance summary")
    shot("super-mastermind-record", "main > section.card:first-child")
    # a downloaded tree opened: the lengths file as the browser shows it (which asks for a favicon there)
    page_log.expected.append(r"status of 404 .* at .*/favicon.ico$")
    page.goto("/v1/strategies/mastermind/optimal-total/tree?format=lengths")
    text = page.text_content("body") or ""
    assert "CODE LENGTH" in text and "\n0000 " in text
    page.screenshot(path=str(ARTIFACTS / f"tree-lengths-{width}.png"),
                    clip={"x": 0, "y": 0, "width": width, "height": 400})


def test_an_atlas_row_of_a_named_game_opens_it_by_name(page: Any, live: LiveServer) -> None:
    page.click("#tab-atlas")
    page.click("#a-table tr[data-game='4,6,1'] button")
    page.wait_for_selector("#x-results:not([hidden])")
    assert page.input_value("#preset") == "mastermind"
    assert page.locator("#x-summary tr[data-measure='total'] td").first.text_content() == "5625"
