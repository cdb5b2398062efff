"""Every refusal over ``max_table_bytes`` names the option that would make the model fit:
for every family (AnDE with and without memory="select", KDB, TAN, SKDB, ESKDB, HDP and
HLS estimates), fitted under a ladder of budgets from far too small to enough, each refusal
met on the way (the tables, the count trees, the estimates) names the budget and an option
of that learner, and none an option the learner does not have."""

import re

import numpy as np
import pytest
from test_structure_common import random_nominal

from seminaive import A3DE, AODE, ESKDB, KDB, SKDB, TAN, AnDE, TableTooLargeError

#: a ladder of budgets (bytes), from far too small to enough for every learner below
BUDGETS = [int(b) for b in np.geomspace(400, 6e7, 24)]

#: name -> (learner of a budget, what every refusal of it must name, what none may name,
#: what some refusal on the ladder must name)
FAMILIES = {
    "AnDE(n=2)": (lambda b: AnDE(n=2, categorical_features="all", max_table_bytes=b),
                  r"a smaller n", None, None),
    "A3DE": (lambda b: A3DE(categorical_features="all", max_table_bytes=b),
             r"a smaller n|memory=\"select\"", None, r"memory=\"select\""),
    "AnDE(n=3, memory='select')": (
        lambda b: AnDE(n=3, memory="select", categorical_features="all", max_table_bytes=b),
        r"a smaller n", None, None),
    "AODE-HDP": (lambda b: AODE(smoothing="hdp", n_iter=5, categorical_features="all",
                                max_table_bytes=b),
                 r"a smaller n|smoothing='m_estimate'", None, None),
    "AODE-HLS": (lambda b: AODE(smoothing="hls", categorical_features="all",
                                max_table_bytes=b),
                 r"a smaller n|smoothing='m_estimate'", None, None),
    "KDB": (lambda b: KDB(k=3, categorical_features="all", max_table_bytes=b),
            r"fewer attributes|fewer parents", r"a smaller n\b", r"fewer parents \(k <="),
    "KDB-HDP": (lambda b: KDB(k=3, smoothing="hdp", n_iter=5, categorical_features="all",
                              max_table_bytes=b),
                r"fewer attributes|fewer parents", r"a smaller n\b",
                r"smoothing='m_estimate'"),
    "KDB-HLS": (lambda b: KDB(k=3, smoothing="hls", categorical_features="all",
                              max_table_bytes=b),
                r"fewer attributes|fewer parents", r"a smaller n\b",
                r"smoothing='m_estimate'"),
    "TAN": (lambda b: TAN(categorical_features="all", max_table_bytes=b),
            r"fewer attributes", r"a smaller n\b", None),
    "SKDB": (lambda b: SKDB(k=3, categorical_features="all", max_table_bytes=b),
             r"fewer attributes|fewer parents", r"a smaller n\b", r"fewer parents \(k <="),
    "ESKDB": (lambda b: ESKDB(n_estimators=3, k=3, n_iter=5, categorical_features="all",
                              max_table_bytes=b, random_state=0),
              r"fewer attributes|fewer parents|fewer members", r"a smaller n\b",
              r"fewer members"),
    "ESKDB-HLS": (lambda b: ESKDB(n_estimators=3, k=3, smoothing="hls",
                                  categorical_features="all", max_table_bytes=b,
                                  random_state=0),
                  # (its members' HLS estimates are on their trees cut back to the selected
                  # model, never the binding allocation: their selection passes' trees over
                  # every candidate are; KDB-HLS checks the estimates' refusal)
                  r"fewer attributes|fewer parents|fewer members", r"a smaller n\b",
                  r"fewer members"),
}


@pytest.fixture(scope="module")
def data():
    return random_nominal(400, [6] * 8, 3, seed=9, dependence=0.5)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_refusal_names_an_option(name, data):
    X, y = data
    make, must, never, somewhere = FAMILIES[name]
    messages = []

    def fits(budget):
        try:
            make(budget).fit(X, y)
        except TableTooLargeError as error:
            messages.append(str(error))
            return False
        return True

    enough = next((b for b in BUDGETS if fits(b)), None)
    assert enough is not None, f"{name} fits in none of the budgets"
    assert messages, f"{name}: no refusal on the ladder"
    # then the last refusal before it fits (the last allocation checked: the estimates of
    # HDP and HLS), by bisection
    low, high = BUDGETS[BUDGETS.index(enough) - 1], enough
    for _ in range(14):
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid, high)
    for message in messages:
        assert "max_table_bytes" in message, message
        assert re.search(must, message), message
        if never is not None:
            assert not re.search(never, message), message
    if somewhere is not None:
        assert any(re.search(somewhere, m) for m in messages), messages


def test_eskdb_per_member_table_names_the_shared_discretisation():
    rng = np.random.default_rng(3)
    import pandas as pd

    X = pd.DataFrame({c: rng.normal(size=600) for c in "abc"})
    y = (X["a"] + X["b"] * X["c"] > 0).astype(int)
    with pytest.raises(TableTooLargeError, match=r"discretization=\"shared\""):
        ESKDB(n_estimators=5, k=2, max_table_bytes=2000, random_state=0).fit(X, y)
    with pytest.raises(TableTooLargeError) as caught:
        ESKDB(n_estimators=5, k=2, discretization="shared", max_table_bytes=2000,
              random_state=0).fit(X, y)
    assert "discretization" not in str(caught.value)  # already shared
