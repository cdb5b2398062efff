"""scikit-learn's estimator checks over the weighted learners (issue 5).

``parametrize_with_checks`` runs the full suite over WAODE (MI and KL weights), MAPLMD,
MAPLMG (sub-models of order 1 and 2), BMAAODE and AnDE with weights ("mi" and "kl").

Skipped checks (``EXPECTED_FAILED_CHECKS``): none.  The run is strict, so a check listed
later that starts passing fails the suite.
"""

import warnings

import pytest
from sklearn.utils import estimator_checks as ec
from sklearn.utils.estimator_checks import parametrize_with_checks

from seminaive import BMAAODE, MAPLMD, MAPLMG, WAODE, AnDE


def _estimators():
    # MAPLMD's EM runs max_iter passes on most of the checks' small data sets: 20 keeps the
    # file fast (the iteration count does not change what the checks test)
    return [WAODE(), WAODE(weights="kl"), MAPLMD(max_iter=20), MAPLMG(), MAPLMG(n=2),
            BMAAODE(), AnDE(n=2, weights="mi"), AnDE(n=1, weights="kl", aggregate="posterior")]


# {estimator class name: {check name: reason}} of checks that cannot pass by design.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", _estimators(), ids=repr)
def test_dataframe_column_names_consistency(estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ec.check_dataframe_column_names_consistency(type(estimator).__name__, estimator)
