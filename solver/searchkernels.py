"""The exact branch-and-bound search as one recursive numba kernel.

Kept apart from :mod:`solver.kernels` because it is large and has its own workspace conventions;
like it, it does no I/O and takes only arrays.  What it asks of a node's set and parts (part counts,
perfect guesses, partition-bound filters, repeated splits, small sets' values) are the kernels of
:mod:`solver.searchparts`.  :mod:`solver.search` prepares every array and is the only caller.

Values are *turn-independent* where possible:

``total``   C(S) = sum over the secrets of S of the guesses still needed, the one made here included.
``kmovers`` Φ(S, m) = number of secrets solved with exactly the last allowed guess, ``m`` guesses left.

``m`` is the number of guesses still allowed, this one included; ``MMAX`` means unlimited (totals only).
A search returns a value ``v``: exact when ``v < beta``, otherwise a lower bound (``v >= beta``,
fail-soft).  ``INF`` means no strategy finishes within the limit.  The transposition table's kernels
and layout are :mod:`solver.ttkernels`.

Parameters (``prm``, int64), by slot name:

==================== ==============================================================================
P_CRITERION          criterion: 0 total, 1 kmovers
P_MDE                mde: the hybrid region is every turn > mde (a large value disables it)
P_HYBRID_MODE        hybrid mode: 0 none, 1 heuristic replaces search, 2 only candidates are tried
P_HEURISTIC          heuristic kernel id (kernels.CRUSH or kernels.LARMOUTH)
P_FROM_SET_ONLY      1 = try only candidates everywhere (from_set_only)
P_MMAX               MMAX, the "unlimited" value of m
P_CODES              number of codes
P_RESPONSES          size of the response encoding
P_WIN                the winning response
P_TURN_KEYED         1 = the turn is part of the transposition key (hybrid searches: values depend on it)
P_EXPORT_THRESHOLD   entries whose search cost reaches it are logged for persistence
P_NODE_LIMIT         node limit (0 = none); past it the search aborts and S_ABORTED is set
P_VALID_RESPONSES    number of valid responses (max parts a guess can make, the winning one included)
P_POOL_ROW           scratch: row of ``pools1`` for the root guess being searched
P_SYMBOLS            number of symbols
==================== ==============================================================================

Statistics (``stats``, int64), by slot name: S_NODES nodes, S_TABLE_HITS table hits, S_TABLE_STORES
table stores, S_FAST_ESTIMATES fast estimates, S_LOG_DROPPED logged entries dropped for lack of room,
S_ABORTED the call was aborted, S_STOP stop requested (set by another thread while the kernel runs: the
search kernel releases the GIL, so a watcher can ask a long search to stop), S_TOO_DEEP the search went
deeper than its workspace (it stops, aborted, instead of writing past it).  Where the work goes
(``benchmarks/profile_search.py``): S_SCANNED_CANDIDATES and S_SCANNED_OTHERS count the guesses whose
responses are read (by :func:`_collect` for their partition bound, or, for the other codes that
:func:`solver.searchparts.prefilter` keeps, when the search reaches them), S_READS_CANDIDATES and S_READS_OTHERS the
responses read for them (counted per guess, so the inner loops stay as they were), S_MASK_ROWS the
candidates' rows read by :func:`solver.searchparts.part_counts` (n per set counted).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.kernels import best_guess, digit_classes, is_canonical
from solver.searchparts import (
    bound_reaches,
    branching,
    count_parts,
    mark_set,
    most_found,
    part_hash,
    parts_largest_first,
    perfect_candidate,
    perfect_other,
    prefilter,
    prefilter_list,
    seen_before,
    seen_split,
    split_parts,
    tiny_value,
)
from solver.ttkernels import (  # the table the search reads and writes, and its value conventions
    FLAG_EXACT,
    FLAG_LOWER,
    INF,
    set_keys,
    tt_bounds,
    tt_find,
    tt_store,
)

# Slots of the parameter and statistics arrays (see the module docstring)
P_CRITERION = 0
P_MDE = 1
P_HYBRID_MODE = 2
P_HEURISTIC = 3
P_FROM_SET_ONLY = 4
P_MMAX = 5
P_CODES = 6
P_RESPONSES = 7
P_WIN = 8
P_TURN_KEYED = 9
P_EXPORT_THRESHOLD = 10
P_NODE_LIMIT = 11
P_VALID_RESPONSES = 12
P_POOL_ROW = 13
P_SYMBOLS = 14
PARAMS = 15
"""Length of ``prm``."""

S_NODES = 0
S_TABLE_HITS = 1
S_TABLE_STORES = 2
S_FAST_ESTIMATES = 3
S_LOG_DROPPED = 4
S_ABORTED = 5
S_STOP = 6
S_TOO_DEEP = 8
S_SCANNED_CANDIDATES = 7
S_SCANNED_OTHERS = 9
S_READS_CANDIDATES = 10
S_READS_OTHERS = 11
S_MASK_ROWS = 12
STATS = 13
"""Length of ``stats``."""

@njit(cache=True)
def _log_entry(log_meta, log_sets, log_off, log_n, S, m, flag, value, best, cost, turn, stats):  # type: ignore[no-untyped-def]
    k = log_n[0]
    pos = log_n[1]
    if k >= log_meta.shape[0] or pos + S.shape[0] > log_sets.shape[0]:
        stats[S_LOG_DROPPED] += 1
        return
    log_meta[k, 0] = m
    log_meta[k, 1] = flag
    log_meta[k, 2] = value
    log_meta[k, 3] = best
    log_meta[k, 4] = cost
    log_meta[k, 5] = turn
    for i in range(S.shape[0]):
        log_sets[pos + i] = S[i]
    log_off[k] = pos
    log_n[0] = k + 1
    log_n[1] = pos + S.shape[0]


@njit(cache=True)
def _collect(S, n, phase, g_lo, g_hi, pool, use_pool, inset, table, codes, absent, uncalled, z1, lbrow,
             base, step, win, beta, n_codes, keys, nk, cnt, zs, touched, hkey, hstamp, node_id,
             fail, stats):  # type: ignore[no-untyped-def]
    """Lower-bound pass over one phase's guesses (0: candidates, 1: the others), appending sort keys.

    Guesses come from ``pool[g_lo:g_hi]`` when ``use_pool``, else from ``S`` (phase 0, one per symbol class:
    :func:`is_canonical`).  The other codes come here only as the equivalence sets of the first two plies,
    filtered by :func:`solver.searchparts.prefilter_list` (below them, :func:`solver.searchparts.prefilter`
    orders them without reading their responses, and the search reads them lazily).  A guess is dropped when it
    does not split S, when its partition bound reaches ``beta`` (its bound then lowers ``fail[0]``, the smallest
    bound proven for a dropped guess), or when it splits S exactly like a guess already kept (equivalent
    splits).  Returns the new ``nk``.

    The bound is kept up to date while the guess's responses are read: the parts seen so far cost
    at least their ``lbrow`` values, and every code not yet read adds at least ``step`` more (1 for
    totals: one more guess for it, whatever part it joins; 0 for k-movers), so a guess is dropped as
    soon as what was read proves it, and reading all of S and hashing the parts (the split
    signature) is left to the guesses that survive.

    Responses are read as ``table[S[k], g]``, down column ``g`` of the candidates' own rows (the
    table is symmetric), not along row ``g``: codes are scanned in increasing order, so the same few
    cache lines of those rows serve many consecutive codes, where each code's own row would be one
    more line fetched from a table far bigger than the caches for every candidate read.
    """
    scanned = np.int64(0)
    reads = np.int64(0)
    count = g_hi - g_lo if use_pool else n
    unread_win = 1 if phase == 0 else 0  # a candidate's own code costs nothing beyond this guess
    for gi in range(count):
        if use_pool:
            g = pool[g_lo + gi]
            if (inset[g] == 1) != (phase == 0):
                continue
        else:
            g = S[gi]
            if not is_canonical(codes, g, absent, uncalled):
                continue
        nt = 0
        lb = base
        cut = False
        scanned += 1
        for k in range(n):
            r = table[S[k], g]
            c = cnt[r]
            touched[nt] = r  # kept when it is a new part: no branch to mispredict
            nt += c == 0
            cnt[r] = c + 1
            d = lbrow[c + 1] - lbrow[c]
            lb += d if r != win else 0
            rest = n - 1 - k - unread_win
            bound = lb + (rest if rest > 0 else 0) * step
            if bound >= beta:
                if bound < fail[0]:
                    fail[0] = bound if bound < INF else INF
                cut = True
                reads += k + 1
                break
        if not cut:
            reads += n
        if cut:
            for t in range(nt):
                cnt[touched[t]] = 0
            continue
        if nt == 1 and touched[0] != win:
            cnt[touched[0]] = 0
            continue  # the guess does not split S
        for k in range(n):
            x = S[k]
            zs[table[x, g]] += z1[x]
        sig = np.uint64(phase + 1) * np.uint64(0x9E3779B97F4A7C15)
        for t in range(nt):
            r = touched[t]
            sig += part_hash(cnt[r], zs[r], r == win)
            cnt[r] = 0
            zs[r] = 0
        if seen_before(sig, hkey, hstamp, node_id):
            continue
        keys[nk] = lb * n_codes + g
        nk += 1
    stats[S_SCANNED_CANDIDATES if phase == 0 else S_SCANNED_OTHERS] += scanned
    stats[S_READS_CANDIDATES if phase == 0 else S_READS_OTHERS] += reads
    return nk


@njit(cache=True)
def _stored(tt_k1, tt_k2, tt_info, k1, k2, m, flag, value, best, cost, turn, S, prm, log_meta, log_sets,  # type: ignore[no-untyped-def]
            log_off, log_n, stats):
    """A node's value kept in the table (and logged for the persistent one when it cost ``P_EXPORT_THRESHOLD``
    nodes or more), then returned: what every searched node ends with."""
    tt_store(tt_k1, tt_k2, tt_info, k1, k2, m, flag, value, best, cost, turn)
    if cost >= prm[P_EXPORT_THRESHOLD]:
        _log_entry(log_meta, log_sets, log_off, log_n, S, m, flag, value, best, cost, turn, stats)
    stats[S_TABLE_STORES] += 1
    return value


SCRATCH_ROWS = 8
"""The rows of a ply's scratch in ``ws_resp`` (:func:`node_scratch`): a node's counters of the passes (0), the
responses they touched (1), the starts (2), fill (3), sizes (4) and responses (5) of a guess's parts, its smallest
failed bound (6, its first entry) and the even bounds of its prefilters (7)."""


def node_scratch(plies: int, lb_width: int, n_resp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The per-ply scratch :func:`search` takes (``ws_lbc``, ``ws_resp``, ``ws_zs``): a node's bounds by part size
    (``lb_width`` of them, the bound tables' width), its rows of :data:`SCRATCH_ROWS`, and its split signatures'
    sums.  Each is a row of a C-contiguous array, so that the kernel reads it as fast as an array of its own."""
    return (np.zeros((plies, lb_width), dtype=np.int64),
            np.zeros((plies, SCRATCH_ROWS, max(n_resp + 1, 65)), dtype=np.int64),
            np.zeros((plies, n_resp), dtype=np.uint64))


@njit(cache=True, nogil=True)
def search(S, ply, turn, m, beta, prm, table, codes, masks, counts, lb_tab, nc_tab, z1, z2,
           tt_k1, tt_k2, tt_info, ws_keys, ws_parts, ws_buf, ws_inset, ws_pool, ws_best,
           pool0, pools1, pools1_len, pool1_row, log_meta, log_sets, log_off, log_n, stats, log2n, lnn,
           ws_hkey, ws_hstamp, called, ws_acc, ws_pc, lbb, lbb1, ws_lbc, ws_resp,  # type: ignore[no-untyped-def]
           ws_zs):
    """Value of candidate set ``S`` (ascending int32) at guess number ``turn`` with ``m`` guesses left.

    ``called`` is the mask of the symbols of every guess made before this
    node (the history's and the search path's); below the pools, guesses are tried one per class of
    symbols that are absent from ``S`` or never called (:func:`is_canonical`).

    ``ws_best[ply]`` receives the best guess (-1 when only a bound was proven).  ``pool0`` (ply 0)
    and ``pools1[pool1_row[g], :pools1_len[...]]`` (ply 1, below root guess ``g``) restrict the
    guesses tried to equivalence sets; empty arrays mean "no restriction".  ``lb_tab[m, s]`` bounds
    any set of ``s`` codes, ``nc_tab[m, s]`` any guess outside the set.  ``ws_pc[ply]`` receives
    S's :func:`solver.searchparts.part_counts` (``ws_acc`` is their scratch), computed at most once per node, when a
    perfect split or the other codes are looked for.

    ``lbb[b, s]``, ``lbb1[b, s]`` (:func:`solver.bounds.branching_tables`; no rows: not used) are the totals'
    bounds of a set below which no guess makes more than ``b`` non-winning parts: a total values each node and
    its parts by the node's own branching (:func:`solver.searchparts.branching`), far above the game's response
    count deep in the permutation games (within a depth limit, by the larger of that and the limit's bound).

    ``ws_lbc[ply]``, ``ws_resp[ply]`` and ``ws_zs[ply]`` are the node's own scratch (:func:`node_scratch` lays
    them out): its bounds by part size, the parts of a guess and the passes' counters.  Why per ply and made
    once: a node's arrays were allocated at every node, hundreds of thousands a second, each a heap allocation
    and its release; a node's scratch is dead once it returns, so the one row of its ply serves every node there.
    (A hybrid's one-step turns still make the few small arrays :func:`solver.kernels.best_guess` takes: each
    such turn scores every code, far more than an allocation costs.)
    """
    crit = prm[P_CRITERION]
    mmax = prm[P_MMAX]
    n_codes = prm[P_CODES]
    n_resp = prm[P_RESPONSES]
    win = prm[P_WIN]
    n = S.shape[0]
    stats[S_NODES] += 1
    ws_best[ply] = -1
    if stats[S_STOP] != 0 or (prm[P_NODE_LIMIT] > 0 and stats[S_NODES] > prm[P_NODE_LIMIT]):
        stats[S_ABORTED] = 1
        return INF
    # -- fast estimates ------------------------------------------------------------------------
    if m <= 0:
        return INF
    if n <= 2:
        v = tiny_value(n, m, crit)
        if v < INF:
            ws_best[ply] = S[0]
        return v
    if m == 1:
        return INF
    if ply >= ws_keys.shape[0]:  # deeper than the workspace: stop, flagged (never write past it)
        stats[S_ABORTED] = 1
        stats[S_TOO_DEEP] = 1
        return INF
    mm = m if m < mmax else mmax
    child_m = m - 1 if m < mmax else mmax
    lb_node = lb_tab[mm, n]
    if lb_node >= INF:
        return INF
    if lb_node >= beta:
        return lb_node
    hybrid = turn > prm[P_MDE]
    fso = prm[P_FROM_SET_ONLY] == 1 or (hybrid and prm[P_HYBRID_MODE] == 2)
    inset = ws_inset[ply]
    mark_set(S, n, inset, 1)
    absent, uncalled = digit_classes(S, masks, called, prm[P_SYMBOLS])
    nc_floor = np.int64(0)
    pcs = ws_pc[ply]
    have_masks = False
    # A code splitting S into singletons is optimal (2n-1 or, for a non-candidate, 2n guesses, which is also the
    # bound when no candidate does it): the fast estimates and the penultimate-turn algorithm of the article in one.
    # A candidate is looked for first (n² reads at most), the table next, and a non-candidate last: it needs every
    # code's part counts, which a set the table answers is spared.
    small = n <= prm[P_VALID_RESPONSES]
    if small:
        g = perfect_candidate(table, S)
        if g >= 0:
            mark_set(S, n, inset, 0)
            stats[S_FAST_ESTIMATES] += 1
            ws_best[ply] = g
            if crit == 0:
                return np.int64(2 * n - 1)
            if m > 2:
                return np.int64(0)
            return np.int64(n - 1)
    # -- transposition table ---------------------------------------------------------------------
    ctx = turn if prm[P_TURN_KEYED] == 1 else 0
    k1, k2 = set_keys(S, z1, z2, ctx)
    slot = tt_find(tt_k1, tt_k2, k1, k2)
    lo = np.int64(0)
    if slot >= 0:
        lo, hi, tbest = tt_bounds(tt_info, slot, m, crit, mmax)
        # An exact value known without its guess (a job stores its parts' values so) answers any
        # ply but the root of a call, whose caller wants the guess: there it only bounds the search
        # from below, and the first guess reaching it ends the search.
        if (lo == hi and (tbest >= 0 or ply > 0)) or lo >= beta:
            stats[S_TABLE_HITS] += 1
            mark_set(S, n, inset, 0)
            ws_best[ply] = tbest if lo == hi else -1
            return lo
    if small:
        if not fso and n < prm[P_VALID_RESPONSES]:
            # a non-candidate has at most n_valid - 1 parts, so it cannot split a set that large
            count_parts(table, S, ws_acc, pcs, n_codes, n_resp)
            have_masks = True
            stats[S_MASK_ROWS] += n
            g = perfect_other(pcs, n, inset, codes, absent, uncalled)
            if g >= 0:
                mark_set(S, n, inset, 0)
                stats[S_FAST_ESTIMATES] += 1
                ws_best[ply] = g
                if crit == 0:
                    return np.int64(2 * n)
                if m > 2:
                    return np.int64(0)
                return np.int64(n)
        # No code splits S into singletons, so a non-candidate leaves a part of two or more behind
        # one of at most n - 1 responses: it costs at least n + sum(2|part| - 1) >= 2n + 1.
        nc_floor = np.int64(2 * n + 1)
    if m == 2:
        # Penultimate guess and no code splits S into singletons: nothing finishes in time.
        mark_set(S, n, inset, 0)
        return INF
    if crit == 0 and lb_node < 2 * n:
        lb_node = np.int64(2 * n)  # no candidate splits S perfectly: at most one secret pays once
    if lo > lb_node:
        lb_node = lo
    # -- the set's own branching: its parts, and the sets below them, are valued by its counting bound ----------
    # ``lbc``: the bound of each size a part of S can have (up to n), one row for every use below
    width = n + 2 if n + 2 <= lb_tab.shape[1] else lb_tab.shape[1]
    lbc = ws_lbc[ply]  # its first ``width`` entries
    for c in range(width):
        lbc[c] = lb_tab[child_m, c]
    if crit == 0 and lbb.shape[0] > 0:
        if not have_masks:
            count_parts(table, S, ws_acc, pcs, n_codes, n_resp)
            have_masks = True
            stats[S_MASK_ROWS] += n
        b = branching(pcs, inset, n_codes, lbb.shape[0] - 1)
        # within a depth limit both bounds hold (a limit only adds guesses): the larger, and INF for the sizes
        # that so few parts cannot separate in the guesses left (a value past the limit's range is no value)
        limited = m < mmax
        reach = most_found(b, child_m, 1) if limited else np.int64(1) << np.int64(62)
        for c in range(width):
            e = lbb[b, c] if c <= reach else INF
            if e > lbc[c]:
                lbc[c] = e
        if limited and n > most_found(b, mm, 1):
            mark_set(S, n, inset, 0)
            return INF
        if lbb[b, n] > lb_node:
            lb_node = lbb[b, n]
        if limited and n > most_found(b, mm, 0):
            nc_floor = INF
        elif lbb1[b, n] > nc_floor:
            nc_floor = lbb1[b, n]
        if lb_node >= beta:
            mark_set(S, n, inset, 0)
            if slot < 0:  # kept (at cost 0: the first entry a full bucket gives up): S met again needs no counts
                tt_store(tt_k1, tt_k2, tt_info, k1, k2, m, FLAG_LOWER, lb_node, -1, 0, turn)
            return lb_node
    nodes_before = stats[S_NODES]
    keys = ws_keys[ply]
    cnt = ws_resp[ply, 0]
    touched = ws_resp[ply, 1]
    starts = ws_resp[ply, 2]
    fill = ws_resp[ply, 3]
    psize = ws_resp[ply, 4]
    pres = ws_resp[ply, 5]
    fail = ws_resp[ply, 6]
    bnd = ws_resp[ply, 7]
    zs = ws_zs[ply]
    cnt[:] = 0  # the passes leave them zero; a fresh node starts from zero whatever came before
    zs[:] = 0
    fail[0] = INF
    base = np.int64(n) if crit == 0 else np.int64(0)
    heuristic = hybrid and prm[P_HYBRID_MODE] == 1
    parts = ws_parts[ply]
    buf = ws_buf[ply]
    best_val = INF
    best_g = -1
    cur_beta = beta
    done = False
    use_pool = ply == 0 and pool0.shape[0] > 0
    use_pool1 = ply == 1 and pools1.shape[0] > 0
    # Phase 0 tries the candidates, phase 1 the other codes (the article's "order of numbers":
    # the best guess is a candidate in most positions, and a good candidate value lets the bound
    # for non-candidates skip their whole scan).
    for phase in range(2):
        if done:
            break
        nk = 0
        lazy = False
        lazy_id = np.int64(-1)
        if heuristic:
            if phase == 1:
                break
            # one code per symbol class, as kernels.best_guess_by_class does: the same guess
            pool = ws_pool[ply]
            npool = 0
            for i in range(n):
                if is_canonical(codes, S[i], absent, uncalled):
                    pool[npool] = S[i]
                    npool += 1
            n_in = npool
            if not fso:
                for g in range(n_codes):
                    if inset[g] == 0 and is_canonical(codes, g, absent, uncalled):
                        pool[npool] = g
                        npool += 1
            no_f = np.zeros((1, 1), dtype=np.uint8)
            hg, _ = best_guess(table, codes, masks, counts, S, pool[:npool], n_in, n_resp, prm[P_HEURISTIC],
                               log2n, lnn, np.zeros((0, 4), dtype=np.uint16), no_f, no_f, no_f, no_f,
                               np.zeros(3, dtype=np.int64))
            keys[0] = hg
            nk = 1
        else:
            nc_lb = nc_tab[mm, n]
            if crit == 0 and nc_lb < nc_floor:
                nc_lb = nc_floor
            if phase == 1 and (fso or nc_lb >= cur_beta):
                if not fso and nc_lb < fail[0]:
                    fail[0] = nc_lb
                break
            # the guesses: an equivalence-set pool at the first two plies, else S or every code
            src = S
            hi = 0
            if use_pool:
                src = pool0
                hi = pool0.shape[0]
            elif use_pool1:
                src = pools1[prm[P_POOL_ROW]]
                hi = pools1_len[prm[P_POOL_ROW]]
            pooled = use_pool or use_pool1
            lazy = phase == 1 and not pooled
            lazy_id = stats[S_NODES] * 2 + 1  # this node's stamp in its ply's table of splits
            if not lazy and (pooled or (phase == 0 and have_masks)):
                # the pools of the first two plies (large sets), or candidates whose masks are known:
                # only the codes whose most even partition stays below beta are read in full
                if not have_masks:
                    count_parts(table, S, ws_acc, pcs, n_codes, n_resp)
                    have_masks = True
                    stats[S_MASK_ROWS] += n
                hi = prefilter_list(pcs, n, phase, src, hi if pooled else n, inset, codes, absent, uncalled,
                                     not pooled, lbc, base, cur_beta, ws_pool[ply], fail, bnd)
                src = ws_pool[ply]
                pooled = True
            if lazy:
                # Every code's parts counted at once; the codes whose bound may stay below beta are
                # ordered by it and read only when reached (equivalent splits skipped then).
                if not have_masks:
                    count_parts(table, S, ws_acc, pcs, n_codes, n_resp)
                    have_masks = True
                    stats[S_MASK_ROWS] += n
                nk = prefilter(pcs, n, inset, codes, absent, uncalled, lbc, base, cur_beta,
                                n_codes, keys, nk, fail, bnd)
                stats[S_SCANNED_OTHERS] += nk
            else:
                nk = _collect(S, n, phase, 0, hi, src, pooled, inset, table, codes, absent,
                              uncalled, z1, lbc, base, 1 - crit, win, cur_beta, n_codes, keys, nk,
                              cnt, zs, touched, ws_hkey[ply], ws_hstamp[ply], stats[S_NODES] * 2 + phase, fail,
                              stats)
            keys[:nk].sort()
        for idx in range(nk):
            if heuristic:
                g = keys[0]
            else:
                g = keys[idx] % n_codes
                lbg = keys[idx] // n_codes
                if lbg >= cur_beta:
                    if lbg < fail[0]:
                        fail[0] = lbg
                    break
            if lazy:
                # an other code: most are proven too costly by a part of their responses, before any split
                proven = bound_reaches(table, S, n, g, lbc, base, 1 - crit, cur_beta, cnt, touched)
                if proven >= 0:
                    stats[S_READS_OTHERS] += n  # counted per guess, as _collect does
                    if proven < fail[0]:
                        fail[0] = proven
                    continue
            split_parts(table, codes, masks, counts, g, S, n, n_resp, buf, starts, fill, parts)
            if lazy:
                stats[S_READS_OTHERS] += n
                if seen_split(starts, parts, n_resp, win, z1, ws_hkey[ply], ws_hstamp[ply], lazy_id):
                    continue
            # parts largest first: they decide most, and fail soonest
            np_, rest = parts_largest_first(starts, n_resp, win, lbc, psize, pres)
            acc = base
            ok = True
            if acc + rest >= cur_beta:
                ok = False
                if acc + rest < fail[0]:
                    fail[0] = acc + rest if acc + rest < INF else INF
            for j in range(np_):
                if not ok:
                    break
                r = pres[j]
                lbp = lbc[psize[j]]
                rest -= lbp
                budget = cur_beta - acc - rest
                if ply == 0 and pools1.shape[0] > 0:
                    prm[P_POOL_ROW] = pool1_row[g]
                if psize[j] <= 2:
                    # a part of one or two codes: its value without a call (counted as the node it is)
                    stats[S_NODES] += 1
                    v = tiny_value(psize[j], child_m, crit)
                else:
                    v = search(parts[starts[r]:starts[r + 1]], ply + 1, turn + 1, child_m, budget, prm,
                               table, codes, masks, counts, lb_tab, nc_tab, z1, z2, tt_k1, tt_k2, tt_info,
                               ws_keys, ws_parts, ws_buf, ws_inset, ws_pool, ws_best, pool0, pools1,
                               pools1_len, pool1_row, log_meta, log_sets, log_off, log_n, stats, log2n,
                               lnn, ws_hkey, ws_hstamp, called | masks[g], ws_acc, ws_pc, lbb, lbb1, ws_lbc,
                               ws_resp, ws_zs)
                if stats[S_ABORTED] != 0:
                    mark_set(S, n, inset, 0)
                    return INF
                acc += v
                if acc >= INF:
                    acc = INF
                if acc + rest >= cur_beta:
                    ok = False
                    if acc + rest < fail[0]:
                        fail[0] = acc + rest if acc + rest < INF else INF
            if ok:
                best_val = acc
                best_g = g
                cur_beta = acc
                if acc <= lb_node:
                    done = True
                    break
    mark_set(S, n, inset, 0)
    cost = stats[S_NODES] - nodes_before
    if best_g >= 0:
        ws_best[ply] = best_g
        return _stored(tt_k1, tt_k2, tt_info, k1, k2, m, FLAG_EXACT, best_val, best_g, cost, turn, S, prm,
                       log_meta, log_sets, log_off, log_n, stats)
    fail_lb = fail[0]
    if fail_lb < beta:
        fail_lb = beta  # every guess was proven at least beta even if its bound was found lower
    flag = FLAG_EXACT if fail_lb >= INF else FLAG_LOWER
    return _stored(tt_k1, tt_k2, tt_info, k1, k2, m, flag, fail_lb, -1, cost, turn, S, prm, log_meta, log_sets,
                   log_off, log_n, stats)
