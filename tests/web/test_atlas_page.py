"""The page beyond the solved games, in a real headless Chromium against the real app: the atlas view
(its table, filters, sorting and chart, drawn from /v1/games), the atlas's unsolved games in the explorer
(their proven brackets, and their best known tree built by a real worker's job, with its progress), the
big games through jobs, a phone-sized screen, and an axe-core accessibility check.

Every number the page shows is compared with what the API answers for the same question.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from solver.game import Game
from tests.web.conftest import ARTIFACTS, LiveServer, PageLog, Workers
from tests.web.play import answer, score, wait_turn

OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
NAMES = ("total", "worst_case", "total_within_worst_case", "total_depth", "worst_case_movers")


def _bracket(v: dict[str, Any]) -> str:
    if v["exact"]:
        return str(v["value"])
    return f"[{v['lower']}, {'?' if v['upper'] is None else v['upper']}]"


def _atlas(live: LiveServer) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = live.app.test_client().get("/v1/games").json["atlas"]
    return games


def _shown(page: Any) -> list[str]:
    return list(page.locator("#a-table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.game)"))


def _shot(page: Any, selector: str, name: str, height: int) -> None:
    """A screenshot of the top ``height`` pixels of ``selector``'s box (for the docs), in the artifacts."""
    box = page.locator(selector).bounding_box()
    scroll = page.evaluate("window.scrollY")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True,
                    clip={"x": 0, "y": box["y"] + scroll - 8, "width": page.viewport_size["width"], "height": height})
    assert (ARTIFACTS / name).stat().st_size > 10_000


def _open_atlas(page: Any) -> None:
    page.click("#tab-atlas")
    page.wait_for_selector("#a-table tbody tr")


def _charted(page: Any) -> list[str]:
    """The games the atlas chart plots, by spec, sorted."""
    return sorted(page.locator("#a-chart svg g.point[data-game]").evaluate_all(
        "marks => marks.map(m => m.getAttribute('data-game'))"))


def test_the_atlas_view_shows_every_game_and_sorts_and_filters(page: Any, live: LiveServer) -> None:
    games = _atlas(live)
    by_spec = {g["game"]: g for g in games}
    _open_atlas(page)
    assert len(games) == 69 and len(_shown(page)) == 69
    assert page.text_content("#a-count") == "69 of 69 games shown."
    # every number as the API has it, a bracket written as a bracket
    for spec in ("4,7,1", "5,6,1", "6,7,0"):
        row = page.locator(f"#a-table tr[data-game='{spec}']")
        for name in NAMES:
            assert row.locator(f"td[data-key='{name}']").text_content() == _bracket(by_spec[spec]["values"][name])
    assert page.locator("#a-table tr[data-game='5,6,1'] td[data-key='total']").text_content() == \
        _bracket(by_spec["5,6,1"]["values"]["total"]) and not by_spec["5,6,1"]["exact"]
    # the chart, drawn by the page: one mark per game, the unsolved ones as ranges
    marks = page.locator("#a-chart svg g.point[data-game]")
    assert marks.count() == 69
    assert page.locator("#a-chart svg g.point.range[data-game]").count() == sum(not g["values"]["total"]["exact"]
                                                                               for g in games)
    assert page.locator("#a-chart svg g.point[data-game='4,6,1'] title").text_content().startswith(
        "4 × 6, repeats, 1296 codes: 4.3403 on average")
    # sorting: by a column's header (keyboard), then again the other way; brackets by their lower bound
    def key(g: dict[str, Any]) -> tuple[int, float, int]:
        v = g["values"]["total"]
        return (v["lower"], float("inf") if v["upper"] is None else v["upper"], g["codes"])

    page.focus("#a-table th[data-key='total'] button")
    page.keyboard.press("Enter")
    assert _shown(page) == [g["game"] for g in sorted(games, key=key)]
    assert page.get_attribute("#a-table th[data-key='total']", "aria-sort") == "ascending"
    page.click("#a-table th[data-key='total'] button")  # ties stay smallest game first either way
    assert _shown(page) == [g["game"] for g in sorted(games, key=lambda g: (-key(g)[0], -key(g)[1], key(g)[2]))]
    assert page.get_attribute("#a-table th[data-key='total']", "aria-sort") == "descending"
    page.select_option("#a-sort", "codes")
    assert [by_spec[s]["codes"] for s in _shown(page)] == sorted(g["codes"] for g in games)
    # filtering, each filter and together
    page.select_option("#a-positions", "4")
    page.select_option("#a-repetition", "1")
    want = [g["game"] for g in games if g["positions"] == 4 and g["repetition"]]
    assert sorted(_shown(page)) == sorted(want) and len(want) > 3
    assert _charted(page) == sorted(want)  # the chart follows the table's filters
    page.select_option("#a-positions", "")
    page.select_option("#a-repetition", "")
    page.select_option("#a-status", "bracketed")
    open_games = [g["game"] for g in games if not g["exact"]]
    assert sorted(_shown(page)) == sorted(open_games)
    assert _charted(page) == sorted(open_games)
    assert page.text_content("#a-count") == f"{len(open_games)} of 69 games shown."
    for spec in open_games:
        assert "bounds only" in (page.locator(f"#a-table tr[data-game='{spec}'] td[data-key='status']").text_content()
                                 or "")
    page.select_option("#a-symbols", "6")
    assert _shown(page) == [g["game"] for g in games if not g["exact"] and g["symbols"] == 6]
    assert _charted(page) == sorted(_shown(page)) and len(_shown(page)) < 69
    page.select_option("#a-status", "")
    page.select_option("#a-symbols", "")
    assert len(_charted(page)) == 69
    _shot(page, "#panel-atlas", "atlas-view.png", 1250)


def test_a_row_opens_its_game_in_the_explorer(page: Any, live: LiveServer) -> None:
    atlas = live.app.test_client().get("/v1/games/4,7,1").json["atlas"]
    _open_atlas(page)
    page.focus("#a-table tr[data-game='4,7,1'] button")
    page.keyboard.press("Enter")  # a row opens from the keyboard too
    page.wait_for_selector("#x-results:not([hidden])")
    assert page.get_attribute("#tab-explorer", "aria-selected") == "true"
    assert page.locator("#panel-explorer").is_visible() and not page.locator("#panel-atlas").is_visible()
    assert page.input_value("#preset") == "4,7,1"
    assert page.input_value("#x-a") == "optimal-total"
    total = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    optimal = page.locator("#x-summary tr[data-measure='optimal'] td").first.text_content()
    assert (total, optimal) == (str(atlas["total"]["value"]), "yes")
    assert page.locator("#x-notice").is_hidden()  # solved: nothing to qualify
    assert page.evaluate("document.activeElement.id") == "tab-explorer"


def _show_and_time(page: Any, spec: str) -> tuple[float, int]:
    """Open ``spec`` from the atlas, wait for the explorer's results; (seconds the page reports, jobs)."""
    _open_atlas(page)
    page.click(f"#a-table tr[data-game='{spec}'] button")
    page.wait_for_selector("#x-status[data-done='true']", timeout=120_000)
    return float(page.get_attribute("#x-status", "data-seconds") or "nan"), \
        int(page.get_attribute("#x-status", "data-jobs") or "-1")


def test_a_bracketed_game_shows_its_brackets_and_its_best_tree_through_a_job(
        page: Any, live: LiveServer, workers: Workers, page_log: PageLog) -> None:
    api = live.app.test_client()
    info = api.get("/v1/games/5,6,1").json
    atlas = info["atlas"]
    assert not atlas["total"]["exact"] and atlas["best_known"]["strategy"]
    assert api.get("/v1/jobs?limit=1").json["workers_alive"] == 0
    _open_atlas(page)
    page.click("#a-table tr[data-game='5,6,1'] button")
    # what is proven, and what is not, number by number
    page.wait_for_selector("#x-notice:not([hidden])")
    for name in NAMES:
        item = page.text_content(f"#x-proven li[data-number='{name}']") or ""
        v = atlas[name]
        assert (f": {v['value']} (proven)" if v["exact"] else f": {_bracket(v)} (proven ") in item, (name, item)
    notice = page.text_content("#x-notice") or ""
    assert f"{atlas['best_known']['total']} guesses in all" in notice and "not a proven optimum" in notice
    best = atlas["best_known"]
    # the best known tree: a shipped hybrid's (at once), or a one-step tree of 7776 codes (by a job)
    jobs = 1 + (best["hybrid"] is None)
    # the game's line: the API's headline, the best known total and the proven bound in it
    line = page.text_content("#game-known") or ""
    assert info["known"]["headline"].lower() in line.lower()
    assert str(atlas["total"]["lower"]) in line and str(atlas["total"]["upper"]) in line
    # no worker yet: the job waits, with its progress bar, and the page says why
    page.wait_for_selector("#x-jobs:not([hidden]) #x-job-list progress")
    page.wait_for_function("() => /no job worker is running/.test(document.getElementById('x-job-list').textContent)",
                           timeout=20_000)
    assert page.locator("#x-job-list li").count() == jobs  # minimax, to compare with, is built by a job too
    labels = page.locator("#x-job-list label").all_text_contents()
    name = info["known"]["tree"]["name"] if best["hybrid"] else "Entropy: best known"  # the tree's short name
    assert labels[-1] == "Knuth minimax: " and (jobs == 1 or labels[0] == f"{name}: ")
    from axe_playwright_python.sync_playwright import Axe

    _assert_accessible(Axe(), page, "a job in progress")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "bracketed-progress.png"), full_page=True)
    # a worker comes: the trees are built, and shown
    workers.start()
    page.wait_for_selector("#x-results:not([hidden])", timeout=120_000)
    head = page.locator("#x-summary thead th").nth(1).text_content() or ""
    assert head == name
    cells = {m: page.locator(f"#x-summary tr[data-measure='{m}'] td").first.text_content()
             for m in ("total", "worst_case", "optimal")}
    assert cells == {"total": str(best["total"]), "worst_case": str(best["worst_case"]), "optimal": "no"}
    stats = api.get(f"/v1/strategies/5,6,1/{best['strategy']}").json
    assert page.locator("#x-tree > details > summary").text_content() == \
        f"guess 1: {stats['first_guess']} (7776 candidates)"
    page.screenshot(path=str(ARTIFACTS / "bracketed-game.png"), full_page=True)
    # the first time, with a worker running, and the second time, for another bracketed game too big for a
    # request (the tree is kept: no job the second time, from a fresh page)
    first = _show_and_time(page, "4,9,1")
    assert first[1] >= 1  # built by a job
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    second = _show_and_time(page, "4,9,1")
    assert second[1] == 0
    (ARTIFACTS / "bracketed-timing.json").write_text(json.dumps(
        {"game": "4,9,1", "first_seconds": first[0], "first_jobs": first[1], "second_seconds": second[0]}))


@pytest.mark.slow
def test_a_game_past_the_exact_search_compares_its_trees_through_jobs(page: Any, live: LiveServer,
                                                                     workers: Workers) -> None:
    """6 of 6 with repeats (46656 codes), a custom game: its optimal strategy is out of the exact search's
    reach and no tree of it is shipped, so the explorer says so and shows the entropy tree, built by a job
    with its progress; the numbers are the API's."""
    workers.ensure()
    api = live.app.test_client()
    _custom(page, 6, 6, "46656")
    _show_optimal_total(page)
    assert "out of reach" in (page.text_content("#x-notice") or "")
    assert "8192" in (page.text_content("#x-notice-text") or "")
    page.wait_for_selector("#x-jobs:not([hidden]) #x-job-list progress")
    page.wait_for_selector("#x-results:not([hidden])", timeout=180_000)
    stats = api.get("/v1/strategies/6,6,1/entropy").json
    assert stats["secrets"] == 46656
    total = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    assert total == str(stats["total"])
    assert page.get_attribute("#x-status", "data-jobs") == "1"


def _show_optimal_total(page: Any) -> None:
    """Ask the explorer for the chosen game's optimal total alone, and wait for its notice."""
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-total")
    page.select_option("#x-b", "")
    page.click("#x-show")
    page.wait_for_selector("#x-notice:not([hidden])")


def _custom(page: Any, positions: int, symbols: int, codes: str) -> None:
    page.select_option("#preset", "custom")
    page.fill("#positions", str(positions))
    page.fill("#symbols", str(symbols))
    page.focus("#preset")  # leaving the field commits it, as a person moving on does
    page.wait_for_function("(codes) => document.getElementById('game-info').textContent.includes(codes)", arg=codes)


def test_super_mastermind_shows_the_records_and_its_best_known_tree(page: Any, live: LiveServer) -> None:
    """Super Mastermind (5 of 8, repeats), a records game: the explorer lists the published strategies, this
    project's tree and the proven bound, and shows the shipped best-known tree at once (no job), as not proven
    optimal; its numbers are the API's."""
    api = live.app.test_client()
    record = api.get("/v1/games/5,8,1").json["record"]
    page.select_option("#preset", "super-mastermind")
    page.wait_for_function("() => document.getElementById('game-info').textContent.includes('32768')")
    _show_optimal_total(page)
    notice = page.text_content("#x-notice") or ""
    assert "not solved by anyone" in notice and "179274" in notice
    assert str(record["best_known"]["total"]) in notice and str(record["lower_bound"]["value"]) in notice
    page.wait_for_selector("#x-results:not([hidden])", timeout=60_000)
    total = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    optimal = page.locator("#x-summary tr[data-measure='optimal'] td").first.text_content()
    assert (total, optimal) == (str(record["best_known"]["total"]), "no")
    assert page.get_attribute("#x-status", "data-jobs") == "0"


def _assert_accessible(axe: Any, page: Any, what: str) -> None:
    results = axe.run(page)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in results.response["violations"]
           if v["impact"] in ("serious", "critical")]
    assert not bad, f"{what}: {bad}"


def test_axe_finds_no_serious_or_critical_violation(page: Any, live: LiveServer) -> None:
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    _assert_accessible(axe, page, "the page at start")
    page.select_option("#preset", "mastermind")  # coloured pegs, key pegs
    page.click("#c-new")
    page.wait_for_selector("#c-bulls:not([disabled])")
    page.keyboard.type("1 1")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('c-turn').textContent === '2'")
    page.click("#c-why")
    page.wait_for_selector("#c-why-box:not([hidden]) table.parts")
    _assert_accessible(axe, page, "the computer guessing, with why its guess is good")
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    _assert_accessible(axe, page, "the person guessing")
    _open_atlas(page)
    _assert_accessible(axe, page, "the atlas")
    page.click("#a-table tr[data-game='7,7,0'] button")  # unsolved, small enough for trees within a request
    page.wait_for_selector("#x-results:not([hidden])")
    page.wait_for_selector("#x-notice:not([hidden])")
    page.click("#x-tree details[data-path=''] > details > summary >> nth=0")
    _assert_accessible(axe, page, "the explorer of an unsolved game")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_a_390_pixel_screen_never_scrolls_sideways(page: Any, live: LiveServer) -> None:
    def check(what: str) -> None:
        assert page.evaluate(OVERFLOW) <= 0, f"{what}: wider than the screen"

    _open_atlas(page)
    check("the atlas")
    # the table's rows become cards: every number still labelled by its column
    assert page.locator("#a-table thead").bounding_box()["height"] <= 1
    cell = page.locator("#a-table tr[data-game='5,6,1'] td[data-key='total']")
    assert page.evaluate("(el) => getComputedStyle(el, '::before').content", cell.element_handle()) == '"T (in all)"'
    page.select_option("#a-status", "bracketed")
    _shot(page, "#a-count", "mobile-atlas.png", 1100)
    page.select_option("#a-status", "")
    page.click("#a-table tr[data-game='7,7,0'] button")
    page.wait_for_selector("#x-results:not([hidden])")
    page.wait_for_selector("#x-tree details[open]")
    check("an unsolved game in the explorer")
    page.screenshot(path=str(ARTIFACTS / "mobile-explorer.png"), full_page=True)
    page.click("#tab-computer")
    page.click("#c-new")
    page.wait_for_selector("#c-bulls:not([disabled])")
    check("the computer guessing 7 of 7")
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    check("the person guessing 7 of 7")


def test_both_ways_of_playing_work_on_the_largest_game_of_the_menu(page: Any, live: LiveServer) -> None:
    """5 of 6 with repeats, unsolved, 7776 codes: the computer plays its best known move within the
    answer budget to the end, and a person gets hints."""
    game = Game.from_spec("5,6,1")
    secret = game.format_code(random.Random("5,6,1").randrange(game.size))
    page.select_option("#preset", "5,6,1")
    page.wait_for_function("() => document.getElementById('game-info').textContent.includes('7776')")
    page.select_option("#c-strategy", "entropy")
    page.click("#c-new")
    n = 0
    while True:
        n += 1
        guess = wait_turn(page, n)
        response = score(game, guess, secret)
        answer(page, response)
        if guess == secret:
            break
        assert n < 10
    page.wait_for_selector("#c-done:not([hidden])")
    assert secret in (page.text_content("#c-done") or "")
    page.click("#tab-person")
    page.select_option("#p-strategy", "entropy")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    started = time.monotonic()
    page.click("#p-hint")
    page.wait_for_selector("#p-hint-text:not([hidden])")
    assert "7776 candidates" in (page.text_content("#p-hint-text") or "")
    assert time.monotonic() - started < 30


def test_the_explorer_of_a_game_the_service_refuses_shows_why(page: Any, page_log: PageLog) -> None:
    """A custom game over the size limit: Show in the explorer asks for the game again and puts the
    refusal by the custom game's fields, with no script error."""
    page_log.expected.append(r"status of 422 .* at .*/v1/games/9%2C")  # 9 of 6, then 9 of 10: both too large
    page.select_option("#preset", "custom")
    page.fill("#positions", "9")
    page.fill("#symbols", "10")
    page.focus("#preset")
    page.wait_for_selector("#custom-error:not([hidden])")
    page.click("#tab-explorer")
    page.click("#x-show")
    page.wait_for_selector("#custom-error:not([hidden])")
    assert "more than the limit" in (page.text_content("#custom-error") or "")
    assert page.locator("#x-results").is_hidden() and page.locator("#x-jobs").is_hidden()
