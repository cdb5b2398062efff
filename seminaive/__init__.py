"""seminaive: semi-naive Bayesian classification, the AnDE family on one frequency-table engine.

Learners: :class:`NaiveBayes` (A0DE), :class:`AODE` (A1DE), :class:`A2DE`, :class:`A3DE` and
:class:`AnDE` for any n (Webb et al. 2012).
"""

# kernels first: its compile cache is set up before any kernel of the package is decorated
from . import kernels, selection, structure, weighting  # noqa: F401
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
from .selection import *  # noqa: F403  (AODESR, FSSAODE, BSEAODE, ASAODE, SAODE, SWAODE, ...)
from .structure import *  # noqa: F403  (TAN, SPTAN, KDB, SKDB, LBR, HNB)
from .tables import FrequencyTable, estimate_table_bytes
from .weighting import *  # noqa: F403  (WAODE, MAPLMD, MAPLMG, BMAAODE)

__all__ = [
    "A2DE", "A3DE", "AODE", "AnDE", "NaiveBayes", "AttributeEncoder", "FrequencyTable",
    "estimate_table_bytes", "load", "InputError", "ModelFileError", "PartialFitWarning",
    "SeminaiveError",
    "TableTooLargeError",
] + structure.__all__ + weighting.__all__ + selection.__all__
