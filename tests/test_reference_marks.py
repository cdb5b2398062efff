"""Every test module that reads outputs stored under ``tests/data`` carries the ``reference``
mark, so that CI runs it a second time with numba compiling for a generic processor
(``NUMBA_CPU_NAME=generic`` in ``.ci/run``): a comparison that holds only on the processor
that wrote the file fails on the developer's machine, not on the user's."""

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
STORED = {p.name for p in (TESTS / "data").iterdir()}
#: helper modules that load stored files for the test modules importing them
HELPERS = {"sparse_cases", "gaussian_cases", "hdp_cases"}


def _reads_stored(text):
    return any(name in text for name in STORED) or bool(
        re.search(r"^from (" + "|".join(HELPERS) + r") import .*check_reference", text, re.M))


@pytest.mark.parametrize("path", sorted(TESTS.rglob("test_*.py")),
                         ids=lambda p: str(p.relative_to(TESTS)))
def test_modules_reading_stored_outputs_are_marked(path):
    text = path.read_text()
    if path.name == Path(__file__).name or not _reads_stored(text):
        return
    assert "pytest.mark.reference" in text, (
        f"{path.name} reads outputs stored under tests/data: mark its comparisons with "
        "@pytest.mark.reference (or pytestmark = pytest.mark.reference)")


def test_the_check_finds_the_stored_files():
    """The scan above sees the stored files (it would pass vacuously on an empty list)."""
    assert {"sparse_reference.npz", "weka_oracle.json"} <= STORED
    assert _reads_stored((TESTS / "test_weka_oracle.py").read_text())
    assert _reads_stored((TESTS / "structure" / "test_sparse_moments.py").read_text())
