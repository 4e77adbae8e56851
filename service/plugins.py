"""The parts of the package found through entry points (``pyproject.toml``): the kinds of long work and of
campaign, each an instance named ``name = "module:INSTANCE"`` under its group.

Why one loader: the engine and the campaign runner name none of the kinds they run, so a kind is added (or its
package left out) without touching them, and each is checked the same way as it is loaded: an instance of the
kind's class, under the name it says it has.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TypeVar

T = TypeVar("T")


def installed(group: str, of: type[T], what: str) -> dict[str, T]:
    """Every instance the entry points of ``group`` name, by name, each loaded (its module imported) now.

    :raises RuntimeError: an entry point names something that is not an ``of`` (``what``, for the message) of
        its own name."""
    found: dict[str, T] = {}
    for point in entry_points(group=group):
        thing = point.load()
        if not isinstance(thing, of) or getattr(thing, "name", None) != point.name:
            raise RuntimeError(f"entry point {point.name} = {point.value} is not the {what} {point.name!r}")
        found[point.name] = thing
    return found
