"""Sphinx configuration of the seminaive documentation site.

Build: ``pip install ".[docs]" && sphinx-build -n -W --keep-going -b html docs docs/_build/html``
(CI builds it so: every cross-reference resolved, warnings as errors).  The gallery in
``examples/`` runs at build time.  The site loads nothing from the web: MathJax is copied
into it from the ``sphinx-mathjax-offline`` package (``tests/test_docs.py`` checks the built
pages).
"""

import importlib.metadata
import os
import re
import shutil
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.abspath(".."))

import seminaive  # noqa: E402

project = "seminaive"
author = "the seminaive developers"
copyright = "2026, the seminaive developers"
release = seminaive.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "sg_execution_times.rst",
                    "results_preamble.md", "results_peers_preamble.md",
                    "results_hdp_preamble.md", "results_hdp_large_preamble.md",
                    "Thumbs.db", ".DS_Store",
                    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                    "auto_examples/*.md5", "auto_examples/*.codeobj.json"]

# API reference: one generated page per public class and function
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# Docstrings write cardinalities as in the papers, |X_i| (values of X_i), |Y| (classes):
# render them as written rather than as reStructuredText substitutions
rst_prolog = "\n".join(f".. |{name}| replace:: \\|{name}\\|"
                        for name in ("X_i", "X_j", "X_c", "X_s", "Y", "X_p"))

# the generated results page has deep heading levels and long tables
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "plot_gallery": "True",
    # the page of execution times loads jQuery, DataTables and Bootstrap from CDNs
    "write_computation_times": False,
}

# MathJax served from the built site, not from a CDN: the combined TeX + CommonHTML
# component, its web fonts and the TeX extensions it may load on demand, copied from the
# MathJax 3 files the sphinx-mathjax-offline package ships (about 2.1 MB of its 24 MB)
mathjax_path = "mathjax/tex-chtml.js"
MATHJAX_FILES = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions")


def _mathjax_source():
    try:
        dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("the site serves MathJax from the sphinx-mathjax-offline package, "
                           'which is not installed: pip install ".[docs]"') from None
    return Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax"))


def _copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    source, target = _mathjax_source(), Path(app.outdir) / "_static" / "mathjax"
    for name in MATHJAX_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name, dirs_exist_ok=True)
        else:
            shutil.copy2(source / name, target / name)

html_theme = "pydata_sphinx_theme"
html_title = f"seminaive {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # the six top-level pages, with the short titles of index.rst's toctree, fit on one
    # line of the top bar at 1280 px, so none is folded into a "More" menu
    "header_links_before_dropdown": 6,
}
html_static_path = []


# A numpydoc type such as ``array-like of shape (n_rows, n_features_in_)`` is written into the
# page as reStructuredText, where a word ending in "_" is a hyperlink reference: escape that
# underscore in "name : type" lines before numpydoc renders them (types are never links).
_TYPE_LINE = re.compile(r"^(\s*[A-Za-z_*][\w, *]* : )(.*)$")
_TRAILING_UNDERSCORE = re.compile(r"\b([A-Za-z]\w*?)_(?=[\s),\]]|$)")


def _escape_type_underscores(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match and "`" not in match.group(2):
            lines[i] = match.group(1) + _TRAILING_UNDERSCORE.sub(r"\1\\_", match.group(2))


def _check_mathjax(app, config):
    missing = [name for name in MATHJAX_FILES if not (_mathjax_source() / name).exists()]
    if missing:
        raise RuntimeError(f"sphinx-mathjax-offline lacks {missing}: reinstall it")


def setup(app):
    # before numpydoc's own handler (priority 500) parses the sections
    app.connect("autodoc-process-docstring", _escape_type_underscores, priority=400)
    app.connect("config-inited", _check_mathjax)  # before minutes of building, not after
    app.connect("build-finished", _copy_mathjax)
