"""The documentation promises: every name of the API reference has a numpydoc docstring
with its parameters and a doctested Examples section; no user-facing text cites the papers
by anything but authors and year; the built site loads no script, stylesheet, font or image
from the web (formulas render offline)."""

import importlib
import importlib.metadata
import inspect
import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
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


class _ResourceParser(HTMLParser):
    """The resources a page loads by itself: scripts, stylesheets, icons, fonts, images,
    frames (links a reader follows, ``<a href>``, are not loaded)."""

    LOADED = {"script": "src", "img": "src", "iframe": "src", "source": "src",
              "embed": "src", "audio": "src", "video": "src", "object": "data"}

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("href") and (attrs.get("rel") or "") != "canonical":
            self.urls.append(attrs["href"])
        elif tag in self.LOADED and attrs.get(self.LOADED[tag]):
            self.urls.append(attrs[self.LOADED[tag]])


def loaded_resources(html_dir):
    """``{page: [url, ...]}`` of every resource the built pages load from elsewhere than the
    site (an absolute http(s) or protocol-relative address), and of every local script or
    stylesheet they name that is missing from the site."""
    html_dir = Path(html_dir)
    found = {}
    for page in sorted(html_dir.rglob("*.html")):
        if page.relative_to(html_dir).parts[0] == "_static":  # a theme's template fragments
            continue
        parser = _ResourceParser()
        parser.feed(page.read_text(encoding="utf-8"))
        bad = []
        for url in parser.urls:
            if re.match(r"^(https?:)?//", url, re.IGNORECASE):
                bad.append(url)
            elif not url.startswith(("data:", "#")):
                local = (page.parent / url.split("?", 1)[0].split("#", 1)[0]).resolve()
                if not local.exists():
                    bad.append(f"missing: {url}")
        if bad:
            found[str(page.relative_to(html_dir))] = bad
    return found


def test_resource_check_finds_web_scripts_and_missing_files(tmp_path):
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.example.org/x.js"></script>'
        '<link rel="stylesheet" href="//cdn.example.org/x.css">'
        '<script src="_static/here.js"></script><script src="_static/gone.js"></script>'
        '<a href="https://example.org/">a link is not loaded</a>')
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "here.js").write_text("")
    assert loaded_resources(tmp_path) == {"a.html": [
        "https://cdn.example.org/x.js", "//cdn.example.org/x.css", "missing: _static/gone.js"]}


def test_formulas_render_from_the_site_itself(tmp_path):
    """A one-page site with a formula, built with the MathJax settings of docs/conf.py, loads
    MathJax from its own _static folder and nothing from the web."""
    pytest.importorskip("sphinx")
    pytest.importorskip("pydata_sphinx_theme")
    try:
        importlib.metadata.distribution("sphinx-mathjax-offline")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the docs extra (sphinx-mathjax-offline) is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(textwrap.dedent(f"""\
        import runpy
        _docs = runpy.run_path({str(ROOT / "docs" / "conf.py")!r})
        extensions = ["sphinx.ext.mathjax"]
        html_theme = _docs["html_theme"]
        mathjax_path = _docs["mathjax_path"]

        def setup(app):
            app.connect("config-inited", _docs["_check_mathjax"])
            app.connect("build-finished", _docs["_copy_mathjax"])
        """))
    (src / "index.rst").write_text("Title\n=====\n\n.. math::\n\n   \\hat P(y, x) = "
                                   "\\frac{1}{|S|} \\sum_{s \\in S} P(y, x_s)\n")
    out = tmp_path / "html"
    result = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-n", "-W", "-b", "html",
                             str(src), str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    page = (out / "index.html").read_text()
    assert '_static/mathjax/tex-chtml.js' in page
    assert "math notranslate" in page
    assert (out / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
            / "MathJax_Main-Regular.woff").exists()
    assert loaded_resources(out) == {}


@pytest.mark.skipif(not os.environ.get("SEMINAIVE_DOCS_HTML"),
                    reason="set SEMINAIVE_DOCS_HTML to a built site (.ci/run does)")
def test_built_site_loads_nothing_from_the_web():
    html_dir = Path(os.environ["SEMINAIVE_DOCS_HTML"])
    assert (html_dir / "index.html").exists(), html_dir
    offenders = loaded_resources(html_dir)
    assert not offenders, "\n".join(f"{page}: {urls}" for page, urls in offenders.items())
