"""``GET /v1/positions`` (NDJSON export) and ``POST /v1/positions`` (NDJSON import, bearer token).

An import is all or nothing: every line is parsed and checked (known question, game, bitset length,
a legal best guess, a value no lower than the admissible bound of its set) before one bulk upsert;
the first bad line rejects the whole body with its line number, and nothing is stored.
"""

from __future__ import annotations

import base64
import binascii
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson
from apiflask import APIBlueprint
from flask import Response, current_app, request, stream_with_context

from service import auth
from service.problems import problem
from service.store.positions import PositionStore
from solver.errors import SolverError
from solver.game import Game
from solver.search import CRITERIA, INF, Searcher, SolveOptions, lower_bound_tables
from solver.table import MMAX, Entry, TableKey

bp = APIBlueprint("positions", __name__, tag="positions", url_prefix="/v1")
NDJSON = "application/x-ndjson"
FIELDS = {"game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only", "bitset", "m", "turn",
          "exact", "value", "best_guess", "cost"}


def _store() -> PositionStore:
    store: PositionStore = current_app.extensions["bullscows_store"]
    return store


@bp.get("/positions")
@bp.doc(responses={200: "one JSON object per line (application/x-ndjson)"})
def export_positions() -> Response:
    """Every cached position, one JSON object per line (filters: ``game``, ``criterion``)."""
    game = request.args.get("game")
    if game is not None:
        try:
            game = Game.from_spec(game).spec
        except SolverError as exc:
            return problem(400, exc.slug, "Bad game filter", str(exc))
    criterion = request.args.get("criterion")
    if criterion is not None and criterion not in CRITERIA:
        return problem(400, "invalid-criterion", "Bad criterion filter",
                       f"criterion {criterion!r} is not one of {', '.join(CRITERIA)}")
    rows = _store().iter_rows(game, criterion)
    first = next(rows, None)  # a database that is away fails here (503), not in the middle of the stream

    def lines() -> Iterator[bytes]:
        if first is None:
            return
        for row in itertools.chain([first], rows):
            yield orjson.dumps({
                "game": row.game, "criterion": row.criterion,
                "max_guesses": None if row.max_guesses < 0 else row.max_guesses,
                "mde": None if row.mde < 0 else row.mde, "heuristic": row.heuristic,
                "from_set_only": row.from_set_only, "bitset": base64.b64encode(row.bitset).decode(),
                "m": row.m, "turn": row.turn, "exact": row.exact, "value": row.value,
                "best_guess": row.best_guess, "cost": row.cost, "source": row.source,
            }) + b"\n"

    return Response(stream_with_context(lines()), mimetype=NDJSON)


class ImportError_(ValueError):
    """A line of an import is not acceptable."""


def _entry_of(obj: Any, games: dict[str, Game]) -> Entry:
    if not isinstance(obj, dict):
        raise ImportError_("not a JSON object")
    missing = FIELDS - set(obj)
    if missing:
        raise ImportError_(f"missing fields {sorted(missing)}")
    try:
        spec = str(obj["game"])
        if spec not in games:
            games[spec] = Game.from_spec(spec, max_codes=current_app.config["SETTINGS"].max_codes)
        game = games[spec]
    except SolverError as exc:
        raise ImportError_(str(exc)) from None
    if obj["criterion"] not in CRITERIA:
        raise ImportError_(f"unknown criterion {obj['criterion']!r}")
    ints = ("m", "turn", "cost")
    if any(not isinstance(obj[k], int) or isinstance(obj[k], bool) or obj[k] < 0 for k in ints):
        raise ImportError_(f"{', '.join(ints)} must be non-negative integers")
    if not 1 <= obj["m"] <= MMAX or obj["turn"] < 1:
        raise ImportError_(f"m must be 1..{MMAX} and turn at least 1")
    for k in ("max_guesses", "mde"):
        if obj[k] is not None and (not isinstance(obj[k], int) or not 0 <= obj[k] < MMAX):
            raise ImportError_(f"{k} must be null or an integer below {MMAX}")
    if not all(isinstance(obj[k], bool) for k in ("heuristic", "from_set_only", "exact")):
        raise ImportError_("heuristic, from_set_only and exact must be booleans")
    k = obj["max_guesses"]
    expected_m = MMAX if k is None else k - obj["turn"] + 1
    if obj["m"] != expected_m:
        raise ImportError_(f"m {obj['m']} does not match max_guesses {k} at turn {obj['turn']} "
                           f"(guesses left: {expected_m})")
    if obj["criterion"] == "kmovers" and k is None:
        raise ImportError_("a kmovers entry needs max_guesses")
    if obj["heuristic"] != (obj["mde"] is not None and not obj["from_set_only"]):
        raise ImportError_("heuristic must be true exactly when mde is set and from_set_only is false")
    try:
        bits = base64.b64decode(str(obj["bitset"]), validate=True)
        codes = Entry.codes_from_bitset(bits, game.size)
    except (binascii.Error, ValueError) as exc:
        raise ImportError_(f"bitset: {exc}") from None
    if not codes:
        raise ImportError_("bitset is empty")
    best = obj["best_guess"]
    if best is not None and (not isinstance(best, int) or not 0 <= best < game.size):
        raise ImportError_(f"best_guess {best!r} is not a code of game {game.spec}")
    value = obj["value"]
    if value is not None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ImportError_("value must be an integer or null")
        crit = CRITERIA[obj["criterion"]]
        bound = int(_bounds(game)[0, crit, obj["m"], len(codes)])
        ceiling = len(codes) if crit == 1 else len(codes) * obj["m"] if obj["m"] < MMAX else len(codes) ** 2
        if not bound <= value <= ceiling:
            raise ImportError_(f"value {value} is outside the provable range [{bound}, {ceiling}] of a set of "
                               f"{len(codes)} codes with {obj['m']} guesses left")
    key = TableKey(game.spec, obj["criterion"], obj["max_guesses"], obj["mde"], obj["heuristic"],
                   obj["from_set_only"])
    return Entry(key, codes, obj["m"], obj["turn"], obj["exact"], value, best, obj["cost"])


def _reverify(entries: list[Entry], numbers: list[int], max_codes: int) -> str | None:
    """Search every small entry again from scratch (no table shared with anyone) and compare: an
    exact value must be the value, a bound must not exceed it.  What cannot be re-searched cheaply
    is kept only within its provable range (checked line by line).  Returns what is wrong, if any."""
    searchers: dict[TableKey, Searcher] = {}
    for number, e in zip(numbers, entries, strict=True):
        if len(e.codes) > max_codes or (e.value is None and not e.exact):
            continue
        s = searchers.get(e.key)
        if s is None:
            k = e.key
            s = searchers[k] = Searcher(Game.from_spec(k.game), SolveOptions(k.criterion, k.max_guesses, None, k.mde,
                                                                              k.from_set_only), table_capacity=1 << 14)
        got, _ = s.best_guess_at(np.array(e.codes, dtype=np.int32), e.turn)
        true = None if got >= INF else int(got)
        if e.exact and e.value != true:
            return f"line {number}: re-searched, this set's value is {true}, not {e.value}"
        if not e.exact and e.value is not None and true is not None and e.value > true:
            return f"line {number}: re-searched, this set's value is {true}, below the claimed bound {e.value}"
    return None


_BOUNDS: dict[str, Any] = {}


def _bounds(game: Game) -> Any:
    if game.spec not in _BOUNDS:
        _BOUNDS[game.spec] = lower_bound_tables(game, game.size)
    return _BOUNDS[game.spec]


@bp.post("/positions")
@bp.doc(responses={401: "no or wrong bearer token", 422: "a line is invalid; nothing was stored"})
def import_positions() -> Any:
    """Import positions (NDJSON, the export's format); requires a bearer token."""
    token = auth.token_for("import")
    if token is None:
        return auth.unauthorized("importing positions needs a valid bearer token with the 'import' scope")
    label = token.name
    entries: list[Entry] = []
    numbers: list[int] = []
    games: dict[str, Game] = {}
    for number, raw in enumerate(request.get_data().splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            entries.append(_entry_of(orjson.loads(raw), games))
            numbers.append(number)
        except orjson.JSONDecodeError:
            return problem(422, "invalid-import", "Invalid import", f"line {number}: not valid JSON; nothing stored")
        except ImportError_ as exc:
            return problem(422, "invalid-import", "Invalid import", f"line {number}: {exc}; nothing stored")
    settings = current_app.config["SETTINGS"]
    wrong = _reverify(entries, numbers, settings.import_verify_max_codes)
    if wrong is not None:
        return problem(422, "invalid-import", "Invalid import", f"{wrong}; nothing stored")
    stored = _store().save_entries(entries, source=f"import:{label}")
    return {"imported": stored}
