"""AnDE(memory="select"): memory-constrained selective AnDE (Chen et al. 2017).

Checked against the exact reference AnDE of ``tests/reference.py`` restricted to the chosen
parent attributes, against plain AnDE when the budget holds it, and for the budget, the
ranking, determinism, partial_fit / fit_stream / Dask / model files and clear refusals.
"""

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import reference_proba

from seminaive import AnDE, FrequencyTable, TableTooLargeError, estimate_table_bytes, load
from seminaive.statistics import mutual_information

N_VALUES = np.array([2, 3, 2, 3, 2, 2, 3])
K = 3


def make_data(n_rows=90, seed=0, missing=0.05, mix=True):
    """Nominal columns (fixed categories) of varied dependence on the class (``mix``: a
    third of the rows of every third column replaced by noise)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n_rows)
    cols = {}
    for i, v in enumerate(N_VALUES):
        noise = rng.integers(0, v, n_rows)
        codes = (y + noise * (i % 3 != 0)) % v if i % 2 == 0 else noise
        if mix:
            codes = np.where(rng.random(n_rows) < 0.3 * (i % 3 == 1), noise, codes)
        values = pd.Categorical(codes, categories=range(v)).astype(object)
        values[rng.random(n_rows) < missing] = None
        cols[f"c{i}"] = pd.Categorical(values, categories=range(v))
    return pd.DataFrame(cols), y


def budgets(n):
    """(bytes of the full AnDE(n), bytes of the smallest selective layout)."""
    full = estimate_table_bytes(N_VALUES, K, n + 1)["total"]
    lower = estimate_table_bytes(N_VALUES, K, n + 1, parents=[])["total"]
    return full, lower


def codes_of(model, X):
    return model.encoder_.encode(X, "test")


def assert_matches_reference(model, X, y, X_test, n, **kw):
    ref = reference_proba(codes_of(model, X), y, codes_of(model, X_test), n, N_VALUES, K,
                          parents=model.parents_, **kw)
    assert_allclose(model.predict_proba(X_test), ref, rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------ the model
def test_large_budget_is_plain_ande_exactly():
    X, y = make_data()
    plain = AnDE(n=2).fit(X, y)
    model = AnDE(n=2, memory="select").fit(X, y)
    assert model.table_.parents is None
    assert_array_equal(model.parents_, np.arange(N_VALUES.size))
    assert_array_equal(model.table_.counts, plain.table_.counts)
    assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    assert model.table_bytes_ == estimate_table_bytes(N_VALUES, K, 3)["total"]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_forced_selection_equals_reference_restricted_to_parents(n):
    X, y = make_data(seed=n)
    X_test, _ = make_data(25, seed=10 + n, missing=0.15)
    full, lower = budgets(n)
    budget = (full + lower) // 2
    model = AnDE(n=n, memory="select", max_table_bytes=budget).fit(X, y)
    assert n <= model.parents_.size < N_VALUES.size
    assert model.table_bytes_ <= budget
    assert_matches_reference(model, X, y, X_test, n)


@pytest.mark.parametrize("kw", [dict(aggregate="posterior"), dict(aggregate="vote"),
                                dict(smoothing="laplace"), dict(min_count=3),
                                dict(m=0.5)])
def test_forced_selection_other_estimates(kw):
    X, y = make_data(seed=4)
    X_test, _ = make_data(25, seed=14, missing=0.15)
    full, lower = budgets(2)
    model = AnDE(n=2, memory="select", max_table_bytes=(full + lower) // 2, **kw).fit(X, y)
    assert model.table_.parents is not None
    assert_matches_reference(model, X, y, X_test, 2, **kw)


def test_table_bytes_within_budget_and_exact():
    X, y = make_data(seed=5)
    full, lower = budgets(2)
    for budget in np.linspace(lower, full, 6).astype(int)[1:-1]:
        # the dense layout (the compact one: tests/selection/test_memory_sparse.py)
        model = AnDE(n=2, memory="select_dense", max_table_bytes=int(budget)).fit(X, y)
        model.predict_proba(X)  # builds the log tables
        table, logs = model.table_, model.table_._log_tables
        est = estimate_table_bytes(N_VALUES, K, 3, parents=model.parents_)
        assert est["counts"] == table.counts.nbytes
        assert est["log_tables"] == logs.log_joint.nbytes + logs.log_conditional.nbytes
        assert model.table_bytes_ == est["total"] <= budget


def test_parents_are_the_top_ranked_and_as_many_as_fit():
    X, y = make_data(seed=6)
    full, lower = budgets(2)
    budget = (full + lower) // 2
    model = AnDE(n=2, memory="select", max_table_bytes=budget).fit(X, y)
    mi = mutual_information(AnDE(n=0).fit(X, y).table_)
    assert_allclose(model.mutual_information_, mi, rtol=0, atol=1e-15)
    assert np.all(np.diff(mi[model.ranking_]) <= 0)
    m = model.parents_.size
    assert_array_equal(model.parents_, np.sort(model.ranking_[:m]))
    more = estimate_table_bytes(N_VALUES, K, 3, parents=model.ranking_[:m + 1])["total"]
    assert more > budget


def test_choice_is_deterministic_and_ties_go_to_lower_columns():
    X, y = make_data(seed=7)
    X = X[["c0", "c1", "c2"]].copy()
    for i in range(3, N_VALUES.size):  # copies of c0: the same information
        X[f"c{i}"] = X["c0"]
    n_values = [2, 3, 2, 2, 2, 2, 2]
    full = estimate_table_bytes(n_values, K, 3)["total"]
    lower = estimate_table_bytes(n_values, K, 3, parents=[])["total"]
    fits = [AnDE(n=2, memory="select", max_table_bytes=(full + lower) // 2).fit(X, y)
            for _ in range(2)]
    assert_array_equal(fits[0].parents_, fits[1].parents_)
    assert_array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))
    tied = [int(i) for i in fits[0].ranking_ if fits[0].mutual_information_[i]
            == fits[0].mutual_information_[0]]
    assert tied == sorted(tied)


# ----------------------------------------------------------------------- the fit protocols
def forced(n=2):
    full, lower = budgets(n)
    return AnDE(n=n, memory="select", max_table_bytes=(full + lower) // 2)


def test_partial_fit_keeps_the_first_chunk_choice_and_counts_every_chunk():
    X, y = make_data(120, seed=8)
    model = forced().partial_fit(X.iloc[:60], y[:60], classes=range(K))
    first = model.parents_.copy()
    assert_array_equal(first, forced().fit(X.iloc[:60], y[:60]).parents_)
    with pytest.warns(UserWarning, match="keeps the parent attributes"):
        model.partial_fit(X.iloc[60:], y[60:])
    assert_array_equal(model.parents_, first)
    assert model.table_.n_rows == 120
    assert_matches_reference(model, X, y, X.iloc[:30], 2)


def test_full_model_partial_fit_does_not_warn():
    X, y = make_data(120, seed=8)
    model = AnDE(n=2, memory="select").partial_fit(X.iloc[:60], y[:60], classes=range(K))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(X.iloc[60:], y[60:])
    assert_array_equal(model.predict_proba(X), AnDE(n=2).fit(X, y).predict_proba(X))


def test_fit_stream_equals_fit():
    X, y = make_data(150, seed=9)
    frame = X.assign(cls=y)
    model = forced().fit_stream([frame.iloc[:50], frame.iloc[50:110], frame.iloc[110:]],
                                target="cls")
    reference = forced().fit(X, y)
    assert_array_equal(model.parents_, reference.parents_)
    assert_array_equal(model.table_.counts, reference.table_.counts)
    assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_one_shot_stream_cannot_make_the_second_pass():
    from seminaive import InputError

    X, y = make_data(150, seed=9)
    frame = X.assign(cls=y)
    model = forced()
    with pytest.raises(InputError, match="another pass"):
        model.fit_stream(iter([frame.iloc[:50], frame.iloc[50:]]), target="cls")
    assert not hasattr(model, "table_")
    # a budget that holds the full model needs no second pass
    full = AnDE(n=2, memory="select").fit_stream(iter([frame.iloc[:50], frame.iloc[50:]]),
                                                 target="cls")
    assert_array_equal(full.parents_, np.arange(N_VALUES.size))


def test_dask_equals_fit():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import seminaive.dask as sdask

    X, y = make_data(150, seed=10)
    ddf = dd.from_pandas(X.assign(cls=y), npartitions=3)
    with dask.config.set(scheduler="threads"):
        model = sdask.fit(forced(), ddf, target="cls")
    reference = forced().fit(X, y)
    assert_array_equal(model.parents_, reference.parents_)
    assert_array_equal(model.table_.counts, reference.table_.counts)
    assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_save_load_round_trip(tmp_path):
    X, y = make_data(seed=11)
    model = forced().fit(X, y)
    path = tmp_path / "select.npz"
    model.save(path)
    loaded = load(path)
    assert_array_equal(loaded.parents_, model.parents_)
    assert_array_equal(loaded.ranking_, model.ranking_)
    assert loaded.table_bytes_ == model.table_bytes_
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    with pytest.warns(UserWarning, match="keeps the parent attributes"):
        loaded.partial_fit(X, y)
    assert_array_equal(loaded.parents_, model.parents_)


def test_a_selective_table_in_a_plain_model_file_is_refused(tmp_path):
    from seminaive.exceptions import ModelFileError

    X, y = make_data(seed=11)
    model = forced().fit(X, y)
    path = tmp_path / "select.npz"
    model.save(path)
    model.memory = "refuse"  # the header now claims a plain AnDE over selective tables
    model.save(tmp_path / "plain.npz")
    with pytest.raises(ModelFileError):
        load(tmp_path / "plain.npz")


# ------------------------------------------------------------------------------- refusals
def test_budget_below_the_lower_order_tables_is_refused_before_counting():
    X, y = make_data(seed=12)
    _, lower = budgets(2)
    model = AnDE(n=2, memory="select", max_table_bytes=lower - 1)
    with pytest.raises(TableTooLargeError, match="even the tables of A1DE"):
        model.fit(X, y)
    assert not hasattr(model, "table_")


def test_budget_without_room_for_one_parent_combination_is_refused():
    X, y = make_data(seed=12)
    _, lower = budgets(2)
    # the dense layout (the compact one, which holds no log conditionals of order n, fits
    # here: tests/selection/test_memory_sparse.py)
    model = AnDE(n=2, memory="select_dense", max_table_bytes=lower + 8)
    with pytest.raises(TableTooLargeError, match="not those of one combination of 2"):
        model.fit(X, y)
    assert not hasattr(model, "table_")


def test_refuse_is_the_default():
    X, y = make_data(seed=12)
    full, lower = budgets(2)
    with pytest.raises(TableTooLargeError):
        AnDE(n=2, max_table_bytes=(full + lower) // 2).fit(X, y)


@pytest.mark.parametrize("kw, match", [
    (dict(memory="bogus"), "memory='bogus'"),
    (dict(memory="select", n="auto"), "fixed order"),
    (dict(memory="select", weights="mi"), "weights=None"),
    (dict(memory="select", numeric="gaussian"), "numeric='discretize'"),
    (dict(memory="select", smoothing="hdp"), "m_estimate"),
])
def test_bad_parameters(kw, match):
    X, y = make_data(seed=13)
    with pytest.raises(ValueError, match=match):
        AnDE(**{"n": 2, **kw}).fit(X, y)


# ----------------------------------------------------------------------- the table layer
def test_selective_table_layout():
    rng = np.random.default_rng(0)
    codes = np.column_stack([rng.integers(0, v + 1, 70) for v in N_VALUES])
    y = rng.integers(0, K, 70)
    parents = [1, 4, 5]
    table = FrequencyTable(N_VALUES, K, 3, parents=parents).add(codes, y)
    full = FrequencyTable(N_VALUES, K, 3).add(codes, y)
    a = N_VALUES.size
    top = [c for c in combinations(range(a), 3) if len(set(c) & set(parents)) >= 2]
    assert [table.members(g) for g in table.combination_range(3)] == top
    assert table.n_combinations(2) == a * (a - 1) // 2
    for g in range(table.orders.size):
        members = table.members(g)
        assert table.combination_index(members) == g
        assert_array_equal(table.block(members), full.block(members))
        for p in range(len(members)):
            rest = members[:p] + members[p + 1:]
            is_parent = len(members) < 3 or set(rest) <= set(parents)
            assert (table.sub_index[g, p] >= 0) == is_parent
            if is_parent:
                assert table.members(int(table.sub_index[g, p])) == rest
    assert_array_equal(table.parent_mask, [set(c) <= set(parents)
                                           for c in combinations(range(a), 2)])
    with pytest.raises(KeyError):
        table.combination_index([0, 2, 3])


def test_selective_tables_merge_and_refuse_other_parents():
    rng = np.random.default_rng(1)
    codes = np.column_stack([rng.integers(0, v + 1, 80) for v in N_VALUES])
    y = rng.integers(0, K, 80)
    whole = FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 3]).add(codes, y)
    part = FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 3]).add(codes[:30], y[:30])
    part.merge(FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 3]).add(codes[30:], y[30:]))
    assert_array_equal(part.counts, whole.counts)
    with pytest.raises(ValueError, match="parents"):
        part.merge(FrequencyTable(N_VALUES, K, 3, parents=[0, 2, 4]))
    with pytest.raises(ValueError, match="parents"):
        part.merge(FrequencyTable(N_VALUES, K, 3))


def test_estimate_with_every_parent_is_the_full_estimate():
    assert (estimate_table_bytes(N_VALUES, K, 3, parents=range(N_VALUES.size))
            == estimate_table_bytes(N_VALUES, K, 3))
    assert FrequencyTable(N_VALUES, K, 3, parents=range(N_VALUES.size)).parents is None


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n, parents", [(1, [1, 4]), (2, [0, 2, 5]), (2, [3, 6])])
def test_selective_table_scores_alike_with_both_kernels(aggregate, n, parents):
    """The parent-major kernel reads a selective table's log joints from their own layout
    (``lj_offsets``) and leaves out the sub-models of non-parents, as the combination-major
    kernel does; with min_count = 3 some parent cells do not qualify and some rows cascade."""
    rng = np.random.default_rng(n)
    codes = np.column_stack([rng.integers(0, v + 1, 80) for v in N_VALUES])
    y = rng.integers(0, K, 80)
    table = FrequencyTable(N_VALUES, K, n + 1, parents=parents).add(codes, y)
    X = np.column_stack([rng.integers(0, v + 1, 200) for v in N_VALUES]).astype(np.uint8)
    kw = dict(n=n, min_count=3, aggregate=aggregate)
    wide = table.scores(X, kernel="parent_major", **kw)
    combination = table.scores(X, kernel="combination", **kw)
    assert table.parent_major(n, min_count=3).parents.size == len(
        list(combinations(parents, n)))
    assert_allclose(wide, combination, rtol=0, atol=1e-12)
