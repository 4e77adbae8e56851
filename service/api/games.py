"""``GET /v1/games/{game}`` (a game's parameters and possible responses) and ``/v1/matches`` (the
service holds a secret for a person or a bot to find).

A match is stateless: its token is the secret, encrypted and authenticated with the instance's key
(Fernet, from ``cryptography``), so the page that plays never sees the secret, nothing is stored,
and any instance with the same key can score a guess.  A token cannot be forged or altered, and
it expires after ``match_ttl_s``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import tempfile
from typing import Any

import orjson
from apiflask import APIBlueprint
from cryptography.fernet import Fernet, InvalidToken
from flask import current_app

from service import atlas, known, records
from service.api import parse
from service.config import Settings
from service.problems import ProblemException, problem
from service.schemas.games import (
    GameOut,
    GamesOut,
    MatchGuessIn,
    MatchGuessOut,
    MatchIn,
    MatchOut,
    MatchRevealIn,
    MatchRevealOut,
)
from service.services import services
from solver.errors import SolverError
from solver.game import DEFAULT_ALPHABET, Game
from solver.presets import PRESETS
from solver.vocabulary import (
    DEFAULT_STRATEGY,
    DESCRIPTIONS,
    LABELS,
    OPTIMAL_STRATEGIES,
    SOURCE_LABELS,
    SOURCE_MEANINGS,
    STRATEGIES,
)

bp = APIBlueprint("games", __name__, tag="games", url_prefix="/v1")
KEY_FILE = "secret.key"


def describe(game: Game) -> dict[str, Any]:
    """The game's parameters, every response a guess can get in it, its atlas entry and record if it has them,
    and what is known of it in plain words."""
    preset = game.preset
    return {**game.describe(), "label": None if preset is None else preset.label,
            "description": None if preset is None else preset.description,
            "responses": [game.format_response(r) for r in game.possible_responses()],
            "atlas": atlas.served(game), "record": records.served(game), "known": known.known(game)}


@bp.get("/games")
@bp.output(GamesOut)
def games() -> Any:
    """The presets with their parameters and responses, the service's limits, every strategy
    ``next-move`` accepts (the default first), and the atlas's games."""
    settings = services().settings
    return {
        "presets": [describe(Game.from_spec(name)) for name in PRESETS],
        "atlas": known.atlas_menu(),
        "limits": {"max_codes": settings.max_codes, "exact_search_max_codes": settings.exact_search_max_codes,
                   "tree_max_codes": settings.tree_max_codes, "max_history": settings.max_history,
                   "default_time_budget_ms": settings.default_time_budget_ms,
                   "max_time_budget_ms": settings.max_time_budget_ms},
        "strategies": [{"name": n, "kind": "optimal" if n in OPTIMAL_STRATEGIES else "one-step",
                        "label": LABELS[n], "description": DESCRIPTIONS[n]} for n in STRATEGIES],
        "default_strategy": DEFAULT_STRATEGY,
        "sources": [{"name": k, "meaning": v, "label": SOURCE_LABELS[k]} for k, v in SOURCE_MEANINGS.items()],
    }


@bp.get("/games/<game>")
@bp.output(GameOut)
def game_info(game: str) -> Any:
    """A named game (``mastermind``, ``super-mastermind``, ...: ``GET /v1/games`` lists them) or
    ``positions,symbols,repetition`` (e.g. ``5,8,1``)."""
    settings = services().settings
    return describe(parse.game_of(game, settings))  # errors: the app's solver handlers


def _key_material(settings: Settings) -> bytes:
    """The configured key, else the instance's own (created once, shared by its processes)."""
    if settings.secret_key:
        return settings.secret_key.encode()
    path = os.path.join(current_app.instance_path, KEY_FILE)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        pass
    os.makedirs(current_app.instance_path, exist_ok=True)
    material = secrets.token_hex(32).encode()
    # written whole under a temporary name, then linked into place: a process that loses the race
    # (or crashes) never leaves a half-written key for the others to read
    fd, tmp = tempfile.mkstemp(dir=current_app.instance_path, prefix=".secret-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(material)
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)
        except FileExistsError:  # another process won the race: use its key
            with open(path, "rb") as fh:
                return fh.read()
    finally:
        os.unlink(tmp)
    return material


def _fernet() -> Fernet:
    held = services()
    if held.fernet is None:
        digest = hashlib.sha256(b"bullscows-match\0" + _key_material(services().settings)).digest()
        held.fernet = Fernet(base64.urlsafe_b64encode(digest))
    return held.fernet


def now() -> int:
    """The clock match tokens are stamped and checked with: ``time.time`` unless the app was given
    another (:attr:`service.services.Services.clock`; a test moves it instead of sleeping)."""
    return int(services().clock())


def _open(token: str) -> tuple[Game, int]:
    """The game and secret of a token (a 400 problem when there are none)."""
    settings = services().settings
    try:
        doc = orjson.loads(_fernet().decrypt_at_time(token.encode(), settings.match_ttl_s, now()))
        game = Game.from_spec(doc["game"], max_codes=settings.max_codes)
        game = Game(game.positions, game.symbols, game.repetition, doc.get("alphabet") or DEFAULT_ALPHABET,
                    max_codes=settings.max_codes)
        secret = int(doc["secret"])
    except (InvalidToken, ValueError, KeyError, TypeError, SolverError):
        raise ProblemException(problem(
            "invalid-match-token",
            "the match token is malformed, was not issued by this service, or has expired; start a new match",
        )) from None
    return game, secret


@bp.post("/matches")
@bp.input(MatchIn, location="json", arg_name="body")
@bp.output(MatchOut, status_code=201)
def new_match(body: MatchIn) -> Any:
    """Pick a secret uniformly at random; answer with the token that holds it encrypted."""
    game = parse.game_of(body.game, services().settings)
    secret = secrets.randbelow(game.size)
    doc = {"game": game.spec, "alphabet": game.alphabet[: game.symbols], "secret": secret}
    token = _fernet().encrypt_at_time(orjson.dumps(doc), now()).decode()
    return {"token": token, "game": describe(game)}


@bp.post("/matches/guess")
@bp.input(MatchGuessIn, location="json", arg_name="body")
@bp.output(MatchGuessOut)
def score(body: MatchGuessIn) -> Any:
    """Bulls and cows of a guess against the match's secret."""
    game, secret = _open(body.token)
    guess = game.parse_code(body.guess)
    bulls, cows = game.bulls_cows(game.response(guess, secret))
    solved = guess == secret
    return {"guess": game.format_code(guess), "bulls": bulls, "cows": cows, "response": f"{bulls}.{cows}",
            "solved": solved, "secret": game.format_code(secret) if solved else None}


@bp.post("/matches/reveal")
@bp.input(MatchRevealIn, location="json", arg_name="body")
@bp.output(MatchRevealOut)
def reveal(body: MatchRevealIn) -> Any:
    """Give up: the secret in clear."""
    game, secret = _open(body.token)
    return {"secret": game.format_code(secret)}
