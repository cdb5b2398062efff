"""Regenerate tests/oracle/*.arff, tests/data/weka_oracle.json and
tests/data/weka_mdl_cuts.json from Weka 3.6.14.

Needs: Debian package `weka` (3.6.14, /usr/share/java/weka.jar), a JDK, and
scikit-learn (for the MDL data sets).  Run from the repository root:

    python tests/oracle/make_fixtures.py

WekaOracle.java is compiled into a temporary directory (no .class files are
left in the tree).
"""

import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_DIR = os.path.join(ROOT, "tests", "oracle")
DATA_DIR = os.path.join(ROOT, "tests", "data")
WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")

N = None  # missing value

# --------------------------------------------------------------------------
# Tiny nominal data sets.  Attribute value lists are given in ARFF order.
# 'a3' (tiny, tiny_missing) and 'z4' (tiny3) are declared but never occur in
# the training data.  b2 (2 rows) and c3 (1 row) are rare values, so that
# AODE -F 3 skips them as parents; test row (a3, b2, c3) has *no* eligible
# parent under -F 3 (NB fallback), and (a3, ?, ?) has none even under -F 1.
# --------------------------------------------------------------------------
TINY_ATTRS = [
    ("a", ["a1", "a2", "a3"]),
    ("b", ["b1", "b2"]),
    ("c", ["c1", "c2", "c3"]),
]
TINY_CLASS = ("class", ["pos", "neg"])

TINY_TRAIN = [
    ["a1", "b1", "c1", "pos"],
    ["a1", "b1", "c2", "pos"],
    ["a2", "b1", "c1", "pos"],
    ["a2", "b2", "c1", "pos"],
    ["a1", "b1", "c1", "pos"],
    ["a2", "b1", "c2", "pos"],
    ["a2", "b1", "c2", "neg"],
    ["a1", "b2", "c2", "neg"],
    ["a2", "b1", "c3", "neg"],
    ["a1", "b1", "c2", "neg"],
    ["a2", "b1", "c1", "neg"],
    ["a1", "b1", "c2", "pos"],
]
TINY_TEST = [
    ["a1", "b1", "c1"],
    ["a3", "b1", "c2"],
    ["a2", "b2", "c3"],
    ["a3", "b2", "c3"],
    ["a1", "b2", "c1"],
    ["a2", "b1", "c3"],
]

TINY_MISSING_TRAIN = [
    ["a1", "b1", "c1", "pos"],
    [N, "b1", "c2", "pos"],
    ["a2", "b1", "c1", "pos"],
    ["a2", "b2", N, "pos"],
    ["a1", N, "c1", "pos"],
    ["a2", "b1", "c2", "pos"],
    ["a2", "b1", "c2", "neg"],
    [N, "b2", "c2", "neg"],
    ["a2", "b1", "c3", "neg"],
    ["a1", N, "c2", "neg"],
    ["a2", "b1", N, "neg"],
    ["a1", "b1", "c2", "pos"],
]
TINY_MISSING_TEST = [
    ["a1", "b1", "c1"],
    ["a3", N, N],
    [N, N, N],
    ["a2", N, "c3"],
    [N, "b2", "c2"],
    ["a3", "b2", "c3"],
    ["a1", "b1", N],
]

TINY3_ATTRS = [
    ("w", ["w1", "w2", "w3"]),
    ("x", ["x1", "x2"]),
    ("y", ["y1", "y2", "y3"]),
    ("z", ["z1", "z2", "z3", "z4"]),
]
TINY3_CLASS = ("class", ["c1", "c2", "c3"])
# Drawn once with random.Random(2024) (class-biased values, ~13% missing),
# then hand-edited (z2 made rare: 2 rows, so -F 3 skips it as a parent);
# kept literal so the data never changes.
TINY3_TRAIN = [
    ["w2", "x2", "y2", "z3", "c2"],
    ["w2", "x2", N, "z1", "c2"],
    ["w3", "x1", "y1", N, "c3"],
    ["w3", "x1", "y3", "z3", "c3"],
    ["w3", N, "y3", "z3", "c2"],
    ["w1", "x1", "y1", "z1", "c1"],
    ["w1", "x1", "y1", "z1", "c1"],
    ["w1", N, "y1", N, "c1"],
    ["w2", "x2", "y2", N, "c2"],
    ["w2", "x1", "y2", "z2", "c2"],
    ["w1", "x2", N, "z3", "c3"],
    ["w3", "x1", "y1", N, "c1"],
    ["w3", "x1", "y1", N, "c1"],
    [N, "x1", "y2", "z1", "c1"],
    ["w3", "x2", "y3", "z1", "c3"],
    ["w2", N, N, "z2", "c2"],
    ["w1", "x1", "y3", "z3", "c3"],
    ["w1", N, "y2", "z1", "c2"],
    ["w2", "x2", "y2", N, "c2"],
    ["w2", N, "y1", "z3", "c2"],
]
TINY3_TEST = [
    ["w2", "x2", "y2", "z2"],
    ["w1", "x1", "y1", "z1"],
    ["w1", "x2", N, "z1"],
    ["w3", "x2", "y3", "z3"],
    ["w1", "x1", "y2", "z4"],
    ["w3", "x2", "y1", "z2"],
    ["w1", "x1", "y1", "z1"],
    [N, "x2", "y1", "z1"],
    [N, N, N, "z4"],
]

DATASETS = [
    ("tiny", TINY_ATTRS, TINY_CLASS, TINY_TRAIN, TINY_TEST),
    ("tiny_missing", TINY_ATTRS, TINY_CLASS, TINY_MISSING_TRAIN, TINY_MISSING_TEST),
    ("tiny3", TINY3_ATTRS, TINY3_CLASS, TINY3_TRAIN, TINY3_TEST),
]

CLASSIFIERS = [
    ("NaiveBayes", "weka.classifiers.bayes.NaiveBayes", []),
    ("AODE", "weka.classifiers.bayes.AODE", []),
    ("AODE_F3", "weka.classifiers.bayes.AODE", ["-F", "3"]),
    ("AODE_M1", "weka.classifiers.bayes.AODE", ["-M", "-W", "1"]),
]


def write_nominal_arff(path, relation, attrs, cls, rows):
    with open(path, "w") as f:
        f.write(f"@relation {relation}\n\n")
        for name, values in list(attrs) + [cls]:
            f.write("@attribute {} {{{}}}\n".format(name, ",".join(values)))
        f.write("\n@data\n")
        for row in rows:
            f.write(",".join("?" if v is None else v for v in row) + "\n")


def java(classdir, *args):
    cp = WEKA_JAR + os.pathsep + classdir
    out = subprocess.run(["java", "-cp", cp, "WekaOracle"] + list(args),
                         check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    # Weka pads getOptions() with empty strings; drop them.
    res["weka_options"] = [o for o in res["weka_options"] if o != ""]
    return res


def weka_version(classdir):
    cp = WEKA_JAR + os.pathsep + classdir
    code = subprocess.run(["java", "-cp", cp, "weka.core.Version"],
                          capture_output=True, text=True).stdout.strip()
    return code.splitlines()[0] if code else "unknown"


def make_oracle(classdir):
    out = {"weka_version": weka_version(classdir), "datasets": {}}
    for name, attrs, cls, train, test in DATASETS:
        train_path = os.path.join(ORACLE_DIR, name + ".arff")
        test_path = os.path.join(ORACLE_DIR, name + "_test.arff")
        write_nominal_arff(train_path, name, attrs, cls, train)
        write_nominal_arff(test_path, name + "_test", attrs, cls,
                           [row + [None] for row in test])
        entry = {
            "train_arff": f"tests/oracle/{name}.arff",
            "test_arff": f"tests/oracle/{name}_test.arff",
            "attributes": [a for a, _ in attrs],
            "values": [list(v) for _, v in attrs],
            "class_name": cls[0],
            "classes": list(cls[1]),
            "train_X": [row[:-1] for row in train],
            "train_y": [row[-1] for row in train],
            "test_X": [list(row) for row in test],
            "results": {},
        }
        for key, clsname, opts in CLASSIFIERS:
            res = java(classdir, "classify", train_path, test_path, clsname, *opts)
            entry["results"][key] = {
                "classifier": clsname,
                "options": opts,
                "weka_options": res["weka_options"],
                "command": " ".join(["java -cp weka.jar:. WekaOracle classify",
                                     entry["train_arff"], entry["test_arff"],
                                     clsname] + opts),
                "distributions": res["distributions"],
            }
        out["datasets"][name] = entry
    return out


def write_numeric_arff(path, relation, names, X, y, classes):
    with open(path, "w") as f:
        f.write(f"@relation {relation}\n\n")
        for n in names:
            f.write("@attribute '{}' numeric\n".format(n.replace("'", "\\'")))
        f.write("@attribute class {{{}}}\n\n@data\n".format(",".join(classes)))
        for xi, yi in zip(X, y, strict=False):
            f.write(",".join(repr(float(v)) for v in xi) + "," + classes[yi] + "\n")


def make_cuts(classdir, tmp):
    from sklearn import datasets
    loaders = [("iris", datasets.load_iris), ("wine", datasets.load_wine),
               ("breast_cancer", datasets.load_breast_cancer)]
    out = {"weka_version": weka_version(classdir),
           "filter": "weka.filters.supervised.attribute.Discretize",
           "note": "cuts[dataset][key] = list (attribute order) of cut-point lists; "
                   "'fayyad_irani' = default options, 'kononenko' = -E",
           "datasets": {}}
    for name, loader in loaders:
        d = loader()
        names = [str(n) for n in d.feature_names]
        classes = [str(c).replace(" ", "_") for c in d.target_names]
        path = os.path.join(tmp, name + ".arff")
        write_numeric_arff(path, name, names, np.asarray(d.data, dtype=float),
                           np.asarray(d.target, dtype=int), classes)
        entry = {"source": f"sklearn.datasets.load_{name}()",
                 "attributes": names, "classes": classes,
                 "n_samples": int(d.data.shape[0])}
        for key, opts in [("fayyad_irani", []), ("kononenko", ["-E"])]:
            res = java(classdir, "cuts", path, *opts)
            entry[key] = {"options": opts, "weka_options": res["weka_options"],
                          "cuts": [res["cuts"][n] for n in names]}
        out["datasets"][name] = entry
    return out


def dump(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def main():
    os.makedirs(DATA_DIR, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        classdir = os.path.join(tmp, "classes")
        os.makedirs(classdir)
        subprocess.run(["javac", "-cp", WEKA_JAR, "-d", classdir,
                        os.path.join(ORACLE_DIR, "WekaOracle.java")], check=True)
        dump(make_oracle(classdir), os.path.join(DATA_DIR, "weka_oracle.json"))
        dump(make_cuts(classdir, tmp), os.path.join(DATA_DIR, "weka_mdl_cuts.json"))


if __name__ == "__main__":
    main()
