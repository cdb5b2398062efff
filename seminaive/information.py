"""Information-theoretic statistics of count tables, shared by the learners that rank,
weight or connect attributes (KDB, TAN, WAODE, ASAODE, SAODE, ...)."""

import numpy as np


def mutual_information_with_class(joint):
    """I(X; Y) in nats, maximum-likelihood estimate from counts of shape (values..., k).

    ``joint`` holds the counts N(x, y) of the observed values only (missing slot left out);
    all axes but the last are flattened into X.  Zero when the table is empty.
    """
    counts = np.asarray(joint, dtype=np.float64)
    counts = counts.reshape(-1, counts.shape[-1])
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts / total
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float(max(np.sum(p[nz] * np.log(p[nz] / (px * py)[nz])), 0.0))
