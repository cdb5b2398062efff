"""Structure learners: semi-naive Bayesian classifiers that learn a single model.

Where the AnDE family averages many fixed models, these learners choose one structure from
the training data, which attributes each attribute depends on besides the class:

* :class:`TAN` -- tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997);
* :class:`SPTAN` -- super-parent TAN, leave-one-out greedy search (Keogh & Pazzani 1999);
* :class:`KDB` -- k-dependence Bayesian classifier, ``KDB(k=...)`` (Sahami 1996);
* :class:`SKDB` -- selective KDB: k and the attributes chosen by leave-one-out (Martínez,
  Webb, Chen & Zaidi 2016);
* :class:`ESKDB` -- an ensemble of selective KDBs on perturbed attribute orders with
  hierarchical Dirichlet process estimates (Zhang, Petitjean & Buntine 2020);
* :class:`LBR` -- lazy Bayesian rules (Zheng & Webb 2000);
* :class:`HNB` -- hidden naive Bayes (Jiang, Zhang & Cai 2009; Weka's HNB).

Webb, Boughton & Wang (2005) compare AODE with LBR and SP-TAN.

All count into :class:`seminaive.tables.FrequencyTable` (pairs; the larger families of KDB,
SKDB and ESKDB in count trees of the parent values that occur, filled by a second pass) and
share AnDE's input
handling, missing-value modes, smoothing, persistence and scikit-learn API.  The estimates,
min_count and missing-value modes are documented on each class.
"""

from .eskdb import ESKDB
from .hnb import HNB
from .kdb import KDB
from .lbr import LBR
from .skdb import SKDB
from .sptan import SPTAN
from .tan import TAN

__all__ = ["ESKDB", "HNB", "KDB", "LBR", "SKDB", "SPTAN", "TAN"]
