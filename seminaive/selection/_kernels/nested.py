"""Leave-one-out losses of every nested model (L, r, s) in one pass, in log space and,
without Gaussian children, in linear space (Chen et al. 2014, §3.2-3.3); the leave-one-out
estimates they share with the other searches are in :mod:`._common`."""

import math
from typing import NamedTuple

import numpy as np

from ...kernels._jit import njit, prange
from ...kernels.losses import (
    LOSS_LOG,
    LOSS_RMSE,
    loss_from_terms,
    scaled_row_loss,
)
from ...kernels.smoothing import (
    pseudo_counts,
)
from ._common import (
    _gaussian_child_loo,
    _held_out_buffers,
    _hold_out,
    _is_member,
    _layout,
    _loo_log_cond,
    _loo_log_joint,
    _lse_add,
    _qualifying_parent,
    _union_cell,
)

# --------------------------------------------------------------------------------------------
# Nested model space: leave-one-out losses of every (L, r, s) in one pass
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def nested_loo_loss(X, y, w, ctx, space, est, loss_kind, n_blocks, out, out_sq, V, gl):
    """Accumulate into ``out[L, r, s]`` the weighted LOO loss of every nested model (and into
    ``out_sq`` the weighted sum of the squared per-row losses, for standard errors).

    ``space`` is a :class:`NestedSpace`: ``rank[j]`` is the attribute of rank j; level L's
    parent combinations are ``combo_members[level_first[L]:level_first[L + 1], :L]`` (sorted
    attribute indices), ordered by their highest rank ``combo_maxrank`` (-1 for the empty
    combination of level 0), with weights ``combo_weight`` (<= 0: never used).  ``est`` is
    a :class:`LooEstimate`.  ``out`` has shape
    (n_levels, a + 1, a + 1); entries for r < L (and r > 0 at level 0) are left untouched.

    A model's per-class score is kept as (top, scale) with score = top + log(scale): the
    running log-sum-exp state divided by the weight sum, so snapshots and losses need no
    logarithm.  Holding a row out changes only the counts of its own class: the children's
    terms of the other classes are read from the full log-conditional tables ``lc``.
    ``ctx`` is a :class:`CountContext`.

    Gaussian children (``gl``, a :class:`~seminaive.tables.gaussian.GaussianLoo`; ``V`` the
    rows' centred numeric values, no column without them): a child's term is its log
    density at the estimates of the moments with the row removed, along the whole shrinkage
    chain (:func:`~seminaive.tables.gaussian.loo_estimates`), and a parent term is divided
    by its numeric parents' bin widths computed without the row
    (:func:`~seminaive.tables.gaussian.loo_log_widths`), as refitting without the row gives.
    """
    table, n_observed, has_missing, lc, lc_offsets = ctx
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    lay = _layout(table)
    rank, combo_members, level_first, combo_maxrank, combo_weight, n_levels = space
    min_count = est.min_count
    n_rows, a = X.shape
    gaussian, missing_code = gl[0], gl[1]
    partial = np.zeros((n_blocks, n_levels, a + 1, a + 1))
    partial_sq = np.zeros((n_blocks, n_levels, a + 1, a + 1))
    for b in prange(n_blocks):
        r0 = b * n_rows // n_blocks
        r1 = (b + 1) * n_rows // n_blocks
        held = _held_out_buffers(lay, n_rows, V, gl)
        xr, lw_row, _, est_mean, est_var = held
        cur_top = np.empty((a + 1, a + 1, k))
        cur_scale = np.empty((a + 1, a + 1, k))
        prev_top = np.empty((a + 1, a + 1, k))
        prev_scale = np.empty((a + 1, a + 1, k))
        top = np.empty((a + 1, k))
        acc = np.empty((a + 1, k))
        pre = np.empty(k)
        for rr in range(r0, r1):
            wt, h, yt = _hold_out(rr, X, y, w, V, lay, gl, held)
            if wt <= 0.0:
                continue
            for L in range(n_levels):
                top[:, :] = -np.inf
                acc[:, :] = 0.0
                wsum = 0.0
                next_r = np.int64(0)  # typed, as in _level_tile
                for q in range(level_first[L], level_first[L + 1]):
                    mr = combo_maxrank[q]
                    while next_r <= mr:
                        _snapshot(cur_top, cur_scale, prev_top, prev_scale, top, acc, wsum,
                                  next_r, a, k, L)
                        next_r += 1
                    wq = combo_weight[q]
                    if wq <= 0.0:
                        continue
                    members = combo_members[q]
                    g, base_off = _qualifying_parent(members, L, xr, sizes, ext_first, offsets,
                                                     counts, k, h, min_count)
                    if g < 0:
                        continue
                    prod_values = 1.0
                    for t in range(L):
                        prod_values *= max(sizes[members[t]] - 1, 1)
                    log_w = math.log(wq)
                    n_obs_loo = n_observed[g] - h
                    for yy in range(k):
                        pre[yy] = log_w + _loo_log_joint(counts, base_off, n_obs_loo, k,
                                                         prod_values, yy, yt, h, est)
                    _lse_add(top, acc, 0, pre, k)
                    for j in range(a):
                        c = rank[j]
                        xc = xr[c]
                        if _is_member(members, L, c):
                            # a numeric parent that is a child of the model: its bin's
                            # probability becomes a density, as in the other sub-models
                            for yy in range(k):
                                pre[yy] -= lw_row[c]
                        elif xc != 0:
                            g2, cell0, stride, pos = _union_cell(members, L, c, xr, sizes,
                                                                 ext_first)
                            jn = gaussian[c]
                            mc = missing_code[c]
                            if jn >= 0 and xc != mc:
                                if math.isnan(V[rr, jn]):  # no value: no term
                                    _lse_add(top, acc, j + 1, pre, k)
                                    continue
                                _gaussian_child_loo(
                                    pre, g, jn, V[rr, jn], (mc, sizes[c] - 1, has_missing[c]),
                                    counts, (base_off, offsets[g2], cell0, stride), lc,
                                    lc_offsets[g2] + ((cell0 + mc * stride) * (L + 1) + pos)
                                    * k, (yt, h), est, (est_mean, est_var))
                                _lse_add(top, acc, j + 1, pre, k)
                                continue
                            lc_idx = lc_offsets[g2] + ((cell0 + xc * stride) * (L + 1)
                                                       + pos) * k
                            for yy in range(k):
                                if yy == yt:
                                    pre[yy] += _loo_log_cond(
                                        counts, (base_off, offsets[g2], cell0, stride), xc,
                                        sizes[c] - 1, has_missing[c], yy, yt, h, k, est)
                                else:
                                    pre[yy] += lc[lc_idx + yy]
                        _lse_add(top, acc, j + 1, pre, k)
                    wsum += wq
                while next_r <= a:
                    _snapshot(cur_top, cur_scale, prev_top, prev_scale, top, acc, wsum,
                              next_r, a, k, L)
                    next_r += 1
                r_first = L
                r_last = a if L > 0 else 0
                for r in range(r_first, r_last + 1):
                    for s in range(a + 1):
                        loss = scaled_row_loss(cur_top[r, s], cur_scale[r, s], k, yt,
                                                loss_kind)
                        partial[b, L, r, s] += wt * loss
                        partial_sq[b, L, r, s] += wt * loss * loss
                cur_top, prev_top = prev_top, cur_top
                cur_scale, prev_scale = prev_scale, cur_scale
    for b in range(n_blocks):
        out += partial[b]
        out_sq += partial_sq[b]


@njit(cache=True)
def _snapshot(cur_top, cur_scale, prev_top, prev_scale, top, acc, wsum, r, a, k, L):
    """Scores of the models (L, r, s) for every s: mean of the combinations so far, or the
    cascade to level L - 1 when none qualified."""
    if wsum > 0.0:
        inv = 1.0 / wsum
        for s in range(a + 1):
            for yy in range(k):
                cur_top[r, s, yy] = top[s, yy]
                cur_scale[r, s, yy] = acc[s, yy] * inv
    elif L > 0:
        for s in range(a + 1):
            for yy in range(k):
                cur_top[r, s, yy] = prev_top[r, s, yy]
                cur_scale[r, s, yy] = prev_scale[r, s, yy]
    else:
        for s in range(a + 1):
            for yy in range(k):
                cur_top[r, s, yy] = -np.inf
                cur_scale[r, s, yy] = 0.0


# --------------------------------------------------------------------------------------------
# Nested model space in linear space (nominal attributes): no exp or log per term
# --------------------------------------------------------------------------------------------

#: a product or a sum is kept as (mantissa, block) with value = mantissa * _BLOCK ** block and
#: the mantissa renormalised into [_TINY, _BLOCK) when it leaves it, so that products of many
#: probabilities never underflow
_BLOCK = 2.0 ** 256
_TINY = 2.0 ** -256
_LOG_BLOCK = 256.0 * math.log(2.0)
_NO_BLOCK = -(1 << 40)  # below any block
#: the bits of _BLOCK and of _TINY less 1 as unsigned integers: the bits of non-negative
#: doubles are in the order of their values (:func:`_left_block_zero`)
_BLOCK_BITS = np.uint64(np.float64(_BLOCK).view(np.uint64))
_TINY_BITS_LESS_1 = np.uint64(np.float64(_TINY).view(np.uint64) - np.uint64(1))
#: a row's union cells when the combination does not qualify for it (below any cell)
_NO_CELL = -(1 << 60)
#: rows whose running sums a nested pass keeps at once (:func:`_level_tile`): at most
#: TILE_ROWS, and at most TILE_BYTES of per-row sums (:func:`tile_size`)
TILE_ROWS = 512
TILE_BYTES = 1 << 21
#: with counts (as the pass reads them: the float32 copy when there is one) of more than
#: LARGE_TABLE_BYTES, at most LARGE_TILE_ROWS rows and LARGE_TILE_BYTES per tile: every tile
#: streams the whole table (every combination's union blocks) through the cache once, which
#: dominates once the table is many times the cache (at 1,600 x 60 with 8 values, 200-500
#: MB, each thread's rows then fit in one tile: 8-25% less time; see docs/performance.md).
#: A block of rows that fits one large tile is taken as one tile whatever the table's size
#: (:func:`tile_size`): smaller tiles, once faster at 2 values, no longer are
LARGE_TABLE_BYTES = 1 << 27
LARGE_TILE_ROWS = 1024
LARGE_TILE_BYTES = 1 << 23
#: a combination's union blocks (every child's, in the counts the pass reads) are streamed
#: into the cache before the rows' scattered reads only up to PREFETCH_BYTES: at 1,600 x 60
#: with 8 values (0.7-1.7 MB per combination, near or above a core's 1 MB L2 cache) the nested
#: pass took 12-15% less CPU time without it, at 4 values (0.3 MB) the same, at 2 values
#: (31 kB) 3% more (see docs/performance.md).  The blocks of the children taken by selects
#: (:func:`_select_tables` reads 8 of the 27 cells of each) are streamed too: their reads
#: otherwise missed the cache one child after another (at 2 values, 4 and 5 classes, with
#: every class's 16 numbers made at once, 6-9% less CPU time for the pass).  Above it,
#: each child's block is streamed just before its rows' reads (a sequential read the cache
#: prefetches, instead of the rows' scattered misses): ``AnDE(n="auto")`` at 1,600 x 60
#: fitted in 1.19x less CPU time at 8 values and 5 classes, 1.10x at 8 and 4, 1.04-1.05x at
#: 4 values and 4-5 classes (one child at a time was also 3-5% faster than all together at
#: 4 values and 3-5 classes, 0.17-0.29 MB; the same at 2 values, so the bound is 128 kB)
PREFETCH_BYTES = 1 << 17


def tile_size(n_attributes, n_classes, tile_rows=None, tile_bytes=None, table_bytes=0,
              block_rows=None):
    """Rows per tile of :func:`nested_loo_loss_nominal`: at most ``tile_rows``, and at most
    ``tile_bytes`` of the tile's per-row sums and working arrays (by default
    ``TILE_ROWS`` and ``TILE_BYTES``, or ``LARGE_TILE_ROWS`` and
    ``LARGE_TILE_BYTES`` when the counts, ``table_bytes``, exceed
    ``LARGE_TABLE_BYTES``).

    Without ``tile_rows`` and ``tile_bytes``, a block of ``block_rows`` rows (the most a
    block of the pass holds) that fits in one tile of ``LARGE_TILE_ROWS`` and
    ``LARGE_TILE_BYTES`` is taken as one tile whatever the table's size: the table is then
    read once per block instead of once per smaller tile, and each combination's fixed
    cost (its joints, union blocks and children's set-up) is paid once per block.  At
    1,600 x 60 with 2 threads (800 rows per block) the pass took 1.06-1.20x less CPU time
    at 2 and 4 values than with tiles of 267-512 rows, though the tile's sums then exceed a
    core's L2 cache (see docs/performance.md); the losses are the same (a tile changes
    only when a row's sums are reset, not the order of any sum)."""
    a, k = n_attributes, n_classes
    row_bytes = (a + 1) * (2 * k + 2) * 8 + 8 * a
    if (tile_rows is None and tile_bytes is None and block_rows is not None
            and 0 < block_rows <= LARGE_TILE_ROWS
            and block_rows * row_bytes <= LARGE_TILE_BYTES):
        return int(block_rows)
    large = table_bytes > LARGE_TABLE_BYTES
    if tile_rows is None:
        tile_rows = LARGE_TILE_ROWS if large else TILE_ROWS
    if tile_bytes is None:
        tile_bytes = LARGE_TILE_BYTES if large else TILE_BYTES
    return max(1, min(int(tile_rows), int(tile_bytes) // row_bytes))


@njit(cache=True, inline="always")
def _block_factor(d):
    """_BLOCK ** -d for d >= 0 (0 beyond 2: below the precision of the larger term)."""
    if d == 0:
        return 1.0
    if d == 1:
        return _TINY
    if d == 2:
        return _TINY * _TINY
    return 0.0


@njit(cache=True, inline="always")
def _renormalise(p, e, yy):
    """Bring the mantissa ``p[yy]`` (block ``e[yy]``) back into [_TINY, _BLOCK)."""
    v = p[yy]
    if v <= 0.0:
        return
    while v < _TINY:
        v *= _BLOCK
        e[yy] -= 1
    while v >= _BLOCK:
        v *= _TINY
        e[yy] += 1
    p[yy] = v


@njit(cache=True, inline="always")
def _tile_row_loss(acc, ea, s, i, k, yt, kind, blocked):
    """:func:`~seminaive.kernels.losses.loss_from_terms` of row i's per-class scores
    log(acc[y, s, i] * _BLOCK ** ea[y, s, i]) (no logarithm for RMSE and zero-one): the
    terms are the sums brought to the highest block of a positive sum (the sums
    themselves when the row has no block other than 0, ``blocked`` False)."""
    t = 0
    if blocked:
        t = _NO_BLOCK
        for yy in range(k):
            if acc[yy, s, i] > 0.0 and ea[yy, s, i] > t:
                t = ea[yy, s, i]
    total = 0.0
    best = 0
    best_e = -1.0
    for yy in range(k):
        e = acc[yy, s, i]
        if blocked:
            e = e * _block_factor(t - ea[yy, s, i]) if e > 0.0 else 0.0
        total += e
        if e > best_e:
            best_e = e
            best = yy
    true_term = acc[yt, s, i]
    shift = 0.0
    if blocked:
        true_term = true_term * _block_factor(t - ea[yt, s, i]) if true_term > 0.0 else 0.0
        shift = (t - ea[yt, s, i]) * _LOG_BLOCK
    return loss_from_terms(total, best, true_term, acc[yt, s, i], shift, yt, kind)


@njit(cache=True, inline="always")
def _plain_rmse(acc, s, i, k, yt):
    """:func:`_tile_row_loss` of RMSE for a row with no block other than 0 (the usual
    case: the sums are the terms, so no largest block to find)."""
    total = 0.0
    for yy in range(k):
        total += acc[yy, s, i]
    return loss_from_terms(total, yt, acc[yt, s, i], acc[yt, s, i], 0.0, yt, LOSS_RMSE)


@njit(cache=True, inline="always")
def _union_index(members, n_members, c, ext_first):
    """Global index of the combination ``members[:n] + {c}`` (c not a member)."""
    g = 0
    prev = -1
    t = 0
    placed = False
    for _ in range(n_members + 1):
        if not placed and (t == n_members or c < members[t]):
            e = c
            placed = True
        else:
            e = members[t]
            t += 1
        g = ext_first[g] + (e - prev - 1)
        prev = e
    return g


@njit(cache=True, inline="always")
def _block_add(acc, ea, yy, s, i, v, e):
    """acc[yy, s, i] * _BLOCK ** ea[yy, s, i] += v * _BLOCK ** e (v > 0 or nothing): the
    sums of row i of a tile."""
    if v <= 0.0:
        return
    cur = ea[yy, s, i]
    if acc[yy, s, i] == 0.0:
        acc[yy, s, i] = v
        ea[yy, s, i] = e
    elif e == cur:
        acc[yy, s, i] += v
    elif e > cur:
        acc[yy, s, i] = acc[yy, s, i] * _block_factor(e - cur) + v
        ea[yy, s, i] = e
    else:
        acc[yy, s, i] += v * _block_factor(cur - e)


@njit(cache=True)
def _first_qualifying(L, rr, X, w, table, space, min_count):
    """The first r at which level L has a qualifying combination for row rr (the highest
    rank of the first qualifying combination, plus 1; ``a + 1`` when none qualifies)."""
    counts, offsets, _, _, sizes, k, _, ext_first, _ = table
    _, combo_members, level_first, combo_maxrank, combo_weight, _ = space
    h = min(w[rr], 1.0)
    for q in range(level_first[L], level_first[L + 1]):
        if combo_weight[q] <= 0.0:
            continue
        g, _ = _qualifying_parent(combo_members[q], L, X[rr], sizes, ext_first, offsets,
                                  counts, k, h, min_count)
        if g >= 0:
            return combo_maxrank[q] + 1
    return X.shape[1] + 1


@njit(cache=True)
def _tile_snapshot(r, L, n_levels, n_tile, tl, w, y, part, part_sq, a, k, kind):
    """Losses of the models (L, r, s), every s, for the tile's rows with a qualifying
    combination so far (``tl``: a :class:`_Tile`), added to ``part[L, r]`` and to
    ``part[L2, r]`` of every higher level L2 that cascades to them at r (no qualifying
    combination of its own yet)."""
    if r < L:
        return
    rows, acc, ea, blocks, wsum, added = tl.rows, tl.acc, tl.ea, tl.blocks, tl.wsum, tl.added
    last_loss, r_first = tl.last_loss, tl.r_first
    for i in range(n_tile):
        if wsum[i] <= 0.0:  # the row cascades: a lower level adds its losses
            continue
        rr = rows[i]
        wt = w[rr]
        yt = y[rr]
        if added[i]:  # else the same sums, the same losses as at r - 1
            blocked = blocks[i]
            if not blocked and kind == LOSS_RMSE:
                for s in range(a + 1):
                    last_loss[i, s] = _plain_rmse(acc, s, i, k, yt)
            else:
                for s in range(a + 1):
                    last_loss[i, s] = _tile_row_loss(acc, ea, s, i, k, yt, kind, blocked)
            added[i] = False
        if L > 0 or r == 0:
            for s in range(a + 1):
                loss = last_loss[i, s]
                part[L, r, s] += wt * loss
                part_sq[L, r, s] += wt * loss * loss
        for L2 in range(L + 1, n_levels):
            if r >= r_first[i, L2]:
                break
            if r >= L2:
                for s in range(a + 1):
                    loss = last_loss[i, s]
                    part[L2, r, s] += wt * loss
                    part_sq[L2, r, s] += wt * loss * loss


class _Tile(NamedTuple):
    """A tile's rows and the working arrays of :func:`_level_tile` (one per thread)."""

    rows: np.ndarray  # the tile's rows (weight > 0)
    xrank: np.ndarray  # xrank[j, i]: the value of row i's attribute of rank j
    r_first: np.ndarray  # r_first[i, L]: see _first_qualifying
    acc: np.ndarray  # acc[y, s, i]: row i's sum over combinations of the product up to s
    ea: np.ndarray  # its blocks
    blocks: np.ndarray  # whether row i's sums may have a block other than 0
    wsum: np.ndarray  # row i's weight of the qualifying combinations so far
    added: np.ndarray  # a combination qualified for row i since the last snapshot
    last_loss: np.ndarray  # last_loss[i, s]: row i's losses at the last snapshot
    hrow: np.ndarray  # per row: the held-out amount min(w, 1)
    yrow: np.ndarray  # per row: its class
    jinv: np.ndarray  # per row: 1 / the denominator of its joint estimate (0: not qualifying)
    base: np.ndarray  # per row: start of its parent cell's class counts
    apart: np.ndarray  # apart[pos, i]: the parent cell's part from its members before pos
    bpart: np.ndarray  # bpart[pos, i]: from the members from pos on
    cidx: np.ndarray  # cidx[j, i]: start of the class counts of the row's union cell
    pv: np.ndarray  # pv[y, i]: row i's running product of class y
    gat: np.ndarray  # gat[y, i]: its union cell's count of class y (one child)
    pe: np.ndarray  # pe[y, i]: the block of pv[y, i]
    hcls: np.ndarray  # hcls[y, i]: the row's held-out amount in class y
    den: np.ndarray  # den[y, i]: the row's LOO parent count in class y
    inv_den: np.ndarray  # 1 / (den + m)
    cpos: np.ndarray  # cpos[j]: the position of the child of rank j among the members
    cc: np.ndarray  # cc[j]: stride of the child
    idx0: np.ndarray  # idx0[j]: start of the union block
    iend: np.ndarray  # iend[j]: its end
    ctype: np.ndarray  # -1: rank j is a member, 1: a child with missing values, 0 else;
    # by selects (_select_plain): 2 a child, -2 a member
    pstride: np.ndarray  # pstride[u]: stride of member u in the parent block
    owncls: np.ndarray  # owncls[y, i]: 1 if y is row i's class, else 0
    tab: np.ndarray  # tab[y, :]: the 16 factors of _select_plain (one child, class y)
    sinv: np.ndarray  # sinv[y, :]: the 8 inverses of _select_inverses
    rank_of: np.ndarray  # rank_of[c]: the rank of attribute c
    sel: np.ndarray  # sel[0]: the tile's rows have no missing value and one held-out amount


@njit(cache=True, inline="always")
def _gather_child(counts, cidx_j, yy, n, gat):
    """gat[i] = the count of class yy in row i's union cell (any count where the cell is
    below 0): the gather alone, so that the loop of products after it vectorises."""
    for i in range(n):
        gat[i] = counts[max(cidx_j[i], 0) + yy]


@njit(cache=True, inline="always")
def _times_factor(p, count, held_out, inv_den, na, cell, sc):
    """p times one child's m-estimate factor less the held-out row, (N - h + na) / (D + m),
    (1 where the row's union cell is below 0: its child value is missing or the
    combination does not qualify for it) times the child's scale ``sc``, a power of 2
    (:func:`child_scales`: the product is the one without scales times a power of 2)."""
    f = (max(count - held_out, 0.0) + na) * inv_den
    return p * ((f if cell >= 0 else 1.0) * sc)


@njit(cache=True, inline="always")
def _plain_child(gat, cidx_j, n, hcls, inv_den, na, sc, pv, acc_j):
    """One child's m-estimate factor (``gat``: the rows' union cell counts of one class,
    :func:`_gather_child`) times its scale ``sc`` times each row's running product of
    that class, added to its sum, when every product and sum of the tile is in block 0: a
    loop without branches (vectorised); whether a product left [_TINY, _BLOCK).  (Tested
    in the loop: :func:`_left_block_zero` after it, as the selects' loop does, took 3%
    more time for the pass at 4 and 8 values and 5 classes.)"""
    n_out = 0
    for i in range(n):
        p = _times_factor(pv[i], gat[i], hcls[i], inv_den[i], na, cidx_j[i], sc)
        pv[i] = p
        acc_j[i] += p
        n_out += ((p < _TINY) & (p > 0.0)) | (p >= _BLOCK)
    return n_out > 0


@njit(cache=True, inline="always")
def _left_block_zero(pv, n):
    """Whether some product ``pv[:n]`` is in (0, _TINY) or at least _BLOCK (the products
    are not negative: 0 or products of positive factors), read after the loop that made
    them, as the largest of their bits and the smallest of their bits less 1 as unsigned
    integers (0 wraps to the largest): two integer minima and maxima per row, which
    vectorise, instead of three comparisons in the loop of products (about 20% of its
    time in the selects' loop, :func:`_select_plain`)."""
    bits = pv.view(np.uint64)
    hi = np.uint64(0)
    lo = np.uint64(0xFFFFFFFFFFFFFFFF)
    one = np.uint64(1)
    for i in range(n):
        b = bits[i]
        hi = max(hi, b)
        lo = min(lo, b - one)
    return hi >= _BLOCK_BITS or lo < _TINY_BITS_LESS_1


@njit(cache=True, inline="always")
def _renormalise_left(pv_y, pe_y, n, blocks):
    """After a child's plain loop: the products of the ``n`` rows that left [_TINY,
    _BLOCK) renormalised and their rows marked in ``blocks``; whether there was one (the
    tile then leaves the plain loops)."""
    left = False
    for i in range(n):
        if 0.0 < pv_y[i] < _TINY or pv_y[i] >= _BLOCK:
            _renormalise(pv_y, pe_y, i)
            blocks[i] = True
            left = True
    return left


@njit(cache=True, inline="always")
def _renormalise_all(pv_y, pe_y, n, blocks):
    """After a child's blocked loop renormalised some product: every row's product
    renormalised again (one block may not have been enough) and the rows off block 0
    marked in ``blocks``."""
    for i in range(n):
        _renormalise(pv_y, pe_y, i)
        if pe_y[i] != 0:
            blocks[i] = True


@njit(cache=True, inline="always")
def _block_step(p, i, pv, pe, acc_j, ea_j):
    """Row ``i``'s new product ``p`` (block ``pe[i]``) renormalised by one block when it
    falls below _TINY (or, scaled, reaches _BLOCK), stored, and added to its sum with the
    alignment of :func:`_block_add`, without branches; whether it was renormalised (the
    step of :func:`_block_child` and :func:`_select_block`)."""
    e = pe[i]
    small = (p < _TINY) & (p > 0.0)
    big = p >= _BLOCK
    p = p * _BLOCK if small else (p * _TINY if big else p)
    e = e - 1 if small else (e + 1 if big else e)
    pv[i] = p
    pe[i] = e
    s = acc_j[i]
    cur = ea_j[i]
    d = e - cur
    dd = d if d >= 0 else -d
    b = 1.0 if dd == 0 else (_TINY if dd == 1 else (_TINY * _TINY if dd == 2 else 0.0))
    r = s * b + p if d >= 0 else s + p * b
    r = p if s == 0.0 else r
    ne = e if (s == 0.0) | (d > 0) else cur
    live = p > 0.0  # (a product 0 adds nothing, as in _block_add)
    acc_j[i] = r if live else s
    ea_j[i] = ne if live else cur
    return small | big


@njit(cache=True, inline="always")
def _block_child(gat, cidx_j, n, hcls, inv_den, na, sc, pv, pe, acc_j, ea_j):
    """:func:`_plain_child` when some rows have left block 0: a product that falls below
    _TINY (or, scaled, reaches _BLOCK) is renormalised by one block and each product is
    added to its sum with the alignment of :func:`_block_add`, still without branches;
    whether a product was renormalised."""
    n_low = 0
    for i in range(n):
        p = _times_factor(pv[i], gat[i], hcls[i], inv_den[i], na, cidx_j[i], sc)
        n_low += _block_step(p, i, pv, pe, acc_j, ea_j)
    return n_low > 0


@njit(cache=True, inline="always")
def _select_factor(t, own, a1, b1, c1):
    """One of the 16 factors ``t`` (:func:`_select_tables`) by selects, not by a gather:
    ``t[8 own + 4 (x_a != 1) + 2 (x_b != 1) + (x_c != 1)]`` (``a1``, ``b1``, ``c1``:
    whether the row's values of the two members and of the child are 1)."""
    v1 = (t[0] if c1 else t[1]) if b1 else (t[2] if c1 else t[3])
    v2 = (t[4] if c1 else t[5]) if b1 else (t[6] if c1 else t[7])
    w1 = (t[8] if c1 else t[9]) if b1 else (t[10] if c1 else t[11])
    w2 = (t[12] if c1 else t[13]) if b1 else (t[14] if c1 else t[15])
    return (w1 if a1 else w2) if own else (v1 if a1 else v2)


@njit(cache=True, inline="always")
def _select_plain(tab, xs, own, n, pv, acc_j):
    """:func:`_plain_child` of a child with two values under two parents with two values
    each (the ``xs`` rows: the child's, the first member's and the second member's
    values of the tile's rows): the factor is one of the 16 numbers ``tab``
    (:func:`_select_tables`, ``own[i]``: whether the class is row i's), chosen by selects,
    so the loop reads no count and computes no union cell; whether a product left
    [_TINY, _BLOCK) (:func:`_left_block_zero`)."""
    xc, xa, xb = xs
    t = (tab[0], tab[1], tab[2], tab[3], tab[4], tab[5], tab[6], tab[7], tab[8], tab[9],
         tab[10], tab[11], tab[12], tab[13], tab[14], tab[15])
    for i in range(n):
        p = pv[i] * _select_factor(t, own[i] != 0, xa[i] == 1, xb[i] == 1, xc[i] == 1)
        pv[i] = p
        acc_j[i] += p
    return _left_block_zero(pv, n)


@njit(cache=True, inline="always")
def _select_block(tab, xs, own, n, pv, pe, acc_j, ea_j):
    """:func:`_block_child` with the factors of :func:`_select_plain`."""
    xc, xa, xb = xs
    t = (tab[0], tab[1], tab[2], tab[3], tab[4], tab[5], tab[6], tab[7], tab[8], tab[9],
         tab[10], tab[11], tab[12], tab[13], tab[14], tab[15])
    n_low = 0
    for i in range(n):
        p = pv[i] * _select_factor(t, own[i] != 0, xa[i] == 1, xb[i] == 1, xc[i] == 1)
        n_low += _block_step(p, i, pv, pe, acc_j, ea_j)
    return n_low > 0


@njit(cache=True, inline="always")
def _select_inverses(counts, cells, k, h, m, inv):
    """``inv[yy, 4 own + 2 (a - 1) + (b - 1)]`` = 1 / (the parent count of class yy in
    the cell (a, b), less the held-out amount ``h`` when ``own``, + m), as
    :func:`_level_tile` computes ``inv_den`` (``cells``: the start of the parent block and
    the strides of its two members)."""
    p0, ps0, ps1 = cells
    for yy in range(k):
        for own in range(2):
            hy = h if own == 1 else 0.0
            for a_ in range(1, 3):
                for b_ in range(1, 3):
                    cnt = max(counts[p0 + a_ * ps0 + b_ * ps1 + yy] - hy, 0.0)
                    inv[yy, 4 * own + 2 * (a_ - 1) + (b_ - 1)] = 1.0 / (cnt + m)


@njit(cache=True, inline="always")
def _select_tables(counts, cells, k, h, inv, child, tab):
    """The 16 factors of :func:`_select_plain` for every class: ``tab[yy, 8 own + 4 (a -
    1) + 2 (b - 1) + (v - 1)]`` is the m-estimate P(x_c = v | yy, x_a = a, x_b = b) less
    the held-out amount ``h`` when ``own`` (the row's class is yy; its child value is v),
    times the child's scale: the same operations on the same counts as
    :func:`_times_factor` (so the same numbers), each union cell's counts read once for
    both values of ``own`` and all the classes (they are adjacent).  ``cells`` is
    ``(start of the union block, strides of a, b and the child in it)``, ``inv`` the
    inverses of :func:`_select_inverses`, ``child`` the child's ``(num_add, scale)``."""
    u0, us0, us1, usc = cells
    na, sc = child
    for a_ in range(1, 3):
        for b_ in range(1, 3):
            ic = 2 * (a_ - 1) + (b_ - 1)
            for v in range(1, 3):
                cell = u0 + a_ * us0 + b_ * us1 + v * usc
                u = 2 * ic + (v - 1)
                for yy in range(k):
                    count = counts[cell + yy]
                    f = (max(count - 0.0, 0.0) + na) * inv[yy, ic]
                    tab[yy, u] = f * sc
                    f = (max(count - h, 0.0) + na) * inv[yy, 4 + ic]
                    tab[yy, 8 + u] = f * sc


#: most the children's scales raise a product (:func:`child_scales`), in factors of 2
SCALE_BITS = 192


def child_scales(n_values, loss_kind):
    """The scale of every child (by rank, ``n_values`` their numbers of values) in the
    linear-space nested pass (:func:`nested_loo_loss_nominal`): 2 ** round(log2 |X_c|), as
    long as their product stays within 2 ** SCALE_BITS (then 1).

    A child's factor P(x_c | y, x_s) is at most 1 and about 1 / |X_c| on average, so the
    product of a row's factors over many children falls below _TINY (and into the slower
    path of blocked products) unless each is scaled by about |X_c|.  Every product and sum
    of the models' column s (their children of rank below s) is then the one without
    scales times the same power of 2, the scales' product (exactly: a power of 2 changes
    no rounding), for every class, combination and row; the RMSE and zero-one losses read
    only ratios and orders of these sums, so they are the same numbers.  The log loss reads
    their logarithms, which would round differently: with it every scale is 1."""
    n_values = np.maximum(np.asarray(n_values, dtype=np.int64), 1)
    scale = np.ones(n_values.size)
    if loss_kind == LOSS_LOG:
        return scale
    bits = 0
    for j, v in enumerate(n_values.tolist()):
        e = v.bit_length() - 1  # floor(log2 |X_c|)
        if 2 * v > 3 * (1 << e):  # |X_c| / 2 ** e > 1.5: round up
            e += 1
        if bits + e > SCALE_BITS:
            break
        bits += e
        scale[j] = 2.0 ** e
    return scale


@njit(cache=True)
def _level_tile(L, n_tile, tl, data, table, observed, space, est, add, loss_kind, sums,
                prefetch_bytes):
    """Level L of the nested pass for the tile's rows ``tl.rows[:n_tile]`` (``tl``: a
    :class:`_Tile`): combinations in the outer loop, the tile's rows in the innermost one,
    as the wide prediction kernel does, so that one combination's union blocks stay in cache
    while every row of the tile reads them and the rows' products are independent of each
    other (no chain of dependent products).  Every row of the tile takes part in every
    combination: one for which the combination does not qualify has the joint 0 (and union
    cells below 0), so its products are 0 and add nothing, and the loops over the rows need
    no list of rows.  Per combination, every child rank j gets the start of its union block
    (``idx0``), the strides of the members' and of the child's values in it (``cc``, times
    k) and its kind, each row its union cell (``cidx``); a row's term is then one count per
    class less the held-out row and one product (:func:`_plain_child`,
    :func:`_block_child`).

    ``data`` is the chunk's ``(X, y, w)``, ``table`` the
    :class:`~seminaive.tables.TableLayout` (its counts possibly the compact copy),
    ``observed`` the :class:`CountContext`'s ``(n_observed, has_missing)``, ``space`` a
    :class:`NestedSpace`, ``est`` a :class:`LooEstimate` and ``add`` the children's
    ``(num_add, den_add)``: what the smoothing adds to a child's numerator and denominator,
    by rank; ``sums`` the block's ``(part, part_sq)``, to which the losses are added."""
    X, y, w = data
    part, part_sq = sums
    n_observed, has_missing = observed
    counts, offsets, _, _, sizes, k, _, ext_first, _ = table
    rank, combo_members, level_first, combo_maxrank, combo_weight, n_levels = space
    m, laplace, min_count = est
    num_add, den_add, scale = add
    a = rank.shape[0]
    (rows, xrank, r_first, acc, ea, blocks, wsum, added, last_loss, hrow, yrow, jinv, base,
     apart, bpart, cidx, pv, gat, pe, hcls, den, inv_den, cpos, cc, idx0, iend, ctype,
     pstride, owncls, tab, sinv, rank_of, sel) = tl
    for i in range(n_tile):
        wsum[i] = 0.0
        added[i] = False
        blocks[i] = False
        for yy in range(k):  # the row's held-out amount in each class
            hcls[yy, i] = hrow[i] if yrow[i] == yy else 0.0
            owncls[yy, i] = 1 if yrow[i] == yy else 0
    # the children with two values under two members with two values: factors by selects
    # among 16 numbers (_select_plain), when the tile's rows have no missing value and
    # one held-out amount and the estimate is the m-estimate with m > 0
    select = L == 2 and sel[0] and not laplace and m > 0.0
    acc[:, :, :n_tile] = 0.0
    ea[:, :, :n_tile] = 0
    plain = True  # no row of the tile has a product or a sum outside block 0
    line = max(64 // counts.itemsize, 1)  # counts per cache line
    # typed: from a literal 0, _tile_snapshot would compile once more for Literal[int](0)
    next_r = np.int64(0)
    for q in range(level_first[L], level_first[L + 1]):
        mr = combo_maxrank[q]
        while next_r <= mr:
            _tile_snapshot(next_r, L, n_levels, n_tile, tl, w, y, part, part_sq, a, k,
                           loss_kind)
            next_r += 1
        wq = combo_weight[q]
        if wq <= 0.0:
            continue
        members = combo_members[q]
        g = 0
        prev = -1
        prod_values = 1.0
        for u in range(L):
            e = members[u]
            g = ext_first[g] + (e - prev - 1)
            prev = e
            prod_values *= max(sizes[e] - 1, 1)
        stride = k
        for u in range(L - 1, -1, -1):
            pstride[u] = stride
            stride *= sizes[members[u]]
        # the rows for which the combination qualifies; the others get the joint 0
        n_qualifying = 0
        for i in range(n_tile):
            rr = rows[i]
            off = offsets[g]
            qualifies = True
            for u in range(L):
                v = X[rr, members[u]]
                if v == 0:
                    qualifies = False
                    break
                bpart[u, i] = v * pstride[u]
                off += v * pstride[u]
            if qualifies and L > 0:
                freq = -min(w[rr], 1.0)
                for yy in range(k):
                    freq += counts[off + yy]
                if freq < min_count:
                    qualifies = False
            if not qualifies:
                base[i] = offsets[g]
                jinv[i] = 0.0
                for u in range(L + 1):
                    apart[u, i] = 0
                    bpart[u, i] = _NO_CELL
                continue
            base[i] = off
            n_obs_loo = max(n_observed[g] - min(w[rr], 1.0), 0.0)
            jinv[i] = 1.0 / (n_obs_loo + pseudo_counts(k * prod_values, m, laplace)[1])
            apart[0, i] = 0
            for u in range(L):  # the union cell is sizes[c] * apart + bpart + x_c * cc
                apart[u + 1, i] = apart[u, i] + bpart[u, i]
            bpart[L, i] = 0
            for u in range(L - 1, -1, -1):
                bpart[u, i] += bpart[u + 1, i]
            added[i] = True
            wsum[i] += wq
            n_qualifying += 1
        if n_qualifying == 0:
            continue
        pair = select and sizes[members[0]] == 3 and sizes[members[1]] == 3
        inverses = False  # sinv made for this combination
        # the union blocks: where each child's block starts and its strides
        for j in range(a):
            c = rank[j]
            if _is_member(members, L, c):
                ctype[j] = -2 if pair else -1  # (-2: the select loop's 16 factors 1)
                cidx[j, :n_tile] = -1  # (a factor 1)
                continue
            ctype[j] = 1 if has_missing[c] else 0
            gu = _union_index(members, L, c, ext_first)
            idx0[j] = offsets[gu]
            iend[j] = offsets[gu + 1]
            pos = 0  # the child's position among the members, its stride in the union
            while pos < L and members[pos] < c:
                pos += 1
            cpos[j] = pos
            cc[j] = pstride[pos - 1] if pos > 0 else stride
            if pair and ctype[j] == 0 and sizes[c] == 3:
                ctype[j] = 2  # (no union cells: _select_plain)
                if not inverses:
                    _select_inverses(counts, (offsets[g], pstride[0], pstride[1]), k,
                                     hrow[0], m, sinv)
                    inverses = True
                continue
            # the rows' union cells (below 0: the row's child value is missing or the
            # combination does not qualify for the row)
            i0 = idx0[j]
            cj = cc[j]
            sc = sizes[c]
            for i in range(n_tile):
                xc = np.int64(xrank[j, i])
                t = i0 + xc * cj + sc * apart[pos, i] + bpart[pos, i]
                cidx[j, i] = t if xc != 0 else -1
        # stream the blocks into cache before the rows' scattered reads: the next line of
        # every block at once (independent misses), when they fit in the cache together
        # (prefetch_bytes, by default PREFETCH_BYTES); larger ones are streamed one child
        # at a time, below
        block_bytes = 0
        for j in range(a):
            if 0 <= ctype[j]:  # (the gathers and the selects' 16 factors read them)
                block_bytes += (iend[j] - idx0[j]) * counts.itemsize
        touched = 0.0
        step = 0
        streamed = block_bytes <= prefetch_bytes
        more = streamed
        while more:
            more = False
            for j in range(a):
                if 0 <= ctype[j] and idx0[j] + step < iend[j]:
                    touched += counts[idx0[j] + step]
                    more = True
            step += line
        pv[0, 0] = touched  # (overwritten before it is read)
        jadd = wq * pseudo_counts(k * prod_values, m, laplace)[0]
        gathers = False
        for j in range(a):
            gathers |= 0 <= ctype[j] <= 1
        for yy in range(k):
            pv_y = pv[yy]
            pe_y = pe[yy]
            hcls_y = hcls[yy]
            for i in range(n_tile):  # the joint P(y, x_s) of each row
                hy = hcls_y[i]
                cnt = max(counts[base[i] + yy] - hy, 0.0)
                p = (wq * cnt + jadd) * jinv[i]
                pv_y[i] = p
                pe_y[i] = 0
                if gathers:  # (read only by the children whose union cells are read)
                    den[yy, i] = cnt
                    inv_den[yy, i] = 1.0 / (cnt + m)
                if blocks[i] or (p < _TINY and p > 0.0) or p >= _BLOCK:
                    _renormalise(pv_y, pe_y, i)
                    if pe_y[i] != 0:
                        blocks[i] = True
                        plain = False
                    _block_add(acc, ea, yy, 0, i, pv_y[i], pe_y[i])
                else:
                    acc[yy, 0, i] += p
        for j in range(a):
            t_kind = ctype[j]
            cidx_j = cidx[j]
            if not streamed and 0 <= t_kind:
                # blocks too large to stream together: each child's block just before its
                # rows' scattered reads (a sequential read, which the cache prefetches)
                for t in range(idx0[j], iend[j], line):
                    touched += counts[t]
            if t_kind == -2 or t_kind == 2:
                pos = cpos[j]
                # strides of the members and of the child in the union block (sorted)
                us_last = k
                us_mid = k * 3
                us_first = k * 9
                us0 = us_first if pos > 0 else us_mid
                us1 = us_mid if pos == 2 else us_last
                usc = us_first if pos == 0 else (us_mid if pos == 1 else us_last)
                xs = (xrank[j], xrank[rank_of[members[0]]], xrank[rank_of[members[1]]])
                if t_kind == 2:  # every class's 16 factors at once
                    _select_tables(counts, (idx0[j], us0, us1, usc), k, hrow[0], sinv,
                                   (num_add[j], scale[j]), tab)
                else:  # a member: the factor 1 times the scale, as _times_factor
                    for yy in range(k):
                        for u in range(16):
                            tab[yy, u] = 1.0 * scale[j]
                for yy in range(k):
                    if plain:
                        if _select_plain(tab[yy], xs, owncls[yy], n_tile, pv[yy],
                                         acc[yy, j + 1]):
                            if _renormalise_left(pv[yy], pe[yy], n_tile, blocks):
                                plain = False
                    elif _select_block(tab[yy], xs, owncls[yy], n_tile, pv[yy], pe[yy],
                                       acc[yy, j + 1], ea[yy, j + 1]):
                        _renormalise_all(pv[yy], pe[yy], n_tile, blocks)
                continue
            if t_kind <= 0 and not laplace:  # the usual case: no branch per row
                # per class: the gather (the tile's cells stay in cache for the next
                # class), then one loop without branches
                for yy in range(k):
                    _gather_child(counts, cidx_j, yy, n_tile, gat[yy])
                    if plain:
                        if _plain_child(gat[yy], cidx_j, n_tile, hcls[yy], inv_den[yy],
                                        num_add[j], scale[j], pv[yy], acc[yy, j + 1]):
                            # a product left [_TINY, _BLOCK): added as it is to a sum of
                            # block 0 (the same value), renormalised for the next products
                            if _renormalise_left(pv[yy], pe[yy], n_tile, blocks):
                                plain = False
                    elif _block_child(gat[yy], cidx_j, n_tile, hcls[yy], inv_den[yy],
                                      num_add[j], scale[j], pv[yy], pe[yy], acc[yy, j + 1],
                                      ea[yy, j + 1]):
                        _renormalise_all(pv[yy], pe[yy], n_tile, blocks)
                continue
            na = num_add[j]
            da = den_add[j]
            sc = scale[j]
            cj = cc[j]
            nv = sizes[rank[j]]
            for yy in range(k):
                pv_y = pv[yy]
                pe_y = pe[yy]
                hcls_y = hcls[yy]
                for i in range(n_tile):
                    p = pv_y[i]
                    t = cidx_j[i]
                    if t >= 0:
                        num = max(counts[t + yy] - hcls_y[i], 0.0)
                        if t_kind == 1:  # a child with missing values: N(y, x_s, x_c observed)
                            first = t - xrank[j, i] * cj + yy
                            dmiss = -hcls_y[i]
                            for v in range(1, nv):
                                dmiss += counts[first + v * cj]
                            p *= (num + na) / (max(dmiss, 0.0) + da)
                        elif laplace:
                            p *= (num + 1.0) / (den[yy, i] + da)
                        else:
                            p *= (num + na) * inv_den[yy, i]
                    p *= sc
                    if 0.0 < p < _TINY or p >= _BLOCK:
                        pv_y[i] = p
                        _renormalise(pv_y, pe_y, i)
                        p = pv_y[i]
                        blocks[i] = True
                        plain = False
                    pv_y[i] = p
                    if blocks[i]:
                        _block_add(acc, ea, yy, j + 1, i, p, pe_y[i])
                    else:  # every block 0
                        acc[yy, j + 1, i] += p
        if touched < 0.0:  # never (counts are not negative): keeps the reads
            pv[0, 0] = touched
    while next_r <= a:
        _tile_snapshot(next_r, L, n_levels, n_tile, tl, w, y, part, part_sq, a, k, loss_kind)
        next_r += 1


@njit(parallel=True, cache=True)
def nested_loo_loss_nominal(X, y, w, ctx, space, est, loss_kind, n_blocks, out, out_sq,
                            tiling, scale):
    """:func:`nested_loo_loss` without Gaussian children, in linear space.

    The same models and leave-one-out estimates, but every sub-model's running product
    P(y, x_s) prod P(x_c | y, x_s) along the ranking is a product of probabilities (each
    a ratio of counts less the held-out row, read from the counts: no log table and no log
    or exp per term), kept with a block exponent (:func:`_renormalise`) so that it never
    underflows, and summed over the combinations with :func:`_block_add`; the losses read
    the posterior from these sums.  Each of the ``n_blocks`` row blocks is taken in tiles
    of equal size, at most ``tile_rows`` (``tiling``: ``(tile_rows, prefetch_bytes)``; each
    tile reads the whole table once):
    per level, the combinations in the outer loop and the tile's rows in the inner one
    (:func:`_level_tile`).  A row with no qualifying combination of level L at r takes the
    losses of level L - 1 at r (the cascade): the first r at which each level qualifies is
    found first, and a level's losses are added to the higher levels that cascade to it.
    Agrees with :func:`nested_loo_loss` to rounding (the operations differ); ``ctx.lc`` is
    not read.  The counts may be float32 (:func:`~seminaive.selection._structure.compact_bundle`:
    an exact copy, the same values in half the bytes, so the same results).  A
    combination's union blocks are streamed into the cache together when they take at most
    ``prefetch_bytes``, else one child's at a time (only reads: the same results).
    """
    table, n_observed, has_missing, _, _ = ctx
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    lay = _layout(table)
    rank, n_levels = space.rank, space.n_levels
    m, laplace, min_count = est
    n_rows, a = X.shape
    # m-estimate: (N + m / |X_c|) / (D + m); Laplace: (N + 1) / (D + |X_c|); by child rank
    num_add = np.empty(a)
    den_add = np.empty(a)
    for j in range(a):
        nv = max(sizes[rank[j]] - 1, 1)
        num_add[j], den_add[j] = pseudo_counts(nv, m, laplace)
    tile_rows, prefetch_bytes = tiling
    tile = max(1, tile_rows)
    width = max(n_levels - 1, 1)
    rank_of = np.empty(a, dtype=np.int64)
    for j in range(a):
        rank_of[rank[j]] = j
    partial = np.zeros((n_blocks, n_levels, a + 1, a + 1))
    partial_sq = np.zeros((n_blocks, n_levels, a + 1, a + 1))
    for b in prange(n_blocks):
        r0 = b * n_rows // n_blocks
        r1 = (b + 1) * n_rows // n_blocks
        tl = _Tile(np.empty(tile, dtype=np.int64), np.empty((a, tile), dtype=X.dtype),
                   np.zeros((tile, n_levels), dtype=np.int64), np.empty((k, a + 1, tile)),
                   np.empty((k, a + 1, tile), dtype=np.int64), np.zeros(tile, np.bool_),
                   np.zeros(tile), np.zeros(tile, np.bool_), np.empty((tile, a + 1)),
                   np.empty(tile), np.empty(tile, dtype=np.int64), np.empty(tile),
                   np.empty(tile, dtype=np.int64),
                   np.empty((width + 1, tile), dtype=np.int64),
                   np.empty((width + 1, tile), dtype=np.int64),
                   np.empty((a, tile), dtype=np.int64), np.empty((k, tile)),
                   np.empty((k, tile)), np.empty((k, tile), dtype=np.int64),
                   np.empty((k, tile)), np.empty((k, tile)), np.empty((k, tile)),
                   np.empty(a, dtype=np.int64),
                   np.empty(a, dtype=np.int64), np.empty(a, dtype=np.int64),
                   np.empty(a, dtype=np.int64), np.empty(a, dtype=np.int64),
                   np.empty(width, dtype=np.int64), np.empty((k, tile), dtype=np.uint8),
                   np.empty((k, 16)), np.empty((k, 8)), rank_of,
                   np.zeros(1, dtype=np.bool_))
        rows, xrank, r_first, hrow, yrow = tl.rows, tl.xrank, tl.r_first, tl.hrow, tl.yrow
        part = partial[b]
        part_sq = partial_sq[b]
        # tiles of equal size (two of 400 rows rather than 478 and 322)
        per_tile = -(-(r1 - r0) // max(-(-(r1 - r0) // tile), 1))
        rr = r0
        while rr < r1:
            n_tile = 0
            while rr < r1 and n_tile < per_tile:
                if w[rr] > 0.0:  # rows of weight 0 add nothing
                    rows[n_tile] = rr
                    n_tile += 1
                rr += 1
            complete = True  # no missing value, one held-out amount
            for i in range(n_tile):
                hrow[i] = min(w[rows[i]], 1.0)
                yrow[i] = y[rows[i]]
                complete &= hrow[i] == hrow[0]
                for j in range(a):
                    xrank[j, i] = X[rows[i], rank[j]]
                    complete &= xrank[j, i] != 0
                r_first[i, 0] = 0
                for L in range(1, n_levels):
                    r_first[i, L] = _first_qualifying(L, rows[i], X, w, lay, space,
                                                      min_count)
            tl.sel[0] = complete
            for L in range(n_levels):
                _level_tile(L, n_tile, tl, (X, y, w), lay, (n_observed, has_missing), space,
                            est, (num_add, den_add, scale), loss_kind, (part, part_sq),
                            prefetch_bytes)
    for b in range(n_blocks):
        out += partial[b]
        out_sq += partial_sq[b]
