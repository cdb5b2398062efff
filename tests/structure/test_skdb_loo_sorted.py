"""Selective KDB's leave-one-out pass without a Gaussian child visits the rows sorted by
their codes and reuses what the previous row found (tree paths, counts, factors): the summed
losses of every block are those of the row-by-row kernel bit for bit, whatever the data
(repeated rows, missing values, weights, a tiny m, few or many candidates), the windows
and the threads."""

import numba
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from test_structure_common import random_nominal

from seminaive import ESKDB, SKDB
from seminaive.structure import _skdb_kernels


@pytest.fixture
def both_passes(monkeypatch):
    """Run every leave-one-out pass twice, sorted and row by row, and record both sums."""
    kernel = _skdb_kernels.nested_kdb_loo
    calls = []

    def twice(*args):
        out = args[-1]
        plain = np.zeros_like(out)
        kernel(*args[:-1], plain, reuse=False)
        kernel(*args)
        calls.append((out.copy(), plain))

    monkeypatch.setattr(_skdb_kernels, "nested_kdb_loo", twice)
    return calls


def _check(calls):
    assert calls
    for sorted_out, plain in calls:
        assert_array_equal(sorted_out, plain)
        assert np.isfinite(plain).all()


def _repeated(n, a, values, k, seed, missing=0.0):
    """Few values per attribute, so that many rows share prefixes or repeat entirely."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = np.where(rng.random((n, a)) < 0.5, (y[:, None] + np.arange(a)) % values,
                 rng.integers(0, values, (n, a))).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(a)]).astype("category")
    return frame, y


@pytest.mark.parametrize("loss", ["rmse", "zero_one", "log_loss"])
@pytest.mark.parametrize("k, min_count, missing", [(3, 1, 0.0), (2, 3, 0.2), (0, 1, 0.1),
                                                   (5, 1, 0.05)])
def test_sorted_pass_is_the_row_by_row_pass(both_passes, loss, k, min_count, missing):
    X, y = _repeated(400, 7, 3, 3, seed=k + 10 * min_count, missing=missing)
    SKDB(k=k, loss=loss, min_count=min_count).fit(X, y)
    _check(both_passes)


def test_sorted_pass_with_weights(both_passes):
    X, y = _repeated(300, 6, 4, 2, seed=3, missing=0.1)
    w = np.random.default_rng(4).choice([0.0, 0.25, 1.0, 1.0, 2.5, 3.0], size=len(y))
    SKDB(k=3).fit(X, y, sample_weight=w)
    SKDB(k=2, loss="log_loss", min_count=2).fit(X, y, sample_weight=np.round(w))
    _check(both_passes)


def test_sorted_pass_with_a_tiny_m(both_passes):
    # m = 1e-250: the estimate of a class the held-out row leaves without rows falls below
    # 2**-200 and keeps the rest of its scale as a logarithm
    X, y = _repeated(200, 8, 3, 3, seed=7)
    for loss in ("rmse", "log_loss"):
        SKDB(k=2, m=1e-250, loss=loss).fit(X, y)
    _check(both_passes)


def test_sorted_pass_in_windows_and_threads(both_passes, monkeypatch):
    # windows of 37 rows: the sort and the reuse start again in every window; the sums are
    # those of one window, with one thread and with two (the blocks follow the threads)
    X, y = random_nominal(500, [3, 2, 4, 3, 2, 3], 3, missing=0.1, seed=2, dependence=0.5)
    before = numba.get_num_threads()
    whole = _skdb_kernels._WINDOW_BYTES
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            for window in (whole, 37 * 8 * 4 * 7):
                monkeypatch.setattr(_skdb_kernels, "_WINDOW_BYTES", window)
                SKDB(k=3, categorical_features="all").fit(X, y)
    finally:
        numba.set_num_threads(before)
    _check(both_passes)
    assert len(both_passes) == 4
    assert_array_equal(both_passes[0][0], both_passes[1][0])
    assert_array_equal(both_passes[2][0], both_passes[3][0])


def test_eskdb_members_sorted_pass(both_passes):
    rng = np.random.default_rng(11)
    n = 600
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], size=n)),
                      "d": rng.normal(size=n)})
    y = np.where(1.5 * X["a"] - X["b"] ** 2 + (X["c"] == "u") + rng.logistic(size=n) > 0,
                 "pos", "neg")
    ESKDB(n_estimators=4, k=2, smoothing="hls", random_state=0).fit(X, y)
    assert len(both_passes) == 4
    _check(both_passes)


def test_sorted_pass_with_many_classes(both_passes):
    # 9 classes, of which rows sharing a prefix of candidate values have only some: the
    # merged trees' nodes list only the classes present
    X, y = _repeated(500, 6, 4, 9, seed=5, missing=0.05)
    SKDB(k=3).fit(X, y)
    SKDB(k=2, loss="zero_one", min_count=2).fit(X, y)
    _check(both_passes)


def _loo_arguments(monkeypatch, X, y, **fit_params):
    """The arguments of every leave-one-out pass of ``SKDB(k=3).fit(X, y, **fit_params)``."""
    seen = []
    kernel = _skdb_kernels.nested_kdb_loo

    def keep(*args, **kwargs):
        seen.append(args)
        kernel(*args, **kwargs)

    monkeypatch.setattr(_skdb_kernels, "nested_kdb_loo", keep)
    SKDB(k=3).fit(X, y, **fit_params)
    return seen


def test_class_index_is_every_class_tree_merged(monkeypatch):
    """Every node of the trees merged over the classes lists, for each class in order, the
    node its count tree reaches along the same values (brute force: the walk of every
    class's tree, for every row, attribute and number of candidates)."""
    from seminaive.structure._sparse import find_child

    X, y = _repeated(300, 5, 3, 5, seed=9, missing=0.1)
    seen = _loo_arguments(monkeypatch, X, y)
    (codes, _, _, _), (_, n_cand, candidates, _), trees, pairs = seen[0][:4]
    index = _skdb_kernels.class_index(trees, candidates, pairs.sizes)
    sizes, k = pairs.sizes, pairs.k
    checked = 0
    for row in codes:
        for i in range(codes.shape[1]):
            q = index.root[i]
            nodes = [find_child(trees.code, trees.first_child, trees.n_children,
                                trees.root[i], yy) for yy in range(k)]
            for t in range(int(n_cand[i]) + 1):
                members = dict(zip(
                    index.member_class[index.member_start[q]:
                                       index.member_start[q] + index.n_members[q]].tolist(),
                    index.member_node[index.member_start[q]:
                                      index.member_start[q] + index.n_members[q]].tolist(),
                    strict=True))
                got = [members.get(yy, -1) for yy in range(k)]
                assert got == nodes
                assert list(members) == sorted(members)
                checked += 1
                if t == n_cand[i]:
                    break
                p = candidates[i, t]
                x = int(row[p])
                start = int(index.first[q])
                kids = index.value[start:start + index.n_children[q]]
                assert (np.diff(kids) > 0).all()
                pos = int(np.searchsorted(kids, x))
                q = start + pos if pos < kids.size and kids[pos] == x else -1
                nodes = [find_child(trees.code, trees.first_child, trees.n_children, g,
                                    trees.code[g] * sizes[p] + x) if g >= 0 else -1
                         for g in nodes]
                if q < 0:
                    assert nodes == [-1] * k
                    break
    assert checked > 1000


@pytest.mark.parametrize("min_count", [0, 6, 40])
def test_sorted_pass_stops_where_too_few_rows_remain(both_passes, min_count):
    # the walk down a merged tree stops at the first node whose subtree has no node of
    # min_count rows besides the held-out row's (its levels below fall back to P(x_i | y));
    # with weights the counts are not whole numbers
    X, y = _repeated(400, 7, 4, 3, seed=min_count, missing=0.05)
    SKDB(k=4, min_count=min_count).fit(X, y)
    w = np.random.default_rng(min_count).choice([0.3, 1.0, 1.7, 4.0], size=len(y))
    SKDB(k=3, min_count=min_count, loss="log_loss").fit(X, y, sample_weight=w)
    _check(both_passes)


def test_packed_merged_nodes(monkeypatch):
    """The packed records of the merged nodes (_pack_members) hold every node's children,
    members (class, counts of rows, of rows with the child observed and of every value:
    those of the class's count-tree node) and the largest count of rows in its subtree
    (brute force over the descendants)."""
    X, y = _repeated(300, 5, 3, 4, seed=12, missing=0.1)
    seen = _loo_arguments(monkeypatch, X, y,
                          sample_weight=np.random.default_rng(0).uniform(0.1, 2.0, len(y)))
    _, (_, _, candidates, _), trees, pairs = seen[0][:4]
    sizes = pairs.sizes
    index = _skdb_kernels.class_index(trees, candidates, sizes)
    freq = np.empty(trees.code.size)
    den = np.empty(trees.code.size)
    _skdb_kernels.node_sums(trees, sizes, freq, den)
    n_nav, n_rec = _skdb_kernels._packed_sizes(index, sizes)
    nav = np.zeros(n_nav, dtype=np.int64)
    rec = np.full(n_rec, np.nan)
    _skdb_kernels._pack_members(index, freq, den, trees.value_off, trees.values, sizes, nav,
                                rec)
    assert not np.isnan(rec).any()
    top = nav.view(np.float64)
    low = 2 ** 32 - 1
    width = _skdb_kernels._NAV
    roots = index.root.tolist() + [index.n_members.size]
    own_freq = {}
    for i in range(len(index.root)):
        for q in range(roots[i], roots[i + 1]):
            start, c = index.member_start[q], index.n_members[q]
            assert nav[width * q + 1] & low == index.first[q]
            assert nav[width * q + 1] >> 32 == c
            assert nav[width * q] >> 32 == index.n_children[q]
            if q != index.root[i]:
                assert nav[width * q] & low == index.value[q]
            b = nav[width * q + 2]
            nodes = index.member_node[start:start + c]
            assert top[width * q + 4] == pytest.approx(freq[nodes].sum(), rel=1e-12, abs=0)
            own_freq[q] = top[width * q + 4]
            assert rec[b:b + c].tolist() == index.member_class[start:start + c].tolist()
            assert rec[b + c:b + 2 * c].tolist() == den[nodes].tolist()
            for v in range(sizes[i]):
                got = rec[b + (2 + v) * c:b + (3 + v) * c]
                assert got.tolist() == [trees.values[trees.value_off[g] + v] for g in nodes]

    def subtree(q):
        kids = range(index.first[q], index.first[q] + index.n_children[q])
        return max([own_freq[q]] + [subtree(d) for d in kids])

    for q in own_freq:
        assert top[width * q + 3] == subtree(q)


@pytest.mark.parametrize("min_count", [0, 1, 3])
def test_sorted_pass_with_a_tiny_m_many_classes_and_weights(both_passes, min_count):
    # consecutive rows of the sort that share an attribute's counts but not their class
    # read the held-out class's counts from where the models' counts are (a merged
    # node's record, the order-1 counts, or none); with m = 1e-250 some factors keep a
    # logarithm (only some models', some classes'), with weights the held-out amounts
    # differ
    X, y = _repeated(400, 6, 3, 7, seed=20 + min_count, missing=0.05)
    w = np.random.default_rng(min_count).choice([0.5, 1.0, 1.0, 2.0], size=len(y))
    for loss in ("rmse", "zero_one", "log_loss"):
        SKDB(k=3, m=1e-250, loss=loss, min_count=min_count).fit(X, y, sample_weight=w)
        SKDB(k=4, loss=loss, min_count=min_count).fit(X, y)
    _check(both_passes)


def _sweep_losses(prior, factors, flags, k, yr, kind, n_k, a):
    """The losses of :func:`_skdb_kernels._sweep` for one row."""
    losses = np.full((n_k, a + 1), np.nan)
    state = (np.empty((n_k, k)), np.empty((n_k, k)), np.zeros(n_k, dtype=np.bool_),
             np.empty(n_k))
    _skdb_kernels._sweep(prior, factors, flags, (k, yr, kind), state, losses)
    return losses


@pytest.mark.parametrize("kind", [0, 1, 2])  # rmse, zero_one, log_loss
@pytest.mark.parametrize("seed", range(6))
def test_sweep_computes_the_larger_k_of_few_candidates_once(kind, seed):
    """The models of k above the most candidates of the attributes so far share the
    factors of the model of that k (an attribute of nc < k candidates has those of
    k = nc): the sweep computes them once and copies their losses, the same bit for bit
    as the sweep computing every model (with tiny products, rescaled; factors keeping a
    logarithm; missing attributes; models falling back to k = 0's factors)."""
    rng = np.random.default_rng(seed)
    a, n_k, k = 9, 6, 5
    yr = int(rng.integers(k))
    prior = rng.uniform(0.05, 1.0, k)
    base_f = rng.uniform(0.01, 1.0, (a, n_k, k))
    if seed % 2:  # products below 2**-800: rescaled, some classes shifted
        base_f[rng.random(base_f.shape) < 0.3] *= 1e-120
    base_e = np.zeros((a, n_k, k))
    split_j = np.zeros((a, n_k), dtype=np.bool_)
    own_f = np.empty((a, n_k))
    own_e = np.zeros((a, n_k))
    fj = np.empty((a, n_k), dtype=np.int64)
    # attribute rho has at most rho candidates (fewer at random)
    n_cand = np.minimum(np.arange(a), rng.integers(0, n_k + 2, a))
    for rho in range(a):
        nc = min(int(n_cand[rho]), n_k - 1)
        for j in range(n_k):
            fj[rho, j] = j if j <= nc else fj[rho, nc]  # (k > nc: those of k = nc)
            if 0 < j <= nc and rng.random() < 0.25:  # too few rows: k = 0's factors
                fj[rho, j] = 0
        own_f[rho] = rng.uniform(0.01, 1.0, n_k)[fj[rho]]
        if seed >= 3 and rng.random() < 0.4:  # some factors keep a logarithm
            rows = np.unique(fj[rho])
            part = -_skdb_kernels._LOG_SPLIT * rng.integers(1, 3, (rows.size, k))
            part[rng.random(part.shape) < 0.5] = 0.0
            base_e[rho, rows] = part
            split_j[rho] = (base_e[rho, fj[rho]] != 0.0).any(axis=1)
            own_e[rho] = np.where(rng.random(n_k) < 0.3, -_skdb_kernels._LOG_SPLIT, 0.0)[
                fj[rho]]
    missing = rng.random(a) < 0.2
    # (a missing attribute has no factors: none keeps a logarithm)
    has_extra = (split_j.any(axis=1) | (own_e != 0.0).any(axis=1)) & ~missing
    tops = np.minimum(np.maximum.accumulate(n_cand), n_k - 1).astype(np.int64)
    assert tops[0] == 0 and tops[-1] > 1
    shared = _sweep_losses(prior, (base_f, base_e, own_f, own_e, fj, split_j),
                           (missing, has_extra, bool(has_extra.any()), tops), k, yr, kind,
                           n_k, a)
    # every model computed, its factors in a row of its own
    own_rows = np.broadcast_to(np.arange(n_k), (a, n_k)).copy()
    rows = np.arange(a)[:, None]
    every = np.full(a, n_k - 1, dtype=np.int64)
    alone = _sweep_losses(prior, (base_f[rows, fj], base_e[rows, fj], own_f, own_e,
                                  own_rows, split_j),
                          (missing, has_extra, bool(has_extra.any()), every), k, yr, kind,
                          n_k, a)
    assert_array_equal(shared, alone)
    assert not np.isnan(shared).any()
    # the losses of rmse from the products themselves (within rounding)
    if kind == 0 and seed % 2 == 0 and seed < 3:
        factors = base_f[rows, fj].copy()
        factors[rows, np.arange(n_k)[None, :], yr] = own_f
        factors[missing] = 1.0
        products = prior * np.cumprod(factors, axis=0)  # (a, n_k, k)
        expected = (1.0 - products[..., yr] / products.sum(axis=2)) ** 2
        np.testing.assert_allclose(shared[:, 1:], expected.T, rtol=1e-10)


def test_eskdb_members_reuse_their_buffers(monkeypatch):
    """ESKDB's members' leave-one-out passes take their scratch arrays from their thread's
    buffers (one set per thread, not per member), which every pass writes before it
    reads: with the buffers filled with garbage whenever they are taken, the members'
    losses and the model are the same bit for bit as with fresh arrays."""
    rng = np.random.default_rng(3)
    n = 500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w", "z"], size=n)),
                      "d": rng.normal(size=n), "e": rng.integers(0, 5, n).astype(float)})
    y = np.where(X["a"] - X["b"] ** 2 + (X["c"] == "u") + 0.3 * X["e"]
                 + rng.logistic(size=n) > 0, "pos", "neg")
    X.loc[rng.random(n) < 0.05, "d"] = np.nan

    def fit():
        model = ESKDB(n_estimators=5, k=3, smoothing="hls", random_state=1).fit(X, y)
        return model, np.array([m.loo_loss_ for m in model.estimators_])

    fresh_model, fresh = fit()
    take = _skdb_kernels.Buffers.take
    spaces = []
    init = _skdb_kernels.Buffers.__init__

    def counted(self):
        spaces.append(self)
        init(self)

    def dirty(self, name, size, dtype):
        out = take(self, name, size, dtype)
        out[...] = -12345 if np.dtype(dtype).kind == "i" else np.nan
        return out

    monkeypatch.setattr(_skdb_kernels.Buffers, "__init__", counted)
    monkeypatch.setattr(_skdb_kernels.Buffers, "take", dirty)
    model, reused = fit()
    assert 1 <= len(spaces) <= numba.get_num_threads()
    assert_array_equal(reused, fresh)
    assert_array_equal(model.predict_proba(X), fresh_model.predict_proba(X))
