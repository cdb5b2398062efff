"""The per-row losses of the selection kernels: one formula (loss_from_terms), reached from
log scores (row_loss) and from scaled scores (scaled_row_loss), against hand-computed
posteriors."""

import math

import numpy as np
import pytest

from seminaive.kernels.losses import (
    LOSS_LOG,
    LOSS_RMSE,
    LOSS_ZERO_ONE,
    loss_from_terms,
    row_loss,
    scaled_row_loss,
)

POSTERIOR = np.array([0.2, 0.5, 0.3])


@pytest.mark.parametrize("yt", [0, 1, 2])
def test_row_loss_of_log_scores_is_that_of_their_posterior(yt):
    score = np.log(POSTERIOR * 1e-30)  # scores far below 0: only their differences count
    assert row_loss(score, 3, yt, LOSS_RMSE) == pytest.approx((1 - POSTERIOR[yt]) ** 2,
                                                               rel=1e-14)
    assert row_loss(score, 3, yt, LOSS_ZERO_ONE) == (0.0 if yt == 1 else 1.0)
    assert row_loss(score, 3, yt, LOSS_LOG) == pytest.approx(-math.log(POSTERIOR[yt]),
                                                              rel=1e-14)


def test_zero_one_takes_the_first_of_tied_classes():
    score = np.log(np.array([0.4, 0.4, 0.2]))
    assert row_loss(score, 3, 0, LOSS_ZERO_ONE) == 0.0
    assert row_loss(score, 3, 1, LOSS_ZERO_ONE) == 1.0


@pytest.mark.parametrize("kind", [LOSS_RMSE, LOSS_ZERO_ONE, LOSS_LOG])
def test_scaled_scores_give_the_loss_of_their_log_scores(kind):
    rng = np.random.default_rng(0)
    for _ in range(200):
        top = rng.normal(-50.0, 20.0, 4)
        scale = rng.uniform(0.0, 3.0, 4)
        scale[rng.random(4) < 0.2] = 0.0  # classes of no score
        if not (scale > 0).any():
            continue
        with np.errstate(divide="ignore"):
            score = top + np.log(scale)
        yt = int(rng.integers(4))
        expected = row_loss(score, 4, yt, kind)
        got = scaled_row_loss(top, scale, 4, yt, kind)
        # (the loss of a posterior near 1 is a difference of nearly equal numbers: equal
        # to rounding in absolute terms)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_the_log_loss_stays_finite_when_the_true_term_underflows():
    # the true class is exp(-800) times less likely: its term is 0 in double precision,
    # its log loss is 800
    assert row_loss(np.array([0.0, -800.0]), 2, 1, LOSS_LOG) == pytest.approx(800.0)
    assert scaled_row_loss(np.array([0.0, -800.0]), np.ones(2), 2, 1, LOSS_LOG) == \
        pytest.approx(800.0)
    assert scaled_row_loss(np.array([0.0, -800.0]), np.ones(2), 2, 1, LOSS_RMSE) == 1.0


@pytest.mark.parametrize("kind, expected", [(LOSS_RMSE, 1.0), (LOSS_ZERO_ONE, 1.0),
                                            (LOSS_LOG, np.inf)])
def test_no_class_with_a_score_loses_everything(kind, expected):
    assert loss_from_terms(0.0, 0, 0.0, 0.0, 0.0, 0, kind) == expected
    assert scaled_row_loss(np.zeros(3), np.zeros(3), 3, 0, kind) == expected
    assert row_loss(np.full(3, -np.inf), 3, 0, kind) == expected


def test_loss_from_terms_reads_the_true_class_on_the_terms_scale():
    # terms 1, 3 (sum 4) for classes of scores 1 * 2 ** -10 and 3 * 2 ** -10
    assert loss_from_terms(4.0, 1, 1.0, 1.0, 0.0, 0, LOSS_RMSE) == 0.75 ** 2
    assert loss_from_terms(4.0, 1, 1.0, 1.0, 0.0, 0, LOSS_ZERO_ONE) == 1.0
    assert loss_from_terms(4.0, 1, 3.0, 3.0, 0.0, 1, LOSS_ZERO_ONE) == 0.0
    # the true class's term 1 given as the mantissa 2 ** 20 with the shift 20 log 2:
    # log(total) - log(2 ** 20) + 20 log 2 = log(4)
    shift = 20 * math.log(2.0)
    assert loss_from_terms(4.0, 1, 1.0, 2.0 ** 20, shift, 0, LOSS_LOG) == pytest.approx(
        math.log(4.0), rel=1e-14)
