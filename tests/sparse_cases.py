"""Cases of ``tests/structure/test_sparse_families.py``: the learners and sampler trees whose
outputs the dense-family code (commit 210d488, before the families became sparse trees) wrote to
``tests/data/sparse_reference.npz`` (``python tests/sparse_cases.py OUT.npz`` at that
commit)."""

import sys
import warnings

import numpy as np
import pandas as pd

from seminaive import ESKDB, KDB, SKDB
from seminaive.kernels import hdp

TYINGS = ("none", "parent", "level", "single")



#: Tolerances of the stored floating-point outputs.  numba compiles for the host processor:
#: vector width, fused multiply-add and the libm variant it dispatches to change the last
#: bits from one processor to the next (one unit in the last place was seen on probabilities,
#: 1.1e-16).  The outputs are sums and products of at most a few thousand terms of exact
#: counts, so a difference of operation order or rounding moves them by a few thousand ulps
#: at most: relative 1e-12 (about 4,500 ulps) with an absolute floor of 1e-15 for values
#: near zero.  A wrong count or formula moves them by far more (a count of one row in
#: hundreds changes a probability in its third digit).
RTOL, ATOL = 1e-12, 1e-15


def check_reference(reference, name, out):
    """Every array of ``out`` equal to ``reference[f"{name}|{key}"]`` (the stored outputs
    of the version a layout replaced, written on another machine): integer and boolean
    arrays (counts, selections, structures) exactly, floating-point arrays within
    :data:`RTOL` / :data:`ATOL` (infinities and NaNs in the same places).

    Bit-for-bit equality is kept for two computations in the same process only.
    """
    for key, value in out.items():
        ref = reference[f"{name}|{key}"]
        value = np.asarray(value)
        assert ref.shape == value.shape, (name, key)
        if np.issubdtype(ref.dtype, np.inexact) or np.issubdtype(value.dtype, np.inexact):
            np.testing.assert_allclose(value, ref, rtol=RTOL, atol=ATOL, equal_nan=True,
                                       err_msg=f"{name}|{key}")
        else:
            assert np.array_equal(ref, value), (name, key)


def make_data(n=500, seed=0):
    """Three classes, four numeric attributes (MDL bins) and four nominal ones with 3-6
    values, correlated chains so that the parents matter, about 4% missing."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = {}
    prev = y.astype(float)
    for j in range(4):
        prev = 0.8 * prev + rng.normal(0, 0.7, n) + 0.3 * y
        cols[f"num{j}"] = prev
    last = y
    for j, size in enumerate((3, 4, 5, 6)):
        noise = rng.integers(0, size, n)
        keep = rng.random(n) < 0.6
        last = np.where(keep, (last + j) % size, noise)
        cols[f"nom{j}"] = pd.Series([f"v{v}" for v in last], dtype=object)
    X = pd.DataFrame(cols)
    for c in X.columns:
        X.loc[rng.random(n) < 0.04, c] = np.nan
    return X, y


def learner_cases():
    """(name, estimator) pairs; every one is fitted on the first 350 rows of
    :func:`make_data` and scored on the rest."""
    cases = []
    for k in range(1, 6):
        cases.append((f"kdb{k}-m", KDB(k=k)))
        for tying in TYINGS:
            cases.append((f"kdb{k}-hdp-{tying}",
                          KDB(k=k, smoothing="hdp", n_iter=40, tying=tying, random_state=3)))
    cases.append(("kdb3-value", KDB(k=3, missing="value")))
    cases.append(("kdb3-mc5", KDB(k=3, min_count=5)))
    cases.append(("kdb3-gauss", KDB(k=3, numeric="gaussian", density="plugin")))
    cases.append(("kdb4-laplace", KDB(k=4, smoothing="laplace")))
    for k in (2, 3, 5):
        cases.append((f"skdb{k}-m", SKDB(k=k)))
        cases.append((f"skdb{k}-hdp", SKDB(k=k, smoothing="hdp", n_iter=40, random_state=1)))
    cases.append(("skdb3-gauss", SKDB(k=3, numeric="gaussian", density="plugin")))
    cases.append(("skdb3-value", SKDB(k=3, missing="value", loss="log_loss")))
    cases.append(("eskdb-member", ESKDB(n_estimators=3, k=3, n_iter=40, random_state=0)))
    cases.append(("eskdb-shared", ESKDB(n_estimators=3, k=3, n_iter=40, random_state=0,
                                        discretization="shared")))
    cases.append(("eskdb-m", ESKDB(n_estimators=2, k=4, smoothing="m_estimate",
                                   random_state=2)))
    return cases


def run_learner(model, weights=False):
    X, y = make_data()
    w = None
    if weights:
        w = np.random.default_rng(5).integers(0, 4, 350).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X.iloc[:350], y[:350], sample_weight=w)
    out = {"proba": model.predict_proba(X.iloc[350:])}
    for name in ("k_", "n_selected_features_", "loo_loss_", "structure_", "orders_"):
        if hasattr(model, name):
            out[name] = np.asarray(getattr(model, name))
    return out


def sampler_cases():
    """(name, trees, keyword arguments) of :func:`seminaive.kernels.hdp.hdp_forest`:
    random trees with empty subtrees, a tree whose every node exists, every tying."""
    rng = np.random.default_rng(11)
    shapes = [([], 3), ([4], 2), ([2, 3], 4), ([3, 2, 4], 3), ([2, 2, 2, 3], 5)]
    trees = []
    for dims, V in shapes:
        rows = int(np.prod(dims)) if dims else 1
        counts = rng.poisson(2.5, size=(rows, V))
        counts *= rng.random((rows, 1)) < 0.55  # empty leaves, hence empty subtrees
        if rows > 3:
            counts[: rows // 3] = 0  # a whole empty first subtree
        trees.append((counts, dims))
    full = rng.integers(1, 6, size=(12, 3))  # every node exists
    trees.append((full, [3, 4]))
    big = rng.poisson(30.0, size=(6, 4)) * (rng.random((6, 1)) < 0.7)  # large counts
    trees.append((big, [2, 3]))
    trees.append((np.zeros((4, 2), dtype=np.int64), [4]))  # no rows at all
    cases = []
    for tying in TYINGS:
        cases.append((f"forest-{tying}", trees,
                      {"n_iter": 60, "burn_in": 10, "tying": tying,
                       "seeds": np.arange(len(trees)) + 17}))
    cases.append(("forest-fixed", trees, {"n_iter": 30, "burn_in": 5, "tying": "none",
                                          "seeds": np.arange(len(trees)) + 3,
                                          "sample_concentration": False,
                                          "concentration": 1.7}))
    cases.append(("forest-noburn", trees, {"n_iter": 3, "burn_in": 3, "tying": "level",
                                           "seeds": np.arange(len(trees))}))
    return cases


def run_sampler(trees, kwargs):
    est = hdp.hdp_forest(trees, **kwargs)
    return {f"tree{j}": e for j, e in enumerate(est)}


def main(path):
    out = {}
    for name, model in learner_cases():
        for key, value in run_learner(model).items():
            out[f"{name}|{key}"] = value
    for name, model in (("kdb3-w", KDB(k=3)), ("kdb4-hdp-w", KDB(k=4, smoothing="hdp",
                                                                 n_iter=40, random_state=2)),
                        ("skdb4-w", SKDB(k=4))):
        for key, value in run_learner(model, weights=True).items():
            out[f"{name}|{key}"] = value
    for name, trees, kwargs in sampler_cases():
        for key, value in run_sampler(trees, kwargs).items():
            out[f"{name}|{key}"] = value
    np.savez_compressed(path, **out)
    return len(out)


if __name__ == "__main__":
    print(main(sys.argv[1]), "arrays")


def family_blocks(model):
    """Dense count blocks of a fitted KDB/SKDB's counted families, from its count trees:
    ``{(i, parents in ascending order...): array of shape (sizes of i and the parents...,
    k)}`` (the layout of :class:`seminaive.tables.CombinationTable`), for tests."""
    counts, sizes = model._counts, model.table_.sizes
    k = model.table_.n_classes
    blocks = {}
    for tree, (keys, values) in model._family_counts.items():
        i, chain = tree[0], list(tree[1:])
        shape = [k] + [int(sizes[p]) for p in chain] + [int(sizes[i])]
        dense = np.zeros(int(np.prod(shape)))
        dense[keys] = values
        dense = dense.reshape(shape)
        family = (i, *sorted(chain))
        axes = [len(chain) + 1] + [1 + chain.index(p) for p in family[1:]] + [0]
        blocks[family] = np.transpose(dense, axes)
    assert counts is not None
    return blocks
