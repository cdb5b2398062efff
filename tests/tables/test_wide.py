"""The parent-major prediction tables and kernel (seminaive.tables.wide) against the
combination-major kernel and a brute-force reference; the ``dtype`` parameter."""

import itertools
import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose

from seminaive import A2DE, AODE, AnDE, FrequencyTable
from seminaive.tables.wide import WIDE_BLOCK_ROWS

N_VALUES = [2, 3, 4, 2, 3, 3, 2]


def _table(n, k, missing, seed, n_rows=300):
    rng = np.random.default_rng(seed)
    table = FrequencyTable(N_VALUES, k, n + 1)
    X = np.column_stack([rng.integers(1, v + 1, n_rows) for v in N_VALUES]).astype(np.uint8)
    if missing:
        X[rng.random(X.shape) < 0.1] = 0
    table.add(X, rng.integers(0, k, n_rows))
    return table


def _rows(n_rows, missing, seed):
    rng = np.random.default_rng(seed)
    low = 0 if missing else 1
    return np.column_stack([rng.integers(low, v + 1, n_rows)
                            for v in N_VALUES]).astype(np.uint8)


def _log_weights(table, n, seed):
    rng = np.random.default_rng(seed)
    n = min(n, table.max_order)
    lw = np.log(rng.random(int(table.offsets[table.order_first[n + 1]]) // table.n_classes))
    if n > 0:  # a sub-model with weight 0 is left out (order 0 has a single sub-model)
        lw[rng.random(lw.size) < 0.2] = -np.inf
    return lw


def _assert_same(old, new, atol=1e-12):
    assert np.array_equal(np.isfinite(old), np.isfinite(new))
    assert np.array_equal(old == -np.inf, new == -np.inf)
    finite = np.isfinite(old)
    np.testing.assert_allclose(new[finite], old[finite], rtol=0, atol=atol)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("missing", [False, True])
def test_parent_major_matches_combination_kernel(n, k, missing):
    table = _table(n, k, missing, seed=10 * n + k)
    X = _rows(403, missing, seed=n + 7 * k)  # not a multiple of the 4-row groups
    for min_count, aggregate in itertools.product([1, 5, 40],
                                                  ["joint", "posterior", "vote"]):
        old = table.scores(X, n, min_count=min_count, aggregate=aggregate,
                           kernel="combination")
        new = table.scores(X, n, min_count=min_count, aggregate=aggregate,
                           kernel="parent_major")
        _assert_same(old, new)
        lw = _log_weights(table, n, seed=min_count)
        old = table.scores(X, n, min_count=min_count, aggregate=aggregate, log_weights=lw,
                           kernel="combination")
        new = table.scores(X, n, min_count=min_count, aggregate=aggregate, log_weights=lw,
                           kernel="parent_major")
        _assert_same(old, new)


def _qualifying(table, X, n, min_count):
    """Per row, whether some parent combination of order n qualifies (observed, frequent)."""
    ok = np.zeros(X.shape[0], dtype=bool)
    for members in itertools.combinations(range(table.n_attributes), n):
        freq = table.block(list(members)).sum(axis=-1)
        cells = X[:, list(members)]
        observed = np.all(cells > 0, axis=1)
        ok |= observed & (freq[tuple(cells.T)] >= min_count)
    return ok


def test_rows_that_cascade_are_covered_and_match():
    table = _table(2, 2, True, seed=3)
    X = _rows(WIDE_BLOCK_ROWS + 9, True, seed=4)  # two blocks of rows
    qualifies = _qualifying(table, X, 2, min_count=40)
    assert 0 < np.count_nonzero(~qualifies) < X.shape[0]  # some rows cascade, some do not
    for aggregate in ("joint", "posterior", "vote"):
        old = table.scores(X, 2, min_count=40, aggregate=aggregate, kernel="combination")
        new = table.scores(X, 2, min_count=40, aggregate=aggregate, kernel="parent_major")
        _assert_same(old, new)
        # a row that cascades gets the A1DE scores
        a1de = table.scores(X[~qualifies], 1, min_count=40, aggregate=aggregate,
                            kernel="combination")
        _assert_same(a1de, new[~qualifies])


def _brute_force_joint(table, X, n, min_count, dropped=()):
    """AnDE joint scores by the definition (Webb et al. 2012, eq. 11), from the log tables,
    without the parent combinations ``dropped``."""
    tables = table.log_tables(n, min_count=min_count)
    k = table.n_classes
    out = np.full((X.shape[0], k), np.nan)
    for r, x in enumerate(X):
        subs = []
        for parents in itertools.combinations(range(table.n_attributes), n):
            if parents in dropped:
                continue
            g = table.combination_index(parents)
            cell = int(np.ravel_multi_index(tuple(int(x[p]) for p in parents),
                                            tuple(int(table.sizes[p]) for p in parents)))
            score = tables.log_joint[table.offsets[g] + cell * k: table.offsets[g]
                                     + (cell + 1) * k].copy()
            if np.isnan(score[0]):
                continue
            for child in range(table.n_attributes):
                if child in parents:
                    continue
                members = tuple(sorted(parents + (child,)))
                h = table.combination_index(members)
                cell_h = int(np.ravel_multi_index(tuple(int(x[c]) for c in members),
                                                  tuple(int(table.sizes[c]) for c in members)))
                p = members.index(child)
                base = tables.lc_offsets[h] + (cell_h * (n + 1) + p) * k
                score += tables.log_conditional[base: base + k]
            subs.append(score)
        if subs:
            subs = np.array(subs)
            top = subs.max(axis=0)
            out[r] = top + np.log(np.exp(subs - top).sum(axis=0)) - np.log(len(subs))
    return out


def test_parent_major_matches_brute_force():
    table = _table(2, 3, True, seed=5)
    X = _rows(37, True, seed=6)
    expected = _brute_force_joint(table, X, 2, min_count=1)
    got = table.scores(X, 2, kernel="parent_major")
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_absent_sub_combination_is_skipped():
    """A child combination member whose sub_index is -1 (its parent combination is not
    held) is left out, and a parent combination referred to by no child is not laid out."""
    table = _table(2, 2, False, seed=8)
    X = _rows(50, False, seed=9)
    dropped = (0, 1)  # the parent pair {0, 1}: absent from every triple
    g = table.combination_index(dropped)
    for h in table.combination_range(3):
        for p in range(3):
            if table.sub_index[h, p] == g:
                table.sub_index[h, p] = -1
    pm = table.parent_major(2)
    assert g not in pm.parents and pm.parents.size == table.n_combinations(2) - 1
    got = table.scores(X, 2, kernel="parent_major")
    expected = _brute_force_joint(table, X, 2, min_count=1, dropped={dropped})
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_layout_entries():
    table = _table(2, 2, True, seed=11)
    pm = table.parent_major(2)
    tables = table.log_tables(2)
    k = 2
    j = 4
    g = int(pm.parents[j])
    parents = table.members(g)
    n_cells = (table.offsets[g + 1] - table.offsets[g]) // k
    regions = pm.values[pm.offsets[j]: pm.offsets[j + 1]].reshape(n_cells, pm.region)
    # the log joints first
    np.testing.assert_array_equal(
        regions[:, :k].ravel(), tables.log_joint[table.offsets[g]: table.offsets[g + 1]])
    cell = 5
    codes = np.unravel_index(cell, tuple(int(table.sizes[p]) for p in parents))
    for i in range(table.n_attributes):
        for v in range(int(table.sizes[i])):
            got = regions[cell, k + pm.att_off[i] + v * k: k + pm.att_off[i] + (v + 1) * k]
            if i in parents or v == 0:
                assert np.all(got == 0.0)
                continue
            members = tuple(sorted(parents + (i,)))
            h = table.combination_index(members)
            value = dict(zip(parents, codes, strict=True))
            value[i] = v
            cell_h = int(np.ravel_multi_index(tuple(int(value[c]) for c in members),
                                              tuple(int(table.sizes[c]) for c in members)))
            base = tables.lc_offsets[h] + (cell_h * 3 + members.index(i)) * k
            np.testing.assert_array_equal(got, tables.log_conditional[base: base + k])


def test_float32_tables_close_to_float64():
    table = _table(2, 2, True, seed=12)
    X = _rows(200, True, seed=13)
    f64 = table.scores(X, 2, dtype="float64")
    f32 = table.scores(X, 2, dtype="float32")
    assert table.parent_major(2, dtype="float32").values.dtype == np.float32
    assert np.abs(f64 - f32).max() < 1e-5
    assert np.abs(f64 - f32).max() > 0  # really a different precision


def test_parent_major_counts_against_max_table_bytes():
    table = _table(2, 2, False, seed=14)
    X = _rows(60, False, seed=15)
    reference = table.scores(X, 2, kernel="combination")
    need = table.parent_major_bytes(2)
    assert need == table.parent_major(2).values.nbytes
    assert table.parent_major_bytes(2, "float32") * 2 == need
    table._parent_major = None
    held = table.nbytes
    # too small for the extra copy: the combination-major kernel, same scores
    table.max_table_bytes = held + need - 1
    np.testing.assert_array_equal(table.scores(X, 2), reference)
    assert table._parent_major is None
    # float32 fits where float64 does not
    table.scores(X, 2, dtype="float32")
    assert table._parent_major is not None
    table._parent_major = None
    table.max_table_bytes = held + need
    _assert_same(reference, table.scores(X, 2))
    assert table.nbytes == held + need


def test_parent_major_dropped_when_counts_change():
    table = _table(1, 2, False, seed=16)
    X = _rows(30, False, seed=17)
    table.scores(X, 1)
    assert table._parent_major is not None
    table.add(X, np.zeros(X.shape[0], dtype=np.int64))
    assert table._parent_major is None
    _assert_same(table.scores(X, 1, kernel="combination"), table.scores(X, 1))


def test_parent_major_not_pickled():
    table = _table(1, 2, False, seed=20)
    X = _rows(30, False, seed=21)
    expected = table.scores(X, 1)
    assert table._parent_major is not None
    loaded = pickle.loads(pickle.dumps(table))
    assert loaded._parent_major is None and table._parent_major is not None
    np.testing.assert_array_equal(loaded.scores(X, 1), expected)


def test_scores_argument_checks():
    table = _table(1, 2, False, seed=18)
    X = _rows(5, False, seed=19)
    with pytest.raises(ValueError, match="dtype"):
        table.scores(X, 1, dtype="float16")
    with pytest.raises(ValueError, match="kernel"):
        table.scores(X, 1, kernel="fast")


def _data(seed=0, n_rows=400):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n_rows, 6))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, n_rows) > 4).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", [AODE, A2DE, lambda **kw: AnDE(n=2, **kw)])
def test_estimator_dtype(estimator):
    X, y = _data()
    f64 = estimator().fit(X, y)
    f32 = estimator(dtype="float32").fit(X, y)
    assert f32.get_params()["dtype"] == "float32"
    np.testing.assert_allclose(f32.predict_log_proba(X), f64.predict_log_proba(X), atol=1e-5)
    assert f32.table_.parent_major(f32._order(), dtype="float32").values.dtype == np.float32


def test_estimator_dtype_is_checked():
    X, y = _data()
    with pytest.raises(ValueError, match="dtype='half'"):
        A2DE(dtype="half").fit(X, y)


def test_estimator_uses_parent_major_by_default():
    X, y = _data(1)
    model = A2DE(aggregate="posterior").fit(X, y)
    proba = model.predict_proba(X)
    assert model.table_._parent_major is not None
    codes = model._storage_codes(X)
    old = model.table_.scores(codes, 2, model.smoothing, model.m, model.min_count,
                              "posterior", kernel="combination")
    old = np.exp(old - np.logaddexp.reduce(old, axis=1, keepdims=True))
    np.testing.assert_allclose(proba, old, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kernel", ["parent_major", "combination"])
@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
def test_naive_bayes_without_weight_is_scored_unweighted(kernel, aggregate):
    """n = 0 with the single sub-model's log weight -inf: no order to cascade to; the row is
    scored as unweighted naive Bayes (it was left unset before)."""
    table = _table(0, 3, True, seed=11)
    X = _rows(40, True, seed=12)
    plain = table.scores(X, 0, aggregate=aggregate, kernel=kernel)
    none = table.scores(X, 0, aggregate=aggregate, kernel=kernel,
                        log_weights=np.array([-np.inf]))
    assert_allclose(none, plain, rtol=0, atol=1e-12)
