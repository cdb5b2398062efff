"""Per-row losses of predicted class scores, shared by the leave-one-out selection kernels.

``loss`` names: ``"rmse"`` (the squared error 1 - P(y_t | x) of each row; the root of the mean
is taken over rows, Chen et al. 2014, §3.3), ``"zero_one"`` (argmax, first maximum, differs
from y_t) and ``"log_loss"`` (-log P(y_t | x)).
"""

import math

import numpy as np

from ._jit import get_num_threads, njit

LOSS_RMSE = 0
LOSS_ZERO_ONE = 1
LOSS_LOG = 2
LOSSES = {"rmse": LOSS_RMSE, "zero_one": LOSS_ZERO_ONE, "log_loss": LOSS_LOG}


def row_blocks(n_rows):
    """Number of row blocks for a parallel pass (a few per thread, each >= 16 rows)."""
    return max(1, min(4 * get_num_threads(), (n_rows + 15) // 16))


@njit(cache=True, inline="always")
def loss_from_terms(total, best, true_term, true_mant, true_shift, yt, kind):
    """Loss of one row from its per-class scores, all divided by one common factor: the
    one formula of every row loss of the library (they differ only in how they scale a
    class's score into its term).

    ``total`` is the sum of the terms (any positive value for the zero-one loss), ``best``
    the first class of the largest term, ``true_term`` the true class's term; the true
    class's term is also ``true_mant * exp(-true_shift)``, which the log loss reads so that
    it stays finite however small the term.  rmse: (1 - P(y_t | x))^2 (Chen et al. 2014,
    §3.3, the SWAODE paper (2024) RMSE equation; the root of the mean is taken by the
    caller); zero_one: argmax (first maximum) != y_t; log_loss: -log P(y_t | x).  No class
    with a positive term: 1 (infinite log loss).
    """
    if not total > 0.0:
        return 1.0 if kind != LOSS_LOG else np.inf
    if kind == LOSS_ZERO_ONE:
        return 0.0 if best == yt else 1.0
    if kind == LOSS_RMSE:
        err = 1.0 - true_term / total
        return err * err
    if true_mant <= 0.0:
        return np.inf
    return math.log(total) - math.log(true_mant) + true_shift


@njit(cache=True, inline="always")
def row_loss(score, k, yt, kind):
    """Loss of one row from its per-class log joint scores (:func:`loss_from_terms` of the
    terms exp(score[y] - max score))."""
    top = -np.inf
    best = 0
    for yy in range(k):
        if score[yy] > top:
            top = score[yy]
            best = yy
    if top == -np.inf:
        return loss_from_terms(0.0, best, 0.0, 0.0, 0.0, yt, kind)
    total = 1.0
    if kind != LOSS_ZERO_ONE:
        total = 0.0
        for yy in range(k):
            total += math.exp(score[yy] - top)
    return loss_from_terms(total, best, math.exp(score[yt] - top), 1.0, top - score[yt], yt,
                           kind)


@njit(cache=True, inline="always")
def scaled_row_loss(top, scale, k, yt, kind):
    """:func:`row_loss` of the scores top[y] + log(scale[y]) (:func:`loss_from_terms` of
    the terms scale[y] exp(top[y] - t), t the largest top of a positive scale)."""
    t = -np.inf
    for yy in range(k):
        if scale[yy] > 0.0 and top[yy] > t:
            t = top[yy]
    total = 0.0
    best = 0
    best_e = -1.0
    e_true = 0.0
    if t > -np.inf:
        for yy in range(k):
            e = scale[yy] * math.exp(top[yy] - t) if scale[yy] > 0.0 else 0.0
            total += e
            if e > best_e:
                best_e = e
                best = yy
            if yy == yt:
                e_true = e
    return loss_from_terms(total, best, e_true, scale[yt], t - top[yt], yt, kind)


def mean_loss(loss_sum, total_weight, loss):
    """Mean loss from a weighted sum of per-row losses (the root of the mean for RMSE)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.asarray(loss_sum, dtype=np.float64) / max(total_weight, 1e-300)
    return np.sqrt(mean) if loss == "rmse" else mean


def argmin_first(values, tolerance=1e-12):
    """Index (in C order) of the first entry within a relative ``tolerance`` of the minimum
    of the finite entries, or None when there is none."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = np.isfinite(flat)
    if not finite.any():
        return None
    best = flat[finite].min()
    close = finite & (flat <= best + tolerance * max(abs(best), 1e-300))
    return int(np.flatnonzero(close)[0])
