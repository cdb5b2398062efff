"""``import seminaive`` and ``from seminaive import AODE`` import nothing heavy beyond what
``import pandas, sklearn.base`` imports: numba is imported at the first fit that runs a
kernel (:mod:`seminaive.kernels._jit`), Dask, pyarrow's file readers, plotting and
progress bars where they are used."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: never imported by ``import seminaive`` (pyarrow itself is: pandas imports it)
HEAVY = ["numba", "llvmlite", "dask", "distributed", "matplotlib", "tqdm", "pyarrow.csv",
         "pyarrow.parquet", "pyarrow.dataset"]


def _modules_after(code):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SEMINAIVE_COMPILE_NOTICE="0")
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def _packages(modules):
    return {name.split(".")[0] for name in modules}


def test_import_seminaive_and_its_learners_import_nothing_beyond_the_base():
    base = _modules_after("import pandas, sklearn.base")
    assert "pandas" in base and "sklearn.base" in base
    for code in ("import seminaive", "from seminaive import AODE, NaiveBayes"):
        loaded = _modules_after(code)
        assert "seminaive.ande" in loaded and "seminaive.tables.wide" in loaded
        assert [name for name in HEAVY if name in loaded] == [], code
        assert _packages(loaded) - _packages(base) == {"seminaive"}, code


_FIT = textwrap.dedent("""
    import json, sys
    from seminaive import AODE, NaiveBayes
    from seminaive.datasets import make_random_bn
    from seminaive.tables import counting

    X, y, _ = make_random_bn(200, n_attributes=4, n_values=3, random_state=0)
    before = "numba" in sys.modules
    proba = NaiveBayes().fit(X, y).predict_proba(X)
    score = AODE().fit(X, y).score(X, y)
    print(json.dumps({"before": before, "after": "numba" in sys.modules,
                      "dispatcher": type(counting.regrid).__name__,
                      "rows": proba.sum(axis=1).round(12).tolist()[:3], "score": score}))
""")


def test_the_first_fit_imports_numba_and_works():
    """The check above can fail: numba is in ``sys.modules`` once a kernel ran.  (The
    compile cache is the user's, as in a user's second session: a few seconds.)"""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SEMINAIVE_COMPILE_NOTICE="0")
    done = subprocess.run([sys.executable, "-c", _FIT], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] is False and seen["after"] is True
    assert seen["dispatcher"] == "CPUDispatcher"  # the module's global, rebound
    assert seen["rows"] == [1.0, 1.0, 1.0] and 0.5 < seen["score"] <= 1.0


def _module_level_numba_imports(source):
    """Line numbers of the module-level (not function-level) imports of numba."""
    import ast

    found = []
    for node in ast.parse(source).body:
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        if any(name == "numba" or name.startswith("numba.") for name in names):
            found.append(node.lineno)
    return found


def test_no_module_imports_numba_at_module_level():
    """Kernel modules take ``njit``, ``prange`` and ``get_num_threads`` from
    ``seminaive.kernels._jit``; only the compile cache's set-up, imported by it when the
    first kernel runs, imports numba at its top."""
    package = ROOT / "seminaive"
    found = {}
    for path in sorted(package.rglob("*.py")):
        lines = _module_level_numba_imports(path.read_text(encoding="utf-8"))
        if lines:
            found[path.relative_to(package).as_posix()] = lines
    assert found.pop("kernels/_cache.py")  # the check can fail: it sees this one
    assert found == {}, ("import njit, prange, get_num_threads from seminaive.kernels._jit "
                         f"instead of numba in {found}")
    assert _module_level_numba_imports("import numba.core\ndef f():\n    import numba\n") == [1]
