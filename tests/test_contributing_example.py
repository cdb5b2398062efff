"""The complete small learner of ``docs/contributing.md`` ("A complete small learner, in one
file") runs as written: its probabilities equal direct counting, and it passes every cell of
the route matrix with no code of its own beyond that block."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_route_matrix import KINDS, ROUTES, check_route, dataset, make

from seminaive import persistence

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "contributing.md"


@pytest.fixture
def learner(monkeypatch):
    """The guide's class, registered in a copy of the registry (the library's registry is
    left as it was)."""
    monkeypatch.setattr(persistence, "ESTIMATORS", dict(persistence.ESTIMATORS))
    text = GUIDE.read_text()
    section = text.split("### A complete small learner, in one file", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace = {"__name__": "contributing_example"}
    exec(compile(code, str(GUIDE), "exec"), namespace)
    cls = namespace["SelectiveNB"]
    assert persistence.ESTIMATORS["SelectiveNB"] is cls
    return cls


def test_probabilities_equal_direct_counting(learner):
    X, y, _ = dataset("nominal")
    model = learner(n_attributes=2, m=2.0).fit(X, y)
    assert model.selected_.size == 2
    classes = np.unique(y)
    prior = np.array([(y == c).sum() for c in classes], dtype=float)
    expected = []
    for r in range(len(X)):
        logp = np.log((prior + 2.0 / 3) / (prior.sum() + 2.0))
        for i in model.selected_:
            col = X.iloc[:, i]
            x = col.iloc[r]
            if pd.isna(x):
                continue
            values = col.dropna().unique().size
            for c, label in enumerate(classes):
                rows = (y == label).to_numpy() & col.notna().to_numpy()
                hits = (col[rows] == x).sum()
                logp[c] += np.log((hits + 2.0 / values) / (rows.sum() + 2.0))
        expected.append(np.exp(logp - np.logaddexp.reduce(logp)))
    np.testing.assert_allclose(model.predict_proba(X), np.array(expected), rtol=1e-12)


def test_the_docstring_is_filled_and_checked(learner):
    doc = learner.__doc__
    assert "smoothing : " in doc and "{input_parameters}" not in doc
    with pytest.raises(ValueError, match="n_attributes"):
        learner(n_attributes=0).fit(*dataset("nominal")[:2])


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route(learner, route, tmp_path):
    """The example learner through every route, on every kind of data it takes."""
    for kind in KINDS:
        if make("SelectiveNB", kind) is not None:
            (tmp_path / kind).mkdir()
            check_route("SelectiveNB", kind, route, tmp_path / kind)
