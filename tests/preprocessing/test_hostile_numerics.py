"""Hostile numbers: row weights beyond what the counts hold exactly, and the MDL
discretiser with hundreds to thousands of classes.  Each case gives a clear InputError or the
correct result, never a crash, a raw NumPy error or gigabytes of memory."""

import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import seminaive.preprocessing.discretize as discretize
from seminaive import AODE, NaiveBayes
from seminaive.exceptions import InputError
from seminaive.preprocessing import MDLDiscretizer, RandomizedMDLDiscretizer
from seminaive.preprocessing.validation import MAX_TOTAL_WEIGHT, check_sample_weight

X4 = pd.DataFrame({"a": list("xyxy")})
Y4 = list("uvuv")


# ------------------------------------------------------------------------ row weights
@pytest.mark.parametrize("weight", [2.0**62, 1e17, 1e308, 2.0**53 + 2])
@pytest.mark.parametrize("route", ["fit", "partial_fit"])
def test_a_weight_beyond_exact_counts_is_an_input_error(weight, route):
    model = NaiveBayes()
    with pytest.raises(InputError, match=r"2\*\*53"):
        if route == "fit":
            model.fit(X4, Y4, sample_weight=np.full(4, weight))
        else:
            model.partial_fit(X4, Y4, classes=["u", "v"], sample_weight=np.full(4, weight))
    assert not hasattr(model, "table_")


def test_weights_summing_beyond_2_53_are_refused_even_if_each_is_small():
    with pytest.raises(InputError, match=r"sum to 1\.8e\+16"):
        check_sample_weight(np.full(4, 2.0**52), 4)
    # the largest total is accepted, and the counts hold it exactly
    w = np.full(4, MAX_TOTAL_WEIGHT / 4)
    model = NaiveBayes().fit(X4, Y4, sample_weight=w)
    assert model.table_.n_rows == MAX_TOTAL_WEIGHT
    assert model.table_.counts[:2].tolist() == [2.0**52, 2.0**52]  # the class counts
    proba = model.predict_proba(X4)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    # equal to the unweighted model up to the m-estimate's prior (1 pseudo-count of 2**53)
    assert np.argmax(proba, axis=1).tolist() == [0, 1, 0, 1]


def test_partial_fit_refuses_the_chunk_that_would_pass_the_limit_and_keeps_the_model():
    model = NaiveBayes().partial_fit(X4, Y4, classes=["u", "v"],
                                     sample_weight=np.full(4, 2.0**51))
    before = model.table_.counts.copy()
    with pytest.raises(InputError, match="already counted"):
        model.partial_fit(X4, Y4, sample_weight=np.full(4, 2.0**51))
    assert np.array_equal(model.table_.counts, before)
    assert model.table_.n_rows == 2.0**53
    # unweighted rows count 1 each: one more row is one too many
    with pytest.raises(InputError, match="already counted"):
        model.partial_fit(X4.iloc[:1], Y4[:1])


def test_neighbours_of_the_limit_still_fit_and_predict():
    for w in (1e-300, 5e-324, 1.5, 2.0**40, 1e15):
        model = NaiveBayes().fit(X4, Y4, sample_weight=np.full(4, w))
        proba = model.predict_proba(X4)
        assert np.all(np.isfinite(proba)), w


def test_streamed_weight_column_beyond_the_limit(tmp_path):
    path = tmp_path / "w.csv"
    pd.DataFrame({"a": list("xyxy"), "y": Y4, "w": [2.0**62] * 4}).to_csv(path, index=False)
    with pytest.raises(InputError, match=r"2\*\*53"):
        AODE().fit_stream(str(path), "y", sample_weight="w")
    # per chunk below the limit, over the chunks beyond it
    pd.DataFrame({"a": list("xyxy"), "y": Y4, "w": [2.0**52] * 4}).to_csv(path, index=False)
    with pytest.raises(InputError, match=r"2\*\*53"):
        AODE().fit_stream(str(path), "y", sample_weight="w", chunk_rows=1)


def test_dask_weight_column_beyond_the_limit():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask as sdask

    frame = pd.DataFrame({"a": list("xyxy"), "y": Y4, "w": [2.0**62] * 4})
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(InputError, match=r"2\*\*53"):
            sdask.fit(AODE(), dd.from_pandas(frame, npartitions=2), target="y",
                      sample_weight="w")
        frame["w"] = 2.0**52  # each partition below the limit, the merged counts beyond it
        with pytest.raises(InputError, match=r"2\*\*53"):
            sdask.fit(AODE(), dd.from_pandas(frame, npartitions=4), target="y",
                      sample_weight="w")


# ------------------------------------------------------------------- MDL, many classes
def _log2_3k_minus_2_reference(k):
    """log2(3**k - 2) with exact integers (Python's big ints)."""
    v = 3**k - 2
    shift = max(0, v.bit_length() - 60)
    return shift + math.log2(v >> shift)


@pytest.mark.parametrize("k", [1, 2, 3, 50, 600, 601, 646, 647, 700, 10_000, 10**6])
def test_log2_3k_minus_2_in_log_space(k):
    got = discretize._log2_3k_minus_2(k)
    assert math.isfinite(got)
    assert got == pytest.approx(_log2_3k_minus_2_reference(k), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("k", [647, 700])
def test_mdl_with_hundreds_of_classes_gives_the_separating_cuts(k):
    # two rows per class, classes in order of x: every boundary is a perfect cut; with 647
    # classes and more, 3**k overflowed a double
    x = np.arange(2 * k, dtype=float)[:, None]
    y = np.arange(2 * k) // 2
    cuts = MDLDiscretizer().fit(x, y).cut_points_[0]
    assert np.all(np.isfinite(cuts))
    # the MDL cost of so many classes forbids splitting 4 rows of 2 classes: the cuts lie
    # at class boundaries only
    assert set(cuts.tolist()) <= {c + 0.5 for c in range(1, 2 * k - 1, 2)}
    for disc in (RandomizedMDLDiscretizer(n_draws=2, random_state=0),):
        assert np.all(np.isfinite(np.concatenate(disc.fit(x, y).cut_points_)))


def test_mdl_lazy_counts_give_the_same_cuts_bit_for_bit(monkeypatch):
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(12):
        n, k = int(rng.integers(30, 400)), int(rng.integers(2, 6))
        x = np.round(rng.normal(size=(n, 2)), 1)
        y = np.round(2 * x[:, 0] + rng.normal(size=n)).astype(int) % k
        cases.append((x, y))

    def run():
        return [(MDLDiscretizer().fit(x, y).cut_points_,
                 RandomizedMDLDiscretizer(n_draws=3, random_state=1).fit(x, y).cut_points_)
                for x, y in cases]

    dense = run()
    monkeypatch.setattr(discretize, "_DENSE_CELLS", 0)
    monkeypatch.setattr(discretize, "_BLOCK_CELLS", 16)  # many blocks per range
    lazy = run()
    for (a, ra), (b, rb) in zip(dense, lazy, strict=True):
        for p, q in zip(a + ra, b + rb, strict=True):
            assert np.array_equal(p, q)


def test_mdl_with_ten_thousand_classes_stays_small():
    rng = np.random.default_rng(0)
    n, k = 20_000, 10_000
    x = rng.normal(size=(n, 1))
    y = np.arange(n) % k
    tracemalloc.start()
    try:
        cuts = MDLDiscretizer().fit(x, y).cut_points_[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cuts.size == 0  # class independent of x: no cut pays its MDL cost
    # the dense cumulated counts alone would be 10,000 x 20,001 x 8 bytes = 1.6 GB
    assert peak < 64 * 2**20, peak


def test_whole_number_weights_too_many_to_repeat_are_refused_or_sampled():
    """max_sample_rows=None repeats every row by its integer weight: weights standing for
    more rows than can be repeated are an InputError (not a MemoryError); with a sample
    size, a weighted sample of that size is drawn."""
    from seminaive.preprocessing import AttributeEncoder

    X = pd.DataFrame({"a": [0.1, 0.5, 0.9, 0.3]})
    y = ["u", "v", "u", "v"]
    w = np.full(4, 1e12)
    with pytest.raises(InputError, match="max_sample_rows"):
        AttributeEncoder(max_sample_rows=None).fit(X, y, sample_weight=w)
    a = AttributeEncoder(max_sample_rows=1000, random_state=0).fit(X, y, sample_weight=w)
    b = AttributeEncoder(max_sample_rows=1000, random_state=0).fit(X, y, sample_weight=w)
    assert [c.tolist() for c in a.cut_points()] == [c.tolist() for c in b.cut_points()]
    # the same rows with weight 1 (few enough to repeat) give the unweighted cut points
    ones = AttributeEncoder(max_sample_rows=None).fit(X, y, sample_weight=np.ones(4))
    plain = AttributeEncoder(max_sample_rows=None).fit(X, y)
    assert [c.tolist() for c in ones.cut_points()] == [c.tolist() for c in plain.cut_points()]
