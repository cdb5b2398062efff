"""Student-t children (``density="student"``) of the weighted AODE learners (WAODE, MAPLMD,
MAPLMG, BMAAODE), declared once through their Gaussian children part.

The children's density is the posterior predictive of the normal-inverse-gamma prior,
whose kernel (:func:`seminaive.tables.gaussian.student_terms`) is checked against scipy's t
in ``tests/tables/test_student.py``.  WAODE's and BMAAODE's weights come from the counts or
the marginal likelihoods and do not change; MAPLMD's and MAPLMG's are learnt on the
leave-one-out joints, which score the same Student-t density without the held-out row
(checked against refitting in ``tests/selection/test_gaussian_loo.py``).  Here: the
weights, scores that are the table's Student-t scores under the learner's weights, and the
plug-in limit for many rows.
"""

import numpy as np
import pandas as pd
import pytest

from seminaive import BMAAODE, MAPLMD, MAPLMG, WAODE
from seminaive.parts import GaussianChildren

LEARNERS = {"WAODE": WAODE, "MAPLMD": MAPLMD, "MAPLMG": MAPLMG, "BMAAODE": BMAAODE}


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = (y + rng.integers(0, 2, n)) % 3
    X = pd.DataFrame({"a": [f"a{v}" for v in a],
                      "b": [f"b{v}" for v in (a + y * rng.integers(0, 2, n)) % 4],
                      "u": rng.normal(y * 0.9, 1.0 + 0.3 * y, n),
                      "v": rng.normal(a * 0.5 - y * 0.4, 0.8, n)})
    X.loc[rng.random(n) < 0.05, "u"] = np.nan
    return X, pd.Series(np.array(["lo", "mid", "hi"])[y])


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_student_children_keep_the_weights_and_score_by_the_t(name):
    X, y = data(50)
    plug = LEARNERS[name](numeric="gaussian", density="plugin").fit(X, y)
    stud = LEARNERS[name](numeric="gaussian", density="student").fit(X, y)
    if name in ("WAODE", "BMAAODE"):  # from the counts or the marginal likelihoods
        np.testing.assert_array_equal(stud.weights_, plug.weights_)
    else:  # learned on the leave-one-out joints, which score the same density
        assert not np.allclose(stud.weights_, plug.weights_)
    part = GaussianChildren()
    codes = stud._storage_codes(X)
    expected = stud.table_.gaussian_scores(
        codes, stud.encoder_.numeric_values(X, "t"), part.bin_log_widths(stud), 1,
        stud.smoothing, stud.m, stud.min_count, stud.aggregate,
        missing_code=part.missing_codes(stud), log_weights=stud._cell_log_weights_,
        density="student")
    np.testing.assert_allclose(stud.joint_log_likelihood(X), expected, rtol=0, atol=1e-12)
    assert np.abs(stud.predict_proba(X) - plug.predict_proba(X)).max() > 1e-3


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_student_children_tend_to_the_plugin_gaussian_with_many_rows(name):
    gaps = []
    for n in (40, 20_000):
        X, y = data(n, seed=1)
        plug = LEARNERS[name](numeric="gaussian", density="plugin").fit(X, y)
        stud = LEARNERS[name](numeric="gaussian", density="student").fit(X, y)
        gaps.append(np.abs(stud.predict_proba(X) - plug.predict_proba(X)).mean())
    assert gaps[1] < 1e-3
    assert gaps[0] > 10 * gaps[1]
