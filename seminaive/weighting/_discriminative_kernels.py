"""Numba kernels of the discriminatively weighted models (WANBIA-C, ALR): per-class scores
linear in the weights, the conditional log loss and its gradient.

A row's score is a weighted geometric mean of its qualifying sub-models (AnJE, the model of
ALR; naive Bayes when n = 0): with the row's sub-models s at the order the cascade reaches
(the highest order <= n at which some parent combination qualifies, as in AnDE's prediction)
and ``used`` of them,

    score(y) = (1 / used) sum_s [ w_j(s, y) log P(y, x_s)
                                  + sum_c w_c(s, c, y) log P(x_c | y, x_s) ]

(c over the observed attributes not in s),

every log-probability read from the smoothed log tables of the
:class:`~seminaive.tables.FrequencyTable` (:meth:`~seminaive.tables.FrequencyTable.log_tables`).
Where each weight comes from is set by ``mode`` (``WEIGHT_*``):

* MODEL: one weight per parent combination g, shared by all its terms;
* PARENT_VALUE: one per cell of g (the parent values x_s);
* CLASS: one per (g, y);
* PARENT_VALUE_CLASS: one per (g, x_s, y);
* ATTRIBUTE: the joint term unweighted, the child terms one weight per child attribute;
* PARAMETER: one weight per probability read: per (g, x_s, y) for the joint term, per
  (g + c, x_{s+c}, member c, y) for a child term (the "extended" parametrisation).

Index layouts: joint keys are the count layout of orders 0..n (``offsets[g] + cell * k + y``),
child keys the log-conditional layout (``lc_offsets[h] + (cell_h * d + p) * k + y``), placed
after the J joint keys in PARAMETER mode.
"""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import njit, prange
from ..tables.scoring import qualifying_parents, row_cell, widest_order

WEIGHT_MODEL = 0
WEIGHT_PARENT_VALUE = 1
WEIGHT_CLASS = 2
WEIGHT_PARENT_VALUE_CLASS = 3
WEIGHT_ATTRIBUTE = 4
WEIGHT_PARAMETER = 5
WEIGHT_MODES = {"model": WEIGHT_MODEL, "parent_value": WEIGHT_PARENT_VALUE,
                "class": WEIGHT_CLASS, "parent_value_class": WEIGHT_PARENT_VALUE_CLASS,
                "attribute": WEIGHT_ATTRIBUTE, "parameter": WEIGHT_PARAMETER}


def n_weights(mode, n_combinations, n_joint_keys, n_child_keys, n_attributes, k):
    """Length of the weight vector of ``mode`` (see the module docstring)."""
    return {WEIGHT_MODEL: n_combinations, WEIGHT_PARENT_VALUE: n_joint_keys // k,
            WEIGHT_CLASS: n_combinations * k, WEIGHT_PARENT_VALUE_CLASS: n_joint_keys,
            WEIGHT_ATTRIBUTE: n_attributes,
            WEIGHT_PARAMETER: n_joint_keys + n_child_keys}[mode]


@njit(cache=True, inline="always")
def _joint_index(mode, g, cell, offsets, k, yy):
    if mode == WEIGHT_MODEL:
        return g
    if mode == WEIGHT_PARENT_VALUE:
        return offsets[g] // k + cell
    if mode == WEIGHT_CLASS:
        return g * k + yy
    if mode == WEIGHT_ATTRIBUTE:
        return -1
    return offsets[g] + cell * k + yy  # PARENT_VALUE_CLASS and PARAMETER


@njit(cache=True, inline="always")
def _child_index(mode, g, cell, offsets, k, yy, c, lc_key, n_joint):
    if mode == WEIGHT_ATTRIBUTE:
        return c
    if mode == WEIGHT_PARAMETER:
        return n_joint + lc_key + yy
    return _joint_index(mode, g, cell, offsets, k, yy)


class WeightedModel(NamedTuple):
    """What the kernels read of a discriminatively weighted model, in one typed bundle."""

    n: int  # the model's order
    max_order: int  # the table's highest order
    combos: np.ndarray  # the table's layout (seminaive.tables.TableLayout)
    offsets: np.ndarray
    sizes: np.ndarray
    k: int
    order_first: np.ndarray
    sub_index: np.ndarray
    lj: np.ndarray  # the log tables (seminaive.tables.FrequencyTable.log_tables)
    lc: np.ndarray
    lc_offsets: np.ndarray
    mode: int  # the weights' granularity (WEIGHT_MODES)
    n_joint: int  # weights of the joint terms (those of the children follow)


@njit(cache=True, inline="always")
def _widest(model):
    """The most parent combinations of one order up to the model's (scratch per row)."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, lj, lc, lc_offsets,
     mode, n_joint) = model
    return widest_order(order_first, n)


@njit(cache=True)
def _row_parts(x, model, qual, cells, part_idx, part_val):
    """The weighted terms of one row: ``part_idx[q, y]`` (weight index, -1 = unweighted) and
    ``part_val[q, y]`` (log-probability / used) for q < the returned count (``model``: a
    :class:`WeightedModel`)."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, lj, lc, lc_offsets,
     mode, n_joint) = model
    level = n
    while True:
        used = qualifying_parents(x, level, combos, offsets, sizes, k, order_first, lj, qual,
                                  cells)
        if used > 0 or level == 0:
            break
        level -= 1
    scale = 1.0 / max(used, 1)
    # sub-model granularities: one weight for all the terms of a sub-model, so its terms
    # are summed into one part (cells[] then holds the part number of each sub-model)
    collapse = mode <= WEIGHT_PARENT_VALUE_CLASS
    q = 0
    p_first = order_first[level]
    for g in range(p_first, order_first[level + 1]):
        if not qual[g - p_first]:
            continue
        cell = cells[g - p_first]
        for yy in range(k):
            part_idx[q, yy] = _joint_index(mode, g, cell, offsets, k, yy)
            part_val[q, yy] = lj[offsets[g] + cell * k + yy] * scale
        if collapse:
            cells[g - p_first] = q
        q += 1
    d = level + 1
    if d > max_order:
        return q
    for h in range(order_first[d], order_first[d + 1]):
        cell_h = row_cell(x, h, d, combos, sizes)
        for p in range(d):
            c = combos[h, p]
            if x[c] == 0:
                continue
            g = sub_index[h, p]
            if not qual[g - p_first]:
                continue
            key = lc_offsets[h] + (cell_h * d + p) * k
            if collapse:
                own = cells[g - p_first]
                for yy in range(k):
                    part_val[own, yy] += lc[key + yy] * scale
                continue
            cell = cells[g - p_first]
            for yy in range(k):
                part_idx[q, yy] = _child_index(mode, g, cell, offsets, k, yy, c, key, n_joint)
                part_val[q, yy] = lc[key + yy] * scale
            q += 1
    return q


@njit(cache=True, inline="always")
def _score(n_parts, part_idx, part_val, theta, k, score):
    for yy in range(k):
        score[yy] = 0.0
    for q in range(n_parts):
        for yy in range(k):
            j = part_idx[q, yy]
            score[yy] += part_val[q, yy] * (1.0 if j < 0 else theta[j])


@njit(cache=True, inline="always")
def _row_gradient(q, part_idx, part_val, theta, k, yt, wr, score, resid, grad):
    """Add the gradient of one row's weighted log loss w_r (-log P(y_t | x)) to ``grad``
    and return that loss."""
    _score(q, part_idx, part_val, theta, k, score)
    top = score[0]
    for yy in range(1, k):
        top = max(top, score[yy])
    acc = 0.0
    for yy in range(k):
        acc += math.exp(score[yy] - top)
    log_norm = top + math.log(acc)
    for yy in range(k):
        resid[yy] = wr * (math.exp(score[yy] - log_norm) - (1.0 if yy == yt else 0.0))
    for qq in range(q):
        for yy in range(k):
            j = part_idx[qq, yy]
            if j >= 0:
                grad[j] += resid[yy] * part_val[qq, yy]
    return wr * (log_norm - score[yt])


def max_parts(order_first, n, n_attributes, mode=None):
    """Upper bound of the number of terms of one row (one per sub-model at the sub-model
    granularities, whose terms share a weight)."""
    widest = max(int(order_first[level + 1] - order_first[level]) for level in range(n + 1))
    if mode is not None and mode <= WEIGHT_PARENT_VALUE_CLASS:
        return widest
    return widest * (n_attributes + 1)


@njit(parallel=True, cache=True)
def weighted_scores(X, model, theta, n_max_parts, out):
    """Per-class scores (log of the weighted geometric mean, unnormalised) of every row
    (``model``: a :class:`WeightedModel`)."""
    n_rows, a = X.shape
    k = model.k
    widest = _widest(model)
    for r in prange(n_rows):
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        part_idx = np.empty((n_max_parts, k), dtype=np.int64)
        part_val = np.empty((n_max_parts, k))
        score = np.empty(k)
        q = _row_parts(X[r], model, qual, cells, part_idx, part_val)
        _score(q, part_idx, part_val, theta, k, score)
        for yy in range(k):
            out[r, yy] = score[yy]


@njit(parallel=True, cache=True)
def loss_and_gradient(X, y, w, weighted, model, theta, n_max_parts, n_blocks, loss_out,
                      grad_out):
    """``loss_out[b]`` = sum over the rows of block b of w_r (-log P(y_r | x_r)) and
    ``grad_out[b]`` its gradient in ``theta`` (``model``: a :class:`WeightedModel`)."""
    n_rows, a = X.shape
    k = model.k
    widest = _widest(model)
    for b in prange(n_blocks):
        start = b * n_rows // n_blocks
        stop = (b + 1) * n_rows // n_blocks
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        part_idx = np.empty((n_max_parts, k), dtype=np.int64)
        part_val = np.empty((n_max_parts, k))
        score = np.empty(k)
        resid = np.empty(k)
        for r in range(start, stop):
            wr = w[r] if weighted else 1.0
            if wr <= 0.0:
                continue
            q = _row_parts(X[r], model, qual, cells, part_idx, part_val)
            loss_out[b] += _row_gradient(q, part_idx, part_val, theta, k, y[r], wr, score,
                                         resid, grad_out[b])


@njit(parallel=True, cache=True)
def build_parts(X, model, idx_out, val_out, count_out):
    """The weighted terms of every row (:func:`_row_parts`), kept so that optimiser
    iterations need not recompute them: ``idx_out`` / ``val_out`` of shape (rows, parts, k),
    ``count_out[r]`` the number of parts of row r."""
    n_rows = X.shape[0]
    widest = _widest(model)
    for r in prange(n_rows):
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        count_out[r] = _row_parts(X[r], model, qual, cells, idx_out[r], val_out[r])


@njit(parallel=True, cache=True)
def cached_loss_and_gradient(idx, val, count, y, w, weighted, theta, n_blocks, loss_out,
                             grad_out):
    """:func:`loss_and_gradient` from the terms :func:`build_parts` kept."""
    n_rows = idx.shape[0]
    k = idx.shape[2]
    for b in prange(n_blocks):
        start = b * n_rows // n_blocks
        stop = (b + 1) * n_rows // n_blocks
        score = np.empty(k)
        resid = np.empty(k)
        for r in range(start, stop):
            wr = w[r] if weighted else 1.0
            if wr <= 0.0:
                continue
            loss_out[b] += _row_gradient(count[r], idx[r], val[r], theta, k, y[r], wr, score,
                                         resid, grad_out[b])
