"""The compiled randomised MDL recursion (``seminaive.kernels.discretize``) draws the same cut
points as the discretiser's Python recursion, bit for bit, and leaves the random stream
where the Python recursion leaves it."""

import numpy as np
import pytest

from seminaive.datasets import load
from seminaive.kernels.discretize import pairwise_sum, range_margins
from seminaive.preprocessing import RandomizedMDLDiscretizer
from seminaive.preprocessing.discretize import _sorted_groups, mdl_margins


class _PythonDraws(RandomizedMDLDiscretizer):
    """The reference: the recursion in Python (:meth:`_split` over :meth:`_drawn_cut`)."""

    _compiled = False


def _same_draws(a, b):
    return len(a.draw_cut_points_) == len(b.draw_cut_points_) and all(
        len(da) == len(db) and all(np.array_equal(p, q) for p, q in zip(da, db, strict=True))
        for da, db in zip(a.draw_cut_points_, b.draw_cut_points_, strict=True))


@pytest.mark.parametrize("n", [*range(0, 140), 255, 256, 257, 1000, 1029, 4099])
def test_pairwise_sum_is_numpys_sum_bit_for_bit(n):
    rng = np.random.default_rng(n)
    values = rng.random(n) * 10.0 ** rng.uniform(-3, 6, n)
    assert pairwise_sum(values, 0, n) == values.sum()
    if n > 3:
        assert pairwise_sum(values, 2, n - 1) == values[2:n - 1].sum()


@pytest.mark.parametrize("n_classes", [2, 3, 9, 10, 26, 140])
def test_range_margins_are_mdl_margins_bit_for_bit(n_classes):
    rng = np.random.default_rng(n_classes)
    n = 3000
    x = np.round(rng.normal(size=n), 2)
    y = rng.integers(0, n_classes, n)
    values, cum, cum_rows = _sorted_groups(x, y, n_classes)
    disc = RandomizedMDLDiscretizer()
    disc._prepare(n)
    tables = disc._kernel_tables(n_classes)
    ranges = [(0, values.size), (0, 2), (values.size - 2, values.size), (5, 8)]
    for _ in range(40):
        a = int(rng.integers(0, values.size - 2))
        b = int(rng.integers(a + 2, min(values.size, a + 2 + int(rng.choice([0, 1, 6, 200,
                                                                           10**6]))) + 1))
        ranges.append((a, b))
    for a, b in ranges:
        gain, margin = mdl_margins(cum, cum_rows, a, b, disc._nlogn)
        got_gain, got_margin = np.empty(b - a - 1), np.empty(b - a - 1)
        range_margins(cum, cum_rows, a, b, tables, got_gain, got_margin)
        assert np.array_equal(got_gain, gain) and np.array_equal(got_margin, margin), (a, b)


def _synthetic(seed, n=1500, n_classes=4):
    """Informative, noisy, tied and constant columns with missing values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = np.column_stack([
        y + rng.normal(scale=0.8, size=n),          # informative, continuous
        np.round(y + rng.normal(scale=1.5, size=n)),  # informative, heavily tied
        rng.normal(size=n),                         # noise: one cut by gain at most
        np.full(n, 2.0),                            # constant: no cut
        np.where(rng.random(n) < 0.2, np.nan, y * 0.5 + rng.random(n)),  # missing values
    ])
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_compiled_draws_are_the_python_draws_on_synthetic_data(seed):
    X, y = _synthetic(seed)
    for n_draws in (1, 5, 20):
        fast = RandomizedMDLDiscretizer(n_draws=n_draws, random_state=seed).fit(X, y)
        slow = _PythonDraws(n_draws=n_draws, random_state=seed).fit(X, y)
        assert _same_draws(fast, slow)
        assert all(np.array_equal(p, q)
                   for p, q in zip(fast.cut_points_, slow.cut_points_, strict=True))
    assert sum(c.size for c in fast.cut_points_) > 5  # the comparison has cuts to compare


def test_compiled_draws_with_many_classes_and_a_row_sample():
    # 150 classes: the class totals take numpy's pairwise blocks beyond 128 numbers
    rng = np.random.default_rng(3)
    y = rng.integers(0, 150, 6000)
    X = np.column_stack([y + rng.normal(scale=5, size=y.size), rng.normal(size=y.size)])
    for kwargs in ({}, {"max_sample_rows": 2500}):
        fast = RandomizedMDLDiscretizer(n_draws=4, random_state=11, **kwargs).fit(X, y)
        slow = _PythonDraws(n_draws=4, random_state=11, **kwargs).fit(X, y)
        assert _same_draws(fast, slow)


@pytest.mark.parametrize("name,seed", [("waveform21@3000", 0), ("waveform40@3000", 5),
                                       ("waveform21@3000", 9)])
def test_compiled_draws_are_the_python_draws_on_generated_sets(name, seed):
    X, y = load(name)
    X = X.select_dtypes("number").to_numpy(dtype=np.float64)
    fast = RandomizedMDLDiscretizer(n_draws=20, random_state=seed).fit(X, y)
    slow = _PythonDraws(n_draws=20, random_state=seed).fit(X, y)
    assert _same_draws(fast, slow)


def test_the_random_stream_is_left_where_the_python_draws_leave_it():
    X, y = _synthetic(4)
    fast_rng, slow_rng = np.random.RandomState(9), np.random.RandomState(9)
    fast = RandomizedMDLDiscretizer(n_draws=6, random_state=fast_rng).fit(X, y)
    slow = _PythonDraws(n_draws=6, random_state=slow_rng).fit(X, y)
    assert _same_draws(fast, slow)
    assert np.array_equal(fast_rng.random_sample(5), slow_rng.random_sample(5))


def test_a_stream_that_runs_out_is_drawn_again_longer():
    # the class alternates every 200 values: hundreds of cuts per draw, where the
    # discretiser first draws 32 numbers per draw
    X = np.arange(20000.0).reshape(-1, 1)
    y = (X[:, 0] // 200 % 2).astype(int)
    fast = RandomizedMDLDiscretizer(n_draws=2, random_state=0).fit(X, y)
    slow = _PythonDraws(n_draws=2, random_state=0).fit(X, y)
    assert max(d[0].size for d in slow.draw_cut_points_) > 64
    assert _same_draws(fast, slow)
