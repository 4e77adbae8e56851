"""``POST /v1/explain``: why a guess: its split of the candidates and its value (parse, ask the service, answer)."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service.api import parse
from service.explain import explain as explain_guess
from service.rules import max_guesses_of
from service.schemas.moves import ExplainIn, ExplainOut
from service.services import services
from solver.search import SolveOptions

bp = APIBlueprint("explain", __name__, tag="explain", url_prefix="/v1")


@bp.post("/explain")
@bp.input(ExplainIn, location="json", arg_name="body")
@bp.output(ExplainOut)
def explain(body: ExplainIn) -> Any:
    """How a guess splits the candidates left by a history (one part per response, the largest first, each with
    its response in words), and, when the service can know them within ``time_budget_ms``, the position's optimal
    value and the guess's own, counted as ``POST /v1/solve`` counts them.  A value out of reach (a game too big to
    search, a search the budget cut) is null, and ``optimal.note`` says why; no job is started.  A history that
    ends in the winning response has no next guess: ``/problems/game-finished``."""
    settings = services().settings
    game = parse.game_of(body.game, settings)
    history, cands = parse.history_of(game, body.history, settings)
    criterion = parse.criterion_named(body.criterion)
    options = SolveOptions(criterion, max_guesses_of(game, criterion, body.max_guesses))
    chain = services().answers
    return explain_guess(chain, game, history, cands, game.parse_code(body.guess), options,
                         parse.budget(settings, body.time_budget_ms)).as_dict()
