"""Run a script in a fresh Python process with an empty compile cache and read the JSON it
prints last: what a first use compiles (a kernel read from the cache does not load the
kernels it calls, so only a cold compile shows them)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cold_json(script, cache_dir, timeout=1800):
    """The last line of ``script``'s output as JSON, run with this checkout's library and
    the empty compile cache ``cache_dir``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SEMINAIVE_CACHE_DIR=str(cache_dir),
               SEMINAIVE_COMPILE_NOTICE="0")
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
