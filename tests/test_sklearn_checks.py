"""scikit-learn estimator checks."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from seminaive import A2DE, A3DE, AODE, AnDE, AttributeEncoder, NaiveBayes

ESTIMATORS = [NaiveBayes(), AODE(), A2DE(), A3DE(), AnDE(n=2, aggregate="posterior"),
              AnDE(n=1, aggregate="vote"), AttributeEncoder()]


def _expected_failed_checks(estimator):
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
