"""The exact search kernel's helpers on a node's set and its parts, each a kernel of its own.

What :func:`solver.searchkernels.search` asks of a set before it searches a guess: into how many parts every
code splits it (:func:`part_counts`), a guess that splits it perfectly (:func:`perfect_candidate`,
:func:`perfect_other`), which other codes the partition bound cannot rule out (:func:`_even_bounds`,
:func:`prefilter`, :func:`prefilter_list`), whether a guess splits it as one already searched did
(:func:`seen_split`), its branching (:func:`branching`), and the values of sets too small to search; and the
steps of a node's search that touch its set alone: its codes marked (:func:`mark_set`), split by a guess
(:func:`split_parts`), and the parts put largest first (:func:`parts_largest_first`).
Kept apart from the search kernel, whose recursion, workspace and statistics (:mod:`solver.searchkernels`'
docstring) stay there; these read only what they are given and keep no state.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from solver.kernels import is_canonical, response_row
from solver.ttkernels import INF


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of bits set in an unsigned integer: LLVM's ``ctpop``, one instruction (and vectorized
    in loops) where a loop of bit tricks costs a branch per bit."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(cache=True, inline="always")
def part_counts(table, S, acc, pc, width):  # type: ignore[no-untyped-def]
    """``pc[g]``: into how many parts code ``g`` splits ``S``, for every code at once.

    Each code's responses from the secrets of ``S`` are collected as one bit each of ``acc[g]``, one
    candidate's row after another: each pass reads a contiguous row of the table and ORs one bit per
    code (two rows a pass), a loop the compiler turns into vector instructions, and a last pass stores the
    popcounts.
    One count answers both "does g split S into singletons" and "how low can g's partition bound be"
    for every code, where reading responses code by code, with a branch per read, cost most of the
    search's time.

    ``acc`` (one word per code) is as narrow as the responses allow (:func:`count_parts` picks it): its
    words' width bounds the responses (16, 32 or 64 bits), and the narrower the word the more codes one
    vector instruction ORs.  The responses are masked to the word's width (a no-op on valid ones) so that
    the compiler knows the shift stays inside the word and shifts the narrow lanes themselves: with 16-bit
    words a row of 5040 codes took a quarter of the 64-bit words' time (``benchmarks/profile_search.py``).
    """
    one = np.uint64(1)
    n = S.shape[0]
    m = acc.shape[0]
    k = n % 2  # rows two at a time (one load and store of ``acc`` per pair), an odd one first
    if k == 1:
        row = table[S[0]]
        for g in range(m):
            acc[g] = one << (row[g] & width)
    else:
        for g in range(m):
            acc[g] = 0
    while k < n:
        row = table[S[k]]
        nxt = table[S[k + 1]]
        for g in range(m):
            acc[g] |= (one << (row[g] & width)) | (one << (nxt[g] & width))
        k += 2
    for g in range(m):
        pc[g] = popcount(acc[g])  # type: ignore[call-arg]  # an intrinsic: numba supplies the context


@njit(cache=True)
def count_parts(table, S, acc, pc, n_codes, n_resp):  # type: ignore[no-untyped-def]
    """:func:`part_counts` of ``S`` into ``pc`` for the ``n_codes`` codes, in the narrowest words of ``acc`` (uint64,
    at least ``n_codes`` long: scratch) that hold ``n_resp`` responses as bits: 16, 32 or 64 (at most 64
    responses: :func:`solver.bounds.mask_bits`)."""
    if n_resp <= 16:  # solver.bounds.mask_bits
        part_counts(table, S, acc.view(np.uint16)[:n_codes], pc, 15)
    elif n_resp <= 32:
        part_counts(table, S, acc.view(np.uint32)[:n_codes], pc, 31)
    else:
        part_counts(table, S, acc[:n_codes], pc, 63)


LOW_BYTES = np.uint64(0x0101010101010101)
HIGH_BITS = np.uint64(0x8080808080808080)


@njit(cache=True)
def _next_at_least(words, w, t):  # type: ignore[no-untyped-def]
    """The first word from ``w`` on holding a byte >= ``t`` (1..127; bytes are at most 64), or
    ``words.shape[0]``: eight part counts tested at once (adding 128 - t sets a byte's high bit
    exactly when it is >= t, with no carry into the next byte)."""
    add = np.uint64(128 - t) * LOW_BYTES
    while w < words.shape[0]:
        if (words[w] + add) & HIGH_BITS:
            return w
        w += 1
    return w


@njit(cache=True)
def perfect_candidate(table, S):  # type: ignore[no-untyped-def]
    """The first candidate of S splitting S into singletons, or -1.

    Read along each candidate's own row, at the other candidates only: n² reads with an early stop
    at the first repeated response, far less than masking every code, which only the search for a
    non-candidate needs (:func:`perfect_other`)."""
    n = S.shape[0]
    one = np.uint64(1)
    for i in range(n):
        row = table[S[i]]
        seen = np.uint64(0)
        ok = True
        for k in range(n):
            bit = one << row[S[k]]
            if seen & bit:
                ok = False
                break
            seen |= bit
        if ok:
            return S[i]
    return -1


@njit(cache=True)
def perfect_other(pc, n, inset, codes, absent, uncalled):  # type: ignore[no-untyped-def]
    """The lowest code outside the set splitting its ``n`` codes into singletons, one per symbol class
    (:func:`is_canonical`), or -1; ``pc`` holds the set's :func:`part_counts` (its length a multiple
    of 8, zero past the codes), read eight at a time."""
    words = pc.view(np.uint64)
    w = _next_at_least(words, 0, n)
    while w < words.shape[0]:
        for g in range(8 * w, 8 * w + 8):
            if pc[g] == n and inset[g] == 0 and is_canonical(codes, g, absent, uncalled):
                return g
        w = _next_at_least(words, w + 1, n)
    return -1


@njit(cache=True)
def _even_bounds(n, lbrow, base, bnd):  # type: ignore[no-untyped-def]
    """``bnd[p]``, p = 0..64 (written into ``bnd``, at least 65 long, and returned): the least ``base`` plus the
    bounds ``lbrow`` of ``p`` parts holding ``n`` codes in all (INF where no such parts exist).

    Because ``lbrow`` is convex (its steps never shrink: see :func:`solver.bounds.lower_bound_tables`)
    and zero for an empty set, no ``p`` parts of ``n`` codes cost less than the most even ones: ``r``
    parts of ``q + 1`` and ``p - r`` of ``q``, with ``n = qp + r``.  That is the exact partition bound
    of a guess whenever its parts are that even, which the small sets that most nodes hold nearly
    always are.
    """
    bnd[:65] = INF
    if n == 0:
        bnd[0] = base
    for p in range(1, (64 if n > 64 else n) + 1):
        q = n // p
        r = n - q * p
        lo = lbrow[q]
        hi = lbrow[q + 1] if r > 0 else np.int64(0)
        if lo < INF and hi < INF:
            v = base + r * hi + (p - r) * lo
            bnd[p] = v if v < INF else INF
    return bnd


@njit(cache=True)
def prefilter(pc, n, inset, codes, absent, uncalled, lbrow, base, beta, n_codes, keys, nk, fail, bnd):  # type: ignore[no-untyped-def]
    """The non-candidates whose partition bound may stay below ``beta``, appended to ``keys`` as
    ``bound * n_codes + code`` in increasing code order (one per symbol class); returns the new
    ``nk``.  The bound of those left out lowers ``fail[0]``.

    A non-candidate with ``P`` parts (``pc``: :func:`part_counts`) costs at least :func:`_even_bounds`
    ``[P]``, so nearly every code this drops is one whose responses would have proven it, and the
    order of the rest is nearly the exact bounds'.  Their responses are read only when the search
    reaches them.  One part does not split S.  The even bound never grows with ``P`` (splitting a
    part never costs more, the bounds being convex and zero for nothing), so the codes kept are those
    with at least ``pmin`` parts, found eight at a time, and those dropped cost at least
    ``bnd[pmin - 1]``.  ``bnd``: scratch for the even bounds (65 long).
    """
    bnd = _even_bounds(n, lbrow, base, bnd)
    top = 64 if n > 64 else n
    pmin = 2
    while pmin <= top and bnd[pmin] >= beta:
        pmin += 1
    if pmin > 2 and bnd[pmin - 1] < fail[0]:
        fail[0] = bnd[pmin - 1]
    k = nk
    if pmin > top:
        return k
    words = pc.view(np.uint64)
    w = _next_at_least(words, 0, pmin)
    while w < words.shape[0]:
        for g in range(8 * w, 8 * w + 8):
            p = pc[g]
            if p >= pmin and inset[g] == 0 and is_canonical(codes, g, absent, uncalled):
                keys[k] = bnd[p] * n_codes + g
                k += 1
        w = _next_at_least(words, w + 1, pmin)
    return k


@njit(cache=True)
def prefilter_list(pc, n, phase, src, count, inset, codes, absent, uncalled, canonical_only, lbrow, base,  # type: ignore[no-untyped-def]
                    beta, out, fail, bnd):
    """The codes of ``src[:count]`` of one phase (0: candidates, 1: the others) whose partition bound
    may stay below ``beta``, in their order, into ``out``; returns how many.  Those left out lower
    ``fail[0]`` by the bound that dropped them.  With ``canonical_only``, one per symbol class.

    :func:`prefilter`'s bound, for a list of codes that :func:`_collect` then reads in full for their
    exact bounds and splits: the pools of the first two plies, whose sets are large, and the
    candidates of a node whose masks are already known.  A candidate's own code is its winning
    part, which costs nothing more: its other ``P - 1`` parts hold ``n - 1`` codes.  ``bnd``: as
    :func:`prefilter`'s.
    """
    bnd = _even_bounds(n - (1 - phase), lbrow, base, bnd)
    k = 0
    low = fail[0]
    for i in range(count):
        g = src[i]
        if (inset[g] == 1) != (phase == 0):
            continue
        p = np.int64(pc[g]) - (1 - phase)
        b = bnd[p]
        if b >= beta:
            if (phase == 0 or p > 1) and b < low:
                low = b
            continue
        if canonical_only and not is_canonical(codes, g, absent, uncalled):
            continue
        out[k] = g
        k += 1
    fail[0] = low
    return k



@njit(cache=True)
def bound_reaches(table, S, n, g, lbrow, base, step, beta, cnt, touched):  # type: ignore[no-untyped-def]
    """A bound of at least ``beta`` on guess ``g`` (a code outside ``S``), proven by reading as few of its
    responses as it takes, or -1 when its partition bound stays below ``beta``.

    :func:`solver.searchkernels._collect`'s running bound, for the other codes the search reads lazily: the parts
    seen so far cost at least their ``lbrow`` values, and every code not yet read adds at least ``step`` more
    (``lbrow`` grows by at least ``step`` a code).  Most of those codes are proven too costly by their partition
    alone (three quarters of them after 0123 1.1 in Bulls-and-Cows), so they are dropped after a part of their
    responses, where splitting ``S`` by them (:func:`split_parts`) read them all and wrote every part.
    ``cnt`` (zero, left zero) and ``touched``: scratch, one entry per response."""
    nt = 0
    lb = base
    got = np.int64(-1)
    for k in range(n):
        r = table[S[k], g]
        c = cnt[r]
        touched[nt] = r  # kept when it is a new part: no branch to mispredict
        nt += c == 0
        cnt[r] = c + 1
        lb += lbrow[c + 1] - lbrow[c]
        bound = lb + (n - 1 - k) * step
        if bound >= beta:
            got = bound if bound < INF else INF
            break
    for t in range(nt):
        cnt[touched[t]] = 0
    return got


@njit(cache=True)
def part_hash(c, z, is_win):  # type: ignore[no-untyped-def]
    """One part's term of a split's signature: ``c`` codes whose ``z1`` keys sum to ``z``.

    Parts of one or two codes are worth the same whatever they hold, so they hash by size alone, each
    size with its own constant (c*K would let two singletons equal one pair); the winning part too.
    """
    if is_win:
        return np.uint64(0xA0761D6478BD642F)
    if c == 1:
        return np.uint64(0xD6E8FEB86659FD93)
    if c == 2:
        return np.uint64(0x8EBC6AF09C88C6E3)
    h = z ^ (z >> np.uint64(31))
    h *= np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(29))


@njit(cache=True)
def seen_before(sig, hkey, hstamp, node_id):  # type: ignore[no-untyped-def]
    """Whether signature ``sig`` is already in this node's set (stamp ``node_id``, open addressing in
    ``hkey``, whose stamps need no clearing between nodes); adds it otherwise."""
    hmask = hkey.shape[0] - 1
    slot = np.int64(sig & np.uint64(hmask))
    while hstamp[slot] == node_id:
        if hkey[slot] == sig:
            return True
        slot = (slot + 1) & hmask
    hstamp[slot] = node_id
    hkey[slot] = sig
    return False


@njit(cache=True)
def seen_split(starts, parts, n_resp, win, z1, hkey, hstamp, node_id):  # type: ignore[no-untyped-def]
    """Whether a guess tried before at this node (stamp ``node_id``) split S exactly like this one,
    whose parts are ``parts[starts[r]:starts[r + 1]]``; records it otherwise.  The split's
    signature is :func:`solver.searchkernels._collect`'s, for the other codes."""
    sig = np.uint64(2) * np.uint64(0x9E3779B97F4A7C15)
    for r in range(n_resp):
        c = starts[r + 1] - starts[r]
        if c == 0:
            continue
        z = np.uint64(0)
        if c > 2:
            for t in range(starts[r], starts[r + 1]):
                z += z1[parts[t]]
        sig += part_hash(c, z, r == win)
    return seen_before(sig, hkey, hstamp, node_id)


@njit(cache=True)
def branching(pc, inset, n_codes, b_max):  # type: ignore[no-untyped-def]
    """The most non-winning parts any code makes of the node's set (``pc``: :func:`part_counts`; a code of the
    set has its winning part among them), at most ``b_max``: no guess splits any set below this one into more
    (a subset's parts under a guess are among the set's), so its counting bound holds for every one of them."""
    b = np.uint8(1)
    for g in range(n_codes):  # in bytes (a code of the set has its winning part): the loop is vectorized
        p = np.uint8(pc[g] - inset[g])
        b = p if p > b else b
    return np.int64(b) if b < b_max else np.int64(b_max)


@njit(cache=True)
def most_found(b, m, first):  # type: ignore[no-untyped-def]
    """The most secrets ``m`` guesses can find below a branching of ``b`` non-winning parts, the first guess
    finding one (``first`` 1) or none (0, a code outside the set): a set of more needs more guesses."""
    total = np.int64(first)
    level = np.int64(1)
    for _ in range(1, m):
        level = level * b if level < (np.int64(1) << np.int64(40)) else level
        total += level
    return total


@njit(cache=True)
def tiny_value(n, m, crit):  # type: ignore[no-untyped-def]
    """Value of a set of one or two codes with ``m`` guesses left (guess one of them, then the other)."""
    if m <= 0 or (n == 2 and m == 1):
        return INF
    if crit == 0:
        return np.int64(2 * n - 1)
    return np.int64(1) if m == n else np.int64(0)


@njit(cache=True)
def mark_set(S, n, inset, v):  # type: ignore[no-untyped-def]
    """Mark the codes of ``S`` in ``inset`` (1) while a node searches, or clear them (0) as it returns."""
    for i in range(n):
        inset[S[i]] = v


@njit(cache=True)
def split_parts(table, codes, masks, counts, g, S, n, n_resp, buf, starts, fill, parts):  # type: ignore[no-untyped-def]
    """Split ``S`` by guess ``g`` into ``parts`` (a stable counting sort): the part of response ``r`` is
    ``parts[starts[r]:starts[r + 1]]``, in ``S``'s order; ``buf`` receives the responses, ``fill`` is scratch."""
    response_row(table, codes, masks, counts, g, S, buf)
    starts[:] = 0
    for k in range(n):
        starts[buf[k] + 1] += 1
    for r in range(n_resp):
        starts[r + 1] += starts[r]
    for r in range(n_resp):
        fill[r] = starts[r]
    for k in range(n):
        r = buf[k]
        parts[fill[r]] = S[k]
        fill[r] += 1


@njit(cache=True)
def parts_largest_first(starts, n_resp, win, lbc, psize, pres):  # type: ignore[no-untyped-def]
    """The non-winning parts of a split (:func:`split_parts`'s ``starts``), largest first (an insertion sort, equal
    sizes by response): their sizes into ``psize``, their responses into ``pres``.  Returns how many there are
    and the sum of their bounds ``lbc`` by size."""
    np_ = 0
    rest = np.int64(0)
    for r in range(n_resp):
        c = starts[r + 1] - starts[r]
        if c > 0 and r != win:
            psize[np_] = c
            pres[np_] = r
            np_ += 1
            rest += lbc[c]
    for a in range(1, np_):
        vs = psize[a]
        vr = pres[a]
        b = a - 1
        while b >= 0 and psize[b] < vs:
            psize[b + 1] = psize[b]
            pres[b + 1] = pres[b]
            b -= 1
        psize[b + 1] = vs
        pres[b + 1] = vr
    return np_, rest
