"""HNB against Weka 3.6.14 (tests/data/weka_structure.json) and against direct counting."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from test_structure_common import cmi_reference, random_nominal, training_codes

from seminaive import HNB, load

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURE = json.loads((DATA / "weka_structure.json").read_text())


def _frames(ds):
    cols = ds["attributes"]
    train = pd.DataFrame(ds["train_X"], columns=cols, dtype=object)
    test = pd.DataFrame(ds["test_X"], columns=cols, dtype=object)
    for c, values in zip(cols, ds["values"], strict=True):
        train[c] = pd.Categorical(train[c], categories=values)
        test[c] = pd.Categorical(test[c], categories=values)
    return train, np.asarray(ds["train_y"]), test


@pytest.mark.reference
@pytest.mark.parametrize("dataset", sorted(name for name, ds in FIXTURE["datasets"].items()
                                            if "HNB" in ds["results"]))
def test_matches_weka(dataset):
    """Weka's HNB: m-estimate with m = 1, no frequency threshold (min_count=0)."""
    ds = FIXTURE["datasets"][dataset]
    train, y, test = _frames(ds)
    model = HNB(min_count=0).fit(train, y)
    order = [list(model.classes_).index(c) for c in ds["classes"]]
    weka = np.asarray(ds["results"]["HNB"]["distributions"])
    assert_allclose(model.predict_proba(test)[:, order], weka, rtol=1e-12, atol=1e-14)


def _reference(codes, y, k, sizes, row, cmi, m, laplace, min_count):
    n, a = codes.shape

    def cond(i, c, match):
        v = sizes[i] - 1
        num = np.sum(match & (y == c) & (codes[:, i] == row[i]))
        den = np.sum(match & (y == c) & (codes[:, i] > 0))
        return (num + 1) / (den + v) if laplace else (num + m / v) / (den + m)

    out = np.empty(k)
    for c in range(k):
        n_c = np.sum(y == c)
        s = math.log((n_c + 1) / (n + k)) if laplace else math.log((n_c + m / k) / (n + m))
        for i in range(a):
            if row[i] == 0:
                continue
            used = [j for j in range(a) if j != i and row[j] > 0 and cmi[i, j] > 0
                    and np.sum(codes[:, j] == row[j]) >= min_count]
            total = sum(cmi[i, j] for j in used)
            if total > 0:
                s += math.log(sum(cmi[i, j] * cond(i, c, codes[:, j] == row[j])
                                  for j in used) / total)
            else:
                s += math.log(cond(i, c, np.ones(n, dtype=bool)))
        out[c] = s
    return out


@pytest.mark.parametrize("smoothing, min_count", [("m_estimate", 1), ("laplace", 20)])
def test_scores_match_direct_counting_with_missing_values(smoothing, min_count):
    k = 3
    X, y = random_nominal(300, [3, 2, 4, 3, 2], k, missing=0.15, seed=1, dependence=0.5)
    model = HNB(categorical_features="all", smoothing=smoothing, m=2.0,
                min_count=min_count).fit(X, y)
    codes = training_codes(model, X)
    a = codes.shape[1]
    cmi = np.array([[cmi_reference(codes, y, k, i, j) if i != j else 0.0 for j in range(a)]
                    for i in range(a)])
    assert_allclose(model.conditional_mutual_info_, cmi, rtol=1e-12, atol=1e-15)
    assert_allclose(model.weights_.sum(axis=1), 1.0)
    Xt, _ = random_nominal(30, [3, 2, 4, 3, 2], k, missing=0.3, seed=2)
    test_codes = training_codes(model, Xt)
    ours = model.joint_log_likelihood(Xt)
    for r in range(30):
        ref = _reference(codes, y, k, model.table_.sizes, test_codes[r], cmi, 2.0,
                         smoothing == "laplace", min_count)
        assert_allclose(ours[r], ref, rtol=1e-12)
    assert_allclose(model.predict_proba(Xt).sum(axis=1), 1.0)


def test_invariants_and_save_load(tmp_path):
    X, y = random_nominal(400, [3, 2, 4, 3, 2], 2, missing=0.1, seed=3, dependence=0.5)
    frame = pd.DataFrame(X).astype("category")
    full = HNB().fit(frame, y)
    inc = HNB()
    for chunk in np.array_split(np.arange(400), 4):
        inc.partial_fit(frame.iloc[chunk], y[chunk], classes=[0, 1])
    assert_allclose(full.predict_proba(frame), inc.predict_proba(frame), rtol=1e-12)
    perm = np.array([4, 2, 0, 3, 1])
    permuted = HNB().fit(frame.iloc[:, perm], y)
    assert_allclose(full.predict_proba(frame), permuted.predict_proba(frame.iloc[:, perm]),
                    rtol=1e-12)
    full.save(tmp_path / "hnb.npz")
    loaded = load(tmp_path / "hnb.npz")
    assert_allclose(loaded.weights_, full.weights_)
    assert np.array_equal(loaded.predict_proba(frame), full.predict_proba(frame))
    with pytest.raises(ValueError, match="unexpected"):
        full._set_learned_state({"parents": np.zeros(3)})
