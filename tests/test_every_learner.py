"""What every learner gets from the frame, checked on every registered learner.

A learner is one class on :class:`seminaive.base._BaseAnDE`; defining it registers it for
model files (``seminaive.persistence.ESTIMATORS``), and from then on it must, with no code
of its own: fit from files chunk by chunk (``fit_stream``) and on Dask exactly as ``fit``
does, survive ``save`` / ``load``, and carry a user-facing docstring with Parameters,
References and Examples.  A new learner is picked up here without editing this file.
"""

import inspect
import re

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive.datasets import load_kr_vs_kp
from seminaive.persistence import ESTIMATORS

LEARNERS = sorted(ESTIMATORS)


@pytest.fixture(scope="module")
def data():
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 13)[:240]  # both classes, spread over the file
    X, y = X.iloc[rows, :10].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    assert y.nunique() == 2
    return X, y


def _learner(name):
    """The learner with its defaults; a learner that draws random numbers gets a fixed
    ``random_state`` (two fits are compared)."""
    model = ESTIMATORS[name]()
    if "random_state" in model.get_params() and name in _RANDOMISED:
        model.set_params(random_state=0)
    if "n_estimators" in model.get_params():
        model.set_params(n_estimators=5)  # an ensemble's routes are its members' routes
    return model


# learners whose defaults draw random numbers (the others only use random_state to sample
# rows for cut points, which these small nominal data never need)
_RANDOMISED = {"ESKDB"}


def test_registry_holds_every_public_learner():
    public = {name for name in seminaive.__all__
              if inspect.isclass(getattr(seminaive, name))
              and issubclass(getattr(seminaive, name), seminaive.base._BaseAnDE)}
    assert public == set(ESTIMATORS)


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_stream_equals_fit(name, data, tmp_path):
    X, y = data
    frame = X.assign(target=y)
    path = tmp_path / "train.parquet"
    frame.to_parquet(path, row_group_size=70)
    expected = _learner(name).fit(X, y).predict_proba(X)
    streamed = _learner(name).fit_stream(path, target="target", chunk_rows=50)
    np.testing.assert_allclose(streamed.predict_proba(X), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", LEARNERS)
def test_dask_fit_equals_fit(name, data):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask

    X, y = data
    ddf = dd.from_pandas(X.assign(target=y), npartitions=3)
    expected = _learner(name).fit(X, y).predict_proba(X)
    with dask.config.set(scheduler="synchronous"):
        model = seminaive.dask.fit(_learner(name), ddf, target="target")
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", LEARNERS)
def test_save_load_round_trip(name, data, tmp_path):
    X, y = data
    model = _learner(name).fit(X, y)
    path = tmp_path / f"{name}.npz"
    model.save(path)
    loaded = seminaive.load(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("name", LEARNERS)
def test_partial_fit_of_one_chunk_equals_fit(name, data):
    X, y = data
    expected = _learner(name).fit(X, y).predict_proba(X)
    model = _learner(name).partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)


_SECTIONS = ("Parameters", "Attributes", "References", "Examples")


@pytest.mark.parametrize("name", LEARNERS)
def test_docstring_is_complete(name):
    cls = ESTIMATORS[name]
    doc = inspect.getdoc(cls)
    for section in _SECTIONS:
        assert re.search(rf"^{section}\n-{{{len(section)}}}$", doc, re.MULTILINE), \
            f"{name}'s docstring has no {section} section"
    params = list(inspect.signature(cls.__init__).parameters)[1:]
    block = doc.split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0]
    documented = re.findall(r"^(\w+) :", doc.split("Parameters\n----------\n", 1)[1]
                            .split("Attributes\n----------", 1)[0], re.MULTILINE)
    assert documented == params, f"{name}: documented {documented}, signature {params}"
    assert block
    assert not re.search(r"seeds? ?\d{3}|issue #?\d", doc, re.IGNORECASE)
    assert "{" + "engine_parameters}" not in doc  # every fragment was filled


def test_frame_examples_use_no_private_names():
    """Docstring examples show the public API only."""
    for name, cls in ESTIMATORS.items():
        examples = inspect.getdoc(cls).split("Examples\n--------", 1)[-1]
        assert not re.search(r"\._[a-z]", examples), name


def test_dataframe_with_mixed_columns(data):
    """Numeric and nominal columns together, as a pandas user has them."""
    X, y = data
    mixed = X.copy()
    mixed["num"] = np.linspace(0, 1, len(X))
    for name in LEARNERS:
        proba = _learner(name).fit(mixed, y).predict_proba(mixed)
        assert proba.shape == (len(X), 2)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert isinstance(mixed, pd.DataFrame)


GAUSSIAN_LEARNERS = [name for name in LEARNERS if "numeric" in ESTIMATORS[name]().get_params()]


@pytest.fixture(scope="module")
def mixed_data():
    rng = np.random.default_rng(0)
    n = 160
    y = rng.integers(0, 2, n)
    colour = np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3]
    size = rng.normal(10 + 3 * y, 1 + y, n)
    weight = rng.normal(size * 2 + (colour == "red") * 4, 2.0)
    X = pd.DataFrame({"colour": colour, "size": size, "weight": weight})
    X.loc[rng.random(n) < 0.1, "size"] = np.nan
    return X, pd.Series(np.array(["no", "yes"])[y])


@pytest.mark.parametrize("name", GAUSSIAN_LEARNERS)
def test_gaussian_variant_streams_distributes_and_saves(name, mixed_data, tmp_path):
    """numeric="gaussian": fit_stream, Dask, one partial_fit chunk and model files give the
    model of fit."""
    X, y = mixed_data

    def make():
        model = ESTIMATORS[name](numeric="gaussian")
        if "n_estimators" in model.get_params():
            model.set_params(n_estimators=5)  # an ensemble's routes are its members' routes
        return model

    model = make().fit(X, y)
    expected = model.predict_proba(X)
    path = tmp_path / "train.parquet"
    X.assign(target=y).to_parquet(path, row_group_size=70)
    streamed = make().fit_stream(path, target="target", chunk_rows=50, sample_rows=None,
                                 progress=False)
    np.testing.assert_allclose(streamed.predict_proba(X), expected, rtol=0, atol=1e-10)
    one_chunk = make().partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_allclose(one_chunk.predict_proba(X), expected, rtol=0, atol=1e-12)
    model.save(tmp_path / "m.npz")
    loaded = type(model).load(tmp_path / "m.npz")
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask

    with dask.config.set(scheduler="synchronous"):
        distributed = seminaive.dask.fit(make(), dd.from_pandas(X.assign(target=y),
                                                                npartitions=3),
                                         target="target")
    np.testing.assert_allclose(distributed.predict_proba(X), expected, rtol=0, atol=1e-10)
