"""The game model: which codes exist, how they are written, and how a secret answers a guess.

A :class:`Game` is ``(positions, symbols, repetition)`` plus an alphabet for writing codes.  Codes
are identified by their index in lexicographic order (``Code``), responses by a small integer
(``Response`` = ``bulls * (positions + 1) + cows``).  This module validates everything a person can
type (codes, responses, histories) and raises the precise :mod:`solver.errors` subclass; past this
boundary the rest of the solver trusts its inputs.

It must not know about strategies or search: those live in :mod:`solver.heuristics` and
:mod:`solver.search`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from solver import plainkernels, presets
from solver.codes import (
    NO_FACTORS,
    GameArrays,
    ResponseFactors,
    count_codes,
    full_response_table,
    game_arrays,
    response_factors,
)
from solver.errors import (
    GameTooLargeError,
    InconsistentHistoryError,
    InvalidCodeError,
    InvalidGameError,
    InvalidResponseError,
)
from solver.presets import PRESETS as PRESETS  # re-exported: the named games, for from_spec's callers
from solver.presets import Preset

Code: TypeAlias = int
"""Index of a code in the game's lexicographic enumeration."""

Response: TypeAlias = int
"""Encoded response: ``bulls * (positions + 1) + cows``."""

CandidateSet: TypeAlias = npt.NDArray[np.int32]
"""Ascending array of the codes still consistent with a history."""

DEFAULT_ALPHABET: str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
MAX_SYMBOLS: int = 62  # bitmasks are int64; one alphabet character per symbol
MAX_CODES: int = 5_000_000
"""Hard ceiling of the solver itself; the service sets a lower, configurable one."""

TABLE_MAX_BYTES: int = 64 * 1024 * 1024
"""Largest response table (n*n bytes) built by default; larger games compute responses on the fly."""

SEARCH_MAX_CODES: int = 65_536
"""Largest game the exact search takes.  The search reads its response table directly, n² bytes: 1 GiB
for Super Mastermind (32768 codes), 4 GiB at this ceiling.  ``benchmarks/bench_big_games.py`` measured the
table against computed responses; the table won (see ``docs/benchmarks.md``)."""


@dataclass(frozen=True)
class Turn:
    """One entry of a history: a guess and the response it received."""

    guess: Code
    """The guessed code."""
    response: Response
    """The encoded response to it."""


History: TypeAlias = Sequence[Turn]

Family: TypeAlias = Literal["mastermind", "bulls-cows"]
"""How a game is shown and its responses worded: :attr:`Game.family`."""


@dataclass(frozen=True)
class ResponseWords:
    """How a family names a response's two counts, for every message a person reads (the machine's ``b.c``
    stays as it is in fields and keys)."""

    hit: str
    """One symbol in place: ``bull``, or a ``black`` key peg."""
    hits: str
    """Several of them: ``bulls``, ``black``."""
    near: str
    """One symbol elsewhere: ``cow``, or a ``white`` key peg."""
    nears: str
    """Several of them: ``cows``, ``white``."""
    counts: tuple[str, str]
    """The two counts named as things: ``bulls`` and ``cows``, or ``black pegs`` and ``white pegs``."""
    pieces: str
    """What a code is made of: ``symbols``, or ``pegs``."""
    a_near: str
    """What one misplaced symbol is: ``a cow``, or ``white``."""


RESPONSE_WORDS: dict[Family, ResponseWords] = {
    "bulls-cows": ResponseWords("bull", "bulls", "cow", "cows", ("bulls", "cows"), "symbols", "a cow"),
    "mastermind": ResponseWords("black", "black", "white", "white", ("black pegs", "white pegs"), "pegs", "white"),
}
"""Each family's words: the one place a response is put into words (:meth:`Game.counts_words`)."""


_possible: dict[tuple[int, int, bool], list[int]] = {}


def _partitions(n: int, most: int) -> list[list[int]]:
    """Partitions of ``n`` into at most ``most`` parts, largest first; ``most=0``: only ``[1] * n``
    (codes without repetition)."""
    if most == 0:
        return [[1] * n]
    out: list[list[int]] = []

    def grow(left: int, cap: int, acc: list[int]) -> None:
        if left == 0:
            out.append(acc)
            return
        if len(acc) == most:
            return
        for k in range(min(left, cap), 0, -1):
            grow(left - k, k, [*acc, k])

    grow(n, n, [])
    return out


_PAREN_RESPONSE = re.compile(r"\(\s*(\d+)\s*[,.]\s*(\d+)\s*\)")
"""The article's ``0123(0,1)`` way of writing a turn."""

_TURN_SEPARATORS = re.compile(r"[\s,;+]*")
"""What may stand between two turns of a written history (and before the first, after the last)."""

_WRITTEN_TURN = re.compile(r"(?P<guess>[^\s,;+]+)\s+(?P<response>\d+(?:[.,:/]|[bB])\d+[cC]?|[^\s,;+]+)(?=[\s,;+]|$)")
"""One turn of a written history: a guess, then its response, either one of the two-number forms
:meth:`Game.parse_response` reads (``0.1``, ``1,0``: a comma *inside* a response is not a separator) or any
other word, for :meth:`Game.parse_response` to refuse in its own words."""


def _written_turns(text: str) -> list[tuple[str, str]] | None:
    """``(guess, response)`` texts of the turns written in ``text`` (after the article's parentheses are
    read), or None when it does not split into whole turns.

    Why one reader: a history is written by people in a shell and by bots in JSON; the command line and the
    HTTP API must read ``0012 1,0`` alike, so both go through here (:meth:`Game.parse_turn`,
    :meth:`Game.parse_history`)."""
    flat = _PAREN_RESPONSE.sub(r" \1.\2", text)
    out: list[tuple[str, str]] = []
    pos = _TURN_SEPARATORS.match(flat, 0).end()  # type: ignore[union-attr]  # it matches the empty string
    while pos < len(flat):
        m = _WRITTEN_TURN.match(flat, pos)
        if m is None:
            return None
        out.append((m["guess"], m["response"]))
        pos = _TURN_SEPARATORS.match(flat, m.end()).end()  # type: ignore[union-attr]
    return out

_GAME_TEXT = re.compile(r"^\s*(\d+)\s*[,x:/ ]\s*(\d+)\s*[,:/ ]\s*([01]|yes|no|true|false)\s*$", re.I)


@dataclass(frozen=True)
class Game:
    """A code-breaking game: ``positions`` places, ``symbols`` symbols, with or without repetition.

    Codes are written with the first ``symbols`` characters of ``alphabet``.  Construct with
    :meth:`from_spec` to accept presets and the ``"4,10,0"`` short form.
    """

    positions: int
    """Number of places in a code."""
    symbols: int
    """Number of distinct symbols available."""
    repetition: bool
    """Whether a code may use a symbol more than once."""
    alphabet: str = DEFAULT_ALPHABET
    """Characters used to write symbols 0, 1, 2, ... (only the first ``symbols`` are used)."""
    max_codes: int = field(default=MAX_CODES, compare=False, repr=False)
    """Refuse games with more codes than this."""
    table_max_bytes: int = field(default=TABLE_MAX_BYTES, compare=False, repr=False)
    """Build a response table only when its n*n bytes fit this budget."""
    search_max_codes: int = field(default=SEARCH_MAX_CODES, compare=False, repr=False)
    """Search exactly only games of at most this many codes (:meth:`search_arrays` builds their table
    whatever ``table_max_bytes`` says: a search needs it)."""

    def __post_init__(self) -> None:
        p, s = self.positions, self.symbols
        if not isinstance(p, int) or isinstance(p, bool) or p < 1:
            raise InvalidGameError(f"positions must be a positive integer, got {p!r}")
        if not isinstance(s, int) or isinstance(s, bool) or s < 1:
            raise InvalidGameError(f"symbols must be a positive integer, got {s!r}")
        if s > MAX_SYMBOLS:
            raise InvalidGameError(f"at most {MAX_SYMBOLS} symbols are supported, got {s}")
        if p > 15:
            raise InvalidGameError(f"at most 15 positions are supported, got {p}")
        if not self.repetition and p > s:
            raise InvalidGameError(
                f"{p} positions cannot hold distinct symbols from only {s} symbol{'' if s == 1 else 's'}"
            )
        alphabet = self.alphabet
        if len(alphabet) < s:
            raise InvalidGameError(
                f"alphabet {alphabet!r} has {len(alphabet)} characters, {s} symbols need as many"
            )
        used = alphabet[:s]
        if len(set(used)) != s:
            raise InvalidGameError(f"alphabet {used!r} repeats a character")
        if any(ch.isspace() or ch in ".,;" for ch in used):
            raise InvalidGameError(f"alphabet {used!r} may not contain spaces or '.,;'")
        n = count_codes(p, s, self.repetition)
        if n > self.max_codes:
            raise GameTooLargeError(
                f"game {p},{s},{int(self.repetition)} has {n} codes, more than the limit of "
                f"{self.max_codes}"
            )

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_spec(cls, spec: str | Game, alphabet: str | None = None, **limits: int) -> Game:
        """A game from a preset's name or alias (:data:`PRESETS`) or ``"positions,symbols,rep"``.

        :raises InvalidGameError: the text is neither a preset nor a valid triple.
        """
        if isinstance(spec, Game):
            return spec
        key = spec.strip().lower()
        preset = presets.named(key)
        if preset is not None:
            p, s, rep = preset.triple
        else:
            m = _GAME_TEXT.match(key)
            if not m:
                raise InvalidGameError(
                    f"unknown game {spec!r}: use a preset ({', '.join(PRESETS)}) or "
                    "'positions,symbols,repetition' such as '4,10,0'"
                )
            p, s = int(m.group(1)), int(m.group(2))
            rep = m.group(3).lower() in ("1", "yes", "true")
        return cls(p, s, rep, alphabet if alphabet is not None else DEFAULT_ALPHABET, **limits)

    # -- sizes and names ----------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of codes."""
        return count_codes(self.positions, self.symbols, self.repetition)

    @property
    def n_responses(self) -> int:
        """Size of the response encoding space, ``(positions + 1) ** 2`` (not all are possible)."""
        return (self.positions + 1) ** 2

    @property
    def all_bulls(self) -> Response:
        """The winning response."""
        return self.positions * (self.positions + 1)

    def won(self, history: History) -> bool:
        """Whether ``history`` ends in the winning response: a finished game, which has a secret but no next
        guess.  (A win anywhere but at the end is an inconsistent history: :meth:`candidates` says so.)"""
        return bool(history) and history[-1].response == self.all_bulls

    @property
    def preset(self) -> Preset | None:
        """The named game this is, if it is one (whatever its alphabet)."""
        return presets.of(self.positions, self.symbols, self.repetition)

    @property
    def name(self) -> str:
        """Preset name where there is one, else ``"p,s,r"``: for answers and people; keys use :attr:`spec`."""
        preset = self.preset
        return self.spec if preset is None else preset.name

    @property
    def spec(self) -> str:
        """The ``"positions,symbols,repetition"`` short form."""
        return f"{self.positions},{self.symbols},{int(self.repetition)}"

    def describe(self) -> dict[str, object]:
        """JSON-friendly description."""
        return {
            "name": self.name,
            "positions": self.positions,
            "symbols": self.symbols,
            "repetition": self.repetition,
            "alphabet": self.alphabet[: self.symbols],
            "codes": self.size,
            "family": self.family,
        }

    @property
    def family(self) -> Family:
        """``mastermind`` when a code may repeat a symbol, ``bulls-cows`` otherwise.  People read the two
        families differently (coloured pegs scored by black and white key pegs, or digits scored by bulls
        and cows), so a page or a message words a response after its game's family."""
        return "mastermind" if self.repetition else "bulls-cows"

    # -- arrays -------------------------------------------------------------------------------

    def arrays(self, *, table: bool | None = None) -> GameArrays:
        """Arrays for the kernels.

        ``table=None`` uses the response table if it has already been built (cheap one-off
        questions stay cheap), ``True`` builds it when it fits ``table_max_bytes`` (bulk work such
        as trees and searches), ``False`` never uses it.
        """
        base = game_arrays(self.positions, self.symbols, self.repetition)
        key = (self.positions, self.symbols, self.repetition)
        want = table
        if want is None:
            want = key in _built_tables
        if want and self.size**2 <= self.table_max_bytes:
            t = full_response_table(*key)
            _built_tables.add(key)
            return GameArrays(base.codes, base.masks, base.counts, t)
        return base

    def search_arrays(self) -> GameArrays:
        """Arrays with the response table, which the exact search reads directly: built for any game of at
        most ``search_max_codes`` codes, beyond the implicit ``table_max_bytes`` budget (a one-off question
        never pays for it; a search does once per process).  Bigger games get the arrays without it."""
        if self.size > self.search_max_codes:
            return self.arrays(table=False)
        key = (self.positions, self.symbols, self.repetition)
        base = game_arrays(*key)
        t = full_response_table(*key)
        if self.size**2 <= self.table_max_bytes:
            _built_tables.add(key)
        return GameArrays(base.codes, base.masks, base.counts, t)

    def factors(self) -> ResponseFactors:
        """:func:`response_factors` of this game when its response table exceeds the table budget
        (empty otherwise: a table lookup is cheaper still, and a question too small to build the
        table computes its few responses directly)."""
        if self.size**2 <= self.table_max_bytes:
            return NO_FACTORS
        return response_factors(self.positions, self.symbols, self.repetition)

    @property
    def all_codes(self) -> CandidateSet:
        """Every code index, ascending."""
        return np.arange(self.size, dtype=np.int32)

    # -- codes --------------------------------------------------------------------------------

    def parse_code(self, text: str) -> Code:
        """Index of a written code.

        :raises InvalidCodeError: wrong length, a character outside the alphabet, or a repeated
            symbol in a game without repetition.
        """
        if not isinstance(text, str):
            raise InvalidCodeError(f"a code must be a string, got {text!r}")
        t = text.strip()
        if len(t) != self.positions:
            raise InvalidCodeError(
                f"code {text!r} has {len(t)} symbols, this game needs {self.positions}"
            )
        alphabet = self.alphabet[: self.symbols]
        syms: list[int] = []
        for ch in t:
            s = alphabet.find(ch)
            if s < 0:
                raise InvalidCodeError(
                    f"code {text!r}: symbol {ch!r} is not one of the {self.symbols} symbols "
                    f"{alphabet!r}"
                )
            syms.append(s)
        if not self.repetition and len(set(syms)) != len(syms):
            dup = next(ch for ch in t if t.count(ch) > 1)
            raise InvalidCodeError(
                f"code {text!r} repeats symbol {dup!r}, but this game has no repetition"
            )
        return self.code_of(syms)

    def symbols_of(self, code: Code) -> tuple[int, ...]:
        """The symbol indices of a code, position by position."""
        return tuple(int(v) for v in self.arrays().codes[code])

    def code_of(self, syms: Sequence[int]) -> Code:
        """The index of the code with these symbol indices (inverse of :meth:`symbols_of`; the caller
        has checked them against the game)."""
        s, p = self.symbols, self.positions
        if self.repetition:
            idx = 0
            for v in syms:
                idx = idx * s + v
            return idx
        idx = 0
        used: set[int] = set()
        for k, v in enumerate(syms):
            smaller_free = sum(1 for u in range(v) if u not in used)
            idx += smaller_free * math.perm(s - k - 1, p - k - 1)
            used.add(v)
        return idx

    def format_code(self, code: Code) -> str:
        """Written form of a code index."""
        row = self.arrays().codes[code]
        return "".join(self.alphabet[int(v)] for v in row)

    def format_codes(self, codes: Iterable[Code]) -> list[str]:
        """Written forms of several code indices."""
        return [self.format_code(int(c)) for c in codes]

    # -- responses ----------------------------------------------------------------------------

    def encode_response(self, bulls: int, cows: int) -> Response:
        """Encoded response, after checking it can occur in this game.

        :raises InvalidResponseError: negative counts, more than ``positions`` in all, the
            impossible ``positions-1`` bulls with one cow, or fewer shared symbols than two codes
            without repetition must share.
        """
        p = self.positions
        words = RESPONSE_WORDS[self.family]
        for what, v in zip(words.counts, (bulls, cows), strict=True):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise InvalidResponseError(f"{what} must be a non-negative integer, got {v!r}")
        said = f"response {bulls}.{cows} ({self.counts_words(bulls, cows)}) is impossible"
        if bulls + cows > p:
            raise InvalidResponseError(
                f"{said}: {' and '.join(words.counts)} together cannot exceed {p} positions"
            )
        if bulls == p - 1 and cows == 1:
            raise InvalidResponseError(
                f"{said}: with {p - 1} {words.pieces} in place the last one cannot be {words.a_near}"
            )
        if not self.repetition:
            least = max(0, 2 * p - self.symbols)
            if bulls + cows < least:
                raise InvalidResponseError(
                    f"{said}: two codes of {p} distinct symbols "
                    f"out of {self.symbols} always share at least {least}"
                )
        if self.symbols == 1 and bulls != p:
            raise InvalidResponseError(
                f"{said}: with one symbol every guess is right"
            )
        return bulls * (p + 1) + cows

    def parse_response(self, text: str) -> Response:
        """Encoded response from ``"b.c"`` (also ``"b,c"``, ``"b c"``, ``"bBcC"``).

        :raises InvalidResponseError: malformed text or an impossible response.
        """
        if not isinstance(text, str):
            raise InvalidResponseError(f"a response must be a string like '1.2', got {text!r}")
        m = re.fullmatch(r"\s*(\d+)\s*(?:[.,:/ ]|[bB]\s*)\s*(\d+)\s*[cC]?\s*", text)
        if not m:
            raise InvalidResponseError(
                f"response {text!r} is not of the form 'bulls.cows', e.g. '1.2'"
            )
        return self.encode_response(int(m.group(1)), int(m.group(2)))

    def bulls_cows(self, response: Response) -> tuple[int, int]:
        """``(bulls, cows)`` of an encoded response."""
        return divmod(int(response), self.positions + 1)

    def format_response(self, response: Response) -> str:
        """``"b.c"`` text of an encoded response."""
        b, c = self.bulls_cows(response)
        return f"{b}.{c}"

    def response_words(self, response: Response) -> str:
        """A response in its family's words (``1 bull, 2 cows``, or ``1 black, 2 white`` for Mastermind's
        family), both counts always given: a reader of an explanation should not have to know that
        ``1.2`` puts the bulls first."""
        return self.counts_words(*self.bulls_cows(response))

    def counts_words(self, bulls: int, cows: int) -> str:
        """:meth:`response_words` of two counts not yet checked (an error message quoting them)."""
        w = RESPONSE_WORDS[self.family]
        return f"{bulls} {w.hit if bulls == 1 else w.hits}, {cows} {w.near if cows == 1 else w.nears}"

    def turn_words(self, turn: Turn) -> str:
        """A turn as a person reads it in a message: ``0012: 1 black, 0 white``, ``0123: 0 bulls, 1 cow``."""
        return f"{self.format_code(turn.guess)}: {self.response_words(turn.response)}"

    def response(self, guess: Code, secret: Code) -> Response:
        """Encoded response of ``secret`` to ``guess``."""
        from solver import kernels

        a = self.arrays()
        if a.table.shape[0]:
            return int(a.table[guess, secret])
        return int(kernels.response(a.codes, a.masks, a.counts, guess, secret))

    def possible_responses(self) -> list[Response]:
        """Every response that some guess can get from some secret in this game, ascending.

        Renaming symbols and permuting positions (on guess and secret together) keeps responses, and
        maps every guess onto one whose symbols appear in blocks of decreasing multiplicity; so one
        guess per partition of ``positions`` is scored against every code.
        """
        key = (self.positions, self.symbols, self.repetition)
        got = _possible.get(key)
        if got is None:
            guesses = [self.code_of([sym for sym, k in enumerate(parts) for _ in range(k)])
                       for parts in _partitions(self.positions, self.symbols if self.repetition else 0)]
            from solver import kernels

            a = self.arrays()
            counts = kernels.partition_matrix(*a.kernel_args(), np.array(guesses, dtype=np.int32),
                                              self.all_codes, self.n_responses)
            got = _possible[key] = [int(r) for r in np.flatnonzero(counts.sum(axis=0))]
        return list(got)

    # -- histories ----------------------------------------------------------------------------

    def parse_turn(self, text: str) -> Turn:
        """A turn from ``"0123 0.1"`` (guess, whitespace, response).

        :raises InvalidCodeError, InvalidResponseError: either half is bad.
        """
        if not isinstance(text, str):
            raise InvalidResponseError(f"a turn must be written like '0123 0.1', got {text!r}")
        turns = _written_turns(text)
        if turns is None or len(turns) != 1:
            raise InvalidResponseError(
                f"turn {text!r} is not of the form 'GUESS BULLS.COWS', e.g. '0123 0.1'"
            )
        (guess, response), = turns
        return Turn(self.parse_code(guess), self.parse_response(response))

    def parse_history(self, entries: Iterable[str] | str) -> list[Turn]:
        """A history from turns such as ``["0123 0.1", "1245 0.2"]`` or ``"0123 0.1, 1245 0.2"``.

        A string is read as a stream of ``GUESS RESPONSE`` pairs separated by spaces, commas,
        semicolons or ``+``; the article's ``0123(0,1)+1245(0,2)`` is accepted too.

        :raises InvalidCodeError, InvalidResponseError: a bad guess, response or a missing half.
        """
        if not isinstance(entries, str):
            return [self.parse_turn(e) for e in entries]
        turns = _written_turns(entries)
        if turns is None:
            raise InvalidResponseError(
                f"history {entries!r} has a guess without a response (write turns as '0123 0.1')"
            )
        return [Turn(self.parse_code(guess), self.parse_response(response)) for guess, response in turns]

    def format_turn(self, turn: Turn) -> str:
        """``"0123 0.1"`` text of a turn."""
        return f"{self.format_code(turn.guess)} {self.format_response(turn.response)}"

    def candidates(self, history: History = (), *, start: CandidateSet | None = None) -> CandidateSet:
        """Codes consistent with every turn of ``history`` (ascending).

        :raises InconsistentHistoryError: some turn leaves no candidate; the message names it.
        """
        a = self.arrays()
        cands = self.all_codes if start is None else start
        for k, turn in enumerate(history):
            if turn.response == self.all_bulls and k != len(history) - 1:
                raise InconsistentHistoryError(
                    f"turn {k + 1} ({self.turn_words(turn)}) already won; the game ended there"
                )
            # numpy, not a kernel: one row per turn, and a question a shipped tree answers loads no numba
            rows = plainkernels.response_row(a, turn.guess, cands)
            cands = np.ascontiguousarray(cands[rows == turn.response], dtype=np.int32)
            if cands.shape[0] == 0:
                shown = "; ".join(self.turn_words(t) for t in history[:k])
                raise InconsistentHistoryError(
                    f"no code is consistent with the history: turn {k + 1} "
                    f"({self.turn_words(turn)}) contradicts the turns before it ({shown})"
                    if k
                    else f"turn 1 ({self.turn_words(turn)}): no code can answer {self.format_code(turn.guess)!r} "
                         f"with {self.response_words(turn.response)} in this game"
                )
        return cands


_built_tables: set[tuple[int, int, bool]] = set()
