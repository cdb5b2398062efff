"""Shared by every test folder.

The test folders mirror the package (``tests/kernels`` for ``seminaive/kernels`` and so on);
tests of the top-level modules and of contracts over the whole registry (every learner through
every route, the scikit-learn checks, the layers, the documentation) sit here at the top.
Helper modules that several folders import (``reference``, ``sparse_cases``, ``gaussian_cases``,
``hdp_cases``) and the stored fixtures (``data/``, ``oracle/``) sit here too; pytest puts this
folder on ``sys.path`` because this file is here.

The property tests (hypothesis) run under a profile chosen here, before any test module is
imported, so that every ``@settings`` in the tests inherits it: ``ci`` (the default) draws
few examples and derandomises them, so that two runs of the suite test the same inputs;
``HYPOTHESIS_PROFILE=thorough`` draws many more, new ones on every run, to search for
inputs no earlier run reached.
"""
import os
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=300, deadline=None, derandomize=False,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: the tests folder, for the stored fixtures in ``data/`` and ``oracle/``
TESTS = Path(__file__).resolve().parent
