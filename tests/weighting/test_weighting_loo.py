"""Leave-one-out sub-model joints (Cerquides & de Màntaras 2005, eqs 30-32): against refitting
on t - 1 rows for every row, sub-model and class; sample weights; chunked passes; the cached
tensor."""

from itertools import combinations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import exact_log, sub_model_joint

from seminaive.sources import ArraySource
from seminaive.tables import FrequencyTable
from seminaive.weighting._kernels import STAT_LMD, STAT_LMG
from seminaive.weighting.loo import Evaluator, LeaveOneOut

N_VALUES = [2, 3, 2, 3]
K = 3


def _data(n_rows=30, seed=0, missing=0.1):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, v, n_rows) for v in N_VALUES])
    y = (X[:, 1] + rng.integers(0, 2, n_rows)) % K
    X[rng.random(X.shape) < missing] = -1
    return X, y


def _table(X, y, n, w=None):
    table = FrequencyTable(N_VALUES, K, n + 1)
    codes = np.asfortranarray((X + 1).astype(np.uint8))
    table.add(codes, y, w)
    return table, codes


def _qualifies(X, r, s, rows, min_count):
    if any(X[r, i] < 0 for i in s):
        return False
    return np.sum(np.all(X[rows][:, list(s)] == X[r, list(s)], axis=1)) >= min_count


@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("min_count", [0, 1, 2])
def test_loo_equals_refitting_without_the_row(n, smoothing, min_count):
    X, y = _data(seed=n)
    table, codes = _table(X, y, n)
    loo = LeaveOneOut(table, n, smoothing, m=1.0, min_count=min_count).log_joint(codes, y)
    parents = list(combinations(range(len(N_VALUES)), n))
    assert loo.shape == (len(y), len(parents), K)
    for r in range(len(y)):
        rest = np.delete(np.arange(len(y)), r)
        for j, s in enumerate(parents):
            if not _qualifies(X, r, s, rest, min_count):
                assert np.all(np.isnan(loo[r, j]))
                continue
            refit = sub_model_joint(X[rest], y[rest], X[r], s, N_VALUES, K, smoothing, 1.0)
            assert_allclose(loo[r, j], [exact_log(p) for p in refit], rtol=1e-12, atol=1e-12)


def _sub_model_log_joint_from_table(table, x_codes, s, n, smoothing, m):
    """log P_s(y, x) for every class from a (refitted) table's own log tables."""
    tables = table.log_tables(n, smoothing, m, 0)
    k = table.n_classes
    g = table.combination_index(s)
    cell = 0
    for i in s:
        cell = cell * table.sizes[i] + x_codes[i]
    out = tables.log_joint[table.offsets[g] + cell * k: table.offsets[g] + cell * k + k].copy()
    for c in range(table.n_attributes):
        if c in s or x_codes[c] == 0:
            continue
        members = sorted(list(s) + [c])
        h = table.combination_index(members)
        cell = 0
        for i in members:
            cell = cell * table.sizes[i] + x_codes[i]
        p = members.index(c)
        base = tables.lc_offsets[h] + (cell * len(members) + p) * k
        out += tables.log_conditional[base: base + k]
    return out


@pytest.mark.parametrize("n", [1, 2])
def test_weighted_rows_remove_min_of_weight_and_one(n):
    """A row of weight w is held out with weight min(w, 1): fractional rows are removed
    entirely, a row of integer weight w stands for w instances of which one is held out."""
    X, y = _data(seed=10 + n)
    w = np.random.default_rng(3).choice([0.0, 0.25, 0.5, 1.0, 2.0, 3.0], size=len(y))
    table, codes = _table(X, y, n, w)
    loo = LeaveOneOut(table, n, "m_estimate", m=1.0, min_count=0).log_joint(codes, y, w)
    for r in range(len(y)):
        refit = table.copy()
        refit.add(codes[r:r + 1], y[r:r + 1], np.array([-min(w[r], 1.0)]))
        for j, s in enumerate(combinations(range(len(N_VALUES)), n)):
            if any(X[r, i] < 0 for i in s):
                assert np.all(np.isnan(loo[r, j]))
                continue
            expected = _sub_model_log_joint_from_table(refit, codes[r], s, n, "m_estimate",
                                                       1.0)
            assert_allclose(loo[r, j], expected, rtol=1e-12, atol=1e-12)


def test_integer_weights_are_repeated_rows():
    X, y = _data(seed=20)
    w = np.random.default_rng(4).integers(1, 4, size=len(y)).astype(float)
    table_w, codes = _table(X, y, 1, w)
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    table_r, codes_r = _table(X[rep], y[rep], 1)
    loo_w = LeaveOneOut(table_w, 1).log_joint(codes, y, w)
    loo_r = LeaveOneOut(table_r, 1).log_joint(codes_r, y[rep])
    assert_allclose(loo_w[rep], loo_r, rtol=1e-12)


@pytest.mark.parametrize("kind", [STAT_LMG, STAT_LMD])
@pytest.mark.parametrize("n", [1, 2])
def test_chunked_passes_and_cache_equal_the_whole_data(kind, n):
    X, y = _data(n_rows=700, seed=30 + n, missing=0.05)
    w = np.random.default_rng(5).choice([0.0, 0.5, 1.0, 2.0], size=len(y))
    table, codes = _table(X, y, n, w)
    loo = LeaveOneOut(table, n, "m_estimate", 1.0, 1)
    log_alpha = np.log(np.random.default_rng(6).dirichlet(np.ones(loo.n_par)))
    whole = Evaluator(loo, ArraySource(codes, y, w, chunk_rows=10**6), kind)(log_alpha)
    chunked = Evaluator(loo, ArraySource(codes, y, w, chunk_rows=37), kind)(log_alpha)
    cache = Evaluator(loo, ArraySource(codes, y, w, chunk_rows=37), kind, cache_bytes=10**9)
    assert cache.cached and cache.n_passes == 1
    cached = cache(log_alpha)
    assert cache.n_passes == 2
    assert_allclose(chunked, whole, rtol=1e-11, atol=1e-11)
    assert_allclose(cached, whole, rtol=1e-11, atol=1e-11)
    # the kernel's statistics against numpy on the leave-one-out tensor
    L = loo.log_joint(codes, y, w)
    expected = _numpy_statistics(kind, L, y, w, log_alpha)
    assert_allclose(whole, expected, rtol=1e-10, atol=1e-10)


def _numpy_statistics(kind, L, y, w, log_alpha):
    n_par = L.shape[1]
    out = np.zeros(2 + n_par if kind == STAT_LMG else 2 + 2 * n_par)
    out[-1] = w.sum()  # the total row weight
    for r in range(len(y)):
        q = ~np.isnan(L[r, :, 0])
        if w[r] == 0 or not q.any():
            continue
        la, Lr = log_alpha[q], L[r, q]
        if kind == STAT_LMG:
            log_a = np.logaddexp.reduce(la + Lr[:, y[r]])
            log_b = np.logaddexp.reduce((la[:, None] + Lr).ravel())
            out[0] += w[r] * (log_a - log_b)
            grad = np.exp(la + Lr[:, y[r]] - log_a) - np.exp(la[:, None] + Lr - log_b).sum(1)
            out[1:-1][q] += w[r] * grad
        else:
            post = Lr[:, y[r]] - np.logaddexp.reduce(Lr, axis=1)
            log_m = np.logaddexp.reduce(la + post)
            log_s = np.logaddexp.reduce(la)
            out[0] += w[r] * (log_m - log_s)
            out[1:1 + n_par][q] += w[r] * np.exp(la + post - log_m)
            out[1 + n_par:-1][q] += w[r] * np.exp(-log_s)
    return out


def test_empty_source_and_zero_weight_rows():
    X, y = _data(seed=40)
    table, codes = _table(X, y, 1)
    loo = LeaveOneOut(table, 1)
    empty = Evaluator(loo, ArraySource(codes[:0], y[:0]), STAT_LMG)(np.zeros(4))
    assert_array_equal(empty, np.zeros(6))
    zeros = Evaluator(loo, ArraySource(codes, y, np.zeros(len(y))), STAT_LMG)(np.zeros(4))
    assert_array_equal(zeros, np.zeros(6))


@pytest.mark.parametrize("kind", [STAT_LMG, STAT_LMD])
def test_a_row_alone_strided_or_read_only_rows_give_the_rows_of_the_whole(kind):
    """Chunks the kernels take in a copy (a single row, rows sliced out of the matrix, a
    read-only matrix: copied into Fortran-ordered codes of at least two rows so that the
    kernels compile once) give exactly what the whole matrix gives for their rows."""
    X, y = _data(n_rows=40, seed=50)
    w = np.random.default_rng(7).choice([0.5, 1.0, 2.0], size=len(y))
    table, codes = _table(X, y, 1, w)
    loo = LeaveOneOut(table, 1)
    log_alpha = np.log(np.random.default_rng(8).dirichlet(np.ones(loo.n_par)))
    whole = loo.log_joint(codes, y, w)
    for r in (0, 17, len(y) - 1):
        assert_array_equal(loo.log_joint(codes[r:r + 1], y[r:r + 1], w[r:r + 1]),
                           whole[r:r + 1])
        alone = loo.statistics(kind, codes[r:r + 1], y[r:r + 1], w[r:r + 1], log_alpha)
        expected = _numpy_statistics(kind, whole[r:r + 1], y[r:r + 1], w[r:r + 1], log_alpha)
        assert_allclose(alone, expected, rtol=1e-12, atol=1e-12)
    read_only = codes.copy(order="F")
    read_only.flags.writeable = False
    for chunk, rows in ((codes[3:20], slice(3, 20)), (codes[::2], slice(None, None, 2)),
                        (np.ascontiguousarray(codes), slice(None)), (read_only, slice(None))):
        assert_array_equal(loo.log_joint(chunk, y[rows], w[rows]), whole[rows])
        assert_array_equal(loo.statistics(kind, chunk, y[rows], w[rows], log_alpha),
                           loo.statistics(kind, codes.copy(order="F")[rows].copy(order="F"),
                                          y[rows], w[rows], log_alpha))
