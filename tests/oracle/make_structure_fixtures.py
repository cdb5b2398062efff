"""Regenerate tests/data/weka_structure.json: Weka 3.6.14's HNB and TAN as oracles.

Needs: Debian package `weka` (3.6.14, /usr/share/java/weka.jar), a JDK, numpy and seminaive
(for the random networks the data is drawn from).  Run from the repository root:

    python tests/oracle/make_structure_fixtures.py

Data sets (all nominal):

* ``tiny`` -- the ``tiny`` set of make_fixtures.py (declared value ``a3`` never occurs in
  training but does in the test rows);
* ``bn300`` / ``bn800`` -- drawn from seminaive.datasets.RandomBayesianNetwork (seeds below)
  and kept literally in the JSON (fewer than 1,000 rows, so that Weka's HNB, which drops CMI
  terms whose probability products are below 1e-6, computes the exact CMI);
* ``mux`` -- class = B if A else (D if C else E) with 10% label noise, where LBR conditions
  on one or two attributes; 10% of the test values are missing (none in training).

Which results each set gets: HNB and TAN only where no value is missing (Weka's HNB refuses
missing training values and reads a missing test value as the first value; BayesNet
replaces missing values by the mode); LBR only where no training value is missing (Weka's
LBR counts a missing training value as the first declared value, ``(int) NaN == 0``, which
is not "missing ignored"; a missing test value is skipped, as ours).

* ``HNB`` -- weka.classifiers.bayes.HNB (no options): distributionForInstance per test row;
* ``TAN_ENTROPY_A1`` -- weka.classifiers.bayes.BayesNet with the TAN search, score ENTROPY
  (log-likelihood: an arc's gain is N * I(X_i; X_j | Y)) and SimpleEstimator -A 1 (Laplace):
  the parents Weka chose and distributionForInstance per test row (WekaStructure.java);
* ``LBR`` -- weka.classifiers.lazy.LBR (no options): distributionForInstance per test row.
"""

import importlib.util
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_DIR = os.path.join(ROOT, "tests", "oracle")
DATA_DIR = os.path.join(ROOT, "tests", "data")
WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")


def _base():
    spec = importlib.util.spec_from_file_location(
        "make_fixtures", os.path.join(ORACLE_DIR, "make_fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_dataset(name, seed, n_train, n_test, n_values, n_classes, max_parents):
    from seminaive.datasets import RandomBayesianNetwork

    net = RandomBayesianNetwork(n_attributes=len(n_values), n_values=n_values,
                                n_classes=n_classes, max_parents=max_parents,
                                concentration=0.5, random_state=seed)
    X, y = net.sample(n_train + n_test, random_state=seed + 1)
    attrs = [(f"a{i}", [f"v{v}" for v in range(c)]) for i, c in enumerate(n_values)]
    cls = ("class", [f"c{c}" for c in range(n_classes)])
    rows = [[f"v{v}" for v in row] for row in np.asarray(X)]
    train = [r + [f"c{c}"] for r, c in zip(rows[:n_train], y[:n_train], strict=True)]
    return (name, attrs, cls, train, rows[n_train:])


def multiplexer_dataset(name, seed, n_train, n_test):
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    bits = rng.integers(0, 2, (n, 5))
    a, b, c, d, e = bits.T
    y = np.where(a == 1, b, np.where(c == 1, d, e))
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    keep = rng.random((n, 5)) >= 0.1
    keep[:n_train] = True
    rows = [[f"{'ABCDE'[i].lower()}{v}" if m else None for i, (v, m) in
             enumerate(zip(row, observed, strict=True))]
            for row, observed in zip(bits, keep, strict=True)]
    attrs = [(f"{x}", [f"{x.lower()}0", f"{x.lower()}1"]) for x in "ABCDE"]
    cls = ("class", ["no", "yes"])
    train = [r + [cls[1][c]] for r, c in zip(rows[:n_train], y[:n_train], strict=True)]
    return (name, attrs, cls, train, rows[n_train:])


def main():
    base = _base()
    datasets = [d for d in base.DATASETS if d[0] == "tiny"]
    datasets.append(random_dataset("bn300", 7, 300, 40, [2, 3, 4, 3, 2, 3], 3, 1))
    datasets.append(random_dataset("bn800", 11, 800, 60, [3, 2, 4, 3, 3, 2, 4, 3], 2, 2))
    datasets.append(multiplexer_dataset("mux", 0, 200, 40))
    out = {"note": "Weka 3.6.14 HNB (default options), BayesNet/TAN (score ENTROPY, "
                   "SimpleEstimator alpha 1) and LBR (default options); see "
                   "tests/oracle/make_structure_fixtures.py",
           "datasets": {}}
    with tempfile.TemporaryDirectory() as tmp:
        classdir = os.path.join(tmp, "classes")
        os.makedirs(classdir)
        for source in ("WekaOracle.java", "WekaStructure.java"):
            subprocess.run(["javac", "-cp", WEKA_JAR, "-d", classdir,
                            os.path.join(ORACLE_DIR, source)], check=True)
        out["weka_version"] = base.weka_version(classdir)
        cp = WEKA_JAR + os.pathsep + classdir
        for name, attrs, cls, train, test in datasets:
            train_path = os.path.join(tmp, name + ".arff")
            test_path = os.path.join(tmp, name + "_test.arff")
            base.write_nominal_arff(train_path, name, attrs, cls, train)
            base.write_nominal_arff(test_path, name + "_test", attrs, cls,
                                    [list(row) + [None] for row in test])
            train_missing = any(v is None for row in train for v in row)
            test_missing = any(v is None for row in test for v in row)
            results = {}
            if not train_missing:
                lbr = base.java(classdir, "classify", train_path, test_path,
                                "weka.classifiers.lazy.LBR")
                results["LBR"] = {"classifier": "weka.classifiers.lazy.LBR", "options": [],
                                  "distributions": lbr["distributions"]}
            if not (train_missing or test_missing):
                hnb = base.java(classdir, "classify", train_path, test_path,
                                "weka.classifiers.bayes.HNB")
                results["HNB"] = {"classifier": "weka.classifiers.bayes.HNB", "options": [],
                                  "distributions": hnb["distributions"]}
                tan = json.loads(subprocess.run(
                    ["java", "-cp", cp, "WekaStructure", train_path, test_path, "ENTROPY",
                     "1.0"], check=True, capture_output=True, text=True).stdout)
                results["TAN_ENTROPY_A1"] = {
                    "classifier": "weka.classifiers.bayes.BayesNet",
                    "search": "weka.classifiers.bayes.net.search.local.TAN, score ENTROPY",
                    "estimator": "weka.classifiers.bayes.net.estimate.SimpleEstimator -A 1.0",
                    "parents": tan["parents"],
                    "distributions": tan["distributions"]}
            out["datasets"][name] = {
                "attributes": [a for a, _ in attrs],
                "values": [list(v) for _, v in attrs],
                "class_name": cls[0],
                "classes": list(cls[1]),
                "train_X": [row[:-1] for row in train],
                "train_y": [row[-1] for row in train],
                "test_X": [list(row) for row in test],
                "results": results,
            }
    os.makedirs(DATA_DIR, exist_ok=True)
    with open(os.path.join(DATA_DIR, "weka_structure.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
