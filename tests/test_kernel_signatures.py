"""No function of the package takes more than 12 positional parameters: kernels take named
tuples (bundles such as :class:`seminaive.tables.scoring.ScoringTables`,
:class:`seminaive.tables.TableLayout`, :class:`seminaive.kernels.smoothing.Smoothing`)
rather than long lists of arrays, and Python helpers take keyword-only arguments."""

import ast
from pathlib import Path

import seminaive

MAX_POSITIONAL = 12
PACKAGE = Path(seminaive.__file__).resolve().parent



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
