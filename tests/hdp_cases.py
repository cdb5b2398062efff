"""Cases of ``tests/kernels/test_hdp.py::test_sampler_equals_the_stored_outputs``: trees whose
estimates and final table counts the sampler of commit f8440f9 (before the sampler was made
faster) wrote to ``tests/data/hdp_reference.npz`` (``python tests/hdp_cases.py OUT.npz``
at that commit).

Beside the trees of ``tests/sparse_cases.py`` (small counts, every value inside the exact
Stirling table), these reach the other paths of the sampler: counts beyond the exact table
(cut to a few dozen here, so that the closed forms, Newton's identities and the saddle
point are all used, at the leaves and at inner nodes), leaves whose values mostly have 0 or
1 row next to values with hundreds, deep trees, and a single-level tree.
"""

import sys

import numpy as np

from seminaive.kernels import hdp

TYINGS = ("none", "parent", "level", "single")


def trees():
    """(name, dims, counts) of dense trees (``counts`` of shape (prod dims, n_values))."""
    rng = np.random.default_rng(2026)
    out = []
    # large counts: many values beyond a cut exact table, at leaves and inner nodes
    big = rng.poisson(rng.choice([1.0, 40.0, 400.0], size=(12, 1)), size=(12, 4))
    big[rng.random((12, 4)) < 0.2] = 0
    out.append(("big", [3, 4], big))
    # mostly 0 or 1 row per value, a few large cells (the shape of a high-k KDB leaf level)
    sparse = (rng.random((2 * 3 * 4 * 3, 6)) < 0.3).astype(np.int64)
    sparse[rng.random(sparse.shape) < 0.03] = 150
    sparse[: 12] = 0
    out.append(("leafy", [2, 3, 4, 3], sparse))
    # one level only: the root
    out.append(("root", [], rng.poisson(90.0, size=(1, 5))))
    # deep, small
    out.append(("deep", [2, 2, 2, 2, 2], rng.poisson(0.8, size=(32, 3))))
    return out


def cases():
    """(name, keyword arguments of :func:`run`)."""
    out = []
    for n_exact in (24, 2048):
        for tying in TYINGS:
            out.append((f"exact{n_exact}-{tying}",
                        {"n_exact": n_exact, "tying": tying, "n_iter": 80, "burn_in": 10,
                         "sample_conc": True, "conc": 2.0}))
        out.append((f"exact{n_exact}-fixed",
                    {"n_exact": n_exact, "tying": "level", "n_iter": 40, "burn_in": 5,
                     "sample_conc": False, "conc": 3.5}))
        # high concentrations: table counts in the hundreds (the saddle point)
        for sample_conc in (False, True):
            out.append((f"exact{n_exact}-high-{sample_conc}",
                        {"n_exact": n_exact, "tying": "parent", "n_iter": 40, "burn_in": 5,
                         "sample_conc": sample_conc, "conc": 60.0}))
    return out


def run(n_exact, tying, n_iter, burn_in, sample_conc, conc):
    """Estimates and final table counts of every tree of :func:`trees` (dense layout)."""
    table = hdp.stirling_table(n_exact)
    result = {}
    for j, (name, dims, counts) in enumerate(trees()):
        dims = np.asarray(dims, dtype=np.int64)
        levels = hdp.tree_levels(dims)
        n_values = counts.shape[1]
        est = np.empty((int(levels.sum()), n_values))
        t_out = np.empty((int(levels.sum()), n_values), dtype=np.int64)
        settings = hdp.SamplerSettings(n_iter, burn_in, hdp.TYING.index(tying), sample_conc,
                                       conc)
        hdp.sample_tree(np.asarray(counts, dtype=np.int64), dims, dims.size, n_values, settings,
                        np.uint64(101 + 7 * j), hdp.StirlingCache(table, n_exact, hdp._ZETA),
                        est, t_out)
        result[f"{name}-est"] = est
        result[f"{name}-t"] = t_out
    return result


def main(path):
    out = {}
    for name, kwargs in cases():
        for key, value in run(**kwargs).items():
            out[f"{name}|{key}"] = value
    np.savez_compressed(path, **out)
    return len(out)


if __name__ == "__main__":
    print(main(sys.argv[1]), "arrays")
