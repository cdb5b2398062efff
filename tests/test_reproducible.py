"""The suite tests the same inputs on every run: the property tests are derandomised.

The ``ci`` hypothesis profile (``conftest.py``) is loaded before any test module is imported,
so a test's own ``@settings`` (more examples, a fixture health check) keeps its
derandomisation.  A test module that set its own profile after another had been imported, or
a ``@settings`` created before the profile was loaded, would draw new examples on every run:
a failure in CI that no earlier run saw and no later run repeats.
"""

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import settings

TESTS = Path(__file__).resolve().parent


def _property_tests():
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if "from hypothesis import" not in text or path.name == Path(__file__).name:
            continue
        name = ".".join(path.relative_to(TESTS).with_suffix("").parts)
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("test_") and hasattr(value, "hypothesis"):
                yield name, attr, value


@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci",
                    reason="another hypothesis profile was asked for")
def test_every_property_test_is_derandomised_under_the_ci_profile():
    found = list(_property_tests())
    assert len(found) >= 4  # the mixed-data, incremental, symmetric and model-file tests
    assert settings.default.derandomize
    for name, attr, test in found:
        own = getattr(test, "_hypothesis_internal_use_settings", settings.default)
        assert own.derandomize, f"{name}::{attr} draws new examples on every run"
