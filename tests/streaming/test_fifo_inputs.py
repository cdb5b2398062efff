"""A FIFO (or a device) as a model file or a data file is refused at once, by the library as
by the command line: loading and fitting read their file more than once, so opening a FIFO
would hang (each call runs in a subprocess with a time limit, so a hang fails the test)."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

CASES = {
    "load": ("m.npz", "import seminaive as sn\nsn.load({path!r})", "ModelFileError"),
    "fit_stream": ("d.csv", "import seminaive as sn\nsn.NaiveBayes().fit_stream({path!r}, "
                   "target='y')", "InputError"),
    "predict_stream": ("d.csv", "import seminaive as sn\nm = sn.NaiveBayes().fit([[1], [2]], "
                       "[0, 1])\nm.predict_stream({path!r}, {out!r})", "InputError"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fifo_is_refused_not_opened(case, tmp_path):
    name, code, error = CASES[case]
    path = tmp_path / name
    os.mkfifo(path)
    script = code.format(path=str(path), out=str(tmp_path / "out.csv"))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "SEMINAIVE_COMPILE_NOTICE": "0"})
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"seminaive.exceptions.{error}") and "not a regular file" in last, (
        run.stderr)
