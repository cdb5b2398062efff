"""The frequency-table engine: counts, add/remove, merge, grow, memory estimate, layout."""

import itertools

import numpy as np
import pytest

from seminaive import FrequencyTable, TableTooLargeError, estimate_table_bytes
from seminaive.tables import _frequency as frequency_module

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


# ------------------------------------------------------------------------------------------
# The query API learners use instead of the layout arrays
# ------------------------------------------------------------------------------------------


def _small_table():
    """3 attributes (2, 3 and 2 values), 2 classes, 6 rows with two missing values."""
    from seminaive.tables import FrequencyTable

    codes = np.array([[1, 1, 1], [1, 2, 2], [2, 3, 1], [2, 0, 2], [1, 3, 0], [2, 1, 1]])
    y = np.array([0, 0, 1, 1, 0, 1])
    table = FrequencyTable([2, 3, 2], n_classes=2, max_order=3)
    table.add(codes, y)
    return table, codes, y


def test_combinations_follow_itertools_order():
    import itertools

    table, _, _ = _small_table()
    for order in range(4):
        expected = list(itertools.combinations(range(3), order))
        got = [tuple(row) for row in table.combinations(order)]
        assert got == expected
        assert table.n_combinations(order) == len(expected)
        assert [table.members(g) for g in table.combination_range(order)] == expected
    assert table.n_combinations() == 1 + 3 + 3 + 1  # every order together


def test_marginal_is_hand_counted():
    table, _, _ = _small_table()
    # attribute 0 and 1 both observed in rows 0, 1, 2, 4, 5
    marg = table.marginal([0, 1])
    expected = np.zeros((2, 3, 2))
    expected[0, 0, 0] = 1  # row 0: x0=1, x1=1, y=0
    expected[0, 1, 0] = 1  # row 1
    expected[1, 2, 1] = 1  # row 2
    expected[0, 2, 0] = 1  # row 4
    expected[1, 0, 1] = 1  # row 5
    np.testing.assert_array_equal(marg, expected)
    for g in table.combination_range(2):
        np.testing.assert_array_equal(table.observed_block_at(g),
                                      table.marginal(table.members(g)))


def test_lower_orders_are_marginals_of_higher_ones():
    table, _, _ = _small_table()
    full = table.block([0, 1, 2])  # missing slots included
    np.testing.assert_array_equal(full.sum(axis=2), table.block([0, 1]))
    np.testing.assert_array_equal(full.sum(axis=(0, 1)), table.block([2]))
    np.testing.assert_array_equal(full.sum(axis=(0, 1, 2)), table.block([]))


def test_cells_and_block_starts_locate_every_block():
    table, _, _ = _small_table()
    cells = table.cells_per_combination(3)
    assert cells.tolist() == [1, 3, 4, 3, 12, 9, 12, 36]  # sizes 3, 4, 3 with the missing slot
    assert table.cell_start(1) == 1 and table.cell_start(2) == 1 + 3 + 4 + 3
    for order in range(1, 4):
        for start, g in zip(table.block_starts(order), table.combination_range(order),
                            strict=True):
            assert table.n_cells_of(g) * 2 == table.block_at(g).size
            assert np.shares_memory(table.counts[start:], table.block_at(g))
    starts = table.pair_block_starts()
    assert starts[0, 1] == starts[1, 0] == table.block_starts(2)[0]
    assert (np.diag(starts) == -1).all()


def test_layout_bundles_the_arrays():
    table, _, _ = _small_table()
    layout = table.layout()
    assert layout.counts is table.counts and layout.n_classes == 2
    assert layout.order_first is not None and layout.sub_index is not None


def test_mutual_information_against_brute_force():
    from seminaive import statistics

    table, codes, y = _small_table()
    for i in range(3):
        keep = codes[:, i] > 0
        x, c = codes[keep, i], y[keep]
        brute = 0.0
        for v in np.unique(x):
            for k in np.unique(c):
                p = np.mean((x == v) & (c == k))
                if p > 0:
                    brute += p * np.log(p / (np.mean(x == v) * np.mean(c == k)))
        assert statistics.mutual_information(table)[i] == pytest.approx(brute, abs=1e-12)
    cmi = statistics.conditional_mutual_information(table)
    np.testing.assert_allclose(cmi, cmi.T)
    keep = (codes[:, 0] > 0) & (codes[:, 1] > 0)
    a, b, c = codes[keep, 0], codes[keep, 1], y[keep]
    brute = 0.0
    for u in np.unique(a):
        for v in np.unique(b):
            for k in np.unique(c):
                p = np.mean((a == u) & (b == v) & (c == k))
                if p > 0:
                    brute += p * np.log(p * np.mean(c == k) / (
                        np.mean((a == u) & (c == k)) * np.mean((b == v) & (c == k))))
    assert cmi[0, 1] == pytest.approx(brute, abs=1e-12)


def test_combination_table_shares_counting_and_growth():
    from seminaive.tables import CombinationTable

    _, codes, y = _small_table()
    comb = CombinationTable([(1, 0), (2,)], [2, 3, 2], 2)
    comb.add(codes, y)
    table, _, _ = _small_table()
    np.testing.assert_array_equal(comb.block(0), np.swapaxes(table.block([0, 1]), 0, 1))
    np.testing.assert_array_equal(comb.block(1), table.block([2]))
    comb.grow([3, 3, 2])
    table.grow([3, 3, 2])
    np.testing.assert_array_equal(comb.block(1), table.block([2]))
    assert comb.block(0).shape == (4, 4, 2)


def test_has_whole_counts_hand_cases():
    """One compiled pass: whole, non-negative counts whose sum stays below 2**52."""
    table = FrequencyTable([2, 3], 2, 2)
    assert table.has_whole_counts()  # empty
    table.counts[:] = np.arange(table.counts.size, dtype=np.float64)
    assert table.has_whole_counts()
    for bad in (0.5, -1.0, np.nan, np.inf):
        changed = FrequencyTable([2, 3], 2, 2)
        changed.counts[:] = table.counts
        changed.counts[3] = bad
        assert not changed.has_whole_counts(), bad
    big = FrequencyTable([2, 3], 2, 2)
    big.counts[0] = 2.0 ** 51
    assert big.has_whole_counts()
    big.counts[1] = 2.0 ** 51
    assert not big.has_whole_counts()  # the sum reaches 2**52


@pytest.mark.parametrize("buffer", [None, 8, 1000])
@pytest.mark.parametrize("max_order", [1, 2, 3])
def test_remapped_into_is_remapped_bit_for_bit(max_order, buffer, monkeypatch):
    """Every member's table read off the cumulated blocks (compiled for orders <= 2, numpy
    above) holds the counts of :meth:`FrequencyTable.remapped`, summed cell by cell; also
    when the blocks are cumulated a few at a time (``buffer`` bytes: every block alone, or
    runs of blocks)."""
    if buffer is not None:
        monkeypatch.setattr(frequency_module, "CUMULATED_BYTES", buffer)
    rng = np.random.default_rng(max_order)
    n_values = np.array([4, 1, 6, 3])
    table = FrequencyTable(n_values, 3, max_order)
    table.counts[:] = rng.integers(0, 50, size=table.counts.size)
    luts, members = [], []
    for _ in range(4):
        lut = np.zeros((n_values.size, int(n_values.max()) + 1), dtype=np.int64)
        new_values = np.zeros(n_values.size, dtype=np.int64)
        for t, n in enumerate(n_values):
            # values 1..n merged into runs: a new run starts where a coin says so
            starts = np.concatenate([[1], rng.integers(0, 2, size=n - 1)])
            lut[t, 1:n + 1] = np.cumsum(starts)
            new_values[t] = int(starts.sum())
        luts.append(lut)
        members.append((FrequencyTable(new_values, 3, max_order), new_values))
    assert table.remapped_into(luts, [m for m, _ in members])
    for lut, (member, new_values) in zip(luts, members, strict=True):
        want = table.remapped(lut, new_values)
        np.testing.assert_array_equal(member.counts, want.counts)
        assert member.n_rows == table.n_rows
    # a map that is not runs of consecutive values: refused, nothing filled
    shuffled = luts[0].copy()
    shuffled[2, 1:4] = [2, 1, 2]
    assert not table.remapped_into([shuffled], [FrequencyTable(n_values, 3, max_order)])
