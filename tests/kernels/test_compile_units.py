"""What a first use compiles: the randomised MDL discretisation and the HDP sampler compile
as few functions as they can, each once.

The helpers of :func:`seminaive.kernels.discretize.randomized_mdl_draws` and of
:func:`seminaive.kernels.hdp.sample_trees` are inlined (one call site each), a constant
argument never makes a literal specialisation of a kernel (``range_margins`` and
``_block_sum`` compiled twice for a literal 0 before), and a fit without a tolerance runs the
sampler compiled without its table-count output and convergence checks (None for both).
Counted in a fresh process with an empty compile cache (a kernel read from the cache does
not load the kernels it calls, so only a cold compile shows them)."""

import textwrap

from cold_process import cold_json

_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from numba.core import types
    from numba.core.dispatcher import Dispatcher
    from seminaive.kernels import discretize, hdp
    from seminaive.preprocessing import RandomizedMDLDiscretizer

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 2000)
    X = np.column_stack([y + rng.normal(scale=0.8, size=y.size), rng.normal(size=y.size)])
    RandomizedMDLDiscretizer(n_draws=5, random_state=0).fit(X, y)
    counts = [rng.poisson(lam, size=(8, 3)) for lam in (0.5, 4.0)]
    trees = [hdp.sparse_from_dense(c, np.array([2, 4]), 2)[1:] for c in counts]
    hdp.sparse_hdp_forest(trees, n_iter=20, burn_in=5, seeds=np.array([1, 2], np.uint64))
    found = {}
    for module in (discretize, hdp):
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.signatures:
                found[name] = [[str(a) for a in sig] for sig in obj.signatures]
                found[name + ":literal"] = any(isinstance(a, types.Literal)
                                               for sig in obj.signatures for a in sig)
    print(json.dumps(found))
""")


def test_first_use_compiles_each_kernel_once_and_its_helpers_inlined(tmp_path):
    found = cold_json(_SCRIPT, tmp_path)
    compiled = sorted(name for name in found if not name.endswith(":literal"))
    # the discretisation: one kernel and the pairwise block sum it calls; the sampler (no
    # far path needed: the counts fit the exact table), its window beyond the table and
    # the gamma variate; the exact table; the test's dense-to-sparse conversion
    assert compiled == ["_block_sum", "_dense_layout", "_log_gamma_variate", "_window_far",
                        "randomized_mdl_draws", "sample_trees", "sparse_from_dense",
                        "stirling_table"], compiled
    assert all(len(found[name]) == 1 for name in compiled), found
    assert not any(found[name + ":literal"] for name in compiled), found
    args = found["sample_trees"][0]
    assert args[9] == "none" and args[11] == "none", args  # t_flat, tol
