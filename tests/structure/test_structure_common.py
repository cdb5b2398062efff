"""Shared parts of the structure learners (seminaive/structure/_common.py, the pair kernels,
tables.CombinationTable) against direct NumPy counting; helpers for the other
test_structure_*.py files."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from seminaive import TableTooLargeError
from seminaive.structure._common import PairStatistics, check_parents
from seminaive.structure._sparse import build_count_trees, count_keys, score_counts
from seminaive.tables import CombinationTable, FrequencyTable, storage_codes

# ------------------------------------------------------------------------------------------
# helpers (imported by the other test_structure_*.py files)
# ------------------------------------------------------------------------------------------


def random_nominal(n, n_values, n_classes, missing=0.0, seed=0, dependence=0.0):
    """Float matrix of nominal values 0..v-1 (NaN = missing) and classes; each attribute
    copies the previous one with probability ``dependence`` (so there is structure)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = np.empty((n, len(n_values)))
    for i, v in enumerate(n_values):
        col = (y + rng.integers(0, v, n) * (rng.random(n) < 0.6)) % v
        if i and dependence:
            copy = rng.random(n) < dependence
            col = np.where(copy, X[:, i - 1] % v, col)
        X[:, i] = col
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


def training_codes(model, X):
    """The storage codes the model counted for ``X``."""
    return np.asarray(storage_codes(model.encoder_.transform(X), model.table_.sizes),
                      dtype=np.int64)


def family_reference(codes, y, k, sizes, parents, row, m=1.0, laplace=False, min_count=1,
                     weights=None):
    """log P(y) + sum_i log P(x_i | y, observed parents), counted directly from the rows.

    A parent whose value is missing in ``row`` is dropped; with no observed parent, or an
    observed parent combination rarer than min_count, the child uses P(x_i | y)."""
    n = len(y)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    total = w.sum()
    out = np.empty(k)
    for c in range(k):
        n_c = w[y == c].sum()
        s = (math.log((n_c + 1) / (total + k)) if laplace
             else math.log((n_c + m / k) / (total + m)))
        for i, pa in enumerate(parents):
            xi = row[i]
            if xi == 0:
                continue
            observed = [p for p in pa if row[p] > 0]
            match = np.ones(n, dtype=bool)
            for p in observed:
                match &= codes[:, p] == row[p]
            if not observed or w[match].sum() < min_count:
                match = np.ones(n, dtype=bool)
            v = sizes[i] - 1
            num = w[match & (y == c) & (codes[:, i] == xi)].sum()
            den = w[match & (y == c) & (codes[:, i] > 0)].sum()
            s += (math.log((num + 1) / (den + v)) if laplace
                  else math.log((num + m / v) / (den + m)))
        out[c] = s
    return out


def cmi_reference(codes, y, k, i, j):
    """I(X_i; X_j | Y) from the rows in which both are observed (nats)."""
    keep = (codes[:, i] > 0) & (codes[:, j] > 0)
    a, b, c = codes[keep, i], codes[keep, j], y[keep]
    n = keep.sum()
    total = 0.0
    for va in np.unique(a):
        for vb in np.unique(b):
            for vc in range(k):
                nabc = np.sum((a == va) & (b == vb) & (c == vc))
                if nabc == 0:
                    continue
                nac = np.sum((a == va) & (c == vc))
                nbc = np.sum((b == vb) & (c == vc))
                nc = np.sum(c == vc)
                total += nabc / n * math.log(nabc * nc / (nac * nbc))
    return total


def _codes(n, sizes, k, missing, seed):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(1, s, n) for s in sizes]).astype(np.uint8)
    codes[:, 1] = np.where(rng.random(n) < 0.7, codes[:, 0] % (sizes[1] - 1) + 1, codes[:, 1])
    codes[rng.random(codes.shape) < missing] = 0
    y = ((codes[:, 0].astype(int) + rng.integers(0, 2, n)) % k).astype(np.int64)
    return codes, y


SIZES = np.array([4, 3, 5, 3])  # n_values + 1


# ------------------------------------------------------------------------------------------
# CombinationTable
# ------------------------------------------------------------------------------------------


def test_combination_table_blocks_are_transposed_frequency_blocks():
    codes, y = _codes(300, SIZES, 3, 0.1, 1)
    combos = [(3, 1, 0), (2,), (0, 3), (2, 0, 1, 3)]
    table = CombinationTable(combos, SIZES - 1, 3).add(codes, y)
    full = FrequencyTable(SIZES - 1, 3, 4).add(codes, y)
    for g, c in enumerate(combos):
        order = np.argsort(np.argsort(c))  # axis of each member in the sorted block
        expected = full.block(c).transpose(*order, len(c))
        assert_array_equal(table.block(g), expected)
    assert table.n_rows == 300


def test_combination_table_weights_grow_and_budget():
    codes, y = _codes(200, SIZES, 2, 0.0, 2)
    w = np.random.default_rng(0).random(200)
    table = CombinationTable([(1, 2)], SIZES - 1, 2).add(codes, y, w)
    ref = np.zeros((3, 5, 2))
    np.add.at(ref, (codes[:, 1], codes[:, 2], y), w)
    assert_allclose(table.block(0), ref)
    table.grow(SIZES - 1 + np.array([0, 2, 1, 0]))
    assert table.block(0).shape == (5, 6, 2)
    assert_allclose(table.block(0)[:3, :5], ref)
    assert table.block(0)[3:].sum() == 0
    with pytest.raises(TableTooLargeError, match="max_table_bytes"):
        CombinationTable([(0, 1, 2, 3)], SIZES - 1, 2, max_table_bytes=100)
    with pytest.raises(ValueError, match="distinct"):
        CombinationTable([(1, 1)], SIZES - 1, 2)


# ------------------------------------------------------------------------------------------
# Pair statistics
# ------------------------------------------------------------------------------------------


def test_pair_statistics_match_direct_counting():
    k = 3
    codes, y = _codes(400, SIZES, k, 0.15, 3)
    stats = PairStatistics(FrequencyTable(SIZES - 1, k, 2).add(codes, y))
    a = SIZES.size
    for i in range(a):
        for j in range(a):
            if i == j:
                assert stats.cmi[i, j] == 0
                continue
            assert stats.cmi[i, j] == pytest.approx(cmi_reference(codes, y, k, i, j),
                                                    rel=1e-12, abs=1e-15)
            den = stats.den_pair[stats.den_offsets[i, j]:][:SIZES[j] * k].reshape(SIZES[j], k)
            for xj in range(SIZES[j]):
                for c in range(k):
                    assert den[xj, c] == np.sum((codes[:, j] == xj) & (codes[:, i] > 0)
                                                & (y == c))
        keep = codes[:, i] > 0
        from sklearn.metrics import mutual_info_score
        assert stats.mi[i] == pytest.approx(mutual_info_score(codes[keep, i], y[keep]),
                                            rel=1e-10)
        assert_array_equal(stats.den_uni[i], np.bincount(y[keep], minlength=k))
    assert_array_equal(stats.class_counts, np.bincount(y, minlength=k))
    assert stats.cmi[0, 1] > 0.05  # the dependent pair


@pytest.mark.parametrize("per_member", [False, True])
def test_eskdb_members_read_the_ensembles_pair_statistics(monkeypatch, per_member):
    """ESKDB computes each table's pair statistics once: its members' selection passes
    read the ensemble's (shared table) or their own table's (per-member discretisation),
    not computed again; the same model as when every member computes them, and the
    members keep no reference to the handed-over statistics after the pass (a fitted
    ensemble pickles)."""
    import pickle

    from seminaive.structure import ESKDB, _common

    rng = np.random.default_rng(5)
    n = 400
    X = rng.integers(0, 3, size=(n, 5)).astype(float)
    if per_member:
        X[:, 0] = rng.normal(size=n)
    y = (X[:, 1] + (X[:, 2] > 0) + rng.integers(0, 2, size=n)) % 3
    params = dict(n_estimators=4, k=2, smoothing="hls", random_state=1,
                  categorical_features=[1, 2, 3, 4] if per_member else "all")
    built = []
    real = _common.PairStatistics.__init__

    def counting(self, table):
        built.append(id(table))
        real(self, table)

    monkeypatch.setattr(_common.PairStatistics, "__init__", counting)
    model = ESKDB(**params).fit(X, y)
    # each table's statistics built once: the ensemble's, and each member's own table's
    assert len(built) == len(set(built)) == (1 + 4 if per_member else 1)
    assert all("_stats_given" not in m.__dict__ for m in model.estimators_)
    pickle.loads(pickle.dumps(model))
    monkeypatch.setattr(_common.PairStatistics, "__init__", real)

    # the reference: every member computes its statistics itself
    from seminaive.structure import skdb

    monkeypatch.setattr(skdb.SKDB, "_stats_given", None, raising=False)
    popped = []
    real_pass = skdb.SKDB._selection_pass

    def fresh(self, source):
        popped.append(self.__dict__.pop("_stats_given", None))
        return real_pass(self, source)

    monkeypatch.setattr(skdb.SKDB, "_selection_pass", fresh)
    reference = ESKDB(**params).fit(X, y)
    assert len(popped) == 4 and all(p is not None for p in popped)
    assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_check_parents_rejects_bad_structures():
    assert_array_equal(check_parents([[1, -1], [-1, -1], [0, 1]], 3, 2),
                       [[1, -1], [-1, -1], [0, 1]])
    bad = {
        "cycle": [[1], [2], [0]],
        "self": [[0], [-1], [-1]],
        "range": [[5], [-1], [-1]],
        "padding": [[-1, 1], [-1, -1], [-1, -1]],
        "repeat": [[1, 1], [-1, -1], [-1, -1]],
    }
    for name, parents in bad.items():
        with pytest.raises(ValueError):
            check_parents(np.array(parents), 3)
            pytest.fail(name)
    with pytest.raises(ValueError, match="at most 1"):
        check_parents(np.array([[1, 2], [-1, -1], [-1, -1]]), 3, 1)


@pytest.mark.parametrize("laplace, min_count", [(False, 1), (True, 1), (False, 30)])
def test_family_kernel_matches_direct_counting(laplace, min_count):
    k = 2
    codes, y = _codes(250, SIZES, k, 0.2, 4)
    table = FrequencyTable(SIZES - 1, k, 2).add(codes, y)
    parents = np.array([[-1, -1], [0, -1], [0, 1], [1, 2]])
    chains = [[], [0], [1, 0], [2, 1]]  # any order of the parents: the same family
    multi = [(2, 1, 0), (3, 2, 1)]
    counted = dict(zip(multi, count_keys(codes, y, None, multi, table.sizes), strict=True))
    trees = build_count_trees(table, chains, parents, counted)
    stats = PairStatistics(table)
    test_codes, _ = _codes(40, SIZES, k, 0.3, 5)
    test_codes = np.ascontiguousarray(test_codes)
    out = np.empty((40, k))
    score_counts(test_codes, trees, stats.kernel_args(), 1.0, laplace, float(min_count), out)
    parent_lists = [[p for p in row if p >= 0] for row in parents]
    for r in range(40):
        ref = family_reference(codes, y, k, SIZES, parent_lists, test_codes[r],
                               laplace=laplace, min_count=min_count)
        assert_allclose(out[r], ref, rtol=1e-12)
