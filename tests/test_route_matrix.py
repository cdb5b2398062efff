"""Every registered learner through every training route, on every kind of data.

A route gives the model ``fit`` gives (probabilities within 1e-9), or warns that it differs
(a warning that names ``partial_fit``, or ``fit_stream`` for a one-shot iterator, e.g.
:class:`seminaive.PartialFitWarning`), or
raises the documented :class:`seminaive.InputError`.  The matrix is generated from the
registry of model files (``seminaive.persistence.ESTIMATORS``): a new learner is covered
by being defined, a new route by adding one function to ``ROUTES``.

Routes: ``partial_fit`` in chunks; ``fit_stream`` from Parquet, from CSV and from a CSV file
split into several files; ``fit_stream``
from a one-shot iterator; Dask; ``save`` -> ``load`` -> ``predict``; ``save`` -> ``load`` ->
``partial_fit``; ``clone``; and a refit of an instance used before (on other data, with other
columns and classes) through ``fit``, ``fit_stream``, the one-shot iterator and Dask.
Data: nominal columns with missing values; mixed nominal and numeric columns with missing
values; the same with ``numeric="gaussian"`` where the learner supports it; integer
``sample_weight``.
"""

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from seminaive import InputError, persistence

LEARNERS = sorted(persistence.ESTIMATORS)
KINDS = ("nominal", "mixed", "gaussian", "weighted")
ATOL = 1e-9  # probabilities: every route counts the same rows; only summation order differs
N_ROWS = 240
CHUNKS = 3


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


@functools.cache
def dataset(kind):
    """(X, y, integer weights or None) of a kind of data: 240 rows, three classes, parents
    that matter (so that structures and selections have something to choose), about 6%
    missing values in every column."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, N_ROWS)
    cols = {}
    last = y
    for j, size in enumerate((3, 4, 3)):
        keep = rng.random(N_ROWS) < 0.7
        last = np.where(keep, (last + j) % size, rng.integers(0, size, N_ROWS))
        cols[f"nom{j}"] = pd.Series([f"v{v}" for v in last], dtype=object)
    if kind == "nominal":
        cols["nom3"] = pd.Series([f"w{v}" for v in (y + rng.integers(0, 2, N_ROWS)) % 4],
                                 dtype=object)
    else:
        prev = y.astype(float)
        for j in range(2):
            prev = 0.7 * prev + rng.normal(0, 0.8, N_ROWS) + 0.4 * y
            cols[f"num{j}"] = prev
    X = pd.DataFrame(cols)
    for c in X.columns:
        X.loc[rng.random(N_ROWS) < 0.06, c] = np.nan if c.startswith("num") else None
    labels = pd.Series(np.array(["lo", "mid", "hi"])[y])
    w = rng.integers(0, 4, N_ROWS).astype(float) if kind == "weighted" else None
    return X, labels, w


def other_dataset():
    """Data of other columns and other classes, for the instance used before a refit."""
    rng = np.random.default_rng(99)
    n = 90
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"a": [f"p{v}" for v in (y + rng.integers(0, 2, n)) % 3],
                      "b": rng.normal(y, 1.0, n), "c": [f"q{v}" for v in rng.integers(0, 2, n)],
                      "d": rng.normal(0, 1, n), "e": [f"r{v}" for v in y]})
    return X, pd.Series(np.array(["no", "yes"])[y])


def chunks(kind):
    """The rows of ``dataset(kind)`` in CHUNKS consecutive chunks (each holds every class)."""
    X, y, w = dataset(kind)
    bounds = np.array_split(np.arange(N_ROWS), CHUNKS)
    return [(X.iloc[b], y.iloc[b], None if w is None else w[b]) for b in bounds]


def frame(kind):
    """The data as one table with a ``target`` (and a weight) column, as files hold it."""
    X, y, w = dataset(kind)
    out = X.assign(target=y.to_numpy())
    if w is not None:
        out["weight"] = w
    return out


def weight_column(kind):
    return "weight" if kind == "weighted" else None


# --------------------------------------------------------------------------------------------
# learners
# --------------------------------------------------------------------------------------------


def make(name, kind):
    """The learner with its defaults (``numeric="gaussian"`` for that kind of data, a fixed
    ``random_state``), or None where it does not take that kind."""
    model = persistence.ESTIMATORS[name]()
    params = model.get_params()
    if "random_state" in params:
        model.set_params(random_state=0)
    if "n_estimators" in params:
        # an ensemble's routes are its members' routes: five members test them as well as
        # the default twenty, in a quarter of the time
        model.set_params(n_estimators=5)
    if kind == "gaussian":
        if "numeric" not in params:
            return None
        model.set_params(numeric="gaussian")
        try:
            model.check_params()
        except ValueError:
            return None  # numeric="gaussian" is refused by this learner's parameters
    return model


@functools.cache
def reference(name, kind):
    """``fit``'s probabilities on the data (the reference of every route)."""
    X, y, w = dataset(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(name, kind).fit(X, y, sample_weight=w).predict_proba(X)


def warned(caught):
    """Whether a caught warning says that ``partial_fit`` (or its one-pass equivalent, a
    one-shot iterator through ``fit_stream``) differs from ``fit``."""
    return any(issubclass(c.category, UserWarning)
               and ("partial_fit" in str(c.message) or "fit_stream" in str(c.message))
               for c in caught)


def used(name, kind):
    """An instance fitted before on other data (other columns, other classes)."""
    model = make(name, kind)
    Xo, yo = other_dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(Xo, yo)
    return model


# --------------------------------------------------------------------------------------------
# routes: each returns (fitted model, caught warnings); the contract is checked in one place
# --------------------------------------------------------------------------------------------


def _partial_fit(model, kind):
    classes = np.unique(dataset(kind)[1])
    for X, y, w in chunks(kind):
        model.partial_fit(X, y, classes=classes, sample_weight=w)
    return model


def _stream(model, kind, path, **options):
    return model.fit_stream(path, target="target", sample_weight=weight_column(kind),
                            chunk_rows=70, sample_rows=None, progress=False, **options)


def _one_shot(model, kind):
    table = frame(kind)
    parts = np.array_split(np.arange(N_ROWS), CHUNKS)
    return model.fit_stream(iter([table.iloc[b] for b in parts]), target="target",
                            sample_weight=weight_column(kind), progress=False)


def _dask(model, kind):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        return seminaive.dask.fit(model, dd.from_pandas(frame(kind), npartitions=3),
                                  target="target", sample_weight=weight_column(kind))


def route_partial_fit(name, kind, tmp_path):
    return _partial_fit(make(name, kind), kind)


def route_parquet(name, kind, tmp_path):
    path = tmp_path / "train.parquet"
    frame(kind).to_parquet(path, row_group_size=70)
    return _stream(make(name, kind), kind, path)


def route_csv(name, kind, tmp_path):
    path = tmp_path / "train.csv"
    frame(kind).to_csv(path, index=False)
    return _stream(make(name, kind), kind, path)


def route_csv_files(name, kind, tmp_path):
    """The CSV file split into CHUNKS files of the same header (a data set in parts)."""
    table = frame(kind)
    paths = []
    for k, rows in enumerate(np.array_split(np.arange(N_ROWS), CHUNKS)):
        paths.append(tmp_path / f"train{k}.csv")
        table.iloc[rows].to_csv(paths[-1], index=False)
    return _stream(make(name, kind), kind, paths)


def route_one_shot(name, kind, tmp_path):
    return _one_shot(make(name, kind), kind)


def route_dask(name, kind, tmp_path):
    return _dask(make(name, kind), kind)


def route_save_load_predict(name, kind, tmp_path):
    X, y, w = dataset(kind)
    make(name, kind).fit(X, y, sample_weight=w).save(tmp_path / "m.npz")
    return persistence.ESTIMATORS[name].load(tmp_path / "m.npz")


def route_save_load_partial_fit(name, kind, tmp_path):
    """The first chunks counted, saved, loaded, and the last chunk added: the model of the
    same partial_fit calls on one instance (checked against that, not against fit)."""
    classes = np.unique(dataset(kind)[1])
    model = make(name, kind)
    parts = chunks(kind)
    for X, y, w in parts[:-1]:
        model.partial_fit(X, y, classes=classes, sample_weight=w)
    model.save(tmp_path / "m.npz")
    loaded = persistence.ESTIMATORS[name].load(tmp_path / "m.npz")
    X, y, w = parts[-1]
    return loaded.partial_fit(X, y, sample_weight=w)


def route_clone(name, kind, tmp_path):
    X, y, w = dataset(kind)
    fitted = make(name, kind).fit(X, y, sample_weight=w)
    copy = clone(fitted)
    assert not hasattr(copy, "table_") and not hasattr(copy, "classes_")
    return copy.fit(X, y, sample_weight=w)


def route_refit_fit(name, kind, tmp_path):
    X, y, w = dataset(kind)
    return used(name, kind).fit(X, y, sample_weight=w)


def route_refit_parquet(name, kind, tmp_path):
    path = tmp_path / "train.parquet"
    frame(kind).to_parquet(path, row_group_size=70)
    return _stream(used(name, kind), kind, path)


def route_refit_one_shot(name, kind, tmp_path):
    return _one_shot(used(name, kind), kind)


def route_refit_dask(name, kind, tmp_path):
    return _dask(used(name, kind), kind)


ROUTES = {name[len("route_"):]: fn for name, fn in dict(globals()).items()
          if name.startswith("route_")}


@functools.cache
def partial_reference(name, kind):
    """Probabilities of the partial_fit route (what ``save`` -> ``load`` -> ``partial_fit``
    must reproduce)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _partial_fit(make(name, kind), kind).predict_proba(dataset(kind)[0])


def cells():
    for name in LEARNERS:
        for kind in KINDS:
            for route in ROUTES:
                yield pytest.param(name, kind, route, id=f"{name}-{kind}-{route}")


@pytest.mark.parametrize(("name", "kind", "route"), list(cells()))
def test_route_gives_the_model_of_fit(name, kind, route, tmp_path):
    if make(name, kind) is None:
        pytest.skip(f"{name} does not take numeric='gaussian' with its defaults")
    check_route(name, kind, route, tmp_path)


def check_route(name, kind, route, tmp_path):
    """The contract of one cell of the matrix (also run on the contributing guide's
    example learner)."""
    X = dataset(kind)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = ROUTES[route](name, kind, tmp_path)
        except InputError as err:
            # the one documented refusal: a learner that needs a second pass over a
            # one-shot iterator
            assert "one_shot" in route and "another pass" in str(err), (route, err)
            return
        got = model.predict_proba(X)
    assert got.shape == (N_ROWS, 3)
    if route == "save_load_partial_fit":
        expected = partial_reference(name, kind)
    else:
        expected = reference(name, kind)
    gap = float(np.abs(got - expected).max())
    if gap > ATOL:
        assert warned(caught), (
            f"{name} through {route} on {kind} data differs from fit by {gap:.3g} "
            f"without a warning (caught: {[str(c.message)[:80] for c in caught]})")
    elif route in ("parquet", "csv", "csv_files", "dask", "save_load_predict", "clone", "refit_fit",
                   "refit_parquet", "refit_dask"):
        # routes that read every row before learning give fit's model and say nothing
        assert not warned(caught), [str(c.message) for c in caught]


def test_the_matrix_covers_every_learner_and_route():
    """Generated from the registry: every learner, every route, every kind of data."""
    assert set(LEARNERS) == set(persistence.ESTIMATORS) and len(LEARNERS) >= 20
    assert {"partial_fit", "parquet", "csv", "csv_files", "one_shot", "dask", "save_load_predict",
            "save_load_partial_fit", "clone", "refit_fit", "refit_parquet",
            "refit_one_shot", "refit_dask"} == set(ROUTES)


@pytest.mark.parametrize("name", LEARNERS)
def test_partial_fit_with_numeric_columns_warns_once(name):
    """Cut points fixed by the first chunk: the second chunk warns (once per model) with
    :class:`seminaive.PartialFitWarning`, and cut points given up front make no warning."""
    from seminaive import PartialFitWarning
    from seminaive.preprocessing.discretize import MDLDiscretizer

    parts = chunks("mixed")
    classes = np.unique(dataset("mixed")[1])
    model = make(name, "mixed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for X, y, w in parts:
            model.partial_fit(X, y, classes=classes, sample_weight=w)
    cuts = [c for c in caught if issubclass(c.category, PartialFitWarning)]
    assert len(cuts) == 1 and "['num0', 'num1']" in str(cuts[0].message)
    X, y, _ = dataset("mixed")
    numeric = X[["num0", "num1"]].to_numpy(dtype=float)
    given = make(name, "mixed").set_params(discretizer=MDLDiscretizer().fit(numeric, y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for X, y, w in parts:
            given.partial_fit(X, y, classes=classes, sample_weight=w)
    assert not [c for c in caught if issubclass(c.category, PartialFitWarning)]


def test_one_shot_iterator_warning_names_its_route():
    """The one-shot route counts chunk by chunk as ``partial_fit`` does; its warning about
    cut points fixed on the first chunk names ``fit_stream`` and what to do instead."""
    from seminaive import AODE, PartialFitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _one_shot(AODE(), "mixed")
    cuts = [str(c.message) for c in caught if issubclass(c.category, PartialFitWarning)]
    assert len(cuts) == 1, cuts
    assert cuts[0].startswith("AODE.fit_stream: the cut points") and "read twice" in cuts[0]
