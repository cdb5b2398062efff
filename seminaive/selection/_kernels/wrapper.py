"""Leave-one-out losses of every one-attribute move of the wrapper searches (forward
sequential selection and backward sequential elimination) in one pass."""

import math

import numpy as np

from ...kernels._jit import njit, prange
from ...kernels.losses import (
    row_loss,
)
from ._common import (
    _combo_cell,
    _gaussian_child_loo,
    _held_out_buffers,
    _hold_out,
    _layout,
    _loo_log_cond,
    _loo_log_joint,
    _lse_add,
    _union_cell,
)

# --------------------------------------------------------------------------------------------
# Wrapper search (FSS / BSE): leave-one-out losses of one-attribute moves in one pass
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _child_terms(term, total, child, xr, v, parent, ctx, gauss, held, est, gterm, from_lc):
    """The leave-one-out log terms of child ``child = (j, whether j is a child of the
    model)`` (observed in the held-out row ``xr``; ``v`` its numeric values) given the
    parent combination ``parent = (members, L, its global index, start of its cell's
    class counts)``, one per class, written to ``term`` and (a child of the model) added to
    ``total``.  ``ctx`` holds the counts and layout, ``gauss`` the Gaussian children's
    columns, missing codes and leave-one-out estimates, ``held`` the held-out row's
    ``(class, amount)``; with ``from_lc`` the terms of the classes other than the held-out
    row's are read from the log conditional tables (the same estimates: the row is not in
    their counts), else computed from the counts."""
    j, is_child = child
    members, n_members, g, parent_off = parent
    counts, offsets, sizes, ext_first, has_missing, lc, lc_offsets = ctx
    gaussian, missing_code, est_mean, est_var = gauss
    yt, h = held
    k = term.shape[0]
    xc = xr[j]
    g2, cell0, stride, pos = _union_cell(members, n_members, j, xr, sizes, ext_first)
    cell = (parent_off, offsets[g2], cell0, stride)
    jn = gaussian[j]
    mc = missing_code[j]
    if jn >= 0 and xc != mc:
        if not math.isnan(v[jn]):
            gterm[:] = 0.0
            _gaussian_child_loo(
                gterm, g, jn, v[jn], (mc, sizes[j] - 1, has_missing[j]), counts, cell, lc,
                lc_offsets[g2] + ((cell0 + mc * stride) * (n_members + 1) + pos) * k,
                held, est, (est_mean, est_var))
            for yy in range(k):
                term[yy] = gterm[yy]
                if is_child:
                    total[yy] += gterm[yy]
        return
    lc_idx = lc_offsets[g2] + ((cell0 + xc * stride) * (n_members + 1) + pos) * k
    for yy in range(k):
        if yy == yt or not from_lc:
            t = _loo_log_cond(counts, cell, xc, sizes[j] - 1, has_missing[j], yy, yt, h, k,
                              est)
        else:
            t = lc[lc_idx + yy]
        term[yy] = t
        if is_child:
            total[yy] += t


@njit(parallel=True, cache=True)
def wrapper_loo_loss(X, y, w, ctx, moves, est, loss_kind, n_blocks, out, V, gl):
    """Accumulate into ``out[j]`` the weighted LOO loss of AODE with parents / children given
    by the masks of ``moves`` (a :class:`Moves`), changed by candidate j: attribute
    ``moves.attribute[j]`` (-1: no change) becomes a parent iff ``moves.parent[j]`` and a
    child iff ``moves.child[j]`` (Chen et al. 2014, §2.4 eq for P(y, x) with a parent set p
    and a child set c; naive Bayes over the children when no parent qualifies); ``ctx`` is a
    :class:`CountContext`, ``est`` a :class:`LooEstimate`; Gaussian children (``V``, ``gl``)
    as in :func:`nested_loo_loss`."""
    table, n_observed, has_missing, lc, lc_offsets = ctx
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    lay = _layout(table)
    parent_mask, child_mask, cand_attr, cand_parent, cand_child = moves
    min_count = est.min_count
    n_rows, a = X.shape
    n_cand = cand_attr.shape[0]
    gaussian, missing_code = gl[0], gl[1]
    partial = np.zeros((n_blocks, n_cand))
    for b in prange(n_blocks):
        r0 = b * n_rows // n_blocks
        r1 = (b + 1) * n_rows // n_blocks
        held = _held_out_buffers(lay, n_rows, V, gl)
        xr, lw_row, _, est_mean, est_var = held
        gterm = np.empty(k)
        base = np.empty((a, k))
        qual = np.zeros(a, dtype=np.bool_)
        term = np.zeros((a, a, k))
        total = np.empty((a, k))
        nb_term = np.zeros((a, k))
        nb_total = np.empty(k)
        top = np.empty((1, k))
        acc = np.empty((1, k))
        vals = np.empty(k)
        score = np.empty(k)
        one = np.empty(1, dtype=np.int64)
        empty = np.empty(1, dtype=np.int64)
        counts_ctx = (counts, offsets, sizes, ext_first, has_missing, lc, lc_offsets)
        gauss = (gaussian, missing_code, est_mean, est_var)
        for rr in range(r0, r1):
            wt, h, yt = _hold_out(rr, X, y, w, V, lay, gl, held)
            if wt <= 0.0:
                continue
            # naive Bayes terms (level 0)
            for yy in range(k):
                nb_total[yy] = _loo_log_joint(counts, offsets[0], n_observed[0] - h, k, 1.0,
                                              yy, yt, h, est)
            for j in range(a):
                for yy in range(k):
                    nb_term[j, yy] = 0.0
                if xr[j] != 0:
                    _child_terms(nb_term[j], nb_total, (j, child_mask[j]), xr, V[rr],
                                 (empty, 0, 0, offsets[0]), counts_ctx, gauss, (yt, h), est,
                                 gterm, False)
            # one-dependence terms
            for i in range(a):
                qual[i] = False
                for j in range(a):
                    for yy in range(k):
                        term[i, j, yy] = 0.0
                if xr[i] == 0:
                    continue
                one[0] = i
                g, cell = _combo_cell(one, 1, xr, sizes, ext_first)
                base_off = offsets[g] + cell * k
                freq = -h
                for yy in range(k):
                    freq += counts[base_off + yy]
                if freq < min_count:
                    continue
                qual[i] = True
                n_obs_loo = n_observed[g] - h
                prod_values = max(sizes[i] - 1, 1) * 1.0
                for yy in range(k):
                    base[i, yy] = _loo_log_joint(counts, base_off, n_obs_loo, k, prod_values,
                                                 yy, yt, h, est)
                    # a numeric parent that is a child: a density (its bin's width)
                    term[i, i, yy] = -lw_row[i]
                    total[i, yy] = base[i, yy] + (term[i, i, yy] if child_mask[i] else 0.0)
                for j in range(a):
                    if j != i and xr[j] != 0:
                        # the other classes' counts are those of the full tables: their
                        # terms are read from the log conditional tables
                        _child_terms(term[i, j], total[i], (j, child_mask[j]), xr, V[rr],
                                     (one, 1, g, base_off), counts_ctx, gauss, (yt, h), est,
                                     gterm, True)
            for ci in range(n_cand):
                q = cand_attr[ci]
                top[0, :] = -np.inf
                acc[0, :] = 0.0
                used = 0
                child_delta = 0.0
                if q >= 0:
                    if child_mask[q] and not cand_child[ci]:
                        child_delta = -1.0
                    elif cand_child[ci] and not child_mask[q]:
                        child_delta = 1.0
                for i in range(a):
                    is_parent = parent_mask[i]
                    if i == q:
                        is_parent = cand_parent[ci]
                    if not is_parent or not qual[i]:
                        continue
                    for yy in range(k):
                        vals[yy] = total[i, yy]
                        if q >= 0:
                            vals[yy] += child_delta * term[i, q, yy]
                    _lse_add(top, acc, 0, vals, k)
                    used += 1
                if used > 0:
                    for yy in range(k):
                        score[yy] = top[0, yy] + math.log(acc[0, yy]) - math.log(used)
                else:
                    for yy in range(k):
                        score[yy] = nb_total[yy]
                        if q >= 0:
                            score[yy] += child_delta * nb_term[q, yy]
                partial[b, ci] += wt * row_loss(score, k, yt, loss_kind)
    for b in range(n_blocks):
        out += partial[b]
