"""Classification with a selected structure (the attributes, parents and orders that a
selection kept)."""

import math

import numpy as np

from ...kernels._jit import njit, prange
from ._common import (
    _combo_cell,
    _is_member,
    _lse_add,
    _union_cell,
)

# --------------------------------------------------------------------------------------------
# Classification with a selected structure
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def selective_scores(X, table, logs, structure, out, V, gs):
    """Per-class log scores of a selected AnDE structure (Chen et al. 2014, eq for P(y, x) with
    parent set p and child set c; the SWAODE paper (2024), eq 9 with weights).

    ``structure`` is a :class:`SelectedStructure`, ``logs`` the :class:`LogTables` ``lj``,
    ``lc`` and ``lc_offsets`` of the counts, ``gs`` a :class:`GaussianScoring`.
    Level L's parents are ``combo_members[level_first[L]:level_first[L + 1], :L]``; from the
    highest level down, the first level with a qualifying parent (observed, frequency >=
    min_count as marked by NaN in ``lj``, positive weight) gives
    log( sum_s w_s P(y, x_s) prod_{c in children, c not in s} P(x_c | y, x_s) / sum_s w_s ).
    Level 0 is naive Bayes over the children and always qualifies.  ``table`` is the
    :class:`~seminaive.tables.TableLayout` of the counts, ``lj``, ``lc`` and ``lc_offsets``
    its log tables.

    Gaussian children (``gaussian[c]`` >= 0: column of ``V``, the rows' centred numeric
    values) as in :func:`seminaive.tables.gaussian.gaussian_scores`: the log density at the
    estimates laid out by :meth:`seminaive.tables.MomentTable.grid_terms` (``grid_offsets``,
    ``g_mean``, ``g_norm``, ``g_precision``), with a value for missing (``missing_code[c]``
    > 0) log P(missing | y, x_s) or log (1 - P(missing | y, x_s)) besides the density; the
    parent term is divided by the widths ``exp(log_width[i, x_i])`` of the bins of the
    parents that are children of the model too (every sub-model then holds their density;
    a parent that is not a child keeps its bin's probability, as no other sub-model
    models it, so that the scores do not depend on the units of a numeric column).
    """
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    lj, lc, lc_offsets = logs
    combo_members, level_first, combo_weight, n_levels, children = structure
    (gaussian, missing_code, log_width, grid_offsets, g_mean, g_norm, g_precision, g_shape,
     student) = gs
    n_rows, a = X.shape
    n_num = V.shape[1]
    n_children = children.shape[0]
    is_child = np.zeros(a, dtype=np.bool_)
    for j in range(n_children):
        is_child[children[j]] = True
    for r in prange(n_rows):
        xr = np.empty(a, dtype=np.int64)
        for i in range(a):
            xr[i] = X[r, i]
        top = np.empty((1, k))
        acc = np.empty((1, k))
        pre = np.empty(k)
        for L in range(n_levels - 1, -1, -1):
            top[0, :] = -np.inf
            acc[0, :] = 0.0
            wsum = 0.0
            d = L + 1
            for q in range(level_first[L], level_first[L + 1]):
                wq = combo_weight[q]
                if wq <= 0.0:
                    continue
                members = combo_members[q]
                g, cell = _combo_cell(members, L, xr, sizes, ext_first)
                base = offsets[g] + cell * k
                if math.isnan(lj[base]):
                    continue
                log_w = math.log(wq)
                for t in range(L):
                    if is_child[members[t]]:
                        log_w -= log_width[members[t], xr[members[t]]]
                for yy in range(k):
                    pre[yy] = lj[base + yy] + log_w
                for j in range(n_children):
                    c = children[j]
                    xc = xr[c]
                    if xc == 0 or _is_member(members, L, c):
                        continue
                    g2, cell0, stride, pos = _union_cell(members, L, c, xr, sizes, ext_first)
                    jn = gaussian[c]
                    mc = missing_code[c]
                    if jn >= 0 and xc != mc:
                        v = V[r, jn]
                        if math.isnan(v):
                            continue
                        first = grid_offsets[g] + (cell * n_num + jn) * k
                        for yy in range(k):
                            dv = v - g_mean[first + yy]
                            if student:
                                pre[yy] -= g_norm[first + yy] + g_shape[first + yy] * math.log1p(
                                    dv * dv * g_precision[first + yy])
                            else:
                                pre[yy] -= g_norm[first + yy] + dv * dv * g_precision[first + yy]
                        if mc > 0:
                            idx = lc_offsets[g2] + ((cell0 + mc * stride) * d + pos) * k
                            for yy in range(k):
                                pre[yy] += math.log1p(-math.exp(lc[idx + yy]))
                        continue
                    idx = lc_offsets[g2] + ((cell0 + xc * stride) * d + pos) * k
                    for yy in range(k):
                        pre[yy] += lc[idx + yy]
                _lse_add(top, acc, 0, pre, k)
                wsum += wq
            if wsum > 0.0:
                log_wsum = math.log(wsum)
                for yy in range(k):
                    if acc[0, yy] > 0.0:
                        out[r, yy] = top[0, yy] + math.log(acc[0, yy]) - log_wsum
                    else:
                        out[r, yy] = -np.inf
                break
