"""Numba kernels: the hot loops of the solver, and nothing else.

Everything here is ``@njit(cache=True)`` over C-contiguous numpy arrays; no I/O, no Python objects,
no validation (the callers in :mod:`solver.game` and :mod:`solver.heuristics` validate once at the
boundary).  The arrays that describe a game travel together:

``codes``  int8[n, p]
    symbol index of each position of each code, codes in lexicographic order.
``masks``  int64[n]
    bit ``s`` set when symbol ``s`` occurs in the code (used for games without repetition, where
    bulls + cows is simply the number of shared symbols).
``counts`` uint8[n, s] or uint8[0, 0]
    how often each symbol occurs in each code; only games *with* repetition carry it (shape
    ``(0, 0)`` otherwise), and its presence selects the colour-count rule.
``table``  uint8[n, n] or uint8[0, 0]
    the precomputed response table; shape ``(0, 0)`` means "compute responses on the fly", which is
    how games too large for the memory cap are played.

A response is encoded as ``bulls * (p + 1) + cows``; ``p * (p + 1)`` is "all bulls".
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Strategy identifiers understood by :func:`best_guess`.  The registry in solver.heuristics maps
# names to these; keep the two in step.
MINIMAX = 0
MOST_PARTS = 1
ENTROPY = 2
EXPECTED_SIZE = 3
LARMOUTH = 4
CRUSH = 5


@njit(cache=True)
def popcount64(x):  # type: ignore[no-untyped-def]
    """Number of set bits of a non-negative int64 (SWAR, branch-free)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(cache=True)
def response(codes, masks, counts, i, j):  # type: ignore[no-untyped-def]
    """Encoded response of secret ``j`` to guess ``i`` (symmetric in ``i`` and ``j``).

    Bulls are equal positions; bulls + cows is the number of symbols the two codes share counted
    with multiplicity (sum over symbols of the smaller count), which is the general rule that stays
    right when symbols repeat.
    """
    p = codes.shape[1]
    bulls = 0
    for k in range(p):
        if codes[i, k] == codes[j, k]:
            bulls += 1
    if counts.shape[0] > 0:
        common = 0
        for s in range(counts.shape[1]):
            a = counts[i, s]
            b = counts[j, s]
            common += a if a < b else b
    else:
        common = popcount64(masks[i] & masks[j])
    return bulls * (p + 1) + common - bulls


@njit(cache=True)
def response_table(codes, masks, counts):  # type: ignore[no-untyped-def]
    """Full ``uint8[n, n]`` table of encoded responses.

    Row by row over a transposed copy of the codes, so that the inner loop runs over contiguous
    memory and vectorises; exploiting symmetry would halve the arithmetic but write columns, which
    costs more than it saves.
    """
    n = codes.shape[0]
    p = codes.shape[1]
    cols = np.ascontiguousarray(codes.T)
    table = np.empty((n, n), dtype=np.uint8)
    bulls = np.empty(n, dtype=np.int64)
    common = np.empty(n, dtype=np.int64)
    rep = counts.shape[0] > 0
    for i in range(n):
        bulls[:] = 0
        for k in range(p):
            v = codes[i, k]
            col = cols[k]
            for j in range(n):
                bulls[j] += col[j] == v
        if rep:
            common[:] = 0
            for s in range(counts.shape[1]):
                a = counts[i, s]
                if a == 0:
                    continue
                for j in range(n):
                    b = counts[j, s]
                    common[j] += a if a < b else b
        else:
            mi = masks[i]
            for j in range(n):
                common[j] = popcount64(mi & masks[j])
        row = table[i]
        for j in range(n):
            row[j] = bulls[j] * p + common[j]
    return table


@njit(cache=True)
def common_table(held):  # type: ignore[no-untyped-def]
    """``uint8[k, k]``: symbols shared (with multiplicity) by every pair of the ``k`` symbol
    multisets ``held[i, s]`` (how often multiset ``i`` holds symbol ``s``)."""
    k = held.shape[0]
    out = np.empty((k, k), dtype=np.uint8)
    for i in range(k):
        for j in range(k):
            c = 0
            for s in range(held.shape[1]):
                a = held[i, s]
                b = held[j, s]
                c += a if a < b else b
            out[i, j] = c
    return out


@njit(cache=True)
def response_row(table, codes, masks, counts, guess, cands, out):  # type: ignore[no-untyped-def]
    """Fill ``out[k]`` with the response of candidate ``cands[k]`` to ``guess``."""
    if table.shape[0] > 0:
        row = table[guess]
        for k in range(cands.shape[0]):
            out[k] = row[cands[k]]
    else:
        for k in range(cands.shape[0]):
            out[k] = response(codes, masks, counts, guess, cands[k])


@njit(cache=True)
def filter_candidates(table, codes, masks, counts, cands, guess, resp):  # type: ignore[no-untyped-def]
    """The candidates (int32, ascending as given) whose response to ``guess`` is ``resp``."""
    buf = np.empty(cands.shape[0], dtype=np.uint8)
    response_row(table, codes, masks, counts, guess, cands, buf)
    m = 0
    for k in range(cands.shape[0]):
        if buf[k] == resp:
            m += 1
    out = np.empty(m, dtype=np.int32)
    m = 0
    for k in range(cands.shape[0]):
        if buf[k] == resp:
            out[m] = cands[k]
            m += 1
    return out


@njit(cache=True)
def partition_matrix(table, codes, masks, counts, guesses, cands, n_resp):  # type: ignore[no-untyped-def]
    """``int32[len(guesses), n_resp]``: how many candidates give each response to each guess."""
    out = np.zeros((guesses.shape[0], n_resp), dtype=np.int32)
    buf = np.empty(cands.shape[0], dtype=np.uint8)
    for g in range(guesses.shape[0]):
        response_row(table, codes, masks, counts, guesses[g], cands, buf)
        for k in range(cands.shape[0]):
            out[g, buf[k]] += 1
    return out


@njit(cache=True)
def split(table, codes, masks, counts, guess, cands, n_resp):  # type: ignore[no-untyped-def]
    """Partition ``cands`` by their response to ``guess``.

    Returns ``(order, starts)``: ``cands[order[starts[r]:starts[r + 1]]]`` are the candidates that
    answer ``r``, each part still ascending (a stable counting sort).
    """
    m = cands.shape[0]
    buf = np.empty(m, dtype=np.uint8)
    response_row(table, codes, masks, counts, guess, cands, buf)
    starts = np.zeros(n_resp + 1, dtype=np.int64)
    for k in range(m):
        starts[buf[k] + 1] += 1
    for r in range(n_resp):
        starts[r + 1] += starts[r]
    fill = starts[:-1].copy()
    order = np.empty(m, dtype=np.int32)
    for k in range(m):
        r = buf[k]
        order[fill[r]] = cands[k]
        fill[r] += 1
    return order, starts


@njit(cache=True)
def _sort_desc(a, m):  # type: ignore[no-untyped-def]
    """Insertion sort of the first ``m`` entries of ``a``, largest first (m is at most ~30)."""
    for i in range(1, m):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] < v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True)
def is_perfect_split(table, codes, masks, counts, guess, cands, n_resp, seen):  # type: ignore[no-untyped-def]
    """True when ``guess`` leaves at most one candidate behind every response.

    ``seen`` is a caller-provided ``uint8[n_resp]`` scratch array (zeroed on return).
    """
    ok = True
    if table.shape[0] > 0:
        row = table[guess]
        for k in range(cands.shape[0]):
            r = row[cands[k]]
            if seen[r]:
                ok = False
                break
            seen[r] = 1
    else:
        for k in range(cands.shape[0]):
            r = response(codes, masks, counts, guess, cands[k])
            if seen[r]:
                ok = False
                break
            seen[r] = 1
    for r in range(n_resp):
        seen[r] = 0
    return ok


@njit(cache=True)
def perfect_candidate(table, codes, masks, counts, cands, n_resp):  # type: ignore[no-untyped-def]
    """Lowest candidate that splits the others into singletons, or -1.

    Such a guess is optimal under every criterion and every heuristic of this project, which is
    why tree nodes having one are called *derivable*: their guess need not be stored.
    """
    seen = np.zeros(n_resp, dtype=np.uint8)
    if cands.shape[0] > n_resp:
        return -1
    for k in range(cands.shape[0]):
        if is_perfect_split(table, codes, masks, counts, cands[k], cands, n_resp, seen):
            return cands[k]
    return -1


@njit(cache=True)
def digit_classes(S, masks, called, n_symbols):  # type: ignore[no-untyped-def]
    """(absent, uncalled) symbol masks of a node: symbols in no candidate of ``S``, and symbols in
    no guess so far (``called``) that some candidate holds.

    Permuting the symbols of either class maps ``S`` onto itself (absent ones trivially, uncalled
    ones because every guess so far is left unchanged), so two guesses that differ by such a
    permutation have the same value (the article's Lemma 1; its "absent digits" and "uncalled
    digits" cutoffs): only one of them needs scoring.
    """
    present = np.int64(0)
    for i in range(S.shape[0]):
        present |= masks[S[i]]
    full = (np.int64(1) << np.int64(n_symbols)) - np.int64(1)
    absent = full & ~present
    return absent, full & ~called & present


@njit(cache=True)
def is_canonical(codes, g, absent, uncalled):  # type: ignore[no-untyped-def]
    """Whether code ``g`` is the lowest-index code of its class under permutations of the
    ``absent`` symbols and of the ``uncalled`` ones: read by position, each class's symbols must be
    that class's smallest ones in ascending order.  Lowest index, so the guess a search keeps among
    equals (the first of the lowest bound) is unchanged by skipping the others."""
    ra = absent
    ru = uncalled
    seen = np.int64(0)
    for k in range(codes.shape[1]):
        bit = np.int64(1) << np.int64(codes[g, k])
        if seen & bit:
            continue
        seen |= bit
        if absent & bit:
            if bit != (ra & -ra):
                return False
            ra ^= bit
        elif uncalled & bit:
            if bit != (ru & -ru):
                return False
            ru ^= bit
    return True


@njit(cache=True, nogil=True)
def best_guess(table, codes, masks, counts, cands, pool, n_in_set, n_resp, strategy, log2n, lnn,
               fkeys, f0, f1, f2, f3, ctl):  # type: ignore[no-untyped-def]
    """Best guess of ``pool`` for one-step ``strategy`` against candidate set ``cands``.

    ``pool`` lists the candidates first (ascending, ``n_in_set`` of them) and then any other codes
    (ascending).  Only a strict improvement replaces the best so far, which implements the documented
    tie-break: a candidate beats a non-candidate of equal score, then the lowest index wins.

    Scores (lower is better): minimax = largest part; most-parts = minus the number of parts;
    expected-size = sum of squared part sizes; entropy = sum of n*log2(n); larmouth = sum of
    n*ln(n) over parts larger than one, minus 2*ln(2) for a candidate; crush compares the part sizes
    sorted largest first, lexicographically.  Float sums run over the sorted part sizes, so two
    guesses with the same multiset of part sizes get bit-identical scores.  ``log2n[k]`` and
    ``lnn[k]`` hold ``k*log2(k)`` and ``k*ln(k)``.

    Every score only grows as candidates are counted (a part's growth never lowers it; most-parts
    is bounded by the parts still reachable), so a guess is dropped as soon as what it has counted
    can no longer beat the best so far strictly: it could not have replaced it anyway, and most
    guesses are dropped after a small share of the candidates.  The float scores are compared with
    a margin larger than their rounding error, so nothing that could win is dropped.

    Without a response table, responses come from the factor tables ``f0..f3`` when ``fkeys`` has
    rows (see :class:`solver.codes.ResponseFactors`), else are computed code by code.

    A candidate that splits the set into singletons is optimal for every strategy and ends the scan.
    Returns ``(best_code, best_score)``; for crush the score is the largest part.

    ``ctl`` (int64, 3 or 4 entries) lets a caller bound the scan in time: another thread sets ``ctl[0]``
    (the kernel frees the GIL) and the scan stops before its next guess, keeping the best of those
    scored (at least one: a cut answer is always a scored guess).  The kernel writes how many guesses
    it scored to ``ctl[1]`` and the pool's size to ``ctl[2]``; they are equal when nothing was cut.
    ``ctl[3]``, when present and positive, bounds the scan in work instead: it stops before the next guess
    once this many (guess, candidate) responses have been counted.  Unlike the clock, that cut depends on
    the question only, so the same question gets the same guess on a busy machine and an idle one.
    """
    ctl[2] = pool.shape[0]
    ctl[1] = pool.shape[0]
    work_cap = ctl[3] if ctl.shape[0] > 3 else 0
    work = 0
    m = cands.shape[0]
    has_table = table.shape[0] > 0
    use_f = not has_table and fkeys.shape[0] > 0
    ck = np.zeros((m if use_f else 0, 4), dtype=np.uint16)
    if use_f:
        for k in range(m):
            for t in range(4):
                ck[k, t] = fkeys[cands[k], t]
    r0 = f0[0]
    r1 = f1[0]
    r2 = f2[0]
    r3 = f3[0]
    cnt = np.zeros(n_resp, dtype=np.int64)
    parts = np.empty(n_resp, dtype=np.int64)
    best_parts = np.zeros(n_resp, dtype=np.int64)
    best_np = 0
    best = -1
    best_score = np.inf
    ibound = np.int64(1) << np.int64(62)  # integer form of the best score (minimax, expected-size)
    fbound = np.inf  # best float score plus its rounding margin (entropy, larmouth)
    margin = 4.5e-16 * (m + 4)
    bonus = 2.0 * np.log(2.0)
    for g in range(pool.shape[0]):
        if (ctl[0] != 0 or (work_cap > 0 and work >= work_cap)) and best >= 0:
            ctl[1] = g
            break
        guess = pool[g]
        in_set = g < n_in_set
        acc = np.int64(0)
        facc = -bonus if (in_set and strategy == LARMOUTH) else 0.0
        dropped = False
        if use_f:
            r0 = f0[fkeys[guess, 0]]
            r1 = f1[fkeys[guess, 1]]
            r2 = f2[fkeys[guess, 2]]
            r3 = f3[fkeys[guess, 3]]
        for k in range(m):
            if has_table:
                r = np.int64(table[guess, cands[k]])
            elif use_f:
                r = np.int64(r0[ck[k, 0]]) + r1[ck[k, 1]] + r2[ck[k, 2]] + r3[ck[k, 3]]
            else:
                r = np.int64(response(codes, masks, counts, guess, cands[k]))
            c = cnt[r]
            cnt[r] = c + 1
            if strategy == MINIMAX:
                if c + 1 >= ibound:
                    dropped = True
                    break
            elif strategy == EXPECTED_SIZE:
                acc += 2 * c + 1
                if acc >= ibound:
                    dropped = True
                    break
            elif strategy == MOST_PARTS:
                if c == 0:
                    acc += 1
                elif acc + m - 1 - k <= best_np:
                    dropped = True
                    break
            elif strategy == ENTROPY:
                facc += log2n[c + 1] - log2n[c]
                if facc > fbound:
                    dropped = True
                    break
            elif strategy == LARMOUTH:
                facc += lnn[c + 1] - lnn[c]
                if facc > fbound:
                    dropped = True
                    break
            elif best >= 0 and c + 1 > best_parts[0]:  # crush: the largest part decides first
                dropped = True
                break
        work += (k + 1 if m > 0 else 0) + n_resp // 8  # responses counted, and the parts read below
        np_ = 0
        largest = 0
        for r in range(n_resp):
            c = cnt[r]
            if c > 0:
                parts[np_] = c
                np_ += 1
                if c > largest:
                    largest = c
                cnt[r] = 0
        if dropped:
            continue
        if in_set and largest == 1:
            # A candidate with all parts singletons: nothing can do better, and it is the lowest
            # such candidate because candidates come first in ascending order.
            if strategy == CRUSH:
                return guess, 1.0
            if strategy == MINIMAX:
                return guess, 1.0
            if strategy == MOST_PARTS:
                return guess, -float(m)
            if strategy == EXPECTED_SIZE:
                return guess, float(m)
            if strategy == ENTROPY:
                return guess, 0.0
            return guess, -bonus
        if strategy == CRUSH:
            _sort_desc(parts, np_)
            better = False
            if best < 0:
                better = True
            else:
                n_cmp = np_ if np_ > best_np else best_np
                for k in range(n_cmp):
                    a = parts[k] if k < np_ else 0
                    b = best_parts[k] if k < best_np else 0
                    if a != b:
                        better = a < b
                        break
            if better:
                best = guess
                best_np = np_
                for k in range(np_):
                    best_parts[k] = parts[k]
                best_score = float(largest)
            continue
        if strategy == MINIMAX:
            score = float(largest)
        elif strategy == MOST_PARTS:
            score = -float(np_)
        elif strategy == EXPECTED_SIZE:
            s2 = 0
            for k in range(np_):
                s2 += parts[k] * parts[k]
            score = float(s2)
        else:
            _sort_desc(parts, np_)
            score = 0.0
            if strategy == ENTROPY:
                for k in range(np_):
                    score += log2n[parts[k]]
            else:
                for k in range(np_):
                    score += lnn[parts[k]]
                if in_set:
                    score -= bonus
        if score < best_score:
            best_score = score
            best = guess
            if strategy == MINIMAX:
                ibound = largest
            elif strategy == EXPECTED_SIZE:
                ibound = np.int64(score)
            elif strategy == MOST_PARTS:
                best_np = np_
            else:
                fbound = score + margin * (abs(score) + 1.0)
    return best, best_score


@njit(cache=True)
def class_lowest_codes(codes, absent, uncalled):  # type: ignore[no-untyped-def]
    """Every code that is the lowest of its class under :func:`is_canonical` (int32, ascending)."""
    n = codes.shape[0]
    out = np.empty(n, dtype=np.int32)
    k = 0
    for g in range(n):
        if is_canonical(codes, g, absent, uncalled):
            out[k] = g
            k += 1
    return out[:k].copy()


@njit(cache=True, nogil=True)
def best_guess_by_class(table, codes, masks, counts, cands, canon, from_set_only, n_resp, strategy,
                        log2n, lnn, absent, uncalled, rep, fkeys, f0, f1, f2, f3, ctl):  # type: ignore[no-untyped-def]
    """:func:`best_guess` over one code per symmetry class: the same guess, far fewer scored.

    The pool is built here, candidates first, then the other codes, both ascending, keeping only
    codes that are the lowest of their class: under permutations of the ``absent`` and of the
    ``uncalled`` symbols (:func:`is_canonical`; ``canon`` lists those codes, see
    :func:`class_lowest_codes`), and, when ``rep`` is not empty, under the transformations fixing the
    history (``rep[g] == g``, see :mod:`solver.symmetry`).  Codes of one class split the candidates
    into parts of the same sizes and are all candidates or all not, so the lowest of the winning
    class is exactly the guess the full scan's tie-break picks.
    """
    m = cands.shape[0]
    use_rep = rep.shape[0] > 0
    pool = np.empty(m if from_set_only else m + canon.shape[0], dtype=np.int32)
    npool = 0
    for k in range(m):
        g = cands[k]
        if (not use_rep or rep[g] == g) and is_canonical(codes, g, absent, uncalled):
            pool[npool] = g
            npool += 1
    n_in = npool
    if not from_set_only:
        j = 0
        for i in range(canon.shape[0]):
            g = canon[i]
            while j < m and cands[j] < g:
                j += 1
            if j < m and cands[j] == g:
                continue
            if not use_rep or rep[g] == g:
                pool[npool] = g
                npool += 1
    return best_guess(table, codes, masks, counts, cands, pool[:npool], n_in, n_resp, strategy, log2n, lnn,
                      fkeys, f0, f1, f2, f3, ctl)
