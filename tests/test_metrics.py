"""Metrics: hand-computed values and comparisons with scikit-learn."""

import time

import numpy as np
import pytest
from sklearn import metrics as skm

from seminaive.metrics import (
    Timer,
    auc,
    kohavi_wolpert,
    log_loss,
    per_instance,
    rmse,
    rmse_all_classes,
    timed,
    zero_one_loss,
)


def _random_proba(rng, n, k):
    p = rng.random((n, k)) + 0.01
    return p / p.sum(axis=1, keepdims=True)


def test_zero_one_loss():
    assert zero_one_loss([1, 2, 3, 4], [1, 0, 3, 0]) == 0.5
    assert zero_one_loss(["a", "b"], ["a", "b"]) == 0.0


def test_rmse_hand_computed():
    proba = np.array([[0.8, 0.1, 0.1], [0.2, 0.2, 0.6], [0.5, 0.5, 0.0]])
    y = ["a", "c", "b"]
    classes = ["a", "b", "c"]
    # true-class probabilities 0.8, 0.6, 0.5 -> squared errors 0.04, 0.16, 0.25
    assert rmse(y, proba, classes) == pytest.approx(np.sqrt(0.45 / 3))
    # all classes: row sums 0.04+0.01+0.01, 0.04+0.04+0.16, 0.25+0.25+0
    assert rmse_all_classes(y, proba, classes) == pytest.approx(np.sqrt(0.8 / 9))


def test_unsorted_classes_and_unknown_label():
    proba = np.array([[0.3, 0.7], [0.9, 0.1]])
    # columns in the order ("z", "a")
    assert rmse(["a", "z"], proba, ["z", "a"]) == pytest.approx(np.sqrt((0.09 + 0.01) / 2))
    with pytest.raises(ValueError, match="not in classes"):
        rmse(["q", "z"], proba, ["z", "a"])
    with pytest.raises(ValueError, match="shape"):
        rmse(["a"], proba, ["z", "a"])


def test_rmse_variants_coincide_for_two_classes_and_match_brier():
    rng = np.random.default_rng(0)
    proba = _random_proba(rng, 50, 2)
    y = rng.integers(0, 2, 50)
    assert rmse(y, proba, [0, 1]) == pytest.approx(rmse_all_classes(y, proba, [0, 1]))
    assert rmse_all_classes(y, proba, [0, 1]) ** 2 == pytest.approx(
        skm.brier_score_loss(y, proba[:, 1]))


def test_rmse_all_classes_is_scaled_multiclass_brier():
    rng = np.random.default_rng(1)
    proba = _random_proba(rng, 60, 4)
    y = rng.integers(0, 4, 60)
    y[:4] = [0, 1, 2, 3]
    brier = np.mean(((np.eye(4)[y] - proba) ** 2).sum(axis=1))
    assert rmse_all_classes(y, proba, np.arange(4)) ** 2 * 4 == pytest.approx(brier)
    assert skm.brier_score_loss(y, proba, labels=np.arange(4)) == pytest.approx(brier)


def test_log_loss_matches_sklearn():
    rng = np.random.default_rng(2)
    proba = _random_proba(rng, 40, 3)
    y = np.array(["x", "y", "z"])[rng.integers(0, 3, 40)]
    assert log_loss(y, proba, ["x", "y", "z"]) == pytest.approx(
        skm.log_loss(y, proba, labels=["x", "y", "z"]))
    # clipping at eps
    assert log_loss(["x"], np.array([[0.0, 0.5, 0.5]]), ["x", "y", "z"], eps=1e-10) == \
        pytest.approx(-np.log(1e-10))


def test_binary_auc_matches_sklearn_with_ties():
    rng = np.random.default_rng(3)
    p1 = np.round(rng.random(80), 1)  # many ties
    proba = np.column_stack([1 - p1, p1])
    y = np.where(rng.random(80) < p1, "pos", "neg")
    # classes sorted: "neg", "pos" -> the positive class is "pos"
    assert auc(y, proba, ["neg", "pos"]) == pytest.approx(
        skm.roc_auc_score(y == "pos", p1))


def test_binary_auc_hand_computed():
    # positives scored 0.9, 0.4; negatives 0.4, 0.1 -> pairs: (0.9>0.4)=1, (0.9>0.1)=1,
    # (0.4=0.4)=1/2, (0.4>0.1)=1 -> 3.5 / 4
    proba = np.array([[0.1, 0.9], [0.6, 0.4], [0.6, 0.4], [0.9, 0.1]])
    assert auc([1, 1, 0, 0], proba, [0, 1]) == pytest.approx(0.875)


def test_multiclass_auc_matches_sklearn_ovo():
    rng = np.random.default_rng(4)
    for k in (3, 5):
        proba = _random_proba(rng, 120, k)
        y = np.array([rng.choice(k, p=row) for row in proba])
        ours = auc(y, proba, np.arange(k))
        sk = skm.roc_auc_score(y, proba, multi_class="ovo", average="macro",
                               labels=np.arange(k))
        assert ours == pytest.approx(sk)


def test_multiclass_auc_hand_computed():
    # one row per class; perfect separation on every pair except (0, 1):
    proba = np.array([[0.5, 0.4, 0.1],   # class 0
                      [0.6, 0.3, 0.1],   # class 1
                      [0.1, 0.1, 0.8]])  # class 2
    # pair (0,1): A(0|1) by P(0|x): class-0 row 0.5 < class-1 row 0.6 -> 0;
    #             A(1|0) by P(1|x): class-1 row 0.3 < class-0 row 0.4 -> 0  => 0
    # pairs (0,2) and (1,2): all 1  => M = (0 + 1 + 1) / 3
    assert auc([0, 1, 2], proba, [0, 1, 2]) == pytest.approx(2 / 3)


def test_multiclass_auc_skips_absent_classes():
    proba = np.array([[0.5, 0.4, 0.1], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.8, 0.1, 0.1]])
    y = [0, 1, 1, 0]  # class 2 absent: only pair (0, 1)
    a01 = skm.roc_auc_score([1, 0, 0, 1], proba[:, 0])
    a10 = skm.roc_auc_score([0, 1, 1, 0], proba[:, 1])
    assert auc(y, proba, [0, 1, 2]) == pytest.approx((a01 + a10) / 2)
    assert np.isnan(auc([0, 0], proba[:2], [0, 1, 2]))


def test_kohavi_wolpert_constant_wrong_predictor():
    y = np.array([0, 1, 2, 0])
    pred = np.array([[1, 1, -1], [0, -1, 0], [1, 1, 1], [2, -1, 2]])
    out = kohavi_wolpert(y, pred, 3)
    assert out["bias"] == pytest.approx(1.0)
    assert out["variance"] == pytest.approx(0.0)
    assert out["error"] == pytest.approx(1.0)


def test_kohavi_wolpert_half_and_half():
    # predicted 0 in two trials and 1 in two trials, true class 0:
    # bias = 1/2 ((1 - 1/2)^2 + (1/2)^2) = 1/4; variance = 1/2 (1 - 1/4 - 1/4) = 1/4
    out = kohavi_wolpert([0], [[0, 1, 0, 1]], 2)
    assert out["bias"] == pytest.approx(0.25)
    assert out["variance"] == pytest.approx(0.25)
    assert out["error"] == pytest.approx(0.5)


def test_kohavi_wolpert_skips_unpredicted_and_sums_to_error():
    rng = np.random.default_rng(5)
    n, trials, k = 200, 20, 4
    y = rng.integers(0, k, n)
    pred = rng.integers(0, k, (n, trials))
    pred[rng.random((n, trials)) < 0.5] = -1
    pred[:3] = -1  # never predicted
    out = kohavi_wolpert(y, pred, k)
    assert out["n_instances"] == n - 3
    assert out["bias"] + out["variance"] == pytest.approx(out["error"], abs=1e-12)
    # error is the mean over instances of the per-instance trial error rate
    errs = [np.mean(pred[i][pred[i] >= 0] != y[i]) for i in range(3, n)]
    assert out["error"] == pytest.approx(np.mean(errs))


def test_kohavi_wolpert_bad_input():
    with pytest.raises(ValueError, match="class indices"):
        kohavi_wolpert([0, 3], [[0], [1]], 3)
    with pytest.raises(ValueError, match="no instance"):
        kohavi_wolpert([0], [[-1, -1]], 2)
    with pytest.raises(ValueError, match="shape"):
        kohavi_wolpert([0, 1], [0, 1], 2)


def test_timers():
    result, seconds = timed(sorted, [3, 1, 2])
    assert result == [1, 2, 3] and seconds >= 0
    with Timer() as t:
        time.sleep(0.001)
    assert t.seconds > 0
    assert per_instance(2.0, 4) == 0.5
    assert np.isnan(per_instance(1.0, 0))
