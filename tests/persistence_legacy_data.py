"""The data and learners of the model files in ``tests/data/legacy_models``, written by an
earlier version of the library (the key names of Gaussian children and hierarchical
estimates as they were then): loading them must give the same probabilities."""

import numpy as np
import pandas as pd

from seminaive import AODE, KDB, SAODE, SKDB, TAN, AnDE, NaiveBayes


def legacy_data():
    """120 rows: two nominal and two numeric columns with missing values, three classes."""
    rng = np.random.default_rng(11)
    n = 120
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({
        "a": [f"a{v}" for v in (y + rng.integers(0, 2, n)) % 3],
        "b": [f"b{v}" for v in (y * 2 + rng.integers(0, 3, n)) % 4],
        "u": rng.normal(y * 0.8, 1.0, n),
        "v": rng.normal(-y * 0.5, 0.7, n),
    })
    for c in X.columns:
        X.loc[rng.random(n) < 0.05, c] = np.nan if c in "uv" else None
    return X, pd.Series(np.array(["lo", "mid", "hi"])[y])


def LEGACY_MODELS():
    """name -> unfitted learner, one per model file."""
    return {
        "aode_gaussian": AODE(numeric="gaussian"),
        "nb_student": NaiveBayes(numeric="gaussian", density="student"),
        "ande_hdp": AnDE(n=1, smoothing="hdp", n_iter=40, random_state=0),
        "a2de_hls": AnDE(n=2, smoothing="hls"),
        "kdb_gaussian": KDB(k=2, numeric="gaussian"),
        "kdb_hdp": KDB(k=1, smoothing="hdp", n_iter=40, random_state=0),
        "tan_hls": TAN(smoothing="hls"),
        "skdb_gaussian": SKDB(numeric="gaussian"),
        "saode_gaussian": SAODE(numeric="gaussian"),
    }
