"""Gaussian children's moments stored only for the (class, parent prefix) cells the rows
reach (KDB, SKDB, TAN).

The reference outputs in ``tests/data/gaussian_reference.npz`` were written by the dense
moment blocks (commit f8440f9, ``python tests/gaussian_cases.py``): the stored cells must
give bit-identical estimates, selections, leave-one-out losses and probabilities.
"""


from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gaussian_cases import (
    fitted,
    learner_cases,
    outputs,
    partial_cases,
    partially_fitted,
)
from numpy.testing import assert_allclose, assert_array_equal
from sparse_cases import check_reference, make_data

from seminaive import KDB, SKDB, TAN, TableTooLargeError, load
from seminaive.exceptions import ModelFileError
from seminaive.parts import GaussianChildren
from seminaive.structure import _moments
from seminaive.tables import MomentTable, storage_codes

#: the Gaussian children part (the helpers it provides read the fitted model)
GAUSSIAN = GaussianChildren()

#: stored outputs written on another machine (run again with NUMBA_CPU_NAME=generic in CI)
pytestmark = pytest.mark.reference

REFERENCE = np.load(Path(__file__).resolve().parents[1] / "data" / "gaussian_reference.npz")


def _check(name, out):
    check_reference(REFERENCE, name, out)


@pytest.mark.parametrize("case", learner_cases(), ids=lambda c: c[0])
def test_learners_equal_the_dense_moments(case):
    """KDB k = 1..5, min_count=0 with kappa not a power of two (empty cells' estimates
    drawn through several levels), Laplace, min_count, missing as a value, weights, TAN;
    SKDB's k, attribute count, leave-one-out losses and predictions."""
    name, model, weighted = case
    _check(name, outputs(fitted(model, weighted)))


@pytest.mark.parametrize("case", partial_cases(), ids=lambda c: c[0])
def test_partial_fit_equals_the_dense_moments(case):
    name, model = case
    _check(name, outputs(partially_fitted(model)))


def _direct(model, X, y, w=None):
    """The dense moments of the model's entries, counted directly from the rows."""
    codes = storage_codes(model.encoder_.transform(X), model.table_.sizes)
    values = model.encoder_.numeric_values(X, "t")
    y_idx = np.searchsorted(model.classes_, y)
    table = MomentTable(model._moment_entries(), model.table_.sizes, model.table_.n_classes,
                        GAUSSIAN.attributes(model))
    return table.add(codes, y_idx, w, values)


@pytest.mark.parametrize("make", [lambda: KDB(k=4, numeric="gaussian"),
                                  lambda: SKDB(k=3, numeric="gaussian"),
                                  lambda: TAN(numeric="gaussian")],
                         ids=["kdb4", "skdb3", "tan"])
@pytest.mark.parametrize("weighted", [False, True])
def test_stored_cells_are_the_direct_sums(make, weighted):
    """Every entry's stored cells, laid out densely, are the moments counted row by row
    (bit-identical), and the cells stored are exactly those the rows reach (every class of
    the class-only entry)."""
    X, y = make_data()
    w = np.random.default_rng(1).integers(1, 4, len(y)).astype(float) if weighted else None
    model = make().fit(X, y, sample_weight=w)
    moments = model._moments
    direct = _direct(model, X, y, w)
    assert moments.entries == direct.entries
    k = model.table_.n_classes
    assert len(moments.entries) > len(moments.numeric)
    for e, (parents, _) in enumerate(moments.entries):
        assert_array_equal(moments.dense_block(e), direct.block(e))
        codes, sums = moments.cells(e)
        reached = np.flatnonzero(direct.block(e).reshape(-1, 3)[:, 0] > 0)
        assert_array_equal(codes, np.arange(k) if not parents else reached)
    # fewer cells than the dense blocks
    assert moments.n_cells < direct.sums.size // 3


def _grow_data(n=600, seed=0):
    """A nominal attribute ``a`` that is the parent of the numeric ``x`` and ``z``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.8, y, rng.integers(0, 4, n))
    b = np.where(rng.random(n) < 0.6, (a + y) % 3, rng.integers(0, 3, n))
    x = 1.5 * a + 0.3 * y + rng.normal(0, 0.5, n)
    z = x + b + rng.normal(0, 0.5, n)
    X = pd.DataFrame({"a": pd.Series([f"a{v}" for v in a], dtype=object),
                      "b": pd.Series([f"b{v}" for v in b], dtype=object), "x": x, "z": z})
    X.loc[rng.random(n) < 0.05, "x"] = np.nan
    X.loc[rng.random(n) < 0.05, "a"] = np.nan
    return X, y


def test_partial_fit_adds_cells_and_new_values():
    """A parent value met only in the second chunk: the cells are recoded to the grown
    extents, and the moments after partial_fit are those of every row under the kept
    structure."""
    X, y = _grow_data()
    first = X.iloc[:300].copy()
    first.loc[first["a"] == "a3", "a"] = "a2"
    model = KDB(k=2, numeric="gaussian")
    model.partial_fit(first, y[:300], classes=np.arange(3))
    sizes_before = model.table_.sizes.copy()
    model.partial_fit(X.iloc[300:], y[300:])
    assert model.table_.sizes[0] > sizes_before[0]
    assert ((0,), 2) in model._moments.entries and ((0, 2), 3) in model._moments.entries
    both = pd.concat([first, X.iloc[300:]])
    direct = _direct(model, both, y)
    moments = model._moments
    for e, (parents, _) in enumerate(moments.entries):
        block = direct.block(e).reshape(-1, 3)
        assert_allclose(moments.dense_block(e).reshape(-1, 3), block, rtol=1e-12, atol=1e-9)
        if parents:
            assert_array_equal(moments.cells(e)[0], np.flatnonzero(block[:, 0] > 0))


def _frame():
    X, y = make_data(800, seed=3)
    frame = X.copy()
    frame["cls"] = np.array(["a", "b", "c"])[y]
    return frame


@pytest.mark.parametrize("make", [lambda: KDB(k=4, numeric="gaussian"),
                                  lambda: SKDB(k=3, numeric="gaussian", m=3.0,
                                               min_count=0)],
                         ids=["kdb4", "skdb3-mc0"])
def test_fit_stream_and_dask_equal_fit(make, tmp_path):
    frame = _frame()
    X = frame.drop(columns="cls")
    path = tmp_path / "data.parquet"
    frame.to_parquet(path)
    ref = make().fit(X, frame["cls"])
    streamed = make().fit_stream(path, target="cls", chunk_rows=170, sample_rows=10**6,
                                 progress=False)
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        distributed = seminaive.dask.fit(make(), dd.from_pandas(frame, npartitions=4),
                                         target="cls", sample_rows=10**6)
    for other in (streamed, distributed):
        assert_array_equal(other._moments.codes, ref._moments.codes)
        assert_array_equal(other._moments.entry_start, ref._moments.entry_start)
        # chunks add their sums apart: equal up to rounding
        assert_allclose(other._moments.sums, ref._moments.sums, rtol=1e-12, atol=1e-9)
        assert_allclose(other.predict_proba(X), ref.predict_proba(X), rtol=1e-10,
                        atol=1e-14)
        if hasattr(ref, "k_"):
            assert (other.k_, other.n_selected_features_) == (ref.k_,
                                                              ref.n_selected_features_)


def test_one_partial_fit_equals_fit():
    X, y = make_data()
    for make in (lambda: KDB(k=3, numeric="gaussian"), lambda: SKDB(k=3, numeric="gaussian")):
        full = make().fit(X, y)
        once = make().partial_fit(X, y, classes=np.arange(3))
        assert_array_equal(once._moments.sums, full._moments.sums)
        assert_array_equal(once.predict_proba(X), full.predict_proba(X))


@pytest.mark.parametrize("make", [lambda: KDB(k=5, numeric="gaussian", missing="value"),
                                  lambda: SKDB(k=4, numeric="gaussian"),
                                  lambda: TAN(numeric="gaussian")],
                         ids=["kdb5", "skdb4", "tan"])
def test_save_load_round_trip(make, tmp_path):
    X, y = make_data()
    model = make().fit(X, y)
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    for name in ("codes", "sums", "entry_start"):
        assert_array_equal(getattr(back._moments, name), getattr(model._moments, name))
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))


def test_corrupt_and_dense_model_files_are_refused(tmp_path):
    X, y = make_data()
    model = KDB(k=3, numeric="gaussian", density="student").fit(X, y)
    state = model._learned_state()

    def refused(match, **changes):
        with pytest.raises(ValueError, match=match):
            model._set_learned_state({**state, **changes})

    codes, lengths = state["moment_codes"], state["moment_lengths"]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    moments = model._moments
    # a child with two or more parents: e0 its class-only entry
    j = next(j for j, chain in enumerate(moments.chains) if len(chain) >= 2)
    e0 = int(moments.first_entry[j])
    deep = int(starts[e0 + 2])  # the first cell of its entry of two parents
    assert lengths[e0 + 2] >= 2
    swapped = codes.copy()
    swapped[[deep, deep + 1]] = swapped[[deep + 1, deep]]
    refused("not increasing", moment_codes=swapped)
    big = codes.copy()
    big[int(starts[e0 + 3]) - 1] = 2 ** 40
    refused("out of range", moment_codes=big)
    refused("do not match", moment_lengths=lengths[1:])
    refused("do not match", moment_sums=state["moment_sums"][3:])
    bad = state["moment_sums"].copy()
    bad[4] = np.nan
    refused("finite", moment_sums=bad)
    # a cell whose coarser cell is not stored (every cell of one parent has cells below
    # it: the second parent's missing slot included)
    last = int(starts[e0 + 2]) - 1
    shorter = lengths.copy()
    shorter[e0 + 1] -= 1
    refused("coarser cell", moment_codes=np.delete(codes, last),
            moment_sums=np.delete(state["moment_sums"], range(3 * last, 3 * last + 3)),
            moment_lengths=shorter)
    entries = state["moment_entries"].copy()
    entries[e0 + 1, 0] = entries[0, 0] if entries[0, 0] != entries[e0, 0] else -5
    refused("do not match the structure", moment_entries=entries)
    # the dense layout of earlier versions: refused, telling to fit again
    dense = {key: value for key, value in state.items()
             if key not in ("moment_codes", "moment_lengths")}
    dense["moment_sums"] = np.zeros(300)
    with pytest.raises(ValueError, match="dense moments.*fit the model again"):
        model._set_learned_state(dense)
    missing = {key: value for key, value in state.items() if key != "moment_lengths"}
    with pytest.raises(ValueError, match="missing"):
        model._set_learned_state(missing)
    # through a model file
    path = tmp_path / "m.npz"
    model.save(path)
    with np.load(path, allow_pickle=False) as f:
        arrays = dict(f)
    arrays.pop("learned_moment_codes")
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ModelFileError, match="dense moments.*fit the model again"):
        load(tmp_path / "old.npz")


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------


def _wide(n=5000, a=16, values=15, k=26, n_numeric=3, seed=0):
    """16 nominal attributes of 15 values, 26 classes and numeric attributes that depend
    on the class and the nominal ones (Gaussian children with five nominal parents)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = np.empty((n, a), dtype=np.int64)
    X[:, 0] = (y + rng.integers(0, 3, n)) % values
    for j in range(1, a):
        X[:, j] = np.where(rng.random(n) < 0.6, (X[:, j - 1] + y) % values,
                           rng.integers(0, values, n))
    num = [0.05 * y + 0.02 * X[:, 2 * j:2 * j + 6].sum(axis=1) + rng.normal(0, 1.0, n)
           for j in range(n_numeric)]
    return np.column_stack([X] + num).astype(float), y


def test_k5_gaussian_fits_where_the_dense_moments_would_not():
    X, y = _wide()
    nominal = list(range(16))
    budget = 256 * 2 ** 20
    model = KDB(k=5, numeric="gaussian", categorical_features=nominal,
                max_table_bytes=budget).fit(X, y)
    entries = model._moment_entries()
    deepest = [parents for parents, _ in entries if len(parents) == 5]
    assert len(deepest) == 3
    dense = MomentTable.estimate_bytes(entries, model.table_.sizes, 26)
    assert dense > 4 * budget  # the dense layout: refused by this budget
    used = (model._moments.nbytes + model._counts.arrays.nbytes + model.table_.nbytes
            + 16 * model._moments.n_cells)
    assert used < budget
    assert model.score(X, y) > 0.5
    skdb = SKDB(k=5, numeric="gaussian", categorical_features=nominal,
                max_table_bytes=budget).fit(X, y)
    assert skdb.score(X, y) > 0.5


def test_budget_refuses_the_occurring_cells():
    X, y = _wide(n=2000)
    nominal = list(range(16))
    model = KDB(k=5, numeric="gaussian", categorical_features=nominal,
                density="student").fit(X, y)
    others = model.table_.counts.nbytes + model._counts.arrays.nbytes
    need = _moments.CELL_BYTES * model._moments.n_cells
    with pytest.raises(TableTooLargeError, match="occurring cells.*numeric='discretize'"):
        KDB(k=5, numeric="gaussian", categorical_features=nominal, density="student",
            max_table_bytes=others + need - 1).fit(X, y)
    fits = KDB(k=5, numeric="gaussian", categorical_features=nominal, density="student",
               max_table_bytes=others + need).fit(X, y)
    assert_array_equal(fits.predict_proba(X[:50]), model.predict_proba(X[:50]))


@pytest.mark.parametrize("make", [lambda s: KDB(k=3, numeric="gaussian", smoothing=s,
                                                n_iter=60, density="student"),
                                  lambda s: TAN(numeric="gaussian", smoothing=s, n_iter=60,
                                                density="student")],
                         ids=["kdb3", "tan"])
def test_hdp_keeps_the_gaussian_childrens_densities(make):
    """With HDP estimates the discrete tables change, not the Gaussian children: moving a
    numeric value inside its bin changes the log joint of each class by the same density
    ratio as with m-estimates (the same structure, the same moments)."""
    X, y = make_data()
    hdp, m_est = make("hdp").fit(X, y), make("m_estimate").fit(X, y)
    assert_array_equal(hdp._parents, m_est._parents)
    rows = X.iloc[:40].copy()
    moved = rows.copy()
    moved["num1"] = moved["num1"] * (1 + 1e-6) + 1e-6
    for model in (hdp, m_est):  # the same bins: only the densities move
        assert_array_equal(model._storage_codes(moved), model._storage_codes(rows))
    delta_hdp = hdp._scores(moved) - hdp._scores(rows)
    delta_m = m_est._scores(moved) - m_est._scores(rows)
    seen = rows["num1"].notna().to_numpy()
    assert np.all(np.abs(delta_m[seen]) > 0)
    assert_allclose(delta_hdp, delta_m, rtol=1e-9, atol=1e-12)
    assert not np.array_equal(hdp.predict_proba(moved), hdp.predict_proba(rows))
