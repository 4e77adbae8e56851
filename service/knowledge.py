"""Shipped knowledge: the positions the project's campaigns proved, read-only, in the package.

The campaigns (``bullscows campaign``) proved Bulls-and-Cows and Mastermind position by position; their
progress files (``campaigns/*.ndjson.gz``, the exchange format of ``GET /v1/positions``) hold every
entry worth keeping.  ``bullscows knowledge build`` turns the plain questions' entries (no hybrid) into
one compact index per question under ``service/data/knowledge/``: each entry is the transposition
table's own key of its candidate set (two 64-bit Zobrist sums, :func:`solver.table.set_key`) and its
``m``, flag, value and best guess — 24 bytes instead of a 630-byte bitset — sorted by the first key.

Why a file in the package rather than rows imported into the database at ``db upgrade``: it answers
on a fresh install with no step at all, costs no database space or import time, is the same on every
instance, and a lookup is a binary search (microseconds).  The answer chain consults it after the
proven trees and before the database (:mod:`service.answers`), at the position's canonical labelling
and at its own; searches of the same question start with its entries in their table (warm start),
so positions near proven ones are cut short too.

Keys are hashes: two different sets share both 64-bit sums with a chance of about 2⁻¹²⁸ per pair,
the risk the in-memory table already takes.  Reuse follows the table's rules
(:func:`solver.ttkernels.tt_bounds`).  No SQL here.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver import ttlayout as tl
from solver.game import CandidateSet, Game
from solver.table import MMAX, Entry, TableKey, TranspositionTable, info_rows, kernel_fields, set_key
from solver.vocabulary import Criterion

KNOWLEDGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "knowledge")
FORMAT = "bullscows-knowledge/1"


@dataclass(frozen=True)
class Known:
    """What the shipped knowledge proves about one candidate set."""

    lower: int
    """Lower bound of the remaining (turn-independent) value."""
    upper: int
    """Upper bound (equal to ``lower`` when exact; ``INF`` when unknown)."""
    best_guess: int | None
    """An optimal guess, for exact entries."""

    @property
    def exact(self) -> bool:
        """Whether the value is proven (``lower == upper``)."""
        return self.lower == self.upper


class QuestionIndex:
    """The entries of one question, sorted by their first key."""

    def __init__(self, key: TableKey, k1: npt.NDArray[np.uint64], k2: npt.NDArray[np.uint64],
                 info: npt.NDArray[np.int64]) -> None:
        self.key = key
        self.k1 = k1
        self.k2 = k2
        self.info = info
        """The table's entry layout (``solver.table``): m, flag, value, best, cost, turn per row."""

    def __len__(self) -> int:
        return int(self.k1.shape[0])

    def lookup(self, game: Game, cands: CandidateSet, m: int) -> Known | None:
        """What the index proves for the set ``cands`` with ``m`` guesses left, or None."""
        from solver import ttkernels as tk

        k1, k2 = set_key(game, cands)
        lo = int(np.searchsorted(self.k1, np.uint64(k1), side="left"))
        hi = int(np.searchsorted(self.k1, np.uint64(k1), side="right"))
        crit = self.key.criterion.code
        best: Known | None = None
        for row in range(lo, hi):
            if int(self.k2[row]) != k2:
                continue
            low, up, guess = (int(v) for v in tk.tt_bounds(self.info, row, m, crit, MMAX))
            found = Known(low, up, guess if guess >= 0 and low == up else None)
            if found.exact:
                return found
            if best is None or found.lower > best.lower:
                best = found
        return best

    def warm(self, table: TranspositionTable) -> int:
        """Put every entry into a search's table (the search then starts from what is proven)."""
        return table.load_keys(self.k1, self.k2, self.info)


def _arrays(entries: Iterable[Entry], game: Game) -> tuple[Any, ...]:
    rows = []
    for e in entries:
        k1, k2 = set_key(game, np.array(e.codes, dtype=np.int32))
        flag, value, best = kernel_fields(e)
        rows.append((k1, k2, e.m, flag, value, best, e.turn))
    # one row per set, the best knowledge of it: exact before bounds, the higher bound first (the table
    # keeps one entry per set, and a later row of the same set would overwrite an earlier one)
    rows.sort(key=lambda r: (r[0], r[1], r[3], -r[4]))
    rows = [r for i, r in enumerate(rows) if i == 0 or rows[i - 1][:2] != r[:2]]
    return (np.array([r[0] for r in rows], dtype=np.uint64), np.array([r[1] for r in rows], dtype=np.uint64),
            np.array([(r[2], r[3], r[6]) for r in rows], dtype=np.int8).reshape(-1, 3),
            np.array([r[4] for r in rows], dtype=np.int64), np.array([r[5] for r in rows], dtype=np.int32))


def _name(key: TableKey) -> str:
    limit = "unlimited" if key.max_guesses is None else f"k{key.max_guesses}"
    return f"{key.game.replace(',', '-')}.{key.criterion}.{limit}.npz"


def build(sources: list[str], folder: str = KNOWLEDGE_DIR) -> dict[str, Any]:
    """Write the knowledge of the campaign files ``sources`` into ``folder``; returns the manifest.

    Only the plain questions (no ``mde``, no from-set-only) are kept: those are the questions the
    chain answers.  Every line is checked as an import is (:func:`service.positions_io.entry_of`).
    """
    import orjson

    from service.positions_io import entry_of, read_file_lines

    by_key: dict[TableKey, list[Entry]] = {}
    games: dict[str, Game] = {}
    digests = {}
    for path in sources:
        with open(path, "rb") as fh:
            digests[os.path.basename(path)] = hashlib.sha256(fh.read()).hexdigest()
        for raw in read_file_lines(path):
            if raw.strip():
                e = entry_of(orjson.loads(raw), games, 1 << 20)
                if e.key.mde is None and not e.key.from_set_only:
                    by_key.setdefault(e.key, []).append(e)
    os.makedirs(folder, exist_ok=True)
    manifest: dict[str, Any] = {"format": FORMAT, "sources": digests, "questions": []}
    for key in sorted(by_key, key=lambda k: (k.game, k.criterion, k.max_guesses or 0)):
        game = games[key.game]
        k1, k2, small, value, best = _arrays(by_key[key], game)
        name = _name(key)
        np.savez_compressed(os.path.join(folder, name), k1=k1, k2=k2, small=small, value=value, best=best)
        exact = int(np.count_nonzero(small[:, 1] == tl.FLAG_EXACT))
        manifest["questions"].append({"file": name, "game": key.game, "criterion": key.criterion,
                                      "max_guesses": key.max_guesses, "entries": len(k1), "exact": exact})
    with open(os.path.join(folder, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    return manifest


class Knowledge:
    """The shipped knowledge, loaded on first use; one index per question."""

    def __init__(self, folder: str = KNOWLEDGE_DIR) -> None:
        self.folder = folder
        self._indexes: dict[TableKey, QuestionIndex] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[TableKey, QuestionIndex]:
        with self._lock:
            if self._indexes is None:
                out: dict[TableKey, QuestionIndex] = {}
                manifest = os.path.join(self.folder, "manifest.json")
                if os.path.exists(manifest):
                    with open(manifest, encoding="utf-8") as fh:
                        for q in json.load(fh)["questions"]:
                            key = TableKey(q["game"], Criterion.parse(q["criterion"]), q["max_guesses"], None,
                                           False, False)
                            with np.load(os.path.join(self.folder, q["file"])) as data:
                                small = data["small"].astype(np.int64)
                                info = info_rows(small[:, 0], small[:, 1], data["value"], data["best"], small[:, 2])
                                out[key] = QuestionIndex(key, data["k1"], data["k2"], info)
                self._indexes = out
            return self._indexes

    def index(self, key: TableKey) -> QuestionIndex | None:
        """The index of one question, if the package ships one."""
        return self._load().get(key)

    def all(self) -> list[QuestionIndex]:
        """Every shipped index (loading them)."""
        return list(self._load().values())


__all__ = ["KNOWLEDGE_DIR", "Knowledge", "Known", "QuestionIndex", "build"]
