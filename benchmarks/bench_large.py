"""The family against gradient boosting and random forests on large generated data with a
known structure and, where it can be computed, a known Bayes error.

Data (each training size is its own draw, seed 0, so each learner's losses at the sizes form
a learning curve; one separate draw of ``--test`` rows, seed 1, is held out):

- ``poker``: poker hands (:func:`seminaive.datasets.make_poker_hand`), 10 columns (suit
  1-4 and rank 1-13 of five cards), 10 classes; the class is an exact function of the
  cards, Bayes error 0;
- ``alarm``, ``hailfinder``, ``hepar2``: forward samples of the Bayesian networks that
  PyPI ``pgmpy`` ships in its wheel (no web access), one node as the class (``VENTLUNG``,
  4 classes, 36 attributes; ``Scenario``, 11 classes, 55 attributes; ``ChHepatitis``, 3
  classes, 69 attributes), every other node an attribute; the Bayes error is
  ``mean(1 - max_c P(c | x))`` on the test rows with the exact posterior of the class
  given its Markov blanket, read from the network's tables;
- ``led``, ``waveform``, ``agrawal``, ``rbf``: PyPI ``river``'s synthetic streams
  ``LED`` (24 binary attributes, 7 segments and 17 irrelevant bits, 10 classes;
  ``noise_percentage=0.1`` flips a segment with probability 0.09: Bayes error
  ``led_bayes_error(0.09)`` of :mod:`seminaive.datasets`, 0.2352), ``Waveform`` (21
  numeric attributes, 3 classes; Bayes error about 0.14 by Breiman et al. 1984, not
  exact), ``Agrawal`` (9 attributes, all given as numbers, 2 classes; function 7 of 10, no
  perturbation: Bayes error 0) and ``RandomRBF`` (10 numeric attributes, 4 classes, 50
  centroids; Bayes error unknown).

Learners: ``NaiveBayes``, ``AODE``, ``A2DE``, ``A3DE(memory="select")``, ``SKDB``,
``ESKDB`` and their HLS variants (``smoothing="hls"``) with their defaults (every column
categorical on the discrete sets, MDL discretisation of numeric columns otherwise), against
LightGBM, XGBoost, scikit-learn's ``HistGradientBoostingClassifier`` and
``RandomForestClassifier(n_estimators=100)`` on the raw columns, all with their defaults
and the same number of threads (``--threads``, default 2: ``n_jobs``, ``OMP_NUM_THREADS``
and ``NUMBA_NUM_THREADS``; OpenMP threads wait passively, ``OMP_WAIT_POLICY=passive``, as
spinning threads stall on a loaded machine).  Every learner that takes a ``random_state``
gets ``random_state=0`` (``SEED``), so that a cell gives the same losses when run again:
ESKDB draws its members' attribute orders, per-member randomised MDL cut points and HDP
sampler streams;
the random forest draws its bootstrap samples and split features; HistGB draws its
early-stopping validation split (above 10,000 rows); every learner of the library draws the
sample of at most 100,000 rows its encoder places the numeric columns' cut points on (10^6
rows of the numeric sets); LightGBM and XGBoost draw nothing with their defaults (no
bagging, no column sampling) and get the seed all the same.  Cells of runs before this
(their records have no ``random_state``) were run without it; the report counts them.

Every cell (data, learner, training rows) runs in a fresh process under a time limit
(``--timeout``) and a resident-memory budget (``--memory-gib``, the process is stopped when
it goes over), and reports zero-one loss, log loss (probabilities floored at 1e-15), fit
and predict time (the library's learners after one warm-up fit of 300 rows, which compiles
the kernels) and the peak resident memory the fit and predict added to the data.  Finished
cells are kept in a results file (``--results``, written atomically after each cell), so a
stopped run resumes where it was; the data are cached under ``--cache`` (never committed).
Then the section ``<!-- bench_large -->`` of ``docs/results.md`` is written.  Run from the
repository root, e.g.::

    python benchmarks/bench_large.py --sizes 100000 1000000
    python benchmarks/bench_large.py --sizes 10000000 --data poker alarm --learners NB AODE LightGBM
    python benchmarks/bench_large.py --report-only     # rewrite the section from the results
    python benchmarks/bench_large.py --quick           # a smoke run (2,000 rows, 3 learners)
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _sections import current_rss_mib, peak_rss_mib, reset_peak, write_section

from seminaive._atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_large -->", "<!-- /bench_large -->")
DATA = ("poker", "alarm", "hailfinder", "hepar2", "led", "waveform", "agrawal", "rbf")
DISCRETE = {"poker", "alarm", "hailfinder", "hepar2", "led"}
#: pgmpy network -> class node
NETWORKS = {"alarm": "VENTLUNG", "hailfinder": "Scenario", "hepar2": "ChHepatitis"}
#: learner -> (library, class, parameters)
LEARNERS = {
    "NB": ("seminaive", "NaiveBayes", {}),
    "AODE": ("seminaive", "AODE", {}),
    "A2DE": ("seminaive", "A2DE", {}),
    "A3DE": ("seminaive", "A3DE", {"memory": "select"}),
    "SKDB": ("seminaive", "SKDB", {}),
    "ESKDB": ("seminaive", "ESKDB", {"candidate_trees": "cut"}),
    "AODE-HLS": ("seminaive", "AODE", {"smoothing": "hls"}),
    "A2DE-HLS": ("seminaive", "A2DE", {"smoothing": "hls"}),
    "SKDB-HLS": ("seminaive", "SKDB", {"smoothing": "hls"}),
    "ESKDB-HLS": ("seminaive", "ESKDB", {"smoothing": "hls", "candidate_trees": "cut"}),
    "LightGBM": ("lightgbm", "LGBMClassifier", {"n_jobs": 2, "verbose": -1}),
    "XGBoost": ("xgboost", "XGBClassifier", {"n_jobs": 2, "tree_method": "hist"}),
    "HistGB": ("sklearn.ensemble", "HistGradientBoostingClassifier", {}),
    "RF": ("sklearn.ensemble", "RandomForestClassifier", {"n_estimators": 100, "n_jobs": 2}),
}
SEED = 0
#: the memory budget of a cell (GiB), unless ``--memory-gib`` says otherwise (the report
#: notes a cell run with another)
BUDGET_GIB = 6.0


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


def _river_stream(name, seed):
    """The river generator of ``name`` (its ``n_classes`` and ``n_features`` say the set's
    classes and attributes)."""
    from river.datasets import synth

    return {
        "led": lambda: synth.LED(seed=seed, noise_percentage=0.1, irrelevant_features=True),
        "waveform": lambda: synth.Waveform(seed=seed),
        "agrawal": lambda: synth.Agrawal(classification_function=6, seed=seed),
        "rbf": lambda: synth.RandomRBF(seed_model=1, seed_sample=seed, n_classes=4,
                                       n_features=10, n_centroids=50),
    }[name]()


def _river(name, n, seed):
    X, y = [], []
    for x, label in _river_stream(name, seed).take(n):
        X.append(list(x.values()))
        y.append(label)
    dtype = np.uint8 if name == "led" else np.float64
    return np.asarray(X, dtype=dtype).reshape(n, -1), np.asarray(y, dtype=np.int64)


class Network:
    """A pgmpy network as numpy tables: forward sampling and the exact posterior of one
    node given all the others (its Markov blanket)."""

    def __init__(self, name):
        import warnings

        from pgmpy.utils import get_example_model

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = get_example_model(name)
        self.target = NETWORKS[name]
        cpds = {cpd.variable: cpd for cpd in model.get_cpds()}
        order, done = [], set()
        while len(order) < len(cpds):  # topological order
            for var, cpd in cpds.items():
                if var not in done and all(p in done for p in cpd.variables[1:]):
                    order.append(var)
                    done.add(var)
        self.order = order
        self.parents = {v: list(cpds[v].variables[1:]) for v in order}
        self.tables = {v: np.asarray(cpds[v].values, dtype=float) for v in order}
        self.attributes = [v for v in order if v != self.target]
        self.children = [v for v in order if self.target in self.parents[v]]

    def sample(self, n, seed):
        rng = np.random.default_rng(seed)
        codes = {}
        for v in self.order:
            table = self.tables[v]  # (card, parent cards...)
            idx = tuple(codes[p] for p in self.parents[v])
            probs = table[(slice(None), *idx)] if idx else np.repeat(table[:, None], n, 1)
            cum = np.cumsum(probs, axis=0)
            u = rng.random(n) * cum[-1]
            codes[v] = np.minimum((u[None, :] >= cum).sum(axis=0), table.shape[0] - 1)
        X = np.stack([codes[v] for v in self.attributes], axis=1).astype(np.uint8)
        return X, codes[self.target].astype(np.int64)

    def posterior(self, X):
        col = {v: X[:, i].astype(np.int64) for i, v in enumerate(self.attributes)}
        t = self.target
        n_classes = self.tables[t].shape[0]
        logp = np.zeros((len(X), n_classes))
        with np.errstate(divide="ignore"):
            for c in range(n_classes):
                full = dict(col)
                full[t] = np.full(len(X), c)
                for v in [t, *self.children]:
                    idx = tuple(full[p] for p in self.parents[v])
                    table = self.tables[v]
                    logp[:, c] += np.log(table[(full[v], *idx)] if idx else table[full[v]])
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        return p / p.sum(axis=1, keepdims=True)


def generate(name, n, seed):
    """``(X, y, bayes)`` of ``n`` rows of the data set ``name``; ``bayes`` is the exact
    Bayes error on these rows (None where unknown, a float where it does not depend on
    the rows)."""
    from seminaive.datasets import led_bayes_error, make_poker_hand

    if name == "poker":
        X, y = make_poker_hand(n, random_state=seed)
        return X, y, 0.0
    if name in NETWORKS:
        net = Network(name)
        X, y = net.sample(n, seed)
        return X, y, float(np.mean(1.0 - net.posterior(X).max(axis=1)))
    X, y = _river(name, n, seed)
    bayes = {"led": led_bayes_error(0.09), "agrawal": 0.0}.get(name)
    return X, y, bayes


def data_facts(name, cache, test):
    """What the report states of the data set ``name``, read from its generator and its
    ``test`` held-out rows (seed 1): the number of attributes, of values per attribute (None
    for numeric attributes), of classes, the class node (None but for the networks) and the
    Bayes error on those rows (None where unknown)."""
    from seminaive.datasets import POKER_HAND_CLASSES

    X, _, bayes = cached(cache, name, test, SEED + 1)
    target, values = None, None
    if name in NETWORKS:
        net = Network(name)
        target = net.target
        values = [net.tables[v].shape[0] for v in net.attributes]
        classes = net.tables[target].shape[0]
    else:
        classes = (len(POKER_HAND_CLASSES) if name == "poker"
                   else _river_stream(name, SEED).n_classes)
        if name in DISCRETE:  # suits and ranks, LED's bits: every value occurs in the rows
            values = [len(np.unique(column)) for column in X.T]
    return {"attributes": X.shape[1], "values": values, "classes": classes,
            "target": target, "bayes": bayes}


def cached(cache, name, n, seed):
    """The data of :func:`generate`, saved in ``cache`` (``.npz``) the first time."""
    path = Path(cache) / f"{name}-{n}-{seed}.npz"
    if not path.exists():
        X, y, bayes = generate(name, n, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, X=X, y=y, bayes=np.nan if bayes is None else bayes)
        os.replace(tmp, path)
    with np.load(path) as data:
        bayes = float(data["bayes"])
        return data["X"], data["y"], None if np.isnan(bayes) else bayes


# --------------------------------------------------------------------------------------------
# one cell, in a fresh process
# --------------------------------------------------------------------------------------------


def make_model(learner, discrete, threads=2):
    import importlib

    module, cls, params = LEARNERS[learner]
    params = dict(params)
    if "n_jobs" in params:
        params["n_jobs"] = threads
    if module == "seminaive" and discrete:
        params["categorical_features"] = "all"
    model = getattr(importlib.import_module(module), cls)(**params)
    if "random_state" in model.get_params():  # every randomised learner: reproducible
        model.set_params(random_state=SEED)
    return model


def task_cell(spec):
    import warnings

    X, y, _ = cached(spec["cache"], spec["data"], spec["rows"], SEED)
    X_te, y_te, bayes = cached(spec["cache"], spec["data"], spec["test"], SEED + 1)
    classes, y_enc = np.unique(y, return_inverse=True)  # XGBoost wants codes 0 .. k-1
    discrete = spec["data"] in DISCRETE
    warnings.simplefilter("ignore")
    if LEARNERS[spec["learner"]][0] == "seminaive":  # compile the kernels first
        make_model(spec["learner"], discrete, spec["threads"]).fit(X[:300], y_enc[:300])
    base = current_rss_mib()
    reset_peak()
    model = make_model(spec["learner"], discrete, spec["threads"])
    fit_args, note = _validation_split(model, X, y_enc)
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(**fit_args)
    fit, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    proba = np.asarray(model.predict_proba(X_te), dtype=float)
    predict, predict_cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = peak_rss_mib() - base
    cols = np.asarray(model.classes_)
    full = np.zeros((len(X_te), len(classes)))
    full[:, cols] = proba
    pred = classes[full.argmax(axis=1)]
    where = np.searchsorted(classes, y_te)
    known = (where < len(classes)) & (classes[np.minimum(where, len(classes) - 1)] == y_te)
    p_true = np.where(known, full[np.arange(len(y_te)), np.minimum(where, len(classes) - 1)],
                      0.0)
    out = {"zero_one": float(np.mean(pred != y_te)),
           "log_loss": float(-np.mean(np.log(np.maximum(p_true, 1e-15)))),
           "fit_s": fit, "predict_s": predict, "peak_mib": peak, "bayes": bayes,
           "fit_cpu_s": fit_cpu, "predict_cpu_s": predict_cpu}
    if hasattr(model, "parents_") and hasattr(model, "table_bytes_"):  # memory="select"
        out.update(parents=int(len(model.parents_)), table_bytes=int(model.table_bytes_))
    return {**out, "note": note} if note else out


def _validation_split(model, X, y):
    """The arguments of ``model.fit`` and a note (None: ``fit(X, y)``, the default).

    scikit-learn's ``HistGradientBoostingClassifier`` with its default
    ``early_stopping="auto"`` holds out ``validation_fraction`` (10%) of more than 10,000
    rows by a *stratified* split, which needs at least two rows of every class and fails
    otherwise (one royal flush in 10^6 poker rows).  There, and only there, the benchmark
    holds out the same fraction itself by a plain random split (seed 0) of the rows of the
    classes with two rows or more (a class of one row stays in training, as it could not be
    both learnt and validated) and passes it as ``X_val, y_val``: early stopping as by
    default, on a split that is not stratified; every other parameter at its default."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    if not isinstance(model, HistGradientBoostingClassifier):
        return {"X": X, "y": y}, None
    stops = model.early_stopping is True or (model.early_stopping == "auto" and len(y) > 10_000)
    if not stops or model.validation_fraction is None or np.bincount(y).min() >= 2:
        return {"X": X, "y": y}, None
    single = np.isin(y, np.flatnonzero(np.bincount(y) == 1))
    rng = np.random.default_rng(SEED)
    candidates = np.flatnonzero(~single)
    n_val = int(np.ceil(model.validation_fraction * len(y)))
    val = np.zeros(len(y), dtype=bool)
    val[rng.choice(candidates, n_val, replace=False)] = True
    note = (f"early stopping on a plain random (not stratified) split of {n_val:,} rows "
            f"passed as X_val, y_val ({int(single.sum())} row(s) of a one-row class kept in "
            "training); the default's stratified split needs two rows of every class")
    return {"X": X[~val], "y": y[~val], "X_val": X[val], "y_val": y[val]}, note


def run_cell(spec, timeout, memory_gib):
    """Run one cell in a fresh process; stop it over ``timeout`` s or ``memory_gib`` GiB of
    resident memory (the whole process tree)."""
    import psutil

    threads = str(spec["threads"])
    env = dict(os.environ, NUMBA_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
               OMP_WAIT_POLICY="passive")
    proc = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    start, peak, reason = time.time(), 0.0, None
    watched = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            rss = sum(p.memory_info().rss for p in [watched, *watched.children(True)])
        except psutil.Error:
            rss = 0
        peak = max(peak, rss / 2**30)
        if peak > memory_gib:
            reason = f"over the memory budget ({memory_gib:g} GiB)"
        elif time.time() - start > timeout:
            reason = f"over the time limit ({timeout:g} s)"
        if reason:
            proc.kill()
            proc.communicate()
            return {"error": reason}
        time.sleep(0.5)
    out, err = proc.communicate()
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode == 0 and lines:
        return json.loads(lines[-1])
    tail = (err or out).strip().splitlines()[-1:]
    return {"error": tail[0][:200] if tail else f"exit {proc.returncode}"}


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------


def _f(value, digits=3):
    return "–" if value is None else f"{value:.{digits}f}"


def _t(seconds):
    return "–" if seconds is None else (f"{seconds:.1f}" if seconds < 100 else f"{seconds:.0f}")


def _why(cell):
    """Why a cell has no result, short: stopped (time or memory) or failed (the error)."""
    error = cell["error"]
    if error.startswith("over the"):
        return f"stopped: {error}"
    return "failed: " + error.rsplit(".", 1)[-1][:110] if "Error:" not in error else (
        "failed: " + error.split("Error:", 1)[1].strip()[:110])


def _seeds(results):
    """The report's words on the seeds: which cells ran with ``random_state`` fixed."""
    without = sum(1 for r in results.values() if "random_state" not in r)
    text = (f"Every learner that takes a `random_state` has `random_state={SEED}` (ESKDB: "
            "its members' orders, per-member cut points and sampler streams; RF: bootstrap "
            "and split features; HistGB: its early-stopping split; the library's encoders: "
            "the sample "
            "of at most 100,000 rows the numeric columns' cut points are placed on; "
            "LightGBM and XGBoost draw nothing with their defaults), so a cell run again "
            "gives the same losses.")
    if without:
        text += (f" {without} of the {len(results)} cells come from runs before the seeds "
                 "were fixed (no `random_state`): their randomised learners' losses are "
                 "those of one unseeded draw.")
    return text


def report(results, meta):
    lines = [MARK[0], "", "### The tables (generated)", "",
             f"Command: `{meta['command']}` (last run {meta['date']}, {meta['machine']}; "
             f"load average at the end {meta['load']}). " + meta["versions"] + ". "
             "Each cell is one fresh process; fit and predict in seconds of wall time and, "
             "where the cell recorded them (– where its run did not), in CPU seconds of the "
             "cell's process, which depend far less on the load; memory is the peak "
             "resident memory (MiB) that fit and predict added to the loaded data; "
             f"log loss on {meta['test']:,} held-out rows; Bayes error on the same rows. "
             "A cell marked `not run` was not attempted in this run; a cell that was stopped "
             "says why. " + _seeds(results), ""]
    sizes = sorted({r["rows"] for r in results.values()})
    facts = meta.get("facts", {})
    if facts:
        lines += ["#### The data sets", "",
                  "Read from the generators and the held-out rows when the tables were "
                  "written: attributes besides the class, values per attribute (numeric: "
                  "MDL-discretised by the library, raw for the trees), classes, the "
                  "network node that is the class, and the Bayes error on the held-out rows.",
                  "", "| data | attributes | values per attribute | classes | class node | "
                  "Bayes error |", "|---|---:|---:|---:|---|---:|"]
        for data in DATA:
            f = facts.get(data)
            if f is None:
                continue
            values = "numeric" if f["values"] is None else (
                f"{min(f['values'])}" if min(f["values"]) == max(f["values"])
                else f"{min(f['values'])}–{max(f['values'])}")
            bayes = "unknown" if f["bayes"] is None else _f(f["bayes"], 4)
            lines.append(f"| {data} | {f['attributes']} | {values} | {f['classes']} | "
                         f"{f['target'] or '–'} | {bayes} |")
        lines.append("")
    for data in DATA:
        cells = {(r["learner"], r["rows"]): r for r in results.values() if r["data"] == data}
        if not cells:
            continue
        bayes = next((r["bayes"] for r in cells.values() if r.get("bayes") is not None), None)
        lines += [f"#### {data} (Bayes error {_f(bayes, 4) if bayes is not None else 'unknown'})",
                  "", "| learner | rows | 0-1 loss | log loss | fit s | predict s | "
                  "fit CPU s | predict CPU s | MiB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for learner in LEARNERS:
            for rows in sizes:
                r = cells.get((learner, rows))
                if r is None:
                    continue
                if "error" in r:
                    lines.append(f"| {learner} | {rows:,} | {_why(r)} | | | | | | |")
                    continue
                if r.get("memory_gib", BUDGET_GIB) != BUDGET_GIB:
                    r = {**r, "note": "; ".join(filter(None, [
                        r.get("note"), f"run with a memory budget of {r['memory_gib']:g} GiB, "
                        f"not {BUDGET_GIB:g} GiB"]))}
                    cells[(learner, rows)] = r
                mark = " (a)" if r.get("note") else ""
                lines.append(f"| {learner}{mark} | {rows:,} | {_f(r['zero_one'], 4)} | "
                             f"{_f(r['log_loss'])} | {_t(r['fit_s'])} | "
                             f"{_t(r['predict_s'])} | {_t(r.get('fit_cpu_s'))} | "
                             f"{_t(r.get('predict_cpu_s'))} | {r['peak_mib']:.0f} |")
        lines.append("")
        notes = [r for r in cells.values() if r.get("note")]
        for r in notes:
            lines += [f"(a) {r['learner']}, {r['rows']:,} rows: {r['note']}.", ""]
    # learning curves: zero-one loss against training rows
    lines += ["#### Learning curves: zero-one loss against training rows", "",
              "| data | learner | " + " | ".join(f"{s:,}" for s in sizes) + " |",
              "|---|---|" + "---:|" * len(sizes)]
    for data in DATA:
        for learner in LEARNERS:
            row = []
            for s in sizes:
                r = results.get(f"{data}|{learner}|{s}")
                row.append("not run" if r is None else
                           (_why(r).split(":")[0] if "error" in r else _f(r["zero_one"], 4)))
            if any(v != "not run" for v in row):
                lines.append(f"| {data} | {learner} | " + " | ".join(row) + " |")
    lines += ["", MARK[1]]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--data", nargs="+", default=list(DATA), choices=DATA)
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=list(LEARNERS))
    parser.add_argument("--test", type=int, default=50_000, help="held-out rows")
    parser.add_argument("--threads", type=int, default=2,
                        help="threads of every learner (n_jobs, OpenMP, numba)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per cell")
    parser.add_argument("--memory-gib", type=float, default=BUDGET_GIB,
                        help="memory budget per cell")
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "bench_large.json"))
    parser.add_argument("--also", nargs="*", default=[],
                        help="results files of other runs to report with this one")
    parser.add_argument("--cache", default="/tmp/seminaive-bench-large")
    parser.add_argument("--out", default=str(ROOT / "docs" / "results.md"))
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="do not write the section")
    parser.add_argument("--quick", action="store_true", help="smoke run, results not kept")
    parser.add_argument("--profile", action="store_true",
                        help="run the first of --data, --learners and --sizes in this "
                             "process (--test held-out rows) and print the cell with its CPU "
                             "seconds; nothing kept")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(task_cell(json.loads(args.worker))))
        return
    if args.profile:
        spec = {"data": args.data[0], "learner": args.learners[0], "rows": args.sizes[0],
                "test": args.test, "cache": args.cache, "threads": args.threads}
        import numba

        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
        print(json.dumps({**spec, **task_cell(spec)}))
        return
    if args.quick:
        args.sizes, args.test, args.data = [2_000], 2_000, ["poker", "alarm", "waveform"]
        args.learners, args.no_write = ["NB", "AODE", "HistGB"], True
        args.results = "/tmp/seminaive-bench-large-quick.json"
    path = Path(args.results)
    results = json.loads(path.read_text()) if path.exists() else {}
    if not args.report_only:
        for rows in sorted(args.sizes):  # the cheap learners on every data set first
            for learner in args.learners:
                for data in args.data:
                    key = f"{data}|{learner}|{rows}"
                    if key in results:
                        continue
                    spec = {"data": data, "learner": learner, "rows": rows,
                            "test": args.test, "cache": args.cache, "threads": args.threads}
                    cached(args.cache, data, rows, SEED)  # generate outside
                    cached(args.cache, data, args.test, SEED + 1)  # the timed cell
                    r = run_cell(spec, args.timeout, args.memory_gib)
                    results = json.loads(path.read_text()) if path.exists() else {}
                    results[key] = {"data": data, "learner": learner, "rows": rows,
                                    "test": args.test, "threads": args.threads,
                                    "timeout_s": args.timeout, "memory_gib": args.memory_gib,
                                    "random_state": SEED, **r}
                    atomic_write_text(path, json.dumps(results, indent=1, sort_keys=True))
                    print(key, json.dumps(r), flush=True)
    if args.no_write:
        return
    results = json.loads(path.read_text()) if path.exists() else {}
    for other in args.also:
        results.update(json.loads(Path(other).read_text()))
    import lightgbm
    import sklearn
    import xgboost

    meta = {"command": "python benchmarks/bench_large.py " + " ".join(sys.argv[1:]),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs",
            "load": " ".join(f"{v:.2f}" for v in os.getloadavg()),
            "versions": f"LightGBM {lightgbm.__version__}, XGBoost {xgboost.__version__}, "
                        f"scikit-learn {sklearn.__version__}",
            "test": args.test,
            "facts": {data: data_facts(data, args.cache, args.test)
                      for data in DATA if any(r["data"] == data for r in results.values())}}
    write_section(args.out, MARK, report(results, meta))


if __name__ == "__main__":
    main()
