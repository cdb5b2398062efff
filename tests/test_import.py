"""``import seminaive`` imports the estimators of the AnDE family and the engine only: the
learner families on first use of one of their names, and Dask, plotting, progress bars,
file reading, the experiments and the command line where they are used."""

import json
import os
import subprocess
import sys
from pathlib import Path

import seminaive
from seminaive import persistence

ROOT = Path(__file__).resolve().parents[1]

NOT_AT_IMPORT = ["dask", "distributed", "matplotlib", "pyarrow.csv", "pyarrow.parquet", "tqdm",
                 "seminaive.cli", "seminaive.dask", "seminaive.evaluation",
                 "seminaive.streaming", "seminaive.structure"]


def _modules_after(code):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_import_seminaive_leaves_the_heavy_and_optional_modules_out():
    loaded = _modules_after("import seminaive")
    assert "seminaive.ande" in loaded  # the check itself can fail: the package did load
    assert not [name for name in NOT_AT_IMPORT if name in loaded]


def test_a_family_name_imports_its_family_on_first_use():
    loaded = _modules_after("import seminaive\nassert seminaive.KDB.__name__ == 'KDB'")
    assert "seminaive.structure.kdb" in loaded
    assert "seminaive.evaluation" not in loaded


def test_the_lazy_names_are_the_families_exports():
    from seminaive import selection, structure, weighting

    assert set(seminaive._LAZY) == set(structure.__all__ + weighting.__all__
                                       + selection.__all__)
    for name in seminaive.__all__:
        assert getattr(seminaive, name) is not None
    assert set(seminaive.__all__) <= set(dir(seminaive))


def test_the_lazy_names_are_read_from_the_families_not_listed_twice():
    """``seminaive._FAMILIES`` comes from the families' ``__all__`` (read from their
    sources, not imported): no second list of the learners to keep in step."""
    source = (ROOT / "seminaive" / "__init__.py").read_text(encoding="utf-8")
    assert '"KDB"' not in source and '"WAODE"' not in source
    assert seminaive._family_exports() == seminaive._FAMILIES
    assert "KDB" in seminaive._FAMILIES["structure"]


def test_model_file_registry_loads_the_families_on_use():
    loaded = _modules_after(
        "from seminaive import persistence\n"
        "assert persistence.ESTIMATORS['SKDB'].__name__ == 'SKDB'")
    assert "seminaive.structure.skdb" in loaded
    names = set(persistence.ESTIMATORS)
    assert {"NaiveBayes", "AODE", "KDB", "ESKDB", "WAODE", "SAODE"} <= names
    assert persistence.ESTIMATORS.get("NoSuchLearner") is None
    assert "NoSuchLearner" not in persistence.ESTIMATORS
