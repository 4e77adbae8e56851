"""How far a search of a position's root, guess by guess, had come: what a checkpoint keeps and a resumed
search reads back (:meth:`solver.search.Searcher.solve`, :meth:`solver.search.Searcher.search_root`).

Kept apart from the searcher because it is also a file format: the service and the CLI store it as JSON
between runs, and :func:`order_digest` is what ties a stored progress to the search it belongs to.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any


@dataclasses.dataclass(frozen=True)
class RootProgress:
    """How far the search of one position's guesses, one at a time (:meth:`Searcher.solve` of a short history),
    had come: enough to continue it after the process stopped, with the same value.

    The root tries its guesses in a fixed order, each against the best value found so far (β); a guess
    that reaches β is done with, whatever its exact value.  So the guesses finished (``done``), the best one
    among them and the lowest bound of the others (``fail``) are all the later guesses need; inside the guess
    being tried, its parts are searched largest first and the sum of the finished ones (``acc``) is all the
    next part needs.  Values are the kernel's (turn-independent); ``order`` names the guess order (its
    digest), so that progress of another position, depth limit or version of the search is refused.

    Why: the biggest positions of Super Mastermind's checks take hours, longer than any run that may stop."""

    order: str
    guesses: int
    """How many guesses the order holds (to tell how far ``done`` is)."""
    done: int = 0
    best_value: int | None = None
    best_guess: int | None = None
    best_per: dict[int, int | None] = dataclasses.field(default_factory=dict)
    fail: int | None = None
    parts: int = 0
    acc: int = 0
    per: dict[int, int | None] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As a JSON object (responses as strings of their numbers)."""
        out = dataclasses.asdict(self)
        out["best_per"] = {str(r): v for r, v in self.best_per.items()}
        out["per"] = {str(r): v for r, v in self.per.items()}
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RootProgress:
        """Back from :meth:`to_json`.

        :raises ValueError: not such an object."""
        fields = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(obj, dict) or set(obj) != fields:
            raise ValueError(f"not the progress of a search: fields {sorted(obj) if isinstance(obj, dict) else obj!r}"
                             f" instead of {sorted(fields)}")
        try:
            def opt(v: Any) -> int | None:
                return None if v is None else int(v)

            return cls(order=str(obj["order"]), guesses=int(obj["guesses"]), done=int(obj["done"]),
                       best_value=opt(obj["best_value"]), best_guess=opt(obj["best_guess"]), fail=opt(obj["fail"]),
                       parts=int(obj["parts"]), acc=int(obj["acc"]),
                       best_per={int(r): None if v is None else int(v) for r, v in obj["best_per"].items()},
                       per={int(r): None if v is None else int(v) for r, v in obj["per"].items()})
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not the progress of a search: {exc}") from None


def order_digest(order: list[tuple[int, int, int]], n: int, k: int | None, beta: int) -> str:
    """What a :class:`RootProgress` refers to: the root's guess order, its set's size, depth limit and bound."""
    text = f"{n}:{k}:{beta}:" + ",".join(f"{lb}/{g}" for lb, _, g in order)
    return hashlib.sha1(text.encode()).hexdigest()[:16]
