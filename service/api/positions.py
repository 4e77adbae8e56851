"""``GET /v1/positions`` (NDJSON export) and ``POST /v1/positions`` (NDJSON import, bearer token).

An import is all or nothing: every line is parsed and checked (known question, game, bitset length,
a legal best guess, a value no lower than the admissible bound of its set) before one bulk upsert;
the first bad line rejects the whole body with its line number, and nothing is stored.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from apiflask import APIBlueprint
from flask import Response, request, stream_with_context

from service import auth
from service.api import parse
from service.positions_io import InvalidImportError, read_entries, row_line
from service.problems import problem
from service.schemas import PositionsQuery
from service.services import services
from solver.game import Game

bp = APIBlueprint("positions", __name__, tag="positions", url_prefix="/v1")
NDJSON = "application/x-ndjson"



@bp.get("/positions")
@bp.input(PositionsQuery, location="query", arg_name="query")
@bp.doc(responses={200: "one JSON object per line (application/x-ndjson)"})
def export_positions(query: PositionsQuery) -> Response:
    """Every cached position, one JSON object per line (filters: ``game``, ``criterion``)."""
    # an unknown game is the app's invalid-game problem, as anywhere else
    game = None if query.game is None else Game.from_spec(query.game).spec
    criterion = None if query.criterion is None else parse.criterion_named(query.criterion)
    rows = services().positions.iter_rows(game, criterion)
    first = next(rows, None)  # a database that is away fails here (503), not in the middle of the stream

    def lines() -> Iterator[bytes]:
        if first is None:
            return
        for row in itertools.chain([first], rows):
            yield row_line(row)

    return Response(stream_with_context(lines()), mimetype=NDJSON)


@bp.post("/positions")
@bp.doc(responses={401: "no or wrong bearer token", 422: "a line is invalid; nothing was stored"})
def import_positions() -> Any:
    """Import positions (NDJSON, the export's format); requires a bearer token."""
    token = auth.token_for("import")
    if token is None:
        return auth.unauthorized("importing positions needs a valid bearer token with the 'import' scope")
    label = token.name
    settings = services().settings
    try:
        entries = read_entries(request.get_data().splitlines(), max_codes=settings.max_codes,
                               verify_max_codes=settings.import_verify_max_codes)
    except InvalidImportError as exc:
        return problem("invalid-import", f"{exc}; nothing stored")
    stored = services().positions.save_entries(entries, source=f"import:{label}")
    return {"imported": stored}
