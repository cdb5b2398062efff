"""Property-based tests (hypothesis): random mixed-type data through every learner, and
corrupted model files.

Random DataFrames mix nominal, numeric and boolean columns, with missing values, constant
columns, single rows and up to six classes; the rows to predict hold values never seen in
training.  Every learner either refuses the data with a clear error (ValueError / InputError)
or returns finite probabilities that sum to 1.  Learners that promise it give the same model
from ``partial_fit`` in chunks as from ``fit``, and the order of the columns does not change
the predictions of the learners that treat attributes symmetrically.  A model file with
flipped bytes or cut short is refused with ``ModelFileError``, never a crash or a hang.

The ``ci`` profile (default, set in ``conftest.py``) keeps the examples few and derandomised so
that the suite stays within CI's time and every run draws the same examples;
``HYPOTHESIS_PROFILE=thorough`` runs many more, newly drawn each time.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone

import seminaive
from seminaive import (
    A2DE,
    ALR,
    AODE,
    AODESR,
    ASAODE,
    BMAAODE,
    BSEAODE,
    ESKDB,
    FSSAODE,
    HNB,
    KDB,
    LBR,
    MAPLMD,
    MAPLMG,
    SKDB,
    SPTAN,
    SWAODE,
    TAN,
    WANBIAC,
    WAODE,
    AnDE,
    NaiveBayes,
    SelectiveAnDE,
)
from seminaive.datasets import load_kr_vs_kp
from seminaive.exceptions import InputError, ModelFileError


def _learners():
    """Every registered learner, with small iteration budgets."""
    return [NaiveBayes(), AODE(), A2DE(), AnDE(n=3), AnDE(n=1, aggregate="vote"),
            AnDE(n="auto"), AnDE(n=1, smoothing="hdp", n_iter=10, random_state=0),
            WAODE(), WAODE("kl"), MAPLMD(max_iter=5), MAPLMG(max_iter=5), BMAAODE(),
            WANBIAC(max_iter=10), ALR(n=1, max_iter=10), AODESR(threshold=2),
            ASAODE(), SWAODE(), SelectiveAnDE(n=2), FSSAODE(), BSEAODE(), TAN(), SPTAN(),
            KDB(k=2), KDB(k=2, smoothing="hdp", n_iter=10, random_state=0), SKDB(k=2),
            ESKDB(n_estimators=2, k=2, n_iter=10, random_state=0), LBR(), HNB(),
            NaiveBayes(numeric="gaussian"), AODE(numeric="gaussian", missing="value")]


LEARNERS = _learners()
_NAMES = [f"{type(e).__name__}-{i}" for i, e in enumerate(LEARNERS)]
_ALPHABET = ["a", "b", "c", "d"]


@st.composite
def mixed_data(draw, max_rows=30):
    """(train frame, y, test frame): nominal / numeric / boolean / constant columns with
    missing values; test rows may hold values never seen in training."""
    n = draw(st.integers(1, max_rows))
    n_cols = draw(st.integers(1, 4))
    train, test = {}, {}
    n_test = draw(st.integers(1, 5))
    for j in range(n_cols):
        kind = draw(st.sampled_from(["nominal", "numeric", "bool", "constant"]))
        missing = draw(st.sampled_from([0.0, 0.2]))
        if kind == "nominal":
            values = draw(st.lists(st.sampled_from(_ALPHABET), min_size=n, max_size=n))
            unseen = draw(st.lists(st.sampled_from(_ALPHABET + ["zz"]), min_size=n_test,
                                   max_size=n_test))
            col, tcol = pd.Series(values, dtype=object), pd.Series(unseen, dtype=object)
        elif kind == "numeric":
            floats = st.floats(-100, 100, allow_nan=False, width=32)
            col = pd.Series(draw(st.lists(floats, min_size=n, max_size=n)), dtype=float)
            tcol = pd.Series(draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32),
                                           min_size=n_test, max_size=n_test)), dtype=float)
        elif kind == "bool":
            col = pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
            tcol = pd.Series(draw(st.lists(st.booleans(), min_size=n_test,
                                           max_size=n_test)), dtype=bool)
        else:
            col, tcol = pd.Series(["k"] * n, dtype=object), pd.Series(["k"] * n_test,
                                                                      dtype=object)
        if missing and kind != "bool":
            mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            col = col.mask(pd.Series(mask) & (pd.Series(range(n)) % 5 == 0))
        train[f"c{j}"], test[f"c{j}"] = col, tcol
    n_classes = draw(st.integers(1, 6))
    labels = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    y = np.array([f"class{v}" for v in labels])
    return pd.DataFrame(train), y, pd.DataFrame(test)


def _fit_or_refuse(model, X, y):
    """The fitted model, or None when the learner refuses the data with a clear error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return model.fit(X, y)
        except (ValueError, InputError) as err:
            assert str(err)  # a message that says what was wrong
            return None


@pytest.mark.parametrize("index", range(len(LEARNERS)), ids=_NAMES)
@given(data=mixed_data())
def test_random_data_give_probabilities_or_a_clear_error(index, data):
    X, y, X_test = data
    model = _fit_or_refuse(clone(LEARNERS[index]), X, y)
    if model is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = model.predict_proba(X_test)
        train_proba = model.predict_proba(X)
    for p in (proba, train_proba):
        assert p.shape[1] == len(model.classes_)
        assert np.all(np.isfinite(p)) and np.all(p >= 0)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
    assert set(model.predict(X_test)) <= set(model.classes_)


# learners whose docstrings promise that partial_fit in chunks equals fit (given the same
# value lists: the columns are Categoricals here)
_EXACT_INCREMENTAL = [NaiveBayes(), AODE(), A2DE(), WAODE(), BMAAODE(), TAN(), KDB(k=1),
                      HNB(), AODESR(threshold=2)]


@st.composite
def categorical_data(draw):
    n = draw(st.integers(4, 40))
    n_cols = draw(st.integers(1, 4))
    frame = {}
    for j in range(n_cols):
        values = draw(st.lists(st.sampled_from(_ALPHABET), min_size=n, max_size=n))
        frame[f"c{j}"] = pd.Categorical(values, categories=_ALPHABET)
    labels = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    split = draw(st.integers(1, n - 1))
    return pd.DataFrame(frame), np.array(labels), split


@pytest.mark.parametrize("index", range(len(_EXACT_INCREMENTAL)),
                         ids=[type(e).__name__ for e in _EXACT_INCREMENTAL])
@given(data=categorical_data())
def test_partial_fit_in_chunks_equals_fit(index, data):
    X, y, split = data
    template = _EXACT_INCREMENTAL[index]
    full = clone(template).fit(X, y)
    chunked = clone(template)
    classes = np.arange(3)
    chunked.partial_fit(X.iloc[:split], y[:split], classes=classes)
    chunked.partial_fit(X.iloc[split:], y[split:])
    if len(np.unique(y)) < 3:  # fit sees only the classes present
        return
    np.testing.assert_allclose(chunked.predict_proba(X), full.predict_proba(X), atol=1e-10)


_SYMMETRIC = [NaiveBayes(), AODE(), A2DE(), WAODE(), BMAAODE(), AnDE(n=1, aggregate="vote")]


@pytest.mark.parametrize("index", range(len(_SYMMETRIC)),
                         ids=[type(e).__name__ for e in _SYMMETRIC])
@given(data=categorical_data(), seed=st.integers(0, 1000))
def test_column_order_does_not_matter(index, data, seed):
    X, y, _ = data
    order = np.random.default_rng(seed).permutation(X.shape[1])
    template = _SYMMETRIC[index]
    a = clone(template).fit(X, y)
    b = clone(template).fit(X.iloc[:, order], y)
    np.testing.assert_allclose(b.predict_proba(X.iloc[:, order]), a.predict_proba(X),
                               atol=1e-10)


@pytest.fixture(scope="module")
def model_bytes(tmp_path_factory):
    X, y = load_kr_vs_kp()
    buffers = {}
    for model in (AODE(), KDB(k=2, smoothing="hdp", n_iter=5, random_state=0)):
        model.fit(X.iloc[::10, :8], y.iloc[::10])
        path = tmp_path_factory.mktemp("models") / f"{type(model).__name__}.npz"
        model.save(path)
        buffers[type(model).__name__] = path.read_bytes()
    return buffers


@given(which=st.sampled_from(["AODE", "KDB"]), flips=st.lists(
    st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1,
    max_size=4), cut=st.one_of(st.none(), st.floats(0, 1, exclude_max=True)))
def test_corrupt_model_files_are_refused(model_bytes, tmp_path_factory, which, flips, cut):
    data = bytearray(model_bytes[which])
    for where, xor in flips:
        data[int(where * len(data))] ^= xor
    if cut is not None:
        data = data[:int(cut * len(data))]
    path = tmp_path_factory.mktemp("corrupt") / "model.npz"
    path.write_bytes(bytes(data))
    try:
        model = seminaive.load(path)
    except ModelFileError as err:
        assert str(err)
        return
    # a flip that changes nothing that matters (e.g. a timestamp) may load: it predicts
    X, _ = load_kr_vs_kp()
    proba = model.predict_proba(X.iloc[:5, :8])
    assert np.all(np.isfinite(proba))

