"""The selection learners: invariants, special cases, subsumption resolution, n="auto"."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import seminaive
from seminaive import (
    AODE,
    AODESR,
    ASAODE,
    BSEAODE,
    FSSAODE,
    SAODE,
    SWAODE,
    AnDE,
    NaiveBayes,
    SelectiveAnDE,
)
from seminaive.datasets import RandomBayesianNetwork
from seminaive.kernels.losses import mean_loss
from seminaive.selection import _structure as st
from seminaive.sources import ArraySource

ALL = [ASAODE(), SAODE(), SWAODE(), SelectiveAnDE(n=2), SelectiveAnDE(n=0),
       BSEAODE(mode="pe"), BSEAODE(mode="ce"), BSEAODE(mode="p_and_ce"),
       BSEAODE(mode="p_or_ce"), FSSAODE(mode="pa"), FSSAODE(mode="ca"),
       FSSAODE(mode="p_and_ca"), FSSAODE(mode="p_or_ca"), AODESR(), AODESR("eager"),
       AODESR("near", threshold=20), AnDE(n="auto")]


def _bn_data(n_rows=400, seed=0, n_attributes=7, max_parents=2, concentration=0.5):
    bn = RandomBayesianNetwork(n_attributes=n_attributes, n_values=3, n_classes=3,
                               max_parents=max_parents, concentration=concentration,
                               random_state=seed)
    X, y = bn.sample(n_rows, random_state=seed)
    return pd.DataFrame(np.asarray(X)).astype(str), np.asarray(y)


@pytest.fixture(scope="module")
def data():
    X, y = _bn_data()
    X = X.copy()
    X.iloc[::9, 2] = None  # some missing values
    return X, y


@pytest.mark.parametrize("est", ALL, ids=repr)
def test_probabilities_sum_to_one_and_round_trip(est, data, tmp_path):
    X, y = data
    est.fit(X, y)
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), np.unique(y).size)
    assert np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_array_equal(est.predict(X), est.classes_[np.argmax(proba, axis=1)])
    assert np.mean(est.predict(X) == y) > 0.6
    path = tmp_path / "model.npz"
    est.save(path)
    loaded = seminaive.load(path)
    assert type(loaded) is type(est)
    assert_array_equal(loaded.predict_proba(X), proba)
    for attr in ("n_", "parents_", "children_", "n_parents_", "n_children_", "ranking_"):
        if hasattr(est, attr):
            assert_array_equal(getattr(loaded, attr), getattr(est, attr))


@pytest.mark.parametrize("est", [ASAODE(), BSEAODE(), AnDE(n="auto"), AODESR("eager")],
                         ids=repr)
def test_inconsistent_learned_arrays_are_refused(est, data, tmp_path):
    X, y = data
    est.fit(X, y)
    state = est._learned_state()
    _restore(est, state)  # the intact state is accepted
    for name, value in state.items():
        value = np.asarray(value)
        if name == "loo_loss":
            corrupt = value[:-1]  # wrong shape
        elif name == "loo_path" or value.size == 0:
            corrupt = value[:0] if value.size else np.array([10**6])
        elif value.dtype.kind in "iu":
            corrupt = value + 10**6  # out of range
        else:
            corrupt = -np.ones_like(value)  # negative weights / information
        with pytest.raises(ValueError):
            _restore(est, dict(state, **{name: corrupt}))
    with pytest.raises(ValueError):
        _restore(est, dict(state, extra=np.zeros(3)))


def _restore(est, arrays):
    clone = type(est)(**est.get_params())
    clone.table_ = est.table_
    clone._set_learned_state(arrays)


def test_asaode_with_every_attribute_is_aode(data):
    X, y = data
    sel = ASAODE().fit(X, y)
    a = sel.n_features_in_
    sel.n_, sel.parents_, sel.children_ = 1, np.arange(a), np.arange(a)
    assert_allclose(sel.predict_proba(X), AODE().fit(X, y).predict_proba(X), rtol=1e-10)
    # and its leave-one-out loss is that of AODE (the (1, a, a) model of the space)
    full = st.wrapper_losses(sel.table_, ArraySource(sel._storage_codes(X), sel._encode_target(y)),
                             np.ones(a, bool), np.ones(a, bool), [(-1, False, False)],
                             "m_estimate", 1.0, 1, "rmse")
    assert_allclose(sel.loo_loss_[1, a, a], np.sqrt(full[0][0] / len(y)), rtol=1e-10)


def test_selective_nb_and_a2de_with_every_attribute(data):
    X, y = data
    a = X.shape[1]
    nb = SelectiveAnDE(n=0).fit(X, y)
    nb.children_ = np.arange(a)
    assert_allclose(nb.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X), rtol=1e-10)
    a2 = SelectiveAnDE(n=2).fit(X, y)
    a2.parents_, a2.children_ = np.arange(a), np.arange(a)
    assert_allclose(a2.predict_proba(X), AnDE(n=2).fit(X, y).predict_proba(X), rtol=1e-10)


@pytest.mark.parametrize("loss", ["rmse", "zero_one", "log_loss"])
def test_selected_model_is_the_loo_minimum(data, loss):
    X, y = data
    est = ASAODE(loss=loss).fit(X, y)
    table = est.loo_loss_[1, 1:, 1:]
    assert est.loo_loss_[1, est.n_parents_, est.n_children_] == np.nanmin(table)
    assert_array_equal(est.parents_, np.sort(est.ranking_[:est.n_parents_]))
    assert_array_equal(est.children_, np.sort(est.ranking_[:est.n_children_]))
    assert np.all(np.diff(est.mutual_information_[est.ranking_]) <= 0)


def test_swaode_with_equal_weights_is_saode(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(SWAODE, "_parent_weights", lambda self, mi: np.full(mi.size, 0.37))
    sw = SWAODE().fit(X, y)
    sa = SAODE().fit(X, y)
    assert_allclose(sw.loo_loss_, sa.loo_loss_, rtol=1e-10)
    assert (sw.n_parents_, sw.n_children_) == (sa.n_parents_, sa.n_children_)
    assert_allclose(sw.predict_proba(X), sa.predict_proba(X), rtol=1e-10)


def test_swaode_weights_are_mutual_information(data):
    X, y = data
    sw = SWAODE().fit(X, y)
    assert_allclose(sw.parent_weights_, sw.mutual_information_)
    sa = SAODE().fit(X, y)
    assert np.any(sw.loo_loss_[1, 2:, 1:] != sa.loo_loss_[1, 2:, 1:])


@pytest.mark.parametrize("mode", ["pe", "ce", "p_and_ce", "p_or_ce"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("loss", ["zero_one", "rmse"])
def test_bse_never_worse_than_full_aode(mode, seed, loss):
    X, y = _bn_data(n_rows=250, seed=seed)
    est = BSEAODE(mode=mode, loss=loss).fit(X, y)
    a = X.shape[1]
    codes, yi = est._storage_codes(X), est._encode_target(y)
    full, _ = st.wrapper_losses(est.table_, ArraySource(codes, yi), np.ones(a, bool),
                                np.ones(a, bool), [(-1, False, False)], "m_estimate", 1.0, 1,
                                loss)
    parents = np.isin(np.arange(a), est.parents_)
    children = np.isin(np.arange(a), est.children_)
    chosen, _ = st.wrapper_losses(est.table_, ArraySource(codes, yi), parents, children,
                                  [(-1, False, False)], "m_estimate", 1.0, 1, loss)
    assert chosen[0] <= full[0]
    assert np.all(np.diff(est.loo_path_) < 0)  # every accepted move strictly improves
    assert_allclose(est.loo_path_[0], mean_loss(full[0], len(y), loss))
    if mode == "pe":
        assert est.children_.size == a
    if mode == "ce":
        assert est.parents_.size == a
    if mode == "p_and_ce":
        assert_array_equal(est.parents_, est.children_)


def test_fss_adds_until_no_improvement():
    X, y = _bn_data(n_rows=250, seed=3)
    est = FSSAODE(mode="p_or_ca", loss="rmse").fit(X, y)
    accepted = est.loo_path_.size - 1
    assert accepted >= 1 and est.n_passes_ == accepted + 1  # the last pass finds no gain
    assert np.all(np.diff(est.loo_path_) < 0)
    # every accepted move adds the attribute as a parent, a child or both
    assert accepted <= est.parents_.size + est.children_.size <= 2 * accepted


def test_invalid_parameters():
    X, y = _bn_data(n_rows=60)
    for est, match in [(BSEAODE(mode="x"), "mode"), (FSSAODE(mode="ce"), "mode"),
                       (ASAODE(loss="auc"), "loss"), (SelectiveAnDE(n=-1), "n must"),
                       (SelectiveAnDE(n=1.5), "n must"), (AODESR("fast"), "variant"),
                       (AODESR(threshold=-1), "threshold"), (AODESR(near_ratio=1.5), "near"),
                       (AnDE(n="automatic"), "n must"),
                       (AnDE(n="auto", aggregate="vote"), "aggregate"),
                       (AnDE(n="auto", weights="mi"), "weights")]:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


def test_partial_fit_reselects_over_the_new_chunk():
    X, y = _bn_data(n_rows=300, seed=4)
    one = ASAODE().fit(X, y)
    inc = ASAODE().partial_fit(X, y, classes=np.unique(y))
    assert_allclose(inc.loo_loss_, one.loo_loss_)
    inc.partial_fit(X.iloc[:100], y[:100])
    assert_allclose(inc.table_.counts, AODE().fit(pd.concat([X, X.iloc[:100]]),
                                                   np.r_[y, y[:100]]).table_.counts)
    assert np.isfinite(inc.loo_loss_[1, 1:, 1:]).all()


def test_integer_weights_select_as_repeated_rows():
    X, y = _bn_data(n_rows=120, seed=6)
    w = np.random.default_rng(0).integers(0, 3, len(y))
    weighted = SWAODE().fit(X, y, sample_weight=w)
    idx = np.repeat(np.arange(len(y)), w)
    repeated = SWAODE().fit(X.iloc[idx], y[idx])
    assert_allclose(weighted.loo_loss_, repeated.loo_loss_, rtol=1e-10)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-10)


# ------------------------------------------------------------------------------------------
# Subsumption resolution
# ------------------------------------------------------------------------------------------

def _pregnancy(n=400, seed=0):
    """Pregnant = yes implies Gender = female: female generalises pregnant=yes, and
    pregnant=no generalises male."""
    rng = np.random.default_rng(seed)
    female = rng.random(n) < 0.5
    pregnant = female & (rng.random(n) < 0.6)
    other = rng.integers(0, 3, n)
    y = np.where(pregnant, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
    X = pd.DataFrame({"pregnant": np.where(pregnant, "yes", "no"),
                      "gender": np.where(female, "F", "M"),
                      "other": other.astype(str)})
    return X, y


def test_lazy_sr_drops_the_generalisation():
    X, y = _pregnancy()
    assert (X.pregnant == "yes").sum() >= 100 and (X.gender == "M").sum() >= 100
    est = AODESR(threshold=100).fit(X, y)
    test = pd.DataFrame({"pregnant": ["yes", "no", "no"], "gender": ["F", "M", "F"],
                         "other": ["0", "1", "2"]})
    mask = est.subsumed(test)
    # row 0: gender=F generalises pregnant=yes; row 1: pregnant=no generalises gender=M
    assert mask.tolist() == [[False, True, False], [True, False, False],
                             [False, False, False]]
    # classified as AODE on the instance without the deleted value
    reduced = test.astype(object)
    reduced.iloc[0, 1] = None
    reduced.iloc[1, 0] = None
    assert_allclose(est.predict_proba(test), AODE().fit(X, y).predict_proba(reduced),
                    rtol=1e-12)
    # below the frequency threshold nothing is deleted: plain AODE
    high = AODESR(threshold=10_000).fit(X, y)
    assert not high.subsumed(test).any()
    assert_allclose(high.predict_proba(test), AODE().fit(X, y).predict_proba(test))


def test_sr_keeps_one_of_equivalent_values_and_near_sr_tolerates_exceptions():
    X, y = _pregnancy()
    X["copy"] = X["gender"].map({"F": "f", "M": "m"})  # equivalent to gender
    X.loc[0, "pregnant"] = "yes"
    X.loc[0, "gender"] = "M"  # one exception: pregnant=yes no longer implies F
    X.loc[0, "copy"] = "m"
    est = AODESR().fit(X, y)
    test = pd.DataFrame({"pregnant": ["yes"], "gender": ["F"], "other": ["0"], "copy": ["f"]})
    assert est.subsumed(test).tolist() == [[False, False, False, True]]
    near = AODESR("near", near_ratio=0.99).fit(X, y)
    assert near.subsumed(test).tolist() == [[False, True, False, True]]


def test_eager_sr_deletes_what_lazy_sr_deletes():
    X, y = _bn_data(n_rows=600, seed=2, concentration=0.1)
    lazy = AODESR("lazy", threshold=20).fit(X, y)
    eager = AODESR("eager", threshold=20).fit(X, y)
    assert lazy.subsumed(X).any()
    assert_array_equal(eager.subsumed(X), lazy.subsumed(X))
    assert_array_equal(eager.predict_proba(X), lazy.predict_proba(X))
    indptr, indices = eager.generalisations_
    assert indptr[-1] == indices.size > 0


# ------------------------------------------------------------------------------------------
# AnDE(n="auto")
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_auto_picks_naive_bayes_when_nb_is_the_true_model(seed):
    bn = RandomBayesianNetwork(n_attributes=6, n_values=2, max_parents=0, random_state=seed)
    X, y = bn.sample(200, random_state=seed)
    est = AnDE(n="auto", categorical_features="all").fit(X, y)
    assert est.n_ == 0 and est.n_parents_ == 0 and est.parents_.size == 0


def test_auto_picks_higher_order_with_strong_dependencies():
    bn = RandomBayesianNetwork(n_attributes=10, n_values=3, max_parents=2, concentration=0.3,
                               random_state=7)
    X, y = bn.sample(5000, random_state=7)
    est = AnDE(n="auto", categorical_features="all").fit(X, y)
    assert est.n_ >= 1
    # XOR of two attributes: invisible to naive Bayes
    rng = np.random.default_rng(0)
    Z = rng.integers(0, 2, (2000, 4))
    target = Z[:, 0] ^ Z[:, 1]
    est = AnDE(n="auto", categorical_features="all").fit(Z, target)
    assert est.n_ >= 1 and np.mean(est.predict(Z) == target) == 1.0


def test_auto_leaves_integer_n_unchanged(data):
    X, y = data
    for n in (0, 1, 2):
        a = AnDE(n=n).fit(X, y)
        assert not hasattr(a, "n_")
        assert_array_equal(a.predict_proba(X), AnDE(n).fit(X, y).predict_proba(X))
    auto = AnDE(n="auto").fit(X, y)
    assert auto.table_.max_order == 3 and auto.n_ in (0, 1, 2)
    assert auto.loo_loss_.shape == (3, X.shape[1] + 1, X.shape[1] + 1)
