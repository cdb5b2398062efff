"""Hierarchical linear smoothing (``smoothing="hls"``; Cooper, Webb & Schmidt 2025), and the
estimators' parameters read once (:class:`seminaive.kernels.smoothing.Smoothing`).

The fit is checked against a hand-solved one-node case, against a general-purpose optimiser
of the same penalised objective on random trees (brute force), and against its limits (no
rows: uniform; many rows: the frequencies; a node without rows: its ancestor's); the
learners against the trees the kernel returns, and through fit, partial_fit, streaming and
model files.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax

from seminaive import KDB, SKDB, TAN, AnDE
from seminaive.datasets import load_kr_vs_kp
from seminaive.kernels import hls
from seminaive.kernels.smoothing import Smoothing, pseudo_counts


# ------------------------------------------------------------------ the parameters, once
def test_pseudo_counts_by_hand():
    assert pseudo_counts(4, 2.0, False) == (0.5, 2.0)
    assert pseudo_counts(4, 2.0, True) == (1.0, 4.0)
    assert pseudo_counts(6.0, 1.0, False) == (1.0 / 6.0, 1.0)


def test_smoothing_value_object():
    assert Smoothing.from_params("m_estimate", 3).kappa == 3.0
    s = Smoothing.from_params("laplace", 3.0)
    assert s.laplace and s.kappa == 1.0 and not s.hierarchical
    assert Smoothing.from_params("hls", 1.0).hierarchical
    assert Smoothing.from_params(s, 7.0) is s
    with pytest.raises(ValueError, match="smoothing must be one of"):
        Smoothing.from_params("none", 1.0)


def test_learners_read_the_parameters_once():
    assert KDB(smoothing="laplace", m=5.0)._smoothing_spec() == ("laplace", 5.0)
    assert KDB(smoothing="laplace", m=5.0)._gaussian_kappa() == 1.0
    assert AnDE(n=1, m=2.5)._gaussian_kappa() == 2.5


# ------------------------------------------------------------------ the kernel
def _brute(parent, leaves, penalty):
    """Minimise the penalised objective of :mod:`seminaive.kernels.hls` with BFGS and an
    exact gradient; return every node's distribution."""
    n, V = len(parent), leaves.shape[1]
    first = n - leaves.shape[0]
    order = list(range(n))

    def eta_of(beta):
        eta = np.zeros_like(beta)
        for q in order:
            eta[q] = beta[q] + (eta[parent[q]] if q else 0.0)
        return eta

    def fun(x):
        beta = x.reshape(n, V)
        eta = eta_of(beta)
        e = eta[first:]
        N = leaves.sum(axis=1)
        value = np.sum(N * logsumexp(e, axis=1)) - np.sum(leaves * e)
        value += 0.5 * penalty * np.sum(beta * beta)
        resid = np.zeros((n, V))
        resid[first:] = N[:, None] * softmax(e, axis=1) - leaves
        for q in reversed(order[1:]):
            resid[parent[q]] += resid[q]
        return value, (resid + penalty * beta).ravel()

    res = minimize(fun, np.zeros(n * V), jac=True, method="BFGS",
                   options={"gtol": 1e-11, "maxiter": 10000})
    return softmax(eta_of(res.x.reshape(n, V)), axis=1)


def test_root_only_binary_by_hand():
    """One node, counts (3, 1), penalty 1: the coefficients are (c, -c) with
    4 sigmoid(2c) - 3 + c = 0, c = 0.341811919378875..., so P = sigmoid(2c)."""
    est = hls.sparse_hls_forest([(np.array([-1]), np.array([0, 1]),
                                  np.array([[3.0, 1.0]]))], penalty=1.0)[0]
    assert est[0, 0] == pytest.approx(0.664547020155281, abs=1e-9)
    assert est[0, 1] == pytest.approx(1 - 0.664547020155281, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_fit_equals_a_general_optimiser(seed):
    rng = np.random.default_rng(seed)
    # root, 2 nodes of level 1, 2 + 3 leaves
    parent = np.array([-1, 0, 0, 1, 1, 2, 2, 2])
    level_start = np.array([0, 1, 3, 8])
    V = 2 + seed % 3
    leaves = rng.integers(0, 8, size=(5, V)).astype(float)
    leaves[0, 0] += 60  # a node with many rows of one value
    penalty = [1.0, 0.3, 4.0, 1.0][seed]
    got = hls.sparse_hls_forest([(parent, level_start, leaves)], penalty=penalty)[0]
    want = _brute(parent, leaves, penalty)
    np.testing.assert_allclose(got, want, atol=2e-7)


def test_deeper_tree_equals_a_general_optimiser():
    rng = np.random.default_rng(7)
    # root -> 3 -> 5 -> 9 nodes
    parent = np.array([-1, 0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 6, 7, 8, 8])
    level_start = np.array([0, 1, 4, 9, 18])
    leaves = rng.poisson(3.0, size=(9, 4)).astype(float) * rng.integers(0, 2, size=(9, 4))
    got = hls.sparse_hls_forest([(parent, level_start, leaves)], penalty=1.0)[0]
    np.testing.assert_allclose(got, _brute(parent, leaves, 1.0), atol=2e-7)


def test_invariants_and_limits():
    parent = np.array([-1, 0, 0, 1, 2])
    level_start = np.array([0, 1, 3, 5])
    # no rows: every node uniform
    est = hls.sparse_hls_forest([(parent, level_start, np.zeros((2, 3)))])[0]
    np.testing.assert_allclose(est, 1.0 / 3.0, atol=1e-12)
    # many rows: each leaf tends to its frequencies, and distributions sum to 1
    freq = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    est = hls.sparse_hls_forest([(parent, level_start, 1e7 * freq)])[0]
    np.testing.assert_allclose(est.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(est[3:], freq, atol=1e-5)
    # a huge penalty: uniform; a node with more rows stays closer to its own frequencies
    est = hls.sparse_hls_forest([(parent, level_start, 10 * freq)], penalty=1e9)[0]
    np.testing.assert_allclose(est, 1.0 / 3.0, atol=1e-6)
    few = hls.sparse_hls_forest([(parent, level_start, 5 * freq)], penalty=1.0)[0]
    many = hls.sparse_hls_forest([(parent, level_start, 500 * freq)], penalty=1.0)[0]
    assert np.all(np.abs(many[3:] - freq) < np.abs(few[3:] - freq))


def test_dense_forest_fills_absent_nodes_with_their_ancestor():
    counts = np.zeros((6, 2))  # dims (2, 3): 2 level-1 nodes, 6 leaves
    counts[0] = [5, 1]
    counts[1] = [0, 4]
    est = hls.hls_forest([(counts, [2, 3])])[0]
    assert est.shape == (1 + 2 + 6, 2)
    # node (1,) has no rows: the root's; leaves (0, 2) and (1, *): their parent's
    np.testing.assert_allclose(est[2], est[0], atol=0)
    np.testing.assert_allclose(est[3 + 2], est[1], atol=0)
    np.testing.assert_allclose(est[3 + 3:], np.tile(est[0], (3, 1)), atol=0)
    # and the occurring nodes are the sparse fit's
    sparse = hls.sparse_hls_forest([(np.array([-1, 0, 1, 1]), np.array([0, 1, 2, 4]),
                                     counts[:2])])[0]
    np.testing.assert_allclose(est[[0, 1, 3, 4]], sparse, atol=0)


def test_bad_trees_are_refused():
    with pytest.raises(ValueError, match="do not match"):
        hls.sparse_hls_forest([(np.array([-1, 0]), np.array([0, 1, 2]), np.zeros((3, 2)))])
    with pytest.raises(ValueError, match="non-negative"):
        hls.sparse_hls_forest([(np.array([-1]), np.array([0, 1]), -np.ones((1, 2)))])
    with pytest.raises(ValueError, match="penalty"):
        hls.sparse_hls_forest([], penalty=0.0)


# ------------------------------------------------------------------ the learners
@pytest.fixture(scope="module")
def chess():
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 4)  # both classes (the file is sorted by class)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def test_kdb_hls_estimates_by_hand(chess):
    """The learner reads the trees the kernel returns (the HDP's trees, the HLS fit)."""
    X, y = chess
    model = KDB(k=2, smoothing="hls").fit(X, y)
    trees, chain, chain_len = model._hdp_tree_counts()
    est = hls.hls_forest(trees)
    codes = model._storage_codes(X.iloc[:5])
    sizes = model.table_.sizes
    want = np.tile(model._log_prior(), (5, 1))
    for i in range(X.shape[1]):
        for r in range(5):
            for yy in range(model.table_.n_classes):
                row, start, level_rows = yy, 1, model.table_.n_classes
                for p in chain[i, :chain_len[i]]:
                    start += level_rows
                    level_rows *= sizes[p]
                    row = row * sizes[p] + codes[r, p]
                want[r, yy] += math.log(est[i][start + row, codes[r, i] - 1])
    np.testing.assert_allclose(model._scores(X.iloc[:5]), want, atol=1e-10)


def test_learners_fit_chunks_and_model_files(chess, tmp_path):
    X, y = chess
    data = tmp_path / "train.parquet"
    X.assign(target=y).to_parquet(data, row_group_size=170)
    for model in (KDB(k=2, smoothing="hls"), SKDB(k=2, smoothing="hls"),
                  TAN(smoothing="hls"), AnDE(n=1, smoothing="hls")):
        proba = model.fit(X, y).predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        assert np.abs(type(model)(**{**model.get_params(), "smoothing": "m_estimate"})
                      .fit(X, y).predict_proba(X) - proba).max() > 1e-4
        if isinstance(model, (TAN, AnDE)):  # the others keep the first chunk's structure
            chunked = type(model)(**model.get_params())
            for part in np.array_split(np.arange(len(y)), 3):
                chunked.partial_fit(X.iloc[part], y.iloc[part], classes=np.unique(y))
            np.testing.assert_allclose(chunked.predict_proba(X), proba, atol=1e-12)
        streamed = type(model)(**model.get_params()).fit_stream(data, target="target",
                                                                chunk_rows=100)
        np.testing.assert_allclose(streamed.predict_proba(X), proba, atol=1e-12)
        path = tmp_path / f"{type(model).__name__}.snb"
        model.save(path)
        np.testing.assert_array_equal(type(model).load(path).predict_proba(X), proba)


def test_fractional_weights_are_taken_as_they_are(chess):
    """HLS needs no whole counts (the HDP does): weight 2 equals a repeated row, and
    fractional weights fit."""
    X, y = chess
    w = np.random.default_rng(0).integers(0, 3, size=len(y))
    rep = np.repeat(np.arange(len(y)), w)
    a = KDB(k=2, smoothing="hls").fit(X, y, sample_weight=w)
    b = KDB(k=2, smoothing="hls").fit(X.iloc[rep], y.iloc[rep])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-9)
    c = KDB(k=2, smoothing="hls").fit(X, y, sample_weight=w + 0.5)
    assert np.all(np.isfinite(c.predict_proba(X)))


def test_ande_hls_tables_are_the_kernel_leaves():
    from seminaive.tables import FrequencyTable

    rng = np.random.default_rng(0)
    X = rng.integers(1, 4, size=(300, 2))
    y = rng.integers(0, 2, size=300)
    table = FrequencyTable([3, 3], 2, 2)
    table.add(X, y)
    lc = table.hls_tables()
    g = table.combination_index((0, 1))
    block = np.diff(table.offsets) * table.orders
    lc_off = np.concatenate([[0], np.cumsum(block)])
    counts = table.block_at(g)  # (x0, x1, y)
    # child 1 under (y, x0)
    arranged = np.transpose(counts, [2, 0, 1])[..., 1:].reshape(-1, 3)
    leaf = hls.hls_forest([(arranged, [2, 4])])[0][-8:].reshape(2, 4, 3)
    view = lc[lc_off[g]:lc_off[g + 1]].reshape(4, 4, 2, 2)
    for x0 in range(4):
        for x1 in range(1, 4):
            for yy in range(2):
                assert view[x0, x1, 1, yy] == pytest.approx(np.log(leaf[yy, x0, x1 - 1]),
                                                            abs=1e-14)


def test_hls_is_refused_where_hdp_is(chess):
    from seminaive import AODE

    X, y = chess
    with pytest.raises(ValueError, match="smoothing"):
        AODE(smoothing="hls").fit(X.iloc[:50], y.iloc[:50])
    with pytest.raises(ValueError, match="smoothing='hls' is not available"):
        AnDE(n="auto", smoothing="hls").fit(X.iloc[:50], y.iloc[:50])


def test_eskdb_members_take_hls(chess, tmp_path):
    from seminaive import ESKDB

    X, y = chess
    model = ESKDB(n_estimators=2, k=2, smoothing="hls", random_state=0).fit(X, y)
    assert all(member.smoothing == "hls" for member in model.estimators_)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    model.save(tmp_path / "eskdb.snb")
    np.testing.assert_array_equal(ESKDB.load(tmp_path / "eskdb.snb").predict_proba(X), proba)
