"""numeric="gaussian": moments against direct sums, estimates by hand, naive Bayes against
scikit-learn's GaussianNB, invariance to the units of a numeric column, partial_fit, files,
Dask and model files equal fit."""

import math

import numpy as np
import pytest
from gaussian_data import mixed_frame
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, load_wine
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import KBinsDiscretizer

from seminaive import A2DE, AODE, KDB, SKDB, TAN, AnDE, NaiveBayes, load

X, Y = mixed_frame()
XT, _ = mixed_frame(80, seed=1, missing=0.2)


def test_naive_bayes_is_gaussian_nb():
    """With the m-estimates' m near 0, naive Bayes with Gaussian children is scikit-learn's
    GaussianNB (maximum-likelihood means and variances, empirical prior) with the plug-in
    density; the Student-t posterior predictive (the default) is not."""
    for loader in (load_iris, load_wine):
        Xn, yn = loader(return_X_y=True)
        ours = NaiveBayes(numeric="gaussian", density="plugin", m=1e-12).fit(Xn, yn)
        theirs = GaussianNB(var_smoothing=1e-15).fit(Xn, yn)
        assert_allclose(ours.predict_log_proba(Xn), theirs.predict_log_proba(Xn), atol=1e-7)
        student = NaiveBayes(numeric="gaussian", m=1e-12).fit(Xn, yn)
        assert not np.allclose(student.predict_log_proba(Xn), theirs.predict_log_proba(Xn),
                               atol=1e-7)


def test_moments_are_the_direct_sums():
    model = AODE(numeric="gaussian").fit(X, Y)
    table, enc = model.table_, model.encoder_
    codes = model._storage_codes(X)
    y_idx = np.searchsorted(model.classes_, Y)
    values = enc.numeric_values(X, "test")
    moments = table.moments
    assert_array_equal(moments.numeric, [1, 2])
    n_comb = int(table.order_first[2])
    assert len(moments.entries) == sum(c not in table.members(g) for g in range(n_comb)
                                       for c in (1, 2))
    for e, (members, c) in enumerate(moments.entries):
        j = list(moments.numeric).index(c)
        block = moments.block(e)
        expected = np.zeros_like(block)
        for r in range(len(Y)):
            v = values[r, j]
            if math.isnan(v):
                continue
            cell = tuple(int(codes[r, m]) for m in members) + (int(y_idx[r]),)
            expected[cell] += [1.0, v, v * v]
        assert_allclose(block, expected, rtol=1e-12, atol=1e-9)
    # centred on the median of the training values
    assert_allclose(enc.numeric_center_, np.nanmedian(X[["size", "weight"]], axis=0))


def test_estimates_by_hand():
    """A parent cell shrinks towards the class-only estimate with m pseudo-rows."""
    m = 2.0
    model = AODE(numeric="gaussian", m=m).fit(X, Y)
    moments = model.table_.moments
    mean, var = moments.estimates(m)
    k = 3
    e0 = moments.index[((), 1)]  # "size" given the class alone
    class_block = moments.block(e0)  # (k, 3)
    n0, s1, s2 = class_block[:, 0], class_block[:, 1], class_block[:, 2]
    mu0 = s1 / n0
    var0 = s2 / n0 - mu0 ** 2
    off = moments.offsets[e0] // 3
    assert_allclose(mean[off:off + k], mu0, rtol=1e-12)
    assert_allclose(var[off:off + k], var0, rtol=1e-12)
    e1 = moments.index[((0,), 1)]  # given the parent "colour"
    block = moments.block(e1)
    off = moments.offsets[e1] // 3
    for value in range(1, block.shape[0]):
        n, t1, t2 = block[value, :, 0], block[value, :, 1], block[value, :, 2]
        xbar = np.where(n > 0, t1 / np.maximum(n, 1e-300), mu0)
        ss = np.maximum(t2 - n * xbar ** 2, 0)
        expect_mean = (t1 + m * mu0) / (n + m)
        expect_var = (ss + m * var0 + n * m / (n + m) * (xbar - mu0) ** 2) / (n + m)
        cells = slice(off + value * k, off + value * k + k)
        assert_allclose(mean[cells], expect_mean, rtol=1e-12)
        assert_allclose(var[cells], expect_var, rtol=1e-12)


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
@pytest.mark.parametrize("aggregate", ["joint", "posterior"])
def test_units_of_a_numeric_column_do_not_matter(cls, aggregate):
    base = cls(numeric="gaussian", aggregate=aggregate).fit(X, Y)
    Xs, XTs = X.copy(), XT.copy()
    for frame in (Xs, XTs):
        frame["size"] = frame["size"] * 1000.0 + 5e6
        frame["weight"] = frame["weight"] / 64.0
    scaled = cls(numeric="gaussian", aggregate=aggregate).fit(Xs, Y)
    assert_allclose(scaled.predict_proba(XTs), base.predict_proba(XT), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_probabilities_and_missing_values(n):
    model = AnDE(n=n, numeric="gaussian").fit(X, Y)
    proba = model.predict_proba(XT)
    assert np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0)
    empty = XT.iloc[:1].copy()
    empty.loc[:, :] = np.nan
    assert_allclose(model.predict_proba(empty), model.predict_proba(empty)[:1])
    # a row with only its numeric values observed uses their Gaussians
    only_numeric = XT.iloc[:5].copy()
    only_numeric[["colour", "shape"]] = None
    nb = NaiveBayes(numeric="gaussian", density="student").fit(X[["size", "weight"]], Y)
    if n == 0:
        assert_allclose(model.predict_proba(only_numeric),
                        nb.predict_proba(only_numeric[["size", "weight"]]), rtol=1e-10)


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_partial_fit_equals_fit(cls):
    """With the same cut points (a discretiser fitted beforehand), chunks give the model of
    one fit: the moments are sums (centred on the first chunk's median, which only moves
    rounding)."""
    cuts = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="quantile").fit(
        X[["size", "weight"]].fillna(X[["size", "weight"]].median()).to_numpy())
    full = cls(numeric="gaussian", density="student", discretizer=cuts).fit(X, Y)
    inc = cls(numeric="gaussian", density="student", discretizer=cuts)
    for start in range(0, len(Y), 70):
        inc.partial_fit(X.iloc[start:start + 70], Y[start:start + 70], classes=np.unique(Y))
    assert_array_equal(inc.table_.counts, full.table_.counts)
    assert_allclose(inc.table_.moments.block(0)[..., 0], full.table_.moments.block(0)[..., 0])
    assert_allclose(inc.predict_proba(XT), full.predict_proba(XT), rtol=1e-9, atol=1e-12)


def test_partial_fit_with_the_same_encoder_is_exact():
    full = AODE(numeric="gaussian", discretizer="equal_frequency").fit(X, Y)
    inc = AODE(numeric="gaussian", discretizer="equal_frequency")
    inc.partial_fit(X, Y, classes=np.unique(Y))  # one chunk: identical
    assert_array_equal(inc.table_.moments.sums, full.table_.moments.sums)
    assert_array_equal(inc.predict_proba(XT), full.predict_proba(XT))


def test_fit_stream_and_dask_equal_fit(tmp_path):
    path = tmp_path / "train.csv"
    X.assign(label=Y).to_csv(path, index=False)
    full = A2DE(numeric="gaussian").fit(X, Y)
    streamed = A2DE(numeric="gaussian").fit_stream(path, target="label", chunk_rows=70,
                                                   progress=False)
    assert_allclose(streamed.table_.moments.sums, full.table_.moments.sums, rtol=1e-12,
                    atol=1e-9)
    assert_allclose(streamed.predict_proba(XT), full.predict_proba(XT), rtol=1e-10)
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        distributed = seminaive.dask.fit(A2DE(numeric="gaussian"),
                                         dd.from_pandas(X.assign(label=Y), npartitions=3),
                                         target="label")
    assert_allclose(distributed.table_.moments.sums, full.table_.moments.sums, rtol=1e-12,
                    atol=1e-9)
    assert_allclose(distributed.predict_proba(XT), full.predict_proba(XT), rtol=1e-10)


def test_weights_are_repeated_rows():
    w = np.random.default_rng(3).integers(0, 3, len(Y))
    a = AODE(numeric="gaussian", discretizer="equal_frequency").fit(X, Y, sample_weight=w)
    b = AODE(numeric="gaussian", discretizer="equal_frequency").fit(
        X.loc[X.index.repeat(w)], np.repeat(Y, w))
    assert_allclose(a.predict_proba(XT), b.predict_proba(XT), rtol=1e-9)


def test_save_load(tmp_path):
    model = AODE(numeric="gaussian").fit(X, Y)
    model.save(tmp_path / "g.npz")
    back = load(tmp_path / "g.npz")
    assert back.numeric == "gaussian"
    assert_array_equal(back.table_.moments.sums, model.table_.moments.sums)
    assert_array_equal(back.encoder_.numeric_center_, model.encoder_.numeric_center_)
    assert_array_equal(back.predict_proba(XT), model.predict_proba(XT))


def test_discretize_is_unchanged():
    a = AODE().fit(X, Y)
    b = AODE(numeric="discretize").fit(X, Y)
    assert a.table_.moments is None
    assert_array_equal(a.predict_proba(XT), b.predict_proba(XT))


def test_unsupported_combinations_are_refused():
    class _NoGaussian(AODE):
        parts = ()  # declares no Gaussian children

    with pytest.raises(ValueError, match="numeric='gaussian' is not available"):
        _NoGaussian(numeric="gaussian").fit(X, Y)
    # n="auto" selects among Gaussian models (tests/selection/test_gaussian_loo.py)
    assert AnDE(n="auto", numeric="gaussian").fit(X, Y).table_.moments is not None


def test_bad_value_is_refused():
    with pytest.raises(ValueError, match="numeric="):
        AODE(numeric="normal").fit(X, Y)
    from seminaive import HNB, LBR, SPTAN

    for cls in (SPTAN, LBR, HNB):  # learners without Gaussian children take no numeric=
        assert "numeric" not in cls().get_params()


# ---------------------------------------------------------------------------- TAN and KDB
@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
def test_kdb0_is_gaussian_naive_bayes(smoothing):
    for density in ("student", "kde"):
        kdb = KDB(k=0, numeric="gaussian", smoothing=smoothing, density=density).fit(X, Y)
        nb = NaiveBayes(numeric="gaussian", smoothing=smoothing, density=density).fit(X, Y)
        assert_allclose(kdb.predict_log_proba(XT), nb.predict_log_proba(XT), rtol=1e-12,
                        atol=1e-12)


def _normal_logpdf(v, mu, var):
    return -0.5 * (math.log(2 * math.pi * var) + (v - mu) ** 2 / var)


def test_tan_gaussian_child_by_hand():
    """The Gaussian term of a child with one parent: shrunk from the class-only estimate
    with m pseudo-rows, recomputed from the training rows directly."""
    m = 1.5
    model = TAN(numeric="gaussian", density="plugin", m=m).fit(X, Y)
    discrete = TAN(m=m).fit(X, Y)
    codes = model._storage_codes(X)
    codes_t = model._storage_codes(XT)
    values = model.encoder_.numeric_values(X, "t")
    values_t = model.encoder_.numeric_values(XT, "t")
    y_idx = np.searchsorted(model.classes_, Y)
    # scores without the Gaussian children: the discrete model's nominal terms
    nominal = [i for i in range(4) if i not in (1, 2)]
    ours = model.joint_log_likelihood(XT)
    for r in range(len(XT)):
        expected = np.zeros(3)
        for c in range(3):
            n_c = (y_idx == c).sum()
            expected[c] = math.log((n_c + m / 3) / (len(Y) + m))
            for i in nominal:
                if codes_t[r, i] == 0:
                    continue
                expected[c] += _family_term(discrete, codes, y_idx, codes_t[r], i, c, m)
            for j, i in enumerate((1, 2)):
                v = values_t[r, j]
                if math.isnan(v):
                    continue
                rows = (y_idx == c) & ~np.isnan(values[:, j])
                mu0 = values[rows, j].mean()
                var0 = values[rows, j].var()
                mu, var = mu0, var0
                p = int(model.structure_[i])
                if p >= 0 and codes_t[r, p] > 0:
                    cell = rows & (codes[:, p] == codes_t[r, p])
                    n = cell.sum()
                    if n >= model.min_count:
                        xs = values[cell, j]
                        xbar = xs.mean() if n else mu0
                        ss = ((xs - xbar) ** 2).sum()
                        mu = (xs.sum() + m * mu0) / (n + m)
                        var = (ss + m * var0 + n * m / (n + m) * (xbar - mu0) ** 2) / (n + m)
                expected[c] += _normal_logpdf(v, mu, var)
        assert_allclose(ours[r], expected, rtol=1e-9)


def _family_term(model, codes, y_idx, row, i, c, m):
    """log P(x_i | y, x_p) of the discrete TAN, counted directly (nominal child)."""
    p = int(model.structure_[i])
    match = (y_idx == c)
    if p >= 0 and row[p] > 0:
        match = match & (codes[:, p] == row[p])
    v = model.table_.sizes[i] - 1
    num = (match & (codes[:, i] == row[i])).sum()
    den = (match & (codes[:, i] > 0)).sum()
    return math.log((num + m / v) / (den + m))


@pytest.mark.parametrize("make", [lambda: TAN(numeric="gaussian"),
                                  lambda: KDB(k=2, numeric="gaussian"),
                                  lambda: SKDB(k=2, numeric="gaussian")])
def test_structure_learners_stream_dask_save(make, tmp_path):
    full = make().fit(X, Y)
    assert full._moments is not None
    path = tmp_path / "train.parquet"
    X.assign(label=Y).to_parquet(path)
    streamed = make().fit_stream(path, target="label", chunk_rows=64, progress=False)
    assert_allclose(streamed._moments.sums, full._moments.sums, rtol=1e-12, atol=1e-9)
    assert_allclose(streamed.predict_proba(XT), full.predict_proba(XT), rtol=1e-10)
    one_chunk = make().partial_fit(X, Y, classes=np.unique(Y))
    assert_array_equal(one_chunk.predict_proba(XT), full.predict_proba(XT))
    full.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert_array_equal(back.predict_proba(XT), full.predict_proba(XT))
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        distributed = seminaive.dask.fit(make(), dd.from_pandas(X.assign(label=Y),
                                                               npartitions=3), target="label")
    assert_allclose(distributed.predict_proba(XT), full.predict_proba(XT), rtol=1e-10)


@pytest.mark.parametrize("make", [lambda **kw: TAN(numeric="gaussian", **kw),
                                  lambda **kw: KDB(k=2, numeric="gaussian", **kw),
                                  lambda **kw: SKDB(k=2, numeric="gaussian", **kw)])
def test_structure_learners_ignore_units(make):
    base = make().fit(X, Y)
    Xs, XTs = X.copy(), XT.copy()
    for frame in (Xs, XTs):
        frame["size"] = frame["size"] * 1000.0 - 7.0
    scaled = make().fit(Xs, Y)
    assert_allclose(scaled.predict_proba(XTs), base.predict_proba(XT), rtol=1e-7, atol=1e-10)


def test_missing_as_a_value_for_gaussian_children():
    """missing="value": a Gaussian child contributes P(missing | y) when missing and
    (1 - P(missing | y)) times its density when observed; the AnDE and structure kernels
    agree (KDB(0) is naive Bayes)."""
    nb = NaiveBayes(numeric="gaussian", missing="value", density="student").fit(X, Y)
    kdb = KDB(k=0, numeric="gaussian", missing="value", density="student").fit(X, Y)
    assert_allclose(kdb.predict_log_proba(XT), nb.predict_log_proba(XT), rtol=1e-12,
                    atol=1e-12)
    # by hand, for the numeric column "size" alone
    Xs, XTs = X[["size"]], XT[["size"]]
    model = NaiveBayes(numeric="gaussian", density="plugin", missing="value",
                       m=1.0).fit(Xs, Y)
    y_idx = np.searchsorted(model.classes_, Y)
    size = Xs["size"].to_numpy()
    n_bins = len(model.encoder_.categories_[0]) - 1  # the bins and the missing value
    ours = model.joint_log_likelihood(XTs)
    for r, v in enumerate(XTs["size"].to_numpy()):
        for c in range(3):
            rows = y_idx == c
            n_c = rows.sum()
            value = math.log((n_c + 1 / 3) / (len(Y) + 1))
            p_missing = (np.isnan(size[rows]).sum() + 1 / (n_bins + 1)) / (n_c + 1)
            if math.isnan(v):
                value += math.log(p_missing)
            else:
                obs = size[rows & ~np.isnan(size)]
                value += math.log1p(-p_missing) + _normal_logpdf(v, obs.mean(), obs.var())
            assert_allclose(ours[r, c], value, rtol=1e-10)


@pytest.mark.parametrize("weights", ["mi", "kl"])
def test_weighted_sub_models_with_gaussian_children(weights):
    """WAODE and AnDE(weights=...) weight the Gaussian sub-models as the discrete ones;
    uniform weights reproduce AnDE."""
    from seminaive import WAODE

    waode = WAODE(weights=weights, numeric="gaussian").fit(X, Y)
    ande = AnDE(n=1, weights=weights, numeric="gaussian").fit(X, Y)
    assert_allclose(waode.predict_proba(XT), ande.predict_proba(XT), rtol=1e-12)
    plain = AODE(numeric="gaussian", density="student").fit(X, Y)
    assert not np.allclose(waode.predict_proba(XT), plain.predict_proba(XT))
    uniform = AnDE(n=1, weights=np.ones(4), numeric="gaussian").fit(X, Y)
    assert_allclose(uniform.predict_proba(XT), plain.predict_proba(XT), rtol=1e-10,
                    atol=1e-12)


def test_skdb_without_selection_is_gaussian_kdb():
    for missing in ("ignore", "value"):
        skdb = SKDB(k=2, select="none", numeric="gaussian", missing=missing).fit(X, Y)
        kdb = KDB(k=2, numeric="gaussian", missing=missing).fit(X, Y)
        assert_allclose(skdb.predict_proba(XT), kdb.predict_proba(XT), rtol=1e-12)


def test_default_densities():
    """NaiveBayes, AODE, A2DE, A3DE, TAN, KDB and SKDB score their numeric children by the
    kernel-smoothed binned density; every other learner that takes numeric="gaussian"
    (AnDE among them, whose n="auto" cannot score it) by the Student-t posterior
    predictive."""
    import inspect

    from seminaive import persistence

    takes = [cls for cls in persistence.ESTIMATORS.values()
             if "numeric" in inspect.signature(cls).parameters
             and "gaussian" in str(inspect.signature(cls).parameters["numeric"].annotation)]
    assert len(takes) >= 15
    binned = {"NaiveBayes", "AODE", "A2DE", "A3DE", "TAN", "KDB", "SKDB"}
    assert binned <= {cls.__name__ for cls in takes}
    for cls in takes:
        expect = "kde" if cls.__name__ in binned else "student"
        assert cls().get_params()["density"] == expect, cls.__name__


def test_a_file_that_stored_student_keeps_it(tmp_path):
    """A model saved while Student-t was AODE's default stored ``density="student"``: it
    loads and predicts as that model, although today's default is ``"kde"``."""
    from seminaive.persistence import load_model, save_model

    student = AODE(numeric="gaussian", density="student").fit(X, Y)
    save_model(student, tmp_path / "student.npz")
    loaded = load_model(tmp_path / "student.npz")
    assert loaded.density == "student" and AODE().density == "kde"
    assert_array_equal(loaded.predict_proba(XT), student.predict_proba(XT))
    assert not np.allclose(AODE(numeric="gaussian").fit(X, Y).predict_proba(XT),
                           student.predict_proba(XT))
