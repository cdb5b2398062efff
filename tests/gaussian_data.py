"""The mixed frame of the Gaussian-children tests (``tests/test_gaussian.py``,
``tests/selection/test_gaussian_loo.py``): two nominal and two numeric columns that
depend on a three-valued class, with missing values in every column."""

import numpy as np
import pandas as pd


def mixed_frame(n=300, seed=0, missing=0.1):
    """``(X, y)``: ``colour`` (3 values, shifted by the class), ``size`` (normal, mean and
    spread growing with the class), ``weight`` (linear in ``size``, shifted when the colour
    is red), ``shape`` (2 values), and labels "a", "b", "c"; a fraction ``missing`` of every
    column missing (NaN in the numeric columns, None in the nominal ones)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    colour = np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3]
    size = rng.normal(10 + 3 * y, 1 + y, n)
    weight = rng.normal(size * 2 + (colour == "red") * 4, 2.0)
    shape = np.array(["round", "square"])[(rng.random(n) < 0.3 + 0.2 * y).astype(int)]
    X = pd.DataFrame({"colour": colour, "size": size, "weight": weight, "shape": shape})
    for col in X.columns:
        X.loc[rng.random(n) < missing, col] = np.nan if col in ("size", "weight") else None
    return X, np.array(["a", "b", "c"])[y]
