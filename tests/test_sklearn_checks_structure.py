"""scikit-learn's estimator checks over the structure learners: TAN(), SPTAN(), KDB(k=0),
KDB(k=2), LBR() and HNB() (``parametrize_with_checks``, strict).

Skipped checks (``EXPECTED_FAILED_CHECKS``): none.
"""

import warnings

import pytest
from sklearn.utils import estimator_checks as ec
from sklearn.utils.estimator_checks import parametrize_with_checks

from seminaive import HNB, KDB, LBR, SPTAN, TAN


def _estimators():
    return [TAN(), SPTAN(), KDB(k=0), KDB(k=2), LBR(), HNB()]


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
