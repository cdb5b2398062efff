"""The documentation promises: every name of the API reference has a numpydoc docstring
with its parameters and a doctested Examples section; no user-facing text cites the papers
by anything but authors and year."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _api_names():
    module = "seminaive"
    names = []
    for line in (ROOT / "docs" / "api.rst").read_text().splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
            continue
        m = re.match(r"   ([A-Za-z_][\w.]*)$", line)
        if m:
            names.append((module, m.group(1)))
    return names


def _resolve(module, name):
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _sections(doc):
    return set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, re.MULTILINE))


API = _api_names()


def test_api_reference_lists_every_public_learner():
    import seminaive
    from seminaive.persistence import ESTIMATORS

    listed = {name for module, name in API if module == "seminaive"}
    assert set(ESTIMATORS) <= listed
    assert set(seminaive.__all__) <= listed


@pytest.mark.parametrize(("module", "name"), API, ids=[f"{m}.{n}" for m, n in API])
def test_api_docstring_has_parameters_and_examples(module, name):
    obj = _resolve(module, name)
    doc = inspect.getdoc(obj)
    assert doc, f"{module}.{name} has no docstring"
    sections = _sections(doc)
    assert "Examples" in sections, f"{module}.{name}: no Examples section"
    assert ">>>" in doc.split("Examples\n--------", 1)[1]
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.name not in ("self", "cls")
                  and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    if params and not (inspect.isclass(obj) and issubclass(obj, Exception)):
        assert "Parameters" in sections, f"{module}.{name}: no Parameters section"
        block = doc.split("Parameters\n----------\n", 1)[1]
        for p in params:
            assert re.search(rf"^{p.name}\b[^\n]*(:|$)", block, re.MULTILINE) or \
                re.search(rf"(^|, ){p.name}(,|\s*:|$)", block, re.MULTILINE), \
                f"{module}.{name}: parameter {p.name} is not documented"


_CITATION = re.compile(r"seeds? ?0\d\d|issue #?\d{1,2}\b", re.IGNORECASE)


def test_user_facing_text_cites_papers_by_author_and_year():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "docs").rglob("*.rst")), *sorted((ROOT / "examples").glob("*.py")),
             *sorted((ROOT / "seminaive").rglob("*.py"))]
    offenders = []
    for path in files:
        if "_build" in path.parts or "generated" in path.parts or "auto_examples" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _CITATION.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders[:20])


def test_cli_help_cites_papers_by_author_and_year():
    import subprocess
    import sys

    for args in ([], ["compare"], ["report"], ["demo"]):
        out = subprocess.run([sys.executable, "-m", "seminaive.cli", *args, "--help"],
                             capture_output=True, text=True, cwd=ROOT).stdout
        assert out and not _CITATION.search(out), args
