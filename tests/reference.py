"""Plain-Python references the kernels are checked against: slow, obvious, independent.

Nothing here imports solver.kernels; games are described by strings of symbols.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np


def all_codes(positions: int, symbols: int, repetition: bool, alphabet: str) -> list[str]:
    """Every code in lexicographic order, by itertools."""
    syms = alphabet[:symbols]
    if repetition:
        return ["".join(t) for t in itertools.product(syms, repeat=positions)]
    return ["".join(t) for t in itertools.permutations(syms, positions)]


def bulls_cows(guess: str, secret: str) -> tuple[int, int]:
    """Bulls and cows by the colour-count rule."""
    bulls = sum(a == b for a, b in zip(guess, secret, strict=True))
    cg, cs = Counter(guess), Counter(secret)
    common = sum(min(cg[ch], cs[ch]) for ch in cg)
    return bulls, common - bulls


def parts(guess: str, cands: list[str]) -> Counter[tuple[int, int]]:
    """Candidates per response to ``guess``."""
    return Counter(bulls_cows(guess, c) for c in cands)


def score(strategy: str, sizes: list[int], in_set: bool) -> tuple[float, ...]:
    """The documented score of a multiset of part sizes (lower is better), as a sortable key."""
    srt = sorted(sizes, reverse=True)
    if strategy == "minimax":
        return (float(srt[0]),)
    if strategy == "most-parts":
        return (-float(len(srt)),)
    if strategy == "expected-size":
        return (float(sum(n * n for n in srt)),)
    if strategy == "crush":
        return tuple(float(n) for n in srt)
    total = 0.0
    for n in srt:
        total += float(n * np.log2(n)) if strategy == "entropy" else float(n * np.log(n))
    if strategy == "larmouth" and in_set:
        total -= 2.0 * float(np.log(2.0))
    return (total,)


def best(strategy: str, codes: list[str], cands: list[str], from_set_only: bool = False) -> str:
    """The documented choice: best score, then a candidate, then the lowest index."""
    if len(cands) <= 2:
        return cands[0]
    cset = set(cands)
    pool = cands if from_set_only else codes
    index = {c: k for k, c in enumerate(codes)}

    def key(g: str) -> tuple[object, ...]:
        return (score(strategy, list(parts(g, cands).values()), g in cset), g not in cset, index[g])

    return min(pool, key=key)


INF = float("inf")


def exhaustive(codes: list[str], cands: tuple[str, ...], m: int | None, criterion: str,
               from_set_only: bool = False, memo: dict[tuple[object, ...], float] | None = None) -> float:
    """Optimal value by plain exhaustive search: every guess, no bounds, no pruning, only memoised.

    ``m`` guesses are left (this one included; None = no limit, totals only — recursion still ends,
    since a guess that splits nothing is skipped).  total: guesses still needed summed over the
    candidates; kmovers: candidates needing exactly the last allowed guess.  INF when impossible.
    """
    memo = {} if memo is None else memo
    key = (cands, m, criterion, from_set_only)
    if key in memo:
        return memo[key]
    n = len(cands)
    if m is not None and m <= 0:
        return INF
    if n == 1:
        return 1 if criterion == "total" or m == 1 else 0
    if m == 1:
        return INF
    child = None if m is None else m - 1
    best = INF
    pool = cands if from_set_only else codes
    for g in pool:
        groups: dict[tuple[int, int], list[str]] = {}
        for c in cands:
            groups.setdefault(bulls_cows(g, c), []).append(c)
        win = (len(g), 0)
        if any(len(v) == n and k != win for k, v in groups.items()):
            continue  # splits nothing: never part of an optimal strategy
        value: float = n if criterion == "total" else 0
        for k, v in groups.items():
            if k != win:
                value += exhaustive(codes, tuple(v), child, criterion, from_set_only, memo)
        best = min(best, value)
    memo[key] = best
    return best
