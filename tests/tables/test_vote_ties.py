"""Vote aggregation (FAnDE): a sub-model's exact tie is broken by class index, never by
floating-point rounding."""

import numpy as np

from seminaive import AnDE
from seminaive.tables import scoring


def _votes(terms, weighted=False):
    terms = np.asarray(terms, dtype=np.float64)
    out = np.empty(terms.shape[1])
    if weighted:
        scoring._aggregate_row_weighted(terms, np.zeros(terms.shape[0]), terms.shape[0],
                                        terms.shape[1], scoring.AGGREGATE_VOTE, out)
    else:
        scoring._aggregate_row(terms, terms.shape[0], terms.shape[1], scoring.AGGREGATE_VOTE,
                               out)
    return np.exp(out)


def test_rounding_does_not_decide_a_tie():
    # two sub-models: a tie between classes 0 and 1 that rounding tilts towards class 1,
    # and a clear vote for class 2
    terms = [[-20.0, -20.0 * (1 - 1e-15), -30.0], [-5.0, -9.0, -1.0]]
    for weighted in (False, True):
        np.testing.assert_allclose(_votes(terms, weighted), [0.5, 0.0, 0.5])
    # a real difference is still a win
    terms = [[-20.0, -19.9, -30.0], [-5.0, -9.0, -1.0]]
    np.testing.assert_allclose(_votes(terms), [0.0, 0.5, 0.5])


def test_vote_winner_relative_tolerance():
    terms = np.array([[1e6, 1e6 * (1 + 1e-13), 0.0], [1e-3, 1e-3 + 1e-14, 0.0]])
    assert scoring.vote_winner(terms, 0, 3) == 0  # within 1e-12 of the magnitude
    assert scoring.vote_winner(terms, 1, 3) == 0  # within 1e-12 absolute below 1
    terms = np.array([[1e6, 1e6 * (1 + 1e-9), 0.0]])
    assert scoring.vote_winner(terms, 0, 3) == 1


def test_symmetric_data_votes_split_evenly():
    """Classes that are mirror images of each other: every sub-model ties, so every vote
    goes to the first class, on every row, whatever the row order."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 4))
    X = np.vstack([X, X])
    y = np.array([0] * 200 + [1] * 200)
    model = AnDE(n=1, aggregate="vote", categorical_features="all").fit(X, y)
    proba = model.predict_proba(X[:50])
    np.testing.assert_array_equal(proba[:, 0], 1.0)
