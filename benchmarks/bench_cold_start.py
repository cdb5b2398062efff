"""First use: every learner's first fit and predict with an empty compile cache.

The first fit and predict of a learner in a new process compile its numba kernels unless
they are in the compile cache.  For NB, AODE, A2DE, TAN, KDB (k = 2) and ESKDB, each in a
fresh process: the first fit and predict with an EMPTY cache (a new temporary directory),
then again in a second fresh process with the cache that run filled (cached), and a second
fit and predict in the first process (in-process, warm).  Data: 20,000 rows sampled from a
random Bayesian network (:func:`seminaive.datasets.make_random_bn`, 16 attributes, 4
values, 2 classes; 10 attributes kept nominal, 6 turned numeric by Gaussian noise), fitted
on one half, the class probabilities of the other half predicted.  The first fit's time
includes the import of numba, which ``import seminaive`` leaves to the first use of a
kernel.  Also ``seminaive demo`` run twice (empty cache, then cached) and the import time of
``import seminaive`` and of ``from seminaive import AODE, NaiveBayes`` against ``import
pandas, sklearn.base`` (``python -X importtime``, each in a fresh process, every statement
of both versions alternated, best and median of 7 runs).

With ``--reference COMMIT``, the library at that commit is measured the same way in the
same run (the seconds before and after).  Printed and written to ``docs/performance.md``
(its section between the ``bench_cold_start`` markers).

With ``--from-logs REFERENCE_LOG THIS_LOG`` nothing is measured: the table is written from
the printed lines of two earlier runs (the reference's, e.g. run from a worktree at the
reference commit, and this tree's; several logs of one version joined by commas).

    python benchmarks/bench_cold_start.py [--quick] [--reference COMMIT] [--out FILE]
    python benchmarks/bench_cold_start.py --from-logs ref.log,ref2.log this.log \
        --reference COMMIT
"""

import argparse
import datetime
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _sections import export_library, library_env, parse_or_serve, write_table_section

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_cold_start -->", "<!-- /bench_cold_start -->")
LEARNERS = {"NB": ("NaiveBayes", {}), "AODE": ("AODE", {}), "A2DE": ("A2DE", {}),
            "TAN": ("TAN", {}), "KDB(k=2)": ("KDB", {"k": 2}), "ESKDB": ("ESKDB", {})}
#: seconds of the first fit + predict (demo: the whole run) with an empty cache
GOALS = {"NB": 10, "AODE": 10, "A2DE": 10, "TAN": 10, "KDB(k=2)": 10, "ESKDB": 30,
         "demo": 25}
ROWS = 20_000


def mixed_data(n_rows, seed=0):
    """``(X, y)``: ``n_rows`` rows of a random Bayesian network, 10 nominal attributes
    (Categoricals of letters) and 6 numeric ones (the codes plus Gaussian noise)."""
    import numpy as np
    import pandas as pd

    from seminaive.datasets import make_random_bn

    codes, y, _ = make_random_bn(n_rows, n_attributes=16, n_values=4, n_classes=2,
                                 random_state=seed)
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcd"))
    X = pd.DataFrame({f"a{i}": pd.Categorical(letters[codes[:, i]]) for i in range(10)})
    for i in range(10, 16):
        X[f"x{i}"] = codes[:, i] + rng.normal(0.0, 0.7, n_rows)
    return X, y


def _compile_counter():
    """``(compiled, seconds)``: a list that grows by one signature per numba compilation
    (cache misses only) of a function of the library, from now on, and a dict of the CPU
    seconds of those compilations by ``module::function``, each compilation's own (the
    compilations of the functions it calls, which numba runs inside it, subtracted)."""
    from numba.core import event

    compiled, seconds, stack = [], {}, []

    class _Listener(event.Listener):
        def on_start(self, ev):
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, inner = stack.pop()
            spent = time.process_time() - start
            if stack:
                stack[-1][1] += spent
            func = ev.data["dispatcher"].py_func
            if func.__module__.startswith("seminaive"):
                compiled.append(func.__qualname__)
                if os.environ.get("BENCH_COLD_SIGNATURES"):
                    print(f"# compiled {func.__module__}::{func.__qualname__}"
                          f"{tuple(ev.data.get('args', ()))}", file=sys.stderr)
                key = f"{func.__module__.removeprefix('seminaive.')}::{func.__qualname__}"
                seconds[key] = seconds.get(key, 0.0) + spent - inner

    event.register("numba:compile", _Listener())
    return compiled, seconds


def worker(spec):
    """In this fresh process: import, first fit + predict (with the import of numba, if the
    import of the package left it out), second fit + predict."""
    import warnings

    start = time.perf_counter()
    import seminaive

    imported = time.perf_counter() - start
    numba_at_import = "numba" in sys.modules
    X, y = mixed_data(spec["rows"])
    half = len(y) // 2
    name, params = LEARNERS[spec["learner"]]
    cls = getattr(seminaive, name)
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            c0 = time.process_time()
            t0 = time.perf_counter()
            if not times:  # imports numba unless the package did: counted in the first fit
                compiled, compile_cpu = _compile_counter()
            model = cls(**params).fit(X.iloc[:half], y[:half])
            t1 = time.perf_counter()
            model.predict_proba(X.iloc[half:])
            times.append((t1 - t0, time.perf_counter() - t1))
            if not times[1:]:
                n_first = len(compiled)
                first_cpu = time.process_time() - c0
    print(json.dumps({"import": imported, "numba_at_import": numba_at_import,
                      "fit": times[0][0], "predict": times[0][1],
                      "warm": sum(times[1]), "compiled": n_first,
                      "functions": len(set(compiled)), "first_cpu": first_cpu,
                      "cpu": time.process_time(),
                      "compile_cpu": {k: round(v, 3) for k, v in sorted(
                          compile_cpu.items(), key=lambda kv: -kv[1])}}))


def _env(code_dir, cache, current):
    """The environment of a measured process: the library at ``code_dir``, its compile
    cache in ``cache`` (this version: its own variable; a reference: NUMBA_CACHE_DIR)."""
    env = library_env(code_dir)
    for key in ("NUMBA_CACHE_DIR", "SEMINAIVE_CACHE_DIR"):
        env.pop(key, None)
    env["SEMINAIVE_CACHE_DIR" if current else "NUMBA_CACHE_DIR"] = cache
    return env


def learner_runs(code_dir, learner, rows, timeout, current, tmp):
    """Cold (empty cache) and cached fresh-process runs of one learner: the JSON objects
    of :func:`worker`, or ``{"error": ...}``."""
    env = _env(code_dir, tempfile.mkdtemp(dir=tmp), current)
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker",
            json.dumps({"learner": learner, "rows": rows})]
    runs = []
    for _ in range(2):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                  env=env, cwd=tempfile.gettempdir())
        except subprocess.TimeoutExpired:
            runs.append({"error": f"timed out after {timeout} s"})
            continue
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode == 0 and lines:
            runs.append(json.loads(lines[-1]))
        else:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            runs.append({"error": tail[0] if tail else f"exit {done.returncode}"})
    return runs


def _timed_command(argv, env, timeout):
    """Wall and CPU seconds (the child's user + system) of one command; None on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return None
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(f"# {' '.join(argv[-2:])}: {(done.stderr or done.stdout).strip()[-300:]}")
        return None
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def demo_runs(code_dir, timeout, current, tmp):
    """``seminaive demo`` with an empty cache, then cached: ``[(wall, cpu), ...]``."""
    cache = tempfile.mkdtemp(dir=tmp)
    env = _env(code_dir, cache, current)
    argv = [sys.executable, "-c", "import sys; from seminaive.cli import main; "
            "sys.exit(main(['demo']))"]
    return [_timed_command(argv, env, timeout) for _ in range(2)]


def _importtime(statement, env):
    """Seconds spent importing the modules of ``statement`` (``-X importtime``: the
    cumulative times of the outermost imports that ``pass`` does not make)."""
    def outer(code):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env,
                              capture_output=True, text=True, cwd=tempfile.gettempdir())
        found = {}
        for line in done.stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| ( *)(\S+)", line)
            if m and not m.group(2):
                found[m.group(3)] = int(m.group(1)) * 1e-6
        return found

    startup = outer("pass")
    return sum(v for k, v in outer(statement).items() if k not in startup)


#: the import statements timed, the base last
IMPORTS = ("import seminaive", "from seminaive import AODE, NaiveBayes",
           "import pandas, sklearn.base")


def import_times(code_dirs, repeats=7):
    """Best and median seconds of each statement of :data:`IMPORTS` for the library at each
    of ``code_dirs``, in fresh processes, every statement of every version alternated in
    each round (so that the versions and the base see the same load): one
    ``{statement: (best, median)}`` per directory.

    As for an installed package, the modules' bytecode is cached (in a temporary
    directory, ``PYTHONPYCACHEPREFIX``; an import beforehand writes it) even where the
    environment says not to write it: the installed pandas and scikit-learn have theirs."""
    envs = []
    for code_dir in code_dirs:
        env = library_env(code_dir, PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="pycache-"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", "import seminaive"], env=env,
                       capture_output=True, cwd=tempfile.gettempdir())
        envs.append(env)
    seconds = [{statement: [] for statement in IMPORTS} for _ in envs]
    for _ in range(repeats):
        for env, found in zip(envs, seconds, strict=True):
            for statement in IMPORTS:
                found[statement].append(_importtime(statement, env))
    return [{statement: (min(v), statistics.median(v)) for statement, v in found.items()}
            for found in seconds]


def import_line(label, imp):
    """The printed line of :func:`import_times`'s result (read back by :func:`read_log`)."""
    return (f"# {label}: " + ", ".join(f"{statement} {imp[statement][0]:.3f} s (median "
                                        f"{imp[statement][1]:.3f} s)" for statement in IMPORTS))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="NB, AODE and the import time only, 5,000 rows")
    parser.add_argument("--reference", default=None,
                        help="also measure the library at this commit (before)")
    parser.add_argument("--no-demo", action="store_true", help="skip seminaive demo")
    parser.add_argument("--import-only", action="store_true",
                        help="measure the import time only")
    parser.add_argument("--learners", default=None,
                        help="comma-separated subset of " + ", ".join(LEARNERS))
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--from-logs", nargs=2, metavar=("REFERENCE_LOG", "THIS_LOG"),
                        help="write the table from two earlier runs' output, measure nothing")
    args = parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    if args.from_logs:
        results = {"reference": read_log(args.from_logs[0]),
                   "this": read_log(args.from_logs[1])}
        learners = [name for name in LEARNERS if name in results["this"]
                    and name in results["reference"]]
        if "demo" not in results["reference"]:
            results["this"].pop("demo", None)
        write(args, ROWS, learners, results)
        return
    rows = 5_000 if args.quick else ROWS
    learners = ["NB", "AODE"] if args.quick else list(LEARNERS)
    if args.learners:
        learners = [name for name in args.learners.split(",") if name in LEARNERS]
    with tempfile.TemporaryDirectory() as tmp:
        versions = [("this", ROOT, True)]
        if args.reference:
            ref_dir = export_library(ROOT, args.reference, Path(tmp) / "ref")
            versions.insert(0, ("reference", ref_dir, False))
        results = {}
        imports = import_times([code_dir for _, code_dir, _ in versions])
        for (label, code_dir, current), imp in zip(versions, imports, strict=True):
            print(import_line(label, imp), flush=True)
            print(f"# {import_text(label, imp)}", flush=True)
            res = {"import": imp}
            if args.import_only:
                results[label] = res
                continue
            for learner in learners:
                res[learner] = learner_runs(code_dir, learner, rows, args.timeout, current,
                                            tmp)
                print(f"# {label} {learner}: {json.dumps(res[learner])}", flush=True)
            if not args.no_demo and not args.quick and not args.import_only:
                res["demo"] = demo_runs(code_dir, args.timeout, current, tmp)
                print(f"# {label} demo: {res['demo']}", flush=True)
            results[label] = res
    if not args.import_only:
        write(args, rows, learners, results)


def read_log(paths):
    """The results printed by earlier runs (the ``# this ...`` lines of the logs
    ``paths``, comma-separated): ``{"import": {statement: (best, median)}, learner: runs, "demo":
    runs}``."""
    res = {}
    for path in paths.split(","):
        for line in Path(path).read_text().splitlines():
            m = re.match(r"# \w+: (.*)$", line)
            found = re.findall(r"(.+?) ([\d.]+) s \(median ([\d.]+) s\)(?:, |$)",
                               m.group(1) if m else "")
            if [statement for statement, _, _ in found] == list(IMPORTS):
                res.setdefault("import", {statement: (float(best), float(median))
                                          for statement, best, median in found})
                continue
            m = re.match(r"# \w+ (\S+): (.*)$", line)
            if m and m.group(1) == "demo":
                res["demo"] = [None if v is None else tuple(v)
                               for v in json.loads(m.group(2).replace("(", "[")
                                                   .replace(")", "]").replace("None", "null"))]
            elif m and m.group(1) in LEARNERS:
                res[m.group(1)] = json.loads(m.group(2))
    return res


def _cell(value, fmt="{:.1f}"):
    return "error" if value is None else fmt.format(value)


def table_rows(learners, results):
    """One row per learner (and demo): each version's cold (wall, CPU of the first fit +
    predict, CPU of the whole process) / cached / warm seconds, and the goal, judged on the
    lesser of the wall and the CPU seconds of the first fit + predict of the last version
    (the whole command for the demo): on a loaded machine the wall seconds say more about
    the load than about the library, and compiling runs on one thread, so the CPU seconds
    bound a quiet machine's wall time; on a quiet machine a learner whose fit runs on the
    threads (ESKDB's sampler and leave-one-out pass) spends more CPU than wall seconds, and
    the wall seconds are the user's."""
    rows = []
    labels = list(results)
    for learner in [*learners, "demo"]:
        if learner not in results[labels[-1]]:
            continue
        row = [learner]
        for label in labels:
            runs = results[label].get(learner)
            if learner == "demo":
                cold, cached = runs if runs else (None, None)
                row += [_cell(cold and cold[0]), _cell(cold and cold[1]), "-",
                        _cell(cached and cached[0]), "-"]
                continue
            cold, cached = runs
            ok = "error" not in cold and "error" not in cached
            first = cold["fit"] + cold["predict"] if ok else None
            first_cpu = cold.get("first_cpu")
            row += [_cell(first), "-" if ok and first_cpu is None else _cell(first_cpu),
                    _cell(cold.get("cpu")),
                    _cell(cached["fit"] + cached["predict"] if ok else None, "{:.2f}"),
                    _cell(cold.get("warm"), "{:.2f}")]
        goal = GOALS[learner]
        wall, cpu = row[-5], row[-4]
        if cpu in ("-", "error"):
            cpu = wall
        met = wall != "error" and min(float(wall), float(cpu)) <= goal
        row += [f"{goal}", "met" if met else "**not met**"]
        rows.append(row)
    return rows


def import_text(label, imp):
    """The import times of one version, as a sentence: best of the runs (median)."""
    base = imp[IMPORTS[-1]]
    parts = [f"`{statement}` {imp[statement][0]:.2f} s ({imp[statement][1]:.2f} s), ratio "
             f"{imp[statement][0] / base[0]:.2f} ({imp[statement][1] / base[1]:.2f})"
             for statement in IMPORTS[:-1]]
    return (f"{label}: " + ", ".join(parts) + f" against {base[0]:.2f} s ({base[1]:.2f} s) "
            f"for `{IMPORTS[-1]}`")


def write(args, rows, learners, results):
    import numba

    labels = list(results)
    head = ["learner"]
    for label in labels:
        head += [f"{label}: first fit + predict, empty cache (s)",
                 f"{label}: its CPU (s)", f"{label}: process CPU (s)",
                 f"{label}: cached, fresh process (s)", f"{label}: warm, same process (s)"]
    head += ["goal (s)", "goal (on the lesser of wall and CPU s)"]
    lines_rows = table_rows(learners, results)
    print("| " + " | ".join(head) + " |")
    for row in lines_rows:
        print("| " + " | ".join(row) + " |")
    imp_text = "; ".join(import_text(label, results[label]["import"]) for label in labels)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    if getattr(args, "from_logs", None):
        load += (" when the tables were joined from the output of earlier runs (their load "
                 "is stated below)")
    kept, earlier = _kept_rows(args, head, learners)
    lines_rows = sorted(lines_rows + kept, key=lambda row: _ORDER.index(row[0]))
    measured = ", ".join(row[0] for row in table_rows(learners, results))
    lines = [MARK[0], "## First use: compiling the kernels", "",
             f"Written by `benchmarks/bench_cold_start.py` on "
             f"{datetime.date.today().isoformat()}: {platform.machine()}, {os.cpu_count()} "
             f"cores ({numba.get_num_threads()} numba threads), Python "
             f"{platform.python_version()}, numba {numba.__version__}; load average {load}.",
             "",
             f"{rows:,} rows sampled from a random Bayesian network (10 nominal and 6 numeric "
             "attributes, 2 classes), fitted on one half, the class probabilities of the "
             "other half predicted, each learner in a fresh process.  Empty cache: the "
             "first fit + predict with an empty compile cache, the import of numba "
             "included where the package's import left it out (wall seconds; its CPU: the "
             "CPU seconds of that fit + predict, which the load of the machine inflates "
             "less, and which bound a quiet machine's wall time where, as in compiling, one "
             "thread works; process CPU: the whole process's, import and data included).  "
             "Cached: the same in a second fresh process with the cache the first one "
             "filled.  Warm: a second fit + predict in the first "
             "process.  `seminaive demo`: the whole command (wall, CPU), empty cache then "
             "cached.  The goal is judged on the lesser of the wall and the CPU seconds "
             "(the CPU seconds bound a quiet machine's wall time where one thread compiles; "
             "on a quiet machine a fit that runs on the threads, as ESKDB's, spends more CPU "
             "than wall seconds)."
             + (f"  Reference: the library at commit {args.reference}, measured in the same "
                "run." if args.reference else ""), "",
             "Import (`python -X importtime`, each statement in a fresh process, every "
             "statement of both versions alternated; best of 7 runs, the median in "
             f"brackets; goal: within 1.3 times the base): {imp_text}.", "",
             *compile_lines(learners, results),
             *([f"Rows measured in this run: {measured}.  The other rows are kept from "
                f"the earlier run this section held: {earlier}", ""] if kept else []),
             "| " + " | ".join(head) + " |",
             "|---|" + "---:|" * (len(head) - 3) + "---:|---|"]
    write_table_section(args.out, MARK, lines, lines_rows)


#: the order of the table's rows
_ORDER = [*LEARNERS, "demo"]


def _kept_rows(args, head, learners):
    """With ``--learners`` (a subset), the rows of the other learners (and the demo) in the
    section ``args.out`` holds, if its table has the same columns, and that run's
    description (its first sentence and its import sentence): ``(rows, text)``."""
    if not getattr(args, "learners", None) or not Path(args.out).exists():
        return [], ""
    text = Path(args.out).read_text()
    m = re.search(re.escape(MARK[0]) + "(.*?)" + re.escape(MARK[1]), text, re.S)
    if not m or "| " + " | ".join(head) + " |" not in m.group(1):
        return [], ""
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (len(cells) == len(head) and cells[0] in _ORDER and cells[0] not in learners
                and not (cells[0] == "demo" and not args.no_demo)):
            rows.append(cells)
    lines = m.group(1).splitlines()
    kept_before = [line.split("section held: ", 1)[-1] for line in lines
                   if line.startswith("Rows measured in this run")]
    # rows kept already: their description, not that of the run that merged them
    earlier = kept_before[0] if kept_before else " ".join(
        line for line in lines if line.startswith(("Written by", "Import (")))
    ref = re.search(r"Reference: the library at commit (\w+)", m.group(1))
    if ref and "Rows measured" not in m.group(1):
        earlier += f" Its reference: the library at commit {ref.group(1)}."
    return rows, earlier


def compile_lines(learners, results, top=10):
    """For every learner, the CPU seconds its first fit + predict spent compiling each
    function (numba's compile events, the functions compiled on the way subtracted), the
    largest ``top``, every version: markdown lines."""
    lines = []
    for learner in learners:
        found = [(label, (results[label].get(learner) or [{}])[0].get("compile_cpu"))
                 for label in results]
        if not all(cpu for _, cpu in found):
            continue
        names = sorted({n for _, cpu in found for n in cpu},
                       key=lambda n: -max(cpu.get(n, 0.0) for _, cpu in found))
        cells = [f"`{n}` " + " / ".join(f"{cpu.get(n, 0.0):.2f}" for _, cpu in found)
                 for n in names[:top]]
        totals = " / ".join(f"{sum(cpu.values()):.1f}" for _, cpu in found)
        lines += [f"{learner}, compile CPU seconds by function (numba's compile events, the "
                  "functions compiled on the way subtracted; "
                  + " / ".join(label for label, _ in found) + f"): all {totals}; "
                  + ", ".join(cells) + ".", ""]
    return lines


if __name__ == "__main__":
    main()
