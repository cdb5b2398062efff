"""Incremental leave-one-out of the selection kernels against refitting without the row.

The reference refits a FrequencyTable on the training rows minus the held-out one (minus one
copy of it: held-out amount min(w, 1)) and scores the held-out row with a plain-NumPy
implementation of the selected structure written from its definition (no kernel shared).
"""

import math
from itertools import combinations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp

from seminaive.selection import _structure as st
from seminaive.sources import ArraySource
from seminaive.tables import FrequencyTable


def _data(n_rows=36, n_values=(2, 3, 2, 3), k=3, missing=0.1, seed=0):
    rng = np.random.default_rng(seed)
    a = len(n_values)
    X = np.column_stack([rng.integers(1, v + 1, n_rows) for v in n_values])
    y = rng.integers(0, k, n_rows)
    X[:, 1] = np.where(rng.random(n_rows) < 0.7, (X[:, 0] + y) % n_values[1] + 1, X[:, 1])
    X[rng.random((n_rows, a)) < missing] = 0
    return np.asfortranarray(X.astype(np.uint8)), y.astype(np.int64)


def _table(X, y, w, n_values, k, order):
    t = FrequencyTable(np.asarray(n_values), k, order)
    t.add(X, y, w)
    return t


def _ref_scores(table, x, order, parents, children, weights, m, laplace, min_count):
    """Per-class log scores of the structure at row x (storage codes), from table blocks."""
    k = table.n_classes
    nv = table.n_values
    for level in range(order, -1, -1):
        terms, total_w = [], 0.0
        for s in combinations(sorted(parents), level):
            if any(x[i] == 0 for i in s):
                continue
            w = float(np.prod([weights[i] for i in s])) if s else 1.0
            if w <= 0:
                continue
            blk = table.block(s)
            cnt = blk[tuple(int(x[i]) for i in s)]
            if level > 0 and cnt.sum() < min_count:
                continue
            n_obs = blk[tuple(slice(1, None) for _ in s)].sum()
            pv = float(np.prod([nv[i] for i in s])) if s else 1.0
            if laplace:
                logt = np.log(cnt + 1) - np.log(n_obs + k * pv)
            else:
                logt = np.log(cnt + m / (k * pv)) - np.log(n_obs + m)
            for c in children:
                if c in s or x[c] == 0:
                    continue
                members = sorted((*s, c))
                col = table.block(members)[tuple(int(x[i]) if i != c else slice(None)
                                                 for i in members)]
                num, den = col[int(x[c])], col[1:].sum(axis=0)
                if laplace:
                    logt = logt + np.log(num + 1) - np.log(den + nv[c])
                else:
                    logt = logt + np.log(num + m / nv[c]) - np.log(den + m)
            terms.append(logt + math.log(w))
            total_w += w
        if terms:
            return logsumexp(np.array(terms), axis=0) - math.log(total_w)
    raise AssertionError("level 0 always qualifies")


def _ref_loss(score, yt, loss):
    logp = score - logsumexp(score)
    if loss == "rmse":
        return (1 - math.exp(logp[yt])) ** 2
    if loss == "zero_one":
        return float(np.argmax(score) != yt)
    return -logp[yt]


def _ref_loo(X, y, w, n_values, k, order, models, weights, m, laplace, min_count, loss):
    """Weighted LOO loss sums of several structures ``models`` = [(level, parents,
    children)], refitting the tables once per held-out row."""
    totals = np.zeros(len(models))
    for t in range(len(y)):
        if w[t] <= 0:
            continue
        w_minus = w.copy()
        w_minus[t] -= min(w[t], 1.0)
        table = _table(X, y, w_minus, n_values, k, order + 1)
        for j, (level, parents, children) in enumerate(models):
            score = _ref_scores(table, X[t], level, parents, children, weights, m, laplace,
                                min_count)
            totals[j] += w[t] * _ref_loss(score, y[t], loss)
    return totals


CASES = [
    # (smoothing, m, min_count, loss, weights kind, seed)
    ("m_estimate", 1.0, 1, "rmse", "none", 0),
    ("laplace", 1.0, 2, "log_loss", "int", 1),
    ("m_estimate", 0.5, 1, "zero_one", "frac", 2),
]


@pytest.mark.parametrize("smoothing, m, min_count, loss, wkind, seed", CASES)
def test_nested_loo_equals_refit_for_every_model(smoothing, m, min_count, loss, wkind, seed):
    n_values, k = (2, 3, 2, 3), 3
    X, y = _data(n_values=n_values, k=k, seed=seed)
    rng = np.random.default_rng(seed + 10)
    w = {"none": np.ones(len(y)), "int": rng.integers(0, 3, len(y)).astype(float),
         "frac": rng.uniform(0.2, 2.5, len(y))}[wkind]
    a, n = len(n_values), 2
    table = _table(X, y, w, n_values, k, n + 1)
    ranking = np.array([2, 0, 3, 1], dtype=np.int64)
    attr_weights = np.array([0.5, 1.0, 2.0, 0.25]) if wkind == "frac" else np.ones(a)
    source = ArraySource(X, y, None if wkind == "none" else w, chunk_rows=13)
    losses, total = st.nested_losses(table, source, ranking, n, attr_weights, smoothing, m,
                                     min_count, loss)
    assert total == pytest.approx(w.sum())
    keys = [(level, r, s) for level in range(n + 1)
            for r in ([0] if level == 0 else range(level, a + 1)) for s in range(a + 1)]
    ref = _ref_loo(X, y, w, n_values, k, n, [(lv, ranking[:r], ranking[:s]) for lv, r, s in keys],
                   attr_weights, m, smoothing == "laplace", min_count, loss)
    for key, expected in zip(keys, ref, strict=True):
        assert_allclose(losses[key], expected, rtol=1e-9, atol=1e-12, err_msg=f"model {key}")
    assert np.isnan(losses[1, 0]).all() and np.isnan(losses[2, 1]).all()


@pytest.mark.parametrize("loss", ["zero_one", "rmse"])
def test_wrapper_loo_equals_refit_for_every_move(loss):
    n_values, k = (3, 2, 3, 2, 2), 2
    X, y = _data(n_rows=30, n_values=n_values, k=k, seed=5)
    w = np.ones(len(y))
    a = len(n_values)
    table = _table(X, y, w, n_values, k, 2)
    parents = np.array([True, False, True, True, False])
    children = np.array([True, True, False, True, False])
    candidates = [(-1, False, False)] + [(q, p, c) for q in range(a)
                                         for p in (False, True) for c in (False, True)]
    losses, total = st.wrapper_losses(table, ArraySource(X, y), parents, children, candidates,
                                      "m_estimate", 1.0, 1, loss)
    assert total == len(y)
    models = []
    for q, p, c in candidates:
        par, chi = parents.copy(), children.copy()
        if q >= 0:
            par[q], chi[q] = p, c
        models.append((1, np.flatnonzero(par), np.flatnonzero(chi)))
    ref = _ref_loo(X, y, w, n_values, k, 1, models, np.ones(a), 1.0, False, 1, loss)
    for j, move in enumerate(candidates):
        assert_allclose(losses[j], ref[j], rtol=1e-9, atol=1e-12, err_msg=f"move {move}")


def test_structure_scores_match_the_reference():
    n_values, k = (2, 3, 2, 3), 3
    X, y = _data(n_values=n_values, k=k, seed=3)
    table = _table(X, y, None, n_values, k, 3)
    weights = np.array([0.3, 1.0, 0.0, 2.0])
    for order, parents, children in [(0, [], [1, 3]), (1, [0, 2, 3], [0, 1, 2]),
                                     (2, [0, 1, 3], [0, 1, 2, 3]), (1, [], [0, 1])]:
        got = st.structure_scores(table, X, order, parents, children, weights, "m_estimate",
                                  1.0, 2)
        for t in range(len(y)):
            ref = _ref_scores(table, X[t], order, parents, children, weights, 1.0, False, 2)
            assert_allclose(got[t], ref, rtol=1e-10)


def test_combination_levels_are_nested_by_rank():
    members, first, max_rank, weight = st.combination_levels(
        np.array([3, 0, 2, 1]), 2, np.array([1.0, 2.0, 3.0, 4.0]))
    assert first.tolist() == [0, 1, 5, 11]
    assert members[1:5, 0].tolist() == [3, 0, 2, 1]
    # pairs ordered by their lowest-ranked member: {3,0}, {3,2}, {0,2}, {3,1}, {0,1}, {2,1}
    assert [tuple(r) for r in members[5:]] == [(0, 3), (2, 3), (0, 2), (1, 3), (0, 1), (1, 2)]
    assert max_rank.tolist() == [-1, 0, 1, 2, 3, 1, 2, 2, 3, 3, 3]
    assert weight[5:].tolist() == [4.0, 12.0, 3.0, 8.0, 2.0, 6.0]


def test_nested_loo_of_order_three_equals_refit():
    n_values, k = (2, 3, 2, 2, 3), 2
    X, y = _data(n_rows=25, n_values=n_values, k=k, seed=7)
    w = np.ones(len(y))
    table = _table(X, y, w, n_values, k, 4)
    ranking = np.array([4, 0, 3, 1, 2], dtype=np.int64)
    losses, _ = st.nested_losses(table, ArraySource(X, y), ranking, 3, np.ones(5),
                                 "m_estimate", 1.0, 1, "rmse")
    keys = [(3, r, s) for r in range(3, 6) for s in (1, 3, 5)] + [(2, 4, 2), (1, 2, 5)]
    ref = _ref_loo(X, y, w, n_values, k, 3, [(lv, ranking[:r], ranking[:s]) for lv, r, s in keys],
                   np.ones(5), 1.0, False, 1, "rmse")
    for key, expected in zip(keys, ref, strict=True):
        assert_allclose(losses[key], expected, rtol=1e-9, err_msg=f"model {key}")


@pytest.mark.parametrize("smoothing, m, min_count, loss, wkind, seed", CASES)
def test_linear_nested_pass_equals_the_log_space_kernel(smoothing, m, min_count, loss, wkind,
                                                        seed):
    """The linear-space pass (no log tables, rows in tiles) against the log-space
    kernel it replaced, on every (L, r, s), with missing values and weights."""
    n_values, k = (3, 4, 2, 5, 3, 2, 4), 3
    X, y = _data(n_rows=70, n_values=n_values, k=k, missing=0.15, seed=seed)
    X[:, 5] = np.where(X[:, 5] == 0, 1, X[:, 5])  # one attribute never missing
    rng = np.random.default_rng(seed + 20)
    w = {"none": np.ones(len(y)), "int": rng.integers(0, 3, len(y)).astype(float),
         "frac": rng.uniform(0.2, 2.5, len(y))}[wkind]
    a = len(n_values)
    table = _table(X, y, w, n_values, k, 3)
    ranking = np.array([4, 1, 6, 0, 3, 5, 2], dtype=np.int64)
    attr_weights = rng.uniform(0.0, 2.0, a) if wkind == "frac" else np.ones(a)
    source = ArraySource(X, y, None if wkind == "none" else w, chunk_rows=29)
    args = (table, source, ranking, 2, attr_weights, smoothing, m, min_count, loss)
    lin, lin_sq, lin_total = st.nested_losses(*args, squares=True)
    ref, ref_sq, ref_total = st.nested_losses(*args, squares=True, linear=False)
    assert lin_total == ref_total
    assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)
    assert_allclose(lin_sq, ref_sq, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_linear_nested_pass_does_not_underflow():
    """150 attributes of 8 values: a sub-model's product of probabilities falls far below
    2^-256 (the blocks are used); the losses still equal the log-space kernel's."""
    n_values, k = (8,) * 150, 2
    X, y = _data(n_rows=24, n_values=n_values, k=k, missing=0.05, seed=4)
    table = _table(X, y, np.ones(len(y)), n_values, k, 2)
    ranking = np.arange(len(n_values), dtype=np.int64)[::-1].copy()
    for loss in ("rmse", "log_loss"):
        args = (table, ArraySource(X, y), ranking, 1, np.ones(len(n_values)), "m_estimate",
                0.01, 1, loss)
        lin, _ = st.nested_losses(*args)
        ref, _ = st.nested_losses(*args, linear=False)
        finite = np.isfinite(ref)
        assert_allclose(lin[finite], ref[finite], rtol=1e-11, atol=1e-13)
        # the log-space kernel's posterior of the true class underflows to 0 (an infinite
        # log loss) below exp(-745) of the largest class's; the linear kernel's blocks keep it
        assert np.all(np.isnan(lin[np.isnan(ref)]))
        assert np.all(lin[np.isinf(ref)] > 700)


@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_linear_nested_pass_does_not_underflow_at_order_two(missing):
    """40 attributes of 4 values at parent order 2 and a tiny m: products fall below 2^-256
    in some rows of a tile and not in others (the branch-free block loop; with missing
    values also the loop of children with missing values); the losses equal the log-space
    kernel's wherever it is finite."""
    smoothing = "m_estimate"
    n_values, k = (4,) * 40, 2
    X, y = _data(n_rows=80, n_values=n_values, k=k, missing=missing, seed=9)
    if missing == 0.0:
        X[X == 0] = 1
    table = _table(X, y, np.ones(len(y)), n_values, k, 3)
    ranking = np.arange(len(n_values), dtype=np.int64)
    m = 1e-6  # (an unseen value's m-estimate is tiny: products of 2^-20 per child)
    args = (table, ArraySource(X, y), ranking, 2, np.ones(len(n_values)), smoothing, m, 1,
            "log_loss")
    lin, _ = st.nested_losses(*args, tile_rows=16)
    ref, _ = st.nested_losses(*args, linear=False)
    finite = np.isfinite(ref)
    assert finite[2].sum() > 500
    assert_allclose(lin[finite], ref[finite], rtol=1e-11, atol=1e-13)
    assert np.all(lin[np.isinf(ref)] > 700)
    # the blocks were needed: one combination's product for the first row is below 2^-256
    smallest = min(_ref_scores(table, X[0], 2, (u, u + 1), range(40), np.ones(40), m, False,
                               1).min() for u in range(0, 40, 2))
    assert smallest < -256 * math.log(2.0)


def test_float32_copy_reports_whether_every_count_is_exact():
    from seminaive.tables.counting import float32_copy

    for values, exact in (([0.0, 1.0, 3.0, 2.0 ** 24], True), ([1.0, 2.0 ** 24 + 1], False),
                          ([0.5, 3.25, 7.0], True), ([2.0, 0.1], False),
                          (np.arange(300_000, dtype=float), True)):
        counts = np.asarray(values, dtype=np.float64)
        out = np.empty(counts.shape, dtype=np.float32)
        assert float32_copy(counts, out, 4) == exact
        assert_allclose(out, counts.astype(np.float32))


@pytest.mark.parametrize("wkind", ["none", "int", "frac"])
def test_linear_nested_pass_reads_float32_counts_bit_for_bit(wkind, monkeypatch):
    """Unweighted and integer-weighted tables are read as a float32 copy (the same values
    in half the bytes): the losses are identical to those from the float64 counts."""
    n_values, k = (3, 4, 2, 5, 3, 2, 4), 3
    X, y = _data(n_rows=70, n_values=n_values, k=k, missing=0.15, seed=3)
    rng = np.random.default_rng(23)
    w = {"none": np.ones(len(y)), "int": rng.integers(0, 3, len(y)).astype(float),
         "frac": rng.uniform(0.2, 2.5, len(y))}[wkind]
    table = _table(X, y, w, n_values, k, 3)
    ranking = np.array([4, 1, 6, 0, 3, 5, 2], dtype=np.int64)
    bundle = st._CountContext(table, 3, "m_estimate", 1.0, 1, conditionals=False).bundle
    compact = st.compact_bundle(bundle)
    assert compact.table.counts.dtype == (np.float64 if wkind == "frac" else np.float32)
    args = (table, ArraySource(X, y, None if wkind == "none" else w), ranking, 2, np.ones(7),
            "m_estimate", 1.0, 1, "rmse")
    fast, fast_sq, _ = st.nested_losses(*args, squares=True)
    monkeypatch.setattr(st, "COMPACT_MAX_BYTES", 0)
    assert st.compact_bundle(bundle) is bundle
    wide, wide_sq, _ = st.nested_losses(*args, squares=True)
    assert np.array_equal(fast, wide, equal_nan=True)
    assert np.array_equal(fast_sq, wide_sq, equal_nan=True)


def _tiling_case(min_count=1, seed=5, n_rows=40):
    n_values, k = (3, 2, 4, 2, 3, 3), 3
    X, y = _data(n_rows=n_rows, n_values=n_values, k=k, missing=0.12, seed=seed)
    X[:, 1] = np.where(X[:, 1] == 0, 2, X[:, 1])  # one attribute never missing
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 3, len(y)).astype(float)
    w[:3] = 0.0
    table = _table(X, y, w, n_values, k, 3)
    ranking = np.array([2, 5, 0, 1, 4, 3], dtype=np.int64)
    args = (table, ArraySource(X, y, w, chunk_rows=17), ranking, 2, np.ones(len(n_values)),
            "m_estimate", 0.7, min_count, "rmse")
    return X, y, w, table, ranking, args


@pytest.mark.parametrize("tile_rows, n_blocks", [(1, None), (3, 40), (2, 1), (512, 1)])
def test_linear_nested_pass_does_not_depend_on_the_tiling(tile_rows, n_blocks):
    """Tiles of one row, tiles that split a block unevenly, more blocks than rows (empty
    blocks), one block: the log-space kernel's losses every time."""
    *_, args = _tiling_case()
    lin, lin_sq, _ = st.nested_losses(*args, squares=True, n_blocks=n_blocks,
                                      tile_rows=tile_rows)
    ref, ref_sq, _ = st.nested_losses(*args, squares=True, linear=False)
    assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)
    assert_allclose(lin_sq, ref_sq, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_tile_size_takes_larger_tiles_for_tables_larger_than_the_cache():
    """60 attributes, 5 classes: 61 * (2 * 5 + 2) * 8 + 8 * 60 = 6,336 bytes per row, so
    330 rows in 2 MiB; a table over LARGE_TABLE_BYTES allows 1,024 rows in 8 MiB; an
    explicit number of rows is kept."""
    k = st.kernels
    assert k.tile_size(60, 5) == (1 << 21) // 6336 == 330
    assert k.tile_size(60, 5, table_bytes=k.LARGE_TABLE_BYTES) == 330
    assert k.tile_size(60, 5, table_bytes=k.LARGE_TABLE_BYTES + 1) == 1024
    assert k.tile_size(60, 5, 16, table_bytes=k.LARGE_TABLE_BYTES + 1) == 16
    assert k.tile_size(3, 2) == k.TILE_ROWS == 512


def test_tile_size_takes_a_block_that_fits_a_large_tile_as_one_tile():
    """A block of at most LARGE_TILE_ROWS rows whose sums fit in LARGE_TILE_BYTES is one
    tile, whatever the table's size; a larger block, or an explicit number of rows or
    bytes, keeps the tiles of before."""
    k = st.kernels
    assert k.tile_size(60, 5, block_rows=800) == 800
    assert k.tile_size(60, 5, table_bytes=k.LARGE_TABLE_BYTES + 1, block_rows=800) == 800
    assert k.tile_size(60, 5, block_rows=k.LARGE_TILE_ROWS) == k.LARGE_TILE_ROWS
    assert k.tile_size(60, 5, block_rows=k.LARGE_TILE_ROWS + 1) == 330
    assert k.tile_size(60, 5, block_rows=0) == 330
    assert k.tile_size(60, 5, 16, block_rows=800) == 16
    assert k.tile_size(60, 5, tile_bytes=1 << 21, block_rows=800) == 330
    # 61 * (2 * 50 + 2) * 8 + 480 = 50,256 bytes per row: 167 rows in 8 MiB
    assert k.tile_size(60, 50, block_rows=200) == (1 << 21) // 50256 == 41
    assert k.tile_size(60, 50, block_rows=166) == 166


@pytest.mark.parametrize("n_values", [(2,) * 8, (4,) * 6])
def test_linear_nested_pass_is_the_same_in_one_tile_per_block(n_values):
    """The default tiling (one tile per block when it fits) gives the losses of small
    tiles bit for bit (a tile changes when a row's sums are reset, not the order of any
    sum), with two-valued attributes (the select loops) and four-valued ones."""
    X, y = _data(n_rows=150, n_values=n_values, k=3, missing=0.0, seed=2)
    w = np.ones(len(y))
    table = _table(X, y, w, n_values, 3, 3)
    ranking = np.arange(len(n_values), dtype=np.int64)
    args = (table, ArraySource(X, y, w), ranking, 2, np.ones(len(n_values)), "m_estimate",
            1.0, 1, "rmse")
    one, one_sq, _ = st.nested_losses(*args, squares=True, n_blocks=2)
    for tile_rows in (7, 40):
        small, small_sq, _ = st.nested_losses(*args, squares=True, n_blocks=2,
                                              tile_rows=tile_rows)
        np.testing.assert_array_equal(one, small)
        np.testing.assert_array_equal(one_sq, small_sq)


@pytest.mark.parametrize("n_values, missing", [((2, 3, 2, 3, 2, 2), 0.1), ((4,) * 6, 0.0),
                                               ((4, 5, 3, 4, 2, 4), 0.15)])
def test_linear_nested_pass_streams_blocks_one_child_at_a_time(n_values, missing):
    """The union blocks streamed one child at a time (``prefetch_bytes`` 0: each child's
    block just before its rows' reads) or all together (a bound no combination reaches)
    only add reads: the losses are the default's bit for bit, with and without missing
    values, and equal the log-space reference to rounding."""
    X, y = _data(n_rows=120, n_values=n_values, k=3, missing=missing, seed=4)
    w = np.ones(len(y))
    table = _table(X, y, w, n_values, 3, 3)
    ranking = np.arange(len(n_values), dtype=np.int64)
    args = (table, ArraySource(X, y, w), ranking, 2, np.ones(len(n_values)), "m_estimate",
            1.0, 1, "rmse")
    default, default_sq, _ = st.nested_losses(*args, squares=True, n_blocks=2)
    for prefetch in (0, 1 << 40):
        other, other_sq, _ = st.nested_losses(*args, squares=True, n_blocks=2,
                                              prefetch_bytes=prefetch)
        np.testing.assert_array_equal(default, other)
        np.testing.assert_array_equal(default_sq, other_sq)
    log, _ = st.nested_losses(*args, linear=False, n_blocks=2)
    assert_allclose(default, log, rtol=1e-9, equal_nan=True)


def test_linear_nested_pass_of_single_row_chunks():
    """Chunks (and blocks) of one row."""
    X, y, w, table, ranking, args = _tiling_case()
    args = (table, ArraySource(X, y, w, chunk_rows=1), *args[2:])
    lin, _ = st.nested_losses(*args)
    ref, _ = st.nested_losses(*args, linear=False)
    assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_linear_nested_pass_rows_of_weight_zero_add_nothing():
    X, y, w, table, ranking, args = _tiling_case()
    assert np.sum(w == 0) >= 3
    lin, total = st.nested_losses(*args, tile_rows=4)
    keep = w > 0
    kept, kept_total = st.nested_losses(table, ArraySource(X[keep], y[keep], w[keep]),
                                        *args[2:], tile_rows=4)
    assert total == kept_total
    assert_allclose(lin, kept, rtol=1e-13, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("min_count", [6, 10])
def test_linear_nested_pass_with_rows_whose_pairs_never_qualify(min_count):
    """With a high min_count many rows have no qualifying pair (or parent) at some or every
    r: they cascade to the level below, as in the log-space kernel."""
    X, y, w, table, ranking, args = _tiling_case(min_count=min_count)
    # some row has no qualifying pair among all the attributes
    never = some = 0
    for t in np.flatnonzero(w > 0):
        h = min(w[t], 1.0)
        qualifies = [X[t, i] > 0 and X[t, j] > 0
                     and table.block([i, j])[X[t, i], X[t, j]].sum() - h >= min_count
                     for i, j in combinations(range(X.shape[1]), 2)]
        never += not any(qualifies)
        some += any(qualifies)
    assert never > 0 and some > 0
    for tile_rows in (1, 5, 512):
        lin, _ = st.nested_losses(*args, tile_rows=tile_rows)
        ref, _ = st.nested_losses(*args, linear=False)
        assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_linear_nested_pass_cascades_to_naive_bayes_when_nothing_qualifies():
    """min_count above every count: every model (L >= 1, r, s) is naive Bayes over the
    top-s children."""
    *_, args = _tiling_case()
    lin, _ = st.nested_losses(*args[:-2], 10 ** 6, "rmse", tile_rows=3)
    for level in (1, 2):
        for r in range(level, lin.shape[1]):
            assert_allclose(lin[level, r], lin[0, 0], rtol=1e-13)


def test_linear_nested_pass_branch_free_loop_on_whole_tiles():
    """No attribute is missing in the table and every row qualifies for every pair
    (min_count 0), so whole tiles take the branch-free child loop; with m = 0.01 and 70
    attributes the products fall below 2^-256 in the middle of a tile (renormalised there),
    and some rows of the pass (not of the table) have a missing child value (factor 1).
    Against the log-space kernel, on tiles of every size."""
    n_values, k = (5,) * 70, 3
    X, y = _data(n_rows=30, n_values=n_values, k=k, missing=0.0, seed=8)
    table = _table(X, y, np.ones(len(y)), n_values, k, 3)
    X_pass = np.array(X)
    X_pass[np.random.default_rng(8).random(X.shape) < 0.03] = 0
    X_pass[:, :3] = X[:, :3]  # the top-ranked parents stay observed
    ranking = np.arange(len(n_values), dtype=np.int64)
    for source in (ArraySource(X, y), ArraySource(np.asfortranarray(X_pass), y)):
        args = (table, source, ranking, 2, np.ones(len(n_values)), "m_estimate", 0.01, 0,
                "log_loss")
        ref, _ = st.nested_losses(*args, linear=False)
        finite = np.isfinite(ref)
        assert finite[2, 2:, :].any()
        for tile_rows, n_blocks in ((512, None), (7, 2), (30, 1)):
            lin, _ = st.nested_losses(*args, n_blocks=n_blocks, tile_rows=tile_rows)
            assert_allclose(lin[finite], ref[finite], rtol=1e-11, atol=1e-13)


def test_child_scales_are_powers_of_two_near_the_numbers_of_values():
    """2 ** round(log2 |X_c|) (a ratio of exactly 1.5 rounds down), at least 1, while their
    product stays within 2 ** SCALE_BITS; every scale 1 for the log loss."""
    k = st.kernels
    rmse, log_loss = st.loss_kernels.LOSSES["rmse"], st.loss_kernels.LOSSES["log_loss"]
    assert k.child_scales([1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 0], rmse).tolist() == [
        1.0, 2.0, 2.0, 4.0, 4.0, 4.0, 8.0, 8.0, 8.0, 16.0, 1.0]
    assert k.child_scales([8, 8, 8], st.loss_kernels.LOSSES["zero_one"]).tolist() == [8.0] * 3
    assert k.child_scales([8, 8, 8], log_loss).tolist() == [1.0] * 3
    capped = k.child_scales([8] * 100, rmse)
    n_scaled = k.SCALE_BITS // 3
    assert capped[:n_scaled].tolist() == [8.0] * n_scaled
    assert capped[n_scaled:].tolist() == [1.0] * (100 - n_scaled)


@pytest.mark.parametrize("loss", ["rmse", "zero_one"])
@pytest.mark.parametrize("missing, smoothing", [(0.0, "m_estimate"), (0.05, "m_estimate"),
                                                (0.0, "laplace")])
def test_linear_nested_pass_scales_change_no_loss(loss, missing, smoothing):
    """The children's scales multiply every sum of a model's column by one power of 2:
    the RMSE and zero-one losses are bit for bit those without scales (every scale 1,
    products below 2^-256 in blocks), with the default scales (no product leaves block 0)
    and with scales of 2^40 (products above 2^256 renormalised upwards), on tiles of every
    size (the same tiles: they set the order of the sums over rows); and the same as the
    log-space kernel's to rounding."""
    n_values, k = (8,) * 60, 3
    X, y = _data(n_rows=60, n_values=n_values, k=k, missing=missing, seed=11)
    if missing == 0.0:
        X[X == 0] = 1
    table = _table(X, y, np.ones(len(y)), n_values, k, 3)
    ranking = np.arange(len(n_values), dtype=np.int64)[::-1].copy()
    args = (table, ArraySource(X, y), ranking, 2, np.ones(len(n_values)), smoothing, 0.1, 1,
            loss)
    ones = np.ones(len(n_values))
    if smoothing == "m_estimate":  # without scales products left block 0 (the case they avoid)
        smallest = min(_ref_scores(table, X[0], 2, (u, u + 1), range(60), ones, 0.1, False,
                                   1).min() for u in range(0, 59, 2))
        assert smallest < -256 * math.log(2.0)
    for tile_rows, n_blocks in ((None, None), (7, 3), (1, 2)):
        tiling = {"tile_rows": tile_rows, "n_blocks": n_blocks}  # (the order of the sums)
        plain, plain_sq, _ = st.nested_losses(*args, squares=True, scales=ones, **tiling)
        for scales in (None, np.full(len(n_values), 2.0 ** 40)):
            lin, lin_sq, _ = st.nested_losses(*args, squares=True, scales=scales, **tiling)
            assert np.array_equal(lin, plain, equal_nan=True)
            assert np.array_equal(lin_sq, plain_sq, equal_nan=True)
    if loss == "rmse":  # (the zero-one loss breaks near-ties by rounding)
        ref, _ = st.nested_losses(*args, linear=False)
        assert_allclose(plain, ref, rtol=1e-11, atol=1e-13, equal_nan=True)


def test_nested_losses_need_a_table_of_order_n_plus_one():
    """The children of order-n parents are read from the order-(n + 1) counts: a table of
    order n is refused (the kernels would read other combinations' counts), one of order
    n + 1 accepted, and order a suffices for n = a (every attribute a parent)."""
    n_values, k = (2, 3, 2, 3), 3
    X, y = _data(n_values=n_values, k=k)
    source = ArraySource(X, y)
    ranking = np.arange(4, dtype=np.int64)
    for order, n, ok in ((2, 2, False), (1, 1, False), (3, 2, True), (4, 4, True),
                         (3, 3, False)):
        table = _table(X, y, np.ones(len(y)), n_values, k, order)
        args = (table, source, ranking, n, np.ones(4), "m_estimate", 1.0, 1, "rmse")
        if ok:
            losses, total = st.nested_losses(*args)
            assert total == len(y) and np.isfinite(losses[n, n:, :]).all()
        else:
            with pytest.raises(ValueError, match="table of order"):
                st.nested_losses(*args)


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_linear_nested_pass_with_union_blocks_larger_than_the_prefetch(missing):
    """Attributes of 40 values: one pair's union blocks take more than PREFETCH_BYTES, so
    the pass reads them without streaming them into the cache first (the streaming loop is
    skipped); the losses are the log-space kernel's."""
    n_values, k = (40, 40, 40, 6), 2
    X, y = _data(n_rows=120, n_values=n_values, k=k, missing=missing, seed=4)
    table = _table(X, y, np.ones(len(y)), n_values, k, 3)
    pair_blocks = (41 ** 3 + 41 * 41 * 7) * k * 4  # pair (0, 1)'s children, float32 counts
    assert pair_blocks > st.kernels.nested.PREFETCH_BYTES
    ranking = np.array([0, 1, 2, 3], dtype=np.int64)
    args = (table, ArraySource(X, y), ranking, 2, np.ones(len(n_values)), "m_estimate", 1.0,
            1, "rmse")
    lin, lin_sq, _ = st.nested_losses(*args, squares=True, tile_rows=32)
    ref, ref_sq, _ = st.nested_losses(*args, squares=True, linear=False)
    assert np.isfinite(lin[2, 2:, 1:]).all()
    assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)
    assert_allclose(lin_sq, ref_sq, rtol=1e-12, atol=1e-13, equal_nan=True)


@pytest.mark.parametrize("loss", ["rmse", "log_loss"])
@pytest.mark.parametrize("missing", [0.0, 0.04])
def test_linear_nested_pass_of_binary_attributes(loss, missing):
    """Children with two values under pairs of parents with two values: the factors are
    chosen among 16 numbers by selects (``_select_plain``) in tiles whose rows have no
    missing value and one held-out amount, the union cells read otherwise (with missing
    values, tiles of 5 rows or of one: both kinds of tile in one pass).  The losses equal
    the log-space kernel's, and with scales of 2^40 (every product renormalised upwards:
    ``_select_block``) bit for bit those without scales."""
    n_values, k = (2,) * 30 + (3,) * 2, 3
    X, y = _data(n_rows=64, n_values=n_values, k=k, missing=missing, seed=21)
    if missing == 0.0:
        X[X == 0] = 1
    table = _table(X, y, np.ones(len(y)), n_values, k, 3)
    ranking = np.random.default_rng(3).permutation(len(n_values)).astype(np.int64)
    args = (table, ArraySource(X, y), ranking, 2, np.ones(len(n_values)), "m_estimate", 0.5,
            1, loss)
    ref, ref_sq, _ = st.nested_losses(*args, squares=True, linear=False)
    ones = np.ones(len(n_values))
    tile_rows, n_blocks = (5, 2) if missing else (None, None)
    lin, lin_sq, _ = st.nested_losses(*args, squares=True, tile_rows=tile_rows,
                                      n_blocks=n_blocks, scales=ones)
    assert_allclose(lin, ref, rtol=1e-12, atol=1e-13, equal_nan=True)
    assert_allclose(lin_sq, ref_sq, rtol=1e-11, atol=1e-13, equal_nan=True)
    if loss == "rmse":
        big, big_sq, _ = st.nested_losses(*args, squares=True, tile_rows=tile_rows,
                                          n_blocks=n_blocks,
                                          scales=np.full(len(n_values), 2.0 ** 40))
        assert np.array_equal(big, lin, equal_nan=True)
        assert np.array_equal(big_sq, lin_sq, equal_nan=True)
    # tiles of one row (with missing values: the rows without one by selects, the others
    # from the union cells, in one pass)
    one, one_sq, _ = st.nested_losses(*args, squares=True, tile_rows=1, n_blocks=1)
    assert_allclose(one, ref, rtol=1e-12, atol=1e-13, equal_nan=True)
    assert_allclose(one_sq, ref_sq, rtol=1e-11, atol=1e-13, equal_nan=True)


def test_left_block_zero_is_the_test_of_each_product():
    """``_left_block_zero`` (largest and smallest bits, read after the loop of products)
    says whether some product is in (0, _TINY) or at least _BLOCK, as testing each product
    does (the test it replaced): at the edges (0, the smallest subnormal, _TINY and the
    doubles next to it, _BLOCK and the doubles next to it, infinity) and on random
    products of every block, of any length (the vectorised loop and its remainder)."""
    nested = st.kernels.nested
    tiny, block = nested._TINY, nested._BLOCK
    edges = [0.0, 5e-324, np.nextafter(tiny, 0.0), tiny, np.nextafter(tiny, 1.0), 1.0,
             np.nextafter(block, 0.0), block, np.nextafter(block, np.inf), np.inf]

    def by_product(p):
        return bool((((p < tiny) & (p > 0.0)) | (p >= block)).any())

    rng = np.random.default_rng(5)
    cases = [np.array([v]) for v in edges]
    cases += [np.array([1.0, v, 0.5] * 7) for v in edges]
    for n in (1, 7, 8, 9, 31, 64, 100):
        exps = rng.integers(-300, 300, n)
        p = rng.uniform(1.0, 2.0, n) * 2.0 ** exps.astype(np.float64)
        p[rng.random(n) < 0.2] = 0.0
        cases.append(p)
        cases.append(np.clip(p, tiny, np.nextafter(block, 0.0)))  # every product inside
        cases.append(np.where(p > 0, np.clip(p, tiny, np.nextafter(block, 0.0)), 0.0))
    seen = set()
    for p in cases:
        p = np.ascontiguousarray(p, dtype=np.float64)
        expected = by_product(p)
        seen.add(expected)
        assert nested._left_block_zero(p, p.size) is expected, p
        # only the first n products are read
        assert nested._left_block_zero(np.append(p, np.inf), p.size) is expected
    assert seen == {True, False}


@pytest.mark.parametrize("n_values", [2, 3, 4, 5])
def test_linear_nested_pass_renormalises_products_both_ways(n_values):
    """Scales of 2^60 and 2^-60 per child push the products above _BLOCK and below _TINY
    after a few children and, over 24 children, beyond the range of doubles unless they
    are renormalised (2-5 values, 2-5 classes, with missing values and in tiles without
    them): the products that left block 0 are found after each child's loop
    (``_left_block_zero``) and renormalised, so the RMSE losses are bit for bit those with
    scales 1 on the same tiles (a power of 2 changes no rounding), and the same as the
    log-space kernel's to rounding."""
    for k, missing in ((2, 0.0), (3, 0.05), (4, 0.0), (5, 0.05)):
        values = (n_values,) * 24
        X, y = _data(n_rows=48, n_values=values, k=k, missing=missing, seed=n_values + k)
        if missing == 0.0:
            X[X == 0] = 1
        table = _table(X, y, np.ones(len(y)), values, k, 3)
        ranking = np.random.default_rng(k).permutation(len(values)).astype(np.int64)
        args = (table, ArraySource(X, y), ranking, 2, np.ones(len(values)), "m_estimate",
                0.5, 1, "rmse")
        ones = np.ones(len(values))
        for tile_rows in (None, 5):  # (the tiles set the order of the sums over rows)
            plain, plain_sq, _ = st.nested_losses(*args, squares=True, scales=ones,
                                                  tile_rows=tile_rows)
            for scale in (2.0 ** 60, 2.0 ** -60):
                lin, lin_sq, _ = st.nested_losses(*args, squares=True, scales=ones * scale,
                                                  tile_rows=tile_rows)
                assert np.array_equal(lin, plain, equal_nan=True)
                assert np.array_equal(lin_sq, plain_sq, equal_nan=True)
        ref, _ = st.nested_losses(*args, linear=False)
        assert_allclose(plain, ref, rtol=1e-11, atol=1e-13, equal_nan=True)
