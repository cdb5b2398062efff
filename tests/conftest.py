"""Shared by every test folder.

The test folders mirror the package (``tests/kernels`` for ``seminaive/kernels`` and so on);
tests of the top-level modules and of contracts over the whole registry (every learner through
every route, the scikit-learn checks, the layers, the documentation) sit here at the top.
Helper modules that several folders import (``reference``, ``sparse_cases``, ``gaussian_cases``,
``hdp_cases``) and the stored fixtures (``data/``, ``oracle/``) sit here too; pytest puts this
folder on ``sys.path`` because this file is here.
"""
from pathlib import Path

#: the tests folder, for the stored fixtures in ``data/`` and ``oracle/``
TESTS = Path(__file__).resolve().parent
