"""seminaive: semi-naive Bayesian classification, the AnDE family on one frequency-table engine.

Learners: :class:`NaiveBayes` (A0DE), :class:`AODE` (A1DE), :class:`A2DE`, :class:`A3DE` and
:class:`AnDE` for any n (Webb et al. 2012).

The learner families (:mod:`seminaive.structure`, :mod:`seminaive.weighting`,
:mod:`seminaive.selection`) are imported on first use of one of their names, e.g.
``seminaive.KDB``; the command line, the experiments, Dask, plotting and file reading are
imported by the functions that use them.
"""

import importlib

# numba is imported at the first fit or predict that runs a kernel (seminaive.kernels._jit)
from . import kernels  # noqa: F401
from ._version import __version__ as __version__
from .ande import A2DE, A3DE, AODE, AnDE, NaiveBayes
from .exceptions import (
    InputError,
    ModelFileError,
    PartialFitWarning,
    SeminaiveError,
    TableTooLargeError,
)
from .persistence import load_model as load
from .preprocessing.encoder import AttributeEncoder
from .tables import FrequencyTable, estimate_table_bytes

#: the learner families, imported on first use of one of their names (``__getattr__``)
_FAMILY_MODULES = ("structure", "weighting", "selection")


def _family_exports():
    """The public names of each learner family, read from the ``__all__`` of its
    ``__init__.py`` without importing it: exporting a learner from its family is all it
    takes to make ``seminaive.<Name>`` work."""
    import ast
    from pathlib import Path

    here = Path(__file__).parent
    families = {}
    for family in _FAMILY_MODULES:
        tree = ast.parse((here / family / "__init__.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if (isinstance(node, ast.Assign)
                    and any(getattr(t, "id", None) == "__all__" for t in node.targets)):
                families[family] = tuple(ast.literal_eval(node.value))
    return families


#: the public names of each learner family (read from the families' ``__all__``)
_FAMILIES = _family_exports()
_LAZY = {name: family for family, names in _FAMILIES.items() for name in names}

__all__ = [
    "A2DE", "A3DE", "AODE", "AnDE", "NaiveBayes", "AttributeEncoder", "FrequencyTable",
    "estimate_table_bytes", "load", "InputError", "ModelFileError", "PartialFitWarning",
    "SeminaiveError",
    "TableTooLargeError",
] + [name for names in _FAMILIES.values() for name in names]


def __getattr__(name):
    """A learner of a family, or the family module itself, imported on first use."""
    if name in _FAMILIES:
        return importlib.import_module(f".{name}", __name__)
    family = _LAZY.get(name)
    if family is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{family}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_FAMILIES))
