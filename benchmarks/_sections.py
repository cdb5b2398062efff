"""What every benchmark shares: its section of ``docs/performance.md``, memory readings and
measurements run in a fresh process.

Each benchmark owns the part of the page between its ``<!-- name -->`` and
``<!-- /name -->`` markers and replaces only that part (appending it the first time), so the
benchmarks can be run in any order; the page is written atomically.

Importing this module puts the library to measure first on ``sys.path``
(:func:`library_first`): ``python benchmarks/X.py`` puts ``benchmarks/``, not the repository
root, first, so that without it ``import seminaive`` finds whatever copy is installed (an
editable install of another checkout, say) rather than the checkout the script is in.  Every
script that imports ``seminaive`` therefore imports this module first
(``tests/test_benchmarks.py`` checks it), and the fresh-process workers get the library they
are to run through :data:`LIBRARY_VARIABLE` (:func:`library_env`).
"""

import argparse
import atexit
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

#: the repository this script is in
ROOT = Path(__file__).resolve().parents[1]
#: the environment variable naming the folder whose ``seminaive`` a benchmark imports (a
#: worker of :func:`run_library` measuring another version); unset: :data:`ROOT`
LIBRARY_VARIABLE = "SEMINAIVE_BENCH_LIBRARY"


def library_first():
    """Put the folder of the library to measure (:data:`LIBRARY_VARIABLE`, else
    :data:`ROOT`) at the front of ``sys.path`` and return it.  Refused with ImportError if
    ``seminaive`` was already imported from somewhere else."""
    library = str(Path(os.environ.get(LIBRARY_VARIABLE) or ROOT).resolve())
    loaded = sys.modules.get("seminaive")
    if loaded is not None and not Path(loaded.__file__).resolve().is_relative_to(library):
        raise ImportError(f"seminaive was imported from {loaded.__file__} before "
                          f"benchmarks/_sections.py put {library} first on sys.path")
    sys.path[:] = [library, *(entry for entry in sys.path if entry != library)]
    return library


#: the folder whose ``seminaive`` this process imports
LIBRARY = library_first()


def library_env(code_dir=LIBRARY, **variables):
    """The environment of a fresh process that is to import the library at ``code_dir``
    (:data:`LIBRARY_VARIABLE` and PYTHONPATH), with ``variables`` set."""
    return dict(os.environ, PYTHONPATH=str(code_dir), **{LIBRARY_VARIABLE: str(code_dir)},
                **variables)


def half_split(spec):
    """The data set named by a worker's ``spec`` (``"data"``, at most ``"rows"`` rows) and a
    random half of its rows to train on (seed 0), the other half to test on:
    ``(X, y, train, test)``."""
    import numpy as np

    from seminaive.datasets import load

    X, y = load(spec["data"], n_rows=spec["rows"])
    y = np.asarray(y)
    perm = np.random.default_rng(0).permutation(len(y))
    return X, y, perm[:len(y) // 2], perm[len(y) // 2:]


def parse_or_serve(parser, worker, root):
    """Add ``--out`` (default ``docs/performance.md`` under ``root``) and the hidden
    ``--worker`` (a JSON spec) to ``parser`` and parse the command line; with ``--worker``,
    run ``worker(spec)`` (a measurement in this fresh process) and return None."""
    parser.add_argument("--out", default=str(Path(root) / "docs" / "performance.md"))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return None
    return args


def table_lines(rows):
    """Markdown table rows, one per row of values."""
    return ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]


def write_table_section(out, marks, lines, rows):
    """:func:`write_section` of ``lines`` (from ``marks[0]`` to a table's header and
    separator) followed by the table's ``rows`` and ``marks[1]``."""
    write_section(out, marks, "\n".join([*lines, *table_lines(rows), "", marks[1]]))


def warmed_learner(spec, learners):
    """For a worker's ``spec``: its data (:func:`half_split`) and a new learner
    ``learners[spec["learner"]]`` (a ``(class name, parameters)`` pair) of the library on
    PYTHONPATH, after one warm-up fit of the same learner on 300 training rows
    (compilation): ``(seminaive, X, y, train, test, model)``.  Warnings are ignored (the
    caller's fit runs under its own ``warnings.catch_warnings``)."""
    import warnings

    import seminaive

    X, y, train, test = half_split(spec)
    name, params = learners[spec["learner"]]
    cls = getattr(seminaive, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls(**params).fit(X.iloc[train[:300]], y[train[:300]])
    return seminaive, X, y, train, test, cls(**params)


def write_section(out, marks, section):
    """Put ``section`` (starting with ``marks[0]``, ending with ``marks[1]``) in the file
    ``out`` in place of its previous version, or at the end; print where."""
    # imported here: a worker imports this module with a version of the library that may
    # predate seminaive._atomic
    from seminaive._atomic import atomic_write_text

    out = Path(out)
    text = out.read_text() if out.exists() else "# Performance\n"
    pattern = re.compile(re.escape(marks[0]) + ".*?" + re.escape(marks[1]), re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else (
        text.rstrip("\n") + "\n\n" + section + "\n")
    atomic_write_text(out, text)
    print(f"# wrote {out}")


def _status_mib(key):
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss_mib():
    """High-water mark of this process's resident memory (MiB)."""
    return _status_mib("VmHWM")


def current_rss_mib():
    """This process's resident memory now (MiB)."""
    return _status_mib("VmRSS")


def reset_peak():
    """Reset the peak resident size to the current one (Linux); False if not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def run_worker(script, spec, timeout=3600, attempts=1):
    """Run ``script --worker <spec as JSON>`` in a fresh process (its own peak memory, no
    compiled state carried over) and return the JSON object it prints last, or
    ``{"error": <last line of its output>}``, with the library of this process
    (:data:`LIBRARY`).  A failed run is tried again ``attempts - 1`` times (e.g. a source
    file caught mid-edit in a shared checkout)."""
    for attempt in range(attempts):
        try:
            done = subprocess.run([sys.executable, str(script), "--worker", json.dumps(spec)],
                                  capture_output=True, text=True, timeout=timeout,
                                  env=library_env())
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout} s"}
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode == 0 and lines:
            return json.loads(lines[-1])
        if attempt + 1 < attempts:
            time.sleep(5)
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
    return {"error": tail[0] if tail else f"exit {done.returncode}"}


def serve_worker(spec_json, tasks):
    """The worker side of :func:`run_worker`: when the script was started with
    ``--worker <spec>`` (``spec_json`` not None), run ``tasks[spec["task"]](spec)``, print its
    result as JSON and return True; otherwise return False (the script runs as usual)."""
    if spec_json is None:
        return False
    spec = json.loads(spec_json)
    print(json.dumps(tasks[spec["task"]](spec)))
    return True


def scratch_dir(prefix):
    """A new temporary directory (``prefix`` in its name), removed with everything in it
    when the benchmark's process exits (exported libraries, generated data files)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def export_library(root, commit, into):
    """The package ``seminaive`` of the repository ``root`` at ``commit``, extracted under
    ``into`` (``git archive``): put ``into`` on PYTHONPATH to run that version."""
    Path(into).mkdir(parents=True, exist_ok=True)
    archive = Path(into) / "ref.tar"
    with open(archive, "wb") as out:
        subprocess.run(["git", "-C", str(root), "archive", commit, "seminaive"], stdout=out,
                       check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return Path(into)


def run_library(script, code_dir, spec, timeout, threads=None):
    """Run ``script --worker <spec as JSON>`` in a fresh process with the library at
    ``code_dir`` (:func:`library_env`; ``threads``: NUMBA_NUM_THREADS and OMP_NUM_THREADS, default
    the machine's) and return the JSON object it prints last, or ``{"error": ...}``."""
    env = library_env(code_dir)
    if threads is not None:
        env.update(NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    try:
        done = subprocess.run([sys.executable, str(script), "--worker", json.dumps(spec)],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
    return {"error": tail[0] if tail else f"exit {done.returncode}"}
