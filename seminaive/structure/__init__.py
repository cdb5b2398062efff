"""Single-model structure learners on the shared engine (issue 4).

* :class:`TAN` -- tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997);
* :class:`SPTAN` -- super-parent TAN, leave-one-out greedy search (Keogh & Pazzani 1999);
* :class:`KDB` -- k-dependence Bayesian classifier, ``KDB(k=...)`` (Sahami 1996);
* :class:`LBR` -- lazy Bayesian rules (Zheng & Webb 2000);
* :class:`HNB` -- hidden naive Bayes (Jiang, Zhang & Cai 2009; Weka's HNB).

All count into :class:`seminaive.tables.FrequencyTable` (pairs; KDB's larger families in a
:class:`seminaive.tables.CombinationTable` filled by a second pass) and share AnDE's input
handling, missing-value modes, smoothing, persistence and scikit-learn API.
"""

from .hnb import HNB
from .kdb import KDB
from .lbr import LBR
from .sptan import SPTAN
from .tan import TAN

__all__ = ["HNB", "KDB", "LBR", "SPTAN", "TAN"]
