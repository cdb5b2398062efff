"""Model files written by an earlier version of the library load and predict as they did.

``tests/data/legacy_models`` holds model files of learners with Gaussian children
(``numeric="gaussian"``, plug-in and Student-t densities) and hierarchical estimates
(``smoothing="hdp"`` and ``"hls"``), written before these became parts a learner declares,
with the key names of that version, and the probabilities they gave
(``expected.npz``).  Loading them must give the same probabilities, and saving a loaded
model again must round-trip.
"""

from pathlib import Path

import numpy as np
import pytest
from persistence_legacy_data import LEGACY_MODELS, legacy_data

import seminaive

DATA = Path(__file__).parent / "data" / "legacy_models"

# the stored probabilities were computed on another machine
pytestmark = pytest.mark.reference


@pytest.fixture(scope="module")
def expected():
    with np.load(DATA / "expected.npz") as stored:
        return dict(stored)


@pytest.mark.parametrize("name", sorted(LEGACY_MODELS()))
def test_a_legacy_model_file_predicts_as_it_did(name, expected, tmp_path):
    X, _ = legacy_data()
    model = seminaive.load(DATA / f"{name}.npz")
    assert type(model) is type(LEGACY_MODELS()[name])
    np.testing.assert_allclose(model.predict_proba(X), expected[name], rtol=0, atol=1e-12)
    model.save(tmp_path / "again.npz")
    again = seminaive.load(tmp_path / "again.npz")
    np.testing.assert_allclose(again.predict_proba(X), expected[name], rtol=0, atol=1e-12)
