"""The web page in a real headless Chromium (Debian's), against the real app over HTTP.

The test plays the person: it holds a secret and answers with the solver's own scoring, or guesses
the service's secret with the page's hints.  Numbers the page shows are checked against the solver
and against the API answering the same question.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from solver.game import Game
from tests.web.conftest import ARTIFACTS, LiveServer, PageLog
from tests.web.play import answer, choose, history, left, score, wait_turn


def _strings(value: Any) -> set[str]:
    """Every string in a decoded JSON body, keys excluded."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values()))
    if isinstance(value, list):
        return set().union(*map(_strings, value))
    return set()


@pytest.mark.parametrize(("preset", "strategy"), [("bulls-cows", "optimal-total"), ("mastermind", "minimax")])
def test_computer_guesses_a_whole_game(page: Any, live: LiveServer, preset: str, strategy: str) -> None:
    game = Game.from_spec(preset)
    secret = game.format_code(random.Random(f"{preset}-secret").randrange(game.size))
    choose(page, preset)
    page.select_option("#c-strategy", strategy)
    page.click("#c-new")
    api = live.app.test_client()
    turns: list[tuple[str, str]] = []
    while True:
        guess = wait_turn(page, len(turns) + 1)
        # the page proposes what the API proposes for the same history
        expected = api.post("/v1/next-move", json={"game": preset, "strategy": strategy,
                                                   "history": [f"{g} {r}" for g, r in turns]}).json
        assert guess == expected["guess"]
        shown = int(page.text_content("#c-count") or "-1")
        assert shown == left(game, turns)
        response = score(game, guess, secret)
        turns.append((guess, response))
        answer(page, response)
        if guess == secret:
            break
        assert len(turns) < 10
    page.wait_for_selector("#c-done:not([hidden])")
    done = page.text_content("#c-done") or ""
    assert f"your secret is {secret}, found in {len(turns)} guesses" in done
    assert history(page, "c-history") == turns
    # nothing left to answer, and the keyboard is on New game
    assert page.locator("#c-play").is_hidden() and page.is_disabled("#c-bulls")
    assert page.evaluate("document.activeElement.id") == "c-new"


def test_a_contradiction_is_caught_and_undone(page: Any, live: LiveServer, page_log: PageLog) -> None:
    page_log.expected.append(r"status of 400 .* at .*/v1/next-move$")  # the contradiction, refused by the API
    game = Game.from_spec("bulls-cows")
    choose(page, "bulls-cows")
    page.click("#c-new")
    first = wait_turn(page, 1)
    answer(page, "0.0")
    second = wait_turn(page, 2)
    # an answer no secret can give after the first one
    responses = [game.format_response(r) for r in game.possible_responses()]
    bad = next(r for r in responses if left(game, [(first, "0.0"), (second, r)]) == 0)
    answer(page, bad)
    alert = page.locator("#c-contradiction")
    alert.wait_for(state="visible")
    text = alert.text_content() or ""
    assert "contradict" in text and f"{second}" in text  # the server's detail names the turn
    assert page.is_disabled("#c-bulls") and page.is_disabled("#c-submit")
    assert page.locator("#c-history tr.bad").count() == 1
    assert page.text_content("#c-count") == "0"
    # undo with the keyboard: the alert's button has the focus
    assert page.evaluate("document.activeElement.id") == "c-undo-now"
    page.keyboard.press("Enter")
    alert.wait_for(state="hidden")
    assert wait_turn(page, 2) == second
    assert page.locator("#c-history tr").count() == 1 and page.locator("#c-history tr.bad").count() == 0
    # and the game goes on to the end for a secret that fits the first answer
    cands = game.candidates(game.parse_history([f"{first} 0.0"]))
    secret = game.format_code(int(cands[len(cands) // 2]))
    turns = [(first, "0.0")]
    guess = second
    while True:
        response = score(game, guess, secret)
        turns.append((guess, response))
        answer(page, response)
        if guess == secret:
            break
        guess = wait_turn(page, len(turns) + 1)
    page.wait_for_selector("#c-done:not([hidden])")
    assert secret in (page.text_content("#c-done") or "")


@pytest.mark.parametrize("preset", ["bulls-cows", "mastermind"])
def test_person_guesses_a_whole_game_with_hints(page: Any, live: LiveServer, preset: str) -> None:
    game = Game.from_spec(preset)
    bodies: list[str] = []
    page.on("response", lambda r: bodies.append(r.text()) if "/v1/matches" in r.url else None)
    choose(page, preset)
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    assert page.text_content("#p-count") == str(game.size)
    n = 0
    while page.locator("#p-done").is_hidden():
        page.click("#p-hint")
        page.wait_for_selector("#p-hint-text:not([hidden])")
        hint = page.get_attribute("#p-hint-text", "data-guess")
        assert hint and re.search(rf"try {hint} ", page.text_content("#p-hint-text") or "")
        page.fill("#p-input", hint)
        page.press("#p-input", "Enter")  # the keyboard submits
        n += 1
        page.wait_for_function(
            "(n) => document.querySelectorAll('#p-history tr').length === n"
            " && !document.querySelector('#p-history tr:last-child td:last-child').textContent.includes('…')", arg=n)
        assert n < 10
    rows = page.locator("#p-history tr")
    turns = history(page, "p-history")
    assert len(turns) == n
    # the candidates left after each guess are the solver's count for that history
    for i in range(n - 1):
        assert rows.nth(i).locator("td").nth(3).text_content() == str(left(game, turns[: i + 1]))
    secret = turns[-1][0]
    assert turns[-1][1] == f"{game.positions}.0"
    assert f"the secret is {secret}, in {n} guess" in (page.text_content("#p-done") or "")
    # the match never sent the secret before the guess that found it (hints are the solver's own
    # deductions, through /v1/next-move, not the match's)
    # (compared as whole JSON values: a secret such as 5678 is also a substring of the alphabet)
    assert len(bodies) == n + 1
    assert not any(secret in _strings(json.loads(b)) for b in bodies[:-1])
    assert json.loads(bodies[-1])["secret"] == secret


def test_the_explorer_shows_the_apis_numbers(page: Any, live: LiveServer) -> None:
    api = live.app.test_client()
    choose(page, "mastermind")
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-total")
    page.select_option("#x-b", "minimax")
    page.click("#x-show")
    page.wait_for_selector("#x-results:not([hidden])")
    page.wait_for_selector("#x-tree details[open]")
    for col, strategy in ((1, "optimal-total"), (2, "minimax")):
        stats = api.get(f"/v1/strategies/mastermind/{strategy}").json
        for key in ("total", "worst_case", "secrets", "nodes", "first_guess"):
            cell = page.locator(f"#x-summary tr[data-measure='{key}'] td").nth(col - 1).text_content()
            assert cell == str(stats[key]), (strategy, key)
        avg = page.locator("#x-summary tr[data-measure='average'] td").nth(col - 1).text_content()
        assert avg == f"{stats['average']:.4f}"
        bars = page.locator(f"#x-chart .bar.{'ab'[col - 1]} .count")
        lengths = page.locator("#x-chart .bar-row").evaluate_all("rs => rs.map(r => r.dataset.length)")
        shown = {k: int(bars.nth(i).text_content() or "0") for i, k in enumerate(lengths)}
        assert {k: v for k, v in shown.items() if v} == stats["histogram"]
    optimal = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    assert optimal == "5625"  # the solver's figure, shipped as a verified tree
    # the tree: its root, then a branch loaded when opened
    root = api.get("/v1/strategies/mastermind/optimal-total/tree?depth=1").json["node"]
    assert page.locator("#x-tree > details > summary").text_content() == \
        f"guess 1: {root['guess']} (1296 candidates)"
    resp, child = next((r, c) for r, c in root["children"].items() if c.get("more"))
    branch = page.locator(f"#x-tree details[data-path='{root['guess']} {resp}']")
    branch.locator("> summary").click()
    sub = api.get(f"/v1/strategies/mastermind/optimal-total/tree?depth=1&path={root['guess']} {resp}").json["node"]
    expect = len(sub["children"]) + (1 if sub["hit"] else 0)
    page.wait_for_function("(sel) => document.querySelector(sel).children.length > 1",
                           arg=f"#x-tree details[data-path='{root['guess']} {resp}']")
    assert branch.locator("> details, > .leaf").count() == expect
    # responses in words, as a Mastermind player says them
    blacks, whites = resp.split(".")
    assert f"{blacks} black, {whites} white → guess 2: {child['guess']} ({child['candidates']} candidates)" in \
        (branch.locator("> summary").text_content() or "")
    # the summary's movers row: the secrets needing the worst case, from the histogram the API gives
    stats = api.get("/v1/strategies/mastermind/optimal-total").json
    movers = page.locator("#x-summary tr[data-measure='movers'] td").first.text_content()
    assert movers == str(stats["histogram"][str(stats["worst_case"])])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-mastermind.png"), full_page=True)
    assert (ARTIFACTS / "explorer-mastermind.png").stat().st_size > 10_000


def test_the_explorer_picks_any_atlas_game(page: Any, live: LiveServer) -> None:
    """The named games first, each once; every other atlas game under "More games"; choosing one says what is
    known of it in the API's words, and the explorer shows its shipped tree as proven optimal, with the atlas's
    total."""
    api = live.app.test_client()
    menu = api.get("/v1/games").json
    named = [p["name"] for p in menu["presets"]]
    named_specs = {f"{p['positions']},{p['symbols']},{int(p['repetition'])}" for p in menu["presets"]}
    top = page.locator("#preset > option").evaluate_all("os => os.map(o => o.value)")
    assert top == [*named, "custom"]
    offered = page.locator("#preset optgroup option").evaluate_all("os => os.map(o => o.value)")
    assert offered == [g["game"] for g in menu["atlas"] if g["game"] not in named_specs]
    assert len(offered) + len(named_specs & {g["game"] for g in menu["atlas"]}) == 69 and "4,7,1" in offered
    choose(page, "4,7,1")
    known = api.get("/v1/games/4,7,1").json
    atlas = known["atlas"]
    page.wait_for_function("() => document.getElementById('game-known').textContent.length > 0")
    assert known["known"]["headline"].lower() in (page.text_content("#game-known") or "").lower()
    page.click("#tab-explorer")
    page.select_option("#x-a", "optimal-total")
    page.select_option("#x-b", "")
    page.click("#x-show")
    page.wait_for_selector("#x-results:not([hidden])")
    total = page.locator("#x-summary tr[data-measure='total'] td").first.text_content()
    optimal = page.locator("#x-summary tr[data-measure='optimal'] td").first.text_content()
    assert (total, optimal) == (str(atlas["total"]["value"]), "yes")


NEXT_TO = """([control, slot]) => {
  const c = document.getElementById(control);
  return (c.closest('.row, fieldset, form, .responses') || c).nextElementSibling.id === slot;
}"""


def _error_at(page: Any, control: str) -> str:
    """The text of the error shown next to `control` (after checking it is right there, visible, and the
    only one shown)."""
    slot = f"{control}-error"
    page.wait_for_selector(f"#{slot}:not([hidden])")
    assert page.evaluate(NEXT_TO, [control, slot])
    assert page.locator(".field-error:not([hidden])").count() == 1
    return page.text_content(f"#{slot}") or ""


def test_api_errors_show_next_to_their_control_and_the_page_recovers(page: Any, page_log: PageLog) -> None:
    # the refusals this test provokes: a game over the limit, an outage, a malformed guess
    page_log.expected += [r"status of 422 .* at .*/v1/games/10%2C", r"status of 503 .* at .*/v1/next-move$",
                          r"status of 400 .* at .*/v1/matches/guess$"]
    # a real error: a game over the size limit, shown by the custom game's fields, which are marked invalid
    page.select_option("#preset", "custom")
    page.fill("#positions", "10")
    page.fill("#symbols", "10")
    page.uncheck("#repetition")
    page.dispatch_event("#repetition", "change")
    assert "more than the limit" in _error_at(page, "custom")
    assert page.get_attribute("#positions", "aria-invalid") == "true"
    assert page.get_attribute("#symbols", "aria-describedby") == "custom-error"
    # an outage of one endpoint: the problem's detail is shown by the button that asked, then the page
    # works again and the message goes
    detail = "the solver is being restarted; try again in a minute"

    def outage(route: Any) -> None:
        route.fulfill(status=503, content_type="application/problem+json",
                      body=f'{{"type": "/problems/unavailable", "title": "Service Unavailable", "status": 503, '
                           f'"detail": "{detail}"}}')

    page.select_option("#preset", "mastermind")
    page.wait_for_function("() => document.getElementById('game-info').textContent.includes('1296')")
    assert page.locator(".field-error:not([hidden])").count() == 0
    assert page.locator("[aria-invalid]").count() == 0
    page.route("**/v1/next-move", outage)
    page.click("#c-new")
    assert _error_at(page, "c-new") == f"Service Unavailable: {detail}"
    assert page.get_attribute("#c-new", "aria-describedby") == "c-new-error"
    page.unroute("**/v1/next-move")
    page.click("#c-new")
    wait_turn(page, 1)
    assert page.locator(".field-error:not([hidden])").count() == 0
    # a failure while answering forgets that answer only, and shows under the answer's fields
    page.route("**/v1/next-move", outage)
    answer(page, "0.1")
    assert detail in _error_at(page, "c-answer")
    page.focus("#c-bulls")
    page.unroute("**/v1/next-move")
    assert page.locator("#c-history tr").count() == 0
    answer(page, "0.1")
    wait_turn(page, 2)
    assert page.locator("#c-history tr").count() == 1
    # a malformed guess of the person's: the API's detail, by the input, which is marked invalid
    page.click("#tab-person")
    page.click("#p-new")
    page.wait_for_selector("#p-form:not([hidden])")
    page.fill("#p-input", "12")
    page.press("#p-input", "Enter")
    text = _error_at(page, "p-input")
    assert "Invalid code" in text and "4" in text
    assert page.get_attribute("#p-input", "aria-invalid") == "true"
    page.fill("#p-input", "1234")
    page.press("#p-input", "Enter")
    page.wait_for_selector("#p-history tr")
    assert page.locator("#p-input-error").is_hidden() and page.get_attribute("#p-input", "aria-invalid") is None


CONTRAST = """() => {
  const lum = (rgb) => {
    const [r, g, b] = rgb.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && !c.endsWith(", 0)") && c !== "transparent") return c;
    }
    return "rgb(255, 255, 255)";
  };
  const out = [];
  for (const el of document.querySelectorAll("h1, h2, p, label, button, th, td, summary, .muted, select, input")) {
    if (!el.offsetParent || !el.textContent.trim() && !["SELECT", "INPUT"].includes(el.tagName)) continue;
    if (el.disabled) continue;
    const a = lum(getComputedStyle(el).color), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push([el.tagName + "#" + el.id + "." + el.className, Math.round(ratio * 100) / 100]);
  }
  return out;
}"""

UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea")]
  .filter((el) => !el.labels || el.labels.length === 0).map((el) => el.id)"""

OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("page", [{"width": 360, "height": 740}], indirect=True)
def test_phone_width_labels_contrast_and_keyboard(page: Any, live: LiveServer) -> None:
    choose(page, "bulls-cows")
    assert page.evaluate(UNLABELLED) == []
    # tabs by keyboard: arrows move between the four modes
    page.focus("#tab-computer")
    for tab in ("person", "explorer", "atlas", "computer"):
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.id") == f"tab-{tab}"
        assert page.locator(f"#panel-{tab}").is_visible()
    page.click("#c-new")
    wait_turn(page, 1)
    shots = []
    for tab in ("computer", "person", "explorer"):
        page.click(f"#tab-{tab}")
        if tab == "person":
            page.click("#p-new")
            page.wait_for_selector("#p-form:not([hidden])")
        if tab == "explorer":
            page.select_option("#x-a", "entropy")
            page.click("#x-show")
            page.wait_for_selector("#x-tree details[open]")
        assert page.evaluate(OVERFLOW) <= 0, f"{tab}: wider than the screen"
        low = [(what, r) for what, r in page.evaluate(CONTRAST) if r < 4.5]
        assert not low, f"{tab}: contrast below 4.5:1: {low}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"phone-{tab}.png"
        page.screenshot(path=str(path), full_page=True)
        shots.append(path)
    assert all(p.stat().st_size > 5_000 for p in shots)
