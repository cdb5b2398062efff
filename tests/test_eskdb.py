"""ESKDB (Zhang, Petitjean & Buntine 2020): members, orders, averaging, persistence."""

import numpy as np
import pytest
from scipy.special import softmax

import seminaive
from seminaive import ESKDB, SKDB
from seminaive.datasets import load_kr_vs_kp
from seminaive.structure.eskdb import sample_orders


@pytest.fixture(scope="module")
def chess():
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 5)[:600]  # both classes (the file is sorted by class)
    return X.iloc[rows, :16].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def test_sample_orders():
    mi = np.array([0.5, 0.0, 0.2, 0.9, 0.1])
    orders = sample_orders(mi, 6, np.random.RandomState(0))
    np.testing.assert_array_equal(orders[0], [3, 0, 2, 4, 1])
    assert len({tuple(o) for o in orders}) == 6
    for o in orders:
        assert sorted(o.tolist()) == list(range(5))
        assert o[-1] == 1  # zero mutual information: never drawn, appended last
    # drawn with probability proportional to I(X_i; Y) (eight attributes: redrawing an order
    # equal to the first is rare enough not to bias the first pick)
    mi = np.array([0.3, 0.1, 0.25, 0.05, 0.2, 0.15, 0.12, 0.08])
    firsts = [sample_orders(mi, 2, np.random.RandomState(s))[1][0] for s in range(400)]
    share = np.bincount(firsts, minlength=mi.size) / 400
    np.testing.assert_allclose(share, mi / mi.sum(), atol=0.06)


def test_one_member_with_m_estimates_is_skdb(chess):
    X, y = chess
    ens = ESKDB(n_estimators=1, k=3, smoothing="m_estimate", random_state=0).fit(X, y)
    single = SKDB(k=3).fit(X, y)
    np.testing.assert_allclose(ens.predict_proba(X), single.predict_proba(X), atol=1e-12)
    member = ens.estimators_[0]
    assert (member.k_, member.n_selected_features_) == (single.k_, single.n_selected_features_)


def test_members_average_probabilities(chess):
    X, y = chess
    ens = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=1).fit(X, y)
    codes = ens._storage_codes(X)
    members = [softmax(m._scores(X, codes), axis=1) for m in ens.estimators_]
    np.testing.assert_allclose(ens.predict_proba(X), np.mean(members, axis=0), atol=1e-12)
    assert len({tuple(o) for o in ens.orders_}) == 3
    np.testing.assert_array_equal(ens.orders_[0], np.argsort(-ens.mutual_info_, kind="stable"))
    for member, order in zip(ens.estimators_, ens.orders_, strict=True):
        np.testing.assert_array_equal(member.order_, order)
        assert member.encoder_ is ens.encoder_ and member.table_ is ens.table_


def test_same_random_state_same_ensemble(chess, tmp_path):
    X, y = chess
    a = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=5).fit(X, y)
    b = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    path = tmp_path / "eskdb.snb"
    a.save(path)
    loaded = seminaive.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), a.predict_proba(X))
    np.testing.assert_array_equal(loaded.orders_, a.orders_)


def test_partial_fit_warns_on_the_second_chunk(chess):
    X, y = chess
    model = ESKDB(n_estimators=2, k=2, n_iter=30, random_state=0)
    model.partial_fit(X.iloc[:300], y.iloc[:300], classes=np.unique(y))
    orders = model.orders_.copy()
    with pytest.warns(UserWarning, match="ESKDB.partial_fit keeps the members"):
        model.partial_fit(X.iloc[300:], y.iloc[300:])
    np.testing.assert_array_equal(model.orders_, orders)
    assert model.table_.counts[: model.table_.n_classes].sum() == len(y)


def test_bad_parameters(chess):
    X, y = chess
    for bad in (dict(n_estimators=0), dict(k=-1), dict(tying="x"), dict(n_iter=0)):
        with pytest.raises(ValueError):
            ESKDB(**bad).fit(X, y)
