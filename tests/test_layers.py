"""The package's import graph: no cycle, function-level imports included, and the layers of
``pyproject.toml`` kept (the same contracts ``lint-imports`` checks in CI)."""

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def graph():
    # grimp reads every import statement of every module, including those inside functions
    return grimp.build_graph("seminaive", include_external_packages=False)


def _cycles(graph):
    """Every import edge (a -> b) for which b also reaches a: the edges that close a cycle."""
    closing = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if importer == imported:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                closing.append((importer, imported, back))
    return closing


def test_no_import_cycle(graph):
    cycles = _cycles(graph)
    assert not cycles, "import cycles (edge, and the chain that leads back):\n" + "\n".join(
        f"{a} -> {b}; back: {' -> '.join(chain)}" for a, b, chain in cycles[:20])


def test_cycle_detector_sees_function_level_imports(tmp_path, monkeypatch):
    """The check above would catch a cycle hidden in a function-level import."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from . import high\n    return high\n")
    (pkg / "high.py").write_text("from . import low\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _cycles(grimp.build_graph("cyclepkg", cache_dir=None))
    assert {(a, b) for a, b, _ in found} == {("cyclepkg.low", "cyclepkg.high"),
                                             ("cyclepkg.high", "cyclepkg.low")}


def test_import_contracts_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed in this environment")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_base_does_not_import_learners(graph):
    """The estimator base stands below every learner family and the AnDE module."""
    above = ("seminaive.ande", "seminaive.structure", "seminaive.weighting",
             "seminaive.selection", "seminaive.evaluation", "seminaive.cli")
    for module in ("seminaive.base", "seminaive.streaming", "seminaive.dask",
                   "seminaive.persistence", "seminaive.tables"):
        reached = graph.find_upstream_modules(module)
        bad = sorted(m for m in reached if m.startswith(above))
        assert not bad, f"{module} imports (directly or not) {bad}"
