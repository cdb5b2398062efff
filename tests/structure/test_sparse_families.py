"""KDB / SKDB / ESKDB families and HDP trees stored only where the data reach.

The reference outputs in ``tests/data/sparse_reference.npz`` were written by the dense
families and the dense HDP sampler (commit 210d488, ``python tests/sparse_cases.py``): the
trees of occurring nodes must give bit-identical estimates, selections and probabilities.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sparse_cases import (
    check_reference,
    family_blocks,
    learner_cases,
    make_data,
    run_learner,
    run_sampler,
    sampler_cases,
)

from seminaive import ESKDB, KDB, SKDB, TableTooLargeError, load
from seminaive.kernels import hdp
from seminaive.structure import _sparse
from seminaive.tables import (
    CombinationTable,
    estimate_combination_bytes,
    estimate_table_bytes,
    storage_codes,
)

#: stored outputs written on another machine (run again with NUMBA_CPU_NAME=generic in CI)
pytestmark = pytest.mark.reference

REFERENCE = np.load(Path(__file__).resolve().parents[1] / "data" / "sparse_reference.npz")


def _check(name, out):
    check_reference(REFERENCE, name, out)


# --------------------------------------------------------------------------------------------
# The sampler: occurring nodes only, bit-identical to the dense sampler
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sampler_cases(), ids=lambda c: c[0])
def test_sampler_equals_the_dense_sampler(case):
    """Random trees with empty subtrees, one whose every node exists, one without rows,
    every tying option, fixed concentrations, no kept iteration."""
    name, trees, kwargs = case
    _check(name, run_sampler(trees, kwargs))


@pytest.mark.parametrize("tying", ["none", "parent", "level", "single"])
def test_zero_count_nodes_do_not_change_the_draws(tying):
    """A tree holding extra nodes without rows (zero-weight rows reach them) gives the same
    estimates on its other nodes: nodes without customers draw no random number."""
    rng = np.random.default_rng(4)
    dims = [3, 2, 3]
    counts = rng.poisson(2.0, size=(18, 4)) * (rng.random((18, 1)) < 0.5)
    index, parent, level_start, leaves = hdp.sparse_from_dense(counts, np.array(dims), 3)
    every = np.ones_like(counts)  # every node exists: the full tree's layout
    index_all, parent_all, ls_all, _ = hdp.sparse_from_dense(every, np.array(dims), 3)
    leaves_all = counts.copy()  # ... with the real counts, zero rows included
    kwargs = dict(n_iter=50, burn_in=5, tying=tying, seeds=[9])
    sparse = hdp.sparse_hdp_forest([(parent, level_start, leaves)], **kwargs)[0]
    full = hdp.sparse_hdp_forest([(parent_all, ls_all, leaves_all)], **kwargs)[0]
    present = index >= 0
    assert_array_equal(full[index_all[present]], sparse[index[present]])


def test_sparse_forest_validates_its_trees():
    with pytest.raises(ValueError, match="do not match"):
        hdp.sparse_hdp_forest([(np.array([-1, 0]), np.array([0, 1, 2]), np.ones((2, 2)))],
                              n_iter=2, burn_in=0, seeds=[0])
    with pytest.raises(ValueError, match="whole-number"):
        hdp.sparse_hdp_forest([(np.array([-1, 0]), np.array([0, 1, 2]), np.full((1, 2), .5))],
                              n_iter=2, burn_in=0, seeds=[0])


# --------------------------------------------------------------------------------------------
# The learners: bit-identical to the dense families
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", learner_cases(), ids=lambda c: c[0])
def test_learners_equal_the_dense_families(case):
    """KDB k = 1..5 (m-estimates and HDP with every tying), missing as a value,
    min_count, Gaussian children, Laplace; SKDB (its k, attribute count, leave-one-out
    losses and predictions); ESKDB per-member, shared and with m-estimates."""
    name, model = case
    _check(name, run_learner(model))


@pytest.mark.parametrize("name, model", [
    ("kdb3-w", KDB(k=3)),
    ("kdb4-hdp-w", KDB(k=4, smoothing="hdp", n_iter=40, random_state=2)),
    ("skdb4-w", SKDB(k=4))])
def test_weighted_learners_equal_the_dense_families(name, model):
    _check(name, run_learner(model, weights=True))


def test_count_trees_hold_the_prefix_families():
    """Every level of a count tree is the prefix family (x_i | y, first j chain parents),
    counted directly."""
    X, y = make_data()
    model = SKDB(k=4).fit(X, y)
    codes = storage_codes(model.encoder_.transform(X), model.table_.sizes)
    sizes, k = model.table_.sizes, model.table_.n_classes
    y_idx = np.searchsorted(model.classes_, y)
    for i, levels in enumerate(model._counts.levels):
        chain = model._tree_chain(i)
        for j in range(len(chain) + 1):
            family = (i, *chain[:j])
            direct = CombinationTable([family], sizes - 1, k).add(codes, y_idx).block(0)
            dense = np.zeros([k] + [int(sizes[p]) for p in chain[:j]] + [int(sizes[i])])
            codes_j, _, counts_j = levels[1 + j]
            dense.reshape(-1, int(sizes[i]))[codes_j] = counts_j
            want = np.moveaxis(direct, [0, -1], [-1, 0])  # (k, parents..., child)
            assert_array_equal(dense, want)
            assert np.all(counts_j.sum(axis=1) > 0)  # only occurring nodes


# --------------------------------------------------------------------------------------------
# Passes: files, chunks, partial_fit
# --------------------------------------------------------------------------------------------


def _frame():
    X, y = make_data(800, seed=3)
    frame = X.copy()
    frame["cls"] = np.array(["a", "b", "c"])[y]
    return frame


@pytest.mark.parametrize("model", [KDB(k=4), KDB(k=3, smoothing="hdp", n_iter=30,
                                                 random_state=0),
                                   SKDB(k=4),
                                   ESKDB(n_estimators=2, k=3, n_iter=30, random_state=0)],
                         ids=["kdb4", "kdb3-hdp", "skdb4", "eskdb"])
def test_fit_stream_equals_fit(model, tmp_path):
    frame = _frame()
    path = tmp_path / "data.parquet"
    frame.to_parquet(path)
    X = frame.drop(columns="cls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = type(model)(**model.get_params()).fit(X, frame["cls"])
        streamed = type(model)(**model.get_params()).fit_stream(path, target="cls",
                                                                chunk_rows=170,
                                                                sample_rows=10**6)
    assert_array_equal(streamed.predict_proba(X), ref.predict_proba(X))


def test_partial_fit_adds_nodes_and_new_values():
    """Chunks meeting new values and new parent combinations: the count trees after
    partial_fit are the direct counts of every row under the kept structure."""
    rng = np.random.default_rng(2)
    n = 600
    y = rng.integers(0, 3, n)
    X = np.column_stack([(y + rng.integers(0, 2, n)) % 4 for _ in range(5)])
    X[:, 3] = (X[:, 1] + X[:, 2]) % 4
    first, second = X[:300].copy(), X[300:].copy()
    first[first == 3] = 2  # the value 3 appears only in the second chunk
    model = KDB(k=3, categorical_features="all")
    model.partial_fit(first, y[:300], classes=[0, 1, 2])
    sizes_before = model.table_.sizes.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.partial_fit(second, y[300:])
    assert np.any(model.table_.sizes > sizes_before)  # the trees were recoded
    both = np.vstack([first, second])
    codes = storage_codes(model.encoder_.transform(both), model.table_.sizes)
    blocks = family_blocks(model)
    assert blocks
    for family, block in blocks.items():
        direct = CombinationTable([family], model.table_.sizes - 1, 3).add(codes, y).block(0)
        assert_array_equal(block, direct)
    # refitting the estimates from those counts equals a fit with that structure
    refit = KDB(k=3, categorical_features="all").fit(both, y)
    if np.array_equal(refit.structure_, model.structure_):
        assert_array_equal(refit.predict_proba(both), model.predict_proba(both))


def _chain_data(n, seed):
    """Nominal attributes in a strong chain (structure stable under subsampling)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = [np.where(rng.random(n) < 0.9, y, rng.integers(0, 3, n))]
    for s in (0.85, 0.8, 0.75, 0.7, 0.65):
        src = cols[-1] + (cols[-2] if len(cols) > 1 else 0)
        cols.append(np.where(rng.random(n) < s, src % 4, rng.integers(0, 4, n)))
    return np.column_stack(cols), y


@pytest.mark.parametrize("params", [{"k": 3}, {"k": 4}, {"k": 4, "smoothing": "hdp",
                                                           "n_iter": 30, "random_state": 0}])
def test_partial_fit_then_refit_equals_fit(params):
    """Three chunks through partial_fit (the structure of the first chunk is the one fit
    chooses on all the rows here): the same counts, estimates and probabilities as fit."""
    X, y = _chain_data(1500, 0)
    model = KDB(categorical_features="all", **params)
    for part in (slice(0, 500), slice(500, 1000), slice(1000, 1500)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.partial_fit(X[part], y[part], classes=[0, 1, 2])
    ref = KDB(categorical_features="all", **params).fit(X, y)
    assert_array_equal(model.structure_, ref.structure_)
    assert model._family_counts.keys() == ref._family_counts.keys()
    assert ref._family_counts
    for tree, (keys, counts) in ref._family_counts.items():
        assert_array_equal(model._family_counts[tree][0], keys)
        assert_array_equal(model._family_counts[tree][1], counts)
    assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


# --------------------------------------------------------------------------------------------
# Model files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [KDB(k=4), KDB(k=4, smoothing="hdp", n_iter=30,
                                                 random_state=0),
                                   SKDB(k=3, smoothing="hdp", n_iter=30, random_state=0),
                                   ESKDB(n_estimators=2, k=3, n_iter=30, random_state=0)],
                         ids=["kdb4", "kdb4-hdp", "skdb3-hdp", "eskdb"])
def test_save_load_round_trip(model, tmp_path):
    X, y = make_data()
    model.fit(X, y)
    model.save(tmp_path / "m.npz")
    loaded = load(tmp_path / "m.npz")
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_corrupt_and_dense_model_files_are_refused():
    X, y = make_data()
    model = KDB(k=4).fit(X, y)
    state = model._learned_state()
    keys = state["family_keys"].copy()
    keys[[0, 1]] = keys[[1, 0]]
    with pytest.raises(ValueError, match="not increasing"):
        model._set_learned_state({**state, "family_keys": keys})
    with pytest.raises(ValueError, match="out of range"):
        big = state["family_keys"].copy()
        big[state["family_lengths"][0] - 1] = 2 ** 62
        model._set_learned_state({**state, "family_keys": big})
    with pytest.raises(ValueError, match="non-negative"):
        model._set_learned_state({**state, "family_key_counts":
                                  -state["family_key_counts"]})
    with pytest.raises(ValueError, match="do not match"):
        model._set_learned_state({**state, "family_lengths": state["family_lengths"][1:]})
    # a model file of the dense layout (written before the families became trees)
    dense = {key: value for key, value in state.items() if not key.startswith("family_")}
    dense["family_counts"] = np.zeros(10)
    with pytest.raises(ValueError, match="dense family counts.*fit the model again"):
        model._set_learned_state(dense)
    skdb = SKDB(k=3).fit(X, y)
    sstate = {key: value for key, value in skdb._learned_state().items()
              if not key.startswith("family_")}
    with pytest.raises(ValueError, match="dense family counts"):
        skdb._set_learned_state({**sstate, "family_counts": np.zeros(10)})
    hdp_model = KDB(k=3, smoothing="hdp", n_iter=20, random_state=0).fit(X, y)
    hstate = hdp_model._learned_state()
    # the estimates are stored under a neutral name; files of earlier versions name them
    # hdp_estimates, which is still read and checked
    estimates = hstate.pop("hierarchical_estimates")
    with pytest.raises(ValueError, match="hdp_estimates"):
        hdp_model._set_learned_state({**hstate, "hdp_estimates": estimates[1:]})
    with pytest.raises(ValueError, match="hierarchical_estimates"):
        hdp_model._set_learned_state({**hstate, "hierarchical_estimates": estimates[1:]})


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------


def _wide(n=5000, a=16, values=15, k=26, seed=0):
    """Many values per attribute: a = 16 attributes of 15 values, 26 classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = np.empty((n, a), dtype=np.int64)
    X[:, 0] = (y + rng.integers(0, 3, n)) % values
    for j in range(1, a):
        X[:, j] = np.where(rng.random(n) < 0.6, (X[:, j - 1] + y) % values,
                           rng.integers(0, values, n))
    return X, y


def test_k5_fits_where_the_dense_families_would_not():
    X, y = _wide()
    budget = 256 * 2 ** 20
    model = KDB(k=5, categorical_features="all", max_table_bytes=budget).fit(X, y)
    families = [(i, *[int(p) for p in row if p >= 0]) for i, row in
                enumerate(model.structure_)]
    dense = estimate_combination_bytes(families, model.table_.sizes - 1, 26)
    assert dense > 100 * budget  # the dense layout: far more than the budget
    assert model._counts.arrays.nbytes + model.table_.nbytes < budget
    assert model.score(X, y) > 0.5
    hdp_model = KDB(k=5, smoothing="hdp", n_iter=20, categorical_features="all",
                    max_table_bytes=budget, random_state=0).fit(X, y)
    assert hdp_model.score(X, y) > 0.5
    eskdb = ESKDB(n_estimators=2, k=5, n_iter=20, categorical_features="all",
                  max_table_bytes=budget, random_state=0).fit(X, y)
    assert eskdb.score(X, y) > 0.5


def test_budget_refuses_the_occurring_nodes():
    X, y = _wide(n=2000)
    model = KDB(k=5, categorical_features="all").fit(X, y)
    pairs = estimate_table_bytes(model.table_.sizes - 1, 26, 2)["total"]
    used = model.table_.counts.nbytes + model._counts.arrays.nbytes
    assert used > pairs + 1000  # the pair tables fit, the count trees do not
    KDB(k=1, categorical_features="all", max_table_bytes=pairs + 1000).fit(X, y)
    with pytest.raises(TableTooLargeError, match="occurring nodes.*fewer parents"):
        KDB(k=5, categorical_features="all", max_table_bytes=pairs + 1000).fit(X, y)
    with pytest.raises(TableTooLargeError, match="occurring nodes"):
        ESKDB(n_estimators=3, k=5, n_iter=5, categorical_features="all",
              max_table_bytes=pairs + 1000).fit(X, y)
    hdp_model = KDB(k=5, smoothing="hdp", n_iter=5, categorical_features="all").fit(X, y)
    need = hdp.sparse_hdp_bytes(hdp_model._hdp_sampler_trees()[1])
    with pytest.raises(TableTooLargeError, match="hierarchical Dirichlet process"):
        KDB(k=5, smoothing="hdp", n_iter=5, categorical_features="all",
            max_table_bytes=used + need - 1).fit(X, y)
    KDB(k=5, smoothing="hdp", n_iter=5, categorical_features="all",
        max_table_bytes=used + need).fit(X, y)


def test_keys_beyond_64_bits_are_refused():
    with pytest.raises(TableTooLargeError, match="64-bit"):
        _sparse.check_key_range(0, [1, 2, 3, 4, 5], np.full(6, 2 ** 11), 26)


def test_recode_keys_on_growth():
    sizes = np.array([3, 4, 2])
    new = np.array([5, 4, 3])
    tree = (0, 2, 1)
    rng = np.random.default_rng(0)
    rows = np.column_stack([rng.integers(0, s, 50) for s in sizes])
    y = rng.integers(0, 2, 50)
    old_keys = _sparse.row_keys(rows, y, 0, [2, 1], sizes)
    assert_array_equal(_sparse.recode_keys(old_keys, tree, sizes, new),
                       _sparse.row_keys(rows, y, 0, [2, 1], new))
