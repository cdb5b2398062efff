"""Kernel-smoothed binned children (``density="kde"``, ``seminaive.tables.binned``).

Checked against a brute-force naive Bayes written with NumPy and scipy from the definition
(grid, bins, kernel, leave-one-out choice by removing every row in turn), against the
invariant that every estimate is a density, and through the routes: ``partial_fit`` counts
every chunk on the first chunk's grid, merged tables equal one table, model files keep the
counts, and the learners that cannot score it refuse it.
"""

import functools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from seminaive import AODE, KDB, SAODE, AnDE, NaiveBayes
from seminaive.exceptions import PartialFitWarning
from seminaive.persistence import load_model, save_model
from seminaive.tables import binned


def _frame(n=80, seed=0):
    """Two numeric columns: ``a`` shifted by the class, ``b`` with a spike of zeros."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.normal(y * 1.5, 1.0 + 0.5 * y)
    b = np.where(rng.random(n) < 0.4 + 0.3 * y, 0.0, rng.exponential(1.0 + y, n))
    return pd.DataFrame({"a": a, "b": b}), y


def _brute_edges(col):
    q = np.quantile(col, np.linspace(0, 1, 33))
    u = np.unique(q)
    inner = (u[1:] + u[:-1]) / 2
    return np.concatenate([[u[0] - (inner[0] - u[0])], inner, [u[-1] + (u[-1] - inner[-1])]])


@functools.cache
def _brute_kernel(nb, h):
    K = norm.pdf(np.subtract.outer(np.arange(nb), np.arange(nb)) / h)
    return K / K.sum(axis=0)


def _brute_estimate(bins_y, bins_all, nb, h, m):
    """Bin probabilities of a class from its rows' bins, towards all rows' bins: every row
    spreads its unit mass by the kernel's column of its bin."""
    K = _brute_kernel(nb, h)
    S_y = K @ np.bincount(bins_y, minlength=nb)
    S_all = K @ np.bincount(bins_all, minlength=nb)
    return (S_y + m * S_all / len(bins_all)) / (len(bins_y) + m)


def _brute_bandwidth(n):
    """6 bins at 300 rows, at the rate n^(-1/5) of a kernel density's bandwidth, kept
    within 1 and 8 bins."""
    return min(max(6.0 * (n / 300.0) ** -0.2, 1.0), 8.0)


def _brute_choice(bins, y):
    h = _brute_bandwidth(len(bins))
    best, choice = -np.inf, None
    for m in binned.MIXTURES:
        total = 0.0
        for r in range(len(bins)):  # every row scored by the estimate made without it
            keep = np.arange(len(bins)) != r
            f = _brute_estimate(bins[keep & (y == y[r])], bins[keep], NB_BINS[0], h, m)
            total += np.log(f[bins[r]])
        if total > best + 1e-9:
            best, choice = total, (h, m)
    return choice


NB_BINS = [0]


def _brute_nb_scores(X_grid, X_count, y, query, m_prior=1.0):
    """log P(y) + sum of log binned densities, from the definition."""
    out = np.zeros((len(query), 2))
    n = len(y)
    for yy in range(2):
        out[:, yy] = np.log(((y == yy).sum() + m_prior / 2) / (n + m_prior))
    for col in X_grid.columns:
        edges = _brute_edges(X_grid[col].to_numpy())
        nb = edges.size - 1
        NB_BINS[0] = nb
        bins = np.searchsorted(edges[1:-1], X_count[col].to_numpy(), side="right")
        qbins = np.searchsorted(edges[1:-1], query[col].to_numpy(), side="right")
        h, m = _brute_choice(bins, y)
        width = np.maximum(np.diff(edges), binned.WIDTH_FLOOR * (edges[-1] - edges[0]) / nb)
        for yy in range(2):
            f = _brute_estimate(bins[y == yy], bins, nb, h, m)
            out[:, yy] += np.log(f[qbins] / width[qbins])
    return out


def test_naive_bayes_equals_brute_force():
    X, y = _frame()
    query = pd.DataFrame({"a": [-3.0, 0.2, 1.4, 9.0], "b": [0.0, 0.0, 0.7, 30.0]})
    model = NaiveBayes(numeric="gaussian", density="kde").fit(X, y)
    np.testing.assert_allclose(model._scores(query), _brute_nb_scores(X, X, y, query),
                               rtol=1e-9, atol=1e-9)


def test_one_parent_cells_equal_brute_force():
    """AODE's children given a nominal parent: every (parent value, class) cell mixes its
    smoothed counts towards the class-level estimate with m_1 pseudo-rows, m_1 chosen by
    removing every row in turn from its cell and from the class-level estimate."""
    X, y = _frame(90, seed=13)
    rng = np.random.default_rng(13)
    X = pd.DataFrame({"a": X["a"], "c": np.where(rng.random(90) < 0.5 + 0.3 * y, "u", "v")})
    X.loc[X.index[:4], "c"] = "w"  # a sparse cell
    model = AODE(numeric="gaussian", density="kde").fit(X, y)
    moments = model.table_.moments
    log_density, choice = moments.kde_estimates()
    edges = _brute_edges(X["a"].to_numpy())
    nb = edges.size - 1
    NB_BINS[0] = nb
    bins = np.searchsorted(edges[1:-1], X["a"].to_numpy(), side="right")
    parent = model.chunk_encoder()(X, y)[0][:, 1]
    h, m0 = _brute_choice(bins, y)
    K = _brute_kernel(nb, h)
    best, m1 = -np.inf, None
    for m in binned.MIXTURES:
        total = 0.0
        for r in range(len(bins)):
            keep = np.arange(len(bins)) != r
            cell = bins[keep & (y == y[r]) & (parent == parent[r])]
            f0 = _brute_estimate(bins[keep & (y == y[r])], bins[keep], nb, h, m0)
            f = (K @ np.bincount(cell, minlength=nb) + m * f0) / (len(cell) + m)
            total += np.log(f[bins[r]])
        if total > best + 1e-9:
            best, m1 = total, m
    assert choice[0] == (h, (m0, m1))
    width = np.maximum(np.diff(edges), binned.WIDTH_FLOOR * (edges[-1] - edges[0]) / nb)
    e = moments.index[((1,), 0)]
    block = log_density[moments.offsets[e] // 3:moments.offsets[e + 1] // 3].reshape(
        int(moments.sizes[1]), 2, moments.n_grid)
    for v in np.unique(parent):
        for yy in range(2):
            f0 = _brute_estimate(bins[y == yy], bins, nb, h, m0)
            cell = bins[(y == yy) & (parent == v)]
            f = (K @ np.bincount(cell, minlength=nb) + m1 * f0) / (len(cell) + m1)
            np.testing.assert_allclose(block[v, yy, :nb], np.log(f / width), rtol=1e-10,
                                       atol=1e-12)


def test_partial_fit_counts_every_chunk_on_the_first_chunks_grid():
    X, y = _frame(120, seed=3)
    query = _frame(10, seed=9)[0]
    model = NaiveBayes(numeric="gaussian", density="kde")
    model.partial_fit(X.iloc[:60], y[:60], classes=[0, 1])
    with pytest.warns(PartialFitWarning, match="first chunk"):
        model.partial_fit(X.iloc[60:], y[60:])
    np.testing.assert_allclose(model._scores(query),
                               _brute_nb_scores(X.iloc[:60], X, y, query), rtol=1e-9,
                               atol=1e-9)


def test_loo_log_likelihood_removes_each_row():
    rng = np.random.default_rng(2)
    bins, y, nb = rng.integers(0, 6, 25), rng.integers(0, 2, 25), 6
    counts = np.zeros((2, nb))
    np.add.at(counts, (y, bins), 1.0)
    for h, m in [(0.5, 1.0), (2.0, 20.0)]:
        brute = sum(np.log(_brute_estimate(bins[(np.arange(25) != r) & (y == y[r])],
                                           bins[np.arange(25) != r], nb, h, m)[bins[r]])
                    for r in range(25))
        assert binned.loo_log_likelihood(counts, h, m) == pytest.approx(brute, rel=1e-12)


def test_every_estimate_is_a_density():
    """Every (parent cell, class) of AODE's binned children integrates to 1 over the grid,
    and the class ratio at any bin stays bounded by the mixture."""
    X, y = _frame(150, seed=4)
    X["c"] = np.where(X["a"] > 0.5, "hi", "lo")
    model = AODE(numeric="gaussian", density="kde").fit(X, y)
    moments = model.table_.moments
    log_density, choice = moments.kde_estimates()
    log_width = binned.log_widths(moments.grid_edges, moments.grid_bins)
    column = {int(c): j for j, c in enumerate(moments.numeric)}
    for e, (_, c) in enumerate(moments.entries):
        j = column[c]
        nb = int(moments.grid_bins[j])
        rows = log_density[moments.offsets[e] // 3:moments.offsets[e + 1] // 3, :nb]
        mass = np.exp(rows + log_width[j, :nb]).sum(axis=1)
        np.testing.assert_allclose(mass, 1.0, rtol=1e-10)
        assert np.ptp(rows, axis=0).max() < 30  # no class or cell ratio explodes
    assert set(choice) == set(moments.numeric.tolist())


def test_a_few_valued_attribute_keeps_its_values_apart():
    edges, n_bins = binned.grid_edges(np.array([[0.0] * 20 + [1.0] * 13]))
    assert n_bins[0] == 2
    codes = binned.bin_of(np.array([[0.0], [1.0]]), edges, n_bins).ravel()
    assert codes.tolist() == [0.0, 1.0]


def test_merged_tables_equal_one_table_and_model_files_keep_the_counts(tmp_path):
    X, y = _frame(100, seed=5)
    whole = AODE(numeric="gaussian", density="kde").fit(X, y)
    table = whole.table_
    empty = table.copy()  # a worker's table: the same layout and grid, counted apart
    empty.counts[:] = 0
    empty.moments.sums[:] = 0
    empty.moments.bins[:] = 0
    empty.n_rows = 0.0
    codes = whole.chunk_encoder()(X, y)[0]
    values = whole.encoder_.numeric_values(X, "AODE")
    half = empty.copy().add(codes[:50], y[:50], None, values[:50])
    rest = empty.copy().add(codes[50:], y[50:], None, values[50:])
    half.merge(rest)
    np.testing.assert_allclose(half.moments.bins, table.moments.bins)
    np.testing.assert_allclose(half.moments.sums, table.moments.sums)
    path = tmp_path / "kde.npz"
    save_model(whole, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.table_.moments.bins, table.moments.bins)
    np.testing.assert_allclose(loaded.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_refused_where_it_cannot_be_scored():
    """The learners that weigh by other densities do not declare it; AnDE's leave-one-out
    selection (n="auto") refuses it naming what works.  (The family learners, TAN, KDB and
    SKDB, score it: tests/structure/test_family_kde.py.)"""
    X, y = _frame(40)
    assert KDB(numeric="gaussian", density="kde").fit(X, y).density == "kde"
    for learner in (SAODE(numeric="gaussian", density="kde"),):
        with pytest.raises(ValueError, match="density"):
            learner.fit(X, y)
    with pytest.raises(ValueError, match="NaiveBayes and the AnDE family"):
        AnDE(n="auto", numeric="gaussian", density="kde").fit(X, y)


def test_deterministic():
    X, y = _frame(90, seed=6)
    a = AODE(numeric="gaussian", density="kde").fit(X, y).predict_proba(X)
    b = AODE(numeric="gaussian", density="kde").fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_dask_fit_equals_fit():
    """Counted on the partitions of a Dask frame (the encoder's sample is every row, so the
    grid is fit's) and merged: fit's model."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask

    X, y = _frame(120, seed=8)
    frame = X.assign(target=y)
    ddf = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        model = seminaive.dask.fit(AODE(numeric="gaussian", density="kde"), ddf,
                                   target="target")
    reference = AODE(numeric="gaussian", density="kde").fit(X, y)
    np.testing.assert_allclose(model.table_.moments.bins, reference.table_.moments.bins)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X),
                               rtol=1e-9, atol=1e-12)


def test_a_damaged_model_file_is_refused(tmp_path):
    from seminaive.exceptions import ModelFileError

    X, y = _frame(60, seed=10)
    model = NaiveBayes(numeric="gaussian", density="kde").fit(X, y)
    path = tmp_path / "kde.npz"
    save_model(model, path)
    arrays = dict(np.load(path))
    for key, value in (("table_moment_bins", -np.abs(arrays["table_moment_bins"]) - 1.0),
                       ("table_moment_grid_edges",
                        arrays["table_moment_grid_edges"][:, ::-1].copy())):
        damaged = dict(arrays, **{key: value})
        bad = tmp_path / f"bad-{key}.npz"
        np.savez_compressed(bad, **damaged)
        with pytest.raises(ModelFileError):
            load_model(bad)


def test_partial_fit_warns_even_with_a_fitted_discretiser():
    """Fixed cut points do not fix the grid: partial_fit still warns that the model differs
    from fit."""
    from seminaive.preprocessing import MDLDiscretizer

    X, y = _frame(80, seed=11)
    disc = MDLDiscretizer().fit(X.to_numpy(), y)
    model = NaiveBayes(numeric="gaussian", density="kde", discretizer=disc)
    model.partial_fit(X.iloc[:40], y[:40], classes=[0, 1])
    with pytest.warns(PartialFitWarning, match="density='kde'"):
        model.partial_fit(X.iloc[40:], y[40:])


def test_load_then_partial_fit_equals_partial_fit(tmp_path):
    X, y = _frame(100, seed=12)
    kept = NaiveBayes(numeric="gaussian", density="kde").fit(X.iloc[:60], y[:60])
    path = tmp_path / "first.npz"
    save_model(kept, path)
    loaded = load_model(path)
    with pytest.warns(PartialFitWarning):
        kept.partial_fit(X.iloc[60:], y[60:])
    with pytest.warns(PartialFitWarning):
        loaded.partial_fit(X.iloc[60:], y[60:])
    np.testing.assert_array_equal(loaded.table_.moments.bins, kept.table_.moments.bins)
    np.testing.assert_allclose(loaded.predict_proba(X), kept.predict_proba(X), rtol=1e-12)
