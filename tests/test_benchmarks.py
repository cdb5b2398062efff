"""The benchmarks measure the library of the checkout they are in.

``python benchmarks/X.py`` puts ``benchmarks/``, not the repository root, first on
``sys.path``: without ``benchmarks/_sections.py``'s :func:`library_first`, ``import
seminaive`` in a benchmark finds whatever copy is installed (an editable install of another
checkout, say).  Every script that imports ``seminaive`` must import ``_sections`` at its
top, before any import of ``seminaive``; a fresh-process worker imports the library named
by ``SEMINAIVE_BENCH_LIBRARY`` instead.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.name != "_sections.py")


def _imports(tree, name):
    """Line numbers of the import statements of ``name`` (or of its submodules)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        else:
            continue
        if any(m == name or m.startswith(name + ".") for m in modules):
            lines.append(node.lineno)
    return lines


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 20


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_sections_is_imported_before_seminaive(script):
    tree = ast.parse(script.read_text())
    seminaive = _imports(tree, "seminaive")
    if not seminaive:
        return
    # at the top of the module (not in a function: the import must run before any other)
    top = [line for line in _imports(tree, "_sections")
           if any(node.lineno == line for node in tree.body)]
    assert top, f"{script.name} imports seminaive but not _sections at its top"
    assert min(top) < min(seminaive), (
        f"{script.name} imports seminaive (line {min(seminaive)}) before _sections "
        f"(line {min(top)})")


def test_sections_puts_the_library_first_before_importing_seminaive():
    tree = ast.parse((BENCHMARKS / "_sections.py").read_text())
    call = [node.lineno for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "library_first"]
    top_level_seminaive = [line for line in _imports(tree, "seminaive")
                           if any(node.lineno == line for node in tree.body)]
    assert call, "_sections.py does not call library_first() at its top"
    assert all(line > call[0] for line in top_level_seminaive)


@pytest.fixture
def other_install(tmp_path):
    """A folder holding another ``seminaive`` (it exits with status 97 on import), standing
    for an installed copy of another checkout."""
    package = tmp_path / "other" / "seminaive"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "import sys\nprint('the other seminaive')\nsys.exit(97)\n")
    return package.parent


def _help(tmp_path, **variables):
    """``python benchmarks/bench_fit_predict.py --help`` (it imports seminaive at its top),
    from another folder, with the environment ``variables`` set (and no
    SEMINAIVE_BENCH_LIBRARY otherwise)."""
    env = {k: v for k, v in os.environ.items() if k != "SEMINAIVE_BENCH_LIBRARY"}
    return subprocess.run([sys.executable, str(BENCHMARKS / "bench_fit_predict.py"), "--help"],
                          env=env | variables, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)


def test_a_script_imports_its_own_checkout(other_install, tmp_path):
    # the other copy comes first after the script's folder, as an installed one would
    done = _help(tmp_path, PYTHONPATH=str(other_install))
    assert "the other seminaive" not in done.stdout
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_worker_imports_the_library_it_is_given(other_install, tmp_path):
    done = _help(tmp_path, PYTHONPATH=str(other_install),
                 SEMINAIVE_BENCH_LIBRARY=str(other_install))
    assert "the other seminaive" in done.stdout
    assert done.returncode == 97
