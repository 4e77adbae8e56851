"""``POST /v1/solve``: the value of a position under a criterion (parse, ask :func:`service.calls.solve`, answer)."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint

from service import calls
from service.api import parse
from service.api.accepted import accepted
from service.rules import max_guesses_of
from service.schemas.moves import SolveIn, SolveOut
from service.services import services
from solver.search import SolveOptions

bp = APIBlueprint("solve", __name__, tag="solve", url_prefix="/v1")


@bp.post("/solve")
@bp.input(SolveIn, location="json", arg_name="body")
@bp.output(SolveOut)
@bp.doc(responses={200: "The answer", 202: "Too long for the request: continued as a job (follow Location)"})
def solve(body: SolveIn) -> Any:
    """Value, best guess and per-response values of a position.

    ``source`` says which step answered: ``tree`` when a proven tree holds the position (or a
    relabelling of it), ``cache`` when the table knew it (then ``nodes`` is 0), ``search`` when this
    request searched it within ``time_budget_ms``, ``job`` when a job computed it.  Past the budget
    the question becomes a job: the answer is 202 with ``Location: /v1/jobs/{id}`` unless the job
    ends within ``wait_ms``.  With ``job: false`` (and always for ``guess`` or ``upper_bound``
    questions) it answers ``complete: false`` with no value instead.  ``search: true`` skips the trees
    and the table.
    """
    settings = services().settings
    game = parse.game_of(body.game, settings)
    history, cands = parse.history_of(game, body.history, settings)
    criterion = parse.criterion_named(body.criterion)
    options = SolveOptions(criterion, max_guesses_of(game, criterion, body.max_guesses),
                           body.depth_count, body.mde, body.from_set_only, body.upper_bound)
    guess = game.parse_code(body.guess) if body.guess is not None else None
    got = calls.solve(game, history, cands, options, guess=guess, job=body.job, fresh=body.search,
                      budget_ms=parse.budget(settings, body.time_budget_ms), wait_ms=body.wait_ms)
    return got.answer if got.job is None else accepted(got.job)
