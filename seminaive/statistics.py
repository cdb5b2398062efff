"""Information-theoretic statistics of count tables: the one implementation of mutual
information and conditional mutual information that every learner uses (KDB, TAN, SP-TAN,
HNB, WAODE, ASAODE, SAODE, SWAODE, AnDE(n="auto"), ...).

All estimates are maximum likelihood, in nats, from the rows in which the attributes
involved are observed (the missing slots of the count blocks are left out).
"""

import numpy as np

from . import kernels

__all__ = ["combination_mutual_information", "conditional_mutual_information",
           "mutual_information", "mutual_information_with_class"]


def mutual_information_with_class(joint):
    """I(X; Y) in nats, maximum-likelihood estimate from counts of shape (values..., k).

    Parameters
    ----------
    joint : array-like of shape (values..., k)
        The counts N(x, y) of the observed values only (missing slot left out); all axes
        but the last are flattened into X.

    Returns
    -------
    float
        I = sum_{x, y} p(x, y) log(p(x, y) / (p(x) p(y))); zero when the table is empty.

    Examples
    --------
    >>> round(mutual_information_with_class([[5, 0], [0, 5]]), 6)  # X determines Y: log 2
    0.693147
    >>> mutual_information_with_class([[2, 2], [3, 3]])
    0.0
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


def combination_mutual_information(table, order):
    """I(X_s; Y) for every combination s of ``order`` attributes, X_s taken as one variable.

    Parameters
    ----------
    table : FrequencyTable
        Counts of combinations up to at least ``order``.
    order : int
        Number of attributes per combination.

    Returns
    -------
    ndarray of shape (table.n_combinations(order),)
        In the order of ``table.combinations(order)``.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.tables import FrequencyTable
    >>> table = FrequencyTable([2, 2], n_classes=2, max_order=2)
    >>> _ = table.add(np.array([[1, 1], [2, 1], [1, 2], [2, 2]]), np.array([0, 1, 0, 1]))
    >>> combination_mutual_information(table, 1).round(6).tolist()  # x_0 is the class
    [0.693147, 0.0]
    """
    return np.array([mutual_information_with_class(table.observed_block_at(g))
                     for g in table.combination_range(order)], dtype=np.float64)


def mutual_information(table):
    """I(X_i; Y) of every attribute: :func:`combination_mutual_information` of order 1.

    Parameters
    ----------
    table : FrequencyTable
        Counts of the attribute values per class (any ``max_order >= 1``), e.g. the
        ``table_`` of a fitted model.

    Returns
    -------
    ndarray of shape (n_attributes,)
        The maximum-likelihood estimate of I(X_i; Y), in nats, of each attribute.

    Examples
    --------
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> mi = mutual_information(NaiveBayes().fit(X, y).table_)
    >>> mi.shape, X.columns[mi.argmax()]
    ((36,), 'rimmx')
    """
    return combination_mutual_information(table, 1)


def conditional_mutual_information(table):
    """I(X_i; X_j | Y) for every pair of attributes (symmetric, zero diagonal).

    I = sum_{y, x_i, x_j} P(y, x_i, x_j) log[P(y, x_i, x_j) P(y) / (P(y, x_i) P(y, x_j))],
    the edge weight of TAN (Friedman, Geiger & Goldszmidt 1997), from the pair blocks over
    the rows in which both attributes are observed.

    Parameters
    ----------
    table : FrequencyTable
        Counts of pairs (``max_order >= 2``); without them every entry is 0.

    Returns
    -------
    ndarray of shape (n_attributes, n_attributes)

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.tables import FrequencyTable
    >>> table = FrequencyTable([2, 2], n_classes=1, max_order=2)
    >>> _ = table.add(np.array([[1, 1], [2, 2], [1, 1], [2, 2]]), np.zeros(4, dtype=int))
    >>> conditional_mutual_information(table).round(6).tolist()  # x_1 copies x_0
    [[0.0, 0.693147], [0.693147, 0.0]]
    """
    a = table.n_attributes
    out = np.zeros((a, a), dtype=np.float64)
    kernels.conditional_mutual_information(table.counts, table.pair_block_starts(),
                                           table.sizes, table.n_classes, out)
    return out
