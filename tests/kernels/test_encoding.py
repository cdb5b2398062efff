"""Numeric values binned by cut points (:func:`seminaive.kernels.encoding.bin_columns`):
the bins of ``np.searchsorted``, whatever the matrix's layout and size, through one
compiled specialisation of the kernel for the small matrices of a one-row predict or a
small ``partial_fit``."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from seminaive.kernels import encoding


def _case(n, a, extra, seed, dtype=np.float64):
    """``n`` rows of ``a`` numeric columns (NaN and ties to cut points included), their cut
    points, and a codes matrix of ``a + extra`` columns whose other columns hold 7."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a)).round(1).astype(dtype)
    if dtype == np.float64 and n * a:
        X.flat[rng.integers(0, n * a, size=max(1, n * a // 5))] = np.nan
    cuts = [np.sort(rng.choice(np.linspace(-2, 2, 41), size=s, replace=False))
            for s in rng.integers(0, 20, size=a)]  # 0 to 19 cuts: both of the kernel's paths
    starts = np.zeros(a + 1, dtype=np.int64)
    starts[1:] = np.cumsum([c.size for c in cuts])
    flat = np.concatenate(cuts) if a else np.zeros(0)
    out_cols = rng.permutation(a + extra)[:a].astype(np.int64)
    return X, cuts, flat, starts, out_cols


def _expected(X, cuts, out_cols, width):
    out = np.full((X.shape[0], width), 7, dtype=np.int32)
    for j, c in enumerate(cuts):
        col = X[:, j].astype(np.float64)
        out[:, out_cols[j]] = np.where(np.isnan(col), -1, np.searchsorted(c, col, side="left"))
    return out


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (2, 1), (7, 3), (5000, 1), (300, 4)])
@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_bins_equal_searchsorted_whatever_the_layout(shape, order):
    n, a = shape
    X, cuts, flat, starts, out_cols = _case(n, a, 2, n * 31 + a)
    if order == "strided":
        X = np.asfortranarray(np.repeat(X, 2, axis=1))[:, ::2]  # neither C nor F
    elif order == "C":
        X = np.ascontiguousarray(X)
    else:
        X = np.asfortranarray(X)
    for out_order in ("C", "F"):
        out = np.full((n, a + 2), 7, dtype=np.int32, order=out_order)
        assert encoding.bin_columns(X, flat, starts, out_cols, out) == 0
        np.testing.assert_array_equal(out, _expected(X, cuts, out_cols, a + 2))


def test_infinite_values_are_counted_in_small_matrices():
    X, cuts, flat, starts, out_cols = _case(3, 2, 0, 5)
    X[1, 0] = np.inf
    X[2, 1] = -np.inf
    out = np.zeros((3, 2), dtype=np.int32)
    assert encoding.bin_columns(np.ascontiguousarray(X), flat, starts, out_cols, out) == 2


_SMALL_CALLS = textwrap.dedent("""
    import warnings
    import numba
    import numpy as np
    import pandas as pd
    from seminaive import NaiveBayes
    from seminaive.kernels import encoding
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(400, 3)), columns=list("abc"))
    mixed = frame.assign(s=np.where(frame["a"] > 0, "p", "q"))
    y = (frame["b"] > 0).astype(int)
    for X in (frame, mixed):
        model = NaiveBayes().fit(X, y)
        model.predict_proba(X.iloc[:1])
        model.predict_proba(X.iloc[[5]])
        model.partial_fit(X.iloc[:3], y.iloc[:3])
    print(sorted({(sig[0].layout, sig[0].mutable, sig[4].layout)
                  for sig in encoding._bin_blocks.signatures if sig[0].dtype == numba.float64}))
""")


def test_small_matrices_take_the_fortran_specialisation():
    """A one-row predict or a few-row ``partial_fit`` of a numeric model (in a fresh
    process: the signatures its calls used) bins through the specialisation the fit
    compiled (read-only float64 values, int32 codes in Fortran order), not a second one
    for C-typed, strided or writable matrices (seconds of compiling at first use)."""
    done = subprocess.run([sys.executable, "-c", _SMALL_CALLS], capture_output=True,
                          text=True, timeout=600, env={**os.environ,
                                                       "SEMINAIVE_COMPILE_NOTICE": "0"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('F', False, 'F')]"
