"""Signatures of the package's functions and kernels.

* No function of the package takes more than 12 positional parameters: kernels take named
  tuples (bundles such as :class:`seminaive.tables.scoring.ScoringTables`,
  :class:`seminaive.tables.TableLayout`, :class:`seminaive.kernels.smoothing.Smoothing`)
  rather than long lists of arrays, and Python helpers take keyword-only arguments.
* A user's first hour (fit, a one-row predict, a small ``partial_fit``) compiles one
  specialisation of each kernel it calls: numba compiles a kernel once per distinct tuple
  of argument types, and a literal integer argument (``Literal[int](0)`` rather than
  ``int64``), a one-row matrix (both C- and F-contiguous: typed C) or an unsigned loop
  index each cost another compilation, seconds of it at first use.
"""

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import seminaive

MAX_POSITIONAL = 12
PACKAGE = Path(seminaive.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[1]



def _positional(node):
    args = node.args
    return len(args.posonlyargs) + len(args.args)


def _long_signatures():
    """``{"module.py::function": number of positional parameters}`` over the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                count = _positional(node)
                if count > MAX_POSITIONAL:
                    name = getattr(node, "name", "<lambda>")
                    found[f"{path.relative_to(PACKAGE).as_posix()}::{name}"] = count
    return found


def test_no_function_takes_more_than_12_positional_parameters():
    long = _long_signatures()
    assert not long, ("functions with more than 12 positional parameters (pass a bundle, a "
                      "named tuple, or make them keyword-only): "
                      + ", ".join(f"{name} ({n})" for name, n in sorted(long.items())))


def test_the_walk_finds_a_long_signature(tmp_path):
    """The check can fail: a function of 13 positional parameters is found, keyword-only
    ones are not counted."""
    tree = ast.parse("def f(a, b, c, d, e, f, g, h, i, j, k, l, m): pass\n"
                     "def g(a, b, *, c, d, e, f, g, h, i, j, k, l, m, n): pass\n")
    counts = [_positional(node) for node in tree.body]
    assert counts == [13, 2]


# --------------------------------------------------------------------------------------------
# One specialisation per kernel on the first-hour routes (in a fresh process)
# --------------------------------------------------------------------------------------------

#: the modules whose kernels are counted, and (``module: [kernels]``) the kernels that call
#: others: these are compiled in the process rather than read from the compile cache (a
#: kernel read from the cache brings the code of the kernels it calls with it, which are
#: then never typed), so that every kernel they call is typed there, as with an empty cache
_CALLERS = {
    "seminaive.structure._lbr_kernels": ["loo_naive_bayes_wrong", "lbr_scores", "_loo_wrong"],
    "seminaive.weighting._kernels": ["loo_log_joint", "mixture_statistics"],
    "seminaive.selection._kernels.subsumption": ["lazy_subsumption", "eager_subsumption"],
    "seminaive.selection._kernels.nested": ["nested_loo_loss_nominal", "_level_tile",
                                            "nested_loo_loss"],
    # the randomised MDL: one kernel (its margins and pairwise sums inlined) and _block_sum
    "seminaive.kernels.discretize": ["randomized_mdl_draws"],
}

_FIRST_HOUR = textwrap.dedent("""
    import importlib, json, sys, warnings
    import numpy as np
    import pandas as pd
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher
    import seminaive
    from seminaive.datasets import load_kr_vs_kp, make_random_bn
    from seminaive.kernels import _jit
    from seminaive.preprocessing import RandomizedMDLDiscretizer

    warnings.simplefilter("ignore")
    callers = json.loads(sys.argv[1])
    _jit.load()
    modules = [importlib.import_module(name) for name in callers]
    for module in modules:
        for name in callers[module.__name__]:
            getattr(module, name)._cache = NullCache()  # compiled here: its calls typed here

    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 13)[:240]
    nominal = X.iloc[rows, :8].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    codes, yb, _ = make_random_bn(300, n_attributes=5, n_values=3, random_state=0)
    mixed = pd.DataFrame({f"a{i}": pd.Categorical(np.array(list("abc"))[codes[:, i]])
                          for i in range(3)})
    for i in (3, 4):
        mixed[f"x{i}"] = codes[:, i] + np.random.default_rng(i).normal(0.0, 0.7, len(yb))
    mixed = mixed, pd.Series(yb)

    def first_hour(model, data):
        X, y = data
        model.fit(X, y)
        model.predict_proba(X.iloc[:1])
        model.predict_proba(X.iloc[:40])
        model.partial_fit(X.iloc[:5], y.iloc[:5])
        model.partial_fit(X.iloc[[7]], y.iloc[[7]])
        model.predict_proba(X.iloc[[3]])

    first_hour(seminaive.MAPLMG(numeric="gaussian"), mixed)
    first_hour(seminaive.MAPLMD(numeric="gaussian", loo_cache_bytes=0), mixed)
    first_hour(seminaive.BMAAODE(), mixed)
    if sys.argv[2] == "all":
        # ESKDB's discretiser (the learner itself is left to its own tests: slow to fit)
        RandomizedMDLDiscretizer(n_draws=3, random_state=0).fit(
            mixed[0][["x3", "x4"]].to_numpy(), mixed[1].to_numpy())
        first_hour(seminaive.LBR(), nominal)
        for variant in ("lazy", "eager"):
            first_hour(seminaive.AODESR(variant, threshold=5), nominal)
        first_hour(seminaive.SelectiveAnDE(n=2), nominal)
        first_hour(seminaive.SelectiveAnDE(n=2, numeric="gaussian"), mixed)
    print(json.dumps({f"{module.__name__}::{name}": [str(sig) for sig in obj.signatures]
                      for module in modules for name, obj in vars(module).items()
                      if isinstance(obj, Dispatcher) and obj.signatures
                      and obj.py_func.__module__ == module.__name__}))
""")


def _first_hour_signatures(callers, group):
    """``{"module::kernel": [its signatures]}`` of the kernels of the modules of
    ``callers`` that the first-hour routes of ``group`` used, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _FIRST_HOUR, json.dumps(callers), group],
                          capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "SEMINAIVE_COMPILE_NOTICE": "0",
                               "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_weighting_kernels_called_from_python_compile_once():
    """MAPLMG and MAPLMD with Gaussian children (the leave-one-out joints cached, then
    streamed) and BMAAODE, fitted and updated by ``partial_fit`` of five rows and of one
    row, in a fresh process: one signature of each leave-one-out kernel they call from
    Python (a one-row chunk copied into Fortran-ordered codes of two rows, as the fit's
    chunks), and none of the pseudo-counts kernel, which BMAAODE computes in Python (at
    f770198: a second specialisation of both for C-ordered codes, and two of the
    pseudo-counts, for an integer and a float number of cells)."""
    signatures = _first_hour_signatures(
        {"seminaive.weighting._kernels": [], "seminaive.kernels.smoothing": []}, "weighting")
    key = "seminaive.weighting._kernels::"
    assert len(signatures[key + "loo_log_joint"]) == 1, signatures[key + "loo_log_joint"]
    assert len(signatures[key + "mixture_statistics"]) == 1, signatures[
        key + "mixture_statistics"]
    assert "'F'" in signatures[key + "loo_log_joint"][0]
    assert "seminaive.kernels.smoothing::pseudo_counts" not in signatures


@pytest.mark.slow
def test_first_hour_compiles_each_kernel_once():
    """LBR, MAPLMG / MAPLMD (Gaussian children; the leave-one-out joints cached, then
    streamed), BMAAODE, AODESR (lazy and eager) and SelectiveAnDE (nominal, and with
    Gaussian children), fitted, asked for one row and updated by ``partial_fit`` of five
    rows and of one row, and ESKDB's randomised MDL discretiser, in a fresh process: every
    kernel of their modules that was used has one signature (typed integer arguments
    rather than literals, unsigned ``prange`` indices made int64, one-row chunks copied
    into Fortran-ordered codes).  The kernels that call others are compiled in the
    process, as with an empty cache (at f770198: a second signature of twelve kernels)."""
    signatures = _first_hour_signatures(_CALLERS, "all")
    used = {name.split("::")[1] for name in signatures}
    # the routes reach the kernels of every fix
    assert {"_count_subset", "_local_scores", "_loo_wrong", "lbr_scores", "_loo_block",
            "_gaussian_block", "loo_log_joint", "mixture_statistics", "_tile_snapshot",
            "_snapshot", "_row_resolution_order", "_block_sum",
            "randomized_mdl_draws"} <= used
    twice = {name: sigs for name, sigs in signatures.items() if len(sigs) > 1}
    assert not twice, json.dumps(twice, indent=1)
