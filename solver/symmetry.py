"""Symmetry: permutations of symbols and positions, and the equivalence sets they induce.

A transformation ψ permutes positions (π) and symbols (σ); it preserves every response, so two
guesses that a transformation fixing the history maps onto each other have the same value
(the article's Lemma 5).  Only one guess per class — its lexicographically smallest member — needs
searching: the *equivalence set* of a history.  With ``same_response=True`` the transformations may
also permute turns that received the same response (Lemma 9), which only ever merges more classes.

The stabiliser is never enumerated in full (10!·4! elements for Bulls-and-Cows).  For each position
permutation the constraints ψ(t_i) = t_j fix σ on the symbols the history uses; symbols it never uses
are free, and the smallest image of a code under them is obtained by renaming free symbols in order of
first appearance.  The smallest image over all valid (π, σ) is the class representative; a numba
kernel computes it for every code at once.

Relabellings (:class:`Relabelling`) carry answers between symmetric positions: a history is mapped
onto a proven tree's path (:func:`relabelling_onto`) or onto the canonical representative of its orbit
(:func:`canonical_history`), answered there, and the answer's guess mapped back.

No search or I/O here.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.game import CandidateSet, Code, Game, Turn

STABILISER_POSITIONS_MAX = 8
"""Games of more positions (beyond the atlas, whose games have at most 8) look for no position permutation in a
history's stabiliser: only symbol renamings (and, for Lemma 9, exchanges of turns) merge their guesses.  With every
permutation, one equivalence set of a 9-position game cost seconds (9! = 362880 transformations of every code) and
one of 15 positions never ended, holding gigabytes.  Fewer transformations is sound: they are still symmetries
fixing the history, the identity is among them, so every class keeps its smallest member; the classes are finer,
which costs a search more guesses, never a wrong value."""


def _transforms(game: Game, moves: Sequence[Code], groups: Sequence[Sequence[int]]
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Valid (position permutation, partial symbol map) pairs of the stabiliser.

    ``groups`` lists turns that may be permuted among themselves (singletons for Lemma 5).
    Returns ``perms`` int64[k, p] (image position k takes the symbol from ``perms[., k]``) and
    ``sigma`` int64[k, s] with -1 for free symbols, in the order of the position permutations
    (lexicographic), then of the turn permutations.
    """
    p, s = game.positions, game.symbols
    codes = game.arrays().codes
    moves_sym = [[int(v) for v in codes[m]] for m in moves]
    group_perms = [list(itertools.permutations(g)) for g in groups]
    found: list[tuple[tuple[int, ...], int, tuple[int, ...]]] = []
    for c_index, choice in enumerate(itertools.product(*group_perms)):
        target = list(range(len(moves)))
        for g, img in zip(groups, choice, strict=True):
            for a, b in zip(g, img, strict=True):
                target[a] = b
        pairs = [(row, moves_sym[target[i]]) for i, row in enumerate(moves_sym)]
        mapped = _mapping_perms(p, s, pairs)
        # beyond STABILISER_POSITIONS_MAX the first (lexicographic) permutation only: the identity where it is valid
        found.extend((pi, c_index, sigma) for pi, sigma in (
            mapped if p <= STABILISER_POSITIONS_MAX else itertools.islice(mapped, 1)))
    found.sort(key=lambda f: (f[0], f[1]))
    perms_out: list[list[int]] = []
    sigma_out: list[list[int]] = []
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for pi, _, sigma in found:
        if (pi, sigma) not in seen:
            seen.add((pi, sigma))
            perms_out.append(list(pi))
            sigma_out.append(list(sigma))
    return (np.array(perms_out, dtype=np.int64).reshape(-1, p),
            np.array(sigma_out, dtype=np.int64).reshape(-1, s))


def _mapping_perms(p: int, s: int, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]
                   ) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every position permutation π (lexicographic order) with a symbol map σ, injective on the symbols it maps,
    that carries each ``(row, dst)`` pair's ``row`` onto its ``dst`` (σ(row[π[k]]) = dst[k]), with that σ (-1
    for a symbol no row uses).

    Why a backtracking search: π is built one image position at a time, and a choice that maps some row's
    symbol inconsistently (or two symbols onto one) is dropped with every permutation extending it.  Trying
    all p! permutations instead cost 5040 Python loops per history at seven positions, and made the symmetry
    bookkeeping almost all of a rolled-out 6- or 7-position game's time (py-spy: 87 % of a rollout of 6x7).
    """
    sigma = [-1] * s
    inverse = [-1] * s
    pi: list[int] = []
    free = [True] * p

    def extend(k: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        if k == p:
            yield tuple(pi), tuple(sigma)
            return
        for j in range(p):
            if not free[j]:
                continue
            assigned: list[int] = []
            ok = True
            for row, dst in pairs:
                a, b = row[j], dst[k]
                if sigma[a] == -1:
                    if inverse[b] != -1:  # two symbols onto one
                        ok = False
                        break
                    sigma[a], inverse[b] = b, a
                    assigned.append(a)
                elif sigma[a] != b:
                    ok = False
                    break
            if ok:
                free[j] = False
                pi.append(j)
                yield from extend(k + 1)
                pi.pop()
                free[j] = True
            for a in assigned:
                inverse[sigma[a]] = -1
                sigma[a] = -1

    return extend(0)


def _turn_groups(n_moves: int, responses: Sequence[int] | None) -> list[list[int]]:
    """The turns a transformation may exchange: those that got the same response (Lemma 9) when
    ``responses`` are given, else none (each turn its own group, Lemma 5)."""
    if responses is None:
        return [[i] for i in range(n_moves)]
    by_resp: dict[int, list[int]] = {}
    for i, r in enumerate(responses):
        by_resp.setdefault(int(r), []).append(i)
    # Every exchange of the turns is tried with every position permutation: the groups, smallest first, may be
    # exchanged while their orders multiply to at most TURN_ORDERS_MAX; the turns of a group past it stay in place
    out: list[list[int]] = []
    orders = 1
    for group in sorted(by_resp.values(), key=len):
        if orders * math.factorial(len(group)) <= TURN_ORDERS_MAX:
            orders *= math.factorial(len(group))
            out.append(group)
        else:
            out.extend([i] for i in group)
    return out


TURN_ORDERS_MAX = 720
"""The most orders of the turns a history's stabiliser is looked for in (Lemma 9 exchanges turns that got the same
response).  Without a ceiling a history of one turn repeated 8 times cost 8! = 40320 searches of position
permutations (16 s in Python), and 32 times never ended.  Exchanging fewer turns is sound, as fewer position
permutations are (:data:`STABILISER_POSITIONS_MAX`); the searches' own histories stay far below it."""


def _classes_under(game: Game, moves: Sequence[Code], perms: npt.NDArray[np.int64],
                   sigma: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Class representative of every code under the transformations ``(perms, sigma)`` of
    :func:`_transforms` and the renamings of the symbols ``moves`` never use."""
    used = {int(v) for m in moves for v in game.arrays().codes[m]}
    free = np.array([v for v in range(game.symbols) if v not in used], dtype=np.int64)
    if free.shape[0] == 0:
        free = np.zeros(1, dtype=np.int64)
    from solver.symmetrykernels import canonical_codes

    rep: npt.NDArray[np.int64] = canonical_codes(game.arrays().codes, perms, sigma, free,
                                                 game.repetition)
    return rep


def classes(game: Game, moves: Sequence[Code] = (), responses: Sequence[int] | None = None
            ) -> npt.NDArray[np.int64]:
    """Class representative (smallest member) of every code under the stabiliser of ``moves``.

    With ``responses`` given, turns that got the same response may be exchanged (Lemma 9).
    """
    perms, sigma = _transforms(game, list(moves), _turn_groups(len(moves), responses))
    return _classes_under(game, moves, perms, sigma)


@functools.lru_cache(maxsize=64)
def _position_transforms(game: Game, turns: tuple[tuple[int, int], ...]
                         ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    moves = [g for g, _ in turns]
    return _transforms(game, moves, _turn_groups(len(moves), [r for _, r in turns]))


def position_classes_work(game: Game, turns: tuple[tuple[int, int], ...]) -> int:
    """What :func:`position_classes` of this history costs, in (code, transformation) pairs: its caller may find
    the classes dearer than the scan they would shorten (cached: finding the transformations is cheap)."""
    perms, _ = _position_transforms(game, turns)
    return 0 if perms.shape[0] <= 1 else int(perms.shape[0]) * game.size


@functools.lru_cache(maxsize=16)
def position_classes(game: Game, turns: tuple[tuple[int, int], ...]) -> npt.NDArray[np.int64] | None:
    """:func:`classes` of a history given as ``(guess, response)`` pairs, or None when the only
    transformations fixing it are renamings of the symbols it never uses.

    Those renamings are already covered, more cheaply, by the per-code test of
    :func:`solver.kernels.is_canonical` (free symbols are all absent or all present), so callers
    that have it only want this array when positions or used symbols can move too — typically the
    first guesses of a game.  Cached: a strategy tree asks for the same history at every node below it.
    The transformations are found once, for the test and for the classes.
    """
    moves = [g for g, _ in turns]
    perms, sigma = _position_transforms(game, turns)
    if perms.shape[0] <= 1:
        return None
    rep = _classes_under(game, moves, perms, sigma)
    rep.setflags(write=False)
    return rep


def equivalence_set(game: Game, moves: Sequence[Code] = (), responses: Sequence[int] | None = None
                    ) -> npt.NDArray[np.int32]:
    """One guess per equivalence class after ``moves`` (ascending), the moves themselves excluded."""
    rep = classes(game, moves, responses)
    # each code's representative is the smallest member of its class, so the representatives are the codes
    # that are their own: one linear pass instead of sorting (a search asks this at every position it starts
    # from, and at 32768 codes the sort cost several milliseconds each time)
    reps = np.flatnonzero(rep == np.arange(rep.shape[0])).astype(np.int32)
    if moves:
        reps = reps[~np.isin(reps, np.array(list(moves), dtype=np.int32))]
    return reps


# -- relabellings: one proof serves every symmetric image of a position ----------------------------

PERMUTED_POSITIONS_MAX = 6
"""Games with more positions try only the identity position permutation when relabelling (720
permutations is still cheap in Python; 40,320 is not).  Symbol renamings are always tried."""
PERMUTED_TURNS_MAX = 4
"""Histories with more turns keep their order when canonicalised (4! orders is cheap; 5! per position
permutation is not worth the rarer sharing it buys)."""


@dataclass(frozen=True)
class Relabelling:
    """A symmetry ψ of the game: the image of a code puts at position ``k`` the symbol found at
    position ``perm[k]``, renamed by ``sym``.  It preserves every response, so a position and its image
    have the same value, and the image of an optimal guess is optimal there (Lemma 5)."""

    perm: tuple[int, ...]
    """Image position ``k`` takes the symbol of position ``perm[k]``."""
    sym: tuple[int, ...]
    """Symbol ``s`` is renamed ``sym[s]`` (a bijection of all the game's symbols)."""

    @classmethod
    def identity(cls, game: Game) -> Relabelling:
        """The symmetry that changes nothing."""
        return cls(tuple(range(game.positions)), tuple(range(game.symbols)))

    @property
    def is_identity(self) -> bool:
        """Whether the image of every code is the code itself."""
        return (all(k == p for k, p in enumerate(self.perm))
                and all(s == t for s, t in enumerate(self.sym)))

    def apply(self, game: Game, code: Code) -> Code:
        """ψ(code)."""
        syms = game.symbols_of(code)
        return game.code_of([self.sym[syms[p]] for p in self.perm])

    def invert(self, game: Game, code: Code) -> Code:
        """ψ⁻¹(code): the caller's code whose image is ``code``."""
        inv = [0] * len(self.sym)
        for s, t in enumerate(self.sym):
            inv[t] = s
        syms = game.symbols_of(code)
        out = [0] * len(self.perm)
        for k, p in enumerate(self.perm):
            out[p] = inv[syms[k]]
        return game.code_of(out)

    def apply_turns(self, game: Game, turns: Sequence[Turn]) -> list[Turn]:
        """The image of a history (responses are unchanged by any symmetry)."""
        return [Turn(self.apply(game, t.guess), t.response) for t in turns]

    def apply_set(self, game: Game, cands: CandidateSet) -> CandidateSet:
        """ψ(cands), ascending: the candidates of the image of a history, mapped rather than filtered again.

        Why not ``game.candidates(self.apply_turns(...))``: the image may put the turns in another order, and
        filtering a history again re-checks rules that belong to the caller's own order of turns (a winning
        turn ends a game, so it must be the last one).  A symmetry maps a candidate set onto the image's
        candidate set whatever the order, so mapping is both cheaper and unable to fail.
        """
        if self.is_identity:
            return cands
        from solver.symmetrykernels import images

        found = images(game.arrays().codes, np.ascontiguousarray(cands, dtype=np.int64),
                       np.array(self.perm, dtype=np.int64), np.array(self.sym, dtype=np.int64),
                       game.symbols, game.repetition)
        return np.sort(found).astype(cands.dtype, copy=False)


def _complete(partial: dict[int, int], symbols: int) -> tuple[int, ...]:
    """A bijection extending ``partial``: symbols it leaves unmapped take the unused images in
    ascending order (any extension works, since those symbols appear in none of the turns)."""
    free = iter(sorted(set(range(symbols)) - set(partial.values())))
    return tuple(partial[s] if s in partial else next(free) for s in range(symbols))


def _position_perms(game: Game) -> list[tuple[int, ...]]:
    if game.positions > PERMUTED_POSITIONS_MAX:
        return [tuple(range(game.positions))]
    return list(itertools.permutations(range(game.positions)))


def relabelling_onto(game: Game, moves: Sequence[Code], targets: Sequence[Code]) -> Relabelling | None:
    """A symmetry mapping each of ``moves`` onto the target of the same turn, or None.

    This is how a history is found on a proven tree under another labelling: the tree's guesses along
    the path its responses take are the targets (responses never change under a symmetry, so the path
    is known before any relabelling is).
    """
    if len(moves) != len(targets):
        return None
    pairs = [(game.symbols_of(m), game.symbols_of(t)) for m, t in zip(moves, targets, strict=True)]
    for pi in _position_perms(game):
        tau: dict[int, int] = {}
        taken: set[int] = set()
        ok = True
        for src, dst in pairs:
            for k, p in enumerate(pi):
                a, b = src[p], dst[k]
                have = tau.get(a)
                if have is None:
                    if b in taken:
                        ok = False
                        break
                    tau[a] = b
                    taken.add(b)
                elif have != b:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            return Relabelling(pi, _complete(tau, game.symbols))
    return None


def canonical_history(game: Game, turns: Sequence[Turn], *, keep_order: bool = False
                      ) -> tuple[list[Turn], Relabelling]:
    """The canonical representative of a history under the game's symmetries, and the symmetry that
    maps the history onto it.

    Every history in one orbit (relabelled symbols, permuted positions and, up to
    :data:`PERMUTED_TURNS_MAX` turns, turns in another order) gets the same representative: the
    lexicographically smallest image.  For a fixed position permutation and turn order, renaming symbols
    in order of first appearance gives the smallest image over every renaming, so only position
    permutations and turn orders are enumerated.  The candidate set left by the representative is the
    image of the history's own, which is what lets the table key positions canonically: one proof
    serves every relabelling.  With ``keep_order`` the turns stay in their order (the smallest image of
    this sequence of turns: where a position was stored by a search that played them in this order).
    """
    if not turns:
        return [], Relabelling.identity(game)
    syms = [game.symbols_of(t.guess) for t in turns]
    orders: list[tuple[int, ...]] = (list(itertools.permutations(range(len(turns))))
                                     if len(turns) <= PERMUTED_TURNS_MAX and not keep_order
                                     else [tuple(range(len(turns)))])
    best: tuple[int, ...] | None = None
    best_at: tuple[tuple[int, ...], tuple[int, ...], dict[int, int]] | None = None
    for pi in _position_perms(game):
        for order in orders:
            tau: dict[int, int] = {}
            key: list[int] = []
            smaller = best is None
            for i in order:
                row = syms[i]
                for p in pi:
                    v = tau.setdefault(row[p], len(tau))
                    key.append(v)
                key.append(turns[i].response)
                if not smaller and best is not None:
                    # stop as soon as this image is known to be larger than the best one
                    head = tuple(key)
                    ref = best[: len(head)]
                    if head > ref:
                        break
                    if head < ref:
                        smaller = True
            else:
                t = tuple(key)
                if best is None or t < best:
                    best, best_at = t, (pi, order, tau)
    assert best_at is not None
    pi, order, tau = best_at
    relabel = Relabelling(pi, _complete(tau, game.symbols))
    return [Turn(relabel.apply(game, turns[i].guess), turns[i].response) for i in order], relabel
