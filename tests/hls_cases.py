"""Cases of ``tests/kernels/test_hls.py::test_fit_equals_the_stored_outputs``: the trees of
KDB(k=3) on half of four benchmark sets (``benchmarks/bench_hls.py``'s split: seed 0) and
the estimates, iterations and chosen penalties that the fit of commit 9e1dc86 (before its
fixed costs were cut) wrote to ``tests/data/hls_reference.npz`` (``python
tests/hls_cases.py OUT.npz`` at that commit; the trees are stored with them, so that the
test needs neither the data sets nor the structure search).

The trees cover what the fit meets on real data: depths 1 to 4, 1 to 12 values, levels
whose penalties the evidence sends to the bound, leaves with a single row next to leaves
with hundreds.  Half of segment's trees are kept (the file stays small).
"""

import sys
import warnings

import numpy as np

SETS = ("housevotes", "tic-tac-toe", "kr-vs-kp", "segment")
#: segment's first trees only (the others are of the same shapes)
SEGMENT_TREES = 10


def trees():
    """(name, trees) of every set: its KDB(k=3) trees of occurring nodes, (parent,
    level_start, leaf_counts) each, fitted on the training half of the benchmark's split."""
    import seminaive
    from seminaive.datasets import load

    out = []
    for data in SETS:
        X, y = load(data)
        y = np.asarray(y)
        train = np.random.default_rng(0).permutation(len(y))[:len(y) // 2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = seminaive.KDB(k=3, smoothing="hls", random_state=0)
            model.fit(X.iloc[train], y[train])
        _, forest, _ = model._hdp_sampler_trees()
        if data == "segment":
            forest = forest[:SEGMENT_TREES]
        out.append((data, [(np.asarray(p, dtype=np.int64), np.asarray(ls, dtype=np.int64),
                            np.asarray(c, dtype=np.float64)) for p, ls, c in forest]))
    return out


def pack(name, forest):
    """The arrays of one set's trees, keyed ``name/...``."""
    return {f"{name}/parent": np.concatenate([p for p, _, _ in forest]),
            f"{name}/nodes": np.array([p.size for p, _, _ in forest], dtype=np.int64),
            f"{name}/level_start": np.concatenate([ls for _, ls, _ in forest]),
            f"{name}/levels": np.array([ls.size for _, ls, _ in forest], dtype=np.int64),
            f"{name}/leaves": np.concatenate([c.ravel() for _, _, c in forest]),
            f"{name}/values": np.array([c.shape[1] for _, _, c in forest], dtype=np.int64)}


def unpack(stored, name):
    """The trees of :func:`pack` back."""
    parent = np.split(stored[f"{name}/parent"], np.cumsum(stored[f"{name}/nodes"])[:-1])
    ls = np.split(stored[f"{name}/level_start"], np.cumsum(stored[f"{name}/levels"])[:-1])
    values = stored[f"{name}/values"]
    sizes = [(int(s[-1] - s[-2])) * int(v) for s, v in zip(ls, values, strict=True)]
    leaves = np.split(stored[f"{name}/leaves"], np.cumsum(sizes)[:-1])
    return [(p, s, c.reshape(-1, int(v)))
            for p, s, c, v in zip(parent, ls, leaves, values, strict=True)]


def main(path):
    from seminaive.kernels.hls import sparse_hls_forest

    arrays = {}
    for name, forest in trees():
        est, iterations, penalties = sparse_hls_forest(forest, return_iterations=True,
                                                       return_penalties=True)
        arrays.update(pack(name, forest))
        arrays[f"{name}/estimates"] = np.concatenate([e.ravel() for e in est])
        arrays[f"{name}/iterations"] = iterations
        arrays[f"{name}/penalties"] = penalties
    np.savez_compressed(path, **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
