"""Playing the page as a person does, shared by the browser tests: choosing a game, waiting for the
computer's guess, answering it by keyboard, and scoring with the solver's own rules."""

from __future__ import annotations

from typing import Any

from solver.errors import InconsistentHistoryError
from solver.game import Game


def score(game: Game, guess: str, secret: str) -> str:
    """The response ``guess`` gets against ``secret`` ("1.2")."""
    return game.format_response(game.response(game.parse_code(guess), game.parse_code(secret)))


def left(game: Game, turns: list[tuple[str, str]]) -> int:
    """Candidates left after ``turns`` (0 when they contradict each other)."""
    try:
        return int(game.candidates(game.parse_history([f"{g} {r}" for g, r in turns])).shape[0])
    except InconsistentHistoryError:
        return 0


def choose(page: Any, name: str) -> Game:
    """Choose a game of the menu and wait until its line is shown."""
    game = Game.from_spec(name)
    page.select_option("#preset", name)
    page.wait_for_function("(want) => document.getElementById('game-info').textContent.includes(want)",
                           arg=f"{game.size} possible secrets")
    return game


def wait_turn(page: Any, n: int) -> str:
    """The computer's n-th guess, once shown and ready to be answered (the answer's field has the focus)."""
    page.wait_for_function(
        "(n) => document.getElementById('c-turn').textContent === String(n)"
        " && !document.getElementById('c-play').hidden"
        " && !document.getElementById('c-bulls').disabled"
        " && document.activeElement && document.activeElement.id === 'c-bulls'", arg=n)
    return str(page.get_attribute("#c-guess [data-code]", "data-code"))


def answer(page: Any, response: str) -> None:
    """Answer the guess shown by keyboard, as a person does: the two numbers, a space between, Enter."""
    bulls, cows = response.split(".")
    page.keyboard.type(f"{bulls} {cows}")
    page.keyboard.press("Enter")


def history(page: Any, table: str) -> list[tuple[str, str]]:
    """The (guess, response) rows of a history table ("c-history" or "p-history")."""
    rows = page.locator(f"#{table} tr")
    return [(str(rows.nth(i).locator("[data-code]").first.get_attribute("data-code")),
             str(rows.nth(i).locator("[data-response]").first.get_attribute("data-response")))
            for i in range(rows.count())]
