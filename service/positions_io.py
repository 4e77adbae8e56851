"""The exchange format of solved positions: NDJSON lines, one persisted table entry each.

``GET /v1/positions`` and ``bullscows positions export`` write it; ``POST /v1/positions`` and
``bullscows positions import`` read it, through the same checks, so that a file moved between
machines by hand is held to the rule an HTTP client is: every line is parsed and checked (known
question, game, bitset length, ``m`` against the limit and turn, a legal best guess, a value inside
the provable range of its set), small sets are searched again from scratch, and one bad line
rejects the whole input before anything is stored.  No SQL here: the store writes what passes.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import orjson

from solver.errors import SolverError
from solver.game import Game
from solver.search import INF, Searcher, SolveOptions, lower_bound_tables
from solver.table import MMAX, Entry, TableKey
from solver.vocabulary import Criterion

FIELDS = {"game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only", "bitset", "m", "turn",
          "exact", "value", "best_guess", "cost"}
GZIP_MAGIC = b"\x1f\x8b"


class InvalidImportError(ValueError):
    """Input that cannot be imported; the message names the line and what is wrong with it."""


def row_json(row: Any) -> dict[str, Any]:
    """One stored row (``service.store.models.Position``) as its exchange object."""
    return {
        "game": row.game, "criterion": row.criterion,
        "max_guesses": None if row.max_guesses < 0 else row.max_guesses,
        "mde": None if row.mde < 0 else row.mde, "heuristic": row.heuristic,
        "from_set_only": row.from_set_only, "bitset": base64.b64encode(row.bitset).decode(),
        "m": row.m, "turn": row.turn, "exact": row.exact, "value": row.value,
        "best_guess": row.best_guess, "cost": row.cost, "source": row.source,
    }


def row_line(row: Any) -> bytes:
    """One stored row as an NDJSON line."""
    return orjson.dumps(row_json(row)) + b"\n"


_BOUNDS: dict[str, Any] = {}


def _bounds(game: Game) -> Any:
    if game.spec not in _BOUNDS:
        _BOUNDS[game.spec] = lower_bound_tables(game, game.size)
    return _BOUNDS[game.spec]


def entry_of(obj: Any, games: dict[str, Game], max_codes: int) -> Entry:
    """The entry one exchange object describes.

    :raises InvalidImportError: the object is not a valid entry (the message says why).
    """
    if not isinstance(obj, dict):
        raise InvalidImportError("not a JSON object")
    missing = FIELDS - set(obj)
    if missing:
        raise InvalidImportError(f"missing fields {sorted(missing)}")
    try:
        spec = str(obj["game"])
        if spec not in games:
            games[spec] = Game.from_spec(spec, max_codes=max_codes)
        game = games[spec]
    except SolverError as exc:
        raise InvalidImportError(str(exc)) from None
    try:
        criterion = Criterion.parse(obj["criterion"])
    except ValueError:
        raise InvalidImportError(f"unknown criterion {obj['criterion']!r}") from None
    ints = ("m", "turn", "cost")
    if any(not isinstance(obj[k], int) or isinstance(obj[k], bool) or obj[k] < 0 for k in ints):
        raise InvalidImportError(f"{', '.join(ints)} must be non-negative integers")
    if not 1 <= obj["m"] <= MMAX or obj["turn"] < 1:
        raise InvalidImportError(f"m must be 1..{MMAX} and turn at least 1")
    for k in ("max_guesses", "mde"):
        if obj[k] is not None and (not isinstance(obj[k], int) or not 0 <= obj[k] < MMAX):
            raise InvalidImportError(f"{k} must be null or an integer below {MMAX}")
    if not all(isinstance(obj[k], bool) for k in ("heuristic", "from_set_only", "exact")):
        raise InvalidImportError("heuristic, from_set_only and exact must be booleans")
    k = obj["max_guesses"]
    expected_m = MMAX if k is None else k - obj["turn"] + 1
    if obj["m"] != expected_m:
        raise InvalidImportError(f"m {obj['m']} does not match max_guesses {k} at turn {obj['turn']} "
                                 f"(guesses left: {expected_m})")
    if criterion == Criterion.KMOVERS and k is None:
        raise InvalidImportError("a kmovers entry needs max_guesses")
    if obj["heuristic"] != (obj["mde"] is not None and not obj["from_set_only"]):
        raise InvalidImportError("heuristic must be true exactly when mde is set and from_set_only is false")
    try:
        bits = base64.b64decode(str(obj["bitset"]), validate=True)
        codes = Entry.codes_from_bitset(bits, game.size)
    except (binascii.Error, ValueError) as exc:
        raise InvalidImportError(f"bitset: {exc}") from None
    if not codes:
        raise InvalidImportError("bitset is empty")
    best = obj["best_guess"]
    if best is not None and (not isinstance(best, int) or not 0 <= best < game.size):
        raise InvalidImportError(f"best_guess {best!r} is not a code of game {game.spec}")
    value = obj["value"]
    if value is not None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidImportError("value must be an integer or null")
        bound = int(_bounds(game)[0, criterion.code, obj["m"], len(codes)])
        ceiling = (len(codes) if criterion == Criterion.KMOVERS
                   else len(codes) * obj["m"] if obj["m"] < MMAX else len(codes) ** 2)
        if not bound <= value <= ceiling:
            raise InvalidImportError(f"value {value} is outside the provable range [{bound}, {ceiling}] of a "
                                     f"set of {len(codes)} codes with {obj['m']} guesses left")
    key = TableKey(game.spec, criterion, obj["max_guesses"], obj["mde"], obj["heuristic"],
                   obj["from_set_only"])
    return Entry(key, codes, obj["m"], obj["turn"], obj["exact"], value, best, obj["cost"])


def reverify(entries: list[Entry], numbers: list[int], max_codes: int) -> str | None:
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


def read_entries(lines: Iterable[bytes], *, max_codes: int, verify_max_codes: int) -> list[Entry]:
    """Every entry of an NDJSON input, checked and re-verified; all or nothing.

    :raises InvalidImportError: the first bad line (its number and why), or a re-search that
        contradicts a line.
    """
    entries: list[Entry] = []
    numbers: list[int] = []
    games: dict[str, Game] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            entries.append(entry_of(orjson.loads(raw), games, max_codes))
        except orjson.JSONDecodeError:
            raise InvalidImportError(f"line {number}: not valid JSON") from None
        except InvalidImportError as exc:
            raise InvalidImportError(f"line {number}: {exc}") from None
        numbers.append(number)
    wrong = reverify(entries, numbers, verify_max_codes)
    if wrong is not None:
        raise InvalidImportError(wrong)
    return entries


def read_file_lines(path: str) -> list[bytes]:
    """The lines of an exchange file, gzip-compressed (by its magic number) or plain.

    :raises InvalidImportError: the file is unreadable or a damaged gzip stream.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        if data[:2] == GZIP_MAGIC:
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InvalidImportError(f"{path}: {exc}") from None
    return data.splitlines()
