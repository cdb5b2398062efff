"""numeric="gaussian" in the leave-one-out passes of the selection learners, checked against
refitting without the held-out row.

The reference refits, for every held-out row, a FrequencyTable with moments on the other
rows (minus one copy of the row: held-out amount min(w, 1)) with the learner's encoder, takes
its estimates (``MomentTable.estimates``) and bin widths (``MomentTable.bin_log_widths``),
and scores the row with a plain-NumPy implementation of the selected structure written from
its definition (no kernel shared): the plug-in Gaussian density, or with
``density="student"`` (the default) SciPy's Student's t with kappa + N degrees of freedom
and squared scale var (kappa + N + 1) / (kappa + N), N the weight of the refitted cell.
"""

import math
from itertools import combinations

import numpy as np
import pytest
from gaussian_data import mixed_frame
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp
from scipy.stats import t as student_t

from seminaive import (
    AODE,
    ASAODE,
    BMAAODE,
    BSEAODE,
    FSSAODE,
    MAPLMD,
    MAPLMG,
    SAODE,
    SWAODE,
    AnDE,
    SelectiveAnDE,
    load,
)
from seminaive.kernels.losses import mean_loss
from seminaive.parts import GaussianChildren
from seminaive.selection import _structure as st
from seminaive.sources import ArraySource
from seminaive.tables import FrequencyTable
from seminaive.weighting._kernels import STAT_LMD, STAT_LMG
from seminaive.weighting.loo import Evaluator, LeaveOneOut

#: the Gaussian children part (the helpers it provides read the fitted model)
GAUSSIAN = GaussianChildren()


X, Y = mixed_frame(40)
XT, _ = mixed_frame(60, seed=1, missing=0.2)


# ------------------------------------------------------------------------------ reference
class Refit:
    """The tables of the training rows without one copy of a held-out row."""

    def __init__(self, model, X, y, w):
        self.model = model
        self.codes = np.asarray(model._storage_codes(X))
        self.values = model.encoder_.numeric_values(X, "test")
        self.y = np.searchsorted(model.classes_, y).astype(np.int64)
        self.w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        self.numeric = [int(c) for c in model.encoder_.numeric_columns_]
        self.missing_code = GAUSSIAN.missing_codes(model)
        self.student = GAUSSIAN.density(model) == "student"

    def without(self, t, order):
        model = self.model
        w = self.w.copy()
        w[t] -= min(w[t], 1.0)
        table = FrequencyTable(model.table_.n_values, model.table_.n_classes, order + 1)
        table.attach_moments(self.numeric, order)
        table.add(self.codes, self.y, w, self.values)
        kappa = 1.0 if model.smoothing == "laplace" else float(model.m)
        mean, var = table.moments.estimates(kappa, class_prior=self.student)
        widths = table.moments.bin_log_widths(model.encoder_.cut_points(),
                                              model.encoder_.numeric_center_,
                                              model.encoder_.n_values_)
        if not self.student:
            return table, mean, var, widths
        return table, mean, var, widths, table.moments.sums.reshape(-1, 3)[:, 0] + kappa


def ref_scores(refit, fitted, t, order, parents, children, weights, min_count):
    """Per-class log scores of the structure at training row t, from the refitted tables
    ``fitted`` = (table, mean, var, widths) (m-estimates, or Laplace), with a fifth array
    ``nu`` (kappa + N per cell and class) for Student's t children."""
    table, mean, var, widths, *nu = fitted
    model = refit.model
    laplace = model.smoothing == "laplace"
    m = float(model.m)
    x, v = refit.codes[t], refit.values[t]
    k, nv = table.n_classes, table.n_values
    moments = table.moments

    def cond(s, c, value):
        members = sorted((*s, c))
        col = table.block(members)[tuple(int(x[i]) if i != c else slice(None)
                                         for i in members)]
        num, den = col[int(value)], col[1:].sum(axis=0)
        if laplace:
            return np.log(num + 1) - np.log(den + nv[c])
        return np.log(num + m / nv[c]) - np.log(den + m)

    for level in range(order, -1, -1):
        terms, total_w = [], 0.0
        for s in combinations(sorted(parents), level):
            if any(x[i] == 0 for i in s):
                continue
            ws = float(np.prod([weights[i] for i in s])) if s else 1.0
            if ws <= 0:
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
            logt = logt - sum(widths[i, x[i]] for i in s if i in children)
            for c in children:
                if c in s or x[c] == 0:
                    continue
                mc = int(refit.missing_code[c])
                if c not in refit.numeric or x[c] == mc:
                    logt = logt + cond(s, c, x[c])
                    continue
                value = v[refit.numeric.index(c)]
                if math.isnan(value):
                    continue
                e = moments.index[(tuple(sorted(s)), c)]
                cell = 0
                for i in sorted(s):
                    cell = cell * int(table.sizes[i]) + int(x[i])
                base = moments.offsets[e] // 3 + cell * k
                mu, s2 = mean[base:base + k], var[base:base + k]
                if nu:
                    df = nu[0][base:base + k]
                    logt = logt + student_t.logpdf(value, df=df, loc=mu,
                                                   scale=np.sqrt(s2 * (df + 1) / df))
                else:
                    logt = logt - 0.5 * (np.log(2 * np.pi * s2) + (value - mu) ** 2 / s2)
                if mc:
                    logt = logt + np.log1p(-np.exp(cond(s, c, mc)))
            terms.append(logt + math.log(ws))
            total_w += ws
        if terms:
            return logsumexp(np.array(terms), axis=0) - math.log(total_w)
    raise AssertionError("level 0 always qualifies")


def ref_loss(score, yt, loss):
    logp = score - logsumexp(score)
    if loss == "rmse":
        return (1 - math.exp(logp[yt])) ** 2
    if loss == "zero_one":
        return float(np.argmax(score) != yt)
    return -logp[yt]


def ref_loo(refit, order, models, weights, min_count, loss):
    """Weighted LOO loss sums of the structures ``models`` = [(level, parents, children)]."""
    totals = np.zeros(len(models))
    for t in range(len(refit.y)):
        if refit.w[t] <= 0:
            continue
        fitted = refit.without(t, order)
        for j, (level, parents, children) in enumerate(models):
            score = ref_scores(refit, fitted, t, level, parents, children, weights, min_count)
            totals[j] += refit.w[t] * ref_loss(score, refit.y[t], loss)
    return totals


# ------------------------------------------------------------------------- nested spaces
CASES = [
    # (n, smoothing, m, min_count, missing, loss, weights, density)
    (2, "m_estimate", 1.0, 1, "ignore", "log_loss", "none", "plugin"),
    (2, "m_estimate", 1.0, 1, "ignore", "log_loss", "none", "student"),
    (1, "laplace", 1.0, 2, "value", "rmse", "int", "student"),
    (2, "m_estimate", 0.5, 1, "value", "log_loss", "frac", "student"),
    (2, "m_estimate", 0.5, 1, "value", "log_loss", "frac", "plugin"),
]


@pytest.mark.parametrize("n, smoothing, m, min_count, missing, loss, wkind, density", CASES)
def test_nested_loo_equals_refit_for_every_model(n, smoothing, m, min_count, missing, loss,
                                                 wkind, density):
    rng = np.random.default_rng(n + 7)
    w = {"none": None, "int": rng.integers(0, 3, len(Y)).astype(float),
         "frac": rng.uniform(0.2, 2.5, len(Y))}[wkind]
    model = SelectiveAnDE(n=n, numeric="gaussian", density=density, smoothing=smoothing, m=m,
                          min_count=min_count, missing=missing, loss=loss,
                          discretizer="equal_frequency", n_bins=3).fit(X, Y, sample_weight=w)
    refit = Refit(model, X, Y, w)
    a = model.table_.n_attributes
    ranking = np.array([2, 0, 3, 1], dtype=np.int64)
    attr_weights = np.array([0.5, 1.0, 2.0, 0.25]) if wkind == "frac" else np.ones(a)
    source = ArraySource(refit.codes, refit.y, w, chunk_rows=13, values=refit.values)
    losses, total = st.nested_losses(model.table_, source, ranking, n, attr_weights,
                                     smoothing, m, min_count, loss,
                                     gaussian=GAUSSIAN.loo(model, n))
    keys = [(level, r, s) for level in range(n + 1)
            for r in ([0] if level == 0 else range(level, a + 1)) for s in range(a + 1)]
    ref = ref_loo(refit, n, [(lv, ranking[:r], ranking[:s]) for lv, r, s in keys],
                  attr_weights, min_count, loss)
    for key, expected in zip(keys, ref, strict=True):
        assert_allclose(losses[key], expected, rtol=1e-9, atol=1e-12, err_msg=f"model {key}")
    # the learner's own pass: its ranking and uniform weights
    keys = [(n, r, s) for r in range(n, a + 1) for s in range(a + 1)]
    ref = ref_loo(refit, n, [(lv, model.ranking_[:r], model.ranking_[:s]) for lv, r, s in keys],
                  np.ones(a), min_count, loss)
    expected = mean_loss(ref, refit.w.sum(), loss)
    got = np.array([model.loo_loss_[key] for key in keys])
    assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_auto_order_loo_equals_refit():
    """AnDE(n="auto"): every order's models, scored by leave-one-out RMSE."""
    model = AnDE(n="auto", numeric="gaussian", discretizer="equal_frequency").fit(X, Y)
    refit = Refit(model, X, Y, None)
    a = 4
    keys = [(level, r, s) for level in range(3)
            for r in ([0] if level == 0 else range(level, a + 1)) for s in range(1, a + 1)]
    ref = ref_loo(refit, 2, [(lv, model.ranking_[:r], model.ranking_[:s])
                             for lv, r, s in keys], np.ones(a), 1, "rmse")
    got = np.array([model.loo_loss_[key] for key in keys])
    assert_allclose(got, np.sqrt(ref / len(Y)), rtol=1e-9)


def test_swaode_loo_equals_refit():
    model = SWAODE(numeric="gaussian", loss="log_loss", discretizer="equal_frequency").fit(X, Y)
    refit = Refit(model, X, Y, None)
    keys = [(1, r, s) for r in range(1, 5) for s in range(5)]
    ref = ref_loo(refit, 1, [(lv, model.ranking_[:r], model.ranking_[:s])
                             for lv, r, s in keys], model.parent_weights_, 1, "log_loss")
    got = np.array([model.loo_loss_[key] for key in keys])
    assert_allclose(got, ref / len(Y), rtol=1e-9)


# ------------------------------------------------------------------------ wrapper search
@pytest.mark.parametrize("missing, density", [("ignore", "plugin"), ("value", "plugin"),
                                              ("ignore", "student"), ("value", "student")])
def test_wrapper_loo_equals_refit_for_every_move(missing, density):
    model = FSSAODE(numeric="gaussian", density=density, missing=missing,
                    discretizer="equal_frequency", loss="rmse").fit(X, Y)
    refit = Refit(model, X, Y, None)
    a = 4
    parents = np.array([True, True, False, True])
    children = np.array([True, False, True, True])
    candidates = [(-1, False, False)] + [(q, p, c) for q in range(a)
                                         for p in (False, True) for c in (False, True)]
    source = ArraySource(refit.codes, refit.y, values=refit.values)
    losses, total = st.wrapper_losses(model.table_, source, parents, children, candidates,
                                      "m_estimate", 1.0, 1, "rmse",
                                      gaussian=GAUSSIAN.loo(model, 1))
    models = []
    for q, p, c in candidates:
        par, chi = parents.copy(), children.copy()
        if q >= 0:
            par[q], chi[q] = p, c
        models.append((1, np.flatnonzero(par), np.flatnonzero(chi)))
    ref = ref_loo(refit, 1, models, np.ones(a), 1, "rmse")
    assert_allclose(losses, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls", [FSSAODE, BSEAODE])
def test_wrapper_path_is_the_refit_loss(cls):
    model = cls(numeric="gaussian", discretizer="equal_frequency", loss="log_loss").fit(X, Y)
    refit = Refit(model, X, Y, None)
    ref = ref_loo(refit, 1, [(1, model.parents_, model.children_)], np.ones(4), 1,
                  "log_loss")
    assert_allclose(model.loo_loss_, ref[0] / len(Y), rtol=1e-9)


# ------------------------------------------------------------------------------ prediction
@pytest.mark.parametrize("missing", ["ignore", "value"])
def test_structure_scores_match_the_reference(missing):
    model = SelectiveAnDE(n=2, numeric="gaussian", missing=missing,
                          discretizer="equal_frequency").fit(X, Y)
    refit = Refit(model, XT, np.full(len(XT), "a"), None)
    table = model.table_
    kappa = float(model.m)
    fitted = (table, *table.moments.estimates(kappa), GAUSSIAN.bin_log_widths(model))
    weights = np.array([0.3, 1.0, 0.0, 2.0])
    values = refit.values
    for order, parents, children in [(0, [], [1, 3]), (1, [0, 2, 3], [0, 1, 2]),
                                     (2, [0, 1, 2, 3], [0, 1, 2, 3]), (1, [], [0, 2])]:
        inputs = st.GaussianInputs(values, GAUSSIAN.loo(model, 0).gaussian,
                                   GAUSSIAN.missing_codes(model), GAUSSIAN.bin_log_widths(model),
                                   kappa)
        got = st.structure_scores(table, refit.codes, order, parents, children, weights,
                                  "m_estimate", 1.0, 2, inputs)
        for t in range(len(XT)):
            ref = ref_scores(refit, fitted, t, order, parents, children, weights, 2)
            assert_allclose(got[t], ref, rtol=1e-10, err_msg=f"{order} {parents} {children}")


@pytest.mark.parametrize("n, density", [(1, "plugin"), (2, "plugin"), (1, "student"),
                                        (2, "student")])
def test_full_structure_is_gaussian_ande(n, density):
    """The model with every attribute a parent and a child is AnDE with Gaussian (or
    Student's t) children."""
    model = SelectiveAnDE(n=n, numeric="gaussian", density=density).fit(X, Y)
    a = model.table_.n_attributes
    ande = AnDE(n=n, numeric="gaussian", density=density).fit(X, Y)
    codes = model._storage_codes(XT)
    inputs = st.GaussianInputs(model.encoder_.numeric_values(XT, "t"),
                               GAUSSIAN.loo(model, 0).gaussian,
                               GAUSSIAN.missing_codes(model), GAUSSIAN.bin_log_widths(model), 1.0,
                               density == "student")
    got = st.structure_scores(model.table_, codes, n, np.arange(a), np.arange(a), np.ones(a),
                              "m_estimate", 1.0, 1, inputs)
    assert_allclose(got, ande.joint_log_likelihood(XT), rtol=1e-10)


# -------------------------------------------------------------- the learners as a whole
GAUSSIAN_LEARNERS = [
    lambda: SelectiveAnDE(n=2, numeric="gaussian"),
    lambda: ASAODE(numeric="gaussian"),
    lambda: SAODE(numeric="gaussian"),
    lambda: SWAODE(numeric="gaussian"),
    lambda: FSSAODE(numeric="gaussian"),
    lambda: BSEAODE(numeric="gaussian"),
    lambda: AnDE(n="auto", numeric="gaussian"),
    lambda: MAPLMD(numeric="gaussian", max_iter=15),
    lambda: MAPLMG(n=2, numeric="gaussian", max_iter=15),
    lambda: BMAAODE(numeric="gaussian"),
]
IDS = ["SelectiveAnDE", "ASAODE", "SAODE", "SWAODE", "FSSAODE", "BSEAODE", "AnDE-auto",
       "MAPLMD", "MAPLMG", "BMAAODE"]


@pytest.mark.parametrize("make", GAUSSIAN_LEARNERS, ids=IDS)
def test_units_of_a_numeric_column_do_not_matter(make):
    # BMAAODE's evidence of a root covers the rows where it is observed: the roots' weights
    # ignore the units only when no value is missing (see seminaive.weighting.bma)
    Xb, Yb = mixed_frame(120, seed=4, missing=0.0 if isinstance(make(), BMAAODE) else 0.1)
    base = make().fit(Xb, Yb)
    Xs, XTs = Xb.copy(), XT.copy()
    for frame in (Xs, XTs):
        frame["size"] = frame["size"] * 1000.0 + 5e6
        frame["weight"] = frame["weight"] / 64.0
    scaled = make().fit(Xs, Yb)
    assert_allclose(scaled.predict_proba(XTs), base.predict_proba(XT), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("make", GAUSSIAN_LEARNERS, ids=IDS)
def test_discretize_is_unchanged(make):
    """numeric="discretize" (the default) is the learner as it was; numeric="gaussian"
    without a numeric column too."""
    gaussian = make()
    params = {k: v for k, v in gaussian.get_params().items() if k != "numeric"}
    plain = type(gaussian)(**params).fit(X, Y)
    explicit = type(gaussian)(**params, numeric="discretize").fit(X, Y)
    assert plain.table_.moments is None
    assert_array_equal(plain.predict_proba(XT), explicit.predict_proba(XT))
    nominal = X[["colour", "shape"]]
    a = type(gaussian)(**params).fit(nominal, Y)
    b = gaussian.fit(nominal, Y)
    assert_array_equal(a.predict_proba(XT[["colour", "shape"]]),
                       b.predict_proba(XT[["colour", "shape"]]))
    assert not np.allclose(make().fit(X, Y).predict_proba(XT), plain.predict_proba(XT))


@pytest.mark.parametrize("make", GAUSSIAN_LEARNERS, ids=IDS)
def test_stream_dask_save_load(make, tmp_path):
    Xb, Yb = mixed_frame(150, seed=5)
    full = make().fit(Xb, Yb)
    assert full.table_.moments is not None
    path = tmp_path / "train.parquet"
    Xb.assign(label=Yb).to_parquet(path, row_group_size=40)
    streamed = make().fit_stream(path, target="label", chunk_rows=40, sample_rows=None,
                                 progress=False)
    assert_allclose(streamed.predict_proba(XT), full.predict_proba(XT), rtol=0, atol=1e-10)
    one_chunk = make().partial_fit(Xb, Yb, classes=np.unique(Yb))
    assert_allclose(one_chunk.predict_proba(XT), full.predict_proba(XT), rtol=0, atol=1e-12)
    full.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert back.get_params() == full.get_params()
    assert_array_equal(back.predict_proba(XT), full.predict_proba(XT))
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        distributed = seminaive.dask.fit(make(), dd.from_pandas(Xb.assign(label=Yb),
                                                               npartitions=3), target="label")
    assert_allclose(distributed.predict_proba(XT), full.predict_proba(XT), rtol=0, atol=1e-10)


def test_selection_sees_the_gaussian_children():
    """The selected full model of ASAODE is Gaussian AODE."""
    model = ASAODE(numeric="gaussian").fit(X, Y)
    if model.n_parents_ == 4 and model.n_children_ == 4:
        aode = AODE(numeric="gaussian", density="student").fit(X, Y)
        assert_allclose(model.predict_proba(XT), aode.predict_proba(XT), rtol=1e-10)
    assert np.all(np.isfinite(model.loo_loss_[1, 1:, 1:]))


# --------------------------------------------------------------- leave-one-out mixtures
@pytest.mark.parametrize("n, smoothing, min_count, missing, wkind", [
    (1, "m_estimate", 1, "ignore", "none"),
    (2, "laplace", 2, "value", "int"),
    (1, "m_estimate", 1, "value", "frac"),
])
def test_mixture_loo_joints_equal_refit(n, smoothing, min_count, missing, wkind):
    """Every sub-model's leave-one-out log joint (MAPLMD / MAPLMG) equals the refitted
    sub-model's, Gaussian children (Student's t, the default; the plug-in Gaussian on the
    first case) and numeric parents' bin widths included."""
    rng = np.random.default_rng(n)
    w = {"none": None, "int": rng.integers(0, 3, len(Y)).astype(float),
         "frac": rng.uniform(0.2, 2.5, len(Y))}[wkind]
    model = MAPLMG(n=n, numeric="gaussian", smoothing=smoothing, min_count=min_count,
                   density="plugin" if wkind == "none" else "student",
                   missing=missing, max_iter=2, discretizer="equal_frequency",
                   n_bins=3).fit(X, Y, sample_weight=w)
    refit = Refit(model, X, Y, w)
    loo = LeaveOneOut(model.table_, n, smoothing, model.m, min_count, GAUSSIAN.loo(model, n))
    got = loo.log_joint(refit.codes, refit.y, w, refit.values)
    parents = model.table_.combinations(n)
    for t in range(len(Y)):
        fitted = refit.without(t, n)
        table = fitted[0]
        x = refit.codes[t]
        for j, s in enumerate(parents):
            s = [int(i) for i in s]
            count = table.block(s)[tuple(int(x[i]) for i in s)].sum()
            if any(x[i] == 0 for i in s) or count < min_count:
                assert np.isnan(got[t, j]).all()
                continue
            expected = ref_scores(refit, fitted, t, n, s, range(4), np.ones(4), min_count)
            assert_allclose(got[t, j], expected, rtol=1e-9, err_msg=f"row {t}, parents {s}")


@pytest.mark.parametrize("kind", [STAT_LMD, STAT_LMG])
def test_mixture_statistics_stream_equal_cached(kind):
    """The statistics computed chunk by chunk (joints on the fly) equal those of the cached
    leave-one-out tensor."""
    model = MAPLMD(numeric="gaussian", max_iter=2).fit(X, Y)
    refit = Refit(model, X, Y, None)
    loo = LeaveOneOut(model.table_, 1, "m_estimate", 1.0, 1, GAUSSIAN.loo(model, 1))
    source = ArraySource(refit.codes, refit.y, chunk_rows=11, values=refit.values)
    alpha = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    streamed = Evaluator(loo, source, kind, cache_bytes=0)
    cached = Evaluator(loo, source, kind, cache_bytes=2**20)
    assert cached.cached and not streamed.cached
    assert_allclose(streamed(alpha), cached(alpha), rtol=1e-10)


# ------------------------------------------------------------------------------ BMAAODE
def _nig_chain_rule(values, mu0, var0, kappa):
    """log p(values) as the product of the sequential Student-t predictive densities of the
    normal-inverse-gamma posterior (an independent computation of the evidence)."""
    mu, kap, a, b = mu0, kappa, kappa / 2.0, kappa * var0 / 2.0
    total = 0.0
    for x in values:
        scale = math.sqrt(b * (kap + 1) / (a * kap))
        total += student_t.logpdf(x, df=2 * a, loc=mu, scale=scale)
        b += kap * (x - mu) ** 2 / (2 * (kap + 1))
        mu = (kap * mu + x) / (kap + 1)
        kap += 1
        a += 0.5
    return total


def test_gaussian_evidence_is_the_chain_rule():
    from seminaive.weighting.bma import gaussian_log_evidence

    rng = np.random.default_rng(0)
    for kappa in (0.5, 1.0, 3.0):
        v = rng.normal(2.0, 1.5, 9)
        sums = np.array([v.size, v.sum(), (v * v).sum()])
        assert_allclose(gaussian_log_evidence(sums, 0.7, 1.3, kappa),
                        _nig_chain_rule(v, 0.7, 1.3, kappa), rtol=1e-10)


@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
def test_bma_marginal_likelihood_is_the_chain_rule(smoothing):
    """log W_u with Gaussian children: every row's posterior predictive given the rows
    before it (Dirichlet for the root and the nominal children, divided by a numeric
    root's bin width; Student-t for the Gaussian children)."""
    Xc, yc = mixed_frame(30, seed=2, missing=0.0)
    m = 1.5
    model = BMAAODE(numeric="gaussian", smoothing=smoothing, m=m, min_count=0,
                    discretizer="equal_frequency").fit(Xc, yc)
    codes = np.asarray(model._storage_codes(Xc))
    values = model.encoder_.numeric_values(Xc, "t")
    y = np.searchsorted(model.classes_, yc)
    table = model.table_
    k, nv = 3, table.n_values
    laplace = smoothing == "laplace"
    kappa = 1.0 if laplace else m
    mean, var = table.moments.estimates(kappa)
    widths = GAUSSIAN.bin_log_widths(model)
    numeric = [1, 2]
    expected = np.zeros(4)
    for u in range(4):
        total = 0.0
        for t in range(len(y)):
            prev = np.arange(t)
            same = prev[(codes[prev, u] == codes[t, u]) & (y[prev] == y[t])]
            rp = 1.0 if laplace else m / (k * nv[u])
            total += math.log((same.size + rp) / (t + k * nv[u] * rp)) - widths[u, codes[t, u]]
            for v in range(4):
                if v == u:
                    continue
                if v in numeric:
                    j = numeric.index(v)
                    e0 = table.moments.offsets[table.moments.index[((), v)]] // 3
                    seq = list(values[same, j]) + [values[t, j]]
                    mu0, var0 = mean[e0 + y[t]], var[e0 + y[t]]
                    total += (_nig_chain_rule(seq, mu0, var0, kappa)
                              - _nig_chain_rule(seq[:-1], mu0, var0, kappa))
                    continue
                cp = 1.0 if laplace else m / nv[v]
                hit = (codes[same, v] == codes[t, v]).sum()
                total += math.log((hit + cp) / (same.size + nv[v] * cp))
        expected[u] = total
    assert_allclose(model.log_marginal_likelihoods_, expected, rtol=1e-10)
    assert np.isclose(np.exp(model.log_weights_).sum(), 1.0)


def test_bma_gaussian_learner():
    model = BMAAODE(numeric="gaussian", missing="value").fit(X, Y)
    proba = model.predict_proba(XT)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert not np.allclose(proba, BMAAODE().fit(X, Y).predict_proba(XT))


@pytest.mark.parametrize("density", ["plugin", "student"])
def test_rare_class_uses_the_pooled_estimates_without_the_row(density):
    """A class with two rows: holding one out leaves one, whose class-level estimate falls
    back to the pooled one (all classes, without the row; with Student's t children it
    shrinks towards it), as refitting does."""
    Xr, Yr = mixed_frame(36, seed=3)
    Yr = np.where(Yr == "c", "b", Yr)
    Yr[[4, 9]] = "c"
    Xr.loc[[4, 9], ["size", "weight"]] = [[11.0, 20.0], [14.0, 30.0]]
    model = SelectiveAnDE(n=1, numeric="gaussian", density=density, loss="log_loss",
                          discretizer="equal_frequency").fit(Xr, Yr)
    refit = Refit(model, Xr, Yr, None)
    keys = [(1, r, s) for r in range(1, 5) for s in range(5)]
    ref = ref_loo(refit, 1, [(lv, model.ranking_[:r], model.ranking_[:s])
                             for lv, r, s in keys], np.ones(4), 1, "log_loss")
    got = np.array([model.loo_loss_[key] for key in keys])
    assert_allclose(got, ref / len(Yr), rtol=1e-9)
