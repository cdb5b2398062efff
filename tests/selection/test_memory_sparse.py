"""Compact (sparse) storage of the order-(n + 1) counts of selective AnDE.

``FrequencyTable(..., parents=..., occupied=...)`` stores the children of the parent cells
that occur only, parent-major; ``AnDE(memory="select")`` uses it wherever it is smaller than
the dense layout.  Checked: the stored counts against the dense blocks, predictions
bit-for-bit against the dense selective table (parent-major kernel) with missing values,
integer weights and min_count 0 / 1 / 3, and to rounding with fractional weights; the exact
reference AnDE restricted to the parents; growth by partial_fit (new parent cells and new
values) and its refusal; merging; fit_stream, Dask and model files; the budget rule.
"""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import reference_proba
from test_memory_select import N_VALUES, K, budgets
from test_memory_select import make_data as memory_select_data

from seminaive import AnDE, FrequencyTable, TableTooLargeError, estimate_table_bytes, load
from seminaive.selection import memory


def random_codes(n_rows, seed, n_values=N_VALUES, missing=0.1):
    """Storage codes (0 = missing) and classes."""
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(1, v + 1, n_rows) for v in n_values])
    codes[rng.random(codes.shape) < missing] = 0
    return codes.astype(np.uint8), rng.integers(0, K, n_rows)


def compact_twin(dense, n):
    """A compact table with the parents of ``dense`` storing its occurring parent cells."""
    mask, first, _ = memory.occupancy(dense, n)
    inside = np.flatnonzero(dense.parent_mask)
    occupied = np.concatenate([mask[first[g]:first[g + 1]] for g in inside])
    return FrequencyTable(dense.sizes - 1, dense.n_classes, n + 1, parents=dense.parents,
                          occupied=occupied)


def make_data(n_rows=90, seed=0, missing=0.05):
    return memory_select_data(n_rows, seed, missing, mix=False)


def forced(n=2, memory_="select"):
    full, lower = budgets(n)
    return AnDE(n=n, memory=memory_, max_table_bytes=(full + lower) // 2)


# ----------------------------------------------------------------------------- the table
@pytest.mark.parametrize("n, parents", [(1, [1, 4]), (2, [0, 2, 5]), (2, [3, 6]),
                                        (3, [0, 1, 3, 6])])
def test_stored_counts_are_the_dense_blocks_at_occurring_parent_cells(n, parents):
    codes, y = random_codes(150, n)
    w = np.random.default_rng(n).integers(1, 4, y.size).astype(float)
    dense = FrequencyTable(N_VALUES, K, n + 1, parents=parents).add(codes, y, w)
    table = compact_twin(dense, n).add(codes, y, w)
    assert table.compact and table.n_combinations(n + 1) == 0
    prefix = int(dense.offsets[dense.order_first[n + 1]])
    assert_array_equal(table.counts, dense.counts[:prefix])
    k, sizes = K, table.sizes
    for j, g in enumerate(table.compact_parents):
        s = table.members(g)
        block = dense.block_at(g).reshape(-1, k)
        for cell in range(table.cell_first[j + 1] - table.cell_first[j]):
            digits = np.unravel_index(cell, [int(sizes[a]) for a in s])
            region = table.compact_region(j, cell)
            occurs = all(d > 0 for d in digits) and block[cell].any()
            assert (region is not None) == occurs
            if region is None:
                continue
            for i in range(table.n_attributes):
                if i in s:
                    continue
                h = tuple(sorted(s + (i,)))
                child = np.moveaxis(dense.block(h), h.index(i), -2)
                assert_array_equal(region[table.att_off[i]:table.att_off[i] + sizes[i] * k],
                                   child[digits].reshape(-1))


@pytest.mark.parametrize("min_count", [0, 1, 3])
@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n, parents", [(1, [1, 4]), (2, [0, 2, 5]), (3, [0, 1, 3, 6])])
def test_scores_are_those_of_the_dense_selective_table_bit_for_bit(min_count, aggregate, n,
                                                                    parents):
    """Integer weights: the same counts, so the same log tables and the same sums in the
    same order as the parent-major kernel on the dense table."""
    codes, y = random_codes(120, 10 + n)
    w = np.random.default_rng(n).integers(1, 4, y.size).astype(float)
    dense = FrequencyTable(N_VALUES, K, n + 1, parents=parents).add(codes, y, w)
    table = compact_twin(dense, n).add(codes, y, w)
    X, _ = random_codes(300, 20 + n, missing=0.15)
    kw = dict(n=n, min_count=min_count, aggregate=aggregate)
    for smoothing in ("m_estimate", "laplace"):
        expected = dense.scores(X, kernel="parent_major", smoothing=smoothing, **kw)
        assert_array_equal(table.scores(X, smoothing=smoothing, **kw), expected)
        assert_allclose(table.scores(X, smoothing=smoothing, dtype="float32", **kw),
                        dense.scores(X, kernel="parent_major", smoothing=smoothing,
                                     dtype="float32", **kw), rtol=0, atol=0)
    with pytest.raises(ValueError, match="parent-major"):
        table.scores(X, kernel="combination", **kw)


def test_fractional_weights_agree_to_rounding():
    codes, y = random_codes(200, 3)
    w = np.random.default_rng(3).random(y.size) * 2
    dense = FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 5]).add(codes, y, w)
    table = compact_twin(dense, 2).add(codes, y, w)
    X, _ = random_codes(200, 4, missing=0.15)
    assert_allclose(table.scores(X, n=2), dense.scores(X, n=2, kernel="combination"),
                    rtol=0, atol=1e-12)


def test_new_parent_cells_are_stored_when_counted_and_merge():
    codes, y = random_codes(160, 5)
    first = FrequencyTable(N_VALUES, K, 3, parents=[0, 3, 6]).add(codes[:20], y[:20])
    table = compact_twin(first, 2).add(codes[:20], y[:20])
    held = table.n_slots
    table.add(codes[20:], y[20:])
    assert table.n_slots > held
    dense = FrequencyTable(N_VALUES, K, 3, parents=[0, 3, 6]).add(codes, y)
    whole = compact_twin(dense, 2).add(codes, y)
    assert_array_equal(table.slot_of, whole.slot_of)
    assert_array_equal(table.compact_counts, whole.compact_counts)
    X, _ = random_codes(100, 6)
    assert_array_equal(table.scores(X, n=2), dense.scores(X, n=2, kernel="parent_major"))
    # a table holding a subset of the cells merges into one holding them all
    part = compact_twin(first, 2).add(codes[:20], y[:20])
    whole_part = compact_twin(dense, 2).add(codes[20:], y[20:])
    whole_part.merge(part)
    assert_array_equal(whole_part.compact_counts, whole.compact_counts)
    with pytest.raises(ValueError, match="subset"):
        part.merge(compact_twin(dense, 2).add(codes, y))


def test_new_parent_cells_beyond_the_budget_are_refused_before_counting():
    codes, y = random_codes(160, 7)
    first = FrequencyTable(N_VALUES, K, 3, parents=[0, 3, 6]).add(codes[:10], y[:10])
    table = compact_twin(first, 2).add(codes[:10], y[:10])
    table.max_table_bytes = estimate_table_bytes(N_VALUES, K, 3, parents=[0, 3, 6],
                                                 occupied=table.n_slots)["total"]
    before = table.counts.copy(), table.compact_counts.copy(), table.n_slots
    with pytest.raises(TableTooLargeError, match="parent cells not seen before"):
        table.add(codes[10:], y[10:])
    assert_array_equal(table.counts, before[0])
    assert_array_equal(table.compact_counts, before[1])
    assert table.n_slots == before[2]


def test_grow_keeps_the_stored_cells_and_counts():
    codes, y = random_codes(150, 8)
    dense = FrequencyTable(N_VALUES, K, 3, parents=[1, 2, 3]).add(codes, y)
    table = compact_twin(dense, 2).add(codes, y)
    bigger = N_VALUES + np.array([1, 0, 2, 1, 0, 0, 1])
    dense.grow(bigger)
    table.grow(bigger)
    more, y2 = random_codes(80, 9, n_values=bigger)
    dense.add(more, y2)
    table.add(more, y2)
    regrown = compact_twin(dense, 2)
    assert_array_equal(table.slot_of, regrown.slot_of)
    X, _ = random_codes(100, 10, n_values=bigger)
    assert_array_equal(table.scores(X, n=2), dense.scores(X, n=2, kernel="parent_major"))


def test_estimate_is_the_bytes_of_the_arrays():
    codes, y = random_codes(150, 11)
    dense = FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 5]).add(codes, y)
    table = compact_twin(dense, 2).add(codes, y)
    table.scores(codes, n=2)
    est = estimate_table_bytes(N_VALUES, K, 3, parents=[0, 2, 5], occupied=table.n_slots)
    logs = table._log_tables
    ridx, values = table.compact_tables(2)
    assert est["counts"] == table.counts.nbytes + table.compact_counts.nbytes
    assert est["log_tables"] == (logs.log_joint.nbytes + logs.log_conditional.nbytes
                                 + values.nbytes)
    assert est["total"] < estimate_table_bytes(N_VALUES, K, 3, parents=[0, 2, 5])["total"]


# ----------------------------------------------------------------------------- the model
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kw", [{}, dict(min_count=3), dict(min_count=0),
                                dict(aggregate="posterior", smoothing="laplace")])
def test_compact_model_equals_reference_and_dense_table(n, kw):
    X, y = make_data(seed=n)
    X_test, _ = make_data(25, seed=10 + n, missing=0.15)
    model = forced(n).set_params(**kw).fit(X, y)
    assert model.table_.compact
    ref = reference_proba(model.encoder_.encode(X, "t"), y, model.encoder_.encode(X_test, "t"),
                          n, N_VALUES, K, parents=model.parents_, **kw)
    assert_allclose(model.predict_proba(X_test), ref, rtol=0, atol=1e-12)
    codes = model.encoder_.encode(X, "t") + 1
    dense = FrequencyTable(N_VALUES, K, n + 1, parents=model.parents_).add(codes, y)
    test_codes = (model.encoder_.encode(X_test, "t") + 1).astype(np.uint8)
    score_kw = {"min_count": 1, "aggregate": "joint", "smoothing": "m_estimate", **kw}
    assert_array_equal(model.table_.scores(test_codes, n=n, **score_kw),
                       dense.scores(test_codes, n=n, kernel="parent_major", **score_kw))
    assert model.table_bytes_ == estimate_table_bytes(
        N_VALUES, K, n + 1, parents=model.parents_, occupied=model.table_.n_slots)["total"]


def test_budget_holds_more_parents_compact_and_uses_the_smaller_layout():
    X, y = make_data(seed=3)
    full = estimate_table_bytes(N_VALUES, K, 3)["total"]
    lower = estimate_table_bytes(N_VALUES, K, 3, parents=[])["total"]
    budget = lower + (full - lower) // 4
    sparse = AnDE(n=2, memory="select", max_table_bytes=budget).fit(X, y)
    dense = AnDE(n=2, memory="select_dense", max_table_bytes=budget).fit(X, y)
    assert sparse.table_.compact and not dense.table_.compact
    assert sparse.parents_.size > dense.parents_.size
    assert sparse.table_bytes_ <= budget
    # the rule: as many parents as fit in the smaller layout, stored in it
    table = AnDE(n=2).fit(X, y).table_
    combos = table.combinations(2)
    _, _, per = memory.occupancy(table, 2)
    m = sparse.parents_.size
    sizes = memory.layout_bytes(N_VALUES, K, 2, sparse.parents_, combos, per)
    assert min(sizes) == sparse.table_bytes_ and sizes[1] < sizes[0]
    more = memory.layout_bytes(N_VALUES, K, 2, sparse.ranking_[:m + 1], combos, per)
    assert min(b for b in more if b is not None) > budget


def test_dense_layout_where_it_is_smaller():
    """AODE-like selection on data filling every cell: each pair is stored once densely
    (and its two log conditionals), while the compact layout stores a pair of parents once
    per parent and pays an index and a region of zero counts per parent."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    X = pd.DataFrame({f"c{i}": pd.Categorical(rng.integers(0, 4, 3000), categories=range(4))
                      for i in range(8)})
    n_values = np.array([4] * 8)
    model = AnDE(n=1, memory="select", max_table_bytes=37_000).fit(X, y)
    assert model.parents_.size == 6
    assert not model.table_.compact
    table = AnDE(n=1).fit(X, y).table_
    _, _, per = memory.occupancy(table, 1)
    dense, compact = memory.layout_bytes(n_values, 2, 1, model.parents_,
                                         table.combinations(1), per)
    assert dense < compact and model.table_bytes_ == dense <= 37_000


def test_partial_fit_stores_new_parent_cells_and_equals_the_dense_table():
    X, y = make_data(200, seed=4)
    model = forced().partial_fit(X.iloc[:30], y[:30], classes=range(K))
    assert model.table_.compact
    held = model.table_.n_slots
    with pytest.warns(UserWarning, match="keeps the parent attributes"):
        model.partial_fit(X.iloc[30:], y[30:])
    assert model.table_.n_slots >= held
    codes = model.encoder_.encode(X, "t") + 1
    dense = FrequencyTable(N_VALUES, K, 3, parents=model.parents_).add(codes, y)
    test_codes = codes[:50].astype(np.uint8)
    assert_array_equal(model.table_.scores(test_codes, n=2),
                       dense.scores(test_codes, n=2, kernel="parent_major"))


def test_fit_stream_dask_and_model_files_keep_the_compact_layout(tmp_path):
    X, y = make_data(150, seed=9)
    frame = X.assign(cls=y)
    reference = forced().fit(X, y)
    assert reference.table_.compact
    streamed = forced().fit_stream([frame.iloc[:50], frame.iloc[50:110], frame.iloc[110:]],
                                   target="cls")
    assert_array_equal(streamed.table_.slot_of, reference.table_.slot_of)
    assert_array_equal(streamed.table_.compact_counts, reference.table_.compact_counts)
    assert_array_equal(streamed.predict_proba(X), reference.predict_proba(X))
    path = tmp_path / "compact.npz"
    reference.save(path)
    loaded = load(path)
    assert loaded.table_.compact and loaded.table_bytes_ == reference.table_bytes_
    assert_array_equal(loaded.predict_proba(X), reference.predict_proba(X))
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import seminaive.dask as sdask

    with dask.config.set(scheduler="threads"):
        model = sdask.fit(forced(), dd.from_pandas(frame, npartitions=3), target="cls")
    assert_array_equal(model.table_.compact_counts, reference.table_.compact_counts)
    assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_corrupt_compact_model_files_are_refused(tmp_path):
    from seminaive.exceptions import ModelFileError

    X, y = make_data(seed=12)
    model = forced().fit(X, y)
    model.table_.compact_counts = model.table_.compact_counts[:-1]
    model.save(tmp_path / "short.npz")
    with pytest.raises(ModelFileError, match="compact count array"):
        load(tmp_path / "short.npz")
    model = forced().fit(X, y)
    model.memory = "select_dense"
    model.save(tmp_path / "dense.npz")
    with pytest.raises(ModelFileError, match="compact"):
        load(tmp_path / "dense.npz")


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n, parents", [(1, [1, 4]), (2, [0, 2, 5]), (3, [0, 1, 3, 6])])
@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
def test_rows_that_cascade_are_scored_from_the_counts_bit_for_bit(aggregate, n, parents,
                                                                   smoothing):
    """A compact table holds no log conditionals of order n: a row in which no parent
    combination qualifies computes order n - 1 from the counts of order n.  A min_count
    above some cells' frequencies makes many rows cascade, some more than one level."""
    codes, y = random_codes(150, 30 + n)
    dense = FrequencyTable(N_VALUES, K, n + 1, parents=parents).add(codes, y)
    table = compact_twin(dense, n).add(codes, y)
    X, _ = random_codes(300, 40 + n, missing=0.3)
    kw = dict(n=n, aggregate=aggregate, smoothing=smoothing)
    for min_count in (8, 40, 1e9):
        assert_array_equal(table.scores(X, min_count=min_count, **kw),
                           dense.scores(X, kernel="parent_major", min_count=min_count, **kw))
    logs = table.log_tables(n, smoothing)
    assert logs.log_conditional.size == int(logs.lc_offsets[table.order_first[n]])


def test_compact_layout_fits_where_the_dense_one_holds_no_parent_combination():
    """Just above the tables of A(n-1)DE the dense layout holds no combination of n parents
    (refused, tests/selection/test_memory_select.py); the compact one, without the log conditionals
    of order n, holds several."""
    X, y = make_data(seed=12)
    lower = estimate_table_bytes(N_VALUES, K, 3, parents=[])["total"]
    with pytest.raises(TableTooLargeError, match="not those of one combination of 2"):
        AnDE(n=2, memory="select_dense", max_table_bytes=lower + 8).fit(X, y)
    model = AnDE(n=2, memory="select", max_table_bytes=lower + 8).fit(X, y)
    assert model.table_.compact and model.parents_.size >= 2
    assert model.table_bytes_ <= lower + 8
    ref = reference_proba(model.encoder_.encode(X, "t"), y, model.encoder_.encode(X, "t"), 2,
                          N_VALUES, K, parents=model.parents_)
    assert_allclose(model.predict_proba(X), ref, rtol=0, atol=1e-12)


def test_pickled_compact_model_predicts_the_same():
    import pickle

    X, y = make_data(seed=13)
    model = forced().fit(X, y)
    expected = model.predict_proba(X)  # builds the regions, which are not pickled
    copy = pickle.loads(pickle.dumps(model))
    assert copy.table_.compact and copy.table_._compact_tables is None
    assert_array_equal(copy.predict_proba(X), expected)
    assert_array_equal(copy.table_.compact_counts, model.table_.compact_counts)
