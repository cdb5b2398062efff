"""Small real data sets shipped with seminaive (see ``data/README.md`` for origin and licence)."""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_kr_vs_kp"]


def _read_csv(name):
    with resources.files("seminaive.datasets").joinpath("data", name).open("rb") as f:
        return pd.read_csv(f, compression="gzip", dtype=str, keep_default_na=False)


def load_kr_vs_kp(as_frame=True):
    """Load the UCI Chess (King-Rook vs. King-Pawn) data set.

    3,196 positions described by 36 nominal attributes (UCI names ``bkblk`` ... ``wtoeg``);
    the class is ``"won"`` (1,669) or ``"nowin"`` (1,527). No missing values.

    Parameters
    ----------
    as_frame : bool, default=True
        Return pandas objects; otherwise numpy object arrays.

    Returns
    -------
    X : pandas.DataFrame of shape (3196, 36) or ndarray of dtype object
        With ``as_frame=True`` every column is a pandas Categorical of string categories.
    y : pandas.Series of str named ``"class"`` or ndarray of dtype object

    Examples
    --------
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> X.shape, y.value_counts().to_dict()
    ((3196, 36), {'won': 1669, 'nowin': 1527})
    """
    df = _read_csv("kr-vs-kp.csv.gz")
    y = df.pop("class")
    if not as_frame:
        return df.to_numpy(dtype=object), y.to_numpy(dtype=object)
    X = df.apply(lambda col: pd.Categorical(col, categories=sorted(col.unique())))
    return X, y
