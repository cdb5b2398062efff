"""A3DE accepts ``memory`` as AnDE does, and a refusal names the option that would fit."""

import numpy as np
import pytest

from seminaive import A3DE, AnDE, load
from seminaive.datasets import make_led
from seminaive.exceptions import TableTooLargeError


@pytest.fixture(scope="module")
def led():
    return make_led(400, random_state=1)


def test_a3de_select_is_ande_select(led):
    X, y = led
    a = A3DE(memory="select", max_table_bytes=20_000_000).fit(X, y)
    b = AnDE(n=3, memory="select", max_table_bytes=20_000_000).fit(X, y)
    assert 3 <= len(a.parents_) < X.shape[1]
    np.testing.assert_array_equal(a.parents_, b.parents_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # a budget the full model fits: nothing to select, A3DE itself
    full = A3DE(memory="select").fit(X, y)
    np.testing.assert_array_equal(full.predict_proba(X), A3DE().fit(X, y).predict_proba(X))


def test_a3de_select_model_file(led, tmp_path):
    X, y = led
    model = A3DE(memory="select", max_table_bytes=20_000_000).fit(X, y)
    path = tmp_path / "a3de.snb"
    model.save(path)
    again = load(path)
    assert again.memory == "select"
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_refusal_names_memory_select_when_it_fits(led):
    X, y = led
    with pytest.raises(TableTooLargeError, match='pass memory="select"'):
        A3DE(max_table_bytes=20_000_000).fit(X, y)
    with pytest.raises(TableTooLargeError) as err:  # not even selection fits
        A3DE(max_table_bytes=2_000_000).fit(X, y)
    assert "memory=" not in str(err.value)
    with pytest.raises(TableTooLargeError, match="memory='select': even the tables"):
        A3DE(memory="select", max_table_bytes=2_000_000).fit(X, y)


def test_a3de_memory_checked():
    with pytest.raises(ValueError, match="memory"):
        A3DE(memory="sometimes").fit(np.zeros((4, 4), dtype=int), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="numeric='discretize'"):
        A3DE(memory="select", numeric="gaussian").fit(np.zeros((4, 4)), [0, 1, 0, 1])
