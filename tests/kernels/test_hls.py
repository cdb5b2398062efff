"""Hierarchical linear smoothing (``smoothing="hls"``; Cooper, Webb & Schmidt 2025), and the
estimators' parameters read once (:class:`seminaive.kernels.smoothing.Smoothing`).

The fit is checked against a hand-solved one-node case, against a general-purpose optimiser
of the same penalised objective on random trees (brute force), and against its limits (no
rows: uniform; many rows: the frequencies; a node without rows: its ancestor's); the
learners against the trees the kernel returns, and through fit, partial_fit, streaming and
model files.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from hls_cases import SETS as STORED_SETS
from hls_cases import unpack as unpack_stored
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax

from seminaive import KDB, SKDB, TAN, AnDE
from seminaive.datasets import load_kr_vs_kp
from seminaive.kernels import hls
from seminaive.kernels.smoothing import Smoothing, pseudo_counts
from seminaive.parts import GaussianChildren

#: the Gaussian children part (the helpers it provides read the fitted model)
GAUSSIAN = GaussianChildren()


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
    assert GAUSSIAN.kappa(KDB(smoothing="laplace", m=5.0)) == 1.0
    assert GAUSSIAN.kappa(AnDE(n=1, m=2.5)) == 2.5


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


@pytest.mark.parametrize("penalty", [1.0, 0.01])
def test_many_values_converge_as_newton(penalty):
    """A child with 12 values and peaked counts, where the softmax's Hessian is far from its
    diagonal: the exact Newton step (conjugate gradients) reaches the optimum in a handful of
    iterations (the diagonal step alone took 44-46 here), and the optimum is BFGS's."""
    rng = np.random.default_rng(3)
    parent = np.array([-1, 0, 0, 0, 1, 1, 2, 2, 3, 3])
    level_start = np.array([0, 1, 4, 10])
    leaves = np.array([rng.multinomial(200, rng.dirichlet(np.full(12, 0.2)))
                       for _ in range(6)], dtype=float)
    est, iterations = hls.sparse_hls_forest([(parent, level_start, leaves)], penalty=penalty,
                                            return_iterations=True)
    assert iterations[0] <= 15
    np.testing.assert_allclose(est[0], _brute(parent, leaves, penalty), atol=2e-7)
    # a tighter tolerance moves nothing: the default one stops at the optimum
    tight = hls.sparse_hls_forest([(parent, level_start, leaves)], penalty=penalty,
                                  tol=1e-13)[0]
    np.testing.assert_allclose(est[0], tight, atol=1e-10)


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


def test_the_threads_give_the_one_thread_estimates(monkeypatch):
    """A forest above ``SERIAL_CELLS`` is fitted by the threads, one below in one thread:
    the estimates, iterations and penalties are the same either way."""
    rng = np.random.default_rng(3)
    parent = np.array([-1, 0, 0, 1, 1, 2, 2, 2])
    level_start = np.array([0, 1, 3, 8])
    trees = [(parent, level_start, rng.poisson(2.0, size=(5, 2 + j % 4)).astype(float))
             for j in range(9)]
    one = hls.sparse_hls_forest(trees, return_iterations=True, return_penalties=True)
    monkeypatch.setattr(hls, "SERIAL_CELLS", 0)
    threads = hls.sparse_hls_forest(trees, return_iterations=True, return_penalties=True)
    dense = [(rng.poisson(1.0, size=(6, 2 + j % 3)).astype(float), [2, 3]) for j in range(7)]
    dense_threads = hls.hls_forest(dense)
    monkeypatch.setattr(hls, "SERIAL_CELLS", 10**9)
    for a, b in zip(hls.hls_forest(dense), dense_threads, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(one[0], threads[0], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(one[1], threads[1])
    np.testing.assert_array_equal(one[2], threads[2])


def test_thread_shares_are_the_plain_greedy_shares():
    """:func:`.hdp.thread_shares` (a heap of the threads' loads, one share without a loop
    under the cut) gives the shares of the plain greedy loop it replaced: every tree, largest
    first, to the first least loaded thread; ties included."""
    from seminaive.kernels.hdp import thread_shares

    def plain(costs, threads):
        threads = max(1, min(threads, len(costs)))
        load = np.zeros(threads)
        shares = [[] for _ in range(threads)]
        for j in np.argsort(-np.asarray(costs, dtype=np.float64), kind="stable"):
            w = int(np.argmin(load))
            shares[w].append(int(j))
            load[w] += costs[j]
        return ([j for share in shares for j in share],
                np.cumsum([0] + [len(share) for share in shares]).tolist())

    rng = np.random.default_rng(5)
    for n, threads in ((1, 2), (7, 2), (40, 3), (25, 8), (6, 1)):
        for costs in (rng.integers(1, 4, size=n).astype(float).tolist(),
                      rng.random(n).tolist(), [2.0] * n):
            order, start = thread_shares(costs, n_threads=threads)
            assert (order.tolist(), start.tolist()) == plain(costs, threads)
            assert order.dtype == np.int64 and start.dtype == np.int64
            order, start = thread_shares(costs, n_threads=threads, serial=sum(costs))
            assert (order.tolist(), start.tolist()) == plain(costs, 1)
    order, start = thread_shares([], n_threads=2)
    assert order.tolist() == [] and start.tolist() == [0, 0]


def test_hls_and_hdp_share_the_forest_layout():
    """Both kernels flatten their trees with :func:`.hdp.forest_layout`: the same layout,
    whole counts as int64 for the sampler, weights as they are for HLS."""
    from seminaive.kernels.hdp import forest_layout

    parent = np.array([-1, 0, 0])
    level_start = np.array([0, 1, 3])
    trees = [(parent, level_start, np.array([[2.0, 1.0], [0.0, 3.0]])),
             (np.array([-1]), np.array([0, 1]), np.array([[1.0, 0.0, 4.0]]))]
    whole, _, _ = forest_layout(trees, what="x", need=0)
    weights, _, _ = forest_layout(trees, what="x", need=0, whole=False, cost=hls._fit_cost)
    assert whole.leaves.dtype == np.int64 and weights.leaves.dtype == np.float64
    for a, b in zip(whole, weights, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(whole.node_offsets, [0, 3, 4])
    np.testing.assert_array_equal(whole.out_offsets, [0, 6, 9])
    np.testing.assert_array_equal(whole.level_starts, [[0, 1, 3], [0, 1, 0]])
    with pytest.raises(ValueError, match="whole-number"):
        forest_layout([(parent, level_start, np.array([[0.5, 1.0], [0.0, 3.0]]))],
                      what="x", need=0)
    with pytest.raises(ValueError, match="finite"):
        hls.sparse_hls_forest([(np.array([-1]), np.array([0, 1]),
                                np.array([[np.inf, 1.0]]))])


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


def test_dense_forest_in_one_kernel_is_the_per_tree_sparse_fit():
    """:func:`hls.hls_forest` builds every tree's occurring nodes and fills the dense
    estimates for the whole forest in one kernel each: bit-identical to the per-tree way
    (:func:`.hdp.sparse_from_dense`, :func:`hls.sparse_hls_forest`, :func:`.hdp._fill_dense`),
    on trees of depths 0 to 3, sparse and dense counts, several numbers of values."""
    from seminaive.kernels.hdp import _fill_dense, sparse_from_dense, tree_levels

    rng = np.random.default_rng(17)
    trees = []
    for j, dims in enumerate([[], [3], [2, 4], [3, 1, 2], [2, 3, 2], [5], [4, 2]]):
        V = 2 + j % 3
        counts = rng.poisson(0.3 + j % 4, size=(int(np.prod(dims)), V)).astype(float)
        counts[rng.random(counts.shape[0]) < 0.4] = 0.0  # leaves without rows
        if j == 1:
            counts[:] = 0.0  # a tree without any row
        trees.append((counts * (0.5 if j == 4 else 1.0), dims))
    sparse, layout = [], []
    for counts, d in trees:
        dims = np.asarray(d, dtype=np.int64)
        index, parent, level_start, _ = sparse_from_dense(
            (counts > 0).astype(np.int64), dims, dims.size)
        sparse.append((parent, level_start, counts[index[-counts.shape[0]:] >= 0]))
        layout.append((index, dims, int(tree_levels(dims).sum())))
    for kwargs in ({}, {"penalty": 2.0}):
        want = []
        for est, (index, dims, n_rows) in zip(hls.sparse_hls_forest(sparse, **kwargs), layout,
                                              strict=True):
            dense = np.empty((n_rows, est.shape[1]))
            _fill_dense(index, dims, dims.size, est, dense)
            want.append(dense)
        got = hls.hls_forest(trees, **kwargs)
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="expected 6"):
        hls.hls_forest([(np.zeros((5, 2)), [2, 3])])
    with pytest.raises(ValueError, match="non-negative"):
        hls.hls_forest([(-np.ones((2, 2)), [2])])
    assert hls.hls_forest([]) == []


def test_bad_trees_are_refused():
    with pytest.raises(ValueError, match="do not match"):
        hls.sparse_hls_forest([(np.array([-1, 0]), np.array([0, 1, 2]), np.zeros((3, 2)))])
    with pytest.raises(ValueError, match="non-negative"):
        hls.sparse_hls_forest([(np.array([-1]), np.array([0, 1]), -np.ones((1, 2)))])
    with pytest.raises(ValueError, match="penalty"):
        hls.sparse_hls_forest([], penalty=0.0)


def _deep_tree():
    """root -> 3 -> 5 -> 9 nodes, and the level of every node."""
    parent = np.array([-1, 0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 6, 7, 8, 8])
    level_start = np.array([0, 1, 4, 9, 18])
    return parent, level_start, np.repeat(np.arange(4), np.diff(level_start))


def test_factored_tree_solve_is_the_dense_preconditioner_solve():
    """The preconditioner, factored once (:func:`hls._tree_factor`) and solved for two
    right-hand sides (:func:`hls._tree_solve`): every value's solve is the dense
    (X^T diag(a_v) X + diag(lambda))^-1 r_v, X the leaves' design matrix, then centred at
    every node; the factor is not changed by a solve."""
    rng = np.random.default_rng(5)
    parent, _, level = _deep_tree()
    n, V, n_leaf = len(parent), 4, 9
    pen = np.array([1.0, 0.3, 2.5, 40.0])
    a = np.zeros((n, V))
    a[n - n_leaf:] = rng.uniform(0.0, 30.0, size=(n_leaf, V))
    X = _design(parent, n_leaf)
    inv, wb, s = np.empty((n, V)), np.empty((n, V)), np.empty((n, V))
    hls._tree_factor(parent, level, pen, a, inv)
    for _ in range(2):
        r = rng.normal(size=(n, V))
        hls._tree_solve(parent, level, pen, inv, r, wb, s)
        want = np.column_stack([
            np.linalg.solve(X.T @ np.diag(a[n - n_leaf:, v]) @ X + np.diag(pen[level]), r[:, v])
            for v in range(V)])
        want -= want.mean(axis=1, keepdims=True)
        np.testing.assert_allclose(s, want, rtol=1e-11, atol=1e-12)


def _path_matrix(parent):
    """P[q, j] = 1 where node j is on node q's path from the root (q's path sum: P beta)."""
    n = len(parent)
    P = np.zeros((n, n))
    for q in range(n):
        j = q
        while j >= 0:
            P[q, j] = 1.0
            j = parent[j]
    return P


@pytest.mark.parametrize("shape", ["deep", "root"])
def test_exact_leaf_preconditioner_is_its_dense_solve(shape):
    """The Newton fit's preconditioner, factored once (:func:`hls._tree_factor_exact`) and
    solved for two right-hand sides (:func:`hls._tree_solve_exact`), against its dense
    definition: in the path sums, the exact Hessian (the leaves' n (diag(p) - p p^T), the
    penalties on every node's difference from its parent) plus, at every leaf's parent,
    lambda^2 times the off-diagonal part of the inverse of the leaf's block (what the
    elimination drops); in the coefficients P^T M P (P the path matrix), solved densely,
    then centred at every node.  The dense M is symmetric positive definite; a tree of one
    node is solved exactly (M = the Hessian)."""
    rng = np.random.default_rng(11)
    if shape == "deep":
        parent, _, level = _deep_tree()
        pen = np.array([1.0, 0.3, 2.5, 40.0])
        n_leaf = 9
    else:
        parent, level, pen, n_leaf = np.array([-1]), np.array([0]), np.array([0.7]), 1
    n, V = len(parent), 5
    leaf_first = n - n_leaf
    prob = rng.dirichlet(np.ones(V) * 0.5, size=n_leaf)
    rows = np.zeros(n)
    rows[:n_leaf] = rng.uniform(0.5, 200.0, size=n_leaf)
    lam = pen[level]
    # the Hessian in the path sums, value-major blocks per node
    H = np.zeros((n * V, n * V))
    blk = lambda q: slice(q * V, (q + 1) * V)  # noqa: E731
    eye = np.eye(V)
    for q in range(n):
        H[blk(q), blk(q)] += lam[q] * eye
        if q > 0:
            p = parent[q]
            H[blk(p), blk(p)] += lam[q] * eye
            H[blk(q), blk(p)] -= lam[q] * eye
            H[blk(p), blk(q)] -= lam[q] * eye
    M = H.copy()
    for i in range(n_leaf):
        q = leaf_first + i
        A = rows[i] * (np.diag(prob[i]) - np.outer(prob[i], prob[i]))
        H[blk(q), blk(q)] += A
        M[blk(q), blk(q)] += A
        if q > 0:
            K_inv = np.linalg.inv(A + lam[q] * eye)
            M[blk(parent[q]), blk(parent[q])] += lam[q] ** 2 * (K_inv - np.diag(np.diag(K_inv)))
    np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0
    if shape == "root":
        np.testing.assert_allclose(M, H, rtol=0, atol=0)
    P = np.kron(_path_matrix(parent), eye)
    M_beta = P.T @ M @ P
    inv, u, wb, s = (np.empty((n, V)) for _ in range(4))
    k = np.empty(n_leaf)
    hls._tree_factor_exact(parent, level, pen, prob, rows, inv, u, k)
    for _ in range(2):
        r = rng.normal(size=(n, V))
        hls._tree_solve_exact(parent, level, pen, inv, u, k, r, wb, s)
        want = np.linalg.solve(M_beta, r.ravel()).reshape(n, V)
        want -= want.mean(axis=1, keepdims=True)
        np.testing.assert_allclose(s, want, rtol=1e-10, atol=1e-11)


def test_one_leaf_softmax_serves_the_loss_and_the_curvature():
    """:func:`hls._leaf_softmax` writes the leaves' distributions and rows once and returns
    their log loss; :func:`hls._curvature` reads them: the gradient n p - counts and the
    scaled diagonal V / (V - 1) n p (1 - p) at the leaves, 0 elsewhere (by hand)."""
    rng = np.random.default_rng(2)
    n, V, n_leaf = 7, 3, 4
    eta = rng.normal(0.0, 2.0, size=(n, V))
    leaves = rng.integers(0, 9, size=(n_leaf, V)).astype(float)
    prob, rows = np.empty((n_leaf, V)), np.empty(n)
    loss = hls._leaf_softmax(n - n_leaf, leaves, eta, prob, rows)
    p = softmax(eta[n - n_leaf:], axis=1)
    np.testing.assert_allclose(prob, p, rtol=1e-14)
    np.testing.assert_array_equal(rows[:n_leaf], leaves.sum(axis=1))
    assert loss == pytest.approx(-np.sum(leaves * np.log(p)), rel=1e-13)
    a, b = np.full((n, V), np.nan), np.full((n, V), np.nan)
    hls._curvature(n - n_leaf, prob, rows, leaves, a, b)
    N = leaves.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(a[n - n_leaf:], 1.5 * N * p * (1 - p), rtol=1e-13)
    np.testing.assert_allclose(b[n - n_leaf:], N * p - leaves, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(a[:n - n_leaf], 0.0)
    np.testing.assert_array_equal(b[:n - n_leaf], 0.0)



def _loose_reference(parent, level, leaves, pen, beta, eta, tol, max_iter, work, rows, state):
    """The loose fits' Newton method in separate passes (:func:`hls._curvature`, the
    gradient summed up the tree, the penalty's added, :func:`hls._tree_factor` and
    :func:`hls._tree_solve`, the line search's trials as whole arrays): the contract of
    :func:`hls._loose_newton`, written plainly."""
    n, V = beta.shape
    n_leaf = leaves.shape[0]
    first = n - n_leaf
    prob = work[10][:n_leaf]
    if state[1] == 0.0:
        hls._path_sums(parent, beta, eta)
        state[0] = hls._leaf_softmax(first, leaves, eta, prob, rows)
        state[1] = 1.0
    current = hls._penalty_term(beta, pen, level) + state[0]
    lam = pen[level][:, None]
    for it in range(max_iter):
        a, g = np.empty((n, V)), np.empty((n, V))
        if state[1] == 2.0:  # the evidence update's curvature at the leaves, its gradient
            a[:] = work[0]
            a[:first] = 0.0
            g[:] = work[1]
        else:
            hls._curvature(first, prob, rows, leaves, a, g)
        state[1] = 1.0
        for q in range(n - 1, 0, -1):
            g[parent[q]] += g[q]
        r = -(g + lam * beta)
        inv, wb, z = np.empty((n, V)), np.empty((n, V)), np.empty((n, V))
        hls._tree_factor(parent, level, pen, a, inv)
        hls._tree_solve(parent, level, pen, inv, r, wb, z)
        step = np.abs(z).max()
        t, accepted = 1.0, False
        for _ in range(hls.MAX_HALVINGS):
            trial = beta + t * z
            hls._path_sums(parent, trial, eta)
            penalty = hls._penalty_term(trial, pen, level)
            data = hls._trial_softmax(first, leaves, eta, prob, rows, penalty, current)
            if penalty + data <= current:
                accepted = True
                break
            t *= 0.5
        if accepted:
            beta[:] = trial
            current = penalty + data
            state[0] = data
        else:
            hls._path_sums(parent, beta, eta)
            state[0] = hls._leaf_softmax(first, leaves, eta, prob, rows)
        if not accepted or t * step <= tol:
            return it + 1
    return max_iter + 1


@pytest.mark.parametrize("shape", ["deep", "root", "hierarchical"])
def test_loose_newton_is_its_separate_passes(shape):
    """:func:`hls._loose_newton` (its passes fused, the accepted trial swapped in) gives the
    numbers of the same steps in separate passes bit for bit (:func:`_loose_reference`),
    on the path :func:`hls.fit_tree` takes: a first fit (whole, and cut short), then the
    evidence's updates (the next step reads their curvature) and one step after each."""
    rng = np.random.default_rng(11)
    if shape == "deep":
        parent, level_start, level = _deep_tree()
        V = 5
        leaves = rng.integers(0, 12, size=(9, V)).astype(float)
        leaves[3] = 0.0  # a leaf without rows
        leaves[5, :2] = 0.0
    elif shape == "root":
        parent, level_start, V = np.array([-1]), np.array([0, 1]), 4
        leaves = np.array([[7.0, 0.0, 2.5, 1.0]])
    else:
        parent, level_start, leaves = _hierarchical_counts(3, rows=25, V=6)
        V = 6
    level = np.repeat(np.arange(len(level_start) - 1), np.diff(level_start)).astype(np.int64)
    n = len(parent)
    for first_iter in (500, 3):
        pen = np.full(len(level_start) - 1, 1.0)
        sides = []
        for fit in (hls._loose_newton, _loose_reference):
            beta, eta = np.zeros((n, V)), np.zeros((n, V))
            work = np.zeros((hls.WORK_ARRAYS - 2, n, V))
            rows, state = np.zeros(n), np.zeros(2 + leaves.shape[0])
            p = pen.copy()
            last, speed = np.zeros(p.size), np.ones(p.size)
            trace = []
            for update in range(6):
                used = fit(parent, level, leaves, p, beta, eta, 1e-4,
                           first_iter if update == 0 else 1, work, rows, state)
                trace.append((used, beta.copy(), eta.copy(), state[:2].copy(), rows.copy(),
                              work[10][:leaves.shape[0]].copy()))
                hls._evidence_update(parent, level, leaves, p, beta, eta, last, speed, work,
                                     rows, False)
                state[1] = 2.0
                trace.append((p.copy(), work[0][n - leaves.shape[0]:].copy(),
                               work[1].copy()))
            sides.append(trace)
        for got, want in zip(*sides, strict=True):
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_a_trial_stops_once_it_is_rejected():
    """:func:`hls._trial_softmax` (the line search's): below its limit, the numbers of
    :func:`hls._leaf_softmax` bit for bit; above it, a loss that already puts the trial
    above the limit, from fewer leaves (a later leaf's distribution is left unwritten)."""
    rng = np.random.default_rng(8)
    n, V, n_leaf = 40, 4, 30
    eta = rng.normal(0.0, 2.0, size=(n, V))
    leaves = rng.integers(0, 9, size=(n_leaf, V)).astype(float)
    prob, rows = np.empty((n_leaf, V)), np.empty(n)
    loss = hls._leaf_softmax(n - n_leaf, leaves, eta, prob, rows)
    penalty = 3.5
    for limit in (penalty + loss, np.inf):  # accepted: the whole loss
        p2, r2 = np.full((n_leaf, V), np.nan), np.empty(n)
        assert hls._trial_softmax(n - n_leaf, leaves, eta, p2, r2, penalty, limit) == loss
        np.testing.assert_array_equal(p2, prob)
        np.testing.assert_array_equal(r2[:n_leaf], rows[:n_leaf])
    for limit in (penalty + 0.5 * loss, penalty + loss * (1 - 1e-15), penalty):
        p2 = np.full((n_leaf, V), np.nan)
        part = hls._trial_softmax(n - n_leaf, leaves, eta, p2, np.empty(n), penalty, limit)
        assert penalty + part > limit and part <= loss
        if limit == penalty + 0.5 * loss:
            assert np.isnan(p2[-1]).all()  # stopped before the last leaf



def test_vectorised_exponential_is_within_one_unit_of_the_library():
    """:func:`hls._exp_block` (the exponentials of the leaves' softmax, vectorised): within
    one unit in the last place of the C library's exp (``math.exp``) from 0 down to where
    exp underflows, exactly 1 at 0, and 0 below -746 as the library's."""
    rng = np.random.default_rng(11)
    x = np.concatenate([-rng.exponential(3.0, 100_000), -rng.uniform(0.0, 746.0, 100_000),
                        -np.logspace(-300, np.log10(746.0), 2000),
                        [0.0, -0.0, -1e-300, -708.39, -708.4, -709.0, -744.0, -745.1,
                         -745.2, -746.0, -746.5, -800.0, -1e300]])
    got = x.copy()
    hls._exp_block(got)
    want = np.array([math.exp(v) for v in x])
    normal = want >= np.finfo(np.float64).tiny
    ulps = np.abs(got[normal].view(np.int64) - want[normal].view(np.int64))
    assert ulps.max() <= 1
    np.testing.assert_allclose(got[~normal], want[~normal], rtol=0, atol=5e-324)
    assert got[x == 0.0].tolist() == [1.0, 1.0]
    assert (got[x <= -746.0] == 0.0).all()


def test_vectorised_logarithm_is_within_one_unit_of_the_library():
    """:func:`hls._log_block` (the logarithms of the leaves' softmax sums, vectorised):
    within one unit in the last place of the C library's log (``math.log``) over every
    binade from the smallest subnormal to the largest double, around the cut at sqrt(1/2)
    and the powers of two, and exactly 0 at 1."""
    rng = np.random.default_rng(12)
    tiny = np.finfo(np.float64).tiny
    x = np.concatenate([
        rng.uniform(1.0, 30.0, 100_000),  # a softmax's sums: 1 to V
        np.exp(rng.uniform(-744.0, 709.0, 100_000)),
        rng.uniform(0.5, 2.0, 50_000),
        rng.uniform(5e-324, tiny, 20_000),  # subnormals
        rng.integers(1, 2**52, 20_000).view(np.float64),  # subnormals, every bit pattern
        np.ldexp(1.0, np.arange(-1074, 1024)),
        np.nextafter(np.ldexp(1.0, np.arange(-1073, 1024)), 0.0),
        np.sqrt(0.5) * np.ldexp(1.0, np.arange(-1000, 1000)),
        [5e-324, 1e-323, tiny, np.nextafter(tiny, 0.0), np.sqrt(0.5),
         np.nextafter(np.sqrt(0.5), 0.0), np.nextafter(np.sqrt(0.5), 1.0), np.sqrt(2.0),
         1.0, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), np.finfo(np.float64).max]])
    got = np.empty_like(x)
    hls._log_block(x, got)
    want = np.array([math.log(v) for v in x])
    ulps = np.abs(got - want) / np.spacing(np.abs(want))
    assert np.all(np.isfinite(got))
    assert ulps.max() <= 1.0, x[np.argmax(ulps)]
    assert (got[x == 1.0] == 0.0).all()
    assert np.mean(got != want) < 0.1  # mostly the library's bits


def _library_trial_softmax(leaf_first, leaves, eta, prob, rows, penalty, limit):
    """:func:`hls._trial_softmax` with the C library's exp, leaf by leaf (the kernel before
    its exponentials were vectorised), in Python."""
    V = eta.shape[1]
    total = 0.0
    for i in range(leaves.shape[0]):
        q = leaf_first + i
        hi = eta[q, 0]
        for v in range(1, V):
            hi = max(hi, eta[q, v])
        s = 0.0
        for v in range(V):
            e = math.exp(eta[q, v] - hi)
            prob[i, v] = e
            s += e
        lse = hi + math.log(s)
        scale = 1.0 / s
        n_row = 0.0
        for v in range(V):
            n_row += leaves[i, v]
            total += leaves[i, v] * (lse - eta[q, v])
            prob[i, v] *= scale
        rows[i] = n_row
        if penalty + total > limit:
            return total
    return total


@pytest.mark.parametrize("case", ["hierarchical", "deep", "many values"])
def test_fit_with_vectorised_exponentials_is_the_library_fit(case, monkeypatch):
    """:func:`hls.fit_tree` (compiled, the leaves' exponentials vectorised) against the
    same fit run in Python with the C library's exp in the line search's softmax: the
    same Newton iterations, the chosen penalties and the estimates within 1e-10
    relative."""
    rng = np.random.default_rng(5)
    if case == "hierarchical":
        parent, level_start, leaves = _hierarchical_counts(4, rows=30, V=5)
    elif case == "deep":
        parent, level_start, _ = _deep_tree()
        leaves = rng.integers(0, 15, size=(9, 7)).astype(float)
        leaves[2] = 0.0
    else:
        parent, level_start, leaves = _hierarchical_counts(6, rows=200, V=26)
    n, V = parent.size, leaves.shape[1]
    settings = hls.Settings(hls.PENALTY_START, True, hls.TOL, hls.MAX_ITER, False)
    depth = level_start.size - 1
    pen, out = np.full(depth, hls.PENALTY_START), np.empty((n, V))
    used = hls.fit_tree(parent, level_start, leaves, settings, pen, out)
    for name in ("_loose_newton", "_newton", "_leaf_softmax"):
        monkeypatch.setattr(hls, name, getattr(hls, name).py_func)
    monkeypatch.setattr(hls, "_trial_softmax", _library_trial_softmax)
    pen_lib, out_lib = np.full(depth, hls.PENALTY_START), np.empty((n, V))
    used_lib = hls.fit_tree.py_func(parent, level_start, leaves, settings, pen_lib, out_lib)
    assert used == used_lib <= hls.MAX_ITER
    np.testing.assert_allclose(pen, pen_lib, rtol=1e-10)
    np.testing.assert_allclose(out, out_lib, rtol=1e-10, atol=0)


STORED = np.load(Path(__file__).resolve().parents[1] / "data" / "hls_reference.npz")


@pytest.mark.reference
@pytest.mark.parametrize("name", STORED_SETS)
def test_fit_equals_the_stored_outputs(name):
    """Equal to the fit before its fixed costs were cut (commit 9e1dc86, ``tests/hls_cases.py``)
    on the KDB(k=3) trees of four benchmark sets: every chosen penalty, and the estimates.

    The leaves' softmax now takes one exponential per value (exp(eta - max) over their sum)
    where it took two (that sum's logarithm, then exp(eta - log-sum-exp)): the same
    distribution to an ulp or two, not the same bits.  The fit converges to the same optimum
    but may stop one Newton step earlier or later (a coefficient's move against ``TOL``, a
    line search decided at rounding level), which moves the estimates by at most a few
    ``TOL`` (1e-9) summed down the tree's levels: they are compared within 1e-8 (measured:
    2.6e-9 at most).  The penalties go through the same updates and settle at the same
    update (their path from one rounding to the next: 2e-9 at most, relative): within 1e-7,
    and those sent to the bound exactly.  Written on another machine: exp and log may round
    differently there, which these tolerances also cover."""
    forest = unpack_stored(STORED, name)
    est, _, pen = hls.sparse_hls_forest(forest, return_iterations=True, return_penalties=True)
    want = STORED[f"{name}/penalties"]
    np.testing.assert_array_equal(np.isnan(pen), np.isnan(want))
    np.testing.assert_array_equal(pen == hls.PENALTY_BOUNDS[1], want == hls.PENALTY_BOUNDS[1])
    np.testing.assert_allclose(pen, want, rtol=1e-7)
    np.testing.assert_allclose(np.concatenate([e.ravel() for e in est]),
                               STORED[f"{name}/estimates"], rtol=0, atol=1e-8)


def _dense_newton(parent, level_start, leaves, pen):
    """The optimum of the penalised objective at every level's penalty ``pen`` by Newton's
    method on the dense Hessian of all coefficients (exact solves, full steps once they
    decrease the objective), to a gradient at rounding level: every node's distribution."""
    n, V = len(parent), leaves.shape[1]
    X = _design(parent, leaves.shape[0])
    D = np.kron(X, np.eye(V))
    lam = np.repeat(np.asarray(pen, dtype=float)[np.repeat(np.arange(len(level_start) - 1),
                                                             np.diff(level_start))], V)
    N = leaves.sum(axis=1)

    def value(x):
        e = (D @ x).reshape(-1, V)
        return np.sum(N * logsumexp(e, axis=1)) - np.sum(leaves * e) + 0.5 * np.sum(lam * x * x)

    x = np.zeros(n * V)
    for _ in range(100):
        p = softmax((D @ x).reshape(-1, V), axis=1)
        g = D.T @ (N[:, None] * p - leaves).ravel() + lam * x
        if np.abs(g).max() < 1e-13 * max(1.0, N.sum()):
            break
        L = np.zeros((D.shape[0], D.shape[0]))
        for i in range(leaves.shape[0]):
            L[i * V:(i + 1) * V, i * V:(i + 1) * V] = N[i] * (np.diag(p[i]) - np.outer(p[i],
                                                                                      p[i]))
        step = np.linalg.solve(D.T @ L @ D + np.diag(lam), -g)
        t, now = 1.0, value(x)
        while t > 1e-3 and value(x + t * step) > now + 1e-12 * abs(now):
            t *= 0.5
        x = x + t * step
    return softmax(_eta(parent, x.reshape(n, V)), axis=1)


@pytest.mark.parametrize("name", [s for s in STORED_SETS if s != "segment"])
def test_fit_reaches_the_optimum_at_its_penalties(name):
    """The Newton fit after the penalties are chosen stops within ``EXACT`` x ``tol`` of
    the optimum (its gradient, over the smallest penalty, bounds the distance), where its
    line search once halved on the objective's rounding and stopped up to ~2.5e-9 short
    (housevotes): every estimate within 2e-10 of the dense Newton optimum at the chosen
    penalties."""
    forest = unpack_stored(STORED, name)
    est, pen = hls.sparse_hls_forest(forest, return_penalties=True)
    for (parent, level_start, leaves), got, p in zip(forest, est, pen, strict=True):
        want = _dense_newton(parent, level_start, leaves, p[~np.isnan(p)])
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-10)


# ------------------------------------------------------------------ the chosen penalties
def _design(parent, n_leaves):
    """The design matrix of the leaves: 1 where a node is on a leaf's path."""
    n = len(parent)
    X = np.zeros((n_leaves, n))
    for i in range(n_leaves):
        q = n - n_leaves + i
        while q >= 0:
            X[i, q] = 1.0
            q = parent[q]
    return X


def _brute_evidence(parent, level, leaves, pen, full=False):
    """The MAP coefficients (BFGS on the dense design matrix), the Laplace evidence with the
    kernel's Hessian approximation (dense log-determinants), and every level's gamma and
    sum of squares (dense inverses), at the penalties ``pen`` of the levels; ``full``: with
    the exact softmax Hessian (one dense matrix of all coefficients)."""
    n, V = len(parent), leaves.shape[1]
    X = _design(parent, leaves.shape[0])
    lam = np.asarray(pen, dtype=float)[level]
    N = leaves.sum(axis=1)

    def fun(x):
        beta = x.reshape(n, V)
        e = X @ beta
        value = (np.sum(N * logsumexp(e, axis=1)) - np.sum(leaves * e)
                 + 0.5 * np.sum(lam[:, None] * beta * beta))
        grad = X.T @ (N[:, None] * softmax(e, axis=1) - leaves) + lam[:, None] * beta
        return value, grad.ravel()

    res = minimize(fun, np.zeros(n * V), jac=True, method="BFGS",
                   options={"gtol": 1e-11, "maxiter": 20000})
    beta = res.x.reshape(n, V)
    p = softmax(X @ beta, axis=1)
    a = V / (V - 1) * N[:, None] * p * (1 - p)
    if full:
        # the design of every (node, value) coefficient, and the leaves' V x V curvature
        D = np.kron(X, np.eye(V))
        L = np.zeros((D.shape[0], D.shape[0]))
        for i in range(leaves.shape[0]):
            L[i * V:(i + 1) * V, i * V:(i + 1) * V] = N[i] * (np.diag(p[i]) - np.outer(p[i],
                                                                                      p[i]))
        H = D.T @ L @ D + np.diag(np.repeat(lam, V))
        gamma = np.zeros(len(pen))
        np.add.at(gamma, np.repeat(level, V), 1 - np.repeat(lam, V) * np.diag(np.linalg.inv(H)))
        squares = np.zeros(len(pen))
        np.add.at(squares, level, np.sum(beta * beta, axis=1))
        evidence = -res.fun + 0.5 * V * np.sum(np.log(lam)) - 0.5 * np.linalg.slogdet(H)[1]
        return softmax(_eta(parent, beta), axis=1), evidence, gamma, squares
    free = (V - 1) / V
    gamma, squares, logdet = np.zeros(len(pen)), np.zeros(len(pen)), 0.0
    for v in range(V):
        H = X.T @ np.diag(a[:, v]) @ X + np.diag(lam)
        logdet += np.linalg.slogdet(H)[1]
        np.add.at(gamma, level, free * (1 - lam * np.diag(np.linalg.inv(H))))
    np.add.at(squares, level, np.sum(beta * beta, axis=1))
    evidence = -res.fun + 0.5 * free * V * np.sum(np.log(lam)) - 0.5 * free * logdet
    return softmax(_eta(parent, beta), axis=1), evidence, gamma, squares


def _eta(parent, beta):
    eta = np.zeros_like(beta)
    for q in range(len(parent)):
        eta[q] = beta[q] + (eta[parent[q]] if q else 0.0)
    return eta


def _hierarchical_counts(seed, rows=40, V=3):
    """A root, 3 nodes of level 1 and 2 leaves under each, the distributions drawn around
    their parents' (log-scale steps of 1 and 0.6), ``rows`` rows per leaf."""
    rng = np.random.default_rng(seed)
    parent = np.array([-1, 0, 0, 0, 1, 1, 2, 2, 3, 3])
    level_start = np.array([0, 1, 4, 10])
    eta = np.zeros((10, V))
    for q in range(1, 10):
        eta[q] = eta[parent[q]] + rng.normal(0, 1.0 if q < 4 else 0.6, V)
    leaves = np.array([rng.multinomial(rows, softmax(eta[q])) for q in range(4, 10)], float)
    return parent, level_start, leaves


@pytest.mark.parametrize("evidence", ["diagonal", "full"])
@pytest.mark.parametrize("seed", [0, 1])
def test_chosen_penalties_are_the_evidence_fixed_point(seed, evidence):
    """The chosen penalties against dense linear algebra: the estimates are the MAP at
    them (BFGS), every chosen level's penalty is its gamma over its sum of squares (dense
    inverse of the Hessian), and the evidence (dense log-determinants) is no higher with
    any level's penalty halved or doubled.  ``evidence="full"``: the same with the exact
    softmax Hessian of all coefficients."""
    full = evidence == "full"
    parent, level_start, leaves = _hierarchical_counts(seed)
    est, pen = hls.sparse_hls_forest([(parent, level_start, leaves)], return_penalties=True,
                                     evidence=evidence)
    pen = pen[0]
    if not full:
        assert pen[0] == hls.PENALTY_START
    lo, hi = hls.PENALTY_BOUNDS
    assert np.all((pen[1:] > 10 * lo) & (pen[1:] < hi / 10)), pen  # chosen inside
    level = np.repeat(np.arange(3), np.diff(level_start))
    want, evidence_value, gamma, squares = _brute_evidence(parent, level, leaves, pen,
                                                           full=full)
    np.testing.assert_allclose(est[0], want, atol=2e-6)
    np.testing.assert_allclose(pen[1:], gamma[1:] / squares[1:], rtol=0.03)
    for d in (1, 2):
        for factor in (0.5, 2.0):
            other = pen.copy()
            other[d] *= factor
            assert _brute_evidence(parent, level, leaves, other,
                                   full=full)[1] <= evidence_value + 1e-9


def test_an_unknown_evidence_is_refused():
    parent, level_start, leaves = _hierarchical_counts(0)
    with pytest.raises(ValueError, match="evidence must be"):
        hls.sparse_hls_forest([(parent, level_start, leaves)], evidence="exact")


def test_chosen_penalties_invariants():
    """More rows: every leaf nearer its own frequencies; a level that adds nothing: the
    largest penalty (its nodes take their parents' distribution); no rows: uniform; the
    same tree gives the same estimates alone, twice, or among others (deterministic)."""
    parent, level_start, _ = _hierarchical_counts(0)
    rng = np.random.default_rng(3)
    freq = rng.dirichlet(np.ones(3), size=6)
    dist = [np.abs(hls.sparse_hls_forest([(parent, level_start, c * freq)])[0][4:] - freq)
            .max(axis=1) for c in (10, 100, 1000, 100000)]
    for fewer, more in zip(dist[:-1], dist[1:], strict=True):
        assert np.all(more < fewer)
    assert dist[-1].max() < 1e-3
    # leaves that copy their parents: the leaf level gets the largest penalty
    same = np.repeat(rng.dirichlet(np.ones(3), size=3) * 60, 2, axis=0)
    est, pen = hls.sparse_hls_forest([(parent, level_start, same)], return_penalties=True)
    assert pen[0, 2] == hls.PENALTY_BOUNDS[1]
    np.testing.assert_allclose(est[0][4:], est[0][parent[4:]], atol=1e-4)
    est = hls.sparse_hls_forest([(parent, level_start, np.zeros((6, 3)))])[0]
    np.testing.assert_allclose(est, 1.0 / 3.0, atol=1e-12)
    trees = [_hierarchical_counts(s)[:3] for s in range(4)]
    alone = hls.sparse_hls_forest(trees[2:3])[0]
    together = hls.sparse_hls_forest(trees)
    np.testing.assert_array_equal(together[2], alone)
    np.testing.assert_array_equal(hls.sparse_hls_forest(trees)[0], together[0])


def test_bad_penalties_are_refused():
    tree = [(np.array([-1]), np.array([0, 1]), np.ones((1, 2)))]
    for bad in (0.0, -1.0, float("nan"), float("inf"), "1"):
        with pytest.raises(ValueError, match="penalty must be None"):
            hls.sparse_hls_forest(tree, penalty=bad)
    with pytest.raises(ValueError, match="penalty must be None"):
        hls.hls_forest([(np.ones((2, 2)), [2])], penalty=-1.0)


# ------------------------------------------------------------------ the memory budget
def test_dense_bytes_count_every_node_of_every_tree():
    """:func:`hls.hls_bytes` (counted from the trees' sizes at once) against a count by
    hand of every level's rows: 24 bytes per cell of every tree and ``WORK_ARRAYS`` x 8
    per cell of the largest trees, one per thread."""
    from seminaive.kernels.hdp import tree_levels

    rng = np.random.default_rng(4)
    trees = [(np.zeros((int(np.prod(d)), int(v))), d)
             for d, v in [([], 3), ([2], 2), ([3, 4], 5), ([2, 1, 3, 2], 4), ([5], 1)]]
    for threads in (1, 2, 3, 8):
        cells = sorted(int(tree_levels(d).sum()) * c.shape[1] for c, d in trees)
        top = sum(cells[-min(threads, len(cells)):])
        assert hls.hls_bytes(trees, n_threads=threads) == 24 * sum(cells) + (
            8 * hls.WORK_ARRAYS * top)
    assert hls.hls_bytes([]) == 0
    order = rng.permutation(len(trees))
    assert hls.hls_bytes([trees[j] for j in order], n_threads=2) == hls.hls_bytes(
        trees, n_threads=2)


def test_the_budget_counts_the_estimates_before_allocating():
    """The kernels refuse one byte below what they count and accept it exactly; what they
    count holds the estimates three times (output, the learner's copy, its logarithm)."""
    from seminaive.exceptions import TableTooLargeError

    trees = [_hierarchical_counts(s)[:3] for s in range(3)]
    need = hls.sparse_hls_bytes(trees)
    cells = sum(p.size * c.shape[1] for p, _, c in trees)
    assert need >= 24 * cells
    with pytest.raises(TableTooLargeError, match="max_table_bytes"):
        hls.sparse_hls_forest(trees, max_bytes=need - 1)
    hls.sparse_hls_forest(trees, max_bytes=need)
    dense = [(np.arange(12.0).reshape(6, 2), [2, 3]), (np.ones((4, 3)), [4])]
    need = hls.hls_bytes(dense)
    assert need >= 24 * (1 + 2 + 6) * 2 + 24 * (1 + 4) * 3
    with pytest.raises(TableTooLargeError, match="max_table_bytes"):
        hls.hls_forest(dense, max_bytes=need - 1)
    hls.hls_forest(dense, max_bytes=need)


def test_the_learners_keep_hls_estimates_inside_the_budget(chess):
    """As the HDP's (tests/tables/test_memory_budget.py): KDB refused below what it keeps,
    accepted above; AnDE's table refused one byte below its counts and the estimates'
    count, accepted at it."""
    import warnings

    from seminaive.exceptions import TableTooLargeError
    from seminaive.tables import FrequencyTable

    X, y = chess
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = KDB(k=2, smoothing="hls").fit(X, y)
        kept = free.table_.nbytes + free._held_bytes()
        with pytest.raises(TableTooLargeError):
            KDB(k=2, smoothing="hls", max_table_bytes=int(kept * 0.9)).fit(X, y)
        model = KDB(k=2, smoothing="hls", max_table_bytes=3 * kept).fit(X, y)
    assert model.table_.nbytes + model._held_bytes() <= 3 * kept
    np.testing.assert_array_equal(model.predict_proba(X), free.predict_proba(X))
    rng = np.random.default_rng(0)
    table = FrequencyTable([3, 4, 3], 2, 2)
    table.add(rng.integers(1, 4, size=(200, 3)), rng.integers(0, 2, size=200))
    need = table.counts.nbytes + hls.hls_bytes(table._conditional_trees(None)[0])
    table.max_table_bytes = need - 1
    with pytest.raises(TableTooLargeError, match="max_table_bytes"):
        table.hls_tables()
    table.max_table_bytes = need
    assert np.all(np.isfinite(table.hls_tables()))


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
        AODE(smoothing="hls", numeric="gaussian").fit(X.iloc[:50], y.iloc[:50])
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
