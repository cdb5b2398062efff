"""Selective KDB's leave-one-out pass keeps each row's class scores as products of the
estimates, rescaled by powers of two: losses far beyond the floating-point range of a
product (hundreds of strongly dependent attributes) stay those of the logarithms."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp

from seminaive import SKDB


def _strong(n, a, k, seed):
    """``a`` ternary attributes, each equal to the class (mod 3) in 90% of the rows, and
    ``7 a / 8`` of 8 random values (every class's product falls); every 15th row's class
    then changed (scored far below the others by the other rows)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = np.where(rng.random((n, a)) < 0.9, y[:, None] % 3, rng.integers(0, 3, (n, a)))
    X = np.concatenate([X, rng.integers(0, 8, (n, a * 7 // 8))], axis=1)  # noise
    y[::15] = (y[::15] + 1) % k
    return pd.DataFrame(X.astype(str), columns=[f"x{i}" for i in range(X.shape[1])]), y


def naive_bayes_loo(X, y, order, m, loss):
    """Mean loss of naive Bayes on the first s attributes of ``order`` (s = 0..a), every row
    scored by the m-estimates of all the other rows, in logarithms (brute force)."""
    codes = np.stack([pd.Categorical(X[c]).codes for c in X.columns], axis=1)
    n, a = codes.shape
    k = int(y.max()) + 1
    sums = np.zeros(a + 1)
    for r in range(n):
        keep = np.arange(n) != r
        ny = np.bincount(y[keep], minlength=k).astype(float)
        scores = np.log(ny + m / k) - np.log(keep.sum() + m)
        losses = [_loss(scores, y[r], loss)]
        for i in order:
            values = int(codes[:, i].max()) + 1
            nxy = np.array([np.sum((codes[keep, i] == codes[r, i]) & (y[keep] == c))
                            for c in range(k)], dtype=float)
            scores = scores + np.log(nxy + m / values) - np.log(ny + m)
            losses.append(_loss(scores, y[r], loss))
        sums += losses
    mean = sums / n
    return np.sqrt(mean) if loss == "rmse" else mean


def _loss(scores, yt, loss):
    post = np.exp(scores - logsumexp(scores))
    if loss == "rmse":
        return (1.0 - post[yt]) ** 2
    if loss == "zero_one":
        return float(int(np.argmax(scores)) != yt)
    return logsumexp(scores) - scores[yt]


@pytest.mark.parametrize("loss", ["rmse", "log_loss"])
def test_losses_beyond_the_range_of_a_product(loss):
    # 300 attributes: every class's product falls below 2**-400 (rescaled in common), the
    # other classes' far below 2**-800 of the true class's (rescaled per class), and the
    # log loss of a relabelled row is in the hundreds of nats
    X, y = _strong(45, 160, 3, seed=1)
    model = SKDB(k=1, loss=loss, categorical_features="all").fit(X, y)
    expected = naive_bayes_loo(X, y, model.order_, float(model.m), loss)
    assert_allclose(model.loo_loss_[0], expected, rtol=1e-10, atol=1e-12)
    if loss == "log_loss":
        # the mean over 45 rows: the 3 relabelled rows' losses are in the hundreds of nats
        assert expected.max() > 10
