"""Numeric cut points supplied by the user are used as they are ("numeric cut
points are fixed by the first chunk or supplied by the user")."""

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

from seminaive import AODE
from seminaive.preprocessing.discretize import MDLDiscretizer


def test_prefitted_discretizer_makes_partial_fit_equal_fit():
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    cuts = MDLDiscretizer().fit(X.to_numpy(), y.to_numpy())
    whole = AODE(discretizer=cuts).fit(X, y)
    chunked = AODE(discretizer=cuts)
    rng = np.random.default_rng(0)
    bounds = np.sort(rng.choice(np.arange(50, len(y) - 50), 4, replace=False))
    for part in np.split(np.arange(len(y)), bounds):
        chunked.partial_fit(X.iloc[part], y.iloc[part], classes=[0, 1])
    np.testing.assert_array_equal(chunked.table_.counts, whole.table_.counts)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    # the user's cut points were not refitted on the first chunk
    for mine, given in zip(whole.encoder_.discretizer_.cut_points_, cuts.cut_points_,
                           strict=True):
        np.testing.assert_array_equal(mine, given)


def test_first_chunk_fixes_cut_points():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"u": rng.normal(size=400), "v": rng.choice(["a", "b"], 400)})
    y = (X["u"] > 0.3).astype(int) ^ (X["v"] == "a")
    model = AODE().partial_fit(X.iloc[:200], y.iloc[:200], classes=[0, 1])
    first = [c.copy() for c in model.encoder_.discretizer_.cut_points_]
    model.partial_fit(X.iloc[200:], y.iloc[200:])
    for a, b in zip(first, model.encoder_.discretizer_.cut_points_, strict=True):
        np.testing.assert_array_equal(a, b)
