"""The frequency-table engine: counts, add/remove, merge, grow, memory estimate, layout."""

import itertools

import numpy as np
import pytest

from seminaive import FrequencyTable, TableTooLargeError, estimate_table_bytes

N_VALUES = np.array([2, 3, 2, 4, 3, 2])
K = 3


def _data(rows, seed):
    rng = np.random.default_rng(seed)
    # storage codes: 0 = missing, 1..v = values
    X = np.column_stack([rng.integers(0, v + 1, rows) for v in N_VALUES]).astype(np.uint8)
    y = rng.integers(0, K, rows)
    return X, y


def _brute_force(X, y, members, weights=None):
    shape = [int(N_VALUES[m]) + 1 for m in members] + [K]
    ref = np.zeros(shape)
    w = np.ones(len(y)) if weights is None else weights
    for r in range(len(y)):
        ref[tuple(X[r, list(members)]) + (y[r],)] += w[r]
    return ref


@pytest.mark.parametrize("max_order", [1, 2, 3, 4, 6])
def test_counts_equal_brute_force(max_order):
    X, y = _data(300, 0)
    table = FrequencyTable(N_VALUES, K, max_order).add(X, y)
    for d in range(max_order + 1):
        for members in itertools.combinations(range(len(N_VALUES)), d):
            np.testing.assert_array_equal(table.block(members), _brute_force(X, y, members))


def test_weighted_counts_and_remove():
    X, y = _data(200, 1)
    w = np.random.default_rng(2).uniform(0.1, 3.0, len(y))
    table = FrequencyTable(N_VALUES, K, 3).add(X, y, w)
    for members in [(0,), (1, 4), (0, 2, 5)]:
        np.testing.assert_allclose(table.block(members), _brute_force(X, y, members, w))
    full = FrequencyTable(N_VALUES, K, 3).add(X, y)
    full.remove(X[:50], y[:50])
    rest = FrequencyTable(N_VALUES, K, 3).add(X[50:], y[50:])
    np.testing.assert_array_equal(full.counts, rest.counts)
    assert full.n_rows == rest.n_rows == 150


def test_merge_equals_counting_everything():
    X, y = _data(400, 3)
    whole = FrequencyTable(N_VALUES, K, 3).add(X, y)
    parts = [FrequencyTable(N_VALUES, K, 3).add(X[i::3], y[i::3]) for i in range(3)]
    merged = parts[0].merge(parts[1]).merge(parts[2])
    np.testing.assert_array_equal(merged.counts, whole.counts)
    assert merged.n_rows == 400


def test_grow_keeps_counts_and_merges_different_value_sets():
    X, y = _data(300, 4)
    small = N_VALUES.copy()
    small[[1, 3]] -= 1
    keep = (X[:, 1] <= small[1]) & (X[:, 3] <= small[3])
    grown = FrequencyTable(small, K, 3).add(X[keep], y[keep]).grow(N_VALUES)
    direct = FrequencyTable(N_VALUES, K, 3).add(X[keep], y[keep])
    np.testing.assert_array_equal(grown.counts, direct.counts)
    # merging a table with fewer values grows it first
    other = FrequencyTable(small, K, 3).add(X[keep], y[keep])
    both = FrequencyTable(N_VALUES, K, 3).add(X[~keep], y[~keep]).merge(other)
    np.testing.assert_array_equal(both.counts, FrequencyTable(N_VALUES, K, 3).add(X, y).counts)
    with pytest.raises(ValueError, match="only enlarges"):
        grown.grow(small)


def test_memory_estimate_is_exact():
    X, y = _data(50, 5)
    table = FrequencyTable(N_VALUES, K, 3).add(X, y)
    estimate = estimate_table_bytes(N_VALUES, K, 3)
    assert estimate["counts"] == table.counts.nbytes
    logs = table.log_tables(2)
    assert estimate["log_tables"] == logs.log_joint.nbytes + logs.log_conditional.nbytes


def test_budget_refused_before_allocating():
    # 60 attributes x 10 values, order 4: ~ 2.4e9 cells; refused instantly
    with pytest.raises(TableTooLargeError, match="smaller n"):
        FrequencyTable(np.full(60, 10), 2, 4, max_table_bytes=2**30)


def test_combination_index_round_trip():
    table = FrequencyTable(N_VALUES, K, 3)
    for g in range(table.orders.size):
        d = table.orders[g]
        assert table.combination_index(table.combos[g, :d]) == g
    # sub-combination index: combination without member p
    for g in range(table.order_first[1], table.orders.size):
        d = table.orders[g]
        for p in range(d):
            rest = [m for i, m in enumerate(table.combos[g, :d]) if i != p]
            assert table.sub_index[g, p] == table.combination_index(rest)


def test_log_tables_follow_m_estimate_formula():
    X, y = _data(300, 6)
    table = FrequencyTable(N_VALUES, K, 2).add(X, y)
    logs = table.log_tables(1, smoothing="m_estimate", m=2.0)
    # P(x_3 = v | y, x_1 = u) = (N(y, u, v) + m / |X_3|) / (N(y, u) - N(y, u, x_3 missing) + m)
    block = table.block((1, 3))
    g = table.combination_index((1, 3))
    lc = logs.log_conditional[logs.lc_offsets[g]: logs.lc_offsets[g + 1]]
    lc = lc.reshape(N_VALUES[1] + 1, N_VALUES[3] + 1, 2, K)  # (x1, x3, member, class)
    for u in range(1, N_VALUES[1] + 1):
        for v in range(1, N_VALUES[3] + 1):
            for c in range(K):
                den = block[u, 1:, c].sum() + 2.0
                expect = np.log((block[u, v, c] + 2.0 / N_VALUES[3]) / den)
                assert lc[u, v, 1, c] == pytest.approx(expect, rel=1e-13)
        assert np.all(lc[u, 0, 1, :] == 0.0)  # a missing child is left out
