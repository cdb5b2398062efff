"""Per-row losses of predicted class scores, shared by the leave-one-out selection kernels.

``loss`` names: ``"rmse"`` (the squared error 1 - P(y_t | x) of each row; the root of the mean
is taken over rows, Chen et al. 2014, §3.3), ``"zero_one"`` (argmax, first maximum, differs
from y_t) and ``"log_loss"`` (-log P(y_t | x)).
"""

import math

import numpy as np
from numba import get_num_threads, njit

LOSS_RMSE = 0
LOSS_ZERO_ONE = 1
LOSS_LOG = 2
LOSSES = {"rmse": LOSS_RMSE, "zero_one": LOSS_ZERO_ONE, "log_loss": LOSS_LOG}


def row_blocks(n_rows):
    """Number of row blocks for a parallel pass (a few per thread, each >= 16 rows)."""
    return max(1, min(4 * get_num_threads(), (n_rows + 15) // 16))


@njit(cache=True, inline="always")
def row_loss(score, k, yt, kind):
    """Loss of one row from its per-class log joint scores.

    rmse: (1 - P(y_t | x))^2 (Chen et al. 2014, §3.3, the SWAODE paper (2024) RMSE equation; the
    root of the mean is taken by the caller); zero_one: argmax (first maximum) != y_t; log_loss:
    -log P(y_t | x).
    """
    top = -np.inf
    best = 0
    for yy in range(k):
        if score[yy] > top:
            top = score[yy]
            best = yy
    if kind == LOSS_ZERO_ONE:
        return 0.0 if best == yt else 1.0
    if top == -np.inf:
        return 1.0 if kind == LOSS_RMSE else np.inf
    acc = 0.0
    for yy in range(k):
        acc += math.exp(score[yy] - top)
    log_post = score[yt] - top - math.log(acc)
    if kind == LOSS_RMSE:
        e = 1.0 - math.exp(log_post)
        return e * e
    return -log_post


@njit(cache=True, inline="always")
def scaled_row_loss(top, scale, k, yt, kind):
    """:func:`row_loss` of the scores top[y] + log(scale[y])."""
    t = -np.inf
    for yy in range(k):
        if scale[yy] > 0.0 and top[yy] > t:
            t = top[yy]
    if t == -np.inf:
        return 1.0 if kind != LOSS_LOG else np.inf
    total = 0.0
    best = 0
    best_e = -1.0
    e_true = 0.0
    for yy in range(k):
        e = scale[yy] * math.exp(top[yy] - t) if scale[yy] > 0.0 else 0.0
        total += e
        if e > best_e:
            best_e = e
            best = yy
        if yy == yt:
            e_true = e
    if kind == LOSS_ZERO_ONE:
        return 0.0 if best == yt else 1.0
    if kind == LOSS_RMSE:
        err = 1.0 - e_true / total
        return err * err
    if e_true <= 0.0:
        return np.inf
    return math.log(total) - math.log(e_true)


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
