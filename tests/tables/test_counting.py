"""The counting kernels against a brute-force NumPy count (``np.add.at``): orders 1-4, mixed
orders in any sequence, row blocks, weights (integer, fractional, negative), 0 and 1 rows."""

import itertools

import numba
import numpy as np
import pytest

from seminaive import A2DE, AODE, KDB, FrequencyTable
from seminaive.tables import COUNT_BLOCK_ROWS, counting


def _data(rows, n_values, k, seed, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    # storage codes: 0 = missing, 1..v = values
    X = np.column_stack([rng.integers(0, v + 1, rows) for v in n_values]).astype(dtype)
    y = rng.integers(0, k, rows).astype(np.int32)
    return np.asfortranarray(X.reshape(rows, len(n_values))), y


def _weights(kind, rows, seed):
    rng = np.random.default_rng(seed)
    if kind == "none":
        return None
    if kind == "integer":
        return rng.integers(-3, 6, rows).astype(float)  # negative ones remove rows
    return rng.uniform(-1.0, 2.5, rows)  # fractional, some negative


def _brute_force(X, y, w, combos, orders, offsets, sizes, k, size):
    """Every row's cell of every combination, by NumPy indexing, accumulated by np.add.at."""
    counts = np.zeros(size)
    weights = np.ones(len(y)) if w is None else w
    for c in range(len(orders)):
        members = list(combos[c, :orders[c]])
        cell = np.zeros(len(y), dtype=np.int64)
        for m in members:
            cell = cell * sizes[m] + X[:, m].astype(np.int64)
        np.add.at(counts, offsets[c] + cell * k + y, weights)
    return counts


def _layout(combos, orders, sizes, k):
    cells = np.array([np.prod([sizes[m] for m in combos[c, :orders[c]]]) for c in
                      range(len(orders))], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cells * k)]).astype(np.int64)
    return offsets[:-1].copy(), int(offsets[-1])


def _check(counts, ref, w):
    if w is None or np.all(w == np.round(w)):
        np.testing.assert_array_equal(counts, ref)  # integer sums: exact in any order
    else:
        np.testing.assert_allclose(counts, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("weights", ["none", "integer", "fractional"])
@pytest.mark.parametrize("rows", [0, 1, 2, 37, 101])
def test_each_order_equals_brute_force(order, weights, rows):
    seed = order * 100 + rows
    rng = np.random.default_rng(seed)
    n_values = rng.integers(1, 6, 6)
    k = int(rng.integers(1, 5))
    X, y = _data(rows, n_values, k, seed)
    w = _weights(weights, rows, seed + 1)
    sizes = (n_values + 1).astype(np.int64)
    combos = np.array(list(itertools.combinations(range(6), order)), dtype=np.int64)
    orders = np.full(len(combos), order, dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    ref = _brute_force(X, y, w, combos, orders, offsets, sizes, k, size)
    for block in (1, 7, 64):  # row blocks smaller than, not dividing, larger than the rows
        counts = np.zeros(size)
        counting.count_combinations(X, y, np.zeros(1) if w is None else w, w is not None,
                                   combos, orders, offsets, sizes, k, counts, block)
        _check(counts, ref, w)


def test_mixed_orders_in_any_sequence_share_prefixes_correctly():
    """Combinations of orders 1-4 shuffled, repeated prefixes apart, different extents of
    the last member after the same prefix: the prefix codes must never be stale."""
    rng = np.random.default_rng(5)
    n_values = np.array([3, 1, 4, 2, 5, 2, 3])
    k = 3
    X, y = _data(50, n_values, k, 6)
    sizes = (n_values + 1).astype(np.int64)
    members = [c for d in range(1, 5) for c in itertools.combinations(range(7), d)]
    members += [(2, 0), (4, 1, 3), (6, 5, 4, 3), (3, 3)]  # unsorted and repeated members
    perm = rng.permutation(len(members))
    members = [members[i] for i in perm]
    combos = np.full((len(members), 4), -1, dtype=np.int64)
    for c, m in enumerate(members):
        combos[c, :len(m)] = m
    orders = np.array([len(m) for m in members], dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    w = _weights("integer", 50, 7)
    ref = _brute_force(X, y, w, combos, orders, offsets, sizes, k, size)
    for block in (3, 50):
        counts = np.zeros(size)
        counting.count_combinations(X, y, w, True, combos, orders, offsets, sizes, k, counts,
                                   block)
        np.testing.assert_array_equal(counts, ref)
    # lexicographic order too (the table's): sorted by order, then members
    lex = sorted(range(len(members)), key=lambda c: (orders[c], members[c]))
    counts = np.zeros(size)
    counting.count_combinations(X, y, w, True, combos[lex], orders[lex], offsets[lex], sizes, k,
                               counts, 4)
    np.testing.assert_array_equal(counts, ref)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_fixed_order_entry_points_equal_brute_force(order):
    n_values = np.array([2, 4, 1, 3, 2])
    k = 2
    X, y = _data(41, n_values, k, order)
    w = _weights("fractional", 41, order)
    sizes = (n_values + 1).astype(np.int64)
    combos = np.array(list(itertools.combinations(range(5), order)), dtype=np.int64)
    orders = np.full(len(combos), order, dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    counts = np.zeros(size)
    entry = {1: None, 2: counting.count_order2, 3: counting.count_order3,
             4: counting.count_order_any}[order]
    if entry is None:
        counting.count_order1(X, y, w, True, offsets, sizes, k, counts, 8)
    else:
        entry(X, y, w, True, combos, offsets, sizes, k, counts, 8)
    _check(counts, _brute_force(X, y, w, combos, orders, offsets, sizes, k, size), w)


@pytest.mark.parametrize("max_order", [1, 2, 3, 4])
@pytest.mark.parametrize("weights", ["none", "integer", "fractional"])
def test_table_counts_over_several_row_blocks(max_order, weights):
    """The table's own block size: rows not a multiple of it, int32 storage codes (an
    attribute of more than 255 values), every order up to max_order."""
    rows = COUNT_BLOCK_ROWS + 1235
    n_values = np.array([3, 300, 2, 4, 2])
    k = 3
    X, y = _data(rows, n_values, k, max_order, dtype=np.int32)
    w = _weights(weights, rows, max_order)
    table = FrequencyTable(n_values, k, max_order).add(X, y, w)
    lo, hi = table.order_first[0], table.order_first[max_order + 1]
    ref = _brute_force(X, y, w, table.combos[lo:hi], table.orders[lo:hi], table.offsets[lo:hi],
                       table.sizes, k, table.counts.size)
    _check(table.counts, ref, w)


def test_chunked_adds_equal_one_add_and_removal_restores():
    n_values = np.array([4, 4, 3, 5, 2, 4])
    k = 2
    X, y = _data(2000, n_values, k, 11)
    w = _weights("integer", 2000, 12)
    whole = FrequencyTable(n_values, k, 4).add(X, y, w)
    parts = FrequencyTable(n_values, k, 4)
    for lo, hi in [(0, 1), (1, 2), (2, 513), (513, 1999), (1999, 2000), (2000, 2000)]:
        parts.add(X[lo:hi], y[lo:hi], w[lo:hi])
    np.testing.assert_array_equal(parts.counts, whole.counts)
    parts.remove(X[:700], y[:700], w[:700])
    np.testing.assert_array_equal(parts.counts,
                                  FrequencyTable(n_values, k, 4).add(X[700:], y[700:],
                                                                     w[700:]).counts)


def test_counts_do_not_depend_on_the_number_of_threads():
    n_values = np.array([3, 3, 4, 2, 3, 3, 2])
    X, y = _data(999, n_values, 2, 21)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = FrequencyTable(n_values, 2, 4).add(X, y).counts
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(FrequencyTable(n_values, 2, 4).add(X, y).counts, one)


@pytest.mark.parametrize("n_values, k, lanes", [([2, 3, 2], 2, 4),  # 3*4*3*2 = 72 counts
                                                 ([9, 9, 9], 2, 2),  # 10*10*10*2 = 2000
                                                 ([9, 9, 9], 4, 1)])  # 4000: in place
def test_lanes_and_in_place_counting_equal_brute_force(n_values, k, lanes):
    """Histograms split into 4 or 2 lanes (summed into the counts per row block) and
    histograms counted in place give the brute-force counts; skewed data (one cell hit by
    most consecutive rows) included."""
    n_values = np.array(n_values)
    sizes = (n_values + 1).astype(np.int64)
    assert counting._lanes(int(np.prod(sizes)) * k) == lanes
    X, y = _data(301, n_values, k, lanes)
    X[np.random.default_rng(1).random(X.shape) < 0.8] = 1  # skewed
    combos = np.array([[0, 1, 2]], dtype=np.int64)
    orders = np.array([3], dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    for w in (None, _weights("integer", 301, 2), _weights("fractional", 301, 3)):
        ref = _brute_force(X, y, w, combos, orders, offsets, sizes, k, size)
        for block in (5, 64, 1000):
            counts = np.zeros(size)
            counting.count_combinations(X, y, np.zeros(1) if w is None else w, w is not None,
                                       combos, orders, offsets, sizes, k, counts, block)
            _check(counts, ref, w)


@pytest.mark.parametrize("shape", [(1, 4), (9, 1), (1, 1)])
@pytest.mark.parametrize("weights", ["none", "integer"])
def test_one_row_or_one_column_counts_through_the_fortran_kernel(shape, weights):
    """An (n, 1) or (1, a) array is C- and F-contiguous and numba would type it C: counted
    with the F kernel every other table uses (no second specialisation), the counts those
    of brute force."""
    rows, a = shape
    k = 3
    n_values = np.full(a, 3)
    X, y = _data(rows, n_values, k, 17)
    w = _weights(weights, rows, 18)
    sizes = (n_values + 1).astype(np.int64)
    combos = np.arange(a, dtype=np.int64).reshape(-1, 1)
    orders = np.ones(a, dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    assert numba.typeof(X).layout == "C"  # the shape that would specialise
    counts = np.zeros(size)
    counting.count_combinations(X, y, np.zeros(1) if w is None else w, w is not None, combos,
                                orders, offsets, sizes, k, counts, 64)
    np.testing.assert_array_equal(counts, _brute_force(X, y, w, combos, orders, offsets, sizes,
                                                       k, size))
    assert all(sig[0].types[0].layout == "F" for sig in counting._count_chunk.signatures)


# --------------------------------------------------------------------------------------------
# Grouped counting (joint histograms of several combinations, marginalised)
# --------------------------------------------------------------------------------------------


def _mixed_combinations(n_attributes, seed):
    """Every combination of orders 1-3 of ``n_attributes`` attributes, some of order 4,
    unsorted, repeated and permuted ones, shuffled."""
    rng = np.random.default_rng(seed)
    members = [c for d in range(1, 4) for c in itertools.combinations(range(n_attributes), d)]
    members += list(itertools.combinations(range(n_attributes), 4))[::3]
    members += [(2, 0), (0, 2), (4, 1, 3), (3, 1), (3, 3), (1,), (5, 4, 3, 2)]
    perm = rng.permutation(len(members))
    members = [members[i] for i in perm]
    combos = np.full((len(members), 4), -1, dtype=np.int64)
    for c, m in enumerate(members):
        combos[c, :len(m)] = m
    return combos, np.array([len(m) for m in members], dtype=np.int64)


def test_plan_counts_every_combination_once():
    """Every combination is an output of exactly one group or left over; a group's outputs
    are combinations of its members; no histogram exceeds GROUP_ENTRIES."""
    n_values = np.array([3, 1, 4, 2, 5, 2, 40, 3])
    sizes = (n_values + 1).astype(np.int64)
    k = 3
    combos, orders = _mixed_combinations(8, 3)
    offsets, _ = _layout(combos, orders, sizes, k)
    plan, rest = counting.plan_groups(combos, orders, offsets, sizes, k)
    (n_prefix, n_members, members, mults, prefix_id, h_first, out_first, out_order, out_pos,
     out_off) = plan
    assert np.all(np.diff(h_first) <= counting.GROUP_ENTRIES)
    counted = list(rest)
    for g in range(n_prefix.size):
        held = members[g, :n_members[g]]
        assert len(set(held.tolist())) == held.size
        assert np.diff(h_first)[g] == 2 * k * np.prod(sizes[held])
        for o in range(out_first[g], out_first[g + 1]):
            c = int(np.flatnonzero(offsets == out_off[o])[0])
            assert out_order[o] == orders[c]
            assert held[out_pos[o, :out_order[o]]].tolist() == combos[c, :orders[c]].tolist()
            counted.append(c)
    assert sorted(counted) == list(range(len(orders)))
    # a repeated member, and a pair of the attribute of 40 values with a triple's
    # histogram too large: left over
    assert {int(c) for c in rest} >= {c for c in range(len(orders))
                                       if len(set(combos[c, :orders[c]])) < orders[c]}


@pytest.mark.parametrize("n_values, k", [([3, 1, 4, 2, 5, 2, 40, 3], 3),
                                         ([5] * 8, 2), ([2] * 8, 7)])
@pytest.mark.parametrize("skewed", [False, True])
def test_grouped_counts_equal_brute_force(n_values, k, skewed):
    """Counted in groups (forced, any number of rows): the brute-force counts, for every
    order, member order, repetition and row block, on skewed data too (consecutive rows
    in the same cell: the lanes)."""
    n_values = np.array(n_values)
    sizes = (n_values + 1).astype(np.int64)
    combos, orders = _mixed_combinations(8, 5)
    offsets, size = _layout(combos, orders, sizes, k)
    for rows in (2, 3, 37, 301):
        X, y = _data(rows, n_values, k, rows)
        if skewed:
            X[np.random.default_rng(1).random(X.shape) < 0.8] = 1
            y[: rows // 2] = 0
        ref = _brute_force(X, y, None, combos, orders, offsets, sizes, k, size)
        for block in (1, 7, 64, 1000):
            counts = np.zeros(size)
            counting.count_combinations(X, y, np.zeros(1), False, combos, orders, offsets,
                                        sizes, k, counts, block, grouped=True)
            np.testing.assert_array_equal(counts, ref)


def test_grouped_counts_add_to_earlier_counts():
    """Added to counts already there: integer ones (unweighted chunks) stay exactly those
    of the one-by-one kernel; on counts that are not integers (an earlier chunk of
    fractional weights) the groups add one integer total per cell where the one-by-one
    kernel adds one per row block (or per row, counting in place): the same sums, rounded
    in another order, within 1e-12."""
    n_values = np.array([4, 4, 3, 5, 2, 4])
    k = 2
    sizes = (n_values + 1).astype(np.int64)
    combos, orders = _mixed_combinations(6, 9)
    offsets, size = _layout(combos, orders, sizes, k)
    X, y = _data(3000, n_values, k, 4)
    rng = np.random.default_rng(2)
    for start in (rng.integers(0, 1000, size).astype(float), rng.uniform(0, 1e3, size)):
        out = {}
        for grouped in (False, True):
            counts = start.copy()
            counting.count_combinations(X, y, np.zeros(1), False, combos, orders, offsets,
                                        sizes, k, counts, 512, grouped=grouped)
            out[grouped] = counts
        ref = start + _brute_force(X, y, None, combos, orders, offsets, sizes, k, size)
        if np.all(start == np.round(start)):
            np.testing.assert_array_equal(out[True], out[False])
            np.testing.assert_array_equal(out[True], ref)
        else:
            np.testing.assert_allclose(out[True], out[False], rtol=1e-12, atol=0)
            np.testing.assert_allclose(out[True], ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("max_order", [1, 2, 3])
def test_table_counts_in_groups_equal_one_by_one(monkeypatch, max_order):
    """A table's add of enough rows to be counted in groups (a plan made for the call)
    gives the counts of the one-by-one kernel (and of brute force), on 1 and 2 threads."""
    monkeypatch.setattr(counting, "GROUP_PLAN_ROWS", counting.GROUP_MIN_ROWS)
    monkeypatch.setattr(counting, "_plans", {})
    n_values = np.array([5] * 12)
    k = 2
    rows = counting.GROUP_MIN_ROWS + 777
    X, y = _data(rows, n_values, k, 8)
    table = FrequencyTable(n_values, k, max_order).add(X, y)
    assert len(counting._plans) == 1  # counted in groups
    lo, hi = table.order_first[1], table.order_first[max_order + 1]
    ref = _brute_force(X, y, None, table.combos[lo:hi], table.orders[lo:hi],
                       table.offsets[lo:hi], table.sizes, k, table.counts.size)
    ref[table.offsets[0]:table.offsets[0] + k] = np.bincount(y, minlength=k)
    np.testing.assert_array_equal(table.counts, ref)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = FrequencyTable(n_values, k, max_order).add(X, y).counts
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, ref)


def test_a_plan_is_made_for_a_large_call_and_kept_for_the_next():
    """Fewer than GROUP_PLAN_ROWS rows make no plan (counted one by one); a call of as
    many makes one, which the next calls of the same combinations (a table's chunks) use
    from GROUP_MIN_ROWS rows; the counts those of brute force all along."""
    n_values = np.array([4, 3, 5, 2, 4])
    k = 2
    table = FrequencyTable(n_values, k, 2)
    saved = dict(counting._plans)
    counting._plans.clear()
    try:
        X, y = _data(counting.GROUP_PLAN_ROWS + counting.GROUP_MIN_ROWS, n_values, k, 12)
        small = slice(0, counting.GROUP_MIN_ROWS)
        table.add(X[small], y[small])
        assert counting._plans == {}
        table.add(X[counting.GROUP_MIN_ROWS:], y[counting.GROUP_MIN_ROWS:])
        assert len(counting._plans) == 1
        (plan, _), = counting._plans.values()
        table.add(X[small], y[small])  # counted with the plan kept
        lo, hi = table.order_first[1], table.order_first[3]
        both = np.concatenate([X, X[small]]), np.concatenate([y, y[small]])
        ref = _brute_force(*both, None, table.combos[lo:hi], table.orders[lo:hi],
                           table.offsets[lo:hi], table.sizes, k, table.counts.size)
        ref[:k] = np.bincount(both[1], minlength=k)
        np.testing.assert_array_equal(table.counts, ref)
        assert plan[0].size < hi - lo  # fewer groups than combinations
    finally:
        counting._plans.clear()
        counting._plans.update(saved)


@pytest.mark.parametrize("entries", [1, 3000, 1 << 22])
def test_groups_counted_in_batches_equal_brute_force(monkeypatch, entries):
    """Groups counted in batches of at most ``entries`` histogram entries (one group a
    batch, a few, all): the brute-force counts."""
    monkeypatch.setattr(counting, "GROUP_BATCH_ENTRIES", entries)
    n_values = np.array([4, 3, 5, 2, 4, 3])
    sizes = (n_values + 1).astype(np.int64)
    k = 3
    combos, orders = _mixed_combinations(6, 13)
    offsets, size = _layout(combos, orders, sizes, k)
    plan, _ = counting.plan_groups(combos, orders, offsets, sizes, k)
    batches = counting._batches(plan[5], entries)
    assert [b for batch in batches for b in range(*batch)] == list(range(plan[0].size))
    assert len(batches) == (plan[0].size if entries == 1 else 1 if entries > 1 << 20
                            else len(batches))
    assert 1 < len(batches) or entries != 3000
    X, y = _data(500, n_values, k, 14)
    counts = np.zeros(size)
    counting.count_combinations(X, y, np.zeros(1), False, combos, orders, offsets, sizes, k,
                                counts, 128, grouped=True)
    np.testing.assert_array_equal(
        counts, _brute_force(X, y, None, combos, orders, offsets, sizes, k, size))


@pytest.mark.parametrize("learner", [AODE, A2DE, KDB])
def test_a_learner_fitted_on_enough_rows_counts_in_groups(monkeypatch, learner):
    """A fit of GROUP_PLAN_ROWS rows counts in groups (a plan made): the table's counts and
    the predictions are those of the same fit counted one by one."""
    rng = np.random.default_rng(15)
    rows = counting.GROUP_PLAN_ROWS + 1000
    X = rng.integers(0, 4, (rows, 7))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, rows)) % 3
    models = {}
    for grouped in (True, False):
        monkeypatch.setattr(counting, "_plans", {})
        if not grouped:
            monkeypatch.setattr(counting, "GROUP_PLAN_ROWS", 1 << 40)
        models[grouped] = learner().fit(X, y)
        assert bool(counting._plans) == grouped
    np.testing.assert_array_equal(models[True].table_.counts, models[False].table_.counts)
    np.testing.assert_array_equal(models[True].predict_proba(X[:500]),
                                  models[False].predict_proba(X[:500]))


@pytest.mark.parametrize("rows", [2, 3, 40])
def test_every_call_grouped_counts_a_few_rows_in_groups(monkeypatch, rows):
    """Within ``every_call_grouped`` (the warm-up), a fit of a few rows counts in groups
    (a plan made) and its counts and predictions are those counted one by one; weighted
    rows are still counted one by one; the block closed, a few rows make no plan.  (One
    row is counted as two, the second of weight 0: weighted, see ``_two_by_two``.)"""
    rng = np.random.default_rng(16)
    X = rng.integers(0, 4, (rows, 6))
    y = (X[:, 0] + rng.integers(0, 2, rows)) % 3
    y[:1] = 2
    models = {}
    for grouped in (True, False):
        monkeypatch.setattr(counting, "_plans", {})
        if grouped:
            with counting.every_call_grouped():
                models[grouped] = AODE().fit(X, y)
                assert counting._grouping_all == 1
        else:
            models[grouped] = AODE().fit(X, y)
        assert bool(counting._plans) == grouped
    assert counting._grouping_all == 0
    np.testing.assert_array_equal(models[True].table_.counts, models[False].table_.counts)
    np.testing.assert_array_equal(models[True].predict_proba(X), models[False].predict_proba(X))
    monkeypatch.setattr(counting, "_plans", {})
    with counting.every_call_grouped():
        weighted = AODE().fit(X, y, sample_weight=np.full(rows, 0.5))
    assert counting._plans == {}
    np.testing.assert_allclose(weighted.table_.counts, 0.5 * models[False].table_.counts)


def test_the_plan_covers_the_pairs_of_20_attributes_in_few_groups():
    """The 190 pairs and 20 singles of 20 attributes of 5 values (2 classes): 37 groups
    (quadruples mostly; 35 at least, a covering of the pairs of 20 points by quadruples;
    the earlier greedy made 46), every combination counted once, each group's outputs
    combinations of its members."""
    a, k = 20, 2
    sizes = np.full(a, 6, dtype=np.int64)
    members = [(i,) for i in range(a)] + list(itertools.combinations(range(a), 2))
    combos = np.full((len(members), 2), -1, dtype=np.int64)
    for c, m in enumerate(members):
        combos[c, :len(m)] = m
    orders = np.array([len(m) for m in members], dtype=np.int64)
    offsets, _ = _layout(combos, orders, sizes, k)
    plan, rest = counting.plan_groups(combos, orders, offsets, sizes, k)
    n_members, members_of, out_first, out_off = plan[1], plan[2], plan[6], plan[9]
    assert rest.size == 0 and 35 <= n_members.size <= 37
    covered = set()
    for g in range(n_members.size):
        held = set(members_of[g, :n_members[g]].tolist())
        assert len(held) == n_members[g]
        covered.update(itertools.combinations(sorted(held), 2))
        for o in range(out_first[g], out_first[g + 1]):
            c = int(np.flatnonzero(offsets == out_off[o])[0])
            assert set(combos[c, :orders[c]].tolist()) <= held
    assert covered >= set(itertools.combinations(range(a), 2))
    assert sorted(offsets.searchsorted(out_off).tolist()) == list(range(len(members)))


@pytest.mark.parametrize("v", [v for v in range(3, 62) if v % 6 in (1, 3)])
def test_steiner_triples_hold_every_pair_once(v):
    """steiner_triples: triples of three distinct points of range(v), every pair of points
    in exactly one of them (brute force over the pairs), v (v - 1) / 6 triples."""
    triples = counting.steiner_triples(v)
    seen = {}
    for triple in triples:
        assert len(set(triple)) == 3 and all(0 <= a < v for a in triple)
        for pair in itertools.combinations(sorted(triple), 2):
            seen[pair] = seen.get(pair, 0) + 1
    assert sorted(seen) == list(itertools.combinations(range(v), 2))
    assert set(seen.values()) == {1}
    assert len(triples) == v * (v - 1) // 6
    with pytest.raises(ValueError):
        counting.steiner_triples(v + 1)


@pytest.mark.parametrize("n", range(3, 62))
def test_pair_covering_holds_every_pair(n):
    """pair_covering: triples of three distinct points of range(n) holding every pair
    (brute force over the pairs); Schoenheim's bound, the fewest triples, for n 1, 2, 3 or
    4 modulo 6 (417 for 50 points), at most a tenth more otherwise."""
    triples = pair_covering = counting.pair_covering(n)
    covered = set()
    for triple in pair_covering:
        assert len(set(triple)) == 3 and all(0 <= a < n for a in triple)
        covered.update(itertools.combinations(sorted(triple), 2))
    assert covered == set(itertools.combinations(range(n), 2))
    bound = -(-n * -(-(n - 1) // 2) // 3)
    if n % 6 in (1, 2, 3, 4):
        assert len(triples) == bound
    else:
        assert bound <= len(triples) <= 1.1 * bound + 1
    if n == 50:
        assert len(triples) == 417


@pytest.mark.parametrize("a, n_values, k, groups", [
    (50, 8, 3, 417),  # the design: 458 groups greedily
    (25, 8, 3, 100),
    (12, 8, 3, 25),  # greedy (the design: 27)
    (20, 5, 2, None),  # quadruples fit: greedy
])
def test_the_plan_of_every_pair_by_a_design_counts_as_brute_force(a, n_values, k, groups):
    """The pairs and singles of ``a`` attributes whose groups can only be triples: the
    triples of pair_covering (417 groups at 50 attributes of 8 values, 3 classes; the
    greedy covering at 12 attributes, and where quadruples fit); every combination an
    output of exactly one group, of its members; the counts those of brute force."""
    sizes = np.full(a, n_values + 1, dtype=np.int64)
    members = [(i,) for i in range(a)] + list(itertools.combinations(range(a), 2))
    combos = np.full((len(members), 2), -1, dtype=np.int64)
    for c, m in enumerate(members):
        combos[c, :len(m)] = m
    orders = np.array([len(m) for m in members], dtype=np.int64)
    offsets, size = _layout(combos, orders, sizes, k)
    plan, rest = counting.plan_groups(combos, orders, offsets, sizes, k)
    n_members, members_of, h_first, out_first, out_off = plan[1], plan[2], plan[5], plan[6], \
        plan[9]
    assert rest.size == 0
    if groups is not None:
        assert n_members.size == groups
    else:
        assert n_members.max() == 4
    assert np.all(np.diff(h_first) <= counting.GROUP_ENTRIES)
    counted = []
    for g in range(n_members.size):
        held = set(members_of[g, :n_members[g]].tolist())
        assert len(held) == n_members[g]
        for o in range(out_first[g], out_first[g + 1]):
            c = int(np.flatnonzero(offsets == out_off[o])[0])
            assert set(combos[c, :orders[c]].tolist()) <= held
            counted.append(c)
    assert sorted(counted) == list(range(len(orders)))
    X, y = _data(301, [n_values] * a, k, a)
    counts = np.zeros(size)
    counting.count_combinations(X, y, np.zeros(1), False, combos, orders, offsets, sizes, k,
                                counts, 64, grouped=True)
    np.testing.assert_array_equal(
        counts, _brute_force(X, y, None, combos, orders, offsets, sizes, k, size))


def test_aode_counted_by_the_design_as_one_by_one(monkeypatch):
    """AODE on 25 attributes of 8 values, 3 classes, enough rows for a plan: its pairs
    counted in the 100 triples of pair_covering; the counts and predictions of the fit
    counted one by one."""
    rng = np.random.default_rng(19)
    rows = counting.GROUP_PLAN_ROWS + 1000
    codes = rng.integers(0, 8, (rows, 25))
    y = (codes[:, 0] + codes[:, 1] + rng.integers(0, 2, rows)) % 3
    X = np.char.add("v", codes.astype(str)).astype(object)  # nominal: 8 values each
    models = {}
    for grouped in (True, False):
        monkeypatch.setattr(counting, "_plans", {})
        if not grouped:
            monkeypatch.setattr(counting, "GROUP_PLAN_ROWS", 1 << 40)
        models[grouped] = AODE().fit(X, y)
        if grouped:
            (plan, _), = counting._plans.values()
            assert plan[0].size == len(counting.pair_covering(25)) == 100
    np.testing.assert_array_equal(models[True].table_.counts, models[False].table_.counts)
    np.testing.assert_array_equal(models[True].predict_proba(X[:500]),
                                  models[False].predict_proba(X[:500]))
