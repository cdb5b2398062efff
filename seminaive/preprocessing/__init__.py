"""Preprocessing: validation of user input, the attribute encoder and the discretisers.

:class:`AttributeEncoder` turns a DataFrame or array of nominal and numeric columns into the
attribute codes every learner counts; numeric columns are discretised by
:class:`MDLDiscretizer` (Fayyad & Irani 1993, supervised), :class:`RandomizedMDLDiscretizer` (its
randomised variant), :class:`EqualFrequencyDiscretizer`
or any scikit-learn transformer.
"""

from .discretize import EqualFrequencyDiscretizer, MDLDiscretizer, RandomizedMDLDiscretizer
from .encoder import AttributeEncoder
from .validation import check_sample_weight, check_target, encode_labels

__all__ = ["AttributeEncoder", "EqualFrequencyDiscretizer", "MDLDiscretizer",
           "RandomizedMDLDiscretizer", "check_sample_weight", "check_target", "encode_labels"]
