"""seminaive: semi-naive Bayesian classification, the AnDE family on one frequency-table engine.

Learners: :class:`NaiveBayes` (A0DE), :class:`AODE` (A1DE), :class:`A2DE`, :class:`A3DE` and
:class:`AnDE` for any n (Webb et al. 2012).
"""

from .ande import A2DE, A3DE, AODE, AnDE, NaiveBayes
from .exceptions import InputError, ModelFileError, SeminaiveError, TableTooLargeError
from .persistence import load_model as load
from .preprocessing.encoder import AttributeEncoder
from .tables import FrequencyTable, estimate_table_bytes

__version__ = "0.1.0"

__all__ = [
    "A2DE", "A3DE", "AODE", "AnDE", "NaiveBayes", "AttributeEncoder", "FrequencyTable",
    "estimate_table_bytes", "load", "InputError", "ModelFileError", "SeminaiveError",
    "TableTooLargeError",
]
