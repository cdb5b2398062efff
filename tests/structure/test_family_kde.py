"""Kernel-smoothed binned children (``density="kde"``) of the family learners (TAN, KDB,
SKDB).

Checked against a brute-force version written with NumPy and scipy from the definition
(the grid of the quantiles, the kernel over the bins, the m-estimate mixing towards the
coarser cell, every m chosen by removing every row in turn): the densities KDB predicts
with, and SKDB's leave-one-out log loss, whose search scores the same densities with the
held-out row removed; and through the routes (model files, partial_fit, set_params).
"""

import functools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from seminaive import KDB, SKDB, TAN
from seminaive.exceptions import PartialFitWarning
from seminaive.persistence import load_model, save_model
from seminaive.tables import binned


def _frame(n=120, seed=0):
    """``c`` nominal and close to the class (the first attribute of the ranking), ``a``
    numeric, shifted by the class and by ``c``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    c = np.where(rng.random(n) < 0.85, y, 1 - y)
    a = rng.normal(0.6 * y + 1.2 * c, 1.0 + 0.4 * c)
    return pd.DataFrame({"c": np.array(["u", "v"])[c], "a": a}), y


def _edges(col):
    q = np.quantile(col, np.linspace(0, 1, 33))
    u = np.unique(q)
    inner = (u[1:] + u[:-1]) / 2
    return np.concatenate([[u[0] - (inner[0] - u[0])], inner, [u[-1] + (u[-1] - inner[-1])]])


@functools.cache
def _kernel(nb, h):
    K = norm.pdf(np.subtract.outer(np.arange(nb), np.arange(nb)) / h)
    return K / K.sum(axis=0)


def _class_level(bins_y, bins_all, nb, h, m):
    K = _kernel(nb, h)
    return (K @ np.bincount(bins_y, minlength=nb)
            + m * (K @ np.bincount(bins_all, minlength=nb)) / len(bins_all)) / (len(bins_y) + m)


def _cell(bins_cell, f0, nb, h, m):
    return (_kernel(nb, h) @ np.bincount(bins_cell, minlength=nb) + m * f0) / (len(bins_cell) + m)


class Brute:
    """The binned density of ``a`` given the class (level 0) and given the class and ``c``
    (level 1), from the definition."""

    def __init__(self, X, y):
        self.edges = _edges(X["a"].to_numpy())
        self.nb = nb = self.edges.size - 1
        self.bins = self.bin(X["a"].to_numpy())
        self.c = X["c"].to_numpy()
        self.y = y
        n = len(y)
        self.h = min(max(6.0 * (n / 300.0) ** -0.2, 1.0), 8.0)
        rows = np.arange(n)
        best = -np.inf
        for m in binned.MIXTURES:
            total = sum(np.log(self.level0(m, keep=rows != r)[y[r]][self.bins[r]])
                        for r in range(n))
            if total > best + 1e-9:
                best, self.m0 = total, m
        best = -np.inf
        for m in binned.MIXTURES:
            total = sum(np.log(self.level1(self.c[r], m, keep=rows != r)[y[r]][self.bins[r]])
                        for r in range(n))
            if total > best + 1e-9:
                best, self.m1 = total, m
        self.width = np.maximum(np.diff(self.edges), binned.WIDTH_FLOOR
                                * (self.edges[-1] - self.edges[0]) / nb)

    def bin(self, values):
        return np.searchsorted(self.edges[1:-1], values, side="right")

    def level0(self, m=None, keep=None):
        keep = np.ones(len(self.y), bool) if keep is None else keep
        m = self.m0 if m is None else m
        return [_class_level(self.bins[keep & (self.y == yy)], self.bins[keep], self.nb,
                             self.h, m) for yy in range(2)]

    def level1(self, value, m=None, keep=None):
        keep = np.ones(len(self.y), bool) if keep is None else keep
        m = self.m1 if m is None else m
        f0 = self.level0(keep=keep)
        return [_cell(self.bins[keep & (self.y == yy) & (self.c == value)], f0[yy], self.nb,
                      self.h, m) for yy in range(2)]


def test_kdb_densities_equal_brute_force():
    """KDB(k=1)'s child ``a`` given the class and its parent ``c``: the log density the
    prediction adds equals the definition's, at every query value (an unseen value of
    ``c`` falls back to the class level)."""
    X, y = _frame()
    model = KDB(k=1, numeric="gaussian", density="kde").fit(X, y)
    assert model.structure_[1, 0] == 0  # a's parent is c
    brute = Brute(X, y)
    kde = model._kde_estimates()
    assert kde.bandwidth[0] == pytest.approx(brute.h)
    assert kde.mixtures[0].tolist() == [brute.m0, brute.m1]
    query = pd.DataFrame({"c": ["u", "v", "u", "v", "w"],
                          "a": [-4.0, 0.3, 1.1, 2.6, 0.5]})
    without = query.assign(a=np.nan)
    got = model._scores(query) - model._scores(without)
    qbins = brute.bin(query["a"].to_numpy())
    for r, value in enumerate(query["c"]):
        f = brute.level1(value) if value in ("u", "v") else brute.level0()
        expect = [np.log(f[yy][qbins[r]] / brute.width[qbins[r]]) for yy in range(2)]
        np.testing.assert_allclose(got[r], expect, rtol=1e-9, atol=1e-9)


def test_every_family_estimate_is_a_density():
    X, y = _frame(200, seed=3)
    X["b"] = np.where(X["a"] > 1.0, 0.0, X["a"] ** 2)  # a spike of zeros
    model = KDB(k=2, numeric="gaussian", density="kde").fit(X, y)
    kde = model._kde_estimates()
    moments = model._moments
    for j in range(moments.numeric.size):
        nb = int(moments.grid_bins[j])
        lo = moments.entry_start[moments.first_entry[j]]
        hi = moments.entry_start[moments.first_entry[j + 1]]
        mass = np.exp(kde.log_density[lo:hi, :nb] + kde.log_width[j, :nb]).sum(axis=1)
        np.testing.assert_allclose(mass, 1.0, rtol=1e-10)


def _prior(y, r, m=1.0):
    n = len(y)
    keep = np.arange(n) != r
    return np.array([((y[keep] == yy).sum() + m / 2) / (n - 1 + m) for yy in range(2)])


def test_skdb_leave_one_out_scores_the_binned_densities():
    """SKDB's leave-one-out log loss of the models (k, s) = (0, 2) and (1, 2): every row
    scored by P(y) P(c | y) f(a | y [, c]) made without it (the grid, bandwidth and m's
    those of all rows, as the structure is)."""
    X, y = _frame(90, seed=5)
    model = SKDB(k=1, loss="log_loss", numeric="gaussian", density="kde").fit(X, y)
    assert model.order_[0] == 0 and model.candidates_[1, 0] == 0
    brute = Brute(X, y)
    n = len(y)
    c = brute.c
    loss = {0: 0.0, 1: 0.0}
    for r in range(n):
        keep = np.arange(n) != r
        p_c = np.array([((c[keep] == c[r]) & (y[keep] == yy)).sum() + 0.5 for yy in range(2)])
        p_c /= np.array([(y[keep] == yy).sum() + 1.0 for yy in range(2)])
        base = _prior(y, r) * p_c
        b = brute.bins[r]
        for k, f in ((0, brute.level0(keep=keep)), (1, brute.level1(c[r], keep=keep))):
            joint = base * np.array([f[yy][b] for yy in range(2)])
            loss[k] -= np.log(joint[y[r]] / joint.sum())
    assert model.loo_loss_[0, 2] == pytest.approx(loss[0] / n, rel=1e-9)
    assert model.loo_loss_[1, 2] == pytest.approx(loss[1] / n, rel=1e-9)


@pytest.mark.parametrize("cls", [TAN, KDB, SKDB])
def test_model_files_keep_the_binned_counts(cls, tmp_path):
    X, y = _frame(150, seed=7)
    X["b"] = X["a"] * 0.5 + np.random.default_rng(1).normal(size=150)
    model = cls(numeric="gaussian", density="kde").fit(X, y)
    path = tmp_path / "kde.npz"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.density == "kde"
    np.testing.assert_array_equal(loaded._moments.bins, model._moments.bins)
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X), rtol=1e-12)


def test_a_damaged_model_file_is_refused(tmp_path):
    from seminaive.exceptions import ModelFileError

    X, y = _frame(80, seed=8)
    model = KDB(k=1, numeric="gaussian", density="kde").fit(X, y)
    path = tmp_path / "kde.npz"
    save_model(model, path)
    arrays = dict(np.load(path))
    keys = [k for k in arrays if k.endswith("moment_bins")]
    assert keys
    for key, value in ((keys[0], -np.abs(arrays[keys[0]]) - 1.0),
                       (keys[0], arrays[keys[0]][:-1])):
        bad = tmp_path / "bad.npz"
        np.savez_compressed(bad, **dict(arrays, **{key: value}))
        with pytest.raises(ModelFileError):
            load_model(bad)
    bad = tmp_path / "no-bins.npz"
    np.savez_compressed(bad, **{k: v for k, v in arrays.items() if k != keys[0]})
    with pytest.raises(ModelFileError):
        load_model(bad)


@pytest.mark.parametrize("k", [1, 2])
def test_partial_fit_counts_every_chunk_into_the_bins(k):
    """partial_fit of KDB(k=1) (structure re-learnt from the pair counts) and KDB(k=2)
    (structure kept, later chunks added to the earlier cells) counts every chunk on the
    first chunk's grid: its binned counts are those of the rows binned on that grid."""
    X, y = _frame(160, seed=9)
    model = KDB(k=k, numeric="gaussian", density="kde")
    model.partial_fit(X.iloc[:80], y[:80], classes=[0, 1])
    with pytest.warns(PartialFitWarning):
        model.partial_fit(X.iloc[80:], y[80:])
    edges = _edges(X["a"].to_numpy()[:80])
    bins = np.searchsorted(edges[1:-1], X["a"].to_numpy(), side="right")
    moments = model._moments
    lo = moments.entry_start[0]
    expect = np.zeros((2, moments.n_grid))
    np.add.at(expect, (y, bins), 1.0)
    np.testing.assert_array_equal(moments.bins[lo:lo + 2], expect)
    whole = model.predict_proba(X)
    assert np.all(np.isfinite(whole)) and np.allclose(whole.sum(axis=1), 1.0)


def test_set_params_density_takes_effect_without_a_new_fit():
    """The cached estimates follow ``density``: switching a fitted kde model to student
    scores as a model fitted with student; switching a student model to kde is refused
    (its binned counts were never made), naming what to do."""
    X, y = _frame(100, seed=10)
    kde = KDB(k=1, numeric="gaussian", density="kde").fit(X, y)
    student = KDB(k=1, numeric="gaussian", density="student").fit(X, y)
    first = kde.predict_proba(X)
    kde.set_params(density="student")
    np.testing.assert_allclose(kde.predict_proba(X), student.predict_proba(X), rtol=1e-12)
    kde.set_params(density="kde")
    np.testing.assert_allclose(kde.predict_proba(X), first, rtol=1e-12)
    student.set_params(density="kde")
    with pytest.raises(ValueError, match="density='kde'"):
        student.predict_proba(X)


def test_skdb_without_selection_is_kdb():
    X, y = _frame(120, seed=11)
    X["b"] = np.abs(X["a"]) + np.random.default_rng(2).normal(size=120)
    for missing in ("ignore", "value"):
        skdb = SKDB(k=2, select="none", numeric="gaussian", density="kde",
                    missing=missing).fit(X, y)
        kdb = KDB(k=2, numeric="gaussian", density="kde", missing=missing).fit(X, y)
        np.testing.assert_allclose(skdb.predict_proba(X), kdb.predict_proba(X), rtol=1e-12)


def test_budget_counts_the_binned_cells():
    """``max_table_bytes`` counts the binned counts, densities and smoothed counts of every
    stored cell besides its moments."""
    from seminaive.exceptions import TableTooLargeError
    from seminaive.structure import _moments

    X, y = _frame(200, seed=12)
    model = KDB(k=1, numeric="gaussian", density="kde").fit(X, y)
    moments = model._moments
    others = model.table_.counts.nbytes + model._counts.arrays.nbytes
    need = (_moments.CELL_BYTES + _moments.KDE_CELL_BYTES * moments.n_grid) * moments.n_cells
    with pytest.raises(TableTooLargeError, match="occurring cells"):
        KDB(k=1, numeric="gaussian", density="kde", max_table_bytes=others + need - 1).fit(X, y)
    fits = KDB(k=1, numeric="gaussian", density="kde", max_table_bytes=others + need).fit(X, y)
    np.testing.assert_array_equal(fits.predict_proba(X), model.predict_proba(X))


def test_hdp_keeps_the_binned_childrens_densities():
    """With HDP estimates the discrete tables change, not the binned children: moving a
    value to another grid bin within its discretised bin changes each class's log joint as
    with m-estimates."""
    X, y = _frame(200, seed=13)
    hdp = KDB(k=1, numeric="gaussian", density="kde", smoothing="hdp", n_iter=40).fit(X, y)
    m_est = KDB(k=1, numeric="gaussian", density="kde").fit(X, y)
    rows = X.iloc[:30].copy()
    moved = rows.copy()
    moved["a"] = moved["a"] + 0.05
    same = np.all(hdp._storage_codes(moved) == hdp._storage_codes(rows), axis=1)
    assert same.sum() >= 10
    delta_hdp = hdp._scores(moved[same]) - hdp._scores(rows[same])
    delta_m = m_est._scores(moved[same]) - m_est._scores(rows[same])
    np.testing.assert_allclose(delta_hdp, delta_m, rtol=1e-9, atol=1e-12)
