"""The models of ``/v1/games`` (a game, the atlas's numbers, the records, what is known) and ``/v1/matches``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.schemas import Game
from solver.game import Family
from solver.vocabulary import Source


class AtlasNumber(BaseModel):
    """One number of the atlas: proven exactly, or bracketed by proven bounds."""

    label: str
    value: int | None = Field(description="The exact value; null while only bounds are proven.")
    exact: bool
    lower: int = Field(description="A proven lower bound (the value when exact).")
    upper: int | None = Field(description="A proven upper bound (the value when exact); null when none is known.")


class RolloutInfo(BaseModel):
    """Where a tree tries several guesses, each completed by the hybrid, and plays the cheapest."""

    width: int = Field(description="Guesses tried at each such position besides the hybrid's own (best by entropy).")
    from_turn: int = Field(description="The first guess number rolled out.")
    levels: int = Field(description="The last guess number rolled out.")
    min_size: int = Field(description="Only positions of more candidates than this are rolled out.")
    max_guesses: int | None = Field(default=None, description=(
        "When set, the rollout minimised the secrets needing more guesses than this first, then the total."))


class HybridInfo(BaseModel):
    """How a hybrid tree plays: a one-step strategy on big sets, the optimal total's guess on small ones."""

    above: str = Field(description="The one-step strategy played at positions of more than exact_at_most candidates.")
    exact_at_most: int = Field(description="Positions of at most this many candidates play the optimal guess.")
    rollout: RolloutInfo | None = Field(default=None, description=(
        "When the tree rolls the hybrid out at its top positions (solver.rollout); null for the plain hybrid."))


class BestKnown(BaseModel):
    """The best strategy tree known of a game whose optimal total is not proven: a strategy played
    through every secret, so its numbers are proven upper bounds, but not proven optimal."""

    strategy: str = Field(description="The strategy, as /v1/strategies names it.")
    name: str = Field(description="A short name for people, derived from how the tree plays (its `hybrid`).")
    total: int
    worst_case: int
    movers: int = Field(description="Secrets its tree solves at its worst case.")
    proven_optimal: bool = Field(description="Always false: proven optima are the atlas's exact numbers.")
    hybrid: HybridInfo | None = Field(default=None, description=(
        "For strategy 'best-known': the hybrid its shipped tree plays; null for a one-step strategy."))


class LowerBoundInfo(BaseModel):
    """How an unsolved game's lower bound of T was proven (`bullscows atlas bounds`)."""

    value: int = Field(description="T is at least this (so is T_W).")
    depth: int = Field(description="Plies refined below the root with every guess's real partition.")
    size_only: int = Field(description="The bound from the number of codes and responses alone, before.")
    finished: bool = Field(default=True, description=(
        "False: an unfinished campaign's bound, from the root parts it has proven so far (each refined up to "
        "depth - 1 plies below its first guess); the same command continues it."))
    seconds: float
    command: str
    machine: str


class AtlasOut(BaseModel):
    """What optimal play is worth in this game, as computed by `bullscows atlas run` and shipped."""

    total: AtlasNumber
    worst_case: AtlasNumber
    total_within_worst_case: AtlasNumber
    total_depth: AtlasNumber
    worst_case_movers: AtlasNumber
    average: float | None = Field(description="The optimal total divided by the number of codes, when exact.")
    seconds: float = Field(description="Wall-clock time the atlas spent on the game (see `machine`).")
    machine: str
    command: str = Field(description="The command that recomputes the entry from an empty table.")
    best_known: BestKnown | None = Field(default=None, description=(
        "While the total is not proven: the best one-step strategy's tree, whose numbers are the upper "
        "bounds; null once the total is exact (the optimal trees are then shipped)."))
    lower_bound: LowerBoundInfo | None = Field(default=None, description=(
        "While the total is not proven: how its lower bound was proven, when refined by `bullscows atlas "
        "bounds`; null otherwise."))


class PublishedStrategy(BaseModel):
    """A strategy published elsewhere for a records game, as its source states it (cited, not computed)."""

    total: int | None = Field(description="Guesses over every secret, when the source gives it.")
    average: float | None = Field(default=None, description="The average, when the source gives only that.")
    worst_case: int | None
    first_guess: str | None
    how: str
    source: str


class RecordTree(BaseModel):
    """This project's best strategy tree of a records game: played through every secret when it was built
    and again when it is loaded, so its numbers are proven upper bounds of the optimum, not the optimum."""

    strategy: str = Field(description="How the tree chooses: a one-step strategy above a size, exact below (in "
                                      "full: every rollout, polish and graft that made it).")
    name: str = Field(description="A short name for people, derived from how the tree plays.")
    total: int
    average: float
    worst_case: int
    first_guess: str
    tree: str = Field(description="The strategy name it is served under: /v1/strategies/{game}/best-known, and "
                                  "next-move's answers while a history follows it.")
    proven_optimal: bool = Field(description="Always false: nobody has solved these games exactly.")
    seconds: float = Field(description="Wall-clock seconds of the command that built it (one process, `machine`).")
    command: str = Field(description="The command that builds it from nothing.")
    machine: str


class RecordBound(BaseModel):
    """A proven lower bound of a records game's optimal total."""

    value: int = Field(description="No strategy needs fewer guesses over every secret.")
    criterion: Literal["total"] = Field(description="What it bounds: the total, with no depth limit (so also "
                                                    "the total within any depth limit).")
    depth: int = Field(description="Plies refined below the root with every guess's real partition.")
    size_only: int = Field(description="The bound from the number of codes and responses alone.")
    finished: bool = Field(default=True, description=(
        "False: an unfinished campaign's bound, from the root parts it has proven so far (each refined up to "
        "depth - 1 plies below its first guess); the same command continues it."))
    seconds: float
    command: str = Field(description="The command that proves it from nothing.")
    machine: str


class RecordCheck(BaseModel):
    """This project's recomputation of a published figure of a records game (`bullscows records check`): the
    same kind of strategy searched exactly, one part of the published first guess at a time."""

    how: str = Field(description="The published strategy's kind, as its row says (`published[].how`).")
    first_guess: str = Field(description="The published first guess, in this service's symbols.")
    from_set_only: bool = Field(description="True: only codes still possible are played after the first guess.")
    published: int = Field(description="The published total it recomputes.")
    finished: bool = Field(description="Whether every part is solved; false while the check is under way.")
    parts: int = Field(description="Parts (responses to the first guess) solved so far.")
    value: int | None = Field(description="The optimal total, once finished; null before.")
    agrees: bool | None = Field(description="Whether `value` equals `published`, once finished; null before.")
    seconds: float = Field(description="Search time of the parts solved, summed over every command that worked "
                                       "on them (not wall clock: shares of a part run side by side).")
    command: str = Field(description="The command that recomputes it from nothing (and continues it).")
    machine: str


class RecordOut(BaseModel):
    """A game people play beyond four positions that nobody has solved: the best strategies published,
    this project's best tree and its proven lower bound (docs/records.md)."""

    name: str
    published: list[PublishedStrategy]
    best_known: RecordTree | None
    lower_bound: RecordBound | None
    check: RecordCheck | None = Field(default=None, description=(
        "This project's recomputation of a published figure, when it has one (Super Mastermind's 179929); "
        "null otherwise."))


class Provenance(BaseModel):
    """How a game's figures or tree were made, as recorded."""

    command: str = Field(description="The command that makes them from nothing.")
    machine: str | None
    seconds: float | None = Field(description="Wall-clock seconds it took, on `machine`.")
    date: str | None
    detail: str | None = Field(description="What the command did, in full (a records tree: its whole strategy).")


class KnownTree(BaseModel):
    """The tree behind `known`'s figures, served by /v1/strategies/{game}/{strategy}."""

    strategy: str = Field(description="As /v1/strategies names it: optimal-total (proven), best-known, or a "
                                      "one-step strategy.")
    name: str = Field(description="A short name for people.")
    provenance: Provenance


class KnownOut(BaseModel):
    """What is known of a game, in plain words and the figures they say (service/known.py): every figure is the
    atlas's or the records', never computed for the occasion."""

    status: Literal["solved", "best-known", "bounds", "unknown"] = Field(description=(
        "solved: the optimal total is proven; best-known: a tree gives the best total known, not proven optimal; "
        "bounds: only proven bounds; unknown: nothing is stored for this game."))
    headline: str = Field(description="One line for people.")
    total: int | None = Field(description="Guesses over every secret: the optimum when solved, else the best tree's.")
    average: float | None = Field(description="`total` divided by the number of codes.")
    worst_case: int | None = Field(description=(
        "Solved: the smallest worst case (proven; the optimal total's tree may need more, as the headline says); "
        "best-known: the most guesses its tree needs."))
    lower_bound: int | None = Field(description="While not solved: the proven lower bound of the optimal total "
                                                "(no depth limit).")
    published_best: int | None = Field(description="A records game: the smallest total published elsewhere.")
    tree: KnownTree | None


class GameOut(BaseModel):
    """A game's parameters and the responses it allows."""

    name: str = Field(description="The preset's name where the game has one, else 'positions,symbols,repetition'.")
    label: str | None = Field(default=None, description="A named game's label for people; null for other games.")
    description: str | None = Field(default=None, description="A named game's one-line description.")
    positions: int
    symbols: int
    repetition: bool
    alphabet: str
    codes: int
    family: Family = Field(description=(
        "mastermind when a code may repeat a symbol (shown as coloured pegs, responses as black and white key "
        "pegs), bulls-cows otherwise (digits, bulls and cows)."))
    responses: list[str] = Field(description="Every response a guess can get in this game, as 'bulls.cows'.")
    atlas: AtlasOut | None = Field(default=None, description="The atlas's numbers for this game (games up to 8192 "
                                   "codes with 2-8 positions and 2-10 symbols); null for other games.")
    record: RecordOut | None = Field(default=None, description=(
        "For Super Mastermind (5,8,1) and five-digit Bulls-and-Cows (5,10,0): the best strategies known and "
        "the proven lower bound; null for other games."))
    known: KnownOut = Field(description="What is known of the game, in plain words.")


class StrategyInfo(BaseModel):
    """A strategy the service plays."""

    name: str
    kind: Literal["optimal", "one-step"]
    label: str = Field(description="A short name, for menus.")
    description: str


class SourceInfo(BaseModel):
    """A step of the answer chain, as an answer's ``source`` names it."""

    name: Source
    meaning: str
    label: str = Field(description=(
        "The same in a few words for people, as the web page says it under a guess (best-known: 'best known tree, "
        "not proven optimal', also the start of next-move's note from such a tree)."))


class AtlasBrief(BaseModel):
    """One number of the atlas, for tables: exact, or bracketed by proven bounds."""

    value: int | None
    exact: bool
    lower: int
    upper: int | None


class AtlasGame(BaseModel):
    """An atlas game, for menus: details at ``GET /v1/games/{game}``."""

    game: str = Field(description="'positions,symbols,repetition', as requests name it.")
    positions: int
    symbols: int
    repetition: bool
    codes: int
    exact: bool = Field(description="Whether every number of its entry is proven.")
    average: float | None = Field(description="Optimal average number of guesses, when proven.")
    values: dict[str, AtlasBrief] = Field(description=(
        "The five numbers (total, worst_case, total_within_worst_case, total_depth, worst_case_movers), "
        "each exact or bracketed by proven bounds."))
    best_known: BestKnown | None = Field(default=None, description="As in GET /v1/games/{game}.")
    known: KnownOut = Field(description="As in GET /v1/games/{game}.")


class GamesOut(BaseModel):
    """What the service plays: the presets, its limits, its strategies and the atlas's games."""

    presets: list[GameOut]
    atlas: list[AtlasGame] = Field(description="Every game of the atlas computed so far, smallest first; those "
                                   "with an exact total are answered from shipped trees.")
    limits: dict[str, int] = Field(description=(
        "max_codes: largest game a request may name; exact_search_max_codes: largest game optimal "
        "strategies search exactly (larger ones answer from their heuristic); tree_max_codes: largest "
        "game whose one-step tree a request may build; max_history: longest history; "
        "default_time_budget_ms and max_time_budget_ms: search budgets."))
    strategies: list[StrategyInfo]
    default_strategy: str
    sources: list[SourceInfo] = Field(description="Every answer source, in the order the chain tries them.")


class MatchIn(BaseModel):
    """Start a match: the service picks a secret for the caller to find."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: Game = "bulls-cows"


class MatchOut(BaseModel):
    """An opaque token holding the encrypted secret; send it back with each guess."""

    token: str
    game: GameOut


class MatchGuessIn(BaseModel):
    """Score a guess against a match's secret."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str = Field(min_length=1, max_length=1000)
    guess: str = Field(min_length=1, max_length=15)


class MatchGuessOut(BaseModel):
    guess: str
    bulls: int
    cows: int
    response: str
    solved: bool
    secret: str | None = Field(description="The secret, once found.")


class MatchRevealIn(BaseModel):
    """Give up: show the secret."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str = Field(min_length=1, max_length=1000)


class MatchRevealOut(BaseModel):
    secret: str
