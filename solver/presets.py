"""The games people know by a name (Mastermind, Super Mastermind, Bulls-and-Cows, ...): one record each.

Standard library only: the CLI's help lists the names before it loads numpy (as :mod:`solver.vocabulary`).
:mod:`solver.game` reads them (:meth:`solver.game.Game.from_spec`, :attr:`solver.game.Game.name`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """A game people know by a name: the name requests use, its parameters, how people and menus call it,
    and where the name comes from.

    Why one record per game: the name, the aliases, the label and the parameters were spread over the
    parser, :attr:`Game.name`, the API's menu and the CLI's help; a game named in one and not the others
    was reachable only by its spec."""

    name: str
    """The name requests use (``"super-mastermind"``), lower case, and what :attr:`Game.name` says."""
    positions: int
    symbols: int
    repetition: bool
    label: str
    """How a person calls it, with its parameters in words (menus, headings)."""
    description: str
    """One line: what is played, and what makes the game known."""
    source: str
    """Where the name comes from (the name is kept only where a source gives these parameters)."""
    aliases: tuple[str, ...] = ()
    """Other names requests may use for it."""

    @property
    def triple(self) -> tuple[int, int, bool]:
        """``(positions, symbols, repetition)``."""
        return self.positions, self.symbols, self.repetition

    @property
    def spec(self) -> str:
        """The ``"positions,symbols,repetition"`` short form, which every stored key uses."""
        return f"{self.positions},{self.symbols},{int(self.repetition)}"


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("bulls-cows", 4, 10, False, "Bulls-and-Cows (4 digits of 10, all different)",
           "The pencil-and-paper game: a secret of four different digits; the article's main game.",
           "A. Slovesnov, 'Optimal algorithms for mastermind and bulls-cows games' (game (4, 10, 0))",
           ("bullscows", "bulls-and-cows", "bulls_cows", "moo")),
    Preset("mastermind", 4, 6, True, "Mastermind (4 positions, 6 colours, repeats allowed)",
           "The 1970 board game: four pegs of six colours, a colour may repeat.",
           "A. Slovesnov, 'Optimal algorithms for mastermind and bulls-cows games' (game (4, 6, 1))"),
    Preset("super-mastermind", 5, 8, True, "Super Mastermind (5 positions, 8 colours, repeats allowed)",
           "The bigger board game: five pegs of eight colours, a colour may repeat; not solved exactly.",
           "supermastermind's optimal strategy page (github.com/supermastermind/playonline); docs/records.md",
           ("supermastermind",)),
    Preset("bulls-cows-5", 5, 10, False, "Bulls-and-Cows with five digits (5 of 10, all different)",
           "Bulls-and-Cows with a secret of five different digits; not solved exactly.",
           "github.com/Weijie608/Bulls-and-Cows-5-Digit-Solver; docs/records.md",
           ("bulls-cows-five", "bulls-and-cows-5")),
    Preset("bagels", 3, 10, False, "Bagels, or Pico-Fermi-Bagels (3 digits of 10, all different)",
           "The classroom game: three different digits, answered 'fermi' (in place), 'pico' (elsewhere), "
           "'bagels' (none).",
           "'Pico Fermi Bagels', everything2.com/title/Pico+Fermi+Bagels (a three-digit number, each digit "
           "different)",
           ("pico-fermi-bagels",)),
)}
"""The named games, each once (:meth:`Game.from_spec` reads the names and aliases, :attr:`Game.name` gives the
name back).  Stored data (atlas, records, trees, tables, jobs) is keyed by spec, never by these names."""

_BY_NAME: dict[str, Preset] = {alias: p for p in PRESETS.values() for alias in (p.name, *p.aliases)}
_BY_TRIPLE: dict[tuple[int, int, bool], Preset] = {p.triple: p for p in PRESETS.values()}
assert len(_BY_NAME) == sum(1 + len(p.aliases) for p in PRESETS.values()) and len(_BY_TRIPLE) == len(PRESETS)


def named(name: str) -> Preset | None:
    """The preset of a name or alias, as a person types it (any case, spaces around); None for any other text."""
    return _BY_NAME.get(name.strip().lower())


def of(positions: int, symbols: int, repetition: bool) -> Preset | None:
    """The preset with these parameters, if one has them."""
    return _BY_TRIPLE.get((positions, symbols, bool(repetition)))
